"""Hypothesis properties of the core module (1000 examples each, see conftest.py)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays

from lib.attention import causal_mask, scaled_dot_product_attention, sliding_window_mask, softmax

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
extreme = st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False) | st.just(-np.inf)


@st.composite
def qkv_and_mask(draw):
    lq, lk, d_k, d_v = (draw(st.integers(1, 6)) for _ in range(4))
    q = draw(arrays(np.float64, (lq, d_k), elements=finite))
    k = draw(arrays(np.float64, (lk, d_k), elements=finite))
    v = draw(arrays(np.float64, (lk, d_v), elements=finite))
    mask = draw(arrays(np.bool_, (lq, lk)))
    return q, k, v, mask


@given(qkv_and_mask())
@pytest.mark.claim(
    "Attention weights are non-negative and each row sums to 1 (0 for a fully masked row), over 1000 random cases",
    zh="在 1000 个随机用例中，注意力权重都非负，且每行之和为 1（全被掩码的行为 0）",
)
def test_weights_sum_to_one_or_zero_for_fully_masked_rows(case):
    q, k, v, mask = case
    _, weights = scaled_dot_product_attention(q, k, v, mask)
    expected = np.where(mask.any(axis=-1), 1.0, 0.0)
    np.testing.assert_allclose(weights.sum(axis=-1), expected, atol=1e-12)
    assert (weights >= 0).all()


@given(qkv_and_mask())
@pytest.mark.claim(
    "Masked positions get weight exactly 0, over 1000 random cases",
    zh="在 1000 个随机用例中，被掩码的位置得到的权重都恰好为 0",
)
def test_masked_weights_are_exactly_zero(case):
    q, k, v, mask = case
    output, weights = scaled_dot_product_attention(q, k, v, mask)
    assert (weights[~mask] == 0.0).all()
    assert (output[~mask.any(axis=-1)] == 0.0).all()


@given(arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 8)), elements=finite), st.floats(-1e6, 1e6))
@pytest.mark.claim(
    "Adding a constant to a row of scores leaves softmax unchanged, over 1000 random cases",
    zh="在 1000 个随机用例中，给一行分数加上同一个常数都不改变 softmax",
)
def test_adding_a_constant_to_a_row_of_scores_changes_nothing(scores, constant):
    shifted = scores + constant
    np.testing.assert_allclose(softmax(shifted), softmax(scores), atol=1e-9)


@given(qkv_and_mask(), st.randoms(use_true_random=False))
@pytest.mark.claim(
    "Without positions or masks, permuting the sequence permutes the output the same way (equivariance), over 1000 "
    "random cases",
    zh="在 1000 个随机用例中，没有位置信息和掩码时，置换序列都会以同样方式置换输出（等变性）",
)
def test_permuting_the_sequence_permutes_the_output(case, random):
    q, k, v, _ = case
    n = min(len(q), len(k))
    x_q, x_k, x_v = q[:n], k[:n], v[:n]  # self-attention: one sequence gives queries, keys and values
    order = list(range(n))
    random.shuffle(order)
    output, weights = scaled_dot_product_attention(x_q, x_k, x_v)
    permuted, permuted_weights = scaled_dot_product_attention(x_q[order], x_k[order], x_v[order])
    np.testing.assert_allclose(permuted, output[order], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(permuted_weights, weights[order][:, order], rtol=1e-9, atol=1e-12)


@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 8)), elements=extreme))
@pytest.mark.claim(
    "Logits anywhere in ±1e300, or -inf, never produce NaN or inf in softmax, over 1000 random cases",
    zh="在 1000 个随机用例中，取值在 ±1e300 范围内或为 -inf 的 logits 从不使 softmax 产生 NaN 或 inf",
)
def test_extreme_logits_never_give_nan_or_inf(logits):
    weights = softmax(logits)
    assert np.isfinite(weights).all()
    sums = weights.sum(axis=-1)
    all_masked = np.isneginf(logits).all(axis=-1)
    np.testing.assert_allclose(sums, np.where(all_masked, 0.0, 1.0), atol=1e-12)


@given(qkv_and_mask(), st.floats(1e100, 1e150))
def test_huge_inputs_give_finite_attention(case, scale):
    q, k, v, mask = case
    output, weights = scaled_dot_product_attention(q * scale, k, v, mask)
    assert np.isfinite(weights).all() and np.isfinite(output).all()


@given(qkv_and_mask(), st.data())
@pytest.mark.claim(
    "A NaN in q or k gives NaN weights and a NaN output in exactly the rows that see it; a fully masked row still "
    "gives zeros, over 1000 random cases",
    zh="在 1000 个随机用例中，q 或 k 中的 NaN 恰好在看到它的那些行中产生 NaN 权重和 NaN 输出；全被掩码的行仍给出全零",
)
def test_nan_propagates_to_the_rows_that_see_it(case, data):
    q, k, v, mask = case
    q_nan = data.draw(arrays(np.bool_, q.shape))
    k_nan = data.draw(arrays(np.bool_, k.shape))
    q, k = np.where(q_nan, np.nan, q), np.where(k_nan, np.nan, k)
    output, weights = scaled_dot_product_attention(q, k, v, mask)
    # a score is NaN when its query or its key holds a NaN; a masked score never counts
    sees_nan = (mask & (q_nan.any(axis=-1)[:, None] | k_nan.any(axis=-1)[None, :])).any(axis=-1)  # (Lq,)
    blind = ~mask.any(axis=-1)  # (Lq,): no visible key
    assert np.isnan(weights[sees_nan]).all() and np.isnan(output[sees_nan]).all()
    assert (weights[blind] == 0.0).all() and (output[blind] == 0.0).all()
    clean = ~sees_nan
    assert np.isfinite(weights[clean]).all() and np.isfinite(output[clean]).all()
    np.testing.assert_allclose(weights[clean].sum(axis=-1), np.where(blind[clean], 0.0, 1.0), atol=1e-12)


@pytest.mark.claim(
    "With no keys at all (k of shape (0, d)) attention returns empty weights and a zero output, like a fully masked "
    "row",
    zh="完全没有键时（k 的形状为 (0, d)），注意力返回空的权重和全零的输出，与全被掩码的行相同",
)
@pytest.mark.parametrize("lq", [0, 1, 3])
def test_an_empty_key_set_gives_a_zero_output(lq):
    q = np.ones((lq, 4))
    output, weights = scaled_dot_product_attention(q, np.empty((0, 4)), np.empty((0, 5)))
    assert weights.shape == (lq, 0) and output.shape == (lq, 5)
    assert (output == 0.0).all()
    assert softmax(np.empty((2, 0))).shape == (2, 0)


@given(st.integers(1, 40), st.integers(1, 50))
@pytest.mark.claim(
    "A sliding-window mask gives row i exactly min(i + 1, W) keys, all within the causal mask, and a "
    "wider window keeps every key a narrower one keeps, over 1000 random cases",
    zh="在 1000 个随机用例中，滑动窗口掩码都恰好给第 i 行 min(i + 1, W) 个键，全部落在因果掩码之内，"
    "而且更宽的窗口保留较窄窗口保留的每个键",
)
def test_sliding_window_rows_hold_min_i_plus_1_w_keys(n, window):
    mask = sliding_window_mask(n, window)
    rows = np.arange(n)
    np.testing.assert_array_equal(mask.sum(axis=1), np.minimum(rows + 1, window))
    assert not (mask & ~causal_mask(n)).any()  # never a future key
    assert mask[rows, rows].all()  # every query sees itself
    assert not (mask & ~sliding_window_mask(n, window + 1)).any()


@given(qkv_and_mask(), st.integers(1, 4))
@pytest.mark.claim(
    "With L_q != L_k, a (B, 1, L_k) mask gives every batch row the weights of its own (L_q, L_k) mask, "
    "over 1000 random cases",
    zh="在 1000 个随机用例中，L_q != L_k 时，(B, 1, L_k) 掩码都给每个批量行它自己的 (L_q, L_k) 掩码下的权重",
)
def test_a_per_sentence_key_mask_broadcasts_over_queries(case, batch):
    q, k, v, _ = case
    lk = k.shape[0]
    keep = (np.arange(lk)[None, :] < np.arange(batch, 0, -1)[:, None] * lk // batch)[:, None, :]  # (B, 1, L_k)
    qb, kb, vb = (np.broadcast_to(a, (batch, *a.shape)) for a in (q, k, v))
    _, weights = scaled_dot_product_attention(qb, kb, vb, keep)  # (B, L_q, L_k)
    for b in range(batch):
        _, alone = scaled_dot_product_attention(q, k, v, np.broadcast_to(keep[b], (q.shape[0], lk)))
        np.testing.assert_array_equal(weights[b], alone)
