"""The kv-heads chapter's exercises: each answer, and the result of each usual mistake made in code.

1. The key/value head query head 23 of Llama 3 8B's 32 reads (8 key/value heads), found as groups.py does, by
   matching its weights; mistakes: the heads tiled instead of repeated (groups interleaved), the group index
   taken as i // h_kv instead of i // (h / h_kv), and the head's index from 0 given instead of its number.
2. The shape of the keys grouped_query_attention receives in mean_pool.py's grouped layer with 2 key/value heads;
   mistakes: the head split without the transpose, and as many key heads as query heads.
3. Llama 3 8B's KV cache for one sequence of 8,192 tokens in float16, in MiB, from the arrays of lib.kv_decoder's
   KVCache; mistakes: the keys alone, a key/value head per query head, float32.
4. The numbers DeepSeek-V2's latent cache holds per token over all 60 layers; mistakes: the rotary key left out,
   a rotary key per head, the latent counted once for the keys and once for the values.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, grouped_query_attention, scaled_dot_product_attention, split_heads
from lib.exercises import exercise
from lib.kv_decoder import KVCache
from lib.publish import value

# 1. Llama 3 8B's heads (the configs table): 32 query heads, 8 key/value heads; random q, k, v for 4 positions
rng = np.random.default_rng(8)
L, n_heads, h_kv, d_head = 4, 32, 8, 4
q = rng.normal(size=(n_heads, L, d_head))  # (h, L, d_head)
k, v = rng.normal(size=(2, h_kv, L, d_head))  # (h_kv, L, d_head) each
mask = causal_mask(L)  # (L, L)
query = 22  # query head 23, counted from 1 as in the groups table
group = n_heads // h_kv  # query heads per key/value head


def kv_head_read(weights_of_query):
    """The index (from 0) of the key/value head whose keys give query head 23 these weights."""
    return next(j for j in range(h_kv)
                if np.array_equal(scaled_dot_product_attention(q[query], k[j], v[j], mask)[1], weights_of_query))


_, weights = grouped_query_attention(q, k, v, mask)  # (h, L, L)
_, tiled = scaled_dot_product_attention(q, np.tile(k, (group, 1, 1)), np.tile(v, (group, 1, 1)), mask)  # interleaved
_, by_h_kv = scaled_dot_product_attention(q[query], k[query // h_kv], v[query // h_kv], mask)  # i // h_kv
exercise("kv_head_of_query_23", kv_head_read(weights[query]) + 1, "{}",
         {"interleaved_groups": kv_head_read(tiled[query]) + 1, "divided_by_kv_heads": kv_head_read(by_h_kv) + 1,
          "counted_from_zero": kv_head_read(weights[query])})
value("heads_query", query + 1)
value("heads_query_heads", n_heads)
value("heads_kv_heads", h_kv)
value("heads_query_index", query)
value("heads_group", group)
value("heads_kv_index", kv_head_read(weights[query]))

# 2. mean_pool.py's sizes: the keys of the grouped layer with 2 key/value heads
L, d_model, n_heads, h_kv = 16, 64, 8, 2
d_head = d_model // n_heads
x = np.random.default_rng(3).normal(size=(L, d_model))  # (L, d_model)
w_k_pooled = np.zeros((d_model, h_kv * d_head))  # (d_model, h_kv * d_head): mean_pool's output shape
keys = split_heads(x @ w_k_pooled, h_kv)  # (h_kv, L, d_head)
keys_no_transpose = (x @ w_k_pooled).reshape(L, h_kv, d_head)  # (L, h_kv, d_head): the split without transpose
keys_every_head = split_heads(x @ np.zeros((d_model, d_model)), n_heads)  # (h, L, d_head): W_k not pooled
exercise("pooled_keys_shape", keys.shape, "{}",
         {"split_without_transpose": keys_no_transpose.shape, "query_heads": keys_every_head.shape})
value("pool_length", L)
value("pool_d_model", d_model)
value("pool_query_heads", n_heads)
value("pool_kv_heads", h_kv)
value("pool_d_head", d_head)
value("pool_projection_shape", w_k_pooled.shape)

# 3. Llama 3 8B (the configs table): 32 layers, 32 query heads, 8 key/value heads, d_head 128; 8,192 tokens
layers, h, h_kv, d_head, tokens = 32, 32, 8, 128, 8192
MiB = 1024**2


def context_mib(cache, part=lambda c: c.nbytes):
    """MiB of one sequence: ``part`` of one layer's cache for every position, times the layers."""
    return part(cache) * layers // MiB


exercise("llama3_8b_context_mib", context_mib(KVCache(h_kv, d_head, tokens, np.float16)), "{}",
         {"keys_only": context_mib(KVCache(h_kv, d_head, tokens, np.float16), lambda c: c.k.nbytes),
          "query_heads": context_mib(KVCache(h, d_head, tokens, np.float16)),
          "float32": context_mib(KVCache(h_kv, d_head, tokens, np.float32))})
value("llama3_tokens", tokens, "{:,}")
value("llama3_layers", layers)
value("llama3_d_head", d_head)
value("llama3_bytes_per_position_layer", KVCache(h_kv, d_head, 1, np.float16).nbytes, "{:,}")
value("llama3_bytes_per_layer_mib", KVCache(h_kv, d_head, tokens, np.float16).nbytes // MiB)

# 4. DeepSeek-V2 (the configs table): 60 layers, 128 heads, latent d_c = 512, rotary key d_h^R = 64
layers, h, d_c, d_rope = 60, 128, 512, 64
latent, rotary_key = np.zeros((1, d_c)), np.zeros((1, d_rope))  # one position's latent and rotary key, one layer
rotary_key_per_head = np.zeros((h, 1, d_rope))  # (h, 1, d_rope): a rotary key for every head
exercise("deepseek_numbers_per_token", layers * (latent.size + rotary_key.size), "{}",
         {"no_rotary_key": layers * latent.size,
          "rotary_key_per_head": layers * (latent.size + rotary_key_per_head.size),
          "latent_twice": layers * (2 * latent.size + rotary_key.size)})
value("deepseek_layers", layers)
value("deepseek_latent", d_c)
value("deepseek_rotary_key", d_rope)
value("deepseek_heads", h)
