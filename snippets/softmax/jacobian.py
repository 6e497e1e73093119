"""The Jacobian of softmax: J = diag(p) - p p^T, checked against finite differences.

For p = softmax(z), dp_i / dz_j = p_i (delta_ij - p_j). In matrix form that is
J = diag(p) - p p^T: symmetric, every row summing to 0 (adding a constant to z
changes nothing). We print J for three logits, compare it with central finite
differences, check the core's softmax_backward (which multiplies by J without
building it), and watch J shrink as the weights saturate.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import softmax, softmax_backward
from lib.publish import table, value

np.set_printoptions(precision=4, suppress=True)

# --8<-- [start:jacobian]
z = np.array([2.0, 1.0, 0.1])
p = softmax(z)  # (3,)
jacobian = np.diag(p) - np.outer(p, p)  # (3, 3): J[i, j] = dp_i / dz_j
# --8<-- [end:jacobian]
print("p =", p)
print("J = diag(p) - p p^T =\n", jacobian)

# --8<-- [start:finite-differences]
h = 1e-6
numeric = np.empty((3, 3))
for j in range(3):
    step = np.zeros(3)
    step[j] = h
    numeric[:, j] = (softmax(z + step) - softmax(z - step)) / (2 * h)  # column j: dp / dz_j
# --8<-- [end:finite-differences]
print("finite differences =\n", numeric)
value("fd_max_error", np.max(np.abs(numeric - jacobian)), "{:.1e}")
value("row_sum_max", np.max(np.abs(jacobian.sum(axis=1))), "{:.1g}")
value("asymmetry", np.max(np.abs(jacobian - jacobian.T)), "{:.1g}")

# softmax_backward(g, p) returns g^T J without forming J: O(L) work instead of O(L^2).
g = np.array([0.3, -1.2, 0.5])  # an upstream gradient dLoss/dp
value("vjp_error", np.max(np.abs(softmax_backward(g, p) - g @ jacobian)), "{:.1g}")

# Saturation: multiply the logits by a growing factor; the Jacobian's entries collapse towards 0.
rows = []
for factor in [1, 3, 10, 30, 100]:
    p_s = softmax(factor * z)
    j_s = np.diag(p_s) - np.outer(p_s, p_s)
    rows.append([f"{factor}", f"{p_s.max():.6f}", f"{np.max(np.abs(j_s)):.1e}"])
table("saturation", ["logits multiplied by", "largest weight", "largest |J| entry"], rows)
value("max_j_factor1", np.max(np.abs(jacobian)), "{:.3f}")
p_100 = softmax(100 * z)
value("max_j_factor100", np.max(np.abs(np.diag(p_100) - np.outer(p_100, p_100))), "{:.1e}")
