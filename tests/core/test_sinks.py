"""lib.sinks against a loop oracle of the sink softmax, its identities (Hypothesis too), its two bugs, its errors and
its gradients."""

import math
import re

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays

from lib.attention import scaled_dot_product_attention, softmax
from lib.sinks import (
    attention_with_sink,
    attention_with_sink_backward,
    buggy_plus_one_after_max,
    buggy_sink_on_query_axis,
    rms_norm,
    rms_norm_backward,
    sink_weight,
    softmax_plus_one,
    softmax_with_sink,
)
from support import numeric_gradient

rng = np.random.default_rng(2025)

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
small = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


# ------------------------------------------------------------------ the oracle: loops written from the definition
def sink_softmax_row(row, sink):
    """exp(x_j) / (exp(s) + sum_k exp(x_k)) over a list of floats (-inf = masked), the largest logit subtracted."""
    top = max([sink] + [x for x in row if x != -math.inf])
    exps = [0.0 if x == -math.inf else math.exp(x - top) for x in row]
    total = math.exp(sink - top) + sum(exps)
    return [e / total for e in exps]


def oracle(scores, sinks):
    """The oracle row by row: scores (..., Lq, Lk), sinks (..., Lq) already broadcast, both as NumPy arrays."""
    out = np.zeros_like(scores)
    for index in np.ndindex(scores.shape[:-1]):
        out[index] = sink_softmax_row(scores[index].tolist(), float(sinks[index]))
    return out


def appended(scores, sink):
    """The ordinary softmax over the scores with the sink as one more column, that column dropped."""
    column = np.broadcast_to(sink, scores.shape[:-1])[..., None]
    return softmax(np.concatenate([scores, column], axis=-1))[..., :-1]


def masked(scores, keep=0.7):
    return np.where(rng.random(scores.shape) < keep, scores, -np.inf)


def test_sink_softmax_matches_the_loop_oracle():
    scores = rng.normal(scale=3, size=(4, 6))
    for sink in (0.0, -2.5, 1.7):
        want = oracle(scores, np.full(4, sink))
        np.testing.assert_allclose(softmax_with_sink(scores, sink), want, rtol=1e-12, atol=0)


def test_per_head_sinks_match_the_loop_oracle():
    scores = rng.normal(scale=2, size=(2, 3, 4, 5))  # (B, h, Lq, Lk)
    sink = rng.normal(size=(3, 1))  # (h, 1): one per head
    want = oracle(scores, np.broadcast_to(sink, scores.shape[:-1]))
    np.testing.assert_allclose(softmax_with_sink(scores, sink), want, rtol=1e-12, atol=0)


def test_masked_scores_match_the_loop_oracle():
    scores = masked(rng.normal(scale=2, size=(2, 3, 5, 6)))
    scores[0, 1, 2] = -np.inf  # a row with every key masked: all its weight goes to the sink
    sink = rng.normal(size=(3, 1))
    weights = softmax_with_sink(scores, sink)
    np.testing.assert_allclose(weights, oracle(scores, np.broadcast_to(sink, scores.shape[:-1])), rtol=1e-12, atol=0)
    assert (weights[np.isneginf(scores)] == 0.0).all()
    assert (weights[0, 1, 2] == 0.0).all() and sink_weight(scores, sink)[0, 1, 2] == 1.0


# ------------------------------------------------------------------ identities
@pytest.mark.claim(
    "A sink logit s gives the ordinary softmax over the scores with s appended as one more key, that key dropped",
    zh="汇点 logit s 给出的权重等于把 s 作为多出的一个键附加到分数后做普通 softmax、再去掉这个键的结果",
)
def test_sink_equals_softmax_with_the_sink_appended_as_a_key():
    scores = masked(rng.normal(scale=2, size=(2, 3, 4, 5)))
    for sink in (0.4, rng.normal(size=(3, 1)), rng.normal(size=(2, 3, 4))):
        assert np.abs(softmax_with_sink(scores, sink) - appended(scores, sink)).max() <= 1e-12


