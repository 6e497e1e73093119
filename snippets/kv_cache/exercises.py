"""The KV-cache chapter's exercises: each answer, and the result of each usual mistake made in code.

1. The shape of the keys the cache holds after generate.py's 12 steps with 4 heads in place of 2, filled by
   step_with_cache; mistakes: the head split without the transpose, and d_model numbers per head.
2. The multiply-adds of step 100 with a cache at cost.py's d_model = 64 (lib.kv_decoder's count); mistakes: the
   weighted sum left out, W_O left out, and the step without a cache.
3. The first step at which the attention part of a cached step, 2 t d, reaches the projections' 4 d^2, for
   d_model = 128; mistakes: the weighted sum left out, and W_O left out.
4. The MiB of the cache of a batch of 8 sequences of 1,024 positions, 24 layers, d_model = 1,024, float16, from
   KVCache's nbytes; mistakes: the batch left out, the keys alone, float32.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import sinusoidal_positions
from lib.exercises import exercise
from lib.kv_decoder import KVCache, macs_with_cache, macs_without_cache, step_with_cache
from lib.publish import value
from lib.running_example import D_MODEL

# 1. generate.py's layer (same seed and weights) with 4 heads; its inputs here: the positions' encodings
n_heads, max_len = 4, 12
rng = np.random.default_rng(6)
w_q, w_k, w_v, w_o = rng.normal(scale=1 / np.sqrt(D_MODEL), size=(4, D_MODEL, D_MODEL))  # each (d_model, d_model)
x = sinusoidal_positions(max_len, D_MODEL)  # (max_len, d_model)
cache = KVCache(n_heads, D_MODEL // n_heads, max_len)
for t in range(max_len):
    step_with_cache(x[t : t + 1], cache, w_q, w_k, w_v, w_o, n_heads)
keys_no_transpose = (x @ w_k).reshape(max_len, n_heads, D_MODEL // n_heads)  # (L, h, d_head): positions first
exercise("cache_keys_shape", cache.k.shape, "{}",
         {"split_without_transpose": keys_no_transpose.shape,
          "d_model_per_head": KVCache(n_heads, D_MODEL, max_len).k.shape})
value("shape_heads", n_heads)
value("shape_steps", max_len)
value("shape_d_model", D_MODEL)
value("shape_d_head", D_MODEL // n_heads)

# 2. one cached step at cost.py's width
d_model, t = 64, 100
exercise("macs_step_100", int(macs_with_cache(t, d_model)), "{}",
         {"scores_only": 4 * d_model * d_model + t * d_model,  # the weighted sum's t d left out
          "no_output_projection": 3 * d_model * d_model + 2 * t * d_model,  # W_O left out
          "without_cache": int(macs_without_cache(t, d_model))})
value("macs_t", t)
value("macs_projections", 4 * d_model * d_model)
value("macs_attention", int(macs_with_cache(t, d_model) - macs_with_cache(0, d_model)))

# 3. where attention overtakes the projections, at d_model = 128
d_model = 128
steps = np.arange(1, 8 * d_model + 1)  # (T,): far enough for every count below
attention = macs_with_cache(steps, d_model) - macs_with_cache(0, d_model)  # (T,): 2 t d
projections = macs_with_cache(0, d_model)  # 4 d^2
exercise("crossover_128", int(steps[np.argmax(attention >= projections)]), "{}",
         {"scores_only": int(steps[np.argmax(attention / 2 >= projections)]),
          "no_output_projection": int(steps[np.argmax(attention >= projections * 3 / 4)])})
value("crossover_d_model", d_model)
value("crossover_projections", int(projections), "{:,}")
value("crossover_per_step", int(attention[0]))

# 4. a batch of 8 sequences of 1,024 positions: 24 layers, d_model 1,024 in 16 heads, float16
batch, layers, length, d_model, n_heads = 8, 24, 1024, 1024, 16
MiB = 1024**2
layer = KVCache(n_heads, d_model // n_heads, length, np.float16)  # one layer, one sequence
exercise("batch_cache_mib", batch * layers * layer.nbytes // MiB, "{}",
         {"no_batch": layers * layer.nbytes // MiB,
          "keys_only": batch * layers * layer.k.nbytes // MiB,
          "float32": batch * layers * KVCache(n_heads, d_model // n_heads, length, np.float32).nbytes // MiB})
value("batch_sequences", batch)
value("batch_layers", layers)
value("batch_positions", length, "{:,}")
value("batch_d_model", d_model, "{:,}")
value("batch_layer_mib", layer.nbytes // MiB)
