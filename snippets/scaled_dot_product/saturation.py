"""What large scores do to softmax: saturation as d_k grows, with and without 1/sqrt(d_k).

For each d_k we draw many random rows: one query q and L = 7 keys with iid
N(0, 1) components, the size of the running sentence. Each row's scores q . k_j
go through softmax unscaled and scaled. Three measures, averaged over the rows:
the largest weight (1/L is uniform, 1 is one-hot), the entropy in nats (ln L is
uniform, 0 is one-hot), and the Frobenius norm of the softmax Jacobian
diag(p) - p p^T, the factor every gradient to the scores passes through
(0 means no gradient survives).
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import softmax
from lib.plotting import COLORS
from lib.publish import table, value
from lib.seeded import normals

rng = np.random.default_rng(64)
L = 7  # keys per row, as in "The cat sat on the mat."
N_ROWS = 1_000  # random rows per d_k
D_KS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]


# --8<-- [start:measures]
def entropy(p):
    """Entropy in nats of each row of p, with 0 log 0 = 0."""
    return -np.sum(p * np.log(np.where(p > 0, p, 1.0)), axis=-1)  # (...,)


def jacobian_norm(p):
    """Frobenius norm of each row's softmax Jacobian diag(p) - p p^T."""
    eye = np.eye(p.shape[-1])  # (L, L)
    jacobian = p[..., :, None] * eye - p[..., :, None] * p[..., None, :]
    return np.linalg.norm(jacobian, axis=(-2, -1))  # (...,)
# --8<-- [end:measures]


# --8<-- [start:sweep]
# per d_k: mean largest weight, share of rows above 0.99, mean entropy,
# mean and median Jacobian norm
results = {"unscaled": [], "scaled": []}
for d_k in D_KS:
    q = rng.standard_normal((N_ROWS, 1, d_k))  # (N, 1, d_k): one query
    k = rng.standard_normal((N_ROWS, L, d_k))  # (N, L, d_k): L keys
    scores = (q @ np.swapaxes(k, -1, -2))[:, 0, :]  # (N, L)
    for name, s in (("unscaled", scores), ("scaled", scores / d_k**0.5)):
        p = softmax(s, axis=-1)  # (N, L)
        top, norms = p.max(axis=-1), jacobian_norm(p)  # (N,), (N,)
        results[name].append((top.mean(), np.mean(top > 0.99),
                              entropy(p).mean(), norms.mean(),
                              np.median(norms)))
# --8<-- [end:sweep]

uniform = np.full(L, 1 / L)
value("n_rows", f"{N_ROWS:,}")
value("n_keys", L)
value("uniform_max_weight", 1 / L, "{:.3f}")
value("uniform_entropy", entropy(uniform), "{:.3f}")
value("uniform_jacobian_norm", jacobian_norm(uniform), "{:.3f}")

shown = [4, 16, 64, 256, 1024]
header = ["d_k", "mean largest weight", "rows with largest weight > 0.99", "mean entropy (nats)", "mean ‖J‖_F",
          "median ‖J‖_F"]
for name in ("unscaled", "scaled"):
    rows = [results[name][D_KS.index(d_k)] for d_k in shown]
    cells = [[d_k, f"{r[0]:.3f}", f"{r[1]:.1%}", f"{r[2]:.3f}", f"{r[3]:.3f}", f"{r[4]:.2g}"]
             for d_k, r in zip(shown, rows)]
    table(f"saturation_{name}", header, cells)

for d_k in (64, 1024):
    unscaled, scaled = results["unscaled"][D_KS.index(d_k)], results["scaled"][D_KS.index(d_k)]
    value(f"max_weight_unscaled_{d_k}", unscaled[0], "{:.3f}")
    value(f"max_weight_scaled_{d_k}", scaled[0], "{:.3f}")
    value(f"share_one_hot_unscaled_{d_k}", unscaled[1], "{:.0%}")
    value(f"share_one_hot_scaled_{d_k}", scaled[1], "{:.1%}")
    value(f"entropy_unscaled_{d_k}", unscaled[2], "{:.3f}")
    value(f"entropy_scaled_{d_k}", scaled[2], "{:.3f}")
    value(f"jacobian_unscaled_{d_k}", unscaled[3], "{:.3f}")
    value(f"jacobian_scaled_{d_k}", scaled[3], "{:.3f}")
    value(f"jacobian_ratio_{d_k}", scaled[3] / unscaled[3], "{:.1f}")
    value(f"median_jacobian_unscaled_{d_k}", unscaled[4], "{:.2g}")
    value(f"median_jacobian_scaled_{d_k}", scaled[4], "{:.3f}")
