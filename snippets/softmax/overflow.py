"""Naive softmax overflows; subtracting the maximum first does not.

exp(z) exceeds the largest float64 (about 1.8e308) once z passes
ln(1.8e308) = 709.78. The naive formula exp(z) / sum(exp(z)) then computes
inf / inf = NaN. Because softmax(z) = softmax(z - c) for any constant c, we may
subtract the row's maximum first: the largest exponent becomes exp(0) = 1 and
nothing can overflow. We find the exact float64 logit where the naive form
breaks, by bisection, and compare both forms on a few rows.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import softmax
from lib.publish import table, value


# --8<-- [start:forms]
def naive_softmax(z):
    e = np.exp(z)  # overflows to inf once z > 709.78
    return e / np.sum(e, axis=-1, keepdims=True)


def stable_softmax(z):
    e = np.exp(z - np.max(z, axis=-1, keepdims=True))  # every exponent <= 0, so e <= 1
    return e / np.sum(e, axis=-1, keepdims=True)
# --8<-- [end:forms]


def breaks(z0):
    """Does naive softmax of the row [z0, 0] contain NaN or inf?"""
    with np.errstate(over="ignore", invalid="ignore"):
        return not np.all(np.isfinite(naive_softmax(np.array([z0, 0.0]))))


# --8<-- [start:bisect]
good, bad = 700.0, 800.0  # naive softmax of [z0, 0] works at 700 and fails at 800
while np.nextafter(good, bad) != bad:  # stop when no float64 lies between them
    middle = good + (bad - good) / 2
    if breaks(middle):
        bad = middle
    else:
        good = middle
# --8<-- [end:bisect]
value("largest_safe_logit", good, "{!r}")
value("smallest_breaking_logit", bad, "{!r}")
value("log_float64_max", np.log(np.finfo(np.float64).max), "{:.2f}")
value("float64_max", np.finfo(np.float64).max, "{:.2e}")
with np.errstate(over="ignore", invalid="ignore"):
    print("naive softmax([smallest_breaking_logit, 0]) =", naive_softmax(np.array([bad, 0.0])))
    float32_limit = np.log(np.finfo(np.float32).max)
    value("float32_limit", float32_limit, "{:.2f}")
    value("float32_exp_89", str(np.exp(np.float32(89.0))))  # "inf" (JSON has no infinity)

# Very negative rows fail too: every exp underflows to 0 and the division is 0 / 0.
value("exp_minus_746", np.exp(-746.0), "{}")

rows = []
examples = {
    "[1, 2, 3]": [1.0, 2.0, 3.0],
    "[1001, 1002, 1003]": [1001.0, 1002.0, 1003.0],
    "[710, 0, 0]": [710.0, 0.0, 0.0],
    "[-1000, -1001, -1002]": [-1000.0, -1001.0, -1002.0],
    "[1e300, 0, -1e300]": [1e300, 0.0, -1e300],
    "[1, nan, 3]": [1.0, np.nan, 3.0],
}
with np.errstate(over="ignore", invalid="ignore"):
    for label, z in examples.items():
        z = np.array(z)
        rows.append([label, str(naive_softmax(z).round(2)), str(stable_softmax(z).round(2)), str(softmax(z).round(2))])
table("compare", ["logits z", "naive", "subtract max", "core"], rows)
value("core_nan_row", str(softmax(np.array([1.0, np.nan, 3.0]))))  # a NaN logit: the whole row is NaN
value("core_masked_row", str(softmax(np.array([-np.inf, -np.inf, -np.inf]))))  # every key masked: zeros
