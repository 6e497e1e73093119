"""Clipping scores to [-50, 50] stops the NaN but changes the answer and kills the gradient.

A troubleshooting table in one of our source tutorials suggests
np.clip(scores, -50, 50) before softmax as a NaN fix. We compare it with
subtracting the maximum on a row whose scores are too large for the naive
formula, then compare the gradients that reach the scores. Subtracting the max
is exact; clipping throws away every gap between scores above 50.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import softmax, softmax_backward
from lib.debug_tools import numeric_gradient
from lib.plotting import COLORS
from lib.publish import table, value

np.set_printoptions(precision=3, suppress=False)

# --8<-- [start:row]
scores = np.array([900.0, 860.0, 840.0, 0.0])  # (Lk,): large, as unscaled scores can be
with np.errstate(over="ignore", invalid="ignore"):
    naive = np.exp(scores) / np.sum(np.exp(scores))  # exp(900) = inf -> NaN
clipped = softmax(np.clip(scores, -50, 50))  # the "fix": [50, 50, 50, 0]
exact = softmax(scores)  # subtract the max: [0, -40, -60, -900]
# --8<-- [end:row]
print("naive:  ", naive)
print("clipped:", clipped)
print("exact:  ", exact)
value("clipped_first", clipped[0], "{:.3f}")
value("exact_first", exact[0], "{:.3f}")
value("exact_second", exact[1], "{:.1e}")
value("tv_distance", 0.5 * np.sum(np.abs(clipped - exact)), "{:.3f}")

# Gradient of a cross-entropy loss that wants key 1 (index 1): loss = -log p_1.
# --8<-- [start:gradient]
target = 1


def d_loss_d_weights(p):
    """dLoss/dp for loss = -log p[target]: -1 / p[target] at the target, 0 elsewhere."""
    return -np.eye(len(p))[target] / p[target]


grad_exact = softmax_backward(d_loss_d_weights(exact), exact)  # dLoss/dscores = p - onehot
inside = (scores > -50) & (scores < 50)  # clip passes a gradient only where it did not clip
grad_clipped = softmax_backward(d_loss_d_weights(clipped), clipped) * inside + 0.0  # + 0.0 turns -0.0 into 0.0
# --8<-- [end:gradient]
print("dLoss/dscores, exact:  ", grad_exact)
print("dLoss/dscores, clipped:", grad_clipped)
value("grad_norm_exact", np.linalg.norm(grad_exact), "{:.2f}")
value("grad_norm_clipped", np.linalg.norm(grad_clipped), "{:.1e}")


# Check both gradients with central finite differences of the loss itself.
def loss(s, clip):
    p = softmax(np.clip(s, -50, 50) if clip else s)
    return -np.log(p[target])


h = 1e-4
for name, clip, analytic in [("exact", False, grad_exact), ("clipped", True, grad_clipped)]:
    numeric = numeric_gradient(lambda s: loss(s, clip), scores, h)
    value(f"fd_error_{name}", np.max(np.abs(numeric - analytic)), "{:.1e}")
    value(f"fd_largest_{name}", np.max(np.abs(numeric)), "{:.2g}")  # clipped: 0, the loss does not move at all

# Rows like the scores of unscaled or badly initialised attention: N(0, 120^2) entries, 6 keys.
rng = np.random.default_rng(0)
spread = 120.0  # standard deviation of the scores
# --8<-- [start:many]
many = rng.normal(scale=spread, size=(10_000, 6))  # (N, Lk)
tv = 0.5 * np.sum(np.abs(softmax(np.clip(many, -50, 50)) - softmax(many)), axis=-1)  # (N,)
# --8<-- [end:many]
value("many_rows", many.shape[0])
value("many_std", spread, "{:.0f}")
value("many_mean_tv", np.mean(tv), "{:.2f}")
value("many_share_tv_over_01", np.mean(tv > 0.1), "{:.0%}")
value("many_share_clipped", np.mean(np.abs(many) >= 50), "{:.0%}")
table(
    "summary",
    ["method", "weights", "NaN?", "|dLoss/dscores|"],
    [
        ["naive exp / sum", str(naive.round(3)), "yes", "NaN"],
        ["clip to [-50, 50]", str(clipped.round(3)), "no", f"{np.linalg.norm(grad_clipped):.1e}"],
        ["subtract the max", str(exact.round(3)), "no", f"{np.linalg.norm(grad_exact):.2f}"],
    ],
)

fig, ax = plt.subplots(num="clip", figsize=(6.0, 3.4))
keys = [f"key {j}\nscore {s:g}" for j, s in enumerate(scores)]
positions = np.arange(len(scores))
ax.bar(positions - 0.2, exact, width=0.4, color=COLORS[0], label="subtract the max (exact)")
ax.bar(positions + 0.2, clipped, width=0.4, color=COLORS[1], label="clip to [-50, 50]")
ax.set_xticks(positions, keys)
ax.set_ylim(0, 1)
ax.set_ylabel("softmax weight")
ax.legend(frameon=False, loc="upper right")
plt.show()
