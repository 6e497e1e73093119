"""A lightning-indexer-style scorer and top-k selection on the running example.

A small indexer (H_I heads of width d_I, untrained: seeded random projections) scores every key for every query,
I[t, s] = sum_j w[t, j] * ReLU(q[t, j] . k[s]); the causal mask comes first, then each query keeps its k best keys
and attention reads only those. The same selection made with the attention's own scores (the exact top k, what an
indexer is trained to approximate) shows how much of the full attention's weight k keys can hold at best.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import attention_scores, causal_mask, scaled_dot_product_attention
from lib.plotting import weights_heatmap
from lib.publish import table, value
from lib.running_example import embed, running_qkv
from lib.sparse import index_scores, sparse_attention, top_k_selection, weight_share

tokens, q, k, v = running_qkv()  # 7 tokens; q, k, v (L, d_k)
x = embed(tokens)  # (L, d_model)
n, d_model = x.shape

# --8<-- [start:indexer]
n_index_heads, d_index = 4, 4  # H_I and d_I: far smaller than the attention's own heads
rng = np.random.default_rng(46)
w_q = rng.normal(scale=1 / np.sqrt(d_model), size=(d_model, n_index_heads * d_index))  # untrained
w_k = rng.normal(scale=1 / np.sqrt(d_model), size=(d_model, d_index))
w_w = rng.normal(scale=1 / np.sqrt(d_model), size=(d_model, n_index_heads))
q_index = (x @ w_q).reshape(n, n_index_heads, d_index)  # (L, H_I, d_I)
k_index = x @ w_k  # (L, d_I): one key per token, shared by the indexer's heads
w_index = x @ w_w  # (L, H_I): one weight per head, from the query token
index = index_scores(q_index, w_index, k_index)  # (L, L)
by_loop = np.array([[sum(w_index[t, j] * max(0.0, q_index[t, j] @ k_index[s]) for j in range(n_index_heads))
                     for s in range(n)] for t in range(n)])  # the formula, one term at a time
print(f"indexer scores vs the formula term by term: largest difference {np.abs(index - by_loop).max():.1e}")

allowed = causal_mask(n)  # (L, L): the mask first ...
selected = top_k_selection(index, 3, allowed)  # ... then each query's 3 best keys
print("keys query 'mat' reads:", [tokens[s] for s in np.flatnonzero(selected[5])])
# --8<-- [end:indexer]
value("loop_gap", np.abs(index - by_loop).max(), "{:.0e}")
value("n_index_heads", n_index_heads)
value("d_index", d_index)
mat_keys = [tokens[s] for s in np.flatnonzero(selected[5])]
value("mat_keys", ", ".join(f'"{t}"' for t in mat_keys[:-1]) + f' and "{mat_keys[-1]}"',
      zh="".join(f"“{t}”" for t in mat_keys))

# --8<-- [start:sweep]
full, full_weights = scaled_dot_product_attention(q, k, v, allowed)  # (L, d_v), (L, L)
exact_scores = attention_scores(q, k)  # (L, L): the attention's own scores
rows = []
for top_k in range(1, n + 1):
    by_index = top_k_selection(index, top_k, allowed)  # (L, L)
    exact = top_k_selection(exact_scores, top_k, allowed)  # (L, L)
    out_index, _ = sparse_attention(q, k, v, by_index)
    out_exact, _ = sparse_attention(q, k, v, exact)
    rows.append([top_k, int(exact.sum()), int(allowed.sum()),
                 weight_share(full_weights, by_index).mean(), weight_share(full_weights, exact).mean(),
                 np.abs(out_index - full).max(), np.abs(out_exact - full).max()])
    print(f"k = {top_k}: keys read {exact.sum():2d} of {allowed.sum()}, weight held (indexer / exact) "
          f"{rows[-1][3]:.2f} / {rows[-1][4]:.2f}, largest output error {rows[-1][5]:.2f} / {rows[-1][6]:.2f}")
# --8<-- [end:sweep]
table("sweep", ["k", "keys read", "keys read, dense", "weight held, indexer", "weight held, exact top k",
                "output error, indexer", "output error, exact top k"], rows,
      fmt="{:.2f}")
shares_index = [r[3] for r in rows]
shares_exact = [r[4] for r in rows]
value("share_exact_k1", shares_exact[0], "{:.2f}")
value("share_exact_k3", shares_exact[2], "{:.2f}")
value("share_index_k3", shares_index[2], "{:.2f}")
value("keys_read_k3", rows[2][1])
# at k = 3, the queries with more than 3 keys are the ones that drop a key; the others hold all their weight
share_k3 = weight_share(full_weights, top_k_selection(exact_scores, 3, allowed))  # (L,)
dropping = allowed.sum(axis=1) > 3  # (L,)
value("n_dropping_k3", int(dropping.sum()))
value("share_exact_k3_dropping", share_k3[dropping].mean(), "{:.2f}")
value("share_exact_k3_least", share_k3.min(), "{:.2f}")
value("least_share_token_k3", tokens[int(np.argmin(share_k3))])
value("keys_dense", rows[0][2])
value("exact_never_below_index", all(e >= i - 1e-12 for e, i in zip(shares_exact, shares_index)),
      zh="是" if all(e >= i - 1e-12 for e, i in zip(shares_exact, shares_index)) else "否")
covers = top_k_selection(index, n, allowed)
out_all, w_all = sparse_attention(q, k, v, covers)
value("covers_equals_causal_mask", bool(np.array_equal(covers, allowed)),
      zh="是" if np.array_equal(covers, allowed) else "否")
value("covers_error", np.abs(out_all - full).max(), "{:.1f}")
value("covers_bitwise", bool(np.array_equal(out_all, full) and np.array_equal(w_all, full_weights)),
      zh="是" if np.array_equal(out_all, full) else "否")
value("n_tokens", n)

_, top3_weights = sparse_attention(q, k, v, top_k_selection(exact_scores, 3, allowed))
fig, axes = plt.subplots(1, 2, num="weights", figsize=(10, 4.6), layout="constrained")
weights_heatmap(axes[0], full_weights, tokens, tokens, title="causal, every key")
weights_heatmap(axes[1], top3_weights, tokens, tokens, title="causal, top 3 keys per query")
fig.colorbar(axes[1].images[0], ax=axes, label="weight", shrink=0.8)
plt.show()
value("top3_max_keys", int((top3_weights > 0).sum(axis=1).max()))
value("top3_moved", float(np.abs(top3_weights - full_weights).max()), "{:.2f}")
