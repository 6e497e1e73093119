"""The chapter "Scaled dot-product attention and the sqrt(d_k)": its published numbers, checked independently.

Each test recomputes a statement of docs/scaled-dot-product.md in a different way from the snippet that
publishes it (a fresh random generator, a loop, a closed form, finite differences), and checks the committed
outputs in docs/generated/scaled_dot_product/ against the theory the page states.
"""

import math
import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

from lib.attention import sinusoidal_positions, softmax
from lib.debug_tools import numeric_gradient
from lib.exercises import check
from lib.running_example import SENTENCE, embed, projection_weights, tokenize
from lib.seeded import normals
from scripts.pipeline.references import read_page, without_references
from support import (
    REPO,
    nonempty_glob,
    oracle_attention,
    published,
    published_exercise,
    published_table,
    section_output,
    softmax_row,
)

CHAPTER = REPO / "docs" / "scaled-dot-product.md"


def number(cell):
    """'37.4%' -> 0.374, '3.6e-07' -> 3.6e-07."""
    return float(cell[:-1]) / 100 if cell.endswith("%") else float(cell)


# ---------------------------------------------------------------- the formula, step by step


def oracle_running_example():
    """Weights and output of the running sentence from the plain-loop oracle (no NumPy attention code)."""
    x = embed(tokenize(SENTENCE))
    w_q, w_k, w_v = projection_weights()
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    output, weights = oracle_attention(q.tolist(), k.tolist(), v.tolist())
    return np.array(weights), np.array(output), (q, k, v)


@pytest.mark.claim(
    "The heatmap's weights are the running sentence's softmax(q k^T / sqrt(d_k)), and every row sums to 1",
    zh="热力图中的权重是贯穿示例句子的 softmax(q k^T / sqrt(d_k))，且每行之和为 1",
)
def test_heatmap_weights_match_the_loop_oracle_and_rows_sum_to_one():
    weights = np.array(published("scaled_dot_product/steps")["heatmap_weights"])
    want, _, _ = oracle_running_example()
    assert weights.shape == (len(tokenize(SENTENCE)),) * 2
    np.testing.assert_allclose(weights, want, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, atol=1e-12)
    assert (weights >= 0).all() and (weights <= 1).all()


@pytest.mark.claim(
    "The five steps done by hand give the same output as the core scaled_dot_product_attention",
    zh="手工完成的五个步骤与核心实现 scaled_dot_product_attention 给出相同的输出",
)
def test_steps_by_hand_equal_the_core_function():
    values = published("scaled_dot_product/steps")
    assert values["max_error_vs_core"] < 1e-12
    assert values["max_row_sum_error"] < 1e-12


@pytest.mark.claim(
    'The row of "cat" puts its largest weight on "on"; scaled scores are the scores divided by sqrt(8)',
    zh="“cat” 的行把最大的权重放在 “on” 上；缩放后的分数就是分数除以 sqrt(8)",
)
def test_cat_row_table():
    rows = published_table("scaled_dot_product/steps", "cat_row")
    weights, _, (q, k, _) = oracle_running_example()
    tokens = tokenize(SENTENCE)
    cat = tokens.index("cat")
    assert [r["key"] for r in rows] == tokens
    for j, row in enumerate(rows):
        score = sum(a * b for a, b in zip(q[cat], k[j]))  # a dot product, one term at a time
        assert number(row["score q·k"]) == pytest.approx(score, abs=6e-4)
        assert number(row["scaled score"]) == pytest.approx(score / math.sqrt(8), abs=6e-4)
        assert number(row["weight"]) == pytest.approx(weights[cat][j], abs=6e-4)
    top = tokens[int(np.argmax(weights[cat]))]
    assert published("scaled_dot_product/steps")["cat_top_key"] == top == "on"


@pytest.mark.claim(
    '"The" and "the" share one embedding, so their rows of weights are identical',
    zh="“The” 和 “the” 共用同一个嵌入，所以它们的权重行完全相同",
)
def test_the_and_the_have_identical_rows():
    weights = np.array(published("scaled_dot_product/steps")["heatmap_weights"])
    tokens = tokenize(SENTENCE)
    assert np.array_equal(weights[tokens.index("The")], weights[tokens.index("the")])
    assert published("scaled_dot_product/steps")["the_rows_max_difference"] == 0.0


@pytest.mark.claim(
    "The shape table lists the real shape of every intermediate tensor", zh="形状表列出了每个中间张量的真实形状"
)
def test_shape_table_matches_the_running_example():
    length, d_model = len(tokenize(SENTENCE)), embed(tokenize(SENTENCE)).shape[1]
    d_k = projection_weights()[0].shape[1]
    want = {
        "tokens": (length,),
        "x": (length, d_model),
        "w_q, w_k": (d_model, d_k),
        "w_v": (d_model, d_k),
        "q, k": (length, d_k),
        "v": (length, d_k),
        "k.T": (d_k, length),
        "scores": (length, length),
        "scaled": (length, length),
        "weights": (length, length),
        "output": (length, d_k),
    }
    rows = published_table("scaled_dot_product/steps", "shapes")
    assert {r["tensor"]: r["shape here"] for r in rows} == {name: str(shape) for name, shape in want.items()}
    sizes = {"L": length, "d_model": d_model, "d_k": d_k, "d_v": d_k}
    for row in rows:  # the symbolic column agrees with the numbers
        symbols = row["shape in symbols"]
        assert str(tuple(sizes[s.strip()] for s in symbols.strip("(),").split(",") if s.strip())) == row["shape here"]


# ---------------------------------------------------------------- the variance argument


