"""The debugging chapter: each symptom is reproduced, each fix removes it, each non-fix is measured.

The oracles are independent of the code under test where it matters: the loop oracle of tests/support.py,
exact softmax in Decimal arithmetic, and perturbation tests written out here rather than through
debug_tools.future_leak.
"""

import math
import sys
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, strategies as st

from lib.attention import (
    causal_mask,
    multi_head_attention,
    padding_mask,
    scaled_dot_product_attention,
    scaled_dot_product_attention_backward,
    sinusoidal_positions,
    softmax,
    softmax_backward,
)
from lib.debug_tools import (
    capture_error,
    future_leak,
    naive_softmax,
    numeric_gradient,
    padding_weight,
    relative_error,
    weight_stats,
)
from lib.running_example import SENTENCE, embed, tokenize
from scripts.pipeline.published import values as published_values
from support import GENERATED, REPO, oracle_attention, positional_encoding, published_table

PAGE = REPO / "docs" / "debugging.md"


def values(snippet):
    return published_values(snippet)


def value(snippet, name):
    return values(snippet)[name]["value"]


def exact_softmax(row):
    """Softmax in 40-digit decimal arithmetic: no overflow, no max subtraction needed."""
    getcontext().prec = 40
    exps = [Decimal(float(s)).exp() for s in row]
    total = sum(exps)
    return [float(e / total) for e in exps]


# ---------------------------------------------------------------- the page itself


# ---------------------------------------------------------------- shape errors

rng = np.random.default_rng(2024)


def seed_style(x, w_q, w_k, w_v, h=2):
    """Seed 000's head 0 with its hard-coded 6 x 6 mask."""
    L, d_model = x.shape
    d_head = d_model // h
    q = (x @ w_q).reshape(L, h, d_head).transpose(1, 0, 2)[0]
    k = (x @ w_k).reshape(L, h, d_head).transpose(1, 0, 2)[0]
    v = (x @ w_v).reshape(L, h, d_head).transpose(1, 0, 2)[0]
    scores = q @ k.T / np.sqrt(d_head) - 1e9 * np.triu(np.ones((6, 6)), k=1)
    return naive_softmax(scores) @ v


@pytest.mark.claim(
    "Seed 000's hard-coded 6×6 mask raises 'operands could not be broadcast together' for any other length",
    zh="种子教程 000 写死的 6×6 掩码在其他任何长度下都会引发“operands could not be broadcast together”",
)
@pytest.mark.parametrize("L", [3, 5, 7, 9])
def test_seed_mask_breaks_for_other_lengths(L):
    x, w_q, w_k, w_v = rng.normal(size=(L, 8)), *rng.normal(scale=8**-0.5, size=(3, 8, 8))
    error = capture_error(lambda: seed_style(x, w_q, w_k, w_v))
    assert error == f"ValueError: operands could not be broadcast together with shapes ({L},{L}) (6,6)"
    assert capture_error(lambda: seed_style(x[:6] if L >= 6 else np.resize(x, (6, 8)), w_q, w_k, w_v)) is None


