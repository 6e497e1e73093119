"""NaN from exp overflow: the real warning, the diagnostic, two fixes compared.

Without the 1/sqrt(d_k) scale and with seed 000's standard-deviation-1 weights,
the scores reach the thousands. exp overflows above about 709.78 in float64, the
naive softmax divides inf by inf, and rows turn into NaN. Seed 000's table
suggests np.clip(scores, -50, 50); subtracting each row's maximum is exact.
"""

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import sinusoidal_positions, softmax, softmax_backward
from lib.debug_tools import naive_softmax
from lib.publish import table, value
from lib.running_example import SENTENCE, embed, tokenize

np.set_printoptions(precision=3)
tokens = tokenize(SENTENCE)  # 7 tokens
L, d_model, d_k = len(tokens), 128, 64
x = embed(tokens, d_model) + sinusoidal_positions(L, d_model)  # (7, 128)
rng = np.random.default_rng(1)
w_q, w_k = rng.normal(size=(2, d_model, d_k))  # std 1, as in seed 000
scores = (x @ w_q) @ (x @ w_k).T  # (7, 7): the 1/sqrt(d_k) forgotten

# --8<-- [start:overflow]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    weights = naive_softmax(scores)  # (7, 7)
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
nan_rows = int(np.sum(np.isnan(weights).any(axis=-1)))
print(f"rows containing NaN: {nan_rows} of {L}")

# the diagnostic: exp(s) overflows once s > log(largest float64)
limit = np.log(np.finfo(np.float64).max)
print(f"max score {scores.max():.1f}  vs overflow limit {limit:.2f}")
# --8<-- [end:overflow]
messages = [f"{w.category.__name__}: {w.message}" for w in caught]
value("overflow_warnings", "; ".join(messages))
value("nan_rows", nan_rows)
value("n_queries", L)
value("max_score", scores.max(), "{:.0f}")
value("exp_limit", limit, "{:.2f}")

# --8<-- [start:fixes]
exact = softmax(scores)  # subtracts the row max: exp never sees s > 0
clipped = naive_softmax(np.clip(scores, -50, 50))  # seed 000's protection
print("NaN left: max subtraction", np.isnan(exact).any(),
      "| clipping", np.isnan(clipped).any())
print(f"largest weight error, clipping: {np.abs(clipped - exact).max():.3f}")
tied = int(np.sum(np.sum(np.clip(scores, -50, 50) == 50, axis=-1) > 1))
print("rows where clipping ties several keys at 50:", tied)

# A clipped score no longer moves the output: its gradient is exactly 0.
upstream = np.random.default_rng(2).normal(size=scores.shape)  # any dL/dw
d_scores = softmax_backward(upstream, clipped) * (np.abs(scores) < 50)
print(f"scores with zero gradient, clipping: {np.mean(d_scores == 0):.0%}")
# --8<-- [end:fixes]
value("clip_weight_error", np.abs(clipped - exact).max(), "{:.2f}")
value("clip_tied_rows", tied)
value("clip_zero_grad_share", np.mean(d_scores == 0), "{:.0%}")

# --8<-- [start:row]
row = np.array([120.0, 80.0, 60.0, 0.0])
print("exact  :", softmax(row))
print("clipped:", naive_softmax(np.clip(row, -50, 50)))
# --8<-- [end:row]
value("row_exact_top", softmax(row)[0], "{:.6f}")
value("row_clipped_top", naive_softmax(np.clip(row, -50, 50))[0], "{:.3f}")

# --8<-- [start:shift]
healthy = scores / np.sqrt(d_k) / 100  # small scores: no overflow anywhere
print("naive vs stable on small scores:",
      np.abs(naive_softmax(healthy) - softmax(healthy)).max())
# --8<-- [end:shift]
value("shift_error", np.abs(naive_softmax(healthy) - softmax(healthy)).max(), "{:.1e}")
table(
    "row",
    ["scores [120, 80, 60, 0]", "weight 1", "weight 2", "weight 3", "weight 4"],
    [
        ["subtract the max (exact)", *softmax(row)],
        ["clip to [-50, 50]", *naive_softmax(np.clip(row, -50, 50))],
    ],
    fmt="{:.2g}",
)