@pytest.mark.claim(
    "In the published table, Var(q·k) is within 10% of d_k and Var(q·k/sqrt(d_k)) within 10% of 1, for every d_k",
    zh="在发布的表中，对每个 d_k，Var(q·k) 与 d_k 相差不到 10%，Var(q·k/sqrt(d_k)) 与 1 相差不到 10%",
)
def test_published_variance_table_follows_the_theory():
    rows = published_table("scaled_dot_product/variance", "variance")
    assert [int(r["d_k"]) for r in rows] == [4, 16, 64, 256, 1024]
    for row in rows:
        d_k = int(row["d_k"])
        assert number(row["Var(q·k)"]) == pytest.approx(d_k, rel=0.10)
        assert number(row["Var(q·k / √d_k)"]) == pytest.approx(1.0, rel=0.10)
        assert number(row["std of q·k"]) == pytest.approx(math.sqrt(d_k), rel=0.05)
        assert abs(number(row["mean of q·k"])) < 5 * math.sqrt(d_k / 10_000)  # mean 0, within 5 standard errors


@pytest.mark.claim(
    "For iid zero-mean unit-variance components, Var(q·k) = d_k and Var(q·k/sqrt(d_k)) = 1",
    zh="对于独立同分布、均值为零、方差为 1 的分量，Var(q·k) = d_k，Var(q·k/sqrt(d_k)) = 1",
)
def test_variance_theory_with_an_independent_sample():
    rng = np.random.Generator(np.random.MT19937(99))  # a different bit generator from the snippet's
    for d_k in (4, 16, 64, 256, 1024):
        dots = np.zeros(20_000)
        for i in range(d_k):  # accumulate q . k one component at a time
            dots += rng.standard_normal(20_000) * rng.standard_normal(20_000)
        variance = np.sum((dots - dots.mean()) ** 2) / (dots.size - 1)
        assert variance == pytest.approx(d_k, rel=0.10)
        assert variance / d_k == pytest.approx(1.0, rel=0.10)


@pytest.mark.claim(
    "The variance argument needs unit-variance q and k: with components of std sigma the scaled variance is sigma^4",
    zh="方差论证要求 q 和 k 的方差为 1：分量的标准差为 sigma 时，缩放后的方差是 sigma^4",
)
def test_scaled_variance_is_sigma_to_the_fourth():
    for row in published_table("scaled_dot_product/variance", "sigma"):
        sigma = number(row["std σ of each component"])
        assert number(row["theory σ⁴"]) == pytest.approx(sigma**4, rel=1e-2)
        assert number(row["measured Var(q·k / √d_k)"]) == pytest.approx(sigma**4, rel=0.10)
    rng = np.random.default_rng(5)
    for sigma_q, sigma_k in [(0.01, 0.01), (0.3, 3.0), (11.0, 11.0)]:  # independently: uneven sigmas too
        q, k = sigma_q * rng.standard_normal((20_000, 64)), sigma_k * rng.standard_normal((20_000, 64))
        scaled = (q * k).sum(axis=1) / 8.0
        assert scaled.var() == pytest.approx((sigma_q * sigma_k) ** 2, rel=0.10)


# ---------------------------------------------------------------- saturation


def jacobian_norm_closed_form(p):
    """||diag(p) - p p^T||_F from sum_i p_i^2 (1 - p_i)^2 + sum_{i != j} p_i^2 p_j^2 = S2 - 2 S3 + S2^2."""
    s2, s3 = np.sum(p**2, axis=-1), np.sum(p**3, axis=-1)
    return np.sqrt(np.maximum(s2 - 2 * s3 + s2**2, 0.0))


@given(st.lists(st.floats(-30, 30), min_size=1, max_size=12))
def test_jacobian_closed_form_equals_the_matrix(logits):
    p = np.array(softmax_row(logits))
    matrix = np.diag(p) - np.outer(p, p)
    assert jacobian_norm_closed_form(p) == pytest.approx(np.linalg.norm(matrix), rel=1e-6, abs=1e-7)


def saturation_sample(d_k, rows, rng, n_keys=7):
    q, k = rng.standard_normal((rows, 1, d_k)), rng.standard_normal((rows, n_keys, d_k))
    scores = np.einsum("rqd,rkd->rk", q, k)
    return softmax(scores), softmax(scores / math.sqrt(d_k))


@pytest.mark.claim(
    "Unscaled, the largest weight climbs towards 1 and the entropy and softmax Jacobian fall as d_k grows; scaled, "
    "all three stay flat",
    zh="不缩放时，随着 d_k 增大，最大权重趋向 1，熵和 softmax 雅可比矩阵则下降；缩放后三者都保持平稳",
)
def test_published_saturation_tables_show_saturation_only_without_scaling():
    unscaled = published_table("scaled_dot_product/saturation", "saturation_unscaled")
    scaled = published_table("scaled_dot_product/saturation", "saturation_scaled")
    top_u = [number(r["mean largest weight"]) for r in unscaled]
    ent_u = [number(r["mean entropy (nats)"]) for r in unscaled]
    jac_u = [number(r["mean ‖J‖_F"]) for r in unscaled]
    assert top_u == sorted(top_u) and top_u[-1] > 0.95
    assert ent_u == sorted(ent_u, reverse=True) and ent_u[-1] < 0.1
    assert jac_u == sorted(jac_u, reverse=True)
    for column in ("mean largest weight", "mean entropy (nats)", "mean ‖J‖_F"):
        values = [number(r[column]) for r in scaled]
        assert max(values) - min(values) < 0.05, column
    assert number(unscaled[-1]["median ‖J‖_F"]) < 1e-4 * number(scaled[-1]["median ‖J‖_F"])