@pytest.mark.claim(
    "A causal mask built from the sentence's own length removes the broadcast error and matches a loop oracle",
    zh="按句子自身长度构建的因果掩码消除了广播错误，并与循环参照实现一致",
)
@pytest.mark.parametrize("L", [1, 5, 6, 7, 11])
def test_length_mask_fix_matches_loop_oracle(L):
    q, k, v = rng.normal(size=(3, L, 4))
    output, weights = scaled_dot_product_attention(q, k, v, causal_mask(L))
    allowed = [[j <= i for j in range(L)] for i in range(L)]
    want_out, want_w = oracle_attention(q.tolist(), k.tolist(), v.tolist(), allowed)
    np.testing.assert_allclose(output, want_out, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(weights, want_w, rtol=1e-12, atol=1e-15)


@pytest.mark.claim(
    "The seed's check print(Q.shape, K.shape, V.shape) shows healthy shapes; the failing operands are scores and mask",
    zh="种子教程的检查 print(Q.shape, K.shape, V.shape) 显示的形状正常；出错的操作数是 scores 和 mask",
)
def test_page_shape_messages_are_the_real_ones():
    vals = values("debugging/shapes")
    assert vals["seed_broadcast_error"]["value"].startswith("ValueError: operands could not be broadcast together")
    assert "mismatch in its core dimension" in vals["naive_matmul_error"]["value"]
    assert "broadcast" not in vals["naive_matmul_error"]["value"]
    assert (
        vals["core_qk_error"]["value"]
        == "ValueError: q and k must share the last dimension d_k; got q (7, 64), k (7, 128)"
    )
    assert (
        vals["core_mask_error"]["value"]
        == "ValueError: mask of shape (6, 6) does not broadcast to the scores' shape (7, 7)"
    )
    assert "could not be broadcast together" in vals["batch_broadcast_error"]["value"]
    stdout = (GENERATED / "debugging/shapes" / "stdout.txt").read_text()
    assert "seed's check  -> Q (7, 64), K (7, 64), V (7, 64)" in stdout
    assert "better check  -> scores (7, 7), mask (6, 6)" in stdout


@pytest.mark.claim(
    "reshape(h, L, d_head) without a transpose gives the right shape and wrong heads; reshape(L, h, d_head) + "
    "transpose is right",
    zh="不加 transpose 的 reshape(h, L, d_head) 得到正确的形状和错误的头；reshape(L, h, d_head) 加 transpose 才正确",
)
@given(st.integers(2, 6), st.sampled_from([1, 2, 4]), st.integers(1, 4))
def test_head_split_right_and_wrong(L, h, d_head):
    local = np.random.default_rng(L * 100 + h * 10 + d_head)
    x, w = local.normal(size=(L, 6)), local.normal(size=(6, h * d_head))
    per_head = np.stack([x @ w[:, i * d_head : (i + 1) * d_head] for i in range(h)])
    right = (x @ w).reshape(L, h, d_head).transpose(1, 0, 2)
    np.testing.assert_allclose(right, per_head, rtol=1e-12, atol=1e-14)
    wrong = (x @ w).reshape(h, L, d_head)
    assert wrong.shape == per_head.shape
    if h > 1:
        assert not np.allclose(wrong, per_head)
    assert value("debugging/shapes", "right_split_error") == 0.0
    assert value("debugging/shapes", "wrong_split_error") > 1.0


# ---------------------------------------------------------------- one-hot and uniform weights


def head_weights(std, d_model=128, d_k=64, L=7, seed=11):
    local = np.random.default_rng(seed)
    x = local.normal(size=(L, d_model))
    w_q, w_k = local.normal(scale=std, size=(2, d_model, d_k))
    scores = (x @ w_q) @ (x @ w_k).T / math.sqrt(d_k)
    return scores, softmax(scores)


@pytest.mark.claim(
    "With W_q, W_k of standard deviation 1 the rows are one-hot even after dividing by sqrt(d_k); std "
    "1/sqrt(d_model) fixes it",
    zh="W_q、W_k 的标准差为 1 时，即使除以 sqrt(d_k)，各行仍是独热的；标准差取 1/sqrt(d_model) 即可修正",
)
@pytest.mark.parametrize("seed", range(5))
def test_init_scale_not_the_divisor_causes_one_hot_rows(seed):
    scores, weights = head_weights(1.0, seed=seed)
    assert weights.max(axis=-1).mean() > 0.9
    assert scores.std() > 50
    _, fixed = head_weights(128**-0.5, seed=seed)
    fixed_scores, _ = head_weights(128**-0.5, seed=seed)
    assert 0.3 < fixed_scores.std() < 3
    assert fixed.max(axis=-1).mean() < 0.8
    # the seed's fix: divide by sqrt(d_model) instead of sqrt(d_k) changes the scale by sqrt(2) only
    d_model_scores = scores * math.sqrt(64) / math.sqrt(128)
    assert softmax(d_model_scores).max(axis=-1).mean() > 0.9


@pytest.mark.claim(
    "Scaled scores have standard deviation close to d_model * var(x) * var(W)",
    zh="缩放后分数的标准差接近 d_model * var(x) * var(W)",
)
@pytest.mark.parametrize("std", [1.0, 128**-0.5, 0.01])
def test_score_std_formula(std):
    local = np.random.default_rng(5)
    x = local.normal(size=(400, 128))
    w_q, w_k = local.normal(scale=std, size=(2, 128, 64))
    scores = (x @ w_q) @ (x @ w_k).T / 8.0
    predicted = 128 * 1.0 * std**2
    assert scores.std() == pytest.approx(predicted, rel=0.25)


@pytest.mark.claim(
    "Seed 003's init (std 0.01) gives a 'dead head': every weight within 0.01 of 1/L",
    zh="种子教程 003 的初始化（标准差 0.01）产生“失效的头”：每个权重与 1/L 相差不到 0.01",
)
@pytest.mark.parametrize("L", [5, 6, 7])
def test_small_init_gives_uniform_rows(L):
    _, weights = head_weights(0.01, L=L)
    assert np.abs(weights - 1 / L).max() < 0.01
    vals = values("debugging/saturation")
    assert vals["small_min_weight"]["value"] > 0.13 and vals["small_max_weight"]["value"] < 0.15
    assert vals["std1_row_max"]["value"] > 0.95 and vals["fixed_row_max"]["value"] < 0.6


# ---------------------------------------------------------------- NaN from overflow


@pytest.mark.claim(
    "The naive softmax turns rows into NaN once a score exceeds log(float64 max) ≈ 709.78; subtracting the row max "
    "is exact",
    zh="一旦某个分数超过 log(float64 max) ≈ 709.78，朴素 softmax 就把整行变成 NaN；减去行最大值是精确的",
)
@given(st.lists(st.floats(-2000, 2000), min_size=2, max_size=6))
def test_max_subtraction_is_exact_where_naive_overflows(row):
    row = np.array(row)
    with np.errstate(over="ignore", invalid="ignore"):
        naive = naive_softmax(row)
    if row.max() > 709.79:
        assert np.isnan(naive).any()
    np.testing.assert_allclose(softmax(row), exact_softmax(row), rtol=1e-12, atol=1e-300)


@pytest.mark.claim(
    "np.clip(scores, -50, 50) removes the NaN but changes the weights and zeroes the gradient of clipped scores",
    zh="np.clip(scores, -50, 50) 消除了 NaN，但改变了权重，并使被截断分数的梯度为零",
)
def test_clip_distorts_weights_and_gradients():
    row = np.array([120.0, 80.0, 60.0, 0.0])
    clipped = naive_softmax(np.clip(row, -50, 50))
    np.testing.assert_allclose(clipped[:3], 1 / 3, rtol=1e-12)
    assert exact_softmax(row)[0] > 0.999999
    # gradient of softmax(clip(s)) with respect to a clipped score, by finite differences
    loss = lambda s: naive_softmax(np.clip(s, -50, 50)) @ np.array([1.0, 2.0, 3.0, 4.0])  # noqa: E731
    grad = numeric_gradient(loss, row)
    assert np.all(grad[:3] == 0.0)
    vals = values("debugging/nan")
    assert vals["nan_rows"]["value"] >= 1 and vals["clip_weight_error"]["value"] > 0.5
    assert vals["row_clipped_top"]["text"] == "0.333"


# ---------------------------------------------------------------- NaN in fully masked rows


@pytest.mark.claim(
    "A query with no visible key gives NaN with -inf and the naive softmax, a uniform row with a -1e9 fill, zeros in "
    "the core",
    zh="没有可见键的查询：用 -inf 加朴素 softmax 得到 NaN，用 -1e9 填充得到均匀的行，核心实现给出全零",
)
@pytest.mark.parametrize("L", [2, 5, 8])
def test_fully_masked_rows(L):
    scores = rng.normal(size=(L, L))
    allowed = np.ones((L, L), dtype=bool)
    allowed[0] = False
    with np.errstate(invalid="ignore"):
        assert np.isnan(naive_softmax(np.where(allowed, scores, -np.inf))[0]).all()
    np.testing.assert_allclose(softmax(np.where(allowed, scores, -1e9))[0], 1 / L)
    q, k, v = rng.normal(size=(3, L, 3))
    output, weights = scaled_dot_product_attention(q, k, v, allowed)
    assert np.all(weights[0] == 0) and np.all(output[0] == 0)
    _, want = oracle_attention(q.tolist(), k.tolist(), v.tolist(), allowed.tolist())
    np.testing.assert_allclose(weights, want, atol=1e-15)


SEED_MASK_LINE = "scores = scores - 1e9 * mask"
SEED_SOFTMAX = "np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)"


def seed_000_lines(scores, mask, stable=False):
    """Seed 000's masking and softmax lines, run as written on `scores` and a 0/1 `mask` (1 = blocked)."""
    scores = scores - 1e9 * mask
    if stable:  # the same line, with a softmax that subtracts each row's maximum
        scores = scores - scores.max(axis=1, keepdims=True)
    return np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)


