"""The two ways to pair features for the rotation, and the weight permutation that turns one into the other.

RoFormer (Su et al. 2021, section 3.4.2) and GPT-J rotate the adjacent pairs
(2i, 2i+1); GPT-NeoX and Hugging Face's Llama rotate the split halves
(i, i + d/2). A checkpoint trained with one pairing runs with the other once the
columns of each head's W_Q and W_K are permuted so that feature 2i goes to i and
2i+1 to i + d/2 (transformers' convert_llama_weights_to_hf.py does this in its
function `permute`). We show it by equal scores, and what happens without it.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import apply_rope, attention_scores, rope_pairs, split_heads
from lib.publish import table, value

rng = np.random.default_rng(1)
L, d_model, n_heads = 8, 32, 4
d_head = d_model // n_heads
x = rng.normal(size=(L, d_model))  # (L, d_model)
w_q, w_k = rng.normal(scale=d_model**-0.5, size=(2, d_model, d_model))  # (d_model, d_model) each
positions = np.arange(L)  # (L,)

# --8<-- [start:pairs]
first, second = rope_pairs(d_head, "interleaved")
print("interleaved pairs:", list(zip(first.tolist(), second.tolist())))
first, second = rope_pairs(d_head, "half")
print("half pairs:       ", list(zip(first.tolist(), second.tolist())))
# --8<-- [end:pairs]


def rotated_scores(w_q, w_k, pairing):
    q = apply_rope(split_heads(x @ w_q, n_heads), positions, pairing=pairing)  # (h, L, d_head)
    k = apply_rope(split_heads(x @ w_k, n_heads), positions, pairing=pairing)  # (h, L, d_head)
    return attention_scores(q, k)  # (h, L, L)


# --8<-- [start:permute]
within_head = np.concatenate([np.arange(0, d_head, 2), np.arange(1, d_head, 2)])  # (d_head,): 0, 2, 4, ..., 1, 3, ...
columns = (np.arange(n_heads)[:, None] * d_head + within_head).ravel()  # (d_model,): the same order in every head
interleaved = rotated_scores(w_q, w_k, "interleaved")  # (h, L, L): the checkpoint as trained
converted = rotated_scores(w_q[:, columns], w_k[:, columns], "half")  # (h, L, L): permuted weights, half pairing
unconverted = rotated_scores(w_q, w_k, "half")  # (h, L, L): the same weights, the other pairing
# --8<-- [end:permute]
print("head 1 columns after the permutation:", columns[:d_head].tolist())
converted_error = np.max(np.abs(converted - interleaved))
unconverted_error = np.max(np.abs(unconverted - interleaved))
digits = "{:.3g}"  # the table and the prose show the same digits
table(
    "pairings",
    ["weights", "pairing", "largest score difference from the trained model"],
    [["as trained", "interleaved (2i, 2i+1)", 0.0],
     ["columns permuted", "half (i, i + d/2)", converted_error],
     ["as trained", "half (i, i + d/2)", unconverted_error]],
    fmt=digits,
)
value("converted_error", converted_error, digits)
value("unconverted_error", unconverted_error, digits)
value("score_range", np.max(np.abs(interleaved)), "{:.2f}")
value("d_head", d_head)
