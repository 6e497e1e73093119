"""lib.sparse against loop oracles written from the definitions (the indexer's equation 1 of the DeepSeek-V3.2-Exp
report, top-k after the mask, blocks and their keys, the three-branch gated sum), Hypothesis properties of the
selection, its errors, and the two bugs failing the checks that guard against them."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from lib.attention import causal_mask, scaled_dot_product_attention, sliding_window_mask
from lib.sparse import (
    blocks_to_keys,
    buggy_blocks_to_keys_shifted,
    buggy_top_k_before_mask,
    complete_blocks,
    compress_blocks,
    index_scores,
    select_blocks,
    sparse_attention,
    three_branch_attention,
    top_k_selection,
    weight_share,
)
from support import oracle_attention

rng = np.random.default_rng(46)


# ------------------------------------------------------------------ the oracles: loops written from the definitions
def index_oracle(q_index, w_index, k_index):
    """I[t][s] = sum_j w[t][j] * max(0, sum_c q[t][j][c] * k[s][c])."""
    return [
        [
            sum(
                w_index[t][j] * max(0.0, sum(a * b for a, b in zip(q_index[t][j], k_index[s])))
                for j in range(len(w_index[t]))
            )
            for s in range(len(k_index))
        ]
        for t in range(len(q_index))
    ]


def top_k_oracle(scores, k, allowed):
    """For each row: the allowed keys sorted by score, highest first, ties to the earlier key; the first k."""
    out = []
    for row, ok in zip(scores, allowed):
        candidates = sorted((s for s in range(len(row)) if ok[s]), key=lambda s: (-row[s], s))
        chosen = set(candidates[:k])
        out.append([s in chosen for s in range(len(row))])
    return out


def block_keys_oracle(blocks, block_size):
    """Key j is read by query i when the block holding j (j // block_size) is selected and j <= i."""
    n = len(blocks)
    return [[bool(blocks[i][j // block_size]) and j <= i for j in range(len(blocks[0]) * block_size)] for i in range(n)]


def select_blocks_oracle(q, k, block_size, n_selected):
    """Block means by loops, the scores of the complete blocks, the n best, and the query's own block."""
    n, d = len(k), len(k[0])
    n_blocks = n // block_size
    means = [
        [sum(k[b * block_size + r][c] for r in range(block_size)) / block_size for c in range(d)]
        for b in range(n_blocks)
    ]
    out = []
    for i, query in enumerate(q):
        complete = [b for b in range(n_blocks) if (b + 1) * block_size - 1 <= i]
        score = {b: sum(x * y for x, y in zip(query, means[b])) / math.sqrt(d) for b in complete}
        chosen = set(sorted(complete, key=lambda b: (-score[b], b))[:n_selected]) | {i // block_size}
        out.append([b in chosen for b in range(n_blocks)])
    return out


def no_future_key(selected):
    """The check the first bug fails: no query selects a key after itself."""
    return not np.any(np.asarray(selected) & ~causal_mask(len(selected)))


def keys_inside_blocks(keys, blocks, block_size):
    """The check the second bug fails: every key read belongs to a selected block."""
    return np.array_equal(np.asarray(keys), np.array(block_keys_oracle(np.asarray(blocks).tolist(), block_size)))


# ------------------------------------------------------------------ the indexer
def test_index_scores_match_the_loop_oracle():
    lq, lk, heads, d = 5, 7, 3, 4
    q_index, w_index, k_index = rng.normal(size=(lq, heads, d)), rng.normal(size=(lq, heads)), rng.normal(size=(lk, d))
    expected = np.array(index_oracle(q_index.tolist(), w_index.tolist(), k_index.tolist()))
    np.testing.assert_allclose(index_scores(q_index, w_index, k_index), expected, rtol=1e-12, atol=1e-12)


def test_a_negative_dot_product_adds_nothing():
    q_index = np.array([[[1.0, 0.0]]])  # one query, one head
    k_index = np.array([[-2.0, 5.0], [3.0, 1.0]])
    assert index_scores(q_index, np.array([[2.0]]), k_index).tolist() == [[0.0, 6.0]]


@pytest.mark.parametrize(
    ("shapes", "message"),
    [
        (((4, 2, 3), (4, 3), (5, 3)), "w_index has shape"),
        (((4, 2, 3), (4, 2), (5, 2)), "k_index has width"),
        (((4, 3), (4, 2), (5, 3)), "q_index must have 3 axes"),
    ],
)
def test_index_scores_name_a_bad_shape(shapes, message):
    with pytest.raises(ValueError, match=message):
        index_scores(*(np.zeros(s) for s in shapes))


# ------------------------------------------------------------------ top-k selection
def test_top_k_matches_the_loop_oracle_with_ties():
    scores = rng.integers(0, 3, size=(9, 9)).astype(float)  # many ties
    allowed = causal_mask(9)
    for k in (1, 2, 4, 9, 20):
        expected = top_k_oracle(scores.tolist(), k, allowed.tolist())
        assert top_k_selection(scores, k, allowed).tolist() == expected


@given(st.integers(1, 12), st.integers(1, 15), st.integers(0, 2**32 - 1))
def test_top_k_keeps_min_k_allowed_keys_and_never_a_forbidden_one(n, k, seed):
    r = np.random.default_rng(seed)
    scores = r.normal(scale=5, size=(n, n))
    allowed = r.random((n, n)) < 0.6
    selected = top_k_selection(scores, k, allowed)
    assert not np.any(selected & ~allowed)
    assert selected.sum(axis=1).tolist() == np.minimum(allowed.sum(axis=1), k).tolist()
    kept = np.where(selected, scores, np.inf).min(axis=1)  # the weakest kept score of each row
    dropped = np.where(allowed & ~selected, scores, -np.inf).max(axis=1)  # the best dropped one
    assert np.all(kept >= dropped)


@given(st.integers(1, 10), st.integers(0, 2**32 - 1))
def test_k_covering_every_key_is_full_causal_attention_exactly(n, seed):
    r = np.random.default_rng(seed)
    q, k, v = r.normal(size=(3, n, 4))
    allowed = causal_mask(n)
    selected = top_k_selection(r.normal(size=(n, n)), n, allowed)
    assert np.array_equal(selected, allowed)
    out, weights = sparse_attention(q, k, v, selected)
    full, full_weights = scaled_dot_product_attention(q, k, v, allowed)
    assert np.array_equal(out, full) and np.array_equal(weights, full_weights)


def test_sparse_attention_matches_the_loop_oracle_on_its_selection():
    n = 8
    q, k, v = rng.normal(size=(3, n, 4))
    selected = top_k_selection(q @ k.T, 3, causal_mask(n))
    out, weights = sparse_attention(q, k, v, selected)
    o_out, o_weights = oracle_attention(q.tolist(), k.tolist(), v.tolist(), selected.tolist())
    np.testing.assert_allclose(out, o_out, atol=1e-12)
    np.testing.assert_allclose(weights, o_weights, atol=1e-12)


def test_weight_share_is_the_sum_of_the_kept_weights():
    weights = np.array([[0.5, 0.3, 0.2]])
    assert weight_share(weights, np.array([[True, False, True]])).tolist() == [0.7]


def test_top_k_names_bad_input():
    with pytest.raises(ValueError, match="k must be a whole number"):
        top_k_selection(np.zeros((2, 2)), 0, causal_mask(2))
    with pytest.raises(ValueError, match="allowed must be a boolean mask"):
        top_k_selection(np.zeros((2, 2)), 1, np.ones((2, 3), dtype=bool))


# ------------------------------------------------------------------ blocks
def test_blocks_and_their_keys_match_the_loop_oracles():
    n, d, block_size = 24, 4, 4
    q, k = rng.normal(size=(2, n, d))
    for n_selected in (1, 2, 6):
        blocks = select_blocks(q, k, block_size, n_selected)
        assert blocks.tolist() == select_blocks_oracle(q.tolist(), k.tolist(), block_size, n_selected)
        assert blocks_to_keys(blocks, block_size).tolist() == block_keys_oracle(blocks.tolist(), block_size)


def test_compressed_blocks_are_the_block_means_and_only_complete_blocks_count():
    x = np.arange(12.0).reshape(6, 2)
    assert compress_blocks(x, 3).tolist() == [[2.0, 3.0], [8.0, 9.0]]
    assert complete_blocks(6, 3).tolist() == [[False, False]] * 2 + [[True, False]] * 3 + [[True, True]]


@given(st.integers(1, 4), st.integers(1, 5), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_block_selection_never_reads_a_later_key(block_size, n_blocks, n_selected, seed):
    r = np.random.default_rng(seed)
    n = block_size * n_blocks
    q, k = r.normal(size=(2, n, 3))
    keys = blocks_to_keys(select_blocks(q, k, block_size, n_selected), block_size)
    assert no_future_key(keys)
    assert np.all(keys[np.arange(n), np.arange(n)])  # a query always reads itself (its own block)


def test_three_branches_match_their_loop_oracles_and_sum_with_their_gates():
    n, d, block_size, n_selected, window = 16, 4, 4, 1, 3
    q, k, v = rng.normal(size=(3, n, d))
    gates = np.array([0.3, 0.9, 0.4])
    out, masks = three_branch_attention(q, k, v, block_size, n_selected, window, gates)
    means_k = compress_blocks(k, block_size).tolist()
    means_v = compress_blocks(v, block_size).tolist()
    complete = [[(b + 1) * block_size - 1 <= i for b in range(n // block_size)] for i in range(n)]
    o_cmp, _ = oracle_attention(q.tolist(), means_k, means_v, complete)
    blocks = select_blocks_oracle(q.tolist(), k.tolist(), block_size, n_selected)
    o_sel, _ = oracle_attention(q.tolist(), k.tolist(), v.tolist(), block_keys_oracle(blocks, block_size))
    o_win, _ = oracle_attention(
        q.tolist(), k.tolist(), v.tolist(), [[i - window < j <= i for j in range(n)] for i in range(n)]
    )
    expected = 0.3 * np.array(o_cmp) + 0.9 * np.array(o_sel) + 0.4 * np.array(o_win)
    np.testing.assert_allclose(out, expected, atol=1e-12)
    assert np.array_equal(masks["window"], sliding_window_mask(n, window))


def test_every_block_selected_is_full_causal_attention_exactly():
    n, block_size = 32, 8
    q, k, v = rng.normal(size=(3, n, 4))
    out, masks = three_branch_attention(q, k, v, block_size, n // block_size, 4, [0.0, 1.0, 0.0])
    full, _ = scaled_dot_product_attention(q, k, v, causal_mask(n))
    assert np.array_equal(masks["selected"], causal_mask(n))
    assert np.array_equal(out, full)


def test_blocks_name_bad_input():
    q = np.zeros((10, 2))
    with pytest.raises(ValueError, match="must be a multiple of block_size"):
        select_blocks(q, q, 4, 1)
    with pytest.raises(ValueError, match="block_size must be a whole number"):
        compress_blocks(q, 0)
    with pytest.raises(ValueError, match="gates must be three numbers in"):
        three_branch_attention(q, q, q, 5, 1, 2, [0.5, 1.5, 0.0])


# ------------------------------------------------------------------ the two bugs fail their checks
def test_top_k_before_the_mask_selects_a_later_key():
    n = 8
    scores = rng.normal(size=(n, n))
    assert no_future_key(top_k_selection(scores, 3, causal_mask(n)))
    assert not no_future_key(buggy_top_k_before_mask(scores, 3, causal_mask(n)))


def test_the_block_index_shifted_by_one_reads_keys_outside_the_chosen_blocks():
    n, block_size = 32, 4
    q, k = rng.normal(size=(2, n, 4))
    blocks = select_blocks(q, k, block_size, 2)
    assert keys_inside_blocks(blocks_to_keys(blocks, block_size), blocks, block_size)
    shifted = buggy_blocks_to_keys_shifted(blocks, block_size)
    assert not keys_inside_blocks(shifted, blocks, block_size)
    assert no_future_key(shifted)  # a causality test alone does not see this bug
