"""Check scaled_dot_product_attention_backward against central finite differences, in float64.

Pick a random upstream gradient g and define the scalar loss L = sum(output * g), so that
dL/d(output) = g. Nudge every entry of q, k and v by +-h, recompute L, and compare the slope
(L(x + h) - L(x - h)) / 2h with the analytic gradient. Four cases: no mask (with Lq != Lk), a causal
mask, batch and head dimensions with padding, and a mask with a query row whose keys are all masked.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, padding_mask, scaled_dot_product_attention, scaled_dot_product_attention_backward
from lib.publish import table, value

rng = np.random.default_rng(0)


# --8<-- [start:check]
def numerical_gradient(loss, x, h=1e-6):
    """Central differences: one pair of loss evaluations per entry of x (x is changed, then restored)."""
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        original = x[index]
        x[index] = original + h
        up = loss()
        x[index] = original - h
        down = loss()
        x[index] = original
        grad[index] = (up - down) / (2 * h)
    return grad


def relative_error(a, b):
    return np.linalg.norm(a - b) / max(np.linalg.norm(a), np.linalg.norm(b))


def check(q, k, v, mask=None):
    output, _ = scaled_dot_product_attention(q, k, v, mask)
    g = rng.normal(size=output.shape)  # the upstream gradient dL/d(output)

    def loss():  # reads the current q, k, v, which numerical_gradient nudges in place
        return np.sum(scaled_dot_product_attention(q, k, v, mask)[0] * g)

    analytic = scaled_dot_product_attention_backward(g, q, k, v, mask)  # (dq, dk, dv)
    return [relative_error(numerical_gradient(loss, x), grad) for x, grad in zip((q, k, v), analytic)]
# --8<-- [end:check]


def qkv(batch, lq, lk, d_k, d_v):
    q = rng.normal(size=(*batch, lq, d_k))  # (..., Lq, d_k)
    k = rng.normal(size=(*batch, lk, d_k))  # (..., Lk, d_k)
    v = rng.normal(size=(*batch, lk, d_v))  # (..., Lk, d_v)
    return q, k, v


one_row_blind = rng.random((5, 6)) < 0.6  # (Lq, Lk) random mask ...
one_row_blind[2] = False  # ... and query 2 may attend to nothing
cases = [
    ("no mask", "q (5, 4), k (6, 4), v (6, 3)", *qkv((), 5, 6, 4, 3), None),
    ("causal mask", "q, k (6, 4), v (6, 3)", *qkv((), 6, 6, 4, 3), causal_mask(6)),
    (
        "batch 2 x 3 heads, padding + causal",
        "q, k (2, 3, 5, 4), v (2, 3, 5, 3)",
        *qkv((2, 3), 5, 5, 4, 3),
        padding_mask(np.array([5, 3]), 5)[:, None] & causal_mask(5),  # (2, 1, 5, 5)
    ),
    ("random mask, one row fully masked", "q (5, 4), k (6, 4), v (6, 3)", *qkv((), 5, 6, 4, 3), one_row_blind),
]
rows = []
for name, shapes, q, k, v, mask in cases:
    rows.append([name, shapes, *check(q, k, v, mask)])
table("errors", ["case", "shapes", "rel. error dq", "rel. error dk", "rel. error dv"], rows, fmt="{:.1e}")

# The fully masked query: its output is the constant 0, so its gradient must be exactly 0.
q, k, v = qkv((), 5, 6, 4, 3)
dq, _, _ = scaled_dot_product_attention_backward(np.ones((5, 3)), q, k, v, one_row_blind)
value("masked_query_grad", np.max(np.abs(dq[2])), "{:.1f}")

value("max_rel_error", max(max(r[2:]) for r in rows), "{:.1e}")
value("n_entries", sum(x.size for *_, q, k, v, _ in cases for x in (q, k, v)))