@pytest.mark.claim(
    "At d_k = 64, unscaled rows average a largest weight near 0.88 and over a third of them exceed 0.99; scaled rows "
    "stay near 0.39",
    zh="d_k 为 64 时，不缩放的行最大权重平均接近 0.88，其中超过 1/3 的行超过 0.99；缩放后的行保持在 0.39 左右",
)
def test_saturation_at_d_k_64_with_an_independent_sample():
    values = published("scaled_dot_product/saturation")
    assert values["max_weight_unscaled_64"] == pytest.approx(0.88, abs=0.01)
    assert 1 / 3 < values["share_one_hot_unscaled_64"] < 0.45
    assert values["max_weight_scaled_64"] == pytest.approx(0.39, abs=0.01)
    p_unscaled, p_scaled = saturation_sample(64, 20_000, np.random.default_rng(2024))
    assert p_unscaled.max(axis=1).mean() == pytest.approx(values["max_weight_unscaled_64"], abs=0.02)
    assert p_scaled.max(axis=1).mean() == pytest.approx(values["max_weight_scaled_64"], abs=0.02)
    assert np.mean(p_unscaled.max(axis=1) > 0.99) == pytest.approx(values["share_one_hot_unscaled_64"], abs=0.04)
    assert np.mean(p_scaled.max(axis=1) > 0.99) < 0.01
    assert jacobian_norm_closed_form(p_unscaled).mean() == pytest.approx(values["jacobian_unscaled_64"], abs=0.015)
    assert jacobian_norm_closed_form(p_scaled).mean() == pytest.approx(values["jacobian_scaled_64"], abs=0.015)
    entropy = -np.sum(np.where(p_scaled > 0, p_scaled * np.log(np.where(p_scaled > 0, p_scaled, 1)), 0), axis=1)
    assert entropy.mean() == pytest.approx(values["entropy_scaled_64"], abs=0.03)


@pytest.mark.claim(
    "The explorable's opening row (d_k = 64, seed 0) is flatter than the figure's average row: spread below "
    "sqrt(d_k) = 8, largest weight below the mean, entropy above it; dividing by sqrt(d_k) divides its spread by 8",
    zh="可交互示例的起始行（d_k = 64，种子 0）比图中的平均行更平：标准差低于 sqrt(d_k) = 8，最大权重低于平均值，"
    "熵高于平均值；除以 sqrt(d_k) 使标准差缩小为 1/8",
)
def test_the_opening_row_of_the_explorable_beside_the_figures_average():
    values = published("scaled_dot_product/saturation")
    assert values["opening_dk"] == 64
    draws = normals(0, 8 * 64)  # the page's generator: the query first, then the seven keys
    q, keys = draws[:64], [draws[64 * (j + 1) : 64 * (j + 2)] for j in range(7)]
    for name, divisor in (("unscaled", 1.0), ("scaled", 8.0)):
        scores = [sum(a * b for a, b in zip(q, key)) / divisor for key in keys]
        mean = sum(scores) / 7
        weights = softmax_row(scores)
        bits = -sum(w * math.log2(w) for w in weights)
        std = math.sqrt(sum((s - mean) ** 2 for s in scores) / 7)
        assert values[f"opening_score_std_{name}"] == pytest.approx(std, rel=1e-9)
        assert values[f"opening_top_weight_{name}"] == pytest.approx(max(weights), rel=1e-9)
        assert values[f"opening_entropy_bits_{name}"] == pytest.approx(bits, rel=1e-9)
    assert values["opening_score_std_unscaled"] < 8
    assert values["opening_score_std_scaled"] == pytest.approx(values["opening_score_std_unscaled"] / 8, rel=1e-9)
    assert values["opening_top_weight_unscaled"] < values["max_weight_unscaled_64"]
    assert values["opening_entropy_bits_unscaled"] * math.log(2) > values["entropy_unscaled_64"]
    assert values["opening_top_weight_scaled"] < values["opening_top_weight_unscaled"]
    assert values["opening_entropy_bits_scaled"] > values["opening_entropy_bits_unscaled"]


@pytest.mark.claim(
    "For uniform weights the softmax Jacobian has Frobenius norm sqrt(L - 1)/L; for one-hot weights it is 0",
    zh="权重均匀时，softmax 雅可比矩阵的弗罗贝尼乌斯范数为 sqrt(L - 1)/L；权重为独热时为 0",
)
def test_uniform_reference_values():
    values = published("scaled_dot_product/saturation")
    assert values["uniform_max_weight"] == pytest.approx(1 / 7)
    assert values["uniform_entropy"] == pytest.approx(math.log(7))
    assert values["uniform_jacobian_norm"] == pytest.approx(math.sqrt(6) / 7)  # (1/L) sqrt(L - 1)
    for n in range(1, 20):
        uniform, one_hot = np.full(n, 1 / n), np.eye(n)[0]
        assert np.linalg.norm(np.diag(uniform) - np.outer(uniform, uniform)) == pytest.approx(math.sqrt(n - 1) / n)
        assert np.linalg.norm(np.diag(one_hot) - np.outer(one_hot, one_hot)) == 0.0


# ---------------------------------------------------------------- initialisation


def hand_grad_w_q(x, w_q, w_k, w_v, d_output):
    """dL/dW_q for L = sum(output * d_output), derived by hand, one sentence at a time (no core backward)."""
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    d_k = q.shape[-1]
    p = softmax(q @ k.T / math.sqrt(d_k))
    d_p = d_output @ v.T  # dL/dp_ij = g_i . v_j
    d_s = p * (d_p - np.sum(d_p * p, axis=1, keepdims=True))  # softmax backward, row by row
    d_q = d_s @ k / math.sqrt(d_k)
    return x.T @ d_q


