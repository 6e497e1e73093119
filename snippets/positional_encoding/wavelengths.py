"""Which dimensions of the positional encoding vary fast, and which slowly?

Pair i (dimensions 2i and 2i+1) turns at the angular frequency
w_i = 1 / 10000^(2i / d_model) radians per position, so its wavelength is
2 pi / w_i positions. Small i means a short wavelength: a fast-changing
dimension. We compute the wavelengths, measure the periods from the encoding
itself, and measure how much each dimension changes from one position to the next.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import sinusoidal_positions
from lib.plotting import COLORS
from lib.publish import table, value
from lib.running_example import D_MODEL

np.set_printoptions(precision=3, suppress=True)

d_model = 512  # the paper's base model
# --8<-- [start:wavelength]
two_i = np.arange(0, d_model, 2)  # (d_model / 2,): first dimension of each pair
omega = 1 / 10000 ** (two_i / d_model)  # (d_model / 2,): radians per position
wavelength = 2 * np.pi / omega  # (d_model / 2,): positions per full turn
# --8<-- [end:wavelength]

value("d_model", d_model)
value("shortest", wavelength[0], "{:.3f}")
value("longest", wavelength[-1], "{:,.0f}")
value("paper_upper", 10000 * 2 * np.pi, "{:,.0f}")
value("ratio_step", wavelength[1] / wavelength[0], "{:.4f}")


# --8<-- [start:measure]
def measured_period(column):
    """Mean gap between the positions where a sine column turns positive."""
    ups = np.flatnonzero((column[:-1] < 0) & (column[1:] >= 0))
    return np.diff(ups).mean() if len(ups) > 1 else np.nan


pe = sinusoidal_positions(4096, d_model)  # (P, d_model)
step_change = np.abs(np.diff(pe, axis=0)).mean(axis=0)  # (d_model,)
# --8<-- [end:measure]

dims = sorted({0, 2, d_model // 32, d_model // 8, d_model // 4, d_model // 2, d_model - 2})  # fast ... slow
rows = []
for dim in dims:
    period = measured_period(pe[:, dim])
    seen = np.isfinite(period)
    shown = f"{period:.4g}" if seen else f"over {len(pe):,} (not seen)"
    rows.append([dim, wavelength[dim // 2], shown, step_change[dim]])
table(
    "periods",
    ["dimension 2i", "wavelength 2π/ω (positions)", "measured period (positions)",
     "mean |change| per position"],
    rows,
)
value("period_dim0_measured", measured_period(pe[:, 0]), "{:.3f}")
value("change_dim0", step_change[0], "{:.3f}")
value("last_dim", d_model - 2)
value("change_last", step_change[d_model - 2], "{:.1e}")

# The same for the running example's d_model = 8
small = sinusoidal_positions(7, D_MODEL)  # (L, 8)
change_small = np.abs(np.diff(small, axis=0)).mean(axis=0)  # (8,)
print("running example, mean |change| per position, by dimension:")
print(change_small)
value("small_change_dim0", change_small[0], "{:.3f}")
value("small_change_dim6", change_small[6], "{:.1e}")

fig, (ax0, ax1) = plt.subplots(1, 2, num="wavelengths", figsize=(10.0, 3.9))
ax0.plot(two_i, wavelength, color=COLORS[0])
bounds = ((2 * np.pi, "2π", 1.3), (10000 * 2 * np.pi, "10000 · 2π", 0.45))
for level, text, shift in bounds:
    ax0.axhline(level, color="grey", ls=":", lw=1)
    ax0.text(d_model * 0.6, level * shift, text, color="grey")
ax0.set_yscale("log")
ax0.set_xlabel("dimension 2i (first member of each sin/cos pair)")
ax0.set_ylabel("wavelength in positions (log scale)")
ax0.set_title(f"Wavelength of each pair, d_model = {d_model}")
positions = np.arange(0, 61)
for dim, colour in zip((0, d_model // 8, d_model // 4, d_model // 2), COLORS):
    ax1.plot(positions, pe[positions, dim], color=colour, label=f"dimension {dim}")
ax1.set_ylim(-1.15, 1.6)
ax1.set_xlabel("position p")
ax1.set_ylabel("PE[p, dimension]")
ax1.set_title("Higher dimensions turn more slowly")
ax1.legend(frameon=False, fontsize=8, loc="upper center", ncol=2)
plt.show()
