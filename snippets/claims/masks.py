"""Seed 000's mask, run with the seed's own operations: subtract 1e9 from the masked scores.

Seed 000 builds its causal mask as ``np.triu(np.ones((6, 6)), k=1)`` and writes
``scores = scores - 1e9 * mask``, then exponentiates without subtracting the
row maximum. We run exactly that on the seed's own scores (generator seed 42),
in float64, float32 and float16, for the causal rows the seed masks and for a
row whose keys are all masked (as padding can make one). Leakage, padding,
gradients and masks applied after the softmax are measured in the chapters.
"""

import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.claims_seeds import seed000_heads
from lib.debug_tools import max_subtract_softmax, naive_softmax
from lib.publish import table, value

L = 6
_, q, k, _ = seed000_heads(L, np.random.default_rng(42))  # head-wise (h, L, d_k)
scores = q[0] @ k[0].T / np.sqrt(64)  # (L, L): head 0, scaled, as the seed computes them
future = np.triu(np.ones((L, L)), k=1)  # the seed's mask: 1 where j > i
triu_is_future = bool(np.array_equal(future == 1, np.arange(L)[None, :] > np.arange(L)[:, None]))
value("triu_is_future", triu_is_future, zh="是" if triu_is_future else "否")

# --8<-- [start:minus-1e9]
def nan_or(weights, measure):
    """measure(weights) as text, or how many weights are NaN."""
    n_nan = int(np.isnan(weights).sum())
    return f"{n_nan} NaN" if n_nan else f"{measure(weights):.1e}"


rows = []
for dtype in (np.float64, np.float32, np.float16):
    s, mask = scores.astype(dtype), future.astype(dtype)  # (L, L) each
    all_masked = np.ones_like(mask)  # every key hidden, for every query
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        causal = s - 1e9 * mask  # the seed's line
        empty = s - 1e9 * all_masked
        rows.append([
            np.dtype(dtype).name,
            f"{float(np.asarray(1e9, dtype=dtype)):g}",  # the constant, stored in this dtype
            nan_or(naive_softmax(causal), lambda w: w[mask == 1].max()),  # the seed's exp / sum
            nan_or(max_subtract_softmax(causal), lambda w: w[mask == 1].max()),
            nan_or(naive_softmax(empty), lambda w: 0.0),
            nan_or(max_subtract_softmax(empty), lambda w: np.abs(w - max_subtract_softmax(s)).max()),
        ])
# --8<-- [end:minus-1e9]


def in_chinese(cell):
    """A cell as the Chinese table shows it: "36 NaN" -> "36 个 NaN"."""
    return re.sub(r"^(\d+) NaN$", r"\1 个 NaN", cell)


table("seed000_minus_1e9",
      ["dtype", "1e9 stored as", "causal mask, exp / sum: largest masked weight",
       "causal mask, max subtracted: largest masked weight",
       "all keys masked, exp / sum", "all keys masked, max subtracted: largest change from the unmasked row"], rows,
      zh=(["数据类型", "1e9 存储为", "因果掩码，`exp / sum`：被掩码的最大权重",
           "因果掩码，减去最大值：被掩码的最大权重",
           "所有键都被掩码，`exp / sum`", "所有键都被掩码，减去最大值：与未加掩码的行相比的最大变化"],
          [[in_chinese(cell) for cell in row] for row in rows]))
by_dtype = {row[0]: row for row in rows}
for dtype, cells in by_dtype.items():
    for column, cell in zip(("naive_causal", "stable_causal", "naive_empty", "stable_empty"), cells[2:]):
        value(f"{dtype}_{column}", cell, zh=in_chinese(cell))
value("n_weights", L * L)

# -inf everywhere in a row: the naive softmax divides 0 by 0.
with np.errstate(invalid="ignore"):
    value("fully_masked_inf_nan", int(np.isnan(naive_softmax(np.full(L, -np.inf))).sum()))

# The float32 NaN of the seed's exp / sum on its causal rows are of two kinds: weights whose exp overflows (the
# missing max subtraction, with or without the mask) and the first query's row, whose one visible score's exp
# underflows to 0, so that the row is 0/0 (the mask's part).
causal32 = scores.astype(np.float32) - 1e9 * future.astype(np.float32)  # (L, L), the seed's line in float32
with np.errstate(over="ignore", under="ignore"):
    exps32 = np.exp(causal32)  # (L, L)
value("float32_exp_limit", np.log(np.finfo(np.float32).max), "{:.1f}")
value("float32_overflow_weights", int(np.isinf(exps32).sum()))
value("float32_zero_rows", int((exps32 == 0).all(axis=-1).sum()))
value("float32_first_score", causal32[0, 0], "{:.0f}")  # the only score the first query sees
