"""Softmax and attention in one pass over blocks, keeping only a running max and a running sum.

The online softmax (Milakov and Gimelshein, 2018) reads the scores block by
block. It keeps the largest score seen so far, m, and the sum of exp(score - m)
so far, ℓ (ell in the code). When a block raises the max from m to m', everything summed so far
is rescaled by exp(m - m'). Tiled attention (the idea behind FlashAttention,
Dao et al., 2022) does the same for a whole tile of queries against a tile of
keys, and rescales a running weighted sum of values too, so the (L, L) matrix
of scores never exists at once.
"""

import numpy as np


# --8<-- [start:online_softmax]
def online_softmax(x, block):
    """softmax(x) of a 1-D x, read one block at a time. Returns (softmax, [(m, ell) after each block])."""
    m, ell = -np.inf, 0.0  # running max, running sum of exp(x - m)
    trace = []
    for start in range(0, len(x), block):
        chunk = x[start : start + block]
        m_new = max(m, np.max(chunk))
        ell = ell * np.exp(m - m_new) + np.sum(np.exp(chunk - m_new))  # rescale old sum, add new block
        m = m_new
        trace.append((m, ell))
    return np.exp(x - m) / ell, trace  # a second, cheap pass writes the outputs with the final m and ell
# --8<-- [end:online_softmax]


# --8<-- [start:tiled]
def tiled_attention(q, k, v, tile=64):
    """softmax(q k^T / sqrt(d_k)) v, one (tile x tile) block of scores at a time.

    q (..., Lq, d_k), k (..., Lk, d_k), v (..., Lk, d_v) -> (..., Lq, d_v). No mask.
    """
    lq, d_k = q.shape[-2:]
    output = np.empty(q.shape[:-1] + v.shape[-1:])  # (..., Lq, d_v)
    for i in range(0, lq, tile):
        q_i = q[..., i : i + tile, :]  # (..., Tq, d_k)
        m = np.full(q_i.shape[:-1], -np.inf)  # (..., Tq): running max of each query's scores
        ell = np.zeros(q_i.shape[:-1])  # (..., Tq): running sum of exp(score - m)
        acc = np.zeros(q_i.shape[:-1] + v.shape[-1:])  # (..., Tq, d_v): running sum of exp(score - m) v
        for j in range(0, k.shape[-2], tile):
            k_j, v_j = k[..., j : j + tile, :], v[..., j : j + tile, :]  # (..., Tk, d_k), (..., Tk, d_v)
            scores = q_i @ np.swapaxes(k_j, -1, -2) / np.sqrt(d_k)  # (..., Tq, Tk): the only scores
            m_new = np.maximum(m, scores.max(axis=-1))  # (..., Tq)
            p = np.exp(scores - m_new[..., None])  # (..., Tq, Tk)
            rescale = np.exp(m - m_new)  # (..., Tq): exp(-inf) = 0 on the first tile
            ell = ell * rescale + p.sum(axis=-1)
            acc = acc * rescale[..., None] + p @ v_j  # (..., Tq, d_v)
            m = m_new
        output[..., i : i + tile, :] = acc / ell[..., None]
    return output
# --8<-- [end:tiled]
