"""-1e9 or -inf? Both work in float64 while a row keeps one allowed key; they part ways elsewhere.

Masked scores can be set to -inf (as "Attention Is All You Need" describes) or to
a large finite negative number such as -1e9. In float64, with at least one
allowed key per row, the weights come out identical. Two places differ: float16,
whose largest number is 65504, turns -1e9 into -inf; and a row whose keys are
all masked, where each convention produces something different.
"""

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import attention_scores, causal_mask, scaled_dot_product_attention, softmax
from lib.debug_tools import max_subtract_softmax  # subtracts the row max and nothing else
from lib.publish import table, value
from lib.running_example import running_qkv

np.set_printoptions(precision=3, suppress=True)

tokens, q, k, v = running_qkv()  # the running sentence; q, k, v each (L, d_k)
scores = attention_scores(q, k)  # (L, L)
allowed = causal_mask(len(tokens))  # (L, L); the first row allows exactly one key


# --8<-- [start:float64]
w_inf = max_subtract_softmax(np.where(allowed, scores, -np.inf))  # (L, L)
w_1e9 = max_subtract_softmax(np.where(allowed, scores, -1e9))  # (L, L)
# --8<-- [end:float64]
value("inf_vs_1e9", np.max(np.abs(w_inf - w_1e9)), "{:.1f}")
value("masked_weight_1e9", np.max(w_1e9[~allowed]), "{:.1f}")
value("first_row_1e9", w_1e9[0, 0], "{:.1f}")

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    # --8<-- [start:float16]
    minus_1e9_in_float16 = np.float16(-1e9)  # float16 cannot hold it
    # --8<-- [end:float16]
print("NumPy warns:", caught[0].message)
value("float16_of_minus_1e9", str(minus_1e9_in_float16))  # "-inf" (JSON has no infinity)
value("float16_max", np.finfo(np.float16).max, "{:.0f}")
value("float16_of_minus_1e4", np.float16(-1e4), "{:.0f}")

# A row whose keys are all masked: the query "cat" with every key hidden.
z = scores[1]  # (L,): the scores of "cat"
none = np.zeros(len(tokens), dtype=bool)  # (L,): no key may be attended to
with np.errstate(over="ignore", invalid="ignore"):
    # --8<-- [start:fully-masked]
    conventions = {
        "fill -inf, exp / sum": np.exp(np.where(none, z, -np.inf)) / np.sum(np.exp(np.where(none, z, -np.inf))),
        "fill -inf, subtract the max": max_subtract_softmax(np.where(none, z, -np.inf)),
        "fill -1e9, subtract the max": max_subtract_softmax(np.where(none, z, -1e9)),
        "add -1e9 (scores - 1e9 * blocked), subtract the max": max_subtract_softmax(z - 1e9 * ~none),
        "add -1e9, exp / sum": np.exp(z - 1e9 * ~none) / np.sum(np.exp(z - 1e9 * ~none)),
        "fill -1e9 in float16, subtract the max": max_subtract_softmax(np.where(none, z, -1e9).astype(np.float16)),
        "our core: boolean mask": scaled_dot_product_attention(q[1:2], k, v, mask=none[None, :])[1][0],
    }
    # --8<-- [end:fully-masked]
rows = [[name, str(np.asarray(w, dtype=np.float64).round(3)), f"{np.sum(w):.3g}"] for name, w in conventions.items()]
table("fully_masked", ["convention", 'weights of "cat" when every key is masked', "row sum"], rows)

unmasked = softmax(z)
add_1e9 = conventions["add -1e9 (scores - 1e9 * blocked), subtract the max"]
value("add_1e9_vs_unmasked", np.max(np.abs(add_1e9 - unmasked)), "{:.1e}")
value("uniform", 1 / len(tokens), "{:.3f}")
output_core = scaled_dot_product_attention(q[1:2], k, v, mask=none[None, :])[0]  # (1, d_v)
value("core_output_max", np.max(np.abs(output_core)), "{:.1f}")
