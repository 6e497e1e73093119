"""The sliding-window mask on the running example: each token attends to at most `window` keys, itself included.

The causal mask lets query i see every key j <= i; the window keeps only the last `window` of them,
i - window < j <= i. The same queries and keys, two masks, two rows of weights per token.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, scaled_dot_product_attention, sliding_window_mask
from lib.plotting import weights_heatmap
from lib.publish import value
from lib.running_example import running_qkv

tokens, q, k, v = running_qkv()  # 7 tokens; q, k, v (L, d_k)
n = len(tokens)

# --8<-- [start:mask]
window = 3
mask = sliding_window_mask(n, window)  # (L, L), True = may attend
print(mask.astype(int))
_, causal_weights = scaled_dot_product_attention(q, k, v, causal_mask(n))  # (L, L)
_, window_weights = scaled_dot_product_attention(q, k, v, mask)  # (L, L)
# --8<-- [end:mask]

value("window", window)
value("n_tokens", n)
value("keys_per_row", mask.sum(axis=1).tolist(), zh="、".join(str(n) for n in mask.sum(axis=1).tolist()))
value("max_keys", int(mask.sum(axis=1).max()))
first_rows_equal = bool(np.array_equal(window_weights[:window], causal_weights[:window]))
value("first_rows_equal_causal", first_rows_equal, zh="是" if first_rows_equal else "否")
value("last_token", tokens[-1])
value("last_token_keys", " ".join(tokens[n - window :]))
value("last_causal_weight_outside", float(causal_weights[-1, : n - window].sum()), "{:.2f}")

fig, axes = plt.subplots(1, 2, num="weights", figsize=(10, 4.6), layout="constrained")
weights_heatmap(axes[0], causal_weights, tokens, tokens, title="causal mask")
weights_heatmap(axes[1], window_weights, tokens, tokens, title=f"sliding window, window = {window}")
fig.colorbar(axes[1].images[0], ax=axes, label="weight", shrink=0.8)
plt.show()
