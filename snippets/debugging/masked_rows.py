"""NaN from a row with every key masked, and how mask styles handle it.

Left padding plus a causal mask leaves the first query with no key it may see:
its only visible key is padding. Masking with -inf and the naive softmax gives
0/0 = NaN. Seed 000 masks by subtracting 1e9 from blocked scores: with its own
exp / sum softmax such a row is NaN too, and with a max-subtracting softmax it
silently becomes the unmasked row. In float32 and float16 the constant itself
changes the answer. The core module returns zeros for such a row.
"""

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, scaled_dot_product_attention, softmax
from lib.debug_tools import max_subtract_softmax, naive_softmax
from lib.publish import table, value

rng = np.random.default_rng(3)
tokens = ["[PAD]", "[PAD]", "The", "cat", "sat"]  # left-padded to length 5
L, d = len(tokens), 8
q, k, v = rng.normal(size=(3, L, d))  # each (5, 8)

# --8<-- [start:mask]
is_real = np.array([t != "[PAD]" for t in tokens])  # (5,)
allowed = causal_mask(L) & is_real[None, :]  # (5, 5): real, not future
print("keys visible to each query:", allowed.sum(axis=-1))
scores = q @ k.T / np.sqrt(d)  # (5, 5)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    w_inf = naive_softmax(np.where(allowed, scores, -np.inf))  # (5, 5)
    mask = (~allowed).astype(float)  # seed 000's convention: 1 = blocked
    seed_scores = scores - 1e9 * mask  # seed 000's line: scores = scores - 1e9 * mask
    w_seed = naive_softmax(seed_scores)  # seed 000's softmax: np.exp(scores) / np.exp(scores).sum(...)
w_seed_stable = max_subtract_softmax(seed_scores)  # the same scores, max-subtracting softmax
_, w_core = scaled_dot_product_attention(q, k, v, mask=allowed)  # (5, 5)

rows = {"-inf, naive": w_inf, "seed 000": w_seed, "seed, stable": w_seed_stable, "core": w_core}
for name, w in rows.items():
    print(f"{name:12s} row 0: {np.array2string(w[0], precision=3)}")
print("unmasked     row 0:", np.array2string(softmax(scores[0]), precision=3))
print("warnings:", "; ".join(sorted({str(c.message) for c in caught})))
# --8<-- [end:mask]
value("visible_keys_row0", int(allowed[0].sum()))
value("inf_nan_rows", int(np.isnan(w_inf).any(axis=-1).sum()))
value("seed_nan_rows", int(np.isnan(w_seed).any(axis=-1).sum()))
value("seed_stable_vs_unmasked", np.max(np.abs(w_seed_stable[0] - softmax(scores[0]))), "{:.0e}")
value("seed_stable_row0_top", w_seed_stable[0].max(), "{:.2f}")
value("seed_stable_row0_top_token", tokens[int(np.argmax(w_seed_stable[0]))])
value("seed_stable_row0_future_weight", w_seed_stable[0, is_real].sum(), "{:.2f}")  # on future tokens
value("core_row0_sum", w_core[0].sum(), "{:.1f}")
value("masked_rows_warning", str(caught[0].message))

# --8<-- [start:check]
# the diagnostic: count the keys each query may see, before the softmax
blind = np.flatnonzero(allowed.sum(axis=-1) == 0)
print("queries that see no key:", [f"{tokens[i]}@{i}" for i in blind])
# --8<-- [end:check]
value("blind_queries", len(blind))

# --8<-- [start:dtypes]
def seed_mask(dtype, constant):
    """Seed 000's masking line, computed in `dtype`: scores - constant * mask."""
    return scores.astype(dtype) - constant * mask.astype(dtype)  # NumPy keeps `dtype`


with np.errstate(over="ignore", invalid="ignore"):
    by_dtype = {
        (np.dtype(dtype).name, constant): (naive_softmax(z), max_subtract_softmax(z))
        for dtype in (np.float64, np.float32, np.float16)
        for constant in (1e9, 1e4)
        for z in [seed_mask(dtype, constant)]
    }
# --8<-- [end:dtypes]
exact = softmax(np.where(allowed, scores, -np.inf))  # float64, rows with a visible key


def describe_blind_row(w):
    """What a query with no visible key gets, in words."""
    w = np.asarray(w[0], dtype=np.float64)
    if np.isnan(w).all():
        return "NaN"
    if np.allclose(w, softmax(scores[0]), atol=1e-3):
        return "the unmasked row"
    if np.allclose(w, 1 / L, atol=1e-3):
        return f"uniform, {1 / L:.2f} each"
    return np.array2string(w, precision=3)


def describe_seen_rows(w):
    """Largest error of the rows that see a key, against float64 with -inf."""
    w = np.asarray(w[2:], dtype=np.float64)
    return "NaN" if np.isnan(w).any() else f"correct to {np.max(np.abs(w - exact[2:])):.0e}"


table(
    "dtypes",
    ["dtype", "constant", "seed's exp / sum: no visible key", "max-subtracting: no visible key",
     "max-subtracting: rows with a visible key"],
    [[name, f"{constant:.0e}", describe_blind_row(naive), describe_blind_row(stable), describe_seen_rows(stable)]
     for (name, constant), (naive, stable) in by_dtype.items()],
)
with np.errstate(over="ignore"):
    value("float16_of_1e9", str(np.float16(1e9)))  # "inf": float16 cannot hold 1e9 (JSON has no infinity)
value("float32_spacing_at_1e9", float(np.spacing(np.float32(1e9))), "{:.0f}")
value("float16_spacing_at_1e4", float(np.spacing(np.float16(1e4))), "{:.0f}")
value("float16_1e9_nan_rows", int(np.isnan(by_dtype["float16", 1e9][1]).any(axis=-1).sum()))

# A NaN is not a masked key: the core keeps it visible instead of turning the row into zeros.
# --8<-- [start:propagate]
q_bad = q.copy()
q_bad[3, 0] = np.nan  # one NaN in the query of "cat"
output, weights = scaled_dot_product_attention(q_bad, k, v, mask=allowed)  # (5, 8), (5, 5)
nan_rows = np.flatnonzero(np.isnan(output).any(axis=-1))
zero_rows = np.flatnonzero((output == 0).all(axis=-1))
print("output rows with NaN:", nan_rows, " all-zero rows:", zero_rows)
# --8<-- [end:propagate]
value(
    "core_nan_rows",
    ", ".join(f'"{tokens[i]}"' for i in nan_rows),
    zh="、".join(f"“{tokens[i]}”" for i in nan_rows),
)
value("core_zero_rows", len(zero_rows))