def test_the_page_runs_seed_000s_own_masking_lines():
    from lib.claims_seeds import SEED_000_CODE

    # seed 000's code as lib/claims_seeds.py rebuilds it (tests/chapters/claims/test_claims_coverage.py finds the
    # masking line in the stored seed text, where the seeds are at hand)
    assert SEED_MASK_LINE in SEED_000_CODE and f"attn_weights = {SEED_SOFTMAX}" in SEED_000_CODE
    source = (REPO / "snippets" / "debugging" / "masked_rows.py").read_text(encoding="utf-8")
    assert "seed_scores = scores - 1e9 * mask" in source and "naive_softmax(seed_scores)" in source


@pytest.mark.claim(
    "Seed 000 subtracts 1e9 from masked scores: a row with no visible key is NaN with its exp/sum softmax "
    "and the unmasked row with a max-subtracting softmax, not a uniform row",
    zh="种子教程 000 从被掩码的分数中减去 1e9：没有可见键的行，用它的 exp/sum softmax 得到 NaN，用减最大值的 softmax "
    "得到未加掩码时的行，而不是均匀的行",
)
@pytest.mark.parametrize("L", [2, 5, 8])
def test_seed_000_subtraction_on_a_row_with_no_visible_key(L):
    scores = rng.normal(size=(L, L))
    mask = np.triu(np.ones((L, L)), k=1)
    mask[0] = 1.0  # the first query sees nothing (e.g. left padding)
    with np.errstate(invalid="ignore", under="ignore"):
        assert np.isnan(seed_000_lines(scores, mask)[0]).all()
    stable = seed_000_lines(scores, mask, stable=True)
    np.testing.assert_allclose(stable[0], exact_softmax(scores[0]), atol=1e-6)  # the unmasked row
    assert np.abs(stable[0] - 1 / L).max() > 1e-3 or L == 1  # not uniform
    np.testing.assert_allclose(stable[1:], softmax(np.where(mask[1:] == 0, scores[1:], -np.inf)), atol=1e-15)
    vals = values("debugging/masked_rows")
    assert vals["seed_nan_rows"]["value"] == vals["blind_queries"]["value"] == 2
    assert vals["seed_stable_vs_unmasked"]["value"] < 1e-6
    assert vals["seed_stable_row0_future_weight"]["value"] > 0.5


