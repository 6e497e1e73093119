"""lib.linear_attention against loop oracles written from the papers' equations, the chunked form against the
recurrence (for every chunk size, with and without the gate), Hypothesis properties, the two classic mistakes and
the errors for bad input.

The oracles keep the state as a list of lists in the papers' own layout, d_v x d_k with o_t = S_t q_t (Yang et al.
2024; Gated DeltaNet: S_t = S_{t-1} (alpha_t (I - beta_t k_t k_t^T)) + beta_t v_t k_t^T), so that they share
nothing with the module, which keeps the transpose.
"""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from lib.linear_attention import (
    buggy_delta_rule_chunked_without_carry,
    buggy_gated_delta_rule_reads_before_decay,
    delta_rule_chunked,
    delta_rule_recurrent,
    kv_cache_entries,
    linear_attention_parallel,
    linear_attention_recurrent,
    state_entries,
)


# ------------------------------------------------------------------ the oracles: plain Python, the papers' layout
def oracle_linear(q, k, v):
    """S_t = S_{t-1} + v_t k_t^T (d_v x d_k), o_t = S_t q_t, one token at a time over lists."""
    d_k, d_v = len(k[0]), len(v[0])
    s = [[0.0] * d_k for _ in range(d_v)]
    out = []
    for q_t, k_t, v_t in zip(q, k, v):
        for a in range(d_v):
            for b in range(d_k):
                s[a][b] += v_t[a] * k_t[b]
        out.append([sum(s[a][b] * q_t[b] for b in range(d_k)) for a in range(d_v)])
    return out


def oracle_gated_delta(q, k, v, beta, alpha):
    """S_t = S_{t-1} (alpha_t (I - beta_t k_t k_t^T)) + beta_t v_t k_t^T, o_t = S_t q_t, written out entry by entry."""
    d_k, d_v = len(k[0]), len(v[0])
    s = [[0.0] * d_k for _ in range(d_v)]
    out = []
    for q_t, k_t, v_t, b_t, a_t in zip(q, k, v, beta, alpha):
        # M = alpha_t (I - beta_t k_t k_t^T), then S <- S M + beta_t v_t k_t^T
        m = [[a_t * ((1.0 if i == j else 0.0) - b_t * k_t[i] * k_t[j]) for j in range(d_k)] for i in range(d_k)]
        s = [
            [sum(s[a][i] * m[i][j] for i in range(d_k)) + b_t * v_t[a] * k_t[j] for j in range(d_k)] for a in range(d_v)
        ]
        out.append([sum(s[a][b] * q_t[b] for b in range(d_k)) for a in range(d_v)])
    return out, s


def sequence(rng, length, d_k, d_v):
    q, k = rng.normal(size=(2, length, d_k))
    k = k / np.linalg.norm(k, axis=1, keepdims=True)
    return q, k, rng.normal(size=(length, d_v)), rng.uniform(size=length), rng.uniform(0.5, 1.0, size=length)


# ------------------------------------------------------------------ against the oracles
@pytest.mark.parametrize("length, d_k, d_v", [(1, 1, 1), (7, 3, 5), (12, 6, 2)])
def test_linear_attention_matches_the_loop_oracle_in_both_forms(length, d_k, d_v):
    q, k, v, _, _ = sequence(np.random.default_rng(length), length, d_k, d_v)
    expected = np.array(oracle_linear(q.tolist(), k.tolist(), v.tolist()))
    np.testing.assert_allclose(linear_attention_recurrent(q, k, v)[0], expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(linear_attention_parallel(q, k, v), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("gated", [False, True])
@pytest.mark.parametrize("length, d_k, d_v", [(1, 2, 3), (9, 4, 3), (16, 5, 5)])
def test_delta_rule_matches_the_papers_equation_written_out(gated, length, d_k, d_v):
    q, k, v, beta, alpha = sequence(np.random.default_rng(10 + length), length, d_k, d_v)
    alpha = alpha if gated else np.ones(length)
    out, s = oracle_gated_delta(q.tolist(), k.tolist(), v.tolist(), beta.tolist(), alpha.tolist())
    got, state = delta_rule_recurrent(q, k, v, beta, alpha)
    np.testing.assert_allclose(got, np.array(out), rtol=0, atol=1e-12)
    np.testing.assert_allclose(state, np.array(s).T, rtol=0, atol=1e-12)  # the papers' state, transposed


@pytest.mark.parametrize("gated", [False, True])
def test_chunked_form_equals_the_recurrence_for_every_chunk_size(gated):
    length = 13
    q, k, v, beta, alpha = sequence(np.random.default_rng(7), length, 4, 3)
    alpha = alpha if gated else 1.0
    expected, final = delta_rule_recurrent(q, k, v, beta, alpha)
    for chunk in range(1, length + 3):
        got, state = delta_rule_chunked(q, k, v, beta, alpha, chunk)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12, err_msg=f"chunk {chunk}")
        np.testing.assert_allclose(state, final, rtol=0, atol=1e-12, err_msg=f"chunk {chunk}")


@settings(deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    length=st.integers(1, 20),
    d_k=st.integers(1, 6),
    d_v=st.integers(1, 6),
    chunk=st.integers(1, 8),
    gated=st.booleans(),
)
def test_chunked_equals_recurrence_property(seed, length, d_k, d_v, chunk, gated):
    q, k, v, beta, alpha = sequence(np.random.default_rng(seed), length, d_k, d_v)
    alpha = alpha if gated else 1.0
    start = np.random.default_rng(seed + 1).normal(size=(d_k, d_v))  # any starting state, as a later chunk sees
    expected, final = delta_rule_recurrent(q, k, v, beta, alpha, state=start)
    got, state = delta_rule_chunked(q, k, v, beta, alpha, chunk, state=start)
    assert np.abs(got - expected).max() <= 1e-12 * max(1.0, np.abs(expected).max())
    assert np.abs(state - final).max() <= 1e-12 * max(1.0, np.abs(final).max())


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), length=st.integers(1, 15), d_k=st.integers(1, 6), d_v=st.integers(1, 6))
def test_delta_rule_with_beta_zero_never_writes_and_linear_recurrence_is_the_masked_product(seed, length, d_k, d_v):
    q, k, v, _, _ = sequence(np.random.default_rng(seed), length, d_k, d_v)
    out, state = delta_rule_recurrent(q, k, v, 0.0)
    assert not out.any() and not state.any()
    assert np.abs(linear_attention_recurrent(q, k, v)[0] - linear_attention_parallel(q, k, v)).max() <= 1e-12 * max(
        1.0, np.abs(q).sum() * np.abs(v).max() * length
    )


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d_k=st.integers(1, 8), d_v=st.integers(1, 5))
def test_delta_rule_with_beta_one_reads_back_the_newest_value_of_a_unit_key(seed, d_k, d_v):
    rng = np.random.default_rng(seed)
    q, k, v, _, _ = sequence(rng, 6, d_k, d_v)
    _, state = delta_rule_recurrent(q, k, v, 1.0)
    np.testing.assert_allclose(state.T @ k[-1], v[-1], rtol=0, atol=1e-12)