def test_hand_gradient_matches_finite_differences():
    rng = np.random.default_rng(3)
    x, d_output = rng.standard_normal((4, 5)), rng.standard_normal((4, 3))
    w_q, w_k, w_v = (rng.standard_normal((5, 3)) * 0.5 for _ in range(3))

    def loss(w):
        p = softmax((x @ w) @ (x @ w_k).T / math.sqrt(3))
        return np.sum((p @ (x @ w_v)) * d_output)

    np.testing.assert_allclose(hand_grad_w_q(x, w_q, w_k, w_v, d_output), numeric_gradient(loss, w_q), atol=1e-7)


@pytest.mark.claim(
    "The std of the scaled scores is d_model·sigma_W^2: 128 for N(0,1), 0.0128 for 0.01·N(0,1), 1 for N(0,1/d_model)",
    zh="缩放后分数的标准差为 d_model·sigma_W^2：N(0,1) 时为 128，0.01·N(0,1) 时为 0.0128，N(0,1/d_model) 时为 1",
)
def test_score_std_follows_d_model_sigma_squared():
    for row in published_table("scaled_dot_product/init", "init_random"):
        predicted = number(row["predicted std"])
        assert predicted == pytest.approx(128 * number(row["σ_W"]) ** 2, rel=0.02)
        assert number(row["measured std"]) == pytest.approx(predicted, rel=0.10)
    rng = np.random.default_rng(77)  # independently, one sentence at a time
    for sigma_w, want in [(1.0, 128.0), (0.01, 0.0128), (1 / math.sqrt(128), 1.0)]:
        stds = []
        for _ in range(100):
            x = rng.standard_normal((6, 128))
            w_q, w_k = sigma_w * rng.standard_normal((128, 64)), sigma_w * rng.standard_normal((128, 64))
            stds.append(((x @ w_q) @ (x @ w_k).T / 8.0).ravel())
        assert np.std(np.concatenate(stds)) == pytest.approx(want, rel=0.10)


@pytest.mark.claim(
    "On the running sentence the three inits rescale the same draws, so the score std scales exactly with sigma_W^2",
    zh="在贯穿示例的句子上，三种初始化是对同一组抽样的缩放，所以分数的标准差恰好与 sigma_W^2 成正比",
)
def test_running_sentence_score_std_scales_with_sigma_squared():
    values = published("scaled_dot_product/init")
    std1, small, xavier = (values[f"score_std_{n}_sentence"] for n in ("std1", "small", "xavier"))
    assert std1 / xavier == pytest.approx(8.0, rel=1e-9)  # (1 / (1/sqrt(8)))^2
    assert small / xavier == pytest.approx(8 * 0.01**2, rel=1e-9)  # (0.01 / (1/sqrt(8)))^2


def random_init_sample(rng, sentences):
    """Per init: largest weights of every row, ||J||_F of every row, ||dL/dW_q||_F of every sentence."""
    out = {sigma_w: ([], [], []) for sigma_w in (1.0, 0.01, 1 / math.sqrt(128))}
    for _ in range(sentences):
        x, d_output = rng.standard_normal((6, 128)), rng.standard_normal((6, 64))
        z = [rng.standard_normal((128, 64)) for _ in range(3)]
        for sigma_w, (tops, jacobians, gradients) in out.items():
            w_q, w_k, w_v = (sigma_w * z_i for z_i in z)
            p = softmax((x @ w_q) @ (x @ w_k).T / 8.0)
            tops.extend(p.max(axis=1))
            jacobians.extend(jacobian_norm_closed_form(p))
            gradients.append(np.linalg.norm(hand_grad_w_q(x, w_q, w_k, w_v, d_output)))
    return {sigma_w: tuple(np.array(a) for a in arrays) for sigma_w, arrays in out.items()}


@pytest.fixture(scope="module")
def init_sample():
    return random_init_sample(np.random.default_rng(11), 300)


@pytest.mark.claim(
    "At seed 000's sizes, N(0,1) projections give one-hot rows and 0.01·N(0,1) gives uniform rows, both with the "
    "scaling; N(0,1/d_model) gives neither",
    zh="在种子教程 000 的尺寸下，即使有缩放，N(0,1) 投影也得到独热的行，0.01·N(0,1) 得到均匀的行；N(0,1/d_model) "
    "两者都不会",
)
def test_init_extremes(init_sample):
    values = published("scaled_dot_product/init")
    assert values["max_weight_std1_random"] > 0.98
    assert abs(values["max_weight_small_random"] - 1 / 6) < 0.01
    assert 1.5 / 6 < values["max_weight_xavier_random"] < 0.9
    tops = {sigma_w: arrays[0].mean() for sigma_w, arrays in init_sample.items()}
    assert tops[1.0] > 0.98
    assert abs(tops[0.01] - 1 / 6) < 0.01
    assert 1.5 / 6 < tops[1 / math.sqrt(128)] < 0.9


