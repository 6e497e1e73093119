"""The core module against the loop oracle, its mask and shape conventions, and its error messages."""

import math

import numpy as np
import pytest

from lib.attention import (
    causal_mask,
    merge_heads,
    multi_head_attention,
    padding_mask,
    scaled_dot_product_attention,
    sinusoidal_positions,
    sliding_window_mask,
    softmax,
    split_heads,
)
from support import oracle_attention, positional_encoding

rng = np.random.default_rng(1234)


@pytest.mark.parametrize("lq,lk,d_k,d_v", [(1, 1, 1, 1), (3, 5, 4, 2), (7, 7, 8, 8)])
@pytest.mark.claim(
    "scaled_dot_product_attention equals a plain-loop implementation of softmax(QK^T / sqrt(d_k)) V, with and "
    "without a mask",
    zh="无论有无掩码，scaled_dot_product_attention 都等于 softmax(QK^T / sqrt(d_k)) V 的朴素循环实现",
)
def test_attention_matches_the_loop_oracle(lq, lk, d_k, d_v):
    q, k, v = rng.normal(size=(lq, d_k)), rng.normal(size=(lk, d_k)), rng.normal(size=(lk, d_v))
    allowed = rng.random((lq, lk)) > 0.3
    for mask in (None, allowed):
        output, weights = scaled_dot_product_attention(q, k, v, mask)
        want_out, want_w = oracle_attention(q.tolist(), k.tolist(), v.tolist(), None if mask is None else mask.tolist())
        np.testing.assert_allclose(weights, want_w, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(output, want_out, rtol=1e-12, atol=1e-15)


@pytest.mark.claim(
    "Batched attention equals attention run on each example and head separately",
    zh="批量注意力等于对每个样本和每个头分别运行注意力的结果",
)
def test_batched_attention_matches_the_oracle_per_example():
    q, k, v = rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(2, 3, 6, 5)), rng.normal(size=(2, 3, 6, 2))
    output, weights = scaled_dot_product_attention(q, k, v)
    for b, h in np.ndindex(2, 3):
        want_out, want_w = oracle_attention(q[b, h].tolist(), k[b, h].tolist(), v[b, h].tolist())
        np.testing.assert_allclose(output[b, h], want_out, rtol=1e-12)
        np.testing.assert_allclose(weights[b, h], want_w, rtol=1e-12)


@pytest.mark.claim(
    "A query whose keys are all masked gets zero weights and a zero output row, never NaN",
    zh="所有键都被掩码的查询得到全零的权重和全零的输出行，从不出现 NaN",
)
def test_fully_masked_query_gets_zero_weights_and_zero_output():
    q, k, v = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
    mask = np.ones((3, 5), dtype=bool)
    mask[1] = False
    output, weights = scaled_dot_product_attention(q, k, v, mask)
    assert not np.isnan(output).any()
    np.testing.assert_array_equal(weights[1], 0.0)
    np.testing.assert_array_equal(output[1], 0.0)
    np.testing.assert_allclose(weights[[0, 2]].sum(-1), 1.0)


