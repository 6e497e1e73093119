"""The sliding-window chapter's exercises: each answer, and the result of each usual mistake made in code.

1. The (query, key) pairs a window of 3 allows on receptive_field.py's 16 positions; mistakes: the window one too
   long (i - W <= j), and W keys counted in every row, the first rows included.
2. The weight the last token "." puts on "mat" under a window of 2, on the running example; mistakes: the mask
   applied after the softmax (no renormalisation), and the window one too long.
3. How far back an output of a stack of 6 layers with a window of 5 can see, from the dependencies the masks
   allow; mistakes: the window one too long, and one layer's reach.
4. The fraction of the full cache kept by a stack that alternates windowed (W = 4,096) and full layers on 32,768
   tokens, from the arrays' nbytes; mistakes: every layer windowed, and the ratio upside down.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import scaled_dot_product_attention, sliding_window_mask
from lib.exercises import exercise
from lib.kv_decoder import KVCache
from lib.publish import value
from lib.running_example import running_qkv
from lib.window_cache import RollingKVCache

# 1. receptive_field.py's length and window
length, window = 16, 3
pairs = sliding_window_mask(length, window)  # (L, L)
exercise("window_pairs", int(pairs.sum()), "{}",
         {"window_one_too_long": int(sliding_window_mask(length, window + 1).sum()),
          "every_row_full": length * window})
value("pairs_length", length)
value("pairs_window", window)
value("pairs_full_rows", int(np.sum(pairs.sum(axis=1) == window)))
value("pairs_first_rows", ", ".join(str(n) for n in pairs.sum(axis=1)[: window - 1]))

# 2. the running example, window 2: the last token's weight on "mat"
tokens, q, k, v = running_qkv()  # 7 tokens; q, k, v (L, d_k)
n, narrow = len(tokens), 2
last, mat = n - 1, tokens.index("mat")
mask = sliding_window_mask(n, narrow)  # (L, L)
_, weights = scaled_dot_product_attention(q, k, v, mask)  # (L, L)
_, unmasked = scaled_dot_product_attention(q, k, v)  # (L, L): the softmax over every key
_, wider = scaled_dot_product_attention(q, k, v, sliding_window_mask(n, narrow + 1))  # (L, L)
exercise("weight_on_mat", float(weights[last, mat]), "{:.2f}",
         {"mask_after_softmax": float((unmasked * mask)[last, mat]),
          "window_one_too_long": float(wider[last, mat])})
value("weight_window", narrow)
value("weight_kept_keys", " ".join(tokens[n - narrow :]))
value("weight_causal_on_mat", unmasked[last, mat], "{:.2f}")
value("weight_causal_on_stop", unmasked[last, last], "{:.2f}")


# 3. a stack of 6 layers with a window of 5: output i depends on input j when a path of allowed pairs joins them
def reach(layers, window, length=64):
    """The farthest input back that output i of ``layers`` stacked windowed layers depends on."""
    step = sliding_window_mask(length, window).astype(int)  # (L, L): what one layer reads
    depends = np.linalg.matrix_power(step, layers) > 0  # (L, L): a path through every layer
    return int(max(i - j for i, j in zip(*np.nonzero(depends))))


layers, window = 6, 5
exercise("stack_reach", reach(layers, window), "{}",
         {"window_one_too_long": reach(layers, window + 1), "one_layer": reach(1, window)})
value("reach_layers", layers)
value("reach_window", window)
value("reach_per_layer", reach(1, window))

# 4. windowed and full layers alternating, at memory.py's Mistral sizes: window 4,096 on 32,768 tokens
length, window = 32768, 4096
windowed_layer, full_layer = RollingKVCache(1, 1, window).nbytes, KVCache(1, 1, length).nbytes  # one head of width 1
alternating = windowed_layer + full_layer  # one windowed and one full layer: the stack repeats this pair
exercise("alternating_fraction", alternating / (2 * full_layer), "{:.2f}",
         {"every_layer_windowed": 2 * windowed_layer / (2 * full_layer), "inverted": 2 * full_layer / alternating})
value("alternating_length", length, "{:,}")
value("alternating_window", window, "{:,}")
value("alternating_pair_positions", window + length, "{:,}")
value("alternating_full_positions", 2 * length, "{:,}")