spread = [r[0] for r in results["scaled"]]
value("scaled_max_weight_low", min(spread), "{:.3f}")
value("scaled_max_weight_high", max(spread), "{:.3f}")
# Scaled, the tiny widths differ: at d_k = 1 a row's scores are q times independent normals, spread |q|, not ~1.
FLAT_FROM = 8
wide = [r for d_k, r in zip(D_KS, results["scaled"]) if d_k >= FLAT_FROM]
value("flat_from_dk", FLAT_FROM)
value("scaled_max_weight_1", results["scaled"][0][0], "{:.3f}")
value("scaled_max_weight_low_wide", min(r[0] for r in wide), "{:.3f}")
value("scaled_max_weight_high_wide", max(r[0] for r in wide), "{:.3f}")
value("scaled_entropy_1", results["scaled"][0][2], "{:.3f}")
value("scaled_entropy_low_wide", min(r[2] for r in wide), "{:.3f}")
value("scaled_entropy_high_wide", max(r[2] for r in wide), "{:.3f}")
one_hot_rows = [round(r[1] * N_ROWS) for r in results["scaled"]]  # rows above 0.99, per d_k
value("scaled_one_hot_rows_max", max(one_hot_rows))
value("scaled_one_hot_none_from", min(d for d in D_KS if all(n == 0 for dd, n in zip(D_KS, one_hot_rows) if dd >= d)))

# The row the page's explorable opens at: d_k = 64, seed 0 of the seeded generator the page shares, the query
# first and then the keys. One draw, not an average, so it sits beside the figure's means rather than on them.
D_OPEN = 64
draws = normals(0, (L + 1) * D_OPEN)
q_open, k_open = draws[:D_OPEN], draws[D_OPEN:].reshape(L, D_OPEN)  # (d_k,), (L, d_k)
for name, s in (("unscaled", k_open @ q_open), ("scaled", k_open @ q_open / D_OPEN**0.5)):
    p = softmax(s)  # (L,)
    value(f"opening_score_std_{name}", s.std(), "{:.2f}")
    value(f"opening_top_weight_{name}", p.max(), "{:.3f}")
    value(f"opening_entropy_bits_{name}", entropy(p) / np.log(2), "{:.2f}")
value("opening_dk", D_OPEN)

# Dividing by d_k instead of sqrt(d_k) (a common slip), on fresh rows at d_k = 64: the scores' spread falls from 1 to
# 1/8 and the weights flatten towards uniform.
over = np.random.default_rng(6464)
q, k = over.standard_normal((N_ROWS, 1, 64)), over.standard_normal((N_ROWS, L, 64))
scores_64 = (q @ np.swapaxes(k, -1, -2))[:, 0, :]  # (N, L)
value("top_over_d_k_64", softmax(scores_64 / 64, axis=-1).max(axis=-1).mean(), "{:.3f}")
value("top_over_sqrt_d_k_64", softmax(scores_64 / 8, axis=-1).max(axis=-1).mean(), "{:.3f}")

fig, axes = plt.subplots(1, 3, num="saturation", figsize=(9, 3.4))
panels = [  # title, measure index, reference lines (level, label)
    ("largest weight (mean)", 0, [(1 / L, f"uniform 1/{L}"), (1.0, "one-hot")]),
    ("entropy in nats (mean)", 2, [(entropy(uniform), f"uniform ln {L}"), (0.0, "one-hot")]),
    (r"Jacobian norm $\|J\|_F$ (log scale)", 3, [(jacobian_norm(uniform), "")]),
]
styles = {"unscaled": (COLORS[3], "o", r"$q\cdot k$"), "scaled": (COLORS[0], "s", r"$q\cdot k/\sqrt{d_k}$")}
for ax, (title, m, references) in zip(axes, panels):
    for name, (colour, marker, label) in styles.items():
        ax.plot(D_KS, [r[m] for r in results[name]], marker=marker, ms=4, color=colour, label=label)
    for level, text in references:
        ax.axhline(level, color="grey", lw=0.8, ls=":", label="uniform weights" if text == "" else None)
        if text:
            ax.annotate(text, (D_KS[0], level), xytext=(0, 3), textcoords="offset points", fontsize=8.5,
                        color="dimgrey")
    ax.set_xscale("log", base=2)
    ax.set_xticks([1, 8, 64, 512], ["1", "8", "64", "512"])
    ax.set_xlabel(r"$d_k$")
    ax.set_title(title, fontsize=10, pad=10)
ax_j = axes[2]  # the median row: the typical gradient
for name, (colour, marker, label) in styles.items():
    ax_j.plot(D_KS, [r[4] for r in results[name]], marker=marker, ms=4, color=colour, ls="--", mfc="white")
ax_j.plot([], [], color="grey", label="mean row")
ax_j.plot([], [], color="grey", ls="--", marker="o", ms=4, mfc="white", label="median row")
ax_j.set_yscale("log")
handles, labels = ax_j.get_legend_handles_labels()
ax_j.legend(handles[2:], labels[2:], frameon=False, fontsize=8.5, loc="lower left")
axes[0].legend(frameon=False, fontsize=9, loc="center right")
fig.tight_layout()
plt.show()
