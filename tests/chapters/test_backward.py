"""The attention backward pass, checked against finite differences written here (not the snippets').

Oracles: central finite differences of the forward pass (float64), the explicit softmax Jacobian
built entry by entry from its definition, and invariances of the loss (shifting every key by the same
vector changes no weight). Published values of the backward chapter are read from values.json.
"""

import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

from lib.attention import (
    causal_mask,
    scaled_dot_product_attention,
    scaled_dot_product_attention_backward,
    softmax,
    softmax_backward,
)
from lib.debug_tools import relative_error
from support import flat_page, oracle_attention, published, published_table, run_snippet, softmax_row

H = 1e-5
TOLERANCE = 1e-7


def central_differences(q, k, v, mask, g):
    """dL/dq, dL/dk, dL/dv of L = sum(attention(q, k, v) * g): every entry nudged by +-H.

    All nudged copies go through the forward pass at once, stacked on a new leading axis.
    """
    shapes = [a.shape for a in (q, k, v)]
    ndim = max(a.ndim for a in (q, k, v))
    q, k, v = (a.reshape((1,) * (ndim - a.ndim) + a.shape) for a in (q, k, v))  # same rank: the stack axis lines up
    grads = []
    for which, x in enumerate((q, k, v)):
        n = x.size
        bumps = np.eye(n).reshape(n, *x.shape) * H  # (n, *x.shape): one nudged entry per copy
        inputs = [q, k, v]
        outputs = []
        for sign in (1, -1):
            inputs[which] = x + sign * bumps  # (n, *x.shape)
            outputs.append(scaled_dot_product_attention(*inputs, mask)[0])  # (n, ..., Lq, d_v)
        change = (outputs[0] - outputs[1]) * g  # subtract before summing: less rounding
        grads.append(np.sum(change, axis=tuple(range(1, change.ndim))) / (2 * H))  # (n,): one per entry of x
    return [grad.reshape(shape) for grad, shape in zip(grads, shapes)]