@pytest.mark.claim(
    "In float32, s - 1e9 rounds to exactly -1e9 for |s| < 32, so seed 000's line gives a uniform row; "
    "in float16, 1e9 is inf and the line makes every row NaN; -1e4 fits in float16",
    zh="在 float32 下，|s| < 32 时 s - 1e9 恰好舍入为 -1e9，所以种子教程 000 的这行代码得到均匀的行；在 float16 "
    "下，1e9 是 inf，这行代码使每一行"
    "都变成 NaN；-1e4 能用 float16 表示",
)
def test_seed_000_constant_in_float32_and_float16():
    small = np.linspace(-31, 31, 101, dtype=np.float32)
    assert (small - np.float32(1e9) == np.float32(-1e9)).all()  # the scores are lost
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isinf(np.float16(1e9))
        mask16 = np.triu(np.ones((4, 4), dtype=np.float16), k=1)
        product = 1e9 * mask16
        assert product.dtype == np.float16 and np.isnan(product[mask16 == 0]).all()  # inf * 0
        assert np.isnan(seed_000_lines(np.zeros((4, 4), dtype=np.float16), mask16)).all()
    assert np.float16(-1e4) == -1e4
    table = {(row["dtype"], row["constant"]): row for row in published_table("debugging/masked_rows", "dtypes")}
    assert table["float64", "1e+09"]["seed's exp / sum: no visible key"] == "NaN"
    assert table["float64", "1e+09"]["max-subtracting: no visible key"] == "the unmasked row"
    assert table["float32", "1e+09"]["max-subtracting: no visible key"].startswith("uniform")
    assert table["float32", "1e+04"]["max-subtracting: no visible key"] == "the unmasked row"
    assert table["float16", "1e+09"]["max-subtracting: rows with a visible key"] == "NaN"
    assert table["float16", "1e+04"]["max-subtracting: rows with a visible key"].startswith("correct")
    vals = values("debugging/masked_rows")
    assert vals["float16_of_1e9"]["value"] == "inf" and vals["float16_1e9_nan_rows"]["value"] == 5
    assert vals["float32_spacing_at_1e9"]["value"] == 64.0


@pytest.mark.claim(
    "The core keeps a NaN visible: one NaN in a query gives a NaN output row there, and rows with no visible key "
    "stay zero",
    zh="核心实现让 NaN 保持可见：查询中有一个 NaN，该处的输出行就是 NaN，而没有可见键的行仍为零",
)
def test_published_nan_propagation():
    vals = values("debugging/masked_rows")
    assert vals["core_nan_rows"]["value"] == '"cat"' and vals["core_zero_rows"]["value"] == 2
    q, k, v = np.random.default_rng(37).normal(size=(3, 5, 4))
    q[2, 1] = np.nan  # one NaN in the query of row 2
    allowed = causal_mask(5).copy()
    allowed[0] = False  # row 0 sees no key
    output, _ = scaled_dot_product_attention(q, k, v, allowed)
    assert np.isnan(output[2]).all() and not np.isnan(np.delete(output, 2, axis=0)).any()
    assert (output[0] == 0.0).all()


# ---------------------------------------------------------------- gradients through a mask


@pytest.mark.claim(
    "The gradient reaching a masked score is exactly 0 and no NaN appears: '.detach() before masking causes NaN' is "
    "wrong",
    zh="到达被掩码分数的梯度恰好为 0，且不出现 NaN：“掩码前 .detach() 会导致 NaN”的说法是错的",
)
@pytest.mark.parametrize("L", [2, 4, 7])
def test_gradient_at_masked_scores_is_zero(L):
    local = np.random.default_rng(L)
    q, k, v, g = local.normal(size=(4, L, 3))
    mask = causal_mask(L)
    _, weights = scaled_dot_product_attention(q, k, v, mask)
    d_scores = softmax_backward(g @ v.T, weights)
    assert np.all(d_scores[~mask] == 0.0)
    dq, dk, dv = scaled_dot_product_attention_backward(g, q, k, v, mask)
    assert not any(np.isnan(a).any() for a in (dq, dk, dv))
    # finite differences: moving a masked score (through q) never changes the loss via that entry
    loss = lambda q_: np.sum(scaled_dot_product_attention(q_, k, v, mask)[0] * g)  # noqa: E731
    assert relative_error(dq, numeric_gradient(loss, q)) < 1e-6


@pytest.mark.claim(
    "The core backward pass agrees with finite differences (gradcheck) to about 1e-9",
    zh="核心实现的反向传播与有限差分（gradcheck）的吻合程度约为 1e-9",
)
def test_published_gradcheck():
    vals = values("debugging/gradients")
    assert vals["gradcheck_worst"]["value"] < 1e-8  # "about 1e-9"
    assert vals["masked_grad_max"]["value"] == 0.0


@pytest.mark.claim(
    "An L1 penalty on attention weights is constant (each row sums to 1), so its gradient is 0; an entropy penalty "
    "is not",
    zh="对注意力权重施加的 L1 惩罚是常数（每行之和为 1），所以其梯度为 0；熵惩罚则不然",
)
@given(st.lists(st.floats(-20, 20), min_size=2, max_size=8))
def test_l1_penalty_has_zero_gradient(row):
    scores = np.array(row)
    w = softmax(scores)
    assert np.abs(w).sum() == pytest.approx(1.0, abs=1e-12)
    assert np.abs(softmax_backward(np.sign(w), w)).max() < 1e-15
    numeric = numeric_gradient(lambda s: np.abs(softmax(s)).sum(), scores)
    assert np.abs(numeric).max() < 1e-8
    # an entropy penalty is not constant: on a row that is not uniform its gradient is far from 0
    entropy = lambda s: -sum(p * math.log(p) for p in softmax(s) if p > 0)  # noqa: E731
    assert abs(numeric_gradient(entropy, [1.0, 0.0, -1.0])[0]) > 0.1