@pytest.mark.claim(
    "The core softmax is exact at logits of ±1e300 and gives zeros for an all -inf row",
    zh="核心实现的 softmax 在 logits 为 ±1e300 时是精确的，对全为 -inf 的行给出全零",
)
def test_softmax_extremes_and_all_minus_inf():
    np.testing.assert_array_equal(softmax([1e300, -1e300, 0.0]), [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(softmax([-np.inf, -np.inf]), [0.0, 0.0])
    np.testing.assert_allclose(softmax([-np.inf, 0.0, 0.0]), [0.0, 0.5, 0.5])
    np.testing.assert_allclose(softmax(np.array([[1.0, 2.0], [3.0, 3.0]]), axis=0).sum(0), 1.0)


def test_causal_and_padding_masks():
    np.testing.assert_array_equal(causal_mask(3), [[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    assert causal_mask(3).dtype == bool
    mask = padding_mask(np.array([3, 1]), 4)
    assert mask.shape == (2, 1, 4) and mask.dtype == bool
    np.testing.assert_array_equal(mask[:, 0], [[1, 1, 1, 0], [1, 0, 0, 0]])


@pytest.mark.claim(
    "Under a causal mask, changing later tokens never changes earlier outputs",
    zh="在因果掩码下，改变后面的词元永远不会改变前面的输出",
)
def test_causal_attention_ignores_the_future():
    x = rng.normal(size=(6, 4))
    out, _ = scaled_dot_product_attention(x, x, x, causal_mask(6))
    changed = x.copy()
    changed[4:] += 10.0
    out2, _ = scaled_dot_product_attention(changed, changed, changed, causal_mask(6))
    np.testing.assert_array_equal(out[:4], out2[:4])


@pytest.mark.claim(
    'sinusoidal_positions follows the formula of section 3.5 of "Attention Is All You Need"',
    zh="sinusoidal_positions 遵循《Attention Is All You Need》第 3.5 节的公式",
)
def test_sinusoidal_positions_follow_the_paper_formula():
    pe = sinusoidal_positions(20, 16)
    assert pe.shape == (20, 16)
    for p in (0, 1, 7, 19):
        for dim in range(16):
            assert pe[p, dim] == pytest.approx(positional_encoding(p, dim, 16), abs=1e-12)
    with pytest.raises(ValueError, match="even"):
        sinusoidal_positions(4, 7)


@pytest.mark.claim(
    "sinusoidal_positions takes the base of the wavelengths as a parameter (the paper's 10000 by default)",
    zh="sinusoidal_positions 把波长的基数作为参数（默认是论文的 10000）",
)
def test_sinusoidal_positions_take_another_base():
    for base in (10.0, 500.0, 1e6):
        pe = sinusoidal_positions(12, 6, base=base)
        for p in (0, 1, 11):
            for dim in range(6):
                assert pe[p, dim] == pytest.approx(positional_encoding(p, dim, 6, base), abs=1e-12)
    assert np.array_equal(sinusoidal_positions(9, 8), sinusoidal_positions(9, 8, base=10000.0))
    for base in (1.0, 0, -5.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="base must be a finite number greater than 1"):
            sinusoidal_positions(4, 8, base=base)


@pytest.mark.claim("merge_heads exactly inverts split_heads", zh="merge_heads 恰好是 split_heads 的逆运算")
def test_split_and_merge_heads_are_inverse_and_put_heads_before_positions():
    x = rng.normal(size=(2, 5, 12))
    heads = split_heads(x, 3)
    assert heads.shape == (2, 3, 5, 4)
    np.testing.assert_array_equal(heads[1, 2, 4], x[1, 4, 8:12])
    np.testing.assert_array_equal(merge_heads(heads), x)


@pytest.mark.claim(
    "Multi-head attention equals running each head on its own slice, concatenating, and applying W_o",
    zh="多头注意力等于在各自的切片上运行每个头，再拼接并乘以 W_o",
)
def test_multi_head_attention_equals_heads_run_one_by_one():
    d_model, n_heads, length = 8, 2, 5
    x = rng.normal(size=(length, d_model))
    w_q, w_k, w_v, w_o = (rng.normal(size=(d_model, d_model)) for _ in range(4))
    output, weights = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal_mask(length))
    assert output.shape == (length, d_model) and weights.shape == (n_heads, length, length)
    d_head = d_model // n_heads
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        out, w = oracle_attention(
            (x @ w_q[:, cols]).tolist(),
            (x @ w_k[:, cols]).tolist(),
            (x @ w_v[:, cols]).tolist(),
            causal_mask(length).tolist(),
        )
        np.testing.assert_allclose(weights[h], w, rtol=1e-10)
        heads.append(np.array(out))
    np.testing.assert_allclose(output, np.concatenate(heads, axis=-1) @ w_o, rtol=1e-10)


def test_multi_head_attention_takes_a_padding_mask_per_sentence():
    x = rng.normal(size=(2, 4, 6))
    ws = [rng.normal(size=(6, 6)) for _ in range(4)]
    _, weights = multi_head_attention(x, *ws, n_heads=3, mask=padding_mask(np.array([4, 2]), 4))
    assert weights.shape == (2, 3, 4, 4)
    np.testing.assert_array_equal(weights[1, :, :, 2:], 0.0)
    assert (weights[0] > 0).all()


def test_multi_head_attention_takes_a_mask_with_a_head_axis():
    x = rng.normal(size=(2, 4, 6))
    ws = [rng.normal(size=(6, 6)) for _ in range(4)]
    lengths = padding_mask(np.array([4, 2]), 4)  # (B, 1, L)
    shared = multi_head_attention(x, *ws, n_heads=3, mask=lengths)
    per_head = multi_head_attention(x, *ws, n_heads=3, mask=lengths[:, None])  # (B, 1, 1, L)
    np.testing.assert_array_equal(shared[1], per_head[1])
    head_masks = np.broadcast_to(causal_mask(4), (2, 3, 4, 4)).copy()
    head_masks[:, 1] = True  # head 1 sees everything
    _, weights = multi_head_attention(x, *ws, n_heads=3, mask=head_masks)
    assert (weights[:, 1, 0, 1:] > 0).all() and (weights[:, 0, 0, 1:] == 0).all()
    with pytest.raises(ValueError, match=r"\(2, 2, 4, 4\)"):
        multi_head_attention(x, *ws, n_heads=3, mask=np.ones((2, 2, 4, 4), bool))


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: scaled_dot_product_attention(np.ones((3, 4)), np.ones((5, 3)), np.ones((5, 2))), ["(3, 4)", "(5, 3)"]),
        (lambda: scaled_dot_product_attention(np.ones((3, 4)), np.ones((5, 4)), np.ones((6, 2))), ["(5, 4)", "(6, 2)"]),
        (
            lambda: scaled_dot_product_attention(np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2)), np.ones((3, 5))),
            ["boolean", "float64"],
        ),
        (
            lambda: scaled_dot_product_attention(
                np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2)), np.ones((4, 5), bool)
            ),
            ["(4, 5)", "(3, 5)"],
        ),
        (
            lambda: scaled_dot_product_attention(
                np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2)), np.ones((2, 3, 5), bool)
            ),
            ["(2, 3, 5)"],
        ),
        (
            lambda: scaled_dot_product_attention(np.ones((2, 3, 4)), np.ones((3, 5, 4)), np.ones((3, 5, 2))),
            ["(2, 3, 4)", "(3, 5, 4)"],
        ),
        (lambda: split_heads(np.ones((2, 5, 10)), 3), ["10", "3", "(2, 5, 10)"]),
        (lambda: multi_head_attention(np.ones((5, 10)), *[np.eye(10)] * 4, n_heads=4), ["10", "4"]),
        (
            lambda: multi_head_attention(np.ones((5, 10)), np.eye(10), np.eye(8), np.eye(10), np.eye(10), 2),
            ["w_k", "(8, 8)"],
        ),
        (
            lambda: multi_head_attention(
                np.ones((2, 5, 4)), *[np.eye(4)] * 4, n_heads=2, mask=np.ones((3, 5, 5), bool)
            ),
            ["(3, 5, 5)"],
        ),
        (lambda: padding_mask(np.array([2, 7]), 5), ["[2, 7]"]),
    ],
)
@pytest.mark.claim(
    "Bad input (mismatched shapes, heads that do not divide d_model, non-boolean masks) raises a ValueError naming "
    "the shapes",
    zh="错误的输入（形状不匹配、头数不能整除 d_model、非布尔掩码）会引发指明形状的 `ValueError`",
)
def test_bad_input_raises_value_error_naming_the_shapes(call, words):
    with pytest.raises(ValueError) as info:
        call()
    for word in words:
        assert word in str(info.value)


