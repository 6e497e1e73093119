"""What a window saves in KV-cache memory: the rolling cache's nbytes, and two published configurations.

A full-attention layer caches every position, a sliding-window layer only the last W. Per layer the cache
holds min(L, W) positions instead of L, whatever the heads and widths, so the saving is a ratio of positions.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.kv_decoder import KVCache
from lib.publish import table, value
from lib.window_cache import RollingKVCache

# --8<-- [start:measure]
length, window, n_heads, d_head = 64, 8, 2, 4
full_cache = KVCache(n_heads, d_head, length)  # (h, L, d_head) keys and values
rolling = RollingKVCache(n_heads, d_head, window)  # (h, W, d_head) keys and values
print("full:", full_cache.k.shape, full_cache.nbytes, "bytes;", "rolling:", rolling.k.shape, rolling.nbytes, "bytes")
# --8<-- [end:measure]
value("toy_length", length)
value("toy_window", window)
value("toy_full_bytes", full_cache.nbytes)
value("toy_rolling_bytes", rolling.nbytes)
value("toy_ratio", f"1/{full_cache.nbytes // rolling.nbytes}")


# --8<-- [start:positions]
def cached_positions(layer_kinds, length, window):
    """Positions the whole stack caches: L for a "global" layer, min(L, W) for a "local" one."""
    return sum(length if kind == "global" else min(length, window) for kind in layer_kinds)
# --8<-- [end:positions]


# Mistral 7B (Jiang et al. 2023, arXiv:2310.06825): Table 1 gives n_layers 32 and window_size 4096; every layer
# uses the window. Section 2 ("Rolling Buffer Cache") quotes the saving on a sequence of 32k tokens.
# Gemma 2 (Gemma Team 2024, "Gemma 2: Improving Open Language Models at a Practical Size", section 2): local
# sliding-window and global attention alternate in every other layer, window 4096, global span 8192 tokens.
mistral = {"layers": 32, "window": 4096, "length": 32768}
gemma2 = {"window": 4096, "span": 8192}
configs = [
    ("Mistral 7B, 32k tokens", ["local"] * mistral["layers"], mistral["length"], mistral["window"]),
    ("Gemma 2, 8192 tokens (local and global alternate)", ["local", "global"], gemma2["span"], gemma2["window"]),
    ("toy cache above", ["local"], length, window),
]
rows = []
for name, kinds, seq, w in configs:
    windowed, full = cached_positions(kinds, seq, w), cached_positions(["global"] * len(kinds), seq, w)
    rows.append([name, len(kinds), seq, w, windowed, full, f"{windowed / full:.3g}", f"1/{full / windowed:.3g}"])
table("configs", ["configuration", "layers counted", "positions L", "window W", "cached positions, as built",
                  "cached positions, all global", "ratio", "as a fraction"], rows, fmt="{}")
assert rows[-1][5] * rolling.nbytes == rows[-1][4] * full_cache.nbytes  # the formula agrees with the arrays

value("mistral_fraction", rows[0][-1])
value("gemma2_ratio", rows[1][-2])
value("mistral_layers", mistral["layers"])
value("mistral_window", mistral["window"])
value("mistral_length", mistral["length"])
value("mistral_span", mistral["layers"] * (mistral["window"] - 1))  # the window counts the query itself
value("mistral_span_paper", mistral["layers"] * mistral["window"])  # the paper's i - W .. i
value("gemma2_window", gemma2["window"])
value("gemma2_span", gemma2["span"])
gemma2_all_local = cached_positions(["local"] * 2, gemma2["span"], gemma2["window"]) / cached_positions(
    ["global"] * 2, gemma2["span"], gemma2["window"])
value("gemma2_all_local_ratio", f"{gemma2_all_local:.3g}")
