"""Scaled dot-product attention step by step on "The cat sat on the mat."

Project the embeddings to queries, keys and values; score every query against
every key; scale by sqrt(d_k); softmax each row; take the weighted sum of values.
"""

import matplotlib.pyplot as plt
import numpy as np

from attention import scaled_dot_product_attention, softmax
from plotting import weights_heatmap
from publish import table, value
from running_example import SENTENCE, embed, projection_weights, tokenize

np.set_printoptions(precision=3, suppress=True)

# --8<-- [start:steps]
tokens = tokenize(SENTENCE)  # 7 tokens
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # each (d_model, d_k)
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (L, d_k)
d_k = q.shape[-1]
scores = q @ k.T  # (L, L): one dot product per (query, key) pair
scaled = scores / np.sqrt(d_k)  # (L, L)
weights = softmax(scaled, axis=-1)  # (L, L): each row sums to 1
output = weights @ v  # (L, d_v): each row mixes the value vectors
# --8<-- [end:steps]

reference, reference_weights = scaled_dot_product_attention(q, k, v)
print("tokens:", tokens)
print("scaled scores:\n", scaled)
print("weights:\n", weights)
value("max_error_vs_core", np.max(np.abs(output - reference)), "{:.1e}")
value("cat_top_key", tokens[int(np.argmax(weights[1]))])
table(
    "shapes",
    ["tensor", "shape"],
    [[name, str(a.shape)] for name, a in [("x", x), ("q, k, v", q), ("scores", scores), ("weights", weights), ("output", output)]],
)

fig, ax = plt.subplots(num="weights", figsize=(5, 4.2))
weights_heatmap(ax, weights, tokens, tokens)
fig.colorbar(ax.images[0], ax=ax, label="weight")
plt.show()