@pytest.mark.claim(
    "The plus-one softmax exp(x_j) / (1 + sum_k exp(x_k)) is the sink softmax with the sink logit fixed at 0",
    zh="加一 softmax，即 exp(x_j) / (1 + sum_k exp(x_k))，就是汇点 logit 固定为 0 的汇点 softmax",
)
def test_sink_zero_equals_softmax_plus_one():
    scores = masked(rng.normal(scale=2, size=(3, 4, 6)))
    assert np.abs(softmax_with_sink(scores, 0.0) - softmax_plus_one(scores)).max() <= 1e-12
    row = [float(x) for x in rng.normal(size=5)]
    want = [math.exp(x) / (1 + sum(math.exp(y) for y in row)) for x in row]
    assert np.abs(softmax_plus_one(np.array(row)) - want).max() <= 1e-12


def zero_key_attention(q, k, v, mask=None):
    """Ordinary attention with one more key of zeros and one more value of zeros, the extra key visible to all."""
    k0 = np.concatenate([k, np.zeros((*k.shape[:-2], 1, k.shape[-1]))], axis=-2)
    v0 = np.concatenate([v, np.zeros((*v.shape[:-2], 1, v.shape[-1]))], axis=-2)
    if mask is not None:
        mask = np.concatenate([mask, np.ones((*mask.shape[:-1], 1), dtype=bool)], axis=-1)
    return scaled_dot_product_attention(q, k0, v0, mask)


@pytest.mark.claim(
    "Plus-one attention equals ordinary attention with one more key of zeros and one more value of zeros",
    zh="加一注意力等于多加一个全零的键和一个全零的值的普通注意力",
)
def test_plus_one_attention_equals_one_more_zero_key_and_value():
    q, k, v = rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 5, 2))
    mask = rng.random((2, 4, 5)) < 0.7
    for m in (None, mask):
        output, weights = attention_with_sink(q, k, v, m, sink=0.0)
        want_out, want_w = zero_key_attention(q, k, v, m)
        assert np.abs(output - want_out).max() <= 1e-12
        assert np.abs(weights - want_w[..., :-1]).max() <= 1e-12


@pytest.mark.claim(
    "With a sink, each row of attention weights sums to 1 minus the weight the sink takes",
    zh="有汇点时，注意力权重每一行之和等于 1 减去汇点所占的权重",
)
def test_rows_sum_to_one_minus_the_sink_weight():
    scores = masked(rng.normal(scale=2, size=(2, 3, 4, 5)))
    sink = rng.normal(size=(3, 1))
    rest = 1.0 - sink_weight(scores, sink)
    assert np.abs(softmax_with_sink(scores, sink).sum(axis=-1) - rest).max() <= 1e-12
    assert ((rest > 0) & (rest < 1)).any()


@pytest.mark.claim(
    "Scores and sinks near 1e3 give finite sink-softmax weights equal to the loop oracle's, the maximum subtracted",
    zh="分数和汇点 logit 接近 1e3 时，汇点 softmax 的权重仍是有限值，并等于减去最大值的循环实现的结果",
)
def test_large_scores_stay_finite_and_match_the_oracle():
    scores = 1e3 + rng.normal(scale=3, size=(4, 6))
    for sink in (0.0, 1e3, 1e3 + 5.0, -1e3):
        with np.errstate(over="raise"):
            weights = softmax_with_sink(scores, sink)
        assert np.isfinite(weights).all()
        assert np.abs(weights - oracle(scores, np.full(4, sink))).max() <= 1e-12
    assert np.isfinite(softmax_plus_one(-scores)).all() and np.isfinite(sink_weight(scores, -1e3)).all()


# ------------------------------------------------------------------ the identities as properties
@st.composite
def scores_and_sink(draw, elements=finite):
    """Scores (B, h, Lq, Lk) with some keys masked, and a sink of shape (), (h, 1) or (B, h, Lq)."""
    b, h, lq, lk = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 6))
    scores = draw(arrays(np.float64, (b, h, lq, lk), elements=elements))
    keep = draw(arrays(np.bool_, (b, h, lq, lk)))
    sink = draw(arrays(np.float64, draw(st.sampled_from([(), (h, 1), (b, h, lq)])), elements=elements))
    return np.where(keep, scores, -np.inf), sink


