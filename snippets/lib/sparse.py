"""Reading fewer keys: a lightning-indexer-style scorer with top-k selection, and block selection with three branches.

- **Token selection** (DeepSeek Sparse Attention, DeepSeek-V3.2-Exp report, section 1, eq. 1 and 2): a small
  indexer scores every earlier key, I[t, s] = sum_j w[t, j] * ReLU(q[t, j] . k[s]), and query t attends only to
  the k keys with the largest scores.
- **Block selection** (in the spirit of Native Sparse Attention, Yuan et al. 2025): keys are cut into blocks of
  ``block_size``; a block's compressed key is the mean of its keys (NSA learns this map; the mean is the simplest
  stand-in); a query scores the complete blocks before it, reads the ``n_selected`` best whole, plus its own block,
  and the output is a gated sum of a compressed branch, a selected branch and a sliding-window branch.

Every selection is a boolean mask (True = may attend), so the attention itself is the core's
``scaled_dot_product_attention``. The two ``buggy_`` functions are mistakes kept for the chapter and its tests only.
"""

import numpy as np

from lib.attention import causal_mask, check_whole_number, scaled_dot_product_attention, sliding_window_mask


def _as_float(name, x, ndim):
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} axes, got shape {x.shape}")
    return x


# --8<-- [start:indexer]
def index_scores(q_index, w_index, k_index):
    """I[t, s] = sum_j w[t, j] * ReLU(q[t, j] . k[s]): the indexer's score of key s for query t.

    q_index (Lq, H_I, d_I): one small query per indexer head; w_index (Lq, H_I): one weight per head, from the
    query token too; k_index (Lk, d_I): one key per token, shared by the heads. Returns (Lq, Lk).
    """
    q_index = _as_float("q_index", q_index, 3)
    w_index = _as_float("w_index", w_index, 2)
    k_index = _as_float("k_index", k_index, 2)
    if w_index.shape != q_index.shape[:2]:
        raise ValueError(f"w_index has shape {w_index.shape}, expected (Lq, H_I) = {q_index.shape[:2]}")
    if k_index.shape[1] != q_index.shape[2]:
        raise ValueError(f"k_index has width {k_index.shape[1]}, the indexer queries have width {q_index.shape[2]}")
    dots = np.einsum("thd,sd->ths", q_index, k_index)  # (Lq, H_I, Lk): q[t, j] . k[s]
    return np.einsum("th,ths->ts", w_index, np.maximum(dots, 0.0))  # (Lq, Lk): the weighted sum over heads
# --8<-- [end:indexer]


def _ranks(scores):
    """Each entry's rank in its row, 0 for the largest; ties go to the earlier key (a stable sort)."""
    order = np.argsort(-scores, axis=-1, kind="stable")  # (Lq, Lk): key indices, best first
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(scores.shape[-1])[None, :].repeat(scores.shape[0], 0), axis=-1)
    return ranks  # (Lq, Lk)


def _check_selection_input(scores, k, allowed):
    scores = _as_float("scores", scores, 2)
    k = check_whole_number(k, "k", "keys")
    allowed = np.asarray(allowed)
    if allowed.dtype != bool or allowed.shape != scores.shape:
        raise ValueError(f"allowed must be a boolean mask of the scores' shape {scores.shape}, "
                         f"got {allowed.dtype} {allowed.shape}")
    return scores, k, allowed


# --8<-- [start:top-k]
def top_k_selection(scores, k, allowed):
    """(Lq, Lk) boolean: for each query, the ``k`` allowed keys with the largest scores (all of them if fewer).

    The mask comes first: a key the query may not see is out of the race before the top k are taken.
    """
    scores, k, allowed = _check_selection_input(scores, k, allowed)
    ranks = _ranks(np.where(allowed, scores, -np.inf))  # (Lq, Lk): forbidden keys rank last
    return (ranks < k) & allowed  # (Lq, Lk)


def sparse_attention(q, k, v, selected):
    """Attention that reads only the selected keys: the core's attention with the selection as its mask."""
    return scaled_dot_product_attention(q, k, v, selected)
# --8<-- [end:top-k]


# --8<-- [start:bug-future]
def buggy_top_k_before_mask(scores, k, allowed):
    """THE BUG, for the lesson and its test only: the top k taken over every key, the mask never applied.

    A future key with a high score is selected, and the query reads it.
    """
    scores, k, _ = _check_selection_input(scores, k, allowed)
    return _ranks(scores) < k  # (Lq, Lk): ``allowed`` is ignored
# --8<-- [end:bug-future]


def _check_blocks(n, block_size):
    block_size = check_whole_number(block_size, "block_size", "keys")
    if n % block_size:
        raise ValueError(f"the length {n} must be a multiple of block_size {block_size}")
    return block_size, n // block_size


