"""Rotary positions and grouped-query attention in the core: against loops written from the definitions, their
conventions, their error messages, and Hypothesis properties (1000 examples each, see conftest.py)."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays

from lib.attention import apply_rope, grouped_query_attention
from support import oracle_attention

rng = np.random.default_rng(2023)


def rope_oracle(x, positions, base=10000.0, pairing="interleaved"):
    """Turn pair i of row m by positions[m] * base^(-2i/d), one number at a time (x: list of rows)."""
    d = len(x[0])
    out = []
    for row, m in zip(x, positions):
        new = list(row)
        for i in range(d // 2):
            a_index, b_index = (2 * i, 2 * i + 1) if pairing == "interleaved" else (i, i + d // 2)
            angle = m * base ** (-2 * i / d)
            a, b = row[a_index], row[b_index]
            new[a_index] = a * math.cos(angle) - b * math.sin(angle)
            new[b_index] = a * math.sin(angle) + b * math.cos(angle)
        out.append(new)
    return out


@pytest.mark.claim(
    "apply_rope equals a loop that turns every pair (a, b) to (a cos - b sin, a sin + b cos), for both pairings",
    zh="对两种配对方式，apply_rope 都等于把每一对 (a, b) 转成 (a cos - b sin, a sin + b cos) 的循环",
)
@pytest.mark.parametrize("pairing", ["interleaved", "half"])
@pytest.mark.parametrize("d, base", [(2, 10000.0), (8, 10000.0), (16, 500000.0)])
def test_apply_rope_matches_the_loop(pairing, d, base):
    x = rng.normal(size=(5, d))
    positions = [0, 1, 7, 123.5, 40000]
    got = apply_rope(x, np.array(positions), base=base, pairing=pairing)
    np.testing.assert_allclose(got, rope_oracle(x.tolist(), positions, base, pairing), rtol=1e-12, atol=1e-12)


def test_apply_rope_rotates_every_leading_axis_alike():
    x = rng.normal(size=(2, 3, 4, 6))  # (B, h, L, d)
    positions = np.arange(4)
    got = apply_rope(x, positions)
    for b, h in np.ndindex(2, 3):
        np.testing.assert_allclose(got[b, h], rope_oracle(x[b, h].tolist(), positions.tolist()), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: apply_rope(np.ones((3, 5)), np.arange(3)), "d must be even"),
        (lambda: apply_rope(np.ones((3, 4)), np.arange(4)), "one position per row"),
        (lambda: apply_rope(np.ones((3, 4)), np.arange(3), pairing="adjacent"), "unknown pairing 'adjacent'"),
        (lambda: apply_rope(np.ones(4), np.arange(1)), r"\(\.\.\., L, d\)"),
        (lambda: apply_rope(np.ones((3, 4)) + 1j, np.arange(3)), "x must be real.*complex128"),
        *[
            (
                lambda base=base: apply_rope(np.ones((3, 4)), np.arange(3), base=base),
                f"base must be a finite number greater than 1 .*got {base!r}",
            )
            for base in (0, -2.0, 1, 0.5, math.inf, math.nan)
        ],
    ],
)
def test_apply_rope_errors_name_the_problem(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("pairing", ["interleaved", "half"])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float32])
def test_apply_rope_takes_integer_and_float32_input_as_float64_and_leaves_it_alone(dtype, pairing):
    x = rng.integers(-50, 50, size=(2, 5, 6)).astype(dtype) + (dtype == np.float32) * np.float32(0.37)
    before = x.copy()
    got = apply_rope(x, np.arange(5), pairing=pairing)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, apply_rope(x.astype(np.float64), np.arange(5), pairing=pairing))
    np.testing.assert_array_equal(x, before)  # the caller's array is not rotated in place
    x64 = x.astype(np.float64)
    apply_rope(x64, np.arange(5), pairing=pairing)
    np.testing.assert_array_equal(x64, before.astype(np.float64))


def gqa_oracle(q, k, v, allowed=None):
    """Query head i attends with key/value head i // (h / h_kv), through the loop oracle."""
    h, h_kv = len(q), len(k)
    outputs, weights = [], []
    for i in range(h):
        j = i // (h // h_kv)
        out, w = oracle_attention(q[i], k[j], v[j], allowed)
        outputs.append(out)
        weights.append(w)
    return outputs, weights