@st.composite
def qkv_and_mask(draw):
    lq, lk = draw(st.integers(1, 5)), draw(st.integers(0, 5))  # Lk = 0: only the zero key
    d_k, d_v = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    q = draw(arrays(np.float64, (lq, d_k), elements=small))
    k = draw(arrays(np.float64, (lk, d_k), elements=small))
    v = draw(arrays(np.float64, (lk, d_v), elements=small))
    return q, k, v, draw(arrays(np.bool_, (lq, lk)))


@given(scores_and_sink())
@pytest.mark.claim(
    "A sink logit equals appending it as one more key to the softmax and dropping that key, over 1000 random cases",
    zh="在 1000 个随机用例中，汇点 logit 都等于把它作为多出的一个键加入 softmax 再去掉这个键",
)
def test_property_sink_equals_the_appended_column(case):
    scores, sink = case
    assert np.abs(softmax_with_sink(scores, sink) - appended(scores, sink)).max() <= 1e-12


@given(scores_and_sink())
@pytest.mark.claim(
    "The plus-one softmax equals the sink softmax with sink 0, over 1000 random cases",
    zh="在 1000 个随机用例中，加一 softmax 都等于汇点 logit 为 0 的汇点 softmax",
)
def test_property_sink_zero_equals_softmax_plus_one(case):
    scores, _ = case
    assert np.abs(softmax_with_sink(scores, 0.0) - softmax_plus_one(scores)).max() <= 1e-12


@given(qkv_and_mask())
@pytest.mark.claim(
    "Plus-one attention equals attention with one more zero key and zero value, over 1000 random cases",
    zh="在 1000 个随机用例中，加一注意力都等于多加一个全零键和全零值的普通注意力",
)
def test_property_plus_one_attention_equals_a_zero_key_and_value(case):
    q, k, v, mask = case
    output, weights = attention_with_sink(q, k, v, mask, sink=0.0)
    want_out, want_w = zero_key_attention(q, k, v, mask)
    assert output.shape == want_out.shape and weights.shape == mask.shape
    assert np.abs(output - want_out).max() <= 1e-12
    assert np.abs(weights - want_w[..., :-1]).max(initial=0.0) <= 1e-12


@given(scores_and_sink())
@pytest.mark.claim(
    "With a sink, rows of weights sum to 1 minus the sink's weight and never exceed 1, over 1000 random cases",
    zh="在 1000 个随机用例中，有汇点时权重每行之和都等于 1 减去汇点的权重，且从不超过 1",
)
def test_property_rows_sum_to_one_minus_the_sink_weight(case):
    scores, sink = case
    weights, to_sink = softmax_with_sink(scores, sink), sink_weight(scores, sink)
    assert np.abs(weights.sum(axis=-1) - (1.0 - to_sink)).max() <= 1e-12
    assert (weights >= 0).all() and (to_sink >= 0).all() and (to_sink <= 1).all()


# ------------------------------------------------------------------ the two bugs
def test_sink_on_the_query_axis_is_the_plain_softmax_and_ignores_the_sink():
    scores = masked(rng.normal(size=(2, 3, 4, 5)))
    np.testing.assert_array_equal(buggy_sink_on_query_axis(scores, rng.normal(size=(3, 1))), softmax(scores))
    flat = np.zeros((1, 4))  # four equal keys and a sink of 2: 1/4 each plainly, 1/(e^2 + 4) with the sink
    gap = np.abs(buggy_sink_on_query_axis(flat, 2.0) - softmax_with_sink(flat, 2.0)).max()
    assert gap > 0.1