def test_published_penalty_descent():
    vals = values("debugging/gradients")
    assert vals["top_after_l1"]["text"] == vals["top_before"]["text"]
    assert vals["top_after_entropy"]["value"] > vals["top_before"]["value"] + 0.3
    assert vals["l1_grad_max"]["value"] < 1e-8 < 0.1 < vals["entropy_grad_max"]["value"]


# ---------------------------------------------------------------- padding


@pytest.mark.claim(
    "Without a padding mask real tokens put weight on [PAD] and their outputs depend on the padding; padding_mask "
    "removes both",
    zh="没有填充掩码时，真实词元会把权重放在 [PAD] 上，其输出也依赖于填充；padding_mask 消除了这两个问题",
)
@pytest.mark.parametrize("n_real,n", [(2, 5), (4, 7), (4, 10)])
def test_padding_mask_fix(n_real, n):
    local = np.random.default_rng(n_real * n)
    x = np.zeros((1, n, 6))
    x[0, :n_real] = local.normal(size=(n_real, 6))  # zero vectors for [PAD]
    w_q, w_k, w_v = local.normal(scale=6**-0.5, size=(3, 6, 6))
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    unmasked_out, unmasked_w = scaled_dot_product_attention(q, k, v)
    masked_out, masked_w = scaled_dot_product_attention(q, k, v, padding_mask(np.array([n_real]), n))
    alone_out, _ = oracle_attention(q[0, :n_real].tolist(), k[0, :n_real].tolist(), v[0, :n_real].tolist())
    assert padding_weight(unmasked_w, [n_real]) > 0.05
    assert not np.allclose(unmasked_out[0, :n_real], alone_out)
    assert padding_weight(masked_w, [n_real]) == 0.0
    np.testing.assert_allclose(masked_out[0, :n_real], alone_out, rtol=1e-12, atol=1e-14)
    vals = values("debugging/padding")
    assert vals["padding_mask_pad_weight"]["value"] == 0.0 and vals["no_mask_pad_weight"]["value"] > 0.1
    assert vals["padding_mask_invariance"]["value"] == 0.0 and vals["no_mask_invariance"]["value"] > 0.01


# ---------------------------------------------------------------- leaking masks


def leak_by_hand(mask, x, w):
    """Perturb one future token at a time; return the largest change of any earlier output."""
    attend = lambda x_: scaled_dot_product_attention(x_ @ w[0], x_ @ w[1], x_ @ w[2], mask)[0]  # noqa: E731
    base = attend(x)
    worst = 0.0
    for t in range(1, x.shape[0]):
        changed = x.copy()
        changed[t] += 1.0
        worst = max(worst, float(np.abs(attend(changed)[:t] - base[:t]).max()))
    return worst


@pytest.mark.claim(
    "causal_mask(L) leaks nothing from the future; no mask, np.tril(k=1) and the inverted np.triu(k=1) all leak",
    zh="causal_mask(L) 不泄露任何未来信息；不加掩码、np.tril(k=1) 和取反的 np.triu(k=1) 都会泄露",
)
@pytest.mark.parametrize("L", [3, 7])
def test_future_leak_detects_bugs_and_passes_the_fix(L):
    local = np.random.default_rng(L)
    x, w = local.normal(size=(L, 5)), local.normal(scale=5**-0.5, size=(3, 5, 5))
    ones = np.ones((L, L))
    assert leak_by_hand(causal_mask(L), x, w) == 0.0
    for bad in (ones.astype(bool), np.tril(ones, k=1).astype(bool), np.triu(ones, k=1).astype(bool)):
        assert leak_by_hand(bad, x, w) > 1e-3
        assert future_leak(lambda x_: scaled_dot_product_attention(x_ @ w[0], x_ @ w[1], x_ @ w[2], bad)[0], x) > 1e-3
    assert (
        future_leak(lambda x_: scaled_dot_product_attention(x_ @ w[0], x_ @ w[1], x_ @ w[2], causal_mask(L))[0], x)
        == 0.0
    )
    assert value("debugging/leak", "leak_causal") == 0.0
    assert min(value("debugging/leak", n) for n in ("leak_none", "leak_off_by_one", "leak_inverted")) > 0.1


def test_the_one_hot_rows_pick_keys_of_their_own():
    """Seed 000's init: each row over 0.99 puts it on a key of its own choosing, not all on the same key."""
    assert value("debugging/saturation", "std1_rows_above_099") > 1
    assert value("debugging/saturation", "std1_one_hot_keys") > 1


def test_after_the_softmax_only_the_first_row_sums_to_the_quoted_value():
    """The page quotes the first row's sum, and the rows do not share it: each blocked entry adds -1e9."""
    line = (GENERATED / "debugging" / "leak" / "output-after.txt").read_text(encoding="utf-8").splitlines()[0]
    sums = [float(x) for x in line.partition("row sums [")[2].rstrip("]").split()]
    assert sums[0] == pytest.approx(value("debugging/leak", "after_row0_sum"), rel=0.1)
    assert [round(b - a) for a, b in zip(sums, sums[1:])] == [1_000_000_000] * (len(sums) - 1)


def test_the_first_query_weight_quoted_is_on_the_three_words_after_it():
    """Query 0 is a [PAD] that sees no key: the quoted total is on the real words after it, not on every future key
    (the [PAD] at position 1 is future too)."""
    text = (GENERATED / "debugging" / "masked_rows" / "stdout.txt").read_text(encoding="utf-8")
    row = [float(x) for x in text.partition("seed, stable row 0: [")[2].partition("]")[0].split()]
    tokens = ["[PAD]", "[PAD]", "The", "cat", "sat"]
    words_after = sum(w for w, token in zip(row[1:], tokens[1:]) if token != "[PAD]")
    quoted = value("debugging/masked_rows", "seed_stable_row0_future_weight")
    assert round(quoted, 2) == round(words_after, 2) != round(sum(row[1:]), 2)