@pytest.mark.claim(
    "grouped_query_attention equals a loop in which query head i attends with key/value head i // (h / h_kv)",
    zh="grouped_query_attention 等于让查询头 i 使用键/值头 i // (h / h_kv) 的循环",
)
@pytest.mark.parametrize("h, h_kv", [(1, 1), (4, 4), (4, 2), (6, 3), (8, 1)])
def test_gqa_matches_the_loop(h, h_kv):
    lq, lk, d_k, d_v = 3, 5, 4, 2
    q, k, v = rng.normal(size=(h, lq, d_k)), rng.normal(size=(h_kv, lk, d_k)), rng.normal(size=(h_kv, lk, d_v))
    allowed = rng.random((lq, lk)) > 0.3
    for mask in (None, allowed):
        out, weights = grouped_query_attention(q, k, v, mask)
        want_out, want_w = gqa_oracle(q.tolist(), k.tolist(), v.tolist(), None if mask is None else mask.tolist())
        np.testing.assert_allclose(weights, want_w, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(out, want_out, rtol=1e-12, atol=1e-15)


def test_gqa_batches_and_broadcasts_a_mask():
    q, k, v = rng.normal(size=(2, 4, 3, 4)), rng.normal(size=(2, 2, 3, 4)), rng.normal(size=(2, 2, 3, 4))
    mask = np.tril(np.ones((3, 3), dtype=bool))
    out, _ = grouped_query_attention(q, k, v, mask)
    for b in range(2):
        want, _ = gqa_oracle(q[b].tolist(), k[b].tolist(), v[b].tolist(), mask.tolist())
        np.testing.assert_allclose(out[b], want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    "shapes, message",
    [
        (((6, 3, 4), (4, 3, 4), (4, 3, 4)), "not a multiple of the 4 key/value heads"),
        (((1, 5, 4, 2), (1, 3, 2, 2), (1, 3, 2, 2)), r"heads are the third axis from the end, \(\.\.\., heads, L, d\)"),
        (((4, 3, 4), (2, 3, 4), (1, 3, 4)), "same number of key/value heads"),
        (((3, 4), (3, 4), (3, 4)), "need a head axis"),
        (((4, 3, 4), (2, 3, 5), (2, 3, 4)), "share the last dimension d_k"),
    ],
)
def test_gqa_errors_name_the_problem(shapes, message):
    q, k, v = (np.ones(s) for s in shapes)
    with pytest.raises(ValueError, match=message):
        grouped_query_attention(q, k, v)


# ---------------------------------------------------------------- Hypothesis properties
finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
positions_strategy = st.integers(-(10**6), 10**6)


@st.composite
def rows_and_positions(draw):
    length, half = draw(st.integers(1, 5)), draw(st.integers(1, 6))
    x = draw(arrays(np.float64, (length, 2 * half), elements=finite))
    positions = np.array(draw(st.lists(positions_strategy, min_size=length, max_size=length)))
    return x, positions


@given(rows_and_positions(), st.sampled_from(["interleaved", "half"]))
@pytest.mark.claim(
    "apply_rope keeps the length of every row, over 1000 random cases",
    zh="在 1000 个随机用例中，apply_rope 都保持每一行的长度不变",
)
def test_rope_keeps_lengths(case, pairing):
    x, positions = case
    np.testing.assert_allclose(
        np.linalg.norm(apply_rope(x, positions, pairing=pairing), axis=-1),
        np.linalg.norm(x, axis=-1),
        rtol=1e-12,
        atol=1e-9,
    )


@given(
    arrays(np.float64, (2, 8), elements=st.floats(-10, 10)),
    st.integers(-5000, 5000),
    st.integers(-5000, 5000),
    st.integers(-5000, 5000),
    st.sampled_from(["interleaved", "half"]),
)
@pytest.mark.claim(
    "A rotated query's score with a rotated key depends on m - n only: shifting both positions leaves it, "
    "over 1000 random cases",
    zh="在 1000 个随机用例中，旋转后的查询与旋转后的键的分数只取决于 m - n：两个位置同时平移时分数不变",
)
def test_rope_score_depends_on_the_offset_only(qk, m, n, shift, pairing):
    q, k = qk[:1], qk[1:]

    def score(a, b):
        return (apply_rope(q, [a], pairing=pairing) @ apply_rope(k, [b], pairing=pairing).T).item()

    assert score(m + shift, n + shift) == pytest.approx(score(m, n), abs=1e-9 * (1 + np.abs(qk).sum() ** 2))


@given(rows_and_positions())
@pytest.mark.claim(
    "The half pairing on columns reordered (2i -> i, 2i+1 -> i + d/2) is the interleaved rotation "
    "reordered alike, over 1000 random cases",
    zh="在 1000 个随机用例中，对列重排（2i -> i，2i+1 -> i + d/2）后做对半配对的旋转，等于同样重排后的相邻配对旋转",
)
def test_the_pairings_differ_by_a_permutation(case):
    x, positions = case
    d = x.shape[-1]
    order = np.r_[np.arange(0, d, 2), np.arange(1, d, 2)]
    np.testing.assert_array_equal(
        apply_rope(x[:, order], positions, pairing="half"), apply_rope(x, positions)[:, order]
    )


@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 4).map(lambda n: 2 * n)), elements=finite))
def test_rope_at_position_zero_is_the_identity(x):
    np.testing.assert_array_equal(apply_rope(x, np.zeros(len(x))), x)


@st.composite
def grouped_case(draw):
    h_kv, group = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    lq, lk, d_k, d_v = (draw(st.integers(1, 4)) for _ in range(4))
    q = draw(arrays(np.float64, (h_kv * group, lq, d_k), elements=finite))
    k = draw(arrays(np.float64, (h_kv, lk, d_k), elements=finite))
    v = draw(arrays(np.float64, (h_kv, lk, d_v), elements=finite))
    return q, k, v


@given(grouped_case())
@pytest.mark.claim(
    "Grouped-query attention equals multi-head attention on key/value heads copied to their groups, "
    "over 1000 random cases",
    zh="在 1000 个随机用例中，分组查询注意力都等于把键/值头复制给所在组之后的多头注意力",
)
def test_gqa_is_attention_on_repeated_heads(case):
    q, k, v = case
    group = q.shape[0] // k.shape[0]
    out, weights = grouped_query_attention(q, k, v)
    for i in range(q.shape[0]):
        want_out, want_w = oracle_attention(q[i].tolist(), k[i // group].tolist(), v[i // group].tolist())
        np.testing.assert_allclose(weights[i], want_w, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(out[i], want_out, rtol=1e-9, atol=1e-9)