def test_orthonormal_keys_are_all_recalled_exactly_by_both_rules():
    rng = np.random.default_rng(3)
    keys = np.linalg.qr(rng.normal(size=(6, 6)))[0]  # 6 orthonormal keys
    values = rng.normal(size=(6, 4))
    for state in (linear_attention_recurrent(keys, keys, values)[1], delta_rule_recurrent(keys, keys, values, 1.0)[1]):
        np.testing.assert_allclose(keys @ state, values, rtol=0, atol=1e-12)


def test_a_key_written_twice_sums_in_linear_attention_and_is_overwritten_by_the_delta_rule():
    k = np.array([[0.6, 0.8], [0.6, 0.8]])
    v = np.array([[1.0], [3.0]])
    assert linear_attention_recurrent(k, k, v)[1].T @ k[0] == pytest.approx([4.0])
    assert delta_rule_recurrent(k, k, v, 1.0)[1].T @ k[0] == pytest.approx([3.0])


# ------------------------------------------------------------------ the two classic mistakes
def test_reading_before_the_decay_is_right_without_the_gate_and_wrong_with_it():
    q, k, v, beta, alpha = sequence(np.random.default_rng(5), 10, 4, 3)
    right_plain = delta_rule_recurrent(q, k, v, beta)[0]
    np.testing.assert_allclose(buggy_gated_delta_rule_reads_before_decay(q, k, v, beta)[0], right_plain, atol=1e-12)
    right_gated = delta_rule_recurrent(q, k, v, beta, alpha)[0]
    assert np.abs(buggy_gated_delta_rule_reads_before_decay(q, k, v, beta, alpha)[0] - right_gated).max() > 1e-3


def test_dropping_the_carried_state_is_right_for_one_chunk_and_wrong_for_two():
    q, k, v, beta, alpha = sequence(np.random.default_rng(6), 10, 4, 3)
    right = delta_rule_recurrent(q, k, v, beta, alpha)[0]
    np.testing.assert_allclose(buggy_delta_rule_chunked_without_carry(q, k, v, beta, alpha, 10)[0], right, atol=1e-12)
    for chunk in range(1, 10):
        wrong = buggy_delta_rule_chunked_without_carry(q, k, v, beta, alpha, chunk)[0]
        assert np.abs(wrong - right).max() > 1e-3, f"chunk {chunk}"
        assert np.allclose(wrong[:chunk], right[:chunk], atol=1e-12)  # the first chunk is still right


# ------------------------------------------------------------------ sizes and errors
def test_memory_counts():
    assert state_entries(32, 128, 128) == 524288
    assert kv_cache_entries(2, 256, 1) == 1024
    assert kv_cache_entries(2, 256, 512) == state_entries(32, 128, 128)


ONES = np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 1))  # q, k, v for three positions


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: linear_attention_recurrent(np.ones((3, 2)), np.ones((3, 4)), np.ones((3, 1))), "same shape"),
        (lambda: linear_attention_parallel(np.ones((3, 2)), np.ones((3, 2)), np.ones((4, 1))), "one row per position"),
        (lambda: linear_attention_recurrent(np.ones(3), np.ones(3), np.ones(3)), "2-D"),
        (lambda: delta_rule_recurrent(*ONES, 1.5), r"beta must lie in \[0, 1\]"),
        (lambda: delta_rule_recurrent(*ONES, 1.0, 0.0), r"alpha must lie in \(0, 1\]"),
        (lambda: delta_rule_recurrent(*ONES, [1.0, 1.0]), r"shape \(3,\)"),
        (lambda: delta_rule_chunked(*ONES, 1.0, chunk=0), "the chunk"),
        (lambda: delta_rule_chunked(*ONES, 1.0, chunk=2.5), "the chunk"),
        (lambda: delta_rule_recurrent(*ONES, 1.0, state=np.ones((1, 2))), r"\(d_k, d_v\) = \(2, 1\)"),
    ],
)
def test_bad_input_is_refused_naming_the_problem(call, message):
    with pytest.raises(ValueError, match=message):
        call()