@pytest.mark.claim(
    "Subtracting the mask after the softmax gives weights near -1e9, not an 'ineffective' mask",
    zh="在 softmax 之后减去掩码得到接近 -1e9 的权重，而不是“不起作用”的掩码",
)
def test_mask_after_softmax():
    scores = rng.normal(size=(5, 5))
    after = softmax(scores) - 1e9 * np.triu(np.ones((5, 5)), k=1)
    assert after.min() < -9e8
    assert after.sum(axis=-1)[0] == pytest.approx(-4e9, rel=1e-6)


def multiply_after_softmax(x, w, renormalise=False):
    """Attention whose softmax weights are multiplied by a 0/1 causal mask afterwards, written out here."""
    q, k, v = x @ w[0], x @ w[1], x @ w[2]
    scores = q @ k.T / math.sqrt(q.shape[-1])
    weights = softmax(scores) * np.tril(np.ones(scores.shape))
    if renormalise:
        weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v


@pytest.mark.claim(
    "Multiplying the weights by the mask after the softmax leaks the future: the denominator still sums over future "
    "keys",
    zh="在 softmax 之后把权重乘以掩码会泄露未来信息：分母仍对未来的键求和",
)
@pytest.mark.parametrize("L", [3, 7])
def test_multiplying_by_the_mask_after_the_softmax_leaks(L):
    local = np.random.default_rng(L + 100)
    x, w = local.normal(size=(L, 5)), local.normal(scale=5**-0.5, size=(3, 5, 5))
    base = multiply_after_softmax(x, w)
    changed = x.copy()
    changed[-1] += 1.0  # only the last token changes
    assert np.abs(multiply_after_softmax(changed, w)[:-1] - base[:-1]).max() > 1e-3  # earlier outputs move
    renormalised = multiply_after_softmax(changed, w, renormalise=True)[:-1]
    np.testing.assert_allclose(renormalised, multiply_after_softmax(x, w, renormalise=True)[:-1], atol=1e-12)
    assert value("debugging/leak", "leak_multiply_after") > 0.1
    assert value("debugging/leak", "leak_renormalised") < 1e-12
    assert value("debugging/leak", "leak_causal") == 0.0


# ---------------------------------------------------------------- the first word


@pytest.mark.claim(
    "Sinusoidal encodings already peak at exactly 1, so pos_enc / np.max(np.abs(pos_enc)) changes nothing",
    zh="正弦位置编码的峰值本来就恰好是 1，所以 pos_enc / np.max(np.abs(pos_enc)) 不改变任何东西",
)
@given(st.integers(1, 80), st.sampled_from([2, 8, 64, 128]))
def test_pe_normalisation_is_a_no_op(n, d_model):
    pe = sinusoidal_positions(n, d_model)
    assert np.max(np.abs(pe)) == 1.0
    np.testing.assert_array_equal(pe / np.max(np.abs(pe)), pe)
    assert positional_encoding(0, 1, d_model) == 1.0  # cos(0), independent of the core


def test_pe_normalisation_is_a_no_op_at_the_page_sizes():
    for n in (7, 512):
        pe = sinusoidal_positions(n, 128)
        np.testing.assert_array_equal(pe / np.max(np.abs(pe)), pe)


@pytest.mark.claim(
    "Under a causal mask, rows that spread weight evenly give the first key (1/L)·(1 + 1/2 + … + 1/L) on average",
    zh="在因果掩码下，均匀分配权重的各行平均给第一个键 (1/L)·(1 + 1/2 + … + 1/L) 的权重",
)
@pytest.mark.parametrize("L", [1, 2, 6, 7, 20])
def test_causal_first_key_baseline(L):
    q = np.zeros((L, 4))  # equal scores: every row spreads its weight evenly
    _, weights = scaled_dot_product_attention(q, q, q, causal_mask(L))
    assert weights[:, 0].mean() == pytest.approx(sum(1 / i for i in range(1, L + 1)) / L, rel=1e-12)
    vals = values("debugging/first_token")
    assert vals["causal_baseline"]["text"] == f"{sum(1 / i for i in range(1, 8)) / 7:.3f}"
    assert abs(vals["causal_measured"]["value"] - vals["causal_baseline"]["value"]) < 0.05
    assert vals["pe_fix_change"]["value"] == 0.0 and vals["weights_change"]["value"] == 0.0


# ---------------------------------------------------------------- W_o


@pytest.mark.claim(
    "W_o drawn with standard deviation s scales the multi-head output by about s·sqrt(d_model)",
    zh="以标准差 s 抽取的 W_o 把多头输出放大约 s·sqrt(d_model) 倍",
)
@pytest.mark.parametrize("std", [0.02, 128**-0.5, 1.0])
def test_wo_gain(std):
    local = np.random.default_rng(9)
    x = local.normal(size=(50, 128))
    w_q, w_k, w_v = local.normal(scale=128**-0.5, size=(3, 128, 128))
    heads, _ = multi_head_attention(x, w_q, w_k, w_v, np.eye(128), 2)
    w_o = local.normal(scale=std, size=(128, 128))
    output, _ = multi_head_attention(x, w_q, w_k, w_v, w_o, 2)
    assert output.std() / heads.std() == pytest.approx(std * math.sqrt(128), rel=0.15)
    assert np.mean(np.abs(w_o)) == pytest.approx(std * math.sqrt(2 / math.pi), rel=0.05)


