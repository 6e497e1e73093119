"""One multi-head causal attention layer, run one token at a time, with and without a KV cache.

A decoder generates a sequence one position at a time. At step t it has a new
input row x_t and needs the layer's output for that row. Without a cache it
reruns the layer on the whole prefix x_1..x_t and keeps the last row. With a
cache it keeps the keys and values of earlier positions, computes q, k, v for
x_t only, and attends from that one query to every cached key.
"""

import numpy as np

from lib.attention import causal_mask, merge_heads, multi_head_attention, scaled_dot_product_attention, split_heads


# --8<-- [start:cache]
class KVCache:
    """Keys and values of the positions seen so far, preallocated for max_len positions."""

    def __init__(self, n_heads, d_head, max_len, dtype=np.float64):
        self.k = np.zeros((n_heads, max_len, d_head), dtype=dtype)  # (h, max_len, d_head)
        self.v = np.zeros((n_heads, max_len, d_head), dtype=dtype)  # (h, max_len, d_head)
        self.length = 0

    def append(self, k_t, v_t):
        """Store one position's keys and values, each (h, 1, d_head)."""
        self.k[:, self.length] = k_t[:, 0]
        self.v[:, self.length] = v_t[:, 0]
        self.length += 1

    @property
    def nbytes(self):
        return self.k.nbytes + self.v.nbytes
# --8<-- [end:cache]


# --8<-- [start:steps]
def step_with_cache(x_t, cache, w_q, w_k, w_v, w_o, n_heads):
    """Output row for the newest position x_t (1, d_model); q, k, v only for that row."""
    q_t = split_heads(x_t @ w_q, n_heads)  # (h, 1, d_head)
    k_t = split_heads(x_t @ w_k, n_heads)  # (h, 1, d_head)
    v_t = split_heads(x_t @ w_v, n_heads)  # (h, 1, d_head)
    cache.append(k_t, v_t)
    k = cache.k[:, : cache.length]  # (h, t, d_head): all positions so far, the new one included
    v = cache.v[:, : cache.length]  # (h, t, d_head)
    heads, weights = scaled_dot_product_attention(q_t, k, v)  # (h, 1, d_head), (h, 1, t); no mask
    return merge_heads(heads) @ w_o, weights  # (1, d_model), (h, 1, t)


def step_without_cache(prefix, w_q, w_k, w_v, w_o, n_heads):
    """Output row for the last position of prefix (t, d_model): rerun the whole causal layer."""
    mask = causal_mask(prefix.shape[0])  # (t, t)
    output, weights = multi_head_attention(prefix, w_q, w_k, w_v, w_o, n_heads, mask)  # (t, d), (h, t, t)
    return output[-1:], weights[:, -1:]  # (1, d_model), (h, 1, t)
# --8<-- [end:steps]


# --8<-- [start:count]
def macs_with_cache(t, d_model):
    """Multiply-adds of step t with a cache: 4 projections of one row, then 1 query against t keys."""
    projections = 4 * d_model * d_model  # x_t @ w_q, w_k, w_v and heads @ w_o: (1, d) @ (d, d)
    attention = 2 * t * d_model  # scores (h, 1, t) and weighted sum (h, 1, d_head), all heads
    return projections + attention


def macs_without_cache(t, d_model):
    """Multiply-adds of step t without a cache: the whole layer on t rows."""
    projections = 4 * t * d_model * d_model  # (t, d) @ (d, d), four times
    attention = 2 * t * t * d_model  # scores (h, t, t) and weighted sum (h, t, d_head), all heads
    return projections + attention
# --8<-- [end:count]
