"""Decoding with a rolling-buffer KV cache equals full attention under the window mask, for every prefill chunk.

One multi-head sliding-window layer, run over the same inputs three ways: in one call with the window mask,
chunk by chunk with the rolling cache (attend, then store), and chunk by chunk with the trimming bug (store,
then attend). A chunk of 1 is token-by-token generation; a longer first chunk is a prefilled prompt.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import multi_head_attention, sliding_window_mask
from lib.publish import table, value
from lib.window_cache import attend_chunk, attend_chunk_trimmed_first, decode_in_chunks

length, d_model, n_heads, window = 12, 8, 2, 4
rng = np.random.default_rng(5)
w_q, w_k, w_v, w_o = rng.normal(scale=d_model**-0.5, size=(4, d_model, d_model))  # each (d_model, d_model)
x = rng.normal(size=(length, d_model))  # (L, d_model)

# --8<-- [start:compare]
full, _ = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, sliding_window_mask(length, window))  # (L, d_model)
rows = []
for chunk in range(1, length + 1):
    rolling, cache = decode_in_chunks(x, w_q, w_k, w_v, w_o, n_heads, window, chunk, attend_chunk)
    trimmed, _ = decode_in_chunks(x, w_q, w_k, w_v, w_o, n_heads, window, chunk, attend_chunk_trimmed_first)
    wrong_rows = int(np.sum(np.abs(trimmed - full).max(axis=-1) > 1e-12))  # positions the bug got wrong
    rows.append([chunk, np.abs(rolling - full).max(), np.abs(trimmed - full).max(), wrong_rows])
# --8<-- [end:compare]
print("cache keys:", cache.k.shape, "positions held:", sorted(cache.positions.tolist()))

table("chunks", ["prefill chunk", "attend, then store: max error", "store, then attend: max error",
                 "positions the bug gets wrong"], rows, fmt="{:.1e}")
value("length", length)
value("window", window)
value("n_heads", n_heads)
value("max_error_rolling", max(r[1] for r in rows), "{:.1e}")
bug_free = [r[0] for r in rows if r[3] == 0]
value("bug_free_chunks", bug_free, zh="、".join(str(c) for c in bug_free))
value("smallest_bug_error", min(r[2] for r in rows if r[3] > 0), "{:.2f}")
value("cache_slots", cache.k.shape[1])
value("held_positions", " ".join(str(p) for p in sorted(cache.positions.tolist())))
