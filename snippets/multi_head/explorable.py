"""What the heads explorable computes from: the running sentence's vectors and the chapter's four projections.

The page's explorable splits x @ W_q, x @ W_k, x @ W_v into h heads (h a divisor of d_model), lets each head
attend, and mixes the heads with W_o, as heads.py does with the core; it reads these arrays from this snippet's
published values.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.publish import value
from lib.running_example import SENTENCE, embed, output_weights, projection_weights, tokenize

tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # each (d_model, d_model)
w_o = output_weights(x.shape[-1])  # (d_model, d_model)

value("tokens", tokens, " ".join(tokens))
for name, array in (("x", x), ("w_q", w_q), ("w_k", w_k), ("w_v", w_v), ("w_o", w_o)):
    value(name, array, f"{array.shape} array")
