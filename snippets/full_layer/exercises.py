"""The exercises of "The whole layer on a batch", computed on the chapter's padded batch with its masks and shapes.

Each answer comes from running the code, and so does each usual mistake's result: the mistake is made in code
(the mask without its head axis or with it at the end, the scores without the head axis or at the old padded
length, one mask where the page uses two, one head's weights counted, or only the real queries' rows).
``exercise`` publishes the answer and the mistakes' results; the page quotes them and checks a reader's reply
against them. The batch is the chapter's: ``SENTENCES`` is the list of snippets/full_layer/batch.py (a test
holds the two equal), and the fourth sentence is the one its "check it yourself" adds.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, padding_mask, split_heads
from lib.exercises import exercise
from lib.publish import value
from lib.running_example import D_MODEL, projection_weights, tokenize

SENTENCES = ["The cat sat on the mat.", "A dog ran.", "Dogs chase the cat."]
FOURTH = "The hungry dog sat on the warm mat by the door."
d_model, h = D_MODEL, 2
w_q, w_k, _ = projection_weights()  # each (d_model, h * d_head)


def batch_mask(lengths, causal=True, pad_mask=True):
    """The chapter's (B, L, L) mask: True where a query may look at a key."""
    L = max(lengths)
    mask = np.ones((len(lengths), L, L), dtype=bool)  # (B, L, L): every key visible
    if pad_mask:
        mask &= padding_mask(lengths, L)  # (B, 1, L): no padding key
    if causal:
        mask &= causal_mask(L)  # (L, L): no later key
    return mask


lengths = [len(tokenize(s)) for s in SENTENCES]  # 7, 4, 5
B, L = len(lengths), max(lengths)
mask = batch_mask(lengths)  # (B, L, L)

# Exercise 1: the mask with the head axis inserted, as the layer broadcasts it against the (B, h, L, L) scores.
exercise("mask_shape", mask[:, None].shape, mistakes={
    "no_head_axis": mask.shape,  # the mask as it is built
    "axis_at_end": mask[..., None].shape,  # the new axis in the wrong place
})

# Exercise 2: the scores' shape once the fourth sentence joins the batch.
four = [len(tokenize(s)) for s in [*SENTENCES, FOURTH]]  # lengths of the four sentences
value("fourth_sentence", FOURTH)
value("fourth_length", four[-1])
value("four_sentences", len(four))
x = np.zeros((len(four), max(four), d_model))  # (B, L, d_model): only the shapes matter here
q, k = split_heads(x @ w_q, h), split_heads(x @ w_k, h)  # (B, h, L, d_head) each
x_old = x[:, :L]  # (B, 7, d_model): the batch cut at the old padded length
q_old, k_old = split_heads(x_old @ w_q, h), split_heads(x_old @ w_k, h)
exercise("scores_shape_four", (q @ np.swapaxes(k, -1, -2)).shape, mistakes={
    "no_head_axis": ((x @ w_q) @ np.swapaxes(x @ w_k, -1, -2)).shape,  # the scores before the split
    "old_length": (q_old @ np.swapaxes(k_old, -1, -2)).shape,  # L left at the three sentences' 7
})

# Exercise 3: the (query, key) pairs sentence 3 may use.
third = 2  # "Dogs chase the cat.", padded with two <pad>
value("third_length", lengths[third])
value("third_real_row_pairs", int(mask[third, : lengths[third]].sum()))  # the rows of its real queries
value("third_pad_row_pairs", int(mask[third, lengths[third] :].sum()))  # the rows of its <pad> queries
exercise("allowed_pairs", int(mask[third].sum()), mistakes={
    "causal_only": int(batch_mask(lengths, pad_mask=False)[third].sum()),
    "padding_only": int(batch_mask(lengths, causal=False)[third].sum()),
})

# Exercise 4: the entries of the weights, all heads, whose key is padding, in sentence 2.
second = 1  # "A dog ran.", padded with three <pad>
value("second_pads", L - lengths[second])
is_pad = np.arange(L)[None, :] >= np.array(lengths)[:, None]  # (B, L): True at padding positions
weights_shape = (B, h, L, L)  # s["weights"]
pad_key = np.broadcast_to(is_pad[:, None, None, :], weights_shape)  # (B, h, L, L): the key is padding
real_query = np.broadcast_to(~is_pad[:, None, :, None], weights_shape)  # (B, h, L, L): the query is a real word
exercise("pad_key_weights", int(pad_key[second].sum()), mistakes={
    "one_head": int(pad_key[second, 0].sum()),  # the weights of one head only
    "real_queries_only": int((pad_key & real_query)[second].sum()),  # the pad queries' rows left out
})
