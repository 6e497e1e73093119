"""The online softmax chapter's exercises: their answers, and what the usual mistakes give, on the page's data.

The first two exercises read the page's row of 12 scores (the same draw as steps.py): the running sum after a
first block of 6, and the old sum rescaled when the second block of 4 raises the maximum. The last two follow
tiled_attention through the page's long check (a batch of 2 sequences of 300 positions, tiles of 64): how many
blocks of scores it forms, and the shape of the last one. Each usual mistake is made here in code (the maximum
not subtracted, the rescaling inverted, the last partial tile dropped, the batch axis forgotten, ...), and
lib.exercises publishes the answer and every mistake's result.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.exercises import exercise
from lib.online_tiles import online_softmax
from lib.publish import value

rng = np.random.default_rng(0)
x = np.round(rng.normal(scale=2.0, size=12), 2)  # the page's row of 12 scores, as steps.py draws it

# Exercise 1: the running sum after the first block, when the row is read in blocks of 6.
wide = value("wide_block", 6)
_, trace = online_softmax(x, wide)
m_first, ell_first = trace[0]
value("wide_first_max", m_first, "{:.2f}")
exercise(
    "wide_first_sum", ell_first, "{:.3f}",
    {
        "row_max": np.sum(np.exp(x[:wide] - x.max())),  # the maximum of the whole row, not yet seen after 6 scores
        "no_max": np.sum(np.exp(x[:wide])),  # e^x summed without subtracting any maximum
    },
)

# Exercise 2: the old sum rescaled when block 2 (blocks of 4, the page's table) raises the maximum.
block = 4
_, trace = online_softmax(x, block)
(m_1, ell_1), (m_2, ell_2) = trace[0], trace[1]
factor = value("rescale_factor", np.exp(m_1 - m_2), "{:.4f}")  # e^(m1 - m2), for the solution
value("block_2_terms", np.sum(np.exp(x[block : 2 * block] - m_2)), "{:.4f}")  # block 2's own terms
exercise(
    "rescaled_sum", ell_1 * factor, "{:.3f}",
    {
        "inverted": ell_1 * np.exp(m_2 - m_1),  # multiplied by e^(m2 - m1): the factor turned upside down
        "not_rescaled": ell_1,  # the old sum carried over as it was
    },
)

# Exercise 3: how many blocks of scores tiled_attention forms on the long check (L = 300, tiles of 64).
long_length, long_tile, d = 300, 64, 16  # the page's long check (steps.py)
value("long_length", long_length)
value("long_tile", long_tile)
query_tiles = range(0, long_length, long_tile)  # the starts of the query tiles, as tiled_attention's outer loop
key_tiles = range(0, long_length, long_tile)  # ... and of the key tiles, its inner loop
value("n_tiles", len(query_tiles))
exercise(
    "score_blocks", sum(1 for _ in query_tiles for _ in key_tiles), "{}",
    {
        "partial_tile_dropped": (long_length // long_tile) ** 2,  # 300 // 64 tiles: the last 44 positions lost
        "key_tiles_only": len(key_tiles),  # one query tile's visits counted, not every query tile's
    },
)

# Exercise 4: the shape of `scores` in the last visit of tiled_attention's two loops, batch of 2 sequences.
q, k = np.zeros((2, 2, long_length, d))  # (batch 2, L, d): only the shapes matter here
i, j = query_tiles[-1], key_tiles[-1]  # the last query tile and the last key tile
q_i, k_j = q[..., i : i + long_tile, :], k[..., j : j + long_tile, :]  # (2, 44, d) each
value("long_qk_shape", q.shape)
value("last_tile_start", i)
value("last_q_tile_shape", q_i.shape)  # for the solution: the last query tile ...
value("last_k_tile_t_shape", np.swapaxes(k_j, -1, -2).shape)  # ... and the last key tile, transposed
exercise(
    "last_scores_shape", (q_i @ np.swapaxes(k_j, -1, -2)).shape, "{}",
    {
        "full_tile": (q[..., :long_tile, :] @ np.swapaxes(k[..., :long_tile, :], -1, -2)).shape,  # a whole tile
        "no_batch": (q_i[0] @ k_j[0].T).shape,  # one sequence's block: the batch axis forgotten
    },
)