@pytest.mark.claim(
    "With 0.01·N(0,1) the median sentence's gradient to W_q is about (0.088/0.01)^2 ≈ 78 times smaller than with "
    "N(0,1/d_model); it varies from sentence to sentence, and no sentence escapes it or is cut off",
    zh="使用 0.01·N(0,1) 时，传给 W_q 的梯度中位数约为 N(0,1/d_model) 时的 1/78（(0.088/0.01)^2 ≈ 78）；"
    "它因句子而异，没有哪个句子逃过缩小，也没有哪个句子被切断",
)
def test_small_init_gradient_shrinks_like_sigma_squared(init_sample):
    values = published("scaled_dot_product/init")
    ratio = values["grad_median_xavier_random"] / values["grad_median_small_random"]
    assert ratio == pytest.approx(128 / 0.01**2 / 128**2, rel=0.2)  # (sigma_xavier / sigma_small)^2 = 78.1
    small, xavier = init_sample[0.01][2], init_sample[1 / math.sqrt(128)][2]
    assert np.median(xavier) / np.median(small) == pytest.approx(78.125, rel=0.2)
    assert np.quantile(small, 0.9) < np.quantile(xavier, 0.1) / 10  # no sentence escapes it
    # not "the same for every sentence": the spread of the small init's gradient is published and real
    assert values["grad_p90_small_random"] > 1.1 * values["grad_median_small_random"]
    assert np.quantile(small, 0.9) > 1.1 * np.median(small)
    assert values["dead_sentence_count_small_random"] == 0 and small.min() > 1e-6  # no sentence is cut off


@pytest.mark.claim(
    "With N(0,1) most rows are saturated (||J||_F < 1e-6) and about a quarter of sentences send W_q no gradient, "
    "while others send more than the healthy init",
    zh="使用 N(0,1) 时，大多数行都已饱和（||J||_F < 1e-6），约 1/4 的句子不向 W_q "
    "传递梯度，而其他句子传递的梯度比正常的初始化还多",
)
def test_std1_init_gradient_is_erratic(init_sample):
    values = published("scaled_dot_product/init")
    assert values["dead_rows_std1_random"] > 0.5 and values["dead_rows_xavier_random"] == 0
    assert 0.1 < values["dead_sentences_std1_random"] < 0.45
    assert values["grad_p90_std1_random"] > values["grad_p90_xavier_random"]
    jacobians, gradients = init_sample[1.0][1], init_sample[1.0][2]
    assert np.mean(jacobians < 1e-6) > 0.5
    assert 0.1 < np.mean(gradients < 1e-6) < 0.45
    assert np.quantile(gradients, 0.9) > np.quantile(init_sample[1 / math.sqrt(128)][2], 0.9)


def test_running_sentence_init_uses_the_shared_projection_weights():
    """The table's N(0, 1/d_model) row for the running sentence is the chapter's own heatmap setting."""
    values = published("scaled_dot_product/init")
    steps = published("scaled_dot_product/steps")
    assert values["score_std_xavier_sentence"] == pytest.approx(steps["scaled_score_std"], rel=1e-12)


# ---------------------------------------------------------------- the seeds' code


def seed_000_recipe(rng):
    """Seed 000's recipe written out again: std-1 projections, d_k = 64 of head 0, causal mask by -1e9."""
    x = rng.standard_normal((6, 128)) + sinusoidal_positions(6, 128)
    w_q, w_k = rng.standard_normal((128, 128)), rng.standard_normal((128, 128))
    q, k = (x @ w_q)[:, :64], (x @ w_k)[:, :64]  # head 0 = the first 64 columns
    future = np.triu(np.ones((6, 6)), k=1)
    return q @ k.T - 1e9 * future, q @ k.T / 8.0 - 1e9 * future


@pytest.mark.claim(
    'Seed 000\'s code never gives "[0.999, 0.0001, ...]" without the scaling: its softmax returns NaN rows, a stable '
    "one rows whose top weight is exactly 1.0",
    zh="不缩放时，种子教程 000 的代码永远不会给出 “[0.999, 0.0001, ...]”：它的 softmax 返回 NaN 行，稳定的 softmax "
    "返回最大权重恰好为 1.0 的行",
)
def test_seed_000_unscaled_is_nan_or_one_hot():
    values = published("scaled_dot_product/seed_claims")
    assert values["s000_nan_rows"] >= 1 and values["s000_one_hot_rows_unscaled"] == values["s000_rows"]
    assert values["s000_max_unscaled_score"] > values["exp_limit"] == pytest.approx(math.log(np.finfo(float).max))
    for seed in range(20):  # any seed: some row's naive exp overflows or underflows
        unscaled, _ = seed_000_recipe(np.random.default_rng(1000 + seed))
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(unscaled)
            naive = e / e.sum(axis=1, keepdims=True)
        assert np.isnan(naive).any()
        stable = np.array([softmax_row(list(row)) for row in unscaled])  # the loop oracle's softmax
        assert np.mean(stable.max(axis=1) == 1.0) >= 0.5


@pytest.mark.claim(
    "Seed 000's unscaled rows are one-hot only to within float64 rounding: top weight 1.0, other weights tiny but "
    "not all 0",
    zh="种子教程 000 不缩放的行只在 float64 舍入误差范围内是独热的：最大权重为 1.0，其他权重极小但并非全为 0",
)
def test_seed_000_unscaled_rows_are_one_hot_to_rounding_not_exactly():
    values = published("scaled_dot_product/seed_claims")
    smallest = values["s000_largest_other_weight_unscaled"]
    assert 0.0 < smallest < values["float64_resolution_at_1"] == np.finfo(np.float64).epsneg
    assert 1.0 - smallest == 1.0  # why the top weight prints as exactly 1
    row = [700.0, 700.0 - 266.0, 0.0]  # a gap like the page's row: e^-266 is about 1e-116
    weights = softmax_row(row)  # the loop oracle's softmax
    assert weights[0] == 1.0 and 0.0 < weights[1] < 1e-100