@st.composite
def attention_case(draw):
    """Random shapes, batch dims that broadcast (some set to 1 per tensor), masks with fully masked rows."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    batch = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    lq, lk, d_k, d_v = (draw(st.integers(1, 4)) for _ in range(4))

    def shape_for(last_two):
        dims = tuple(1 if draw(st.booleans()) and draw(st.booleans()) else b for b in batch)
        return dims + last_two

    q = rng.normal(size=shape_for((lq, d_k)))
    k = rng.normal(size=shape_for((lk, d_k)))
    v = rng.normal(size=k.shape[:-1] + (d_v,))
    kind = draw(st.sampled_from(["none", "random", "causal", "row fully masked"]))
    mask = None
    scores_shape = np.broadcast_shapes(q.shape[:-2], k.shape[:-2]) + (lq, lk)
    if kind == "random":
        mask = rng.random(scores_shape) < 0.6
    elif kind == "causal" and lq == lk:
        mask = causal_mask(lq)
    elif kind == "row fully masked":
        mask = rng.random(scores_shape) < 0.7
        mask[..., rng.integers(lq), :] = False
    return q, k, v, mask


@given(attention_case())
@pytest.mark.claim(
    "The backward pass matches central finite differences in float64 to a relative error below 1e-7, "
    "for random shapes, broadcast batch dimensions, causal and random masks and fully masked rows (1000 cases)",
    zh="在 float64 下，反向传播与中心有限差分的相对误差低于 "
    "1e-7，涵盖随机形状、广播的批量维度、因果掩码与随机掩码以及全被掩码的行（1000 个用例）",
)
def test_backward_matches_finite_differences(case):
    q, k, v, mask = case
    output, _ = scaled_dot_product_attention(q, k, v, mask)
    g = np.random.default_rng(q.size).normal(size=output.shape)
    analytic = scaled_dot_product_attention_backward(g, q, k, v, mask)
    numerical = central_differences(q, k, v, mask, g)
    for name, a, n, x in zip("qkv", analytic, numerical, (q, k, v)):
        assert a.shape == x.shape, f"d{name} has shape {a.shape}, {name} has {x.shape}"
        # per tensor: relative, plus the finite differences' own rounding noise (~eps / H) for tiny gradients
        scale = max(np.linalg.norm(a), np.linalg.norm(n))
        assert np.linalg.norm(a - n) <= TOLERANCE * scale + 1e-10, f"d{name}: error {np.linalg.norm(a - n):.2e}"
    flat = [np.concatenate([x.ravel() for x in grads]) for grads in (analytic, numerical)]
    whole = relative_error(*flat, euclidean=True)
    assert whole < TOLERANCE, f"relative error of the whole gradient {whole:.2e}"


@pytest.mark.claim(
    "A gradient missing the 1/sqrt(d_k) fails the finite-difference check with a relative error of order 1",
    zh="缺少 1/sqrt(d_k) 的梯度无法通过有限差分检验，相对误差在 1 的量级",
)
def test_finite_differences_catch_a_wrong_gradient():
    """The oracle is sharp: a gradient that is off by the 1/sqrt(d_k) factor fails it."""
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(4, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    g = rng.normal(size=(4, 2))
    dq, _, _ = scaled_dot_product_attention_backward(g, q, k, v)
    numerical_dq = central_differences(q, k, v, None, g)[0]
    assert relative_error(dq, numerical_dq, euclidean=True) < TOLERANCE
    off = relative_error(dq * np.sqrt(3), numerical_dq, euclidean=True)
    assert off == pytest.approx(1 - 1 / np.sqrt(3), rel=1e-6)  # 0.42


@pytest.mark.claim(
    "The softmax vector-Jacobian product y * (dy - <dy, y>) equals J^T dy with J = diag(y) - y y^T",
    zh="softmax 的向量-雅可比矩阵乘积 y * (dy - <dy, y>) 等于 J^T dy，其中 J = diag(y) - y y^T",
)
def test_softmax_backward_equals_explicit_jacobian():
    rng = np.random.default_rng(1)
    for n in (1, 2, 5, 9):
        s = rng.normal(size=n) * 3
        y = softmax(s)
        jacobian = np.array([[y[i] * ((i == j) - y[j]) for j in range(n)] for i in range(n)])  # dy_i / ds_j
        dy = rng.normal(size=n)
        np.testing.assert_allclose(softmax_backward(dy, y), jacobian.T @ dy, rtol=0, atol=1e-15)
        np.testing.assert_allclose(jacobian.sum(axis=1), 0, atol=1e-15)


@pytest.mark.claim(
    "A query whose keys are all masked gets exactly zero gradient for q, and passes none to k or v",
    zh="所有键都被掩码的查询，其 q 的梯度恰好为零，也不向 k 或 v 传递任何梯度",
)
def test_fully_masked_query_gets_zero_gradient():
    rng = np.random.default_rng(2)
    q, k, v = rng.normal(size=(4, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    mask = np.ones((4, 5), dtype=bool)
    mask[1] = False
    g = np.zeros((4, 2))
    g[1] = rng.normal(size=2)  # the loss looks only at the blind query
    dq, dk, dv = scaled_dot_product_attention_backward(g, q, k, v, mask)
    assert not np.isnan(dq).any()
    assert (dq == 0).all() and (dk == 0).all() and (dv == 0).all()


@pytest.mark.claim(
    "Path 1: with the loss on one query's output, value j receives exactly w_ij times that gradient",
    zh="路径 1：损失只取一个查询的输出时，值 j 收到的恰好是该梯度的 w_ij 倍",
)
def test_value_path_is_the_weights_times_the_upstream_gradient():
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(6, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 3))
    _, weights = scaled_dot_product_attention(q, k, v)
    g = np.zeros((6, 3))
    g[2] = rng.normal(size=3)
    dq, _, dv = scaled_dot_product_attention_backward(g, q, k, v)
    np.testing.assert_allclose(dv, np.outer(weights[2], g[2]), rtol=1e-13, atol=1e-15)
    assert np.count_nonzero(np.abs(dq).sum(axis=1)) == 1  # only the query that the loss looks at


@pytest.mark.claim(
    "The key gradients sum to zero: moving every key by the same vector changes no weight",
    zh="键的梯度之和为零：把每个键都平移同一个向量不会改变任何权重",
)
def test_key_gradients_sum_to_zero():
    rng = np.random.default_rng(4)
    q, k, v = rng.normal(size=(2, 5, 4)), rng.normal(size=(2, 7, 4)), rng.normal(size=(2, 7, 3))
    g = rng.normal(size=(2, 5, 3))
    _, dk, _ = scaled_dot_product_attention_backward(g, q, k, v)
    np.testing.assert_allclose(dk.sum(axis=-2), 0, atol=1e-13)
    # and the invariance itself, measured on the forward pass
    shifted, _ = scaled_dot_product_attention(q, k + rng.normal(size=(2, 1, 4)), v)
    np.testing.assert_allclose(shifted, scaled_dot_product_attention(q, k, v)[0], rtol=1e-12)


def test_backward_accepts_values_with_more_batch_dims_than_q_and_k():
    """The forward pass broadcasts v's batch dims; the backward pass must accept the same inputs."""
    rng = np.random.default_rng(5)
    q, k, v = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(2, 5, 6))
    output, _ = scaled_dot_product_attention(q, k, v)  # (2, 3, 6)
    g = rng.normal(size=output.shape)
    analytic = scaled_dot_product_attention_backward(g, q, k, v)
    for a, n in zip(analytic, central_differences(q, k, v, None, g)):
        assert relative_error(a, n, euclidean=True) < TOLERANCE


