"""A rolling-buffer KV cache for sliding-window attention, and decoding with it one chunk at a time.

Under a window of W keys, query i needs only the keys of positions i - W + 1 .. i. A decoder can therefore keep
the keys and values of the last W positions in a ring of W slots (position p goes to slot p % W) and overwrite the
oldest one, so the cache never grows. A chunk of c new positions (a prompt prefilled at once, or c = 1 when
generating) attends to the cached positions *and* the chunk's own keys, under the rows of the window mask for
those positions; only then is the chunk written into the ring.

With ``sinks`` = n, the cache also keeps the first n positions for good (StreamingLLM's "attention sinks", Xiao et
al. 2023): they hold n of the ``window`` slots, the ring the other window - n, and a query sees those first n keys
and the last window - n positions.

``attend_chunk_trimmed_first`` is the bug this order prevents, kept for the chapter and its test only: it writes
the chunk into the ring first and attends to what the ring holds afterwards. With c = 1 that is the same thing;
with c > 1 the write overwrites keys that the chunk's earlier queries still need.
"""

import numpy as np

from lib.attention import (
    check_whole_number,
    merge_heads,
    scaled_dot_product_attention,
    sliding_window_mask,
    split_heads,
)


# --8<-- [start:cache]
class RollingKVCache:
    """Keys and values of the last ``window`` positions: a ring of ``window`` slots, each (h, d_head) wide.

    ``dtype`` is a floating-point type (float64, float32 or float16): keys and values are real numbers.
    ``sinks`` first positions are kept for good in slots 0 .. sinks - 1; the ring is the other window - sinks slots.
    """

    def __init__(self, n_heads, d_head, window, dtype=np.float64, sinks=0):
        self.window = check_whole_number(window, "the window", "keys")
        self.sinks = check_whole_number(sinks, "sinks", "positions", least=0)
        if self.sinks >= self.window:
            raise ValueError(f"sinks ({sinks}) must leave the ring at least one of the window's {window} slots")
        if not np.issubdtype(dtype, np.floating):
            raise ValueError(f"dtype must be a floating-point type (float64, float32 or float16), "
                             f"got {np.dtype(dtype).name}")
        self.k = np.zeros((n_heads, window, d_head), dtype=dtype)  # (h, W, d_head)
        self.v = np.zeros((n_heads, window, d_head), dtype=dtype)  # (h, W, d_head)
        self.positions = np.full(window, -1)  # (W,): the position each slot holds, -1 while empty
        self.length = 0  # positions written so far

    def write(self, k_new, v_new):
        """Store a chunk's keys and values, each (h, c, d_head); slot p % W keeps position p, the newest wins."""
        if k_new.shape != v_new.shape or k_new.shape[::2] != self.k.shape[::2]:
            raise ValueError(f"keys {k_new.shape} and values {v_new.shape} must both be (h, c, d_head) = "
                             f"({self.k.shape[0]}, c, {self.k.shape[2]})")
        for offset in range(k_new.shape[1]):
            position = self.length + offset
            ring = self.window - self.sinks
            slot = position if position < self.sinks else self.sinks + (position - self.sinks) % ring
            self.k[:, slot], self.v[:, slot] = k_new[:, offset], v_new[:, offset]
            self.positions[slot] = position
        self.length += k_new.shape[1]

    def held(self):
        """The filled slots: keys (h, n, d_head), values (h, n, d_head) and their positions (n,), n <= W."""
        filled = self.positions >= 0  # (W,)
        return self.k[:, filled], self.v[:, filled], self.positions[filled]

    @property
    def nbytes(self):
        return self.k.nbytes + self.v.nbytes
# --8<-- [end:cache]


def _window_rows(query_positions, key_positions, window):
    """The rows of the (n, n) window mask for these queries, its columns for these keys: (c, n_keys)."""
    n = int(np.max(np.concatenate([query_positions, key_positions]), initial=0)) + 1  # 1 if there are none
    return sliding_window_mask(n, window)[np.ix_(query_positions, key_positions)]  # (c, n_keys)


# --8<-- [start:attend]
def attend_chunk(q, k, v, cache):
    """A chunk's attention: q, k, v (h, c, d_head) for positions length .. length + c - 1 -> (h, c, d_head).

    Attend first, to the cached keys and the chunk's own, then store the chunk. An empty chunk (c = 0) gives an
    empty (h, 0, d_head) output and leaves the cache as it was.
    """
    positions = cache.length + np.arange(q.shape[1])  # (c,)
    k_old, v_old, held = cache.held()  # (h, n, d_head), (h, n, d_head), (n,)
    k_all = np.concatenate([k_old, k], axis=1)  # (h, n + c, d_head)
    v_all = np.concatenate([v_old, v], axis=1)  # (h, n + c, d_head)
    keys = np.concatenate([held, positions])  # (n + c,)
    mask = _window_rows(positions, keys, cache.window - cache.sinks)  # (c, n + c): the recent keys
    mask |= (keys < cache.sinks) & (keys[None, :] <= positions[:, None])  # and the kept first ones, never the future
    heads, _ = scaled_dot_product_attention(q, k_all, v_all, mask)  # (h, c, d_head)
    cache.write(k, v)
    return heads


def attend_chunk_trimmed_first(q, k, v, cache):
    """THE BUG, for the lesson and its test only: store the chunk (trimming the cache to the window), then attend."""
    positions = cache.length + np.arange(q.shape[1])  # (c,)
    cache.write(k, v)
    k_all, v_all, held = cache.held()  # (h, n, d_head): the chunk's first keys may be gone already
    mask = _window_rows(positions, held, cache.window)  # (c, n)
    heads, _ = scaled_dot_product_attention(q, k_all, v_all, mask)  # (h, c, d_head)
    return heads
# --8<-- [end:attend]


# --8<-- [start:decode]
def decode_in_chunks(x, w_q, w_k, w_v, w_o, n_heads, window, chunk, attend=attend_chunk, sinks=0):
    """Run one multi-head sliding-window layer over x (L, d_model), ``chunk`` positions per call -> (L, d_model).

    The first call takes ``chunk`` positions (a prefill), every later call too; the last may be shorter.
    An empty x (L = 0) gives an empty (0, d_model) output and an empty cache.
    """
    check_whole_number(chunk, "chunk", "positions")
    length, d_model = x.shape
    cache = RollingKVCache(n_heads, d_model // n_heads, window, sinks=sinks)
    outputs = []
    for start in range(0, length, chunk):
        x_c = x[start : start + chunk]  # (c, d_model)
        q = split_heads(x_c @ w_q, n_heads)  # (h, c, d_head)
        k = split_heads(x_c @ w_k, n_heads)  # (h, c, d_head)
        v = split_heads(x_c @ w_v, n_heads)  # (h, c, d_head)
        outputs.append(merge_heads(attend(q, k, v, cache)) @ w_o)  # (c, d_model)
    return np.vstack([np.empty((0, w_o.shape[1])), *outputs]), cache  # (L, d_model), (0, d_model) if L = 0
# --8<-- [end:decode]
