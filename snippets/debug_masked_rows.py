"""NaN from a row with every key masked, and how three mask styles handle it.

Left padding plus a causal mask leaves the first query with no key it may see:
its only visible key is padding. Masking with -inf and the naive softmax gives
0/0 = NaN; masking with -1e9 gives a silent uniform row over keys that should be
invisible; the core module returns zeros for such a row.
"""

import warnings

import numpy as np

from lib.attention import causal_mask, scaled_dot_product_attention, softmax
from lib.debug_tools import naive_softmax
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
w_big = softmax(np.where(allowed, scores, -1e9))  # (5, 5)
_, w_core = scaled_dot_product_attention(q, k, v, mask=allowed)  # (5, 5)

for name, w in (("-inf, naive", w_inf), ("-1e9", w_big), ("core", w_core)):
    print(f"{name:12s} row 0: {np.array2string(w[0], precision=3)}")
print("warnings:", "; ".join(str(c.message) for c in caught))
# --8<-- [end:mask]
value("visible_keys_row0", int(allowed[0].sum()))
value("inf_nan_rows", int(np.isnan(w_inf).any(axis=-1).sum()))
value("big_row0_weight", w_big[0, 0], "{:.2f}")
value("core_row0_sum", w_core[0].sum(), "{:.1f}")
value("masked_rows_warning", str(caught[0].message))

# --8<-- [start:check]
# the diagnostic: count the keys each query may see, before the softmax
blind = np.flatnonzero(allowed.sum(axis=-1) == 0)
print("queries that see no key:", [f"{tokens[i]}@{i}" for i in blind])
# --8<-- [end:check]
value("blind_queries", len(blind))
value("big_row0_future_weight", w_big[0, is_real].sum(), "{:.1f}")  # on future tokens


def verdict(w):
    return "correct" if np.allclose(w[2:], w_core[2:]) else "wrong"


table(
    "styles",
    ["masked score", "row 0 (no visible key)", "rows with visible keys"],
    [
        ["-inf, naive softmax", "NaN" if np.isnan(w_inf[0]).all() else "?", verdict(w_inf)],
        ["-1e9", f"uniform {w_big[0, 0]:.2f} over invisible keys", verdict(w_big)],
        ["core module (-inf, guarded)", f"all zeros, sum {w_core[0].sum():.0f}", "correct"],
    ],
)
