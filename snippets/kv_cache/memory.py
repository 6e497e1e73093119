"""How many bytes the KV cache holds: the formula and the arrays' measured nbytes.

Each layer stores a key and a value vector of d_model numbers for every
position, so a cache for L positions holds 2 * n_layers * L * d_model numbers.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.kv_decoder import KVCache
from lib.publish import table, value


def human(n_bytes):
    """896 -> "896 B", 131072 -> "128 KiB"."""
    for unit in ["B", "KiB", "MiB", "GiB"]:
        if n_bytes < 1024 or unit == "GiB":
            return f"{n_bytes:.4g} {unit}"
        n_bytes /= 1024


def formula_bytes(n_layers, length, d_model, itemsize):
    return 2 * n_layers * length * d_model * itemsize  # keys and values, every layer, every position


# --8<-- [start:measure]
def measured_bytes(n_layers, length, d_model, n_heads, dtype):
    caches = [KVCache(n_heads, d_model // n_heads, length, dtype) for _ in range(n_layers)]  # per layer
    return sum(cache.nbytes for cache in caches)
# --8<-- [end:measure]


value("bytes_per_token_per_layer", formula_bytes(1, 1, 8, 8))
# (n_layers, L, d_model, n_heads, dtype): the running example, then a model of GPT-2 small's shape
# (Radford et al. 2019, "Language Models are Unsupervised Multitask Learners": Table 2 gives
# 12 layers and d_model 768 for the smallest model; section 2.3 gives the context of 1024 tokens).
gpt2_small = (12, 1024, 768, 12)  # layers, context, d_model, heads
configs = [
    (1, 7, 8, 2, np.float64),
    (1, 1024, 8, 2, np.float64),
    (*gpt2_small, np.float64),
    (*gpt2_small, np.float16),
]
rows = []
for n_layers, length, d_model, n_heads, dtype in configs:
    itemsize = np.dtype(dtype).itemsize
    formula = formula_bytes(n_layers, length, d_model, itemsize)
    measured = measured_bytes(n_layers, length, d_model, n_heads, dtype)
    assert formula == measured
    rows.append([n_layers, length, d_model, np.dtype(dtype).name, formula, measured, human(measured)])
table("memory", ["layers", "positions L", "d_model", "dtype", "formula (bytes)", "measured nbytes", "size"], rows)
value("gpt2_layers", gpt2_small[0])
value("gpt2_positions", gpt2_small[1])
value("gpt2_d_model", gpt2_small[2])
value("gpt2_float64", rows[2][-1])
value("gpt2_float16", rows[3][-1])