def numpy_dq(q, k, v, g, score_scale):
    """dL/dq for weights = softmax(score_scale * q k^T / sqrt(d_k)), with the explicit per-row Jacobian."""
    d_k = q.shape[-1]
    scores = score_scale * q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)  # (..., Lq, Lk)
    w = softmax(scores)
    jacobian = w[..., :, None] * (np.eye(w.shape[-1]) - w[..., None, :])  # (..., Lq, Lk, Lk): dw_j / ds_l
    grad_w = g @ np.swapaxes(v, -1, -2)  # (..., Lq, Lk)
    grad_s = np.einsum("...ij,...ijl->...il", grad_w, jacobian)  # (..., Lq, Lk)
    return score_scale * grad_s @ k / np.sqrt(d_k), w


@pytest.mark.claim(
    "Without the 1/sqrt(d_k), at d_k = 1024 the median query gets over 1000 times less gradient than with it, "
    "and most of the largest weights exceed 0.9",
    zh="去掉 1/sqrt(d_k) 后，d_k 为 1024 时中位数查询得到的梯度不到有缩放时的 1/1000，且大多数最大权重超过 0.9",
)
def test_unscaled_attention_starves_the_median_query():
    rng = np.random.default_rng(6)
    d_k, n = 1024, 400
    q, k, v, g = (rng.normal(size=(n, 8, d_k)) for _ in range(4))
    dq_scaled, w_scaled = numpy_dq(q, k, v, g, 1.0)
    dq_unscaled, w_unscaled = numpy_dq(q, k, v, g, np.sqrt(d_k))
    median_scaled = np.median(np.linalg.norm(dq_scaled, axis=-1))
    median_unscaled = np.median(np.linalg.norm(dq_unscaled, axis=-1))
    assert median_unscaled < 1e-3 * median_scaled
    assert np.median(w_unscaled.max(axis=-1)) > 0.9 > np.median(w_scaled.max(axis=-1))
    values = published("backward/saturation")
    assert values["ratio_max"] > 1000
    assert values["median_dq_unscaled_max"] < 1e-3 * values["median_dq_scaled_max"]
    assert values["top_weight_unscaled_max"] > 0.9
    assert values["p90_dq_unscaled_max"] > values["median_dq_scaled_max"]  # the few unsaturated rows get a lot
    assert values["crossover_dk"] > 2  # for small d_k the missing scale does not starve anything yet


def median_rms_dq(d_k, score_scale, n=500, seed=7):
    """Median per-query gradient, RMS per coordinate, for random unit-variance q, k, v, g (8 positions)."""
    rng = np.random.default_rng(seed + d_k)
    q, k, v, g = (rng.normal(size=(n, 8, d_k)) for _ in range(4))
    dq, _ = numpy_dq(q, k, v, g, score_scale)
    return np.median(np.linalg.norm(dq, axis=-1)) / np.sqrt(d_k)


