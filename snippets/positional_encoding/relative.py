"""Relative positions in the encoding: one rotation, and dot products of p - q.

For each pair (sin(w p), cos(w p)), moving k positions ahead is a rotation by the
angle w k, whatever p is. Stacking the 2x2 rotations gives one fixed matrix M_k
with PE(p + k) = M_k PE(p) for every p: the linear map the paper mentions.
A consequence: PE(p) . PE(q) = sum_i cos(w_i (p - q)) depends on p - q only.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import sinusoidal_positions
from lib.plotting import COLORS
from lib.publish import value

np.set_printoptions(precision=3, suppress=True)

d_model, n_positions = 16, 64
pe = sinusoidal_positions(n_positions, d_model)  # (P, d_model)
omega = 1 / 10000 ** (np.arange(0, d_model, 2) / d_model)  # (d_model / 2,)


# --8<-- [start:rotation]
def shift_matrix(k):
    """Block-diagonal M_k: a 2x2 rotation by omega_i * k for every pair i."""
    m = np.zeros((d_model, d_model))
    for i, w in enumerate(omega):
        c, s = np.cos(w * k), np.sin(w * k)
        # sin(a+b) = sin a cos b + cos a sin b
        # cos(a+b) = cos a cos b - sin a sin b
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, s], [-s, c]]
    return m


errors = []
offsets = range(1, 33)
for k in offsets:
    m_k = shift_matrix(k)  # one matrix for every position p
    predicted = pe[: n_positions - k] @ m_k.T  # (P - k, d_model): M_k PE(p)
    errors.append(np.max(np.abs(predicted - pe[k:])))  # against PE(p + k)
# --8<-- [end:rotation]
value("rotation_max_error", max(errors), "{:.1e}")
value("rotation_offset_first", offsets[0])
value("rotation_offset_last", offsets[-1])
m_5 = shift_matrix(5)
orthogonal = np.max(np.abs(m_5.T @ m_5 - np.eye(d_model)))
value("rotation_orthogonal_error", orthogonal, "{:.1e}")
print("M_5, top-left 4x4 corner (two rotation blocks):")
print(m_5[:4, :4])

# --8<-- [start:dots]
dots = pe @ pe.T  # (P, P): PE(p) . PE(q)
positions = np.arange(n_positions)
offset = positions[:, None] - positions[None, :]  # (P, P): p - q
offsets = np.arange(-(n_positions - 1), n_positions)  # every possible p - q
spread = max(np.ptp(dots[offset == o]) for o in offsets)  # same offset, same dot
formula = np.cos(np.outer(offsets, omega)).sum(-1)  # sum_i cos(omega_i (p - q))
# --8<-- [end:dots]
value("dot_spread", spread, "{:.1e}")
formula_error = np.max(np.abs(dots - formula[offset + n_positions - 1]))
value("dot_formula_error", formula_error, "{:.1e}")
value("norm_squared", dots[0, 0], "{:.1f}")
value("pe_d_model", d_model)
value("pe_positions", n_positions)
by_offset = dots[:, 0]  # (P,): PE(o) . PE(0) for offsets o = 0, 1, ...
step = np.diff(by_offset)  # (P - 1,)
valley = int(np.argmax(step > 0))  # first offset after which the dot grows again
peak = valley + 1 + int(np.argmax(step[valley + 1 :] < 0))  # where it falls again
value("valley_offset", valley)
value("valley_dot", by_offset[valley], "{:.2f}")
value("peak_offset", peak)
value("peak_dot", by_offset[peak], "{:.2f}")

fig, (ax0, ax1) = plt.subplots(
    1, 2, num="dot-products", figsize=(10.0, 4.0), width_ratios=[1, 1.4], dpi=150
)
image = ax0.imshow(dots, cmap="cividis")
ax0.set_xlabel("position q")
ax0.set_ylabel("position p")
ax0.set_title("PE(p) · PE(q)")
ax0.spines[:].set_visible(False)
fig.colorbar(image, ax=ax0, label="dot product", shrink=0.85)
# One marker per pair (p, q): rasterized=True draws them as one image inside the SVG, not as thousands of shapes.
ax1.plot(offset.ravel(), dots.ravel(), "o", ms=3, alpha=0.25, color=COLORS[0],
         label="every pair (p, q)", rasterized=True)
ax1.plot(offsets, formula, color=COLORS[3], lw=1,
         label=r"$\sum_i \cos(\omega_i (p - q))$")
ax1.set_xlabel("offset p − q")
ax1.set_ylabel("PE(p) · PE(q)")
ax1.set_title(f"All {n_positions * n_positions} pairs (p, q) against p − q")
ax1.legend(frameon=False, fontsize=8, loc="lower center")
plt.show()
