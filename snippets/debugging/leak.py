"""A causal mask that leaks: three plausible bugs, one test that catches them all.

The test: replace every token after position t with random vectors and measure
how much the outputs at positions 0..t move. A decoder that cannot see the
future moves them by exactly 0. The bugs: no mask, an off-by-one diagonal, and
seed 000's "1 = blocked" mask handed to an API where True means "may attend".
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, scaled_dot_product_attention, softmax
from lib.debug_tools import future_leak
from lib.plotting import weights_heatmap
from lib.publish import table, value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)  # 7 tokens
L = len(tokens)
x = embed(tokens)  # (7, 8)
w_q, w_k, w_v = projection_weights()  # each (8, 8)
ones = np.ones((L, L))

# --8<-- [start:masks]
masks = {
    "causal_mask(L)": causal_mask(L),  # True on and below the diagonal
    "no mask": ones.astype(bool),
    "np.tril(k=1), off by one": np.tril(ones, k=1).astype(bool),  # sees t + 1
    "np.triu(k=1) inverted": np.triu(ones, k=1).astype(bool),  # 1 = blocked
}
leaks = {}
for name, mask in masks.items():
    def attend(x_):
        q, k, v = x_ @ w_q, x_ @ w_k, x_ @ w_v  # each (L, 8)
        return scaled_dot_product_attention(q, k, v, mask)[0]  # (L, 8)
    leaks[name] = future_leak(attend, x)
    print(f"{name:26s} future leak {leaks[name]:.3f}")
# --8<-- [end:masks]
value("leak_causal", leaks["causal_mask(L)"], "{:.1f}")
value("leak_none", leaks["no mask"], "{:.2f}")
value("leak_off_by_one", leaks["np.tril(k=1), off by one"], "{:.2f}")
value("leak_inverted", leaks["np.triu(k=1) inverted"], "{:.2f}")

# --8<-- [start:after]
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (7, 8)
scores = q @ k.T / np.sqrt(q.shape[-1])  # (7, 7)
blocked = np.triu(ones, k=1)  # seed 000's mask: 1 = blocked
after = softmax(scores) - 1e9 * blocked  # mask applied AFTER the softmax
print(f"smallest weight {after.min():.3g}, row sums {after.sum(-1)[:3]}")
zeroed = softmax(scores) * (1 - blocked)  # or: multiply by 0/1 afterwards
print("multiply after softmax, row sums:", zeroed.sum(axis=-1).round(3))


def multiply_after(x_, renormalise=False):
    """Attention whose weights are multiplied by the causal mask after the softmax."""
    q_, k_, v_ = x_ @ w_q, x_ @ w_k, x_ @ w_v  # each (L, 8)
    weights = softmax(q_ @ k_.T / np.sqrt(q_.shape[-1])) * causal_mask(L)  # (L, L)
    if renormalise:
        weights = weights / weights.sum(axis=-1, keepdims=True)  # rows sum to 1 again
    return weights @ v_  # (L, 8)


leaks["multiply after softmax"] = future_leak(multiply_after, x)
leaks["multiply after, renormalise"] = future_leak(lambda x_: multiply_after(x_, renormalise=True), x)
print(f"future leak: multiply after {leaks['multiply after softmax']:.3f}, "
      f"then renormalise {leaks['multiply after, renormalise']:.1e}")
# --8<-- [end:after]
value("after_min_weight", after.min(), "{:.0e}")
value("after_row0_sum", after.sum(axis=-1)[0], "{:.0e}")
value("zeroed_row0_sum", zeroed.sum(axis=-1)[0], "{:.3f}")
value("leak_multiply_after", leaks["multiply after softmax"], "{:.2f}")
value("leak_renormalised", leaks["multiply after, renormalise"], "{:.0e}")
table(
    "leaks",
    ["mask", "largest change of a past output when the future changes"],
    [[name, leak] for name, leak in leaks.items()],
    fmt="{:.3g}",
)

shown = ["causal_mask(L)", "np.tril(k=1), off by one", "np.triu(k=1) inverted"]
fig, axes = plt.subplots(1, 3, num="masks", figsize=(9.5, 3.7), layout="constrained")
for ax, name in zip(axes, shown):
    _, weights = scaled_dot_product_attention(q, k, v, masks[name])  # (7, 7)
    image = weights_heatmap(ax, weights, tokens, tokens, annotate=False, title=name)
fig.colorbar(image, ax=axes, label="weight", shrink=0.8)
plt.show()
