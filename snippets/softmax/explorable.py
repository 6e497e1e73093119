"""What the softmax explorable computes from: the running sentence's query "cat" and its keys.

The page's explorable takes the dot products q_cat . k_j, divides them by sqrt(d_k) (when scaling is on) and by
a temperature T, and applies softmax, as temperature.py does with the core; it reads q_cat and the keys from this
snippet's published values.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.publish import value
from lib.running_example import running_qkv

tokens, q, k, _ = running_qkv()  # (L,), (L, d_k), (L, d_k), _
q_cat = q[tokens.index("cat")]  # (d_k,)
value("tokens", tokens, " ".join(tokens))
value("query", "cat")
value("q_cat", q_cat, f"{q_cat.shape} array")
value("keys", k, f"{k.shape} array")