# ---------------------------------------------------------------- sliding windows and two sequences (L_q != L_k)


def window_oracle(n, window):
    """The window rule written out: query i may attend to key j when i - window < j <= i."""
    return [[i - window < j <= i for j in range(n)] for i in range(n)]


@pytest.mark.claim(
    "sliding_window_mask(n, W) is True exactly where i - W < j <= i, for every n <= 9 and W <= 10",
    zh="对每个 n <= 9、W <= 10，sliding_window_mask(n, W) 恰好在 i - W < j <= i 处为 True",
)
def test_sliding_window_mask_against_the_rule():
    for n in range(1, 10):
        for window in range(1, 11):
            mask = sliding_window_mask(n, window)
            assert mask.dtype == bool and mask.shape == (n, n)
            assert mask.tolist() == window_oracle(n, window), (n, window)


def test_a_window_as_long_as_the_sequence_is_the_causal_mask():
    np.testing.assert_array_equal(sliding_window_mask(6, 6), causal_mask(6))
    np.testing.assert_array_equal(sliding_window_mask(6, 1), np.eye(6, dtype=bool))
    assert sliding_window_mask(4, np.int64(2)).sum() == 7  # NumPy integers are whole numbers too


@pytest.mark.parametrize("window", [0, -1, 2.5, 2.0, True, "3", None])
def test_sliding_window_mask_refuses_a_window_that_is_not_a_positive_whole_number(window):
    with pytest.raises(ValueError, match="window must be a whole number of keys >= 1"):
        sliding_window_mask(5, window)


