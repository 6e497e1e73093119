"""Boolean or additive masks: two spellings of one operation, and the trap of what True means.

A boolean mask (True = may attend) and an additive mask (0 where allowed, -inf
where not, added to the scores) give the same weights. Masks written in the
opposite convention (1 = blocked, as np.triu(np.ones((L, L)), k=1) builds them)
must be converted; cast to bool without converting, they silently mean the
opposite.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import attention_scores, causal_mask, scaled_dot_product_attention, softmax
from lib.publish import value
from lib.running_example import running_qkv

np.set_printoptions(precision=3, suppress=True)

tokens, q, k, v = running_qkv()  # the running sentence; q, k, v each (L, d_k)
scores = attention_scores(q, k)  # (L, L)
allowed = causal_mask(len(tokens))  # (L, L) boolean, True = may attend

# --8<-- [start:additive]
additive = np.where(allowed, 0.0, -np.inf)  # (L, L): 0 = may attend, -inf = masked
w_boolean = scaled_dot_product_attention(q, k, v, mask=allowed)[1]  # (L, L)
w_additive = softmax(scores + additive)  # (L, L)
# --8<-- [end:additive]
print("additive mask:\n", additive)
value("bool_vs_additive", np.max(np.abs(w_boolean - w_additive)), "{:.1f}")

# The other convention: 1 = blocked, as in np.triu(np.ones((L, L)), k=1).
# --8<-- [start:convert]
blocked = np.triu(np.ones((len(tokens), len(tokens))), k=1)  # (L, L) float, 1 = masked
converted = blocked == 0  # (L, L) boolean, True = may attend
# --8<-- [end:convert]
value("converted_equals_causal", bool(np.array_equal(converted, allowed)))
try:
    scaled_dot_product_attention(q, k, v, mask=blocked)
except ValueError as error:
    print("\nfloat mask given to the core ->\n ", error)
# Cast to bool without converting, the blocked mask runs and silently attends to the future only.
w_inverted = scaled_dot_product_attention(q, k, v, mask=blocked.astype(bool))[1]  # (L, L)
value("inverted_future_weight", np.min(np.triu(w_inverted, k=1).sum(axis=-1)[:-1]), "{:.1f}")
value("inverted_last_row_sum", np.sum(w_inverted[-1]), "{:.1f}")