@pytest.mark.claim(
    "With seed 000's std-1 projections, dividing by sqrt(d_k) does not make the weights smooth: most rows stay above "
    "0.999",
    zh="使用种子教程 000 标准差为 1 的投影时，除以 sqrt(d_k) 并不能使权重变得平滑：大多数行仍高于 0.999",
)
def test_seed_000_scaled_stays_one_hot():
    values = published("scaled_dot_product/seed_claims")
    assert values["s000_rows_above_0999_scaled"] >= values["robust_min_one_hot_scaled"] >= 4
    shares = []
    for seed in range(20):
        _, scaled = seed_000_recipe(np.random.default_rng(2000 + seed))
        shares.append(np.mean(softmax(scaled).max(axis=1) > 0.999))
    assert np.mean(shares) > 0.85


@pytest.mark.claim(
    "Seed 003's code does not normalise the score variance to 1: its 0.01 init gives about 1e-6, and every weight is "
    "0.2",
    zh="种子教程 003 的代码并没有把分数的方差归一化为 1：它的 0.01 初始化给出约 1e-6 的方差，每个权重都是 0.2",
)
def test_seed_003_variance_and_uniform_weights():
    values = published("scaled_dot_product/seed_claims")
    assert 3e-7 < values["s003_scaled_var"] < 3e-6  # about 1e-6 = (d_model var(x) var(W))^2 = (10 * 1e-4)^2
    assert 0.199 < values["s003_weight_min"] <= values["s003_weight_max"] < 0.201
    rng = np.random.default_rng(3003)
    x = rng.standard_normal((50, 5, 10))
    w_q, w_k = 0.01 * rng.standard_normal((10, 10)), 0.01 * rng.standard_normal((10, 10))
    scaled = (x @ w_q) @ np.swapaxes(x @ w_k, 1, 2) / math.sqrt(10)
    assert 3e-7 < scaled.var() < 3e-6
    assert np.abs(softmax(scaled) - 0.2).max() < 0.005


# ---------------------------------------------------------------- the page itself

PROSE_DIGITS = re.compile(r"\d")
ALLOWED = [  # numbers that are names, citations or definitions, not results
    r"(?i)seeds? 00[03]",  # the names of the two source tutorials
    r"\b(19|20)\d\d\b",  # years in citations
    r"§\s?\d+(\.\d+)*",  # section numbers in citations
    r"(?i)(footnote|table|eq\.) \d",
    r"(?m)^\s*\d+\.\s",  # ordered-list markers
    r"\bfloat(16|32|64)\b",  # type names
    r"\b\d+th percentile|\b\d+th to",  # which percentile is shown
    r"(?<![\d.])[01](?!\d|\.\d)",  # the bounds of weights and the 0 and 1 of definitions
    r"Exercise \d+\.",  # the exercises' numbers
    r"(?i)\bsteps? \d( to \d)?\b",  # the five steps' numbers
    r"a shape like \(\d+, \d+\)",  # how to write a shape, in the exercises
]


def prose_of(markdown):
    """The chapter's running text: without code, math, includes, value references, links' targets and HTML."""
    text = re.sub(r"```.*?```", "", without_references(markdown), flags=re.DOTALL)
    text = re.sub(r"\$\$.*?\$\$", "", text, flags=re.DOTALL)
    text = re.sub(r"\$[^$\n]+\$", "", text)
    text = re.sub(r"`[^`\n]+`", "", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"\{#[^}]*\}", "", text)
    text = re.sub(r"!\[[^\]]*\]", "", text)  # alt text describes figures and may read numbers off them
    text = re.sub(r"<[^>]+>", "", text)
    for pattern in ALLOWED:
        text = re.sub(pattern, "", text)
    return text


def test_every_number_in_the_prose_comes_from_a_snippet():
    prose = prose_of(CHAPTER.read_text(encoding="utf-8"))
    offenders = [line.strip() for line in prose.splitlines() if PROSE_DIGITS.search(line)]
    assert offenders == [], "type no computed number into prose; publish it from a snippet:\n" + "\n".join(offenders)


# A literature number typed into the page, with its citation: Vaswani et al. 2017, "Attention Is All You Need",
# §3.2.2: "we employ h = 8 parallel attention layers, or heads. For each of these we use d_k = d_v = d_model/h = 64."
PAPER_D_MODEL, PAPER_HEADS = 512, 8


@pytest.mark.claim(
    "d_k = 64 is the per-head width of the base Transformer (Vaswani et al. 2017, §3.2.2)",
    zh="d_k = 64 是Transformer 基础模型每个头的宽度（Vaswani 等人 2017，§3.2.2）",
)
def test_literature_d_k_is_quoted_exactly():
    markdown = CHAPTER.read_text(encoding="utf-8")
    assert PAPER_D_MODEL // PAPER_HEADS == 64
    assert f"At $d_k = {PAPER_D_MODEL // PAPER_HEADS}$, the width of one head in the paper's base model" in markdown


def test_seed_quotes_are_on_the_page():
    """The seed claims the page corrects, as the page quotes them (seed 000 §2.3, seed 003's scaling line)."""
    markdown = CHAPTER.read_text(encoding="utf-8")
    assert "`[0.999, 0.0001, ...]`" in markdown
    assert '"normalises the variance of the dot\nproduct to 1"' in markdown


def test_every_snippet_of_the_chapter_is_on_the_page():
    shown = set(read_page(CHAPTER.read_text(encoding="utf-8")).code)
    snippets = {f"scaled_dot_product/{p.stem}" for p in nonempty_glob(REPO / "snippets" / "scaled_dot_product", "*.py")}
    snippets.discard("scaled_dot_product/exercises")  # it computes the exercises' answers, which the page hides
    assert snippets <= shown, f"the page includes no code of {sorted(snippets - shown)}"


# ---------------------------------------------------------------- third reading: wording no broader than the data


