"""The cross-attention chapter's exercises: each answer, and the result of each usual mistake made in code.

On the chapter's running example (the batch of two sentence pairs of attend.py, rebuilt here with the same seed, and
the sizes of decode.py): the shape of the source's keys with four heads; the weight a target word puts on a source
word, from its raw scores; which mask cross-attention needs; and what computing the source's keys and values once
saves while the target is written. Every value prints.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, multi_head_attention, padding_mask, softmax, split_heads
from lib.encoder_decoder import cross_attention, running_translation, source_keys_values
from lib.exercises import exercise
from lib.publish import value
from lib.running_example import D_MODEL, SENTENCE, tokenize

# The running example of attend.py: two sentence pairs, sources padded to one length, untrained random weights.
sources = [tokenize(SENTENCE.lower()), ["the", "dog", "ran", "."]]
targets = [["the", "cat", "sat", "."], ["a", "dog", "ran", "."]]
embed_batch, enc_w, dec_w, cross_w = running_translation(sources, targets)
n_heads = 2

lengths = np.array([len(s) for s in sources])  # (B,)
l_k, l_q = int(lengths.max()), len(targets[0])
source_mask = padding_mask(lengths, l_k)  # (B, 1, L_k)
src, _ = embed_batch(sources, l_k)  # (B, L_k, d_model)
tgt, _ = embed_batch(targets, l_q)  # (B, L_q, d_model)
memory, _ = multi_head_attention(src, *enc_w, n_heads, mask=source_mask)  # (B, L_k, d_model)
h, _ = multi_head_attention(tgt, *dec_w, n_heads, mask=causal_mask(l_q))  # (B, L_q, d_model)

# Exercise 1: the shape of the source's keys with 4 heads instead of 2.
wide = 4
k_wide, _ = source_keys_values(memory, cross_w[1], cross_w[2], wide)  # (B, 4, L_k, d_model / 4)
k_from_target, _ = source_keys_values(h, cross_w[1], cross_w[2], wide)  # keys from the target: (B, 4, L_q, d_head)
not_transposed = (memory @ cross_w[1]).reshape(*memory.shape[:2], wide, D_MODEL // wide)  # (B, L_k, 4, d_head)
whole_width = np.repeat((memory @ cross_w[1])[:, None], wide, axis=1)  # every head the whole d_model wide
value("heads_wide", wide)
value("d_model", D_MODEL)
value("d_head_wide", D_MODEL // wide)
exercise("keys_shape", tuple(int(n) for n in k_wide.shape), mistakes={
    "keys_from_target": tuple(int(n) for n in k_from_target.shape),
    "no_transpose": tuple(int(n) for n in not_transposed.shape),
    "whole_width": tuple(int(n) for n in whole_width.shape),
})

# Exercise 2: sentence 2, head 2, the first target word "a": its weight on the source word "the", from the raw
# dot products q . k_j over all L_k source positions (pads included), as the question shows them (2 decimals).
q = split_heads(h @ cross_w[0], n_heads)  # (B, h, L_q, d_head)
k, v = source_keys_values(memory, cross_w[1], cross_w[2], n_heads)  # each (B, h, L_k, d_head)
d_head = D_MODEL // n_heads
raw = np.round(q[1, 1, 0] @ k[1, 1].T, 2)  # (L_k,): what the question gives, rounded as it shows them
def vector_text(x, fmt):
    """A vector as the prose shows it, (0.09, 0.12, ...); the Chinese prose shows it as code."""
    return "(" + ", ".join([fmt] * len(x)).format(*x) + ")"


value("raw_scores", raw.tolist(), vector_text(raw, "{:.2f}"), zh=f"`{vector_text(raw, '{:.2f}')}`")
value("d_head", d_head)
value("sqrt_d_head", np.sqrt(d_head), "{:g}")
value("source_2_length", int(lengths[1]))
real = source_mask[1, 0]  # (L_k,): True on "the dog ran ."
right = softmax(np.where(real, raw / np.sqrt(d_head), -np.inf))  # (L_k,)
unscaled = softmax(np.where(real, raw, -np.inf))  # the score not divided by sqrt(d_head)
unmasked = softmax(raw / np.sqrt(d_head))  # the pads keep their scores
causal_across = softmax(np.where(causal_mask(l_k)[0], raw / np.sqrt(d_head), -np.inf))  # query 0 sees key 0 only
scaled = raw[real] / np.sqrt(d_head)  # (4,): the real words' scores, divided by sqrt(d_head)
value("scaled_scores", scaled.tolist(), vector_text(scaled, "{:.3f}"), zh=f"`{vector_text(scaled, '{:.3f}')}`")
value("weights", right[real].tolist(), vector_text(right[real], "{:.3f}"),
      zh=f"`{vector_text(right[real], '{:.3f}')}`")
exercise("weight_on_the", float(right[0]), "{:.2f}", mistakes={
    "no_scale": float(unscaled[0]),
    "no_mask": float(unmasked[0]),
    "causal_mask": float(causal_across[0]),
})

# Exercise 3: which mask cross-attention needs. Each option run on the batch: it must give the pads no weight and
# let the first target word of every sentence see every real source word.
rectangular_causal = np.tri(l_q, l_k, dtype=bool)  # (L_q, L_k): target position i sees source positions 0..i
masks = {"none": None, "causal": rectangular_causal, "padding": source_mask, "both": rectangular_causal & source_mask}
verdicts = {}
for option, mask in masks.items():
    _, weights = cross_attention(h, (k, v), cross_w[0], cross_w[3], n_heads, mask)  # (B, h, L_q, L_k)
    pads_empty = np.all(weights[1][..., lengths[1]:] == 0)
    first_sees_all = np.all((weights[:, :, 0, :] > 0) | ~source_mask)  # (B, h, L_k): positive on every real word
    verdicts[option] = bool(pads_empty and first_sees_all)
    print(f"mask {option}: pads get no weight {bool(pads_empty)}, first target word sees every source word "
          f"{bool(first_sees_all)}")
(needed,) = [option for option, ok in verdicts.items() if ok]
exercise("mask", needed, mistakes={option: option for option, ok in verdicts.items() if not ok})

# Exercise 4: decode.py's sizes, a target of 20 tokens: the multiply-adds saved by projecting the source once.
d_model, decode_l_k, long_target = 8, 7, 20
value("decode_d_model", d_model)
value("decode_l_k", decode_l_k)
value("long_target", long_target)


def multiply_adds(a_shape, b_shape):
    """Multiply-adds of a (m, n) @ (n, p) product: m n p."""
    assert a_shape[1] == b_shape[0], (a_shape, b_shape)
    return a_shape[0] * a_shape[1] * b_shape[1]


per_projection = multiply_adds((decode_l_k, d_model), (d_model, d_model))  # memory @ W_K, or memory @ W_V
once = 2 * per_projection  # keys and values, before the first step
every_step = long_target * once  # keys and values again at each step
value("one_round", once)
exercise("saved", every_step - once, mistakes={
    "keys_only": long_target * per_projection - per_projection,
    "every_step": every_step,
})