def test_plus_one_after_the_max_is_a_sink_at_the_row_maximum():
    scores = rng.normal(size=(5, 6))
    scores[0] -= scores[0].max()  # row 0 has maximum 0: the only row the bug gets right
    buggy, right = buggy_plus_one_after_max(scores), softmax_plus_one(scores)
    assert np.abs(buggy[0] - right[0]).max() <= 1e-12
    assert (np.abs(buggy[1:] - right[1:]).max(axis=-1) > 1e-3).all()
    assert np.abs(buggy - softmax_with_sink(scores, scores.max(axis=-1))).max() <= 1e-12


@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 6)), elements=finite))
def test_property_plus_one_after_the_max_equals_a_sink_at_the_row_maximum(scores):
    buggy = buggy_plus_one_after_max(scores)
    assert np.abs(buggy - softmax_with_sink(scores, scores.max(axis=-1))).max() <= 1e-12


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    "shape,sink_shape", [((2, 3, 4, 5), (3,)), ((2, 3, 4, 5), (2, 1)), ((4, 5), (5,)), ((2, 3, 4, 5), (2, 3, 4, 1))]
)
def test_a_sink_that_does_not_broadcast_to_the_rows_is_named(shape, sink_shape):
    scores, sink = rng.normal(size=shape), np.zeros(sink_shape)
    for call in (softmax_with_sink, sink_weight):
        with pytest.raises(ValueError, match=re.escape(f"the sink of shape {sink_shape}")):
            call(scores, sink)


def test_attention_with_sink_rejects_a_non_boolean_mask():
    q, k, v = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
    with pytest.raises(ValueError, match="mask must be boolean"):
        attention_with_sink(q, k, v, np.ones((3, 5)), sink=0.0)


# ------------------------------------------------------------------ gradients against central finite differences
def assert_gradient(analytic, numeric):
    scale = max(np.abs(numeric).max(initial=0.0), 1e-3)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-7, atol=1e-7 * scale)


@pytest.mark.parametrize("with_sink", [False, True])
def test_attention_with_sink_backward_matches_finite_differences(with_sink):
    b, h, lq, lk, d = 2, 3, 4, 5, 3
    q, k, v = rng.normal(size=(b, h, lq, d)), rng.normal(size=(b, h, lk, d)), rng.normal(size=(b, h, lk, d))
    sink = rng.normal(size=(h, 1)) if with_sink else None
    mask = rng.random((lq, lk)) < 0.8
    mask[1] = False  # one query sees nothing
    upstream = rng.normal(size=(b, h, lq, d))

    def loss():
        return float(np.sum(upstream * attention_with_sink(q, k, v, mask, sink)[0]))

    weights = attention_with_sink(q, k, v, mask, sink)[1]
    d_q, d_k, d_v, read = attention_with_sink_backward(upstream, q, k, v, weights)
    for analytic, array in ((d_q, q), (d_k, k), (d_v, v)):
        assert_gradient(analytic, numeric_gradient(loss, array))
    if with_sink:
        p_sink = 1.0 - weights.sum(axis=-1)  # (B, h, Lq)
        d_sink = -(p_sink * read).sum(axis=(0, 2))[:, None]  # (h, 1): as sink_model.backward combines it
        assert_gradient(d_sink, numeric_gradient(loss, sink))


def test_rms_norm_backward_matches_finite_differences():
    x, gain = rng.normal(size=(2, 3, 4, 5)), 1.0 + 0.3 * rng.normal(size=5)
    upstream = rng.normal(size=x.shape)

    def loss():
        return float(np.sum(upstream * rms_norm(x, gain)))

    d_x, d_gain = rms_norm_backward(upstream, x, gain)
    assert_gradient(d_x, numeric_gradient(loss, x))
    assert_gradient(d_gain, numeric_gradient(loss, gain))


def test_rms_norm_divides_by_the_root_mean_square():
    x, gain = rng.normal(size=(3, 4)), rng.normal(size=4)
    for row, out in zip(x, rms_norm(x, gain)):
        rms = math.sqrt(sum(float(a) ** 2 for a in row) / len(row) + 1e-6)
        np.testing.assert_allclose(out, row / rms * gain, rtol=1e-12)