def test_a_window_beyond_any_int64_is_still_the_causal_mask():
    for window in (2**63, 10**30):  # i - window overflows int64: the window is capped at n first
        np.testing.assert_array_equal(sliding_window_mask(5, window), causal_mask(5))


@pytest.mark.parametrize("n", [0, -2, 2.5, math.nan, math.inf, "5", None, True])
def test_sliding_window_mask_refuses_a_bad_length(n):
    with pytest.raises(ValueError, match="positive whole number of positions, got n = "):
        sliding_window_mask(n, 2)
    with pytest.raises(ValueError, match="positive whole number of positions, got n = "):
        causal_mask(n)


@pytest.mark.claim(
    "scaled_dot_product_attention equals the loop oracle when queries and keys have different lengths, "
    "with an (L_q, L_k) mask and with a (B, 1, L_k) padding mask",
    zh="查询与键的长度不同时，无论用 (L_q, L_k) 掩码还是 (B, 1, L_k) 填充掩码，scaled_dot_product_attention "
    "都等于循环实现",
)
@pytest.mark.parametrize("lq,lk", [(1, 5), (4, 7), (6, 2)])
def test_rectangular_attention_with_both_mask_shapes(lq, lk):
    q, k, v = rng.normal(size=(2, lq, 4)), rng.normal(size=(2, lk, 4)), rng.normal(size=(2, lk, 3))
    allowed = rng.random((lq, lk)) < 0.7
    output, weights = scaled_dot_product_attention(q, k, v, allowed)
    assert weights.shape == (2, lq, lk) and output.shape == (2, lq, 3)
    lengths = np.array([lk, max(1, lk - 2)])
    padded_out, padded_w = scaled_dot_product_attention(q, k, v, padding_mask(lengths, lk))  # (B, 1, L_k)
    for b in range(2):
        want_out, want_w = oracle_attention(q[b].tolist(), k[b].tolist(), v[b].tolist(), allowed.tolist())
        np.testing.assert_allclose(output[b], want_out, atol=1e-12)
        np.testing.assert_allclose(weights[b], want_w, atol=1e-12)
        keep = [[j < lengths[b] for j in range(lk)] for _ in range(lq)]
        want_out, want_w = oracle_attention(q[b].tolist(), k[b].tolist(), v[b].tolist(), keep)
        np.testing.assert_allclose(padded_out[b], want_out, atol=1e-12)
        np.testing.assert_allclose(padded_w[b], want_w, atol=1e-12)


@pytest.mark.parametrize("shape", [(7, 4), (4, 6), (3, 1, 7), (2, 4, 7, 1)])
def test_a_mask_of_the_wrong_shape_names_both_shapes(shape):
    q, k, v = np.ones((2, 4, 3)), np.ones((2, 7, 3)), np.ones((2, 7, 3))
    with pytest.raises(
        ValueError, match=rf"mask of shape \({shape[0]}, .*does not broadcast to the scores' shape \(2, 4, 7\)"
    ):
        scaled_dot_product_attention(q, k, v, np.ones(shape, dtype=bool))
