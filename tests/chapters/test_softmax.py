"""The chapter "Softmax": its statements, recomputed independently.

Softmax values come from the pure-Python oracle of tests/support.py (math.exp, one number at a time); the overflow
threshold from math.exp and math.nextafter; the Jacobian from an element-by-element loop and finite differences;
clipping from a pure-Python loss. Published numbers are read from docs/generated/softmax/*/values.json.
"""

import math
import sys

import numpy as np
import pytest
from hypothesis import given, strategies as st

from lib.attention import attention_scores, softmax, softmax_backward
from lib.debug_tools import numeric_gradient
from lib.exercises import check
from lib.running_example import SENTENCE, embed, projection_weights, tokenize
from support import flat_page, published, published_exercise, published_table, softmax_row, text

TOKENS = tokenize(SENTENCE)


def cat_scores():
    x = embed(TOKENS)
    w_q, w_k, _ = projection_weights()
    return attention_scores(x @ w_q, x @ w_k)[TOKENS.index("cat")].tolist()


def jacobian_loop(p):
    return [[p[i] * ((1.0 if i == j else 0.0) - p[j]) for j in range(len(p))] for i in range(len(p))]


rows = st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=8)


@pytest.mark.claim(
    'On the row of "cat", the softmax weights are positive, sum to 1 and keep the order of the scores',
    zh="在 “cat” 的行上，softmax 权重都为正，和为 1，并保持分数的大小顺序",
)
def test_cat_row_properties():
    z = cat_scores()
    p = softmax_row(z)
    assert all(w > 0 for w in p) and math.fsum(p) == pytest.approx(1.0, abs=1e-15)
    assert sorted(range(len(z)), key=lambda j: (z[j], j)) == sorted(range(len(p)), key=lambda j: (p[j], j))
    values = published("softmax/definition")
    assert values["top_key"] == TOKENS[max(range(len(p)), key=p.__getitem__)]
    assert values["top_weight"] == pytest.approx(max(p), abs=1e-12)
    assert values["min_weight"] == pytest.approx(min(p), abs=1e-12)
    assert values["same_order"] is True
    assert values["shift_change"] < 1e-12


