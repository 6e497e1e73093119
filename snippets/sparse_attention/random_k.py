"""Top-k selection on random data: how much of the full attention's weight k keys hold, and how far the output moves.

Queries, keys and values of 512 positions drawn from N(0, 1), width 16, under the causal mask. Each query keeps its
k keys with the largest scores (the exact top k, the best any indexer can pick); k doubles from 1 to 512.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import attention_scores, causal_mask, scaled_dot_product_attention
from lib.publish import table, value
from lib.sparse import sparse_attention, top_k_selection, weight_share

# --8<-- [start:sweep]
length, d_k = 512, 16
rng = np.random.default_rng(0)
q, k, v = rng.normal(size=(3, length, d_k))  # (L, d_k) each
allowed = causal_mask(length)  # (L, L)
full, full_weights = scaled_dot_product_attention(q, k, v, allowed)
scores = attention_scores(q, k)  # (L, L)
ks = [2**p for p in range(10) if 2**p <= length]  # 1, 2, 4, ..., 512
rows = []
for top_k in ks:
    selected = top_k_selection(scores, top_k, allowed)  # (L, L)
    out, _ = sparse_attention(q, k, v, selected)
    share = weight_share(full_weights, selected)  # (L,)
    error = np.abs(out - full).max(axis=-1)  # (L,): each query's largest output error
    rows.append([top_k, selected.sum(axis=1).mean(), share.mean(), share.min(), error.mean(), error.max()])
# --8<-- [end:sweep]
dense_keys = allowed.sum(axis=1).mean()
for r in rows:
    print(f"k = {r[0]:3d}: keys read per query {r[1]:6.1f} of {dense_keys:.1f}, weight held mean {r[2]:.3f} "
          f"(least {r[3]:.3f}), output error mean {r[4]:.3f} (largest {r[5]:.3f})")
table("sweep", ["k", "keys read per query", "weight held, mean", "weight held, least",
                "output error, mean", "output error, largest"],
      [[r[0], f"{r[1]:.1f}", *r[2:]] for r in rows], fmt="{:.3g}")  # keys read: one decimal, 256.5 not 256
value("length", length)
value("d_k", d_k)
value("dense_keys", dense_keys, "{:.1f}")
by_k = {r[0]: r for r in rows}
value("share_k1", by_k[1][2], "{:.2f}")
value("share_k16", by_k[16][2], "{:.2f}")
value("share_k64", by_k[64][2], "{:.2f}")
value("least_share_k64", by_k[64][3], "{:.2f}")
value("keys_k64", by_k[64][1], "{:.1f}")
value("error_k64", by_k[64][4], "{:.3f}")
value("error_k1", by_k[1][4], "{:.2f}")
value("fraction_k64", by_k[64][1] / dense_keys, "{:.2f}")
shares = [r[2] for r in rows]
errors_mean = [r[4] for r in rows]
rises = all(b > a for a, b in zip(shares, shares[1:]))
value("share_rises_with_k", rises, zh="是" if rises else "否")
value("mean_error_falls_with_k", all(b < a for a, b in zip(errors_mean, errors_mean[1:])),
      zh="是" if all(b < a for a, b in zip(errors_mean, errors_mean[1:])) else "否")
value("error_at_full_k", by_k[length][5], "{:.1f}")
value("share_at_full_k", by_k[length][2], "{:.1f}")
value("least_share_at_full_k", by_k[length][3], "{:.1f}")
value("last_plotted_k", ks[-2])  # the error plot stops here: at k = length the error is 0, off a log axis

fig, axes = plt.subplots(1, 2, num="sweep", figsize=(10, 4), layout="constrained")
axes[0].plot(ks, shares, "o-", color="#21918c", label="mean")
axes[0].plot(ks, [r[3] for r in rows], "s--", color="#440154", label="least")
axes[0].set(xscale="log", xlabel="k (keys kept per query)", ylabel="share of full weight held", ylim=(0, 1.02),
            title="Weight the selected keys hold")
axes[0].set_xticks(ks, [str(x) for x in ks])
axes[0].legend()
axes[1].plot(ks[:-1], errors_mean[:-1], "o-", color="#21918c", label="mean")
axes[1].plot(ks[:-1], [r[5] for r in rows[:-1]], "s--", color="#440154", label="largest")
axes[1].set(xscale="log", yscale="log", xlabel="k (keys kept per query)", ylabel="output error (max over d_v)",
            title="Output error against full attention")
axes[1].set_xticks(ks[:-1], [str(x) for x in ks[:-1]])
axes[1].legend()
plt.show()
