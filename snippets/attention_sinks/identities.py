"""Three ways to give attention somewhere else to go, checked against each other on one small example.

A sink logit s adds exp(s) to a softmax's denominator: the weights are the ordinary softmax of the scores with s
appended as one more key, that key's column dropped. s = 0 is the plus-one softmax, which is attention with one
more key whose score is 0 and whose value is 0. Then the two classic mistakes, which run without an error.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, scaled_dot_product_attention, softmax
from lib.publish import value
from lib.sinks import (
    buggy_plus_one_after_max,
    buggy_sink_on_query_axis,
    softmax_plus_one,
    softmax_with_sink,
)

# --8<-- [start:example]
rng = np.random.default_rng(0)
h, length, d_head = 2, 4, 8
q, k, v = rng.normal(size=(3, h, length, d_head))  # (h, L, d_head) each
scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head)  # (h, L, L)
scores = np.where(causal_mask(length), scores, -np.inf)  # causal: row i sees keys 0..i
sink = np.array([[1.0], [-2.0]])  # (h, 1): one sink logit per head
weights = softmax_with_sink(scores, sink)  # (h, L, L)
print("head 0's weights, one row per query:")
print(np.round(weights[0], 3))
print("each row's sum, head 0:", np.round(weights[0].sum(axis=-1), 3))
print("each row's sum, head 1:", np.round(weights[1].sum(axis=-1), 3))
# --8<-- [end:example]
value("row_sum_first", weights[0, 0].sum(), "{:.3f}")
value("row_sum_last", weights[0, -1].sum(), "{:.3f}")
value("row_sum_first_head1", weights[1, 0].sum(), "{:.3f}")

# --8<-- [start:identities]
by_hand = np.exp(scores) / (np.exp(sink)[..., None] + np.exp(scores).sum(axis=-1, keepdims=True))  # the formula
zero_key = np.concatenate([k, np.zeros((h, 1, d_head))], axis=1)  # (h, L + 1, d_head): a key of zeros ...
zero_value = np.concatenate([v, np.zeros((h, 1, d_head))], axis=1)  # ... whose value is zeros
allowed = np.concatenate([causal_mask(length), np.ones((length, 1), dtype=bool)], axis=1)  # every query sees it
out_zero_key, _ = scaled_dot_product_attention(q, zero_key, zero_value, allowed)  # (h, L, d_head)
out_plus_one = softmax_plus_one(scores) @ v  # (h, L, d_head)
gaps = {
    "sink vs the formula": np.abs(weights - by_hand).max(),
    "plus one vs a zero key with a zero value": np.abs(out_plus_one - out_zero_key).max(),
}
for name, gap in gaps.items():
    print(f"{name:42s} largest difference {gap:.1e}")
# --8<-- [end:identities]
value("largest_identity_gap", max(gaps.values()), "{:.0e}")

# --8<-- [start:bugs]
wrong_axis = buggy_sink_on_query_axis(scores, sink)  # the sink laid along the queries
plain = softmax(scores, axis=-1)
after_max = buggy_plus_one_after_max(scores)  # the 1 added after subtracting the row's maximum
at_max = softmax_with_sink(scores, scores.max(axis=-1, keepdims=True)[..., 0])  # a sink logit at the maximum
print(f"sink on the query axis vs the right weights: largest difference {np.abs(wrong_axis - weights).max():.2f}")
print(f"sink on the query axis vs no sink at all:    largest difference {np.abs(wrong_axis - plain).max():.1e}")
print(f"plus one after the maximum vs plus one:      largest difference "
      f"{np.abs(after_max - softmax_plus_one(scores)).max():.2f}")
print(f"plus one after the maximum vs a sink at max: largest difference {np.abs(after_max - at_max).max():.1e}")
# --8<-- [end:bugs]
value("wrong_axis_error", np.abs(wrong_axis - weights).max(), "{:.2f}")
value("wrong_axis_vs_plain", np.abs(wrong_axis - plain).max(), "{:.0e}")
value("after_max_error", np.abs(after_max - softmax_plus_one(scores)).max(), "{:.2f}")
value("after_max_vs_sink_at_max", np.abs(after_max - at_max).max(), "{:.0e}")
value("first_row_sum_after_max", after_max[0, 0].sum(), "{:.2f}")
value("first_row_sum_plus_one", softmax_plus_one(scores)[0, 0].sum(), "{:.2f}")