# --8<-- [start:blocks]
def compress_blocks(x, block_size):
    """Each block's mean: (L, d) keys or values -> (L / block_size, d), one compressed row per block."""
    x = _as_float("x", x, 2)
    block_size, n_blocks = _check_blocks(x.shape[0], block_size)
    return x.reshape(n_blocks, block_size, x.shape[1]).mean(axis=1)  # (n_blocks, d)


def complete_blocks(n, block_size):
    """(n, n_blocks) boolean: block b is complete for query i when its last key is at or before i."""
    block_size, n_blocks = _check_blocks(n, block_size)
    last_key = (np.arange(n_blocks) + 1) * block_size - 1  # (n_blocks,)
    return last_key[None, :] <= np.arange(n)[:, None]  # (n, n_blocks)


def select_blocks(q, k, block_size, n_selected):
    """(Lq, n_blocks) boolean: each query's own block, plus the ``n_selected`` complete blocks whose
    compressed key scores highest against the query (fewer if fewer are complete)."""
    q, k = _as_float("q", q, 2), _as_float("k", k, 2)
    block_size, n_blocks = _check_blocks(k.shape[0], block_size)
    scores = q @ compress_blocks(k, block_size).T / np.sqrt(q.shape[1])  # (Lq, n_blocks)
    chosen = top_k_selection(scores, n_selected, complete_blocks(k.shape[0], block_size))
    own = np.arange(q.shape[0]) // block_size  # (Lq,): the block each query sits in
    chosen[np.arange(q.shape[0]), own] = True
    return chosen  # (Lq, n_blocks)


def blocks_to_keys(blocks, block_size):
    """(Lq, n_blocks) selected blocks -> (Lq, Lk) selected keys: key j when its block j // block_size is
    selected, and j <= i (the query's own block is read only up to the query)."""
    blocks = np.asarray(blocks, dtype=bool)
    block_size = check_whole_number(block_size, "block_size", "keys")
    n = blocks.shape[0]
    block_of_key = np.arange(blocks.shape[1] * block_size) // block_size  # (Lk,)
    return blocks[:, block_of_key] & causal_mask(n)  # (Lq, Lk)
# --8<-- [end:blocks]


# --8<-- [start:bug-shift]
def buggy_blocks_to_keys_shifted(blocks, block_size):
    """THE BUG, for the lesson and its test only: block b's keys taken from b + 1 (an index off by one block).

    The causal mask still applies, so nothing from the future leaks: the query silently reads the wrong keys.
    """
    blocks = np.asarray(blocks, dtype=bool)
    n = blocks.shape[0]
    block_of_key = np.arange(blocks.shape[1] * block_size) // block_size - 1  # (Lk,): one block too early
    shifted = np.where(block_of_key >= 0, blocks[:, np.maximum(block_of_key, 0)], False)  # (Lq, Lk)
    return shifted & causal_mask(n)
# --8<-- [end:bug-shift]


# --8<-- [start:three-branches]
def three_branch_attention(q, k, v, block_size, n_selected, window, gates):
    """o_t = g_cmp * Attn(compressed blocks) + g_sel * Attn(selected blocks) + g_win * Attn(last ``window`` keys).

    q, k, v (L, d); ``gates`` three numbers in [0, 1] (NSA computes them per query with a learned MLP and a
    sigmoid; here they are given). Returns the output (L, d_v) and each branch's mask, for counting keys read.
    """
    q, k, v = _as_float("q", q, 2), _as_float("k", k, 2), _as_float("v", v, 2)
    gates = np.asarray(gates, dtype=np.float64)
    if gates.shape != (3,) or np.any(gates < 0) or np.any(gates > 1):
        raise ValueError(f"gates must be three numbers in [0, 1], got {gates.tolist()}")
    n = k.shape[0]
    complete = complete_blocks(n, block_size)  # (L, n_blocks): the compressed keys a query may read
    out_cmp, _ = scaled_dot_product_attention(q, compress_blocks(k, block_size), compress_blocks(v, block_size),
                                              complete)  # (L, d_v); a query with no complete block gets 0
    selected = blocks_to_keys(select_blocks(q, k, block_size, n_selected), block_size)  # (L, L)
    out_sel, _ = scaled_dot_product_attention(q, k, v, selected)  # (L, d_v)
    local = sliding_window_mask(n, window)  # (L, L)
    out_win, _ = scaled_dot_product_attention(q, k, v, local)  # (L, d_v)
    output = gates[0] * out_cmp + gates[1] * out_sel + gates[2] * out_win  # (L, d_v)
    return output, {"compressed": complete, "selected": selected, "window": local}
# --8<-- [end:three-branches]


def weight_share(weights, selected):
    """The share of each query's full-attention weight that falls on its selected keys: (Lq,)."""
    return np.where(selected, weights, 0.0).sum(axis=-1)
