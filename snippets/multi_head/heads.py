"""Multi-head attention on "The cat sat on the mat.", one step at a time.

Project once, split the features into h heads, let every head run its own
scaled dot-product attention (causal mask), concatenate the heads' outputs and
mix them with W_o. We draw every head's weights side by side on the same 0-1
scale, and check the step-by-step result against the core module.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, merge_heads, multi_head_attention, scaled_dot_product_attention, split_heads
from lib.plotting import weights_heatmap
from lib.publish import table, value
from lib.running_example import SENTENCE, embed, output_weights, projection_weights, tokenize

np.set_printoptions(precision=3, suppress=True)

tokens = tokenize(SENTENCE)  # 7 tokens
x = embed(tokens)  # (L, d_model)
L, d_model = x.shape
h = 2  # heads
w_q, w_k, w_v = projection_weights()  # each (d_model, h * d_head)
w_o = output_weights(d_model)  # (h * d_head, d_model)
mask = causal_mask(L)  # (L, L)

# --8<-- [start:heads]
q = split_heads(x @ w_q, h)  # (h, L, d_head)
k = split_heads(x @ w_k, h)  # (h, L, d_head)
v = split_heads(x @ w_v, h)  # (h, L, d_head)
heads, weights = scaled_dot_product_attention(q, k, v, mask)  # (h, L, d_head), (h, L, L): one attention per head
concat = merge_heads(heads)  # (L, h * d_head): head 0's features, then head 1's
output = concat @ w_o  # (L, d_model): every output feature mixes all heads
# --8<-- [end:heads]

reference, reference_weights = multi_head_attention(x, w_q, w_k, w_v, w_o, h, mask)
value("heads_max_error_vs_core", np.max(np.abs(output - reference)), "{:.1e}")
value("d_model", d_model)
value("n_heads", h)
value("d_head", q.shape[-1])
table(
    "shapes",
    ["step", "array", "shape"],
    [
        ["input", "`x`", str(x.shape)],
        ["project (all heads at once)", "`x @ w_q`", str((x @ w_q).shape)],
        ["split heads", "`q, k, v`", str(q.shape)],
        ["attention, per head", "`weights`", str(weights.shape)],
        ["weighted sum, per head", "`heads`", str(heads.shape)],
        ["concatenate", "`concat`", str(concat.shape)],
        ["mix heads", "`concat @ w_o`", str(output.shape)],
    ],
)

cat = tokens.index("cat")
print('head 0, row of "cat":', weights[0, cat])
print('head 1, row of "cat":', weights[1, cat])
for i in range(h):
    top = [tokens[j] for j in np.argmax(weights[i], axis=-1)]
    print(f"head {i}, top key of each query:", top)
value("heads_rows_differ", int(np.sum(np.argmax(weights[0], -1) != np.argmax(weights[1], -1))))
value("heads_max_weight_gap", np.max(np.abs(weights[0] - weights[1])), "{:.2f}")

# Without W_o, output feature c comes from one head only; with W_o, each feature depends on all heads.
bump = np.zeros_like(heads)  # (h, L, d_head)
bump[1] = 1.0  # change only head 1
changed_concat = np.abs(merge_heads(heads + bump) - concat).max(axis=0) > 0  # (d_model,)
changed_output = np.abs(merge_heads(heads + bump) @ w_o - output).max(axis=0) > 0  # (d_model,)
value("head1_concat_features", int(changed_concat.sum()))
value("head1_output_features", int(changed_output.sum()))

fig, axes = plt.subplots(1, h, num="heads", figsize=(9.0, 4.2), sharey=True)
for i, ax in enumerate(axes):
    weights_heatmap(ax, weights[i], tokens, tokens, title=f"head {i}")
for ax in axes[1:]:
    ax.set_ylabel("")
fig.colorbar(axes[0].images[0], ax=axes, shrink=0.8, label="weight (fixed 0-1 scale)")
plt.show()
