"""What the masks explorable computes from: the chapter's batch of two sentences as queries, keys and values.

Sentence a is the running sentence; sentence b is "The cat sat." padded to the same 7 positions with zero
vectors, as in kinds.py. The page's explorable masks and attends in the browser; it reads these arrays from this
snippet's published values.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.publish import value
from lib.running_example import padded_batch, projection_weights

tokens, lengths, x = padded_batch()  # [a, b], [7, 4], (B, L, d_model) = (2, 7, 8)
w_q, w_k, w_v = projection_weights()
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (B, L, d_k)

value("tokens", tokens, "{0[0]} / {0[1]}")
value("lengths", lengths)
for name, array in (("q", q), ("k", k), ("v", v)):
    value(name, array, f"{array.shape} array")
