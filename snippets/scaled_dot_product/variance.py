"""Why divide by sqrt(d_k): the variance of a dot product, measured.

If the d_k components of q and k are independent with mean 0 and variance 1,
then q . k has mean 0 and variance d_k, so q . k / sqrt(d_k) has variance 1.
This snippet draws many random (q, k) pairs for d_k = 4 ... 1024 and measures
both variances. A second table shows what happens when the components have a
standard deviation sigma other than 1: the scaled variance is sigma^4, not 1.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.plotting import COLORS
from lib.publish import table, value

rng = np.random.default_rng(2017)
N_PAIRS = 10_000  # random (q, k) pairs per d_k
D_KS = [4, 16, 64, 256, 1024]

# --8<-- [start:measure]
rows, scaled_samples = [], {}
for d_k in D_KS:
    q = rng.standard_normal((N_PAIRS, d_k))  # (N, d_k): iid N(0, 1)
    k = rng.standard_normal((N_PAIRS, d_k))  # (N, d_k)
    dots = np.einsum("nd,nd->n", q, k)  # (N,): one q . k per pair
    scaled = dots / np.sqrt(d_k)  # (N,)
    rows.append([d_k, dots.mean(), dots.var(), dots.std(), scaled.var()])
    scaled_samples[d_k] = scaled
# --8<-- [end:measure]

table("variance", ["d_k", "mean of q·k", "Var(q·k)", "std of q·k", "Var(q·k / √d_k)"], rows)

# --8<-- [start:sigma]
D_K = 64
sigma_rows = []
for sigma in [0.01, 0.1, 1.0, 3.0, 10.0]:
    q = sigma * rng.standard_normal((N_PAIRS, D_K))  # (N, d_k), std sigma
    k = sigma * rng.standard_normal((N_PAIRS, D_K))  # (N, d_k)
    scaled = np.einsum("nd,nd->n", q, k) / np.sqrt(D_K)  # (N,)
    sigma_rows.append([sigma, sigma**4, scaled.var()])
# --8<-- [end:sigma]

table("sigma", ["std σ of each component", "theory σ⁴", "measured Var(q·k / √d_k)"], sigma_rows, fmt="{:.3g}")

relative_errors = [abs(r[2] / r[0] - 1) for r in rows] + [abs(r[4] - 1) for r in rows]
value("n_pairs", f"{N_PAIRS:,}")
value("var_unscaled_4", rows[0][2], "{:.2f}")
value("var_unscaled_1024", rows[-1][2], "{:.0f}")
value("var_scaled_1024", rows[-1][4], "{:.3f}")
value("std_unscaled_1024", np.sqrt(rows[-1][2]), "{:.1f}")
value("std_unscaled_64", next(r[3] for r in rows if r[0] == 64), "{:.2f}")  # theory: sqrt(64) = 8
value("worst_relative_error", max(relative_errors), "{:.1%}")
value("relative_standard_error_4", np.sqrt((2 + 6 / 4) / N_PAIRS), "{:.1%}")
value("sigma_small_scaled_var", sigma_rows[0][2], "{:.1e}")
value("sigma_large_scaled_var", sigma_rows[-1][2], "{:.3g}")
value("d_k_sigma_table", D_K)
value("share_within_2_std_64", np.mean(np.abs(scaled_samples[64]) <= 2), "{:.1%}")  # |q . k| <= 16

# Left: the spread of q . k grows like sqrt(d_k); scaling removes the growth.
# Right: after scaling, every d_k gives the same bell curve, the standard normal.
fig, (ax_std, ax_hist) = plt.subplots(1, 2, num="spread", figsize=(9, 3.5))
d = np.array(D_KS, dtype=float)
ax_std.plot(d, np.sqrt(d), color=COLORS[1], lw=1.2, ls="--", label=r"theory $\sqrt{d_k}$")
ax_std.plot(d, np.ones_like(d), color=COLORS[0], lw=1.2, ls="--", label="theory 1")
ax_std.plot(d, [r[3] for r in rows], "o", color=COLORS[1], label=r"measured std of $q\cdot k$")
ax_std.plot(d, [np.sqrt(r[4]) for r in rows], "s", color=COLORS[0], label=r"measured std of $q\cdot k/\sqrt{d_k}$")
ax_std.set_xscale("log", base=2)
ax_std.set_yscale("log", base=2)
ax_std.set_xticks(D_KS, [str(n) for n in D_KS])
ax_std.set_yticks([0.5, 1, 2, 4, 8, 16, 32], ["0.5", "1", "2", "4", "8", "16", "32"])
ax_std.set_xlabel(r"$d_k$")
ax_std.set_ylabel("standard deviation")
ax_std.set_title("Spread of the dot product")
ax_std.legend(frameon=False, fontsize=8.5)

grid = np.linspace(-4.5, 4.5, 200)
for d_k, colour in zip(D_KS, [COLORS[i] for i in (5, 2, 1, 3, 4)]):  # no yellow: it vanishes on white
    ax_hist.hist(scaled_samples[d_k], bins=60, range=(-4.5, 4.5), density=True, histtype="step",
                 color=colour, lw=1.2, label=rf"$d_k = {d_k}$")
ax_hist.plot(grid, np.exp(-grid**2 / 2) / np.sqrt(2 * np.pi), color="black", lw=1, ls=":", label="N(0, 1)")
ax_hist.set_xlabel(r"scaled score $q\cdot k/\sqrt{d_k}$")
ax_hist.set_ylabel("density")
ax_hist.set_title(r"After dividing by $\sqrt{d_k}$")
ax_hist.legend(frameon=False, fontsize=8.5)
fig.tight_layout()
plt.show()