@pytest.mark.claim(
    "With the scale, the median query gradient grows with d_k up to about d_k = 32 and is flat after; without it, "
    "the median at d_k = 64 is still of the same size, and ten times smaller only from d_k = 256",
    zh="有缩放时，查询梯度的中位数随 d_k 增大，直到 d_k 约为 32，之后保持平稳；没有缩放时，d_k 为 64 "
    "的中位数仍是同一量级，从 d_k 为 256 起才降到 1/10",
)
def test_the_shape_of_the_median_query_gradient_over_d_k():
    scaled = {d: median_rms_dq(d, 1.0) for d in (2, 32, 64, 256)}
    assert scaled[2] < 0.75 * scaled[256]  # not independent of d_k: small widths get less
    assert abs(scaled[32] / scaled[256] - 1) < 0.1 and abs(scaled[64] / scaled[256] - 1) < 0.1  # flat from 32
    unscaled_64 = median_rms_dq(64, 8.0)
    assert 0.5 * scaled[64] < unscaled_64 < scaled[64]  # below the scaled one, far from vanished
    assert median_rms_dq(128, np.sqrt(128)) > 0.1 * scaled[64] > median_rms_dq(256, 16.0)
    values = published("backward/saturation")
    assert values["scaled_spread"] > 1.5 and values["flat_from_dk"] == 32
    assert values["crossover_dk"] == 64 and values["median_dq_unscaled_64"] > 0.5 * values["median_dq_scaled_64"]
    assert values["tenfold_dk"] == 256 and values["unscaled_peak_dk"] < 64
    ratios = {
        int(row["d_k"]): float(row["median dq, scaled"]) / float(row["median dq, unscaled"])
        for row in published_table("backward/saturation", "by_dk")
    }
    assert ratios[values["tenfold_dk"]] > 15 and min(r for d, r in ratios.items() if d >= 256) > 10
    english = flat_page("backward.md")  # from tenfold_dk on, more than (not exactly) ten times smaller
    assert english.count("more than ten times smaller from $d_k =$ {{ backward.saturation.tenfold_dk }}") == 2
    assert "is ten times smaller" not in english and "becomes ten times smaller" not in english


@pytest.mark.claim(
    "Below score standard deviation 1 the median query gradient falls in proportion to the scores' scale: divided "
    "by that factor it stays flat, so uniform weights do not shrink the softmax's part of it",
    zh="分数标准差小于 1 时，查询梯度的中位数与分数的缩放因子成正比地下降：除以这个因子后保持平稳，"
    "所以均匀的权重并不缩小其中 softmax 的那一部分",
)
def test_small_scores_shrink_the_query_gradient_only_by_the_chain_rule_factor():
    per_scale = [median_rms_dq(64, scale) / scale for scale in (0.1, 0.3, 1.0)]
    assert max(per_scale) / min(per_scale) < 1.05  # the softmax's own part does not shrink as the weights flatten
    values = published("backward/saturation")
    assert values["std_min"] == pytest.approx(0.1)
    assert values["dq_per_scale_max"] / values["dq_per_scale_min"] < 1.05
    for folder in ("docs", "docs-zh"):
        page = flat_page("backward.md", folder)
        assert "{{ backward.saturation.dq_per_scale_min }}" in page and "{{ backward.saturation.std_min }}" in page
    assert "every key looks the same to the softmax" not in flat_page("backward.md")


@pytest.mark.claim(
    "Saturation starves the query gradient while the value gradient grows: its median more than doubles from score "
    "standard deviation 1 to 31.6",
    zh="饱和让查询梯度枯竭，值梯度却在增大：从分数标准差 1 到 31.6，它的中位数增大到原来的两倍多",
)
def test_saturation_leaves_the_value_path_flowing_and_growing():
    values = published("backward/saturation")
    assert values["median_dv_std_max"] > 2 * values["median_dv_std1"]
    assert values["median_dq_std_max"] < 1e-3 * values["median_dq_std1"]
    assert "leaves path 1 alone" not in flat_page("backward.md")
    assert "路径 1 不受影响" not in flat_page("backward.md", "docs-zh")
    for folder in ("docs", "docs-zh"):
        assert "{{ backward.saturation.median_dv_std1 }}" in flat_page("backward.md", folder)