def test_weight_stats_of_known_rows():
    one_hot = np.eye(4)
    uniform = np.full((3, 3), 1 / 3)
    assert weight_stats(one_hot) == (1.0, 0.0)
    top, entropy = weight_stats(uniform)
    assert top == pytest.approx(1 / 3) and entropy == pytest.approx(math.log(3))


# ---------------------------------------------------------------- positions after fine-tuning


@pytest.mark.claim(
    "Rows of a learned position table that no input uses get exactly zero gradient",
    zh="可学习位置表中没有任何输入用到的行，其梯度恰好为零",
)
def test_unused_position_rows_get_no_gradient():
    local = np.random.default_rng(12)
    table = local.normal(size=(20, 4))
    w = local.normal(scale=0.5, size=(3, 4, 4))
    g = local.normal(size=(6, 4))

    def loss(t):
        x = t[:6]  # a 6-token input uses rows 0..5 only
        return float(np.sum(scaled_dot_product_attention(x @ w[0], x @ w[1], x @ w[2])[0] * g))

    grad = numeric_gradient(loss, table)
    assert np.all(grad[6:] == 0.0) and np.abs(grad[:6]).min(axis=-1).max() > 0
    assert value("debugging/positions", "unused_grad") == 0.0


@pytest.mark.claim(
    "A zero gradient does not keep a row: the site's Adam with weight decay shrinks the unused rows of a position "
    "table, without weight decay it leaves them exactly as they were",
    zh="梯度为零并不能让一行保持不变：本站带权重衰减的 Adam 会缩小位置表中用不到的行，不做权重衰减时才让它们原样不动",
)
def test_weight_decay_moves_rows_without_gradient():
    assert value("debugging/positions", "adam_weight_decay") > 0
    assert value("debugging/positions", "unused_kept_decay") < 0.9
    assert value("debugging/positions", "unused_change_no_decay") == 0.0


@pytest.mark.claim(
    "Resampling sinusoidal encodings down to 128 positions and back destroys the fast dimensions, keeps the slow ones",
    zh="把正弦位置编码重采样到 128 个位置再还原，会破坏变化快的维度，保留变化慢的维度",
)
def test_resampling_positions_breaks_fast_dimensions():
    positions = np.arange(512)
    coarse_at = np.linspace(0, 511, 128)
    fast = [positional_encoding(p, 0, 64) for p in positions]  # period 2*pi
    slow = [positional_encoding(p, 63, 64) for p in positions]
    for column, bound in ((fast, lambda e: e > 1.0), (slow, lambda e: e < 1e-6)):
        back = np.interp(positions, coarse_at, np.interp(coarse_at, positions, column))
        assert bound(np.abs(back - np.array(column)).max())
    assert value("debugging/positions", "resample_error_fast") > 1.0


@pytest.mark.claim(
    "Seed 000's troubleshooting table insists on sqrt(d_k) with d_k the single head's width, which "
    "its code already uses; the page no longer says the table hints at sqrt(d_model)",
    zh="种子教程 000 的排错表坚持用 sqrt(d_k)，其中 d_k 是单个头的宽度，而它的代码本来就这样用；页面不再说该表暗示 "
    "sqrt(d_model)",
)
def test_the_seed_table_rules_out_d_model_and_its_code_already_divides_by_d_k():
    from lib.claims_seeds import SEED_000_CODE
    from support import section_output

    assert "d_k = d_model // h" in SEED_000_CODE and "/ np.sqrt(d_k)" in SEED_000_CODE
    lines = section_output("debugging/saturation", "seedfix").splitlines()
    by_divisor = {line.split("divide by")[1].split(":")[0].strip(): float(line.split()[-1]) for line in lines}
    assert by_divisor["sqrt(d_k)"] > 0.9 and by_divisor["sqrt(d_model)"] > 0.9  # one-hot rows either way
    page = " ".join(PAGE.read_text(encoding="utf-8").split())
    assert "as the seed's table hints" not in page
    assert "insists that $d_k$ be the single head's width, not $d_{\\text{model}}$" in page


def test_numeric_gradient_gives_gradients_and_jacobians_and_relative_error_both_sizes():
    """The shared finite-difference helpers: a scalar f gives its gradient, an array f its Jacobian (out x in)."""
    a = np.arange(6.0).reshape(3, 2)
    x = np.array([0.5, -1.5])
    np.testing.assert_allclose(numeric_gradient(lambda z: a @ z, x), a, atol=1e-9)  # (3, 2): d(a z)_i / d z_j
    np.testing.assert_allclose(numeric_gradient(lambda z: np.sum(z**2), a), 2 * a, atol=1e-8)  # shaped like a
    assert relative_error([3.0, 4.0], [3.0, 0.0]) == 1.0  # largest |difference| 4 over largest |entry| 4
    assert relative_error([3.0, 4.0], [3.0, 0.0], euclidean=True) == pytest.approx(4 / 5)  # 4 over the norm 5
    assert relative_error(np.zeros(3), np.zeros(3)) == 0.0


