"""The Benchmarks chapter's exercises: only what is exact (multiply-adds, tile pairs, bytes), never a time.

The sizes are those of the page's two tables: multi_head_attention with d_model = 256 and 8 heads, and the full
scores against tiles with head width d = 64 and tiles of 64. It counts the multiply-adds of the six matrix products
of multi_head_attention from the shapes of their real operands, the share of them in the products whose size
grows with L^2, the pairs of tiles the loop of tiled_attention visits, and the bytes of the full version's
(L x L) weights. Each usual mistake is made here too (W_o left out, one head counted for all, the share turned
round, the tile count not squared, only the causal tiles, float32, the wrong array), its result published beside
the answer.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import merge_heads, scaled_dot_product_attention, split_heads
from lib.exercises import exercise
from lib.publish import value

d_model, n_heads = 256, 8  # the multi_head_attention table
d, tile = 64, 64  # the tiling table: head width, and its first tile
value("d_model", d_model)
value("n_heads", n_heads)
value("d", d)
value("tile", tile)


def multiply_adds(a, b):
    """Multiply-adds of the matrix product a @ b: each entry of the product sums k = a.shape[-1] of them."""
    return (a @ b).size * a.shape[-1]


def products(length):
    """The six matrix products of multi_head_attention on an (L, d_model) input, as (a, b) operand pairs."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(length, d_model))  # (L, d_model)
    w_q, w_k, w_v, w_o = rng.normal(size=(4, d_model, d_model))
    q, k, v = (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))  # each (h, L, d_head)
    _, weights = scaled_dot_product_attention(q, k, v)  # (h, L, L)
    heads = merge_heads(weights @ v)  # (L, d_model)
    return {
        "projections": [(x, w_q), (x, w_k), (x, w_v)],
        "scores": [(q, np.swapaxes(k, -1, -2))],  # (h, L, d_head) @ (h, d_head, L)
        "weighted sum": [(weights, v)],  # (h, L, L) @ (h, L, d_head)
        "output": [(heads, w_o)],
    }


def count(pairs, one_head=False):
    """Multiply-adds of the products; one_head counts each per-head product for a single head (the mistake)."""
    return sum(multiply_adds(a[0], b[0]) if one_head and a.ndim == 3 else multiply_adds(a, b) for a, b in pairs)


# Exercise 1: the multiply-adds of multi_head_attention at L = 256, in millions.
length = 256
value("mha_length", length)
six = products(length)
every = [pair for group in six.values() for pair in group]
value("mha_projection_millions", count(six["output"]) / 1e6, "{:.1f}")  # one (L, d) @ (d, d) product
value("mha_scores_millions", count(six["scores"]) / 1e6, "{:.1f}")  # all heads' q @ k^T
exercise(
    "mha_millions",
    count(every) / 1e6,
    "{:.1f}",
    mistakes={
        "no_output_projection": count(six["projections"] + six["scores"] + six["weighted sum"]) / 1e6,
        "one_head": count(every, one_head=True) / 1e6,
    },
)

# Exercise 2: at L = 1024, the share of the multiply-adds in the two products of size L^2 (scores, weighted sum).
length = 1024
value("share_length", length)
six = products(length)
quadratic = count(six["scores"] + six["weighted sum"])
quadratic_one_head = count(six["scores"] + six["weighted sum"], one_head=True)
linear = count(six["projections"] + six["output"])
exercise(
    "quadratic_share",
    quadratic / (quadratic + linear),
    "{:.2f}",
    mistakes={
        "projections_share": linear / (quadratic + linear),
        "one_head": quadratic_one_head / (quadratic_one_head + linear),
    },
)

# Exercise 3: the pairs of tiles tiled_attention visits at L = 2048 with tiles of 64 (its two loops).
length = 2048
value("tiles_length", length)
starts = range(0, length, tile)  # the query tiles, and the key tiles, of tiled_attention
exercise(
    "tile_pairs",
    sum(1 for i in starts for j in starts),
    mistakes={
        "not_squared": len(starts),
        "causal_only": sum(1 for i in starts for j in starts if j <= i),  # tiled_attention has no mask
    },
)

# Exercise 4: the bytes of the full version's (L x L) weights at L = 2048 (d = 64), in MiB (2^20 bytes).
value("tile_scores_kib", np.zeros((tile, tile)).nbytes // 2**10)  # one tile's scores, for comparison
rng = np.random.default_rng(0)
q, k, v = rng.normal(size=(3, length, d))  # each (L, d), float64 as in the benchmark
_, weights = scaled_dot_product_attention(q, k, v)  # (L, L)
exercise(
    "weights_mib",
    weights.nbytes // 2**20,
    mistakes={
        "float32": weights.astype(np.float32).nbytes // 2**20,
        "query_array": q.nbytes // 2**20,  # (L, d), not (L, L)
    },
)
