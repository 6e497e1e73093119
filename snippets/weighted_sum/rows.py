"""The output row of "cat" is a weighted sum of value rows.

Attention's last step, ``output = weights @ v``, says: the output for query i is
sum_j weights[i, j] * v[j]. We compute the "cat" row both ways (one matrix
product, and an explicit loop over the keys), compare every row of the matrix
product with the loop, and draw the value rows, the weighted rows and their sum.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, scaled_dot_product_attention
from lib.plotting import COLORS
from lib.publish import value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

np.set_printoptions(precision=3, suppress=True)

tokens = tokenize(SENTENCE)  # 7 tokens
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # each (d_model, d_k)
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (L, d_k)
output, weights = scaled_dot_product_attention(q, k, v, causal_mask(len(tokens)))  # (L, d_v), (L, L)
cat = tokens.index("cat")

# --8<-- [start:sum]
by_matrix = weights[cat] @ v  # (d_v,): one row of weights @ v
by_hand = np.zeros(v.shape[1])  # (d_v,)
for j in range(len(tokens)):  # every key, masked ones included (their weight is 0)
    by_hand += weights[cat, j] * v[j]
# --8<-- [end:sum]

print('weights of "cat":', weights[cat])
print("v[The]:", v[0])
print("v[cat]:", v[1])
print('output of "cat" (weights @ v):', by_matrix)
print('output of "cat" (explicit sum):', by_hand)
value("cat_sum_max_error", np.max(np.abs(by_matrix - by_hand)), "{:.1e}")

# The same comparison for every query row of the full matrix product.
loop = np.array([sum(weights[i, j] * v[j] for j in range(len(tokens))) for i in range(len(tokens))])  # (L, d_v)
value("all_rows_max_error", np.max(np.abs(output - loop)), "{:.1e}")

# A weighted average stays inside the range of the rows it mixes, column by column.
visible = v[: cat + 1]  # (2, d_v): the value rows "cat" can see
inside = (by_matrix >= visible.min(axis=0) - 1e-12) & (by_matrix <= visible.max(axis=0) + 1e-12)
value("cat_columns_inside", int(inside.sum()))
value("cat_columns", inside.size)
value("the_output_minus_v_the", np.max(np.abs(output[0] - v[0])), "{:.1f}")  # "The" sees only itself

# A key's contribution to an output row is weights[i, j] * v[j]: its length is the weight times |v[j]|,
# so the key with the largest weight need not be the largest contributor.
contribution = weights * np.linalg.norm(v, axis=-1)  # (L, L): |weights[i, j] * v[j]|
print('contributions |w v| to "cat":', contribution[cat])
value("cat_contribution_the", contribution[cat, 0], "{:.2f}")
value("cat_contribution_cat", contribution[cat, cat], "{:.2f}")
value("rows_top_weight_not_top_contribution", int(np.sum(contribution.argmax(-1) != weights.argmax(-1))))
value("n_rows", len(tokens))

# Figure: for each feature, the output of "cat" lies on the segment between v[The] and v[cat].
features = np.arange(v.shape[1])  # (d_v,)
fig, ax = plt.subplots(num="weighted-sum", figsize=(6.4, 3.8))
ax.vlines(features, np.minimum(v[0], v[1]), np.maximum(v[0], v[1]), color="0.75", linewidth=3, zorder=1)
ax.scatter(features, v[0], marker="s", s=40, color=COLORS[1], zorder=2, label=f"v[The] (weight {weights[cat, 0]:.2f})")
ax.scatter(features, v[1], marker="^", s=45, color=COLORS[2], zorder=2, label=f"v[cat] (weight {weights[cat, 1]:.2f})")
ax.scatter(features, by_matrix, marker="o", s=45, color=COLORS[7], label='output of "cat"', zorder=3)
ax.axhline(0, color="0.6", linewidth=0.8, zorder=0)
ax.set_xticks(features)
ax.set_xlabel("feature (column of v)")
ax.set_ylabel("value")
ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False, fontsize=9)
plt.show()
