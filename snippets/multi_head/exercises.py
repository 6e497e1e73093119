"""The exercises of "Multi-head attention", computed on the running sentence with the chapter's own arrays.

Each answer comes from running the code, and so does each usual mistake's result: the mistake is made in code
(the reshape without the transpose, every head given the full width, the scores left unscaled or divided by
sqrt(d_model) instead of sqrt(d_head), one head's projection counted for all, the heads' projections made
d_model wide). ``exercise`` publishes the answer and the mistakes' results; the page quotes them and checks a
reader's reply against them.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import split_heads
from lib.exercises import exercise
from lib.publish import value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)  # 7 tokens
x = embed(tokens)  # (L, d_model)
L, d_model = x.shape
w_q, w_k, w_v = projection_weights()  # each (d_model, h * d_head)
q_all, k_all = x @ w_q, x @ w_k  # (L, d_model) each

# Exercise 1: the shape of the split with four heads.
h = 4
value("h_four", h)
value("length", L)
value("d_head_four", d_model // h)
exercise("split_shape", split_heads(q_all, h).shape, mistakes={
    "no_transpose": q_all.reshape(L, h, d_model // h).shape,  # the head axis left in the middle
    "full_width": np.broadcast_to(q_all, (h, L, d_model)).shape,  # every head given all d_model features
})

# Exercise 2: whose numbers head 1 holds when the four-head split is a plain reshape.
tags = np.repeat(np.arange(L)[:, None], d_model, axis=1)  # (L, d_model): tags[i, c] = i, the word of each number
wrong_tags = tags.reshape(h, L, d_model // h)  # (h, L, d_head): reshape only
block = L * (d_model // h)  # numbers per head, read in memory order
value("head_block", block)  # head 1 holds numbers block ... 2 block - 1 of q, counted row after row from 0
value("block_end", 2 * block - 1)
value("first_row", int(wrong_tags[1].min()))
value("last_row", int(wrong_tags[1].max()))
right_tags = split_heads(tags, h)  # (h, L, d_head): reshape, then transpose
exercise("reshape_only_words", [tokens[i] for i in sorted(set(wrong_tags[1].ravel().tolist()))], mistakes={
    "with_transpose": [tokens[i] for i in sorted(set(right_tags[1].ravel().tolist()))],  # the right split's head 1
})

# Exercise 3: one scaled score of head 1 (the chapter's two heads), from the numbers shown to two decimals.
h = 2
d_head = d_model // h
q_heads, k_heads = split_heads(q_all, h), split_heads(k_all, h)  # (h, L, d_head) each
query, key = tokens.index("mat"), tokens.index("sat")  # a pair whose unrounded score gives the same two decimals
q_row = np.round(q_heads[1, query], 2)  # (d_head,): as the question shows it
k_row = np.round(k_heads[1, key], 2)  # (d_head,)
value("score_query", q_row.tolist(), zh=str(q_row.tolist()))  # quoted as code in both editions
value("score_key", k_row.tolist(), zh=str(k_row.tolist()))
value("score_dot", q_row @ k_row, "{:.4f}")
exercise("head_score", q_row @ k_row / np.sqrt(d_head), "{:.2f}", mistakes={
    "unscaled": q_row @ k_row,
    "scaled_by_d_model": q_row @ k_row / np.sqrt(d_model),  # the width of the whole layer, not of the head
    "divided_by_d_head": q_row @ k_row / d_head,  # d_head instead of its square root
})

# Exercise 4: the entries of all the per-head W_i^Q together, at the sizes of the page's "check it yourself".
big_d_model, big_h = 1024, 16
value("big_d_model", big_d_model)
value("big_h", big_h)
d_k = big_d_model // big_h
value("big_d_k", d_k)
per_head = [(big_d_model, d_k)] * big_h  # the shape of each W_i^Q
exercise("per_head_params", sum(int(np.prod(shape)) for shape in per_head), mistakes={
    "one_head": int(np.prod(per_head[0])),  # one W_i^Q only
    "full_width_heads": sum(int(np.prod((big_d_model, big_d_model))) for _ in per_head),  # (d_model, d_model) each
})
