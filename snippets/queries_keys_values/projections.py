"""Three projections of one input: queries, keys and values for "The cat sat on the mat."

Every token's vector x_i is multiplied by three learned matrices. The query
q_i = x_i W_q asks, the key k_j = x_j W_k is what q_i is compared with, and the
value v_j = x_j W_v is what gets mixed into the output. The weights depend only
on W_q and W_k; W_v changes the output but never the weights.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import scaled_dot_product_attention
from lib.publish import table, value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

np.set_printoptions(precision=3, suppress=True)

# --8<-- [start:project]
tokens = tokenize(SENTENCE)  # 7 tokens
x = embed(tokens)  # (L, d_model) = (7, 8)
w_q, w_k, w_v = projection_weights()  # each (d_model, d_k) = (8, 8)
q = x @ w_q  # (L, d_k): what each token looks for
k = x @ w_k  # (L, d_k): what each token offers to be matched on
v = x @ w_v  # (L, d_v): what each token hands over once matched
# --8<-- [end:project]

print("tokens:", tokens)
table(
    "shapes",
    ["tensor", "shape", "role"],
    [
        ["x", str(x.shape), "one row per token"],
        ["W_q, W_k, W_v", str(w_q.shape), "learned, one matrix per role"],
        ["q = x W_q", str(q.shape), "queries"],
        ["k = x W_k", str(k.shape), "keys"],
        ["v = x W_v", str(v.shape), "values"],
    ],
)

# --8<-- [start:values-only]
output, weights = scaled_dot_product_attention(q, k, v)  # (L, d_v), (L, L)
w_v_other = np.random.default_rng(7).normal(scale=1 / np.sqrt(x.shape[1]), size=w_v.shape)  # (d_model, d_v)
output_other, weights_other = scaled_dot_product_attention(q, k, x @ w_v_other)
# --8<-- [end:values-only]
print("\nswap W_v for another matrix:")
value("weights_change_new_wv", np.max(np.abs(weights_other - weights)), "{:.1f}")
value("output_change_new_wv", np.max(np.abs(output_other - output)), "{:.2f}")

# "The" and "the" share one embedding row (the vocabulary is lower-cased) and nothing else
# tells them apart yet, so they get the same query, key and value.
print("\nq of 'The':", q[0])
print("q of 'the':", q[4])
value("the_the_q_difference", np.max(np.abs(q[0] - q[4])), "{:.1f}")