@pytest.mark.claim(
    "The core softmax equals the definition and is unchanged by adding a constant to every score",
    zh="核心实现的 softmax 与定义一致，且给每个分数加上同一个常数时保持不变",
)
@given(rows, st.floats(-1e3, 1e3))
def test_core_softmax_matches_oracle_and_is_shift_invariant(z, c):
    want = softmax_row(z)
    np.testing.assert_allclose(softmax(z), want, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(softmax(np.array(z) + c), want, rtol=1e-9, atol=1e-12)


@pytest.mark.claim(
    "Temperature keeps the ranking; T -> 0 puts the weight on the top key, large T approaches 1/L",
    zh="温度保持排序不变；T -> 0 时权重集中到得分最高的键上，T 很大时趋近 1/L",
)
def test_temperature_limits():
    z = cat_scores()
    top = max(range(len(z)), key=z.__getitem__)
    previous = 1.0
    for t in [0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100]:
        p = softmax_row([s / t for s in z])
        assert max(range(len(p)), key=p.__getitem__) == top
        assert sorted(range(len(z)), key=lambda j: (z[j], j)) == sorted(range(len(p)), key=lambda j: (p[j], j)), t
        assert p[top] <= previous
        previous = p[top]
    values = published("softmax/temperature")
    assert values["temperature_top_key"] == TOKENS[top]
    assert values["top_weight_t001"] == pytest.approx(softmax_row([s / 0.01 for s in z])[top], abs=1e-12)
    assert values["top_weight_t001"] > 0.95
    assert abs(values["top_weight_t100"] - 1 / len(z)) < 0.01
    assert values["max_entropy"] == pytest.approx(math.log2(len(z)))


@pytest.mark.claim(
    "Naive softmax breaks at exactly the first float64 logit whose exp overflows, just above 709.78",
    zh="朴素 softmax 恰好在第一个使 exp 溢出的 float64 分数处失效，这个值略高于 709.78",
)
def test_overflow_threshold_with_math_exp():
    values = published("softmax/overflow")
    safe, bad = values["largest_safe_logit"], values["smallest_breaking_logit"]
    assert math.nextafter(safe, math.inf) == bad
    assert math.isfinite(math.exp(safe))
    with pytest.raises(OverflowError):
        math.exp(bad)
    assert safe == pytest.approx(math.log(np.finfo(np.float64).max), abs=1e-12)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(np.array([bad, 0.0]))
        assert np.isnan(e / e.sum())[0]
    assert values["float32_limit"] == pytest.approx(math.log(float(np.finfo(np.float32).max)), abs=1e-4)
    assert values["float32_exp_89"] == "inf"
    assert values["exp_minus_746"] == 0.0 and math.exp(-746.0) == 0.0


@pytest.mark.claim(
    "Subtracting the maximum never overflows: the core softmax is finite for logits up to +-1e300",
    zh="减去最大值后永远不会溢出：对 +-1e300 以内的 logits，核心实现的 softmax 都是有限值",
)
@given(st.lists(st.floats(-1e300, 1e300), min_size=1, max_size=8))
def test_stable_softmax_never_nan(z):
    p = softmax(z)
    assert np.all(np.isfinite(p)) and p.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(p, softmax_row(z), rtol=1e-12, atol=1e-300)


@pytest.mark.claim(
    "The softmax Jacobian is diag(p) - p p^T: it matches finite differences and softmax_backward",
    zh="softmax 的雅可比矩阵是 diag(p) - p p^T：它与有限差分和 softmax_backward 一致",
)
@given(st.lists(st.floats(-5, 5), min_size=1, max_size=6), st.integers(0, 2**32 - 1))
def test_jacobian_against_loop_and_finite_differences(z, seed):
    p = softmax_row(z)
    loop = np.array(jacobian_loop(p))
    np.testing.assert_allclose(np.diag(p) - np.outer(p, p), loop, atol=1e-15)
    np.testing.assert_allclose(numeric_gradient(lambda s: np.array(softmax_row(list(s))), z), loop, atol=1e-8)
    g = np.random.default_rng(seed).normal(size=len(z))
    np.testing.assert_allclose(softmax_backward(g, np.array(p)), g @ loop, atol=1e-12)
    assert np.max(np.abs(loop.sum(axis=1))) < 1e-15


def test_published_jacobian_numbers():
    values = published("softmax/jacobian")
    assert values["fd_max_error"] < 1e-8
    assert values["row_sum_max"] < 1e-15 and values["asymmetry"] < 1e-15 and values["vjp_error"] < 1e-15
    p = softmax_row([200.0, 100.0, 10.0])  # the logits [2, 1, 0.1] multiplied by 100
    assert values["max_j_factor100"] == pytest.approx(max(abs(v) for r in jacobian_loop(p) for v in r), rel=1e-6)
    assert values["max_j_factor100"] < 1e-40


def clipped_loss(s, target=1):
    return -math.log(softmax_row([min(50.0, max(-50.0, x)) for x in s])[target])


@pytest.mark.claim(
    "Clipping scores to [-50, 50] gives the wrong weights and zero gradient to the clipped scores",
    zh="把分数截断到 [-50, 50] 会得到错误的权重，并使被截断分数的梯度为零",
)
def test_clipping_changes_weights_and_kills_the_gradient():
    scores = [900.0, 860.0, 840.0, 0.0]
    clipped = softmax_row([min(50.0, max(-50.0, x)) for x in scores])
    exact = softmax_row(scores)
    assert clipped[:3] == pytest.approx([1 / 3] * 3) and exact[0] == pytest.approx(1.0)
    grad_clip = numeric_gradient(lambda s: clipped_loss(list(s)), scores, 1e-3)
    assert grad_clip[:3].tolist() == [0.0, 0.0, 0.0]
    grad_exact = [p - (1.0 if j == 1 else 0.0) for j, p in enumerate(exact)]
    assert math.hypot(*grad_exact) == pytest.approx(math.sqrt(2))
    values = published("softmax/clip")
    assert values["clipped_first"] == pytest.approx(1 / 3)
    assert values["grad_norm_exact"] == pytest.approx(math.sqrt(2), abs=1e-12)
    assert values["grad_norm_clipped"] < 1e-20
    assert values["tv_distance"] == pytest.approx(2 / 3, abs=1e-12)
    assert 0.3 < values["many_mean_tv"] < 0.5


@pytest.mark.claim(
    "Through the clip, finite differences of the loss are exactly 0: the published 'error' of the "
    "clipped gradient is the whole gradient, so it shows the gradient is near zero, not confirmed",
    zh="经过截断后，损失的有限差分恰好为 "
    "0：发布的截断梯度“误差”就是整个梯度，所以它说明的是梯度接近零，而不是得到了验证",
)
def test_clipped_finite_differences_show_zero_not_a_confirmation():
    values = published("softmax/clip")
    assert values["fd_largest_clipped"] == 0.0
    assert text("softmax/clip", "fd_error_clipped") == text("softmax/clip", "grad_norm_clipped")
    assert values["fd_error_exact"] < 1e-8 * values["grad_norm_exact"]
    page = flat_page("softmax.md")
    assert "confirm both gradients" not in page
    assert "cannot confirm its one nonzero entry" in page


def test_exponentiating_turns_differences_into_ratios_and_does_not_stretch_this_rows_gaps():
    """The intuition once said exponentiating "stretches the gaps between scores": on the page's own row the scores
    span more than their exponentials (they lie below 0.2, where exp has slope below 1.2). What exp does to any row is
    turn each difference into a ratio."""
    z = cat_scores()
    e = [math.exp(s) for s in z]
    assert max(e) - min(e) < max(z) - min(z)  # the old premise fails on this row
    for a, b in zip(z, z[1:]):
        assert math.exp(a) / math.exp(b) == pytest.approx(math.exp(a - b), rel=1e-12)
    for edition, words in (("docs", "stretches the gaps"), ("docs-zh", "拉大分数之间的差距")):
        assert words not in flat_page("softmax.md", edition), edition


# ------------------------------------------------------------------ the exercises
def exercise(name):
    """An exercise's published answer, {mistake: result} and decimals asked."""
    return published_exercise("softmax/exercises", name)


def table_column(column):
    """A column of the page's table of the row of "cat", as the numbers the reader sees (three decimals)."""
    return [float(row[column]) for row in published_table("softmax/definition", "cat_row")]


def test_exercise_temperature_and_its_mistakes():
    values = published("softmax/exercises")
    answer, mistakes, _ = exercise("temperature_on")
    z, t, on = cat_scores(), values["temperature"], TOKENS.index("on")
    assert answer == pytest.approx(softmax_row([s / t for s in z])[on], abs=1e-12)
    assert mistakes == pytest.approx(
        {"multiplied_by_t": softmax_row([s * t for s in z])[on], "after_softmax": softmax_row(z)[on] / t}, abs=1e-12
    )
    assert values["temperature_exp_on"] == pytest.approx(math.exp(z[on] / t), abs=1e-12)
    assert values["temperature_exp_sum"] == pytest.approx(math.fsum(math.exp(s / t) for s in z), abs=1e-12)


def test_exercise_without_the_full_stop_and_its_mistakes():
    values = published("softmax/exercises")
    answer, mistakes, _ = exercise("without_full_stop")
    z, on = cat_scores(), TOKENS.index("on")
    six = [s for token, s in zip(TOKENS, z) if token != "."]
    assert answer == pytest.approx(math.exp(z[on]) / math.fsum(map(math.exp, six)), abs=1e-12)
    assert mistakes == pytest.approx(
        {"old_denominator": softmax_row(z)[on], "no_exponential": z[on] / math.fsum(six)}, abs=1e-12
    )
    assert values["six_key_exp_sum"] == pytest.approx(math.fsum(map(math.exp, six)), abs=1e-12)
    assert values["full_stop_exp"] == pytest.approx(math.exp(z[TOKENS.index(".")]), abs=1e-12)


def test_exercise_jacobian_and_its_mistakes():
    answer, mistakes, _ = exercise("jacobian_on_on")
    p, on = softmax_row(cat_scores()), TOKENS.index("on")
    assert answer == pytest.approx(jacobian_loop(p)[on][on], abs=1e-12)
    assert mistakes == pytest.approx({"no_outer_product": p[on], "no_delta": -(p[on] ** 2)}, abs=1e-12)


def test_exercise_largest_safe_whole_logit_and_its_mistakes():
    answer, mistakes, _ = exercise("largest_safe_whole_logit")
    limit = math.floor(math.log(sys.float_info.max))
    math.exp(limit)  # finite
    with pytest.raises(OverflowError):
        math.exp(limit + 1)
    float32_max = (2 - 2**-23) * 2**127
    assert answer == limit
    assert mistakes == {"rounded_up": round(math.log(sys.float_info.max)), "float32": math.floor(math.log(float32_max))}


def test_exercises_answered_from_the_pages_table_are_accepted():
    """A reader who works from the table's three-decimal numbers gets the answer accepted, not a mistake."""
    z, e, w = table_column("score z_j"), table_column("exp(z_j)"), table_column("weight")
    on, stop, t = TOKENS.index("on"), TOKENS.index("."), published("softmax/exercises")["temperature"]
    replies = {
        "temperature_on": softmax_row([s / t for s in z])[on],
        "without_full_stop": e[on] / (math.fsum(e) - e[stop]),
        "jacobian_on_on": w[on] * (1 - w[on]),
    }
    for name, reply in replies.items():
        verdict = check(reply, *exercise(name))
        assert verdict == ("right", None), (name, reply, verdict)
