"""Masking before or after the softmax: which post-softmax variants equal masking first, and which are wrong.

Masking the scores and then taking the softmax is the reference. Taking the
softmax first, zeroing the masked weights and renormalising each row gives the
same weights. Zeroing without renormalising, or subtracting 1e9 from the weights,
does not. We compare the variants on the running sentence with a causal mask.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import attention_scores, causal_mask, scaled_dot_product_attention, softmax
from lib.publish import table, value
from lib.running_example import running_qkv

tokens, q, k, v = running_qkv()  # the running sentence; q, k, v each (L, d_k)
scores = attention_scores(q, k)  # (L, L)
allowed = causal_mask(len(tokens))  # (L, L) boolean, True = may attend
blocked = (~allowed).astype(float)  # (L, L) float, 1 = masked
w_boolean = scaled_dot_product_attention(q, k, v, mask=allowed)[1]  # (L, L): the reference

# --8<-- [start:after]
p = softmax(scores)  # (L, L): no mask yet
zeroed = np.where(allowed, p, 0.0)  # (L, L): masked weights set to 0 after softmax
variants = {
    "mask the scores, then softmax": w_boolean,
    "softmax, zero, renormalise": zeroed / zeroed.sum(axis=-1, keepdims=True),
    "softmax, zero, no renormalising": zeroed,
    "softmax, then subtract 1e9 * blocked": p - 1e9 * blocked,
}
# --8<-- [end:after]
rows = []
for name, w in variants.items():  # compare every variant with masking first
    sums = w.sum(axis=-1)
    rows.append([name, f"{np.max(np.abs(w - w_boolean)):.1e}", f"{sums.min():.3g} to {sums.max():.3g}",
                 "yes" if np.any(w < 0) else "no"])
table("variants", ["variant", "max |difference| from masking first", "row sums", "negative weights?"], rows)
renormalised = variants["softmax, zero, renormalise"]
value("renormalise_error", np.max(np.abs(renormalised - w_boolean)), "{:.1e}")
value("no_renorm_error", np.max(np.abs(zeroed - w_boolean)), "{:.2f}")
value("no_renorm_min_sum", np.min(zeroed.sum(axis=-1)), "{:.2f}")
value("subtract_after_min", np.min(variants["softmax, then subtract 1e9 * blocked"]), "{:.1e}")