def flat_page(path=CHAPTER):
    """The page's text with values and includes left out and whitespace collapsed."""
    return " ".join(without_references(path.read_text(encoding="utf-8")).split())


@pytest.mark.claim(
    "Dividing by sqrt(d_k) removes the growth with d_k for any component variance: the scaled "
    "variance is sigma_q^2 sigma_k^2 at every d_k, and 1 only for unit variance",
    zh="无论分量的方差是多少，除以 sqrt(d_k) 都消除了随 d_k 的增长：在每个 d_k 下缩放后的方差都是 sigma_q^2 "
    "sigma_k^2，只有方差为 1 时才等于 1",
)
def test_scaling_removes_the_growth_with_d_k_for_any_sigma():
    rng = np.random.default_rng(2101)
    for sigma in (0.1, 3.0):
        ratios = []
        for d_k in (1, 16, 256):
            q, k = sigma * rng.standard_normal((2, 20_000, d_k))
            ratios.append(np.var(np.sum(q * k, axis=-1) / math.sqrt(d_k)) / sigma**4)
        # the old wording ("removes that growth, but only if ... unit-variance") says this fails for sigma != 1
        assert max(ratios) / min(ratios) < 1.1, (sigma, ratios)
        assert abs(np.mean(ratios) - 1) < 0.05
    page = flat_page()
    assert "removes that growth, but only if" not in page
    assert "the scaled variance is $\\sigma_q^2\\sigma_k^2$ for every $d_k$. It is 1 only if" in page


@pytest.mark.claim(
    "Scaled, the mean largest weight still rises at the smallest d_k (d_k = 1 below the flat "
    "range from d_k = 8), and a row above 0.99 occurs only at d_k < 4",
    zh="缩放后，最大权重的平均值在最小的 d_k 处仍会升高（d_k = 1 时低于从 d_k = 8 开始的平稳区间），且只有 d_k < 4 "
    "时才出现高于 0.99 的行",
)
def test_scaled_saturation_is_flat_only_from_moderate_widths():
    values = published("scaled_dot_product/saturation")
    low, high = values["scaled_max_weight_low_wide"], values["scaled_max_weight_high_wide"]
    assert values["scaled_max_weight_1"] < low - 0.03  # "nothing depends on d_k" was broader than this
    assert high - low < 0.02 and values["flat_from_dk"] == 8
    assert values["scaled_entropy_1"] > values["scaled_entropy_high_wide"] + 0.05
    assert values["scaled_one_hot_rows_max"] >= 1  # "no row passes 0.99" was false at d_k = 1 and 2
    assert values["scaled_one_hot_none_from"] == 4
    # an independent sample agrees: d_k = 1 sits below d_k = 64
    rng = np.random.default_rng(2110)
    means = {}
    for d_k in (1, 64):
        q, k = rng.standard_normal((20_000, 1, d_k)), rng.standard_normal((20_000, 7, d_k))
        means[d_k] = softmax((q @ np.swapaxes(k, -1, -2))[:, 0, :] / math.sqrt(d_k), axis=-1).max(axis=-1).mean()
    assert means[64] - means[1] > 0.03
    assert "nothing depends on $d_k$" not in flat_page()


@pytest.mark.claim(
    "The 'no gradient to W_q' share in the seed-claims table is measured on random sentences at seed "
    "000's sizes and init, without the seed's causal mask and positional encoding, and says so",
    zh="种子教程论断表中“W_q 得不到梯度”的比例，是在种子教程 000 "
    "的尺寸和初始化下、用随机句子、不加该教程的因果掩码和位置编码测得的，表中也这样注明",
)
def test_dead_sentence_share_names_its_setup():
    from lib.claims_seeds import SEED_000_CODE

    assert "np.triu" in SEED_000_CODE and "pos_enc" in SEED_000_CODE  # the seed's code masks and adds positions
    source = (REPO / "snippets" / "scaled_dot_product" / "init.py").read_text(encoding="utf-8")
    assert "mask" not in source and "positional" not in source and "sinusoid" not in source
    row = next(
        line
        for line in CHAPTER.read_text(encoding="utf-8").splitlines()
        if line.startswith("| with the scaling the weights become smooth")
    )
    assert "random sentences with no mask and no positional encoding" in row


@pytest.mark.claim(
    "Unscaled, the mean softmax Jacobian is carried by the rows below 0.99, which are most rows at d_k = 64",
    zh="不缩放时，softmax 雅可比矩阵范数的平均值来自最大权重低于 0.99 的行，d_k = 64 时这样的行占大多数",
)
def test_the_mean_jacobian_is_carried_by_the_rows_that_are_not_saturated():
    assert published("scaled_dot_product/saturation")["share_one_hot_unscaled_64"] < 0.5
    for d_k in (64, 1024):
        p_unscaled, _ = saturation_sample(d_k, 20_000, np.random.default_rng(d_k))
        norms, open_rows = jacobian_norm_closed_form(p_unscaled), p_unscaled.max(axis=1) <= 0.99
        assert norms[open_rows].sum() > 0.9 * norms.sum()
        if d_k == 64:
            assert open_rows.mean() > 0.5  # most rows, not "the few rows in which two keys nearly tie"


