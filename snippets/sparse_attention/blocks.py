"""Block selection with a compressed, a selected and a sliding branch, on random data.

Keys are cut into blocks; each block's compressed key is the mean of its keys. A query scores the complete blocks
before it with their compressed keys, reads the best few whole (plus its own block, up to itself), and a sliding
window reads the last keys. The output is a gated sum of the three branches. The snippet counts the keys each
branch reads and checks that selecting every block gives full causal attention exactly.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, scaled_dot_product_attention
from lib.publish import table, value
from lib.sparse import three_branch_attention, weight_share

length, d_k = 512, 16
rng = np.random.default_rng(0)
q, k, v = rng.normal(size=(3, length, d_k))  # (L, d_k) each: the same draws as random_k.py
full, full_weights = scaled_dot_product_attention(q, k, v, causal_mask(length))

# --8<-- [start:branches]
block_size, n_selected, window = 16, 4, 32
gates = np.array([0.2, 0.5, 0.3])  # g_cmp, g_sel, g_win: given here, learned per query in NSA
output, masks = three_branch_attention(q, k, v, block_size, n_selected, window, gates)
last = length - 1
for name, mask in masks.items():
    print(f"{name:10s} branch: the last query reads {mask[last].sum():3d} entries, on average {mask.sum(1).mean():.1f}")
print(f"dense causal attention: the last query reads {length} keys, on average {(length + 1) / 2:.1f}")
# --8<-- [end:branches]
reads = {name: mask.sum(axis=1) for name, mask in masks.items()}
total_last = sum(int(r[last]) for r in reads.values())
value("block_size", block_size)
value("n_selected", n_selected)
value("window", window)
value("length", length)
value("last_compressed", int(reads["compressed"][last]))
value("last_selected", int(reads["selected"][last]))
value("last_window", int(reads["window"][last]))
value("last_total", total_last)
value("last_fraction", total_last / length, "{:.2f}")
value("last_selected_expected", (n_selected + 1) * block_size)

# --8<-- [start:share]
union = masks["selected"] | masks["window"]  # (L, L): the real keys the two fine branches read
share = weight_share(full_weights, union)  # (L,)
print(f"selected and window keys hold {share.mean():.2f} of the full weight on average, {share.min():.2f} at least")
# --8<-- [end:share]
value("union_share_mean", share.mean(), "{:.2f}")
value("union_share_least", share.min(), "{:.2f}")
value("union_keys_mean", union.sum(axis=1).mean(), "{:.1f}")

# --8<-- [start:every-block]
n_blocks = length // block_size
everything, every_mask = three_branch_attention(q, k, v, block_size, n_blocks, window, [0.0, 1.0, 0.0])
print("every block selected, selected branch alone: keys = causal mask:",
      np.array_equal(every_mask["selected"], causal_mask(length)),
      f"| output vs full attention: largest difference {np.abs(everything - full).max():.1f}")
# --8<-- [end:every-block]
value("every_block_mask_is_causal", bool(np.array_equal(every_mask["selected"], causal_mask(length))),
      zh="是" if np.array_equal(every_mask["selected"], causal_mask(length)) else "否")
value("every_block_error", np.abs(everything - full).max(), "{:.1f}")

rows = []
for name in ("compressed", "selected", "window"):
    only = [1.0 if n == name else 0.0 for n in ("compressed", "selected", "window")]
    out, _ = three_branch_attention(q, k, v, block_size, n_selected, window, only)
    rows.append([name, float(reads[name].mean()), int(reads[name][last]), float(np.abs(out - full).max(axis=1).mean())])
rows.append(["gated sum", float(sum(r.mean() for r in reads.values())), total_last,
             float(np.abs(output - full).max(axis=1).mean())])
table("branches", ["branch", "entries read, mean", "entries read, last query", "output error vs full, mean"],
      rows, fmt="{:.3g}")
errs = {r[0]: r[3] for r in rows}
value("error_selected", errs["selected"], "{:.2f}")
value("error_window", errs["window"], "{:.2f}")
value("error_compressed", errs["compressed"], "{:.2f}")
value("error_gated", errs["gated sum"], "{:.2f}")
