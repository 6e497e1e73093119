"""The online softmax, block by block, and tiled attention checked against the core.

First one row of 12 scores, read in blocks of 4: watch the running max m and the
running sum ℓ change. Then whole attention in tiles, compared with
scaled_dot_product_attention, on the running sentence and on a longer random
sequence whose length is not a multiple of the tile.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import scaled_dot_product_attention, softmax
from lib.online_tiles import online_softmax, tiled_attention
from lib.publish import table, value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

np.set_printoptions(precision=3, suppress=True)
rng = np.random.default_rng(0)

# --8<-- [start:row]
x = np.round(rng.normal(scale=2.0, size=12), 2)  # one row of 12 scores
block = 4
weights, trace = online_softmax(x, block)
# --8<-- [end:row]
print("scores:", x)
rows = []
for b, (m, ell) in enumerate(trace):
    chunk = x[block * b : block * (b + 1)]
    rows.append([f"{block * b}-{block * (b + 1) - 1}", f"{chunk.max():.2f}", f"{m:.2f}", f"{ell:.4f}"])
table("trace", ["positions", "block max", "running max m", "running sum ℓ"], rows)
value("n_scores", len(x))
value("block", block)
value("softmax_max_error", np.max(np.abs(weights - softmax(x))), "{:.1e}")
value("final_sum", f"{np.sum(np.exp(x - x.max())):.4f}")

# --8<-- [start:tiled]
tokens = tokenize(SENTENCE)
x_sentence = embed(tokens)  # (7, d_model)
w_q, w_k, w_v = projection_weights()
q, k, v = x_sentence @ w_q, x_sentence @ w_k, x_sentence @ w_v  # each (7, 8)
reference, _ = scaled_dot_product_attention(q, k, v)  # (7, 8)
sentence_tile = 3
tiled = tiled_attention(q, k, v, sentence_tile)  # tiles of 3, 3 and 1 positions
# --8<-- [end:tiled]
value("sentence_tile", sentence_tile)
value("sentence_max_error", np.max(np.abs(tiled - reference)), "{:.1e}")

long_length, long_tile = 300, 64
q, k, v = rng.normal(size=(3, 2, long_length, 16))  # (3 tensors, batch 2, L, d 16)
reference, _ = scaled_dot_product_attention(q, k, v)  # (2, L, 16)
value("long_length", long_length)
value("long_tile", long_tile)
value("long_max_error", np.max(np.abs(tiled_attention(q, k, v, long_tile) - reference)), "{:.1e}")
