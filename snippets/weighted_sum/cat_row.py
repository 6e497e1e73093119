"""One word's view: the real row of attention weights for "cat".

Single-head causal self-attention on "The cat sat on the mat." (no positional
encoding yet, untrained random projections). We print the whole weight matrix,
then the row of the query "cat", and set it next to the row a popular tutorial
prints for the same sentence. Under a causal mask, "cat" (position 1) may only
look at "The" and at itself: every later key gets weight exactly 0.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, scaled_dot_product_attention
from lib.plotting import COLORS
from lib.publish import table, value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

np.set_printoptions(precision=3, suppress=True)

# --8<-- [start:row]
tokens = tokenize(SENTENCE)  # ["The", "cat", "sat", "on", "the", "mat", "."]
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # each (d_model, d_k)
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (L, d_k)
mask = causal_mask(len(tokens))  # (L, L), True on and below the diagonal
output, weights = scaled_dot_product_attention(q, k, v, mask)  # (L, d_v), (L, L)

cat = tokens.index("cat")  # query position 1
row = weights[cat]  # (L,): how "cat" splits its attention over the keys
# --8<-- [end:row]

print("weights (rows = queries, columns = keys):")
print(weights)
print()
print('row of "cat":', row)
value("cat_w_the", row[0], "{:.3f}")
value("cat_w_cat", row[1], "{:.3f}")
value("cat_w_mat", row[tokens.index("mat")], "{:.1f}")
value("cat_row_sum", row.sum(), "{:.3f}")
value("cat_top_key", tokens[int(np.argmax(row))])
value("cat_n_visible", int(mask[cat].sum()))
value("cat_n_zero", int(np.sum(row == 0.0)))
value("the_w_the", weights[0, 0], "{:.1f}")

# The row that seed 000 prints for "cat" (its sentence has no "." token).
claimed = [0.02, 0.45, 0.08, 0.15, 0.03, 0.27]
claimed_row = np.array(claimed + [np.nan])  # (L,): nothing claimed for "."
value("claimed_n_future", int(np.sum(np.array(claimed)[2:] > 0)))
value("claimed_future_mass", float(np.sum(claimed[2:])), "{:.2f}")
table(
    "cat_row",
    ["key", "visible to cat?", "tutorial claims", "our code"],
    [
        [t, "yes" if mask[cat, j] else "no (future)", "—" if np.isnan(c) else f"{c:.2f}", f"{w:.3f}"]
        for j, (t, c, w) in enumerate(zip(tokens, claimed_row, row))
    ],
)

fig, ax = plt.subplots(num="cat-row", figsize=(6.4, 3.6))
positions = np.arange(len(tokens))  # (L,)
future = ~mask[cat]  # (L,): keys "cat" cannot see
ax.axvspan(positions[future][0] - 0.5, positions[-1] + 0.5, color="0.92", zorder=0)
ax.text(positions[future].mean(), 0.9, "future keys: masked, weight 0", ha="center", color="0.25")
ax.bar(positions - 0.2, row, width=0.4, color=COLORS[0], label="our code (real row)")
ax.bar(
    positions[:-1] + 0.2, claimed, width=0.4, facecolor="none", edgecolor=COLORS[3], hatch="///",
    label="tutorial's claimed row",
)
for p, w in zip(positions, row):
    ax.text(p - 0.2, w + 0.015, f"{w:.2f}", ha="center", va="bottom", fontsize=8, color=COLORS[0])
ax.set_xticks(positions, tokens)
ax.set_xlim(-0.6, len(tokens) - 0.4)
ax.set_ylim(0, 1)
ax.set_xlabel("key (attended to)")
ax.set_ylabel('weight from query "cat"')
ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
plt.show()
