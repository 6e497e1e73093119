"""The gradient of softmax as a vector-Jacobian product, checked three ways.

For y = softmax(s), the Jacobian is J = diag(y) - y y^T. Backpropagation never builds J: it only
needs J^T dy, which collapses to y * (dy - <dy, y>), O(n) work instead of O(n^2). This snippet
builds J anyway for one row of 5 scores, compares the shortcut (the core's softmax_backward) with
the full product and with central finite differences, and shows that J's rows sum to 0.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import softmax, softmax_backward
from lib.debug_tools import numeric_gradient
from lib.publish import value

np.set_printoptions(precision=3, suppress=True)
rng = np.random.default_rng(0)

# --8<-- [start:vjp]
s = rng.normal(size=5)  # one query's scores
y = softmax(s)  # (5,) its weights
grad_y = rng.normal(size=5)  # dLoss/dy, arriving from the layer above
jacobian = np.diag(y) - np.outer(y, y)  # (5, 5): J[i, j] = dy_i / ds_j
grad_s_full = jacobian.T @ grad_y  # the textbook product: builds an n x n matrix
grad_s = softmax_backward(grad_y, y)  # y * (grad_y - <grad_y, y>): no matrix at all
# --8<-- [end:vjp]

# Central finite differences of the scalar loss L(s) = <grad_y, softmax(s)>, whose gradient is grad_s.
grad_s_numerical = numeric_gradient(lambda scores: grad_y @ softmax(scores), s, 1e-6)

print("weights y      :", y)
print("Jacobian J:\n", jacobian)
print(f"largest |row sum| of J: {np.abs(jacobian.sum(axis=1)).max():.1e}")
print("J^T grad_y     :", grad_s_full)
print("softmax_backward:", grad_s)
print("finite diff.   :", grad_s_numerical)
value("max_diff_full", np.max(np.abs(grad_s - grad_s_full)), "{:.1e}")
value(
    "rel_error_fd",
    np.linalg.norm(grad_s - grad_s_numerical) / np.linalg.norm(grad_s_numerical),
    "{:.1e}",
)
value("max_row_sum", np.abs(jacobian.sum(axis=1)).max(), "{:.1e}")
value("sum_grad_s", abs(grad_s.sum()), "{:.1e}")