# ---------------------------------------------------------------- exercises: answers and mistakes, by other means
def exercise(name):
    return value("debugging/exercises", name)


TOKENS = ["The", "cat", "sat", "on", "the", "mat", "."]


def test_exercise_wrong_split_rows():
    """Row r of head 0 under reshape(h, L, d_head) holds flat entries r*d_head ... r*d_head + d_head - 1 of the
    row-major (L, d_model) matrix, that is entries of token r*d_head // d_model; head 0 never reaches the last three."""
    d_model, d_head = exercise("split_d_model"), exercise("split_d_head")
    assert d_head * exercise("split_n_heads") == d_model and value("debugging/shapes", "n_tokens") == len(TOKENS)
    owners = [[(r * d_head + c) // d_model for c in range(d_head)] for r in range(len(TOKENS))]
    assert all(len(set(row)) == 1 for row in owners)  # each row comes from one token
    assert exercise("wrong_split_rows") == [TOKENS[row[0]] for row in owners]
    assert exercise("wrong_split_rows__right_split") == TOKENS
    assert {TOKENS[row[0]] for row in owners}.isdisjoint(TOKENS[-3:])  # "never sees the last three tokens"


def test_exercise_small_init_std():
    """d_model sigma_x^2 sigma_W^2 with sigma_x = 1; the solution: the sentence's own input variance brings the
    formula closer to the measured std."""
    d_model, sigma_w, d_k = value("debugging/saturation", "d_model"), exercise("sigma_w"), exercise("score_d_k")
    assert exercise("small_init_std") == pytest.approx(d_model * sigma_w**2, abs=1e-15)
    assert exercise("small_init_std__sigma_not_squared") == pytest.approx(d_model * sigma_w, abs=1e-15)
    assert exercise("small_init_std__divided_by_sqrt_d_k_again") == pytest.approx(
        d_model * sigma_w**2 / math.sqrt(d_k), abs=1e-15
    )
    embedded = embed(tokenize(SENTENCE), d_model)  # the one-hot section's inputs: word vectors plus positions
    entries = [float(embedded[p, i]) + positional_encoding(p, i, d_model) for p in range(7) for i in range(d_model)]
    mean = sum(entries) / len(entries)
    variance = sum((e - mean) ** 2 for e in entries) / len(entries)
    assert exercise("input_variance") == pytest.approx(variance, rel=1e-9) and variance > 1
    assert exercise("input_variance_prediction") == pytest.approx(d_model * variance * sigma_w**2, rel=1e-9)
    measured = value("debugging/saturation", "small_score_std")
    assert abs(exercise("input_variance_prediction") - measured) < abs(exercise("small_init_std") - measured)


def test_exercise_float32_exp_limit():
    """ln of float32's largest finite number, (2 - 2^-23) 2^127; the mistakes: float64's limit and log10."""
    float32_max = (2 - 2**-23) * 2.0**127
    assert exercise("float32_max") == float32_max
    assert exercise("float32_exp_limit") == pytest.approx(math.log(float32_max), abs=1e-12)
    assert exercise("float32_exp_limit__float64") == pytest.approx(math.log(sys.float_info.max), abs=1e-12)
    assert exercise("float32_exp_limit__log10") == pytest.approx(math.log10(float32_max), abs=1e-12)
    assert exercise("float32_exp_limit__float64") == pytest.approx(value("debugging/nan", "exp_limit"))


def test_exercise_inverted_visible_keys():
    """np.triu(ones, k=1) read as "may attend": query i sees the keys j > i; the mistakes: j <= i, and j >= i."""
    n = len(TOKENS)
    assert exercise("inverted_visible_keys") == [sum(1 for j in range(n) if j > i) for i in range(n)]
    assert exercise("inverted_visible_keys__read_as_blocked") == [sum(1 for j in range(n) if j <= i) for i in range(n)]
    assert exercise("inverted_visible_keys__diagonal_included") == [
        sum(1 for j in range(n) if j >= i) for i in range(n)
    ]


def test_exercise_short_baseline():
    """(1/L) sum 1/i for "The cat sat ." in exact fractions; the solution: larger than the running sentence's."""
    n = exercise("short_length")
    assert n == len("The cat sat .".split())
    harmonic = sum(Fraction(1, i) for i in range(1, n + 1))
    assert exercise("short_baseline") == pytest.approx(float(harmonic / n), abs=1e-15)
    assert exercise("short_baseline__no_mask") == pytest.approx(1 / n, abs=1e-15)
    assert exercise("short_baseline__not_averaged") == pytest.approx(float(harmonic), abs=1e-15)
    assert exercise("short_baseline") > value("debugging/first_token", "causal_baseline")
    baselines = [sum(Fraction(1, i) for i in range(1, n + 1)) / n for n in range(1, 65)]
    assert all(a > b for a, b in zip(baselines, baselines[1:]))  # "the shorter the sequence, the more weight"


def test_exercise_zero_gradient_rows():
    """The table's rows minus the rows the input reads, from the positions section's published sizes."""
    table_rows, used = value("debugging/positions", "table_rows"), value("debugging/positions", "used_rows")
    assert exercise("zero_gradient_rows") == table_rows - used
    assert exercise("zero_gradient_rows__off_by_one") == (table_rows - 1) - used
    assert exercise("zero_gradient_rows__used_rows") == used
