"""Generating with cross-attention: the source's keys and values are computed once, the target grows step by step.

The decoder's self-attention keeps a growing KV cache (the KV-cache chapter's `KVCache`); its cross-attention needs
the source's keys and values, which do not change while the target is written, so they are projected once before
the first step and reused by every step. Step-by-step decoding equals one call on the whole target.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, multi_head_attention
from lib.encoder_decoder import cross_attention, source_keys_values
from lib.kv_decoder import KVCache, step_with_cache
from lib.publish import table, value

d_model, n_heads, l_k, l_q = 8, 2, 7, 5
rng = np.random.default_rng(12)
dec_w = rng.normal(scale=d_model**-0.5, size=(4, d_model, d_model))  # decoder self-attention W_q, W_k, W_v, W_o
cross_w = rng.normal(scale=d_model**-0.5, size=(4, d_model, d_model))  # cross-attention W_q, W_k, W_v, W_o
memory = rng.normal(size=(l_k, d_model))  # (L_k, d_model): the encoder's output for one source sentence
tgt = rng.normal(size=(l_q, d_model))  # (L_q, d_model): the target rows the decoder receives, one per step

# --8<-- [start:decode]
source_kv = source_keys_values(memory, cross_w[1], cross_w[2], n_heads)  # once: each (h, L_k, d_head)
self_cache = KVCache(n_heads, d_model // n_heads, l_q)  # grows by one position per step
rows, shapes = [], []
for t in range(l_q):
    h_t, _ = step_with_cache(tgt[t : t + 1], self_cache, *dec_w, n_heads)  # (1, d_model)
    out_t, w_t = cross_attention(h_t, source_kv, cross_w[0], cross_w[3], n_heads)  # (1, d_model), (h, 1, L_k)
    rows.append(out_t)
    shapes.append([t + 1, str(self_cache.k[:, : self_cache.length].shape), str(source_kv[0].shape), str(w_t.shape)])
stepwise = np.vstack(rows)  # (L_q, d_model)
# --8<-- [end:decode]

h, _ = multi_head_attention(tgt, *dec_w, n_heads, mask=causal_mask(l_q))  # (L_q, d_model)
whole, _ = cross_attention(h, source_kv, cross_w[0], cross_w[3], n_heads)  # (L_q, d_model)
table("steps", ["step", "self-attention keys (h, t, d_head)", "source keys (h, L_k, d_head)",
                "cross weights (h, 1, L_k)"], shapes)
value("l_q", l_q)
value("l_k", l_k)
value("max_error", np.abs(stepwise - whole).max(), "{:.1e}")
value("projections_once", 2 * l_k * d_model * d_model)
value("projections_every_step", l_q * 2 * l_k * d_model * d_model)
value("d_model", d_model)
