"""A saturated softmax starves Q and K of gradient; dividing by sqrt(d_k) prevents it.

Random unit-variance q, k, v (8 positions, 500 draws) and a random upstream gradient g. Left: fix
d_k = 64 and multiply the scores by a factor (the score's standard deviation); the V path keeps its
gradient while the Q path collapses once the weights turn one-hot. Right: vary d_k with and without
the 1/sqrt(d_k). "Unscaled" attention is the core's scaled attention fed sqrt(d_k) * q, so its
gradient with respect to q is sqrt(d_k) times the core's dq. We plot the gradient per query,
|dL/dq_i| / sqrt(d_k) (the root-mean-square per coordinate): the median and the 10-90 % band.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import scaled_dot_product_attention, scaled_dot_product_attention_backward
from lib.plotting import COLORS
from lib.publish import table, value

rng = np.random.default_rng(0)
L, DRAWS = 8, 500


def gradients(d_k, score_scale):
    """Per-query gradient sizes (RMS per coordinate) for scores = score_scale * q k^T / sqrt(d_k)."""
    q, k, v, g = (rng.normal(size=(DRAWS, L, d_k)) for _ in range(4))  # each (DRAWS, L, d_k)
    # --8<-- [start:unscaled]
    dq, dk, dv = scaled_dot_product_attention_backward(g, score_scale * q, k, v)  # scores grow with the scale
    dq = score_scale * dq  # chain rule through q -> score_scale * q
    # --8<-- [end:unscaled]
    _, weights = scaled_dot_product_attention(score_scale * q, k, v)  # (DRAWS, L, L)
    rms = lambda grad: np.linalg.norm(grad, axis=-1).ravel() / np.sqrt(d_k)  # noqa: E731
    return rms(dq), rms(dv), weights.max(axis=-1).mean()


def band(samples):
    return np.percentile(samples, [10, 50, 90])


scales = 10 ** np.linspace(-1, 1.5, 11)  # score standard deviation 0.1 ... 31.6, with 1 in the grid
by_scale = [gradients(64, s) for s in scales]
dims = 2 ** np.arange(1, 11)  # d_k = 2 ... 1024
scaled = [gradients(int(d), 1.0) for d in dims]
unscaled = [gradients(int(d), np.sqrt(d)) for d in dims]  # no division: scores = q k^T

rows = []
for d, s, u in zip(dims, scaled, unscaled):
    rows.append([int(d), band(s[0])[1], s[2], band(u[0])[1], u[2], np.mean(u[0] < 1e-3 * band(s[0])[1])])
table(
    "by_dk",
    ["d_k", "median dq, scaled", "top weight, scaled", "median dq, unscaled", "top weight, unscaled",
     "share starved, unscaled"],
    rows,
    fmt="{:.3g}",
)
last = rows[-1]
value("n_positions", L)
value("n_draws", DRAWS)
value("n_rows", L * DRAWS)
value("dk_max", int(dims[-1]))
value("median_dq_scaled_max", last[1], "{:.2f}")
value("median_dq_unscaled_max", last[3], "{:.1e}")
value("top_weight_scaled_max", last[2], "{:.2f}")
value("top_weight_unscaled_max", last[4], "{:.3f}")
value("starved_unscaled_max", last[5], "{:.0%}")
value("ratio_max", last[1] / last[3], "{:.0f}")
value("p90_dq_unscaled_max", band(unscaled[-1][0])[2], "{:.2f}")
at_1, at_max = by_scale[4], by_scale[-1]  # std 1 (scaled attention) and std 31.6
value("std_max", scales[-1], "{:.1f}")
value("median_dq_std1", band(at_1[0])[1], "{:.2f}")
value("median_dq_std_max", band(at_max[0])[1], "{:.1e}")
value("median_dv_std1", band(at_1[1])[1], "{:.2f}")
value("median_dv_std_max", band(at_max[1])[1], "{:.2f}")
# Below std 1 the scores are score_scale times those of std 1: dq divided by that factor isolates the softmax's part.
dq_per_scale = [band(r[0])[1] / s for s, r in zip(scales, by_scale) if s <= 1.0]
value("std_min", scales[0], "{:.1f}")
value("dq_per_scale_min", min(dq_per_scale), "{:.3f}")
value("dq_per_scale_max", max(dq_per_scale), "{:.3f}")
value("crossover_dk", next(r[0] for r in rows if r[3] < r[1]))
value("median_dq_scaled_min_dk", min(r[1] for r in rows), "{:.2f}")
value("median_dq_scaled_max_dk", max(r[1] for r in rows), "{:.2f}")
value("scaled_spread", max(r[1] for r in rows) / min(r[1] for r in rows), "{:.1f}")
flat = [r[0] for i, r in enumerate(rows) if all(abs(s[1] / last[1] - 1) < 0.1 for s in rows[i:])]
value("flat_from_dk", flat[0])  # from here on, every scaled median is within 10 % of the last one
by_d = {r[0]: r for r in rows}
value("median_dq_scaled_dk2", by_d[2][1], "{:.2f}")
value("median_dq_scaled_64", by_d[64][1], "{:.2f}")
value("median_dq_unscaled_64", by_d[64][3], "{:.2f}")
peak = max(rows, key=lambda r: r[3])
value("unscaled_peak_dk", peak[0])
value("median_dq_unscaled_peak", peak[3], "{:.2f}")
value("tenfold_dk", next(r[0] for r in rows if r[3] < r[1] / 10))  # unscaled ten times below scaled from here

fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), num="saturation", layout="constrained")
for index, colour, label in ((0, COLORS[3], "dq (path through the weights)"),
                             (1, COLORS[2], "dv (path through the sum)")):
    low, mid, high = np.array([band(r[index]) for r in by_scale]).T
    axes[0].fill_between(scales, low, high, color=colour, alpha=0.2, linewidth=0)
    axes[0].plot(scales, mid, color=colour, label=label)
axes[0].axvline(1.0, color="grey", linestyle=":", linewidth=1)
axes[0].annotate("scaled attention\n(std 1)", (1.0, 1e-6), xytext=(4, 0), textcoords="offset points", fontsize=8,
                 color="dimgrey")
axes[0].set_xlabel("standard deviation of the scores (d_k = 64)")
axes[0].set_title("the Q path dies as the softmax saturates", fontsize=9)
for results, colour, label in ((scaled, COLORS[0], "scaled: q k^T / sqrt(d_k)"),
                               (unscaled, COLORS[3], "unscaled: q k^T")):
    low, mid, high = np.array([band(r[0]) for r in results]).T
    axes[1].fill_between(dims, low, high, color=colour, alpha=0.2, linewidth=0)
    axes[1].plot(dims, mid, color=colour, marker="o", markersize=3, label=label)
axes[1].set_xlabel("d_k")
axes[1].set_title("without the scale, a larger d_k starves dq", fontsize=9)
for ax in axes:
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylabel("gradient per row, RMS per coordinate")
    ax.set_ylim(1e-8, 1e2)
    ax.legend(frameon=False, fontsize=8, loc="lower left")
axes[1].set_xscale("log", base=2)
plt.show()
