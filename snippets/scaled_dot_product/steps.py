"""Scaled dot-product attention, step by step, on "The cat sat on the mat."

The formula softmax(q k^T / sqrt(d_k)) v is five steps: project the embeddings
to queries, keys and values; score every query against every key; scale the
scores by 1/sqrt(d_k); softmax each row into weights; take the weighted sum of
the values. This snippet runs the five steps by hand, follows the row of "cat"
through them, checks the result against the core module, and draws the weights.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import scaled_dot_product_attention, softmax
from lib.plotting import weights_heatmap
from lib.publish import table, value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

np.set_printoptions(precision=3, suppress=True, linewidth=100)

# --8<-- [start:steps]
tokens = tokenize(SENTENCE)  # 7 tokens: The cat sat on the mat .
x = embed(tokens)  # (L, d_model): one row per token
w_q, w_k, w_v = projection_weights()  # each (d_model, d_k)

q = x @ w_q  # (L, d_k)      1. project
k = x @ w_k  # (L, d_k)
v = x @ w_v  # (L, d_v)
d_k = q.shape[-1]

scores = q @ k.T  # (L, L)      2. score: scores[i, j] = q_i . k_j
scaled = scores / np.sqrt(d_k)  # (L, L)      3. scale
weights = softmax(scaled, axis=-1)  # (L, L)  4. softmax over each row
output = weights @ v  # (L, d_v)    5. weighted sum of value rows
# --8<-- [end:steps]

# --8<-- [start:print]
print("tokens:", tokens)
print("scores = q @ k.T:\n", scores)
print(f"scaled = scores / sqrt({d_k}):\n", scaled)
print("weights = softmax(scaled), one row per query:\n", weights)
print("row sums:", weights.sum(axis=-1))
# --8<-- [end:print]

# Follow one query, "cat" (row 1), through steps 2-4, key by key.
cat = tokens.index("cat")
table(
    "cat_row",
    ["key", "score q·k", "scaled score", "weight"],
    [[key, scores[cat, j], scaled[cat, j], weights[cat, j]] for j, key in enumerate(tokens)],
    fmt="{:.3f}",
)

# Every intermediate tensor, its shape read from the array, its shape in symbols.
sizes = {"L": len(tokens), "d_model": x.shape[-1], "d_k": d_k, "d_v": v.shape[-1]}
intermediates = [
    ("tokens", "tokenize(SENTENCE)", np.array(tokens), "(L,)"),
    ("x", "embed(tokens)", x, "(L, d_model)"),
    ("w_q, w_k", "projection_weights()", w_q, "(d_model, d_k)"),
    ("w_v", "projection_weights()", w_v, "(d_model, d_v)"),
    ("q, k", "x @ w_q, x @ w_k", q, "(L, d_k)"),
    ("v", "x @ w_v", v, "(L, d_v)"),
    ("k.T", "k.T", k.T, "(d_k, L)"),
    ("scores", "q @ k.T", scores, "(L, L)"),
    ("scaled", "scores / np.sqrt(d_k)", scaled, "(L, L)"),
    ("weights", "softmax(scaled, axis=-1)", weights, "(L, L)"),
    ("output", "weights @ v", output, "(L, d_v)"),
]
for name, _, array, symbols in intermediates:  # the symbols must describe the real array
    assert array.shape == eval(symbols, {}, sizes), (name, array.shape, symbols)
table(
    "shapes",
    ["tensor", "computed as", "shape in symbols", "shape here"],
    [[name, code, symbols, str(array.shape)] for name, code, array, symbols in intermediates],
)

reference_output, reference_weights = scaled_dot_product_attention(q, k, v)
value("n_tokens", len(tokens))
value("d_model", x.shape[-1])
value("d_k", d_k)
value("sqrt_d_k", np.sqrt(d_k), "{:.3f}")
value("max_error_vs_core", np.max(np.abs(output - reference_output)), "{:.1e}")
value("max_row_sum_error", np.max(np.abs(weights.sum(axis=-1) - 1)), "{:.1e}")
value("cat_top_key", tokens[int(np.argmax(weights[cat]))])
value("cat_top_weight", weights[cat].max(), "{:.3f}")
value("cat_min_weight", weights[cat].min(), "{:.3f}")
value("uniform_weight", 1 / len(tokens), "{:.3f}")
value("largest_weight", weights.max(), "{:.3f}")
value("smallest_weight", weights.min(), "{:.3f}")
value("scaled_score_std", scaled.std(), "{:.2f}")
value("the_rows_max_difference", np.max(np.abs(weights[0] - weights[tokens.index("the")])), "{:.1f}")
value("heatmap_weights", weights, "{0.shape} array")  # the heatmap's numbers, read by the tests

fig, ax = plt.subplots(num="weights", figsize=(5.2, 4.4))
weights_heatmap(ax, weights, tokens, tokens, title=r"softmax$(q k^{\mathsf{T}} / \sqrt{d_k})$, " + f"$d_k = {d_k}$")
fig.colorbar(ax.images[0], ax=ax, label="attention weight", shrink=0.85)
plt.show()
