"""Claims about queries, keys and values, measured on the running sentence.

Values the chapters already publish (self-match rates, tied projections, dot
product versus cosine) are quoted from those chapters; this snippet measures
only what no chapter does.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import scaled_dot_product_attention, sinusoidal_positions, split_heads
from lib.debug_tools import numeric_gradient, relative_error
from lib.publish import value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

rng = np.random.default_rng(13)
tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # each (d_model, d_k)
L, d_model = x.shape

# The same word at every position: its queries differ only through positions.
same_word = np.repeat(x[:1], L, axis=0)  # "The" at all L positions, (L, d_model)
with_positions = same_word + sinusoidal_positions(L, d_model)  # (L, d_model)
value("same_word_q_diff_no_pe", np.abs(same_word @ w_q - (same_word @ w_q)[0]).max(), "{:.1f}")
value("same_word_q_diff_pe", np.abs(with_positions @ w_q - (with_positions @ w_q)[0]).max(), "{:.2f}")

# W_v does not enter the weights.
weights = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)[1]  # (L, L)
other_w_v = rng.normal(size=w_v.shape)  # (d_model, d_v)
weights_other_v = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ other_w_v)[1]  # (L, L)
value("w_v_weight_change", np.abs(weights - weights_other_v).max(), "{:.1f}")
value("weights_asymmetry", np.abs(weights - weights.T).max(), "{:.2f}")

# Softmax keeps the order of the scores within a row.
scores = (x @ w_q) @ (x @ w_k).T / np.sqrt(w_q.shape[1])  # (L, L)
order_kept = all(np.array_equal(np.argsort(s), np.argsort(w)) for s, w in zip(scores, weights))
value("softmax_keeps_row_order", order_kept, zh="是" if order_kept else "否")

# Every head projects all input features.
head0 = split_heads(x @ w_q, 2)[0]  # (L, d_k / 2): head 0
nudged = x.copy()
nudged[:, -1] += 1.0  # change the last input feature only
value("head0_sees_last_feature", np.abs(split_heads(nudged @ w_q, 2)[0] - head0).max(), "{:.2f}")

# The value gradient is the weights, transposed, times the upstream gradient:
# compare W^T dO with finite differences of the loss sum(output * dO) in v.
q, k, v = rng.normal(size=(3, 5, 4))  # each (5, 4)
d_out = rng.normal(size=(5, 4))  # upstream gradient dL/d(output)
weights_small = scaled_dot_product_attention(q, k, v)[1]  # (5, 5)
d_v_numeric = numeric_gradient(lambda v_: np.sum(scaled_dot_product_attention(q, k, v_)[0] * d_out), v)
value("dv_is_weights_t_g", relative_error(weights_small.T @ d_out, d_v_numeric), "{:.0e}")