@pytest.mark.claim(
    "Without the scale, at d_k = 1024 a tenth of the rows get more gradient than the scaled attention's median at "
    "any d_k, and most of the rows get almost none; the snippet measures shares, not which keys tie",
    zh="不缩放时，d_k 为 1024 时十分之一的行得到的梯度比缩放注意力在任何 d_k 下的中位数都大，大多数行几乎得不到梯度；"
    "代码片段测量的是比例，而不是哪些键并列",
)
def test_the_starvation_bullet_says_what_the_percentiles_measure():
    values = published("backward/saturation")
    scaled_medians = [float(row["median dq, scaled"]) for row in published_table("backward/saturation", "by_dk")]
    assert values["p90_dq_unscaled_max"] > max(scaled_medians) and values["starved_unscaled_max"] > 0.5
    assert "two keys nearly tie" not in flat_page("backward.md")
    assert "两个键几乎并列" not in flat_page("backward.md", "docs-zh")


@pytest.mark.claim(
    "The backward page marks seed tutorial 003's sentences as translations, and the Chinese quotes no more of them "
    "than the figure measures",
    zh="反向传播一页把种子教程 003 的句子标为译文，中文版引用的也不超出图所测量的内容",
)
def test_the_seed_003_quotations_are_named_and_marked_as_translations():
    page = flat_page("backward.md")
    assert page.count("Seed tutorial 003 states") + page.count("claims of seed tutorial 003") == 2
    assert page.count("translated from its Chinese") == 2 and "One of our source tutorials" not in page
    assert "调整查询和匹配的逻辑" not in flat_page("backward.md", "docs-zh")


@pytest.mark.claim(
    "The backward chapter's finite-difference checks report relative errors below 1e-7",
    zh="反向传播一章的有限差分检验报告的相对误差低于 1e-7",
)
def test_published_finite_difference_errors_are_small():
    assert published("backward/gradcheck")["max_rel_error"] < TOLERANCE
    assert published("backward/softmax")["rel_error_fd"] < TOLERANCE
    assert published("backward/softmax")["max_diff_full"] < 1e-15
    assert published("backward/paths")["max_diff_core"] < 1e-15


@pytest.mark.claim(
    "In the paths example every key of 'cat' has a positive weight, so every value gets gradient; "
    "a masked key (weight 0) gets none",
    zh="在路径示例中，“cat” 的每个键都有正权重，所以每个值都得到梯度；被掩码的键（权重为 0）得不到梯度",
)
def test_every_value_gets_gradient_unless_masked():
    from lib.running_example import SENTENCE, embed, projection_weights, tokenize

    x = embed(tokenize(SENTENCE))
    q, k, v = (x @ w for w in projection_weights())
    g = np.zeros((len(x), v.shape[1]))
    g[1] = np.random.default_rng(2104).normal(size=v.shape[1])  # a loss on the output of "cat" only
    _, _, d_v = scaled_dot_product_attention_backward(g, q, k, v)
    assert (np.linalg.norm(d_v, axis=1) > 0).all()  # "a key that cat ignores" does not occur here
    mask = causal_mask(len(x))
    _, _, d_v_masked = scaled_dot_product_attention_backward(g, q, k, v, mask)
    assert (np.linalg.norm(d_v_masked[2:], axis=1) == 0).all()  # keys after "cat" are masked for its row
    page = flat_page("backward.md")
    assert 'A key that "cat" ignores gets no value gradient.' not in page


# ------------------------------------------------------------------ exercises, against the Jacobian, finite differences
EXERCISES = published("backward/exercises")


def test_exercise_vjp_of_the_first_score_by_the_jacobian():
    p = softmax_row(run_snippet("backward/softmax")["s"].tolist())  # softmax.py's weights, by plain math
    upstream = [float(x) for x in EXERCISES["vjp_upstream"].split(", ")]
    jacobian = [[p[i] * ((i == j) - p[j]) for j in range(5)] for i in range(5)]  # dp_i / ds_j
    first = sum(upstream[i] * jacobian[i][0] for i in range(5))  # (J^T p_bar)_1
    mean = sum(a * b for a, b in zip(upstream, p))
    assert EXERCISES["vjp_first_score"] == pytest.approx(first, abs=1e-12)
    assert EXERCISES["vjp_first_score__mean_left_out"] == pytest.approx(p[0] * upstream[0], abs=1e-12)
    assert EXERCISES["vjp_first_score__p_left_out"] == pytest.approx(upstream[0] - mean, abs=1e-12)
    assert EXERCISES["vjp_mean"] == pytest.approx(mean, abs=1e-12)
    assert EXERCISES["vjp_first_weight"] == pytest.approx(p[0], abs=1e-12)