@pytest.mark.claim(
    "With the sqrt(d_k), only the fan-in initialisation of the three gives unit-scale scores; without it, an "
    "initialisation of d_k^(-1/4)/sqrt(d_model) would",
    zh="有 sqrt(d_k) 时，三种初始化中只有扇入规则给出单位尺度的分数；"
    "没有它时，d_k^(-1/4)/sqrt(d_model) 的初始化也能做到",
)
def test_the_scale_and_the_initialisation_act_at_two_places():
    values = published("scaled_dot_product/init")
    assert 0.8 < values["score_std_xavier_random"] < 1.25
    assert values["score_std_std1_random"] > 10 and values["score_std_small_random"] < 0.1
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2000, 6, 128))
    sigma_w = 64**-0.25 / math.sqrt(128)  # the initialisation that stands in for the missing sqrt(d_k)
    w_q, w_k = sigma_w * rng.standard_normal((2, 128, 64))
    unscaled = np.einsum("bqd,bkd->bqk", x @ w_q, x @ w_k)
    assert unscaled.std() == pytest.approx(1.0, rel=0.1)


def test_the_page_shows_the_share_within_16_and_the_1_over_d_k_scale():
    share = published("scaled_dot_product/variance")["share_within_2_std_64"]
    assert share == pytest.approx(math.erf(2 / math.sqrt(2)), abs=0.01)  # 95.4% of a standard normal
    values = published("scaled_dot_product/saturation")
    assert abs(values["top_over_d_k_64"] - 1 / 7) < 0.05 < values["top_over_sqrt_d_k_64"] - values["top_over_d_k_64"]
    page = CHAPTER.read_text(encoding="utf-8")
    for name in ("variance.share_within_2_std_64", "saturation.top_over_d_k_64"):
        assert "{{ scaled_dot_product." + name + " }}" in page  # the claims rows C000-17 and G-03 link here


# ---------------------------------------------------------------- the exercises


def exercise(name):
    """An exercise's published answer, {mistake: result} and decimals asked."""
    return published_exercise("scaled_dot_product/exercises", name)


def loop_scores():
    """The running sentence's unscaled scores q_i . k_j, one plain sum at a time."""
    _, _, (q, k, _) = oracle_running_example()
    return [[math.fsum(a * b for a, b in zip(qi, kj)) for kj in k.tolist()] for qi in q.tolist()]


def test_exercise_unscaled_weight_and_its_mistakes():
    answer, mistakes, _ = exercise("unscaled_weight")
    tokens = tokenize(SENTENCE)
    scores, mat, on = loop_scores(), tokens.index("mat"), tokens.index("on")
    d_k = published("scaled_dot_product/steps")["d_k"]
    assert answer == pytest.approx(softmax_row(scores[mat])[on], abs=1e-12)
    assert mistakes == pytest.approx(
        {
            "kept_scaling": softmax_row([s / math.sqrt(d_k) for s in scores[mat]])[on],
            "softmax_over_queries": softmax_row([row[on] for row in scores])[mat],
        },
        abs=1e-12,
    )
    values = published("scaled_dot_product/exercises")
    assert values["mat_exp_on"] == pytest.approx(math.exp(scores[mat][on]), abs=1e-12)
    assert values["mat_exp_sum"] == pytest.approx(math.fsum(map(math.exp, scores[mat])), abs=1e-12)
    assert max(range(len(tokens)), key=scores[mat].__getitem__) == on  # the solution: "on" is the row's top key


def test_exercise_unscaled_weight_from_the_printed_scores_is_accepted():
    """A reader who takes the row of "mat" from the printed three-decimal scores gets the answer accepted."""
    printed = section_output("scaled_dot_product/steps", "print")
    matrix = printed.split("scores = q @ k.T:")[1].split("scaled =")[0]
    rows = [[float(n) for n in row.split()] for row in re.findall(r"\[\s*([-\d.\s]+?)\]", matrix)]
    tokens = tokenize(SENTENCE)
    reply = softmax_row(rows[tokens.index("mat")])[tokens.index("on")]
    assert check(reply, *exercise("unscaled_weight")) == ("right", None)


def test_exercise_shapes_and_their_mistakes():
    n = published("scaled_dot_product/exercises")["n_queries"]
    length, d_k = len(tokenize(SENTENCE)), published("scaled_dot_product/steps")["d_k"]
    assert exercise("scores_shape")[:2] == ((n, length), {"product_reversed": (length, n), "keys_cut_too": (n, n)})
    assert exercise("output_shape")[:2] == (
        (n, d_k),
        {"stopped_at_weights": (n, length), "all_queries": (length, d_k)},
    )


def test_exercise_unscaled_std_and_its_mistakes():
    d_k = published("scaled_dot_product/exercises")["wide_d_k"]
    assert exercise("unscaled_std")[:2] == (math.isqrt(d_k), {"variance": d_k, "scaled": 1})
    assert math.isqrt(d_k) ** 2 == d_k  # a whole standard deviation, as the question asks


def test_exercise_init_std_and_its_mistakes():
    values = published("scaled_dot_product/exercises")
    d_model, sigma_w = values["init_d_model"], values["init_sigma_w"]
    answer, mistakes, _ = exercise("init_std")
    assert answer == pytest.approx(d_model * sigma_w * sigma_w, rel=1e-12)
    assert mistakes == pytest.approx(
        {"sigma_not_squared": d_model * sigma_w, "variance_not_std": (d_model * sigma_w * sigma_w) ** 2}, rel=1e-12
    )
    assert values["init_sigma_w_squared"] == pytest.approx(sigma_w * sigma_w, rel=1e-12)
    # The prediction against a measurement: fresh x and W at these sizes, one score per draw.
    rng, d_k, draws = np.random.default_rng(11), 64, 400
    scaled = []
    for _ in range(draws):
        x_q, x_k = rng.normal(size=(2, d_model))
        w_q, w_k = rng.normal(scale=sigma_w, size=(2, d_model, d_k))
        scaled.append((x_q @ w_q) @ (x_k @ w_k) / math.sqrt(d_k))
    assert np.std(scaled) == pytest.approx(answer, rel=0.15)
