"""What an untrained row of weights can and cannot tell you.

Our projections W_q, W_k are random draws, not trained. To see how much of the
"cat" row is a fact about language and how much is a fact about one draw, we
redraw W_q and W_k 1000 times (same embeddings, same causal mask) and record
how "cat" splits its weight. We also check that W_v never changes the weights.
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

tokens = tokenize(SENTENCE)  # 7 tokens
x = embed(tokens)  # (L, d_model)
d_model = x.shape[1]
cat, mat = tokens.index("cat"), tokens.index("mat")
mask = causal_mask(len(tokens))  # (L, L)

# --8<-- [start:draws]
rng = np.random.default_rng(2024)
n_draws = 1000
self_weight = np.empty(n_draws)  # weight "cat" puts on itself, causal mask
top_is_mat = np.empty(n_draws, dtype=bool)  # is "mat" cat's top key without any mask?
for n in range(n_draws):
    w_q, w_k = rng.normal(scale=1 / np.sqrt(d_model), size=(2, d_model, d_model))  # fresh random projections
    q, k = x @ w_q, x @ w_k  # (L, d_k) each
    _, causal = scaled_dot_product_attention(q, k, k, mask)  # (L, L); v does not affect the weights
    _, unmasked = scaled_dot_product_attention(q, k, k)  # (L, L), every key visible
    self_weight[n] = causal[cat, cat]
    top_is_mat[n] = np.argmax(unmasked[cat]) == mat
# --8<-- [end:draws]

value("n_draws", n_draws)
value("self_weight_mean", self_weight.mean(), "{:.2f}")
value("self_weight_p05", np.percentile(self_weight, 5), "{:.2f}")
value("self_weight_p95", np.percentile(self_weight, 95), "{:.2f}")
value("self_top_percent", 100 * np.mean(self_weight > 0.5), "{:.0f}%")
value("mat_top_percent_unmasked", 100 * top_is_mat.mean(), "{:.0f}%")
value("n_keys", len(tokens))
value("chance_percent_unmasked", 100 / len(tokens), "{:.0f}%")

# W_v changes the output, never the weights: the weights use only q and k.
w_q, w_k, w_v = projection_weights()  # (d_model, d_k) each
other_w_v = np.random.default_rng(99).normal(scale=1 / np.sqrt(d_model), size=w_v.shape)  # (d_model, d_v)
out_a, weights_a = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask)
out_b, weights_b = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ other_w_v, mask)
value("w_v_weights_change", np.max(np.abs(weights_a - weights_b)), "{:.1f}")
value("w_v_output_change", np.max(np.abs(out_a - out_b)), "{:.2f}")

fig, ax = plt.subplots(num="self-weight", figsize=(6.4, 3.6))
ax.hist(self_weight, bins=np.linspace(0, 1, 21), color=COLORS[0], edgecolor="white")
ax.axvline(weights_a[cat, cat], color=COLORS[3], linestyle="--", label="the draw used on this page")
ax.set_xlim(0, 1)
ax.set_xlabel('weight "cat" puts on itself (the rest goes to "The")')
ax.set_ylabel(f"number of draws (of {n_draws})")
ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
plt.show()