def test_exercise_shape_of_the_gradient_of_a_shared_key_by_finite_differences():
    rng = np.random.default_rng(11)
    q, k, v = (rng.normal(size=EXERCISES[f"shared_{name}_shape"]) for name in "qkv")
    g = rng.normal(size=q.shape[:-1] + v.shape[-1:])
    _, dk, _ = central_differences(q, k, v, None, g)
    assert EXERCISES["dk_shape_shared"] == list(dk.shape) == list(k.shape)
    k_per_slice = np.broadcast_to(k, q.shape[:-2] + k.shape).copy()  # one copy of k per (batch, head) slice
    _, dk_per_slice, _ = central_differences(q, k_per_slice, v, None, g)
    np.testing.assert_allclose(dk_per_slice.sum(axis=(0, 1)), dk, atol=1e-8)  # the sum over the broadcast axes
    assert EXERCISES["dk_shape_shared__not_summed"] == list(dk_per_slice.shape)
    assert EXERCISES["dk_shape_shared__product_other_way"] == [*q.shape[:-2], q.shape[-1], k.shape[0]]


def test_exercise_loss_evaluations_of_the_central_difference_check():
    row = next(r for r in published_table("backward/gradcheck", "errors") if r["case"] == "no mask")
    sizes = [int(a) * int(b) for a, b in re.findall(r"\((\d+), (\d+)\)", row["shapes"])]
    assert len(sizes) == 3 and EXERCISES["checked_entries"] == sum(sizes)
    assert EXERCISES["central_evaluations"] == 2 * sum(sizes)
    assert EXERCISES["central_evaluations__forward_differences"] == sum(sizes) + 1


def test_exercise_mean_term_of_the_row_of_cat_by_the_loop_oracle():
    ns = run_snippet("backward/paths")
    q, k, v, cat = ns["q"].tolist(), ns["k"].tolist(), ns["v"].tolist(), ns["tokens"].index("cat")
    g = ns["grad_output"][cat].tolist()
    output, weights = oracle_attention(q, k, v)
    upstream = [sum(a * b for a, b in zip(g, v_j)) for v_j in v]  # p_bar_j = g . v_j
    mean = sum(p * u for p, u in zip(weights[cat], upstream))
    assert EXERCISES["cat_mean_term"] == pytest.approx(mean, abs=1e-12)
    assert EXERCISES["cat_mean_term__plain_mean"] == pytest.approx(sum(upstream) / len(upstream), abs=1e-12)
    assert EXERCISES["cat_mean_term__plain_sum"] == pytest.approx(sum(upstream), abs=1e-12)
    assert EXERCISES["cat_loss"] == pytest.approx(sum(a * b for a, b in zip(g, output[cat])), abs=1e-12)
    assert EXERCISES["cat_loss"] == pytest.approx(mean, abs=1e-12)  # the solution's identity


@pytest.mark.parametrize("folder", ["docs", "docs-zh"])
def test_exercise_3_names_the_gradient_check_case_as_its_table_writes_it(folder):
    from scripts.exercises import exercises
    from support import REPO

    rows = published_table("backward/gradcheck", "errors")
    case = "no mask"
    if folder == "docs-zh":  # the Chinese edition shows the table in Chinese
        import json

        zh = json.loads(
            (REPO / "docs-zh/generated/backward/gradcheck/table-errors.zh.json").read_text(encoding="utf-8")
        )
        case = zh["rows"][[r["case"] for r in rows].index("no mask")][0]
    (question,) = [
        e.question
        for e in exercises((REPO / folder / "backward.md").read_text(encoding="utf-8"))
        if e.name == "central_evaluations"
    ]
    assert f'"{case}"' in question or f"“{case}”" in question


def test_the_core_s_numeric_gradient_evaluates_the_loss_twice_per_entry_like_the_page_s_check():
    from lib.debug_tools import numeric_gradient

    x = np.random.default_rng(3).normal(size=(4, 5))
    calls = {"core": 0, "page": 0}

    def core_loss(a):
        calls["core"] += 1
        return float((a**2).sum())

    def page_loss():
        calls["page"] += 1
        return float((x**2).sum())

    numeric_gradient(core_loss, x)
    run_snippet("backward/gradcheck")["numerical_gradient"](page_loss, x)
    assert calls == {"core": 2 * x.size, "page": 2 * x.size}
