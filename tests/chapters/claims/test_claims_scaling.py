"""Claims about scaling and softmax: each verdict against an independent recomputation."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from lib.attention import softmax
from support import INVENTORY, claim, flat_page, kind, positional_encoding, softmax_row, text, v

rng = np.random.default_rng(3)  # fresh draws for this file's tests


def seed000_head(w_std, scale=True, seed=0):
    """Seed 000's head 0, written independently: X + PE (oracle), W with std w_std, causal mask."""
    local = np.random.default_rng(seed)
    x = local.standard_normal((6, 128)) + np.array(
        [[positional_encoding(p, i, 128) for i in range(128)] for p in range(6)]
    )
    w_q, w_k = local.standard_normal((2, 128, 64)) * w_std
    scores = (x @ w_q) @ (x @ w_k).T / (8.0 if scale else 1.0)
    return np.where(np.tril(np.ones((6, 6))) == 1, scores, -1e9)


@claim("C000-16")
@pytest.mark.parametrize("d_k", [16, 64, 512])
def test_c000_16_dot_product_variance_is_d_k(d_k):
    local = np.random.default_rng(1000 + d_k)
    dots = np.einsum("nd,nd->n", local.standard_normal((20000, d_k)), local.standard_normal((20000, d_k)))
    assert dots.var() == pytest.approx(d_k, rel=0.05) and abs(dots.mean()) < 0.1 * math.sqrt(d_k)
    assert v("claims/scaling", f"var_dot_{d_k}") == pytest.approx(d_k, rel=0.05)
    assert v("claims/scaling", f"var_scaled_{d_k}") == pytest.approx(1.0, rel=0.05)
    assert kind("C000-16") == kind("C000-20") == "holds"


@claim("C000-17")
def test_c000_17_two_sigma_share():
    expected = math.erf(2 / math.sqrt(2))  # P(|N(0, 64)| <= 16) = P(|Z| <= 2)
    assert v("claims/scaling", "share_within_16") == pytest.approx(expected, abs=0.01)
    assert kind("C000-17") == "holds"


@claim("C000-18")
def test_c000_18_saturation_is_about_gaps():
    assert math.exp(10) == pytest.approx(22026, abs=1) and math.exp(20) == pytest.approx(4.85e8, rel=0.01)
    assert softmax_row([1000.0, 1001.0, 1002.0]) == pytest.approx(softmax_row([0.0, 1.0, 2.0]), abs=1e-15)
    top = math.exp(10) / (math.exp(10) + 5)
    assert text("claims/scaling", "gap10_top") == f"{top:.5f}"
    assert kind("C000-18") == "holds only when"


@claim("C000-19")
def test_c000_19_jacobian_vanishes_when_saturated():
    one_hot = np.array([1.0, 0, 0, 0])
    assert np.abs(np.diag(one_hot) - np.outer(one_hot, one_hot)).max() == 0.0
    uniform = np.full(4, 0.25)
    assert np.linalg.norm(np.diag(uniform) - np.outer(uniform, uniform)) > 0.4
    assert v("scaled_dot_product/saturation", "jacobian_unscaled_64") < v(
        "scaled_dot_product/saturation", "jacobian_scaled_64"
    )
    assert kind("C000-19") == kind("C003-19") == "holds"
    # the evidence is the median row: it vanishes unscaled, while the mean stays within a few times the scaled one
    scaled = v("scaled_dot_product/saturation", "median_jacobian_scaled_64")
    assert v("scaled_dot_product/saturation", "median_jacobian_unscaled_64") < 0.2 * scaled
    assert v("scaled_dot_product/saturation", "median_jacobian_unscaled_1024") < 1e-4 * scaled


@claim("C000-15")
def test_c000_15_the_scale_prevents_saturation_only_for_unit_variance_components():
    """Unit-variance q, k at d_k = 64: scaled rows are not one-hot; seed 000's N(0, 1) weights: still one-hot."""
    q, k = rng.standard_normal((5000, 1, 64)), rng.standard_normal((5000, 7, 64))
    p = softmax(np.einsum("rqd,rkd->rk", q, k) / 8.0)
    assert np.mean(p.max(axis=-1) > 0.99) < 0.01
    seed = softmax(seed000_head(1.0, scale=True))
    assert np.all(seed.max(axis=-1) > 0.999)  # the scale alone does not prevent it
    assert v("scaled_dot_product/seed_claims", "s000_rows_above_0999_scaled") == v(
        "scaled_dot_product/seed_claims", "s000_rows"
    )
    assert kind("C000-15") == "holds only when"


@claim("C000-21")
def test_c000_21_unscaled_seed_code_gives_nan_not_0_999():
    scores = seed000_head(1.0, scale=False)
    assert scores.max() > math.log(np.finfo(float).max)
    with np.errstate(over="ignore", invalid="ignore"):
        naive = np.exp(scores) / np.exp(scores).sum(-1, keepdims=True)
    assert np.isnan(naive).any() and v("scaled_dot_product/seed_claims", "s000_nan_rows") >= 1
    assert kind("C000-21") == "does not hold"


@claim("C000-22")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_c000_22_scaling_alone_leaves_the_seed_one_hot(seed):
    weights = softmax(seed000_head(1.0, seed=seed))
    assert weights.max(-1).mean() > 0.95
    fixed = softmax(seed000_head(128**-0.5, seed=seed))
    assert fixed[1:].max(-1).mean() < 0.9  # row 0 sees one key under the causal mask
    assert kind("C000-22") == kind("C000-65") == "does not hold"
    assert kind("C000-23") == kind("C003-41") == "holds only when"


@claim("C003-20")
@pytest.mark.parametrize("std,low,high", [(0.01, 0, 0.1), (128**-0.5, 0.5, 3), (1.0, 50, 1e4)])
def test_c003_20_scaled_variance_depends_on_the_projections(std, low, high):
    scores = seed000_head(std)
    visible = scores[np.tril(np.ones((6, 6))) == 1]
    assert low < visible.std() < high
    assert kind("C003-20") == kind("C003-18") == kind("C003-21") == "holds only when"


@claim("C003-22")
@given(st.lists(st.floats(-700, 700), min_size=1, max_size=9))
def test_c003_22_rows_sum_to_one(row):
    assert sum(softmax(np.array(row))) == pytest.approx(1.0, abs=1e-12)
    assert kind("C003-22") == "holds"


@claim("C003-25")
@given(st.lists(st.floats(-50, 50), min_size=1, max_size=9))
def test_c003_25_max_subtraction_changes_nothing(row):
    naive = np.exp(row) / np.sum(np.exp(row))
    np.testing.assert_allclose(softmax(np.array(row)), naive, rtol=1e-12)
    assert kind("C003-25") == kind("C003-42") == "holds"


@claim("G-03")
def test_g03_dividing_by_d_k_flattens_the_weights():
    local = np.random.default_rng(3)
    q, k = local.standard_normal((2, 6, 64))
    flat = np.array([softmax_row(list(r)) for r in q @ k.T / 64]).max(-1).mean()
    assert flat < 1 / 6 + 0.1 and kind("G-03") == "does not hold"


@claim("G-04")
def test_g04_scale_is_a_temperature():
    s = rng.normal(size=5)
    t = math.sqrt(64)
    assert softmax_row(list(s / t)) == pytest.approx([math.exp(a / t) / sum(math.exp(b / t) for b in s) for a in s])
    assert kind("G-04") == "holds"


@claim("G-04")
def test_g04_the_temperature_acts_on_scores_of_variance_d_k_not_on_unit_variance_scores():
    """The evidence once said the temperature brings "unit-variance scores" to std 1.00; unit-variance scores
    divided by 8 would have std 0.125. The unit-variance quantities are q's and k's components: their dot
    products at d_k = 64 have variance about 64, and dividing by 8 brings them to std 1."""
    local = np.random.default_rng(4)
    q, k = local.standard_normal((2, 20_000, 64))
    scores = np.einsum("nd,nd->n", q, k)
    assert 58 < scores.var() < 70 and 0.95 < (scores / 8).std() < 1.05  # std 0.125 if the scores had variance 1
    assert 58 < v("claims/scaling", "var_dot_64") < 70
    assert v("claims/scaling", "temperature_std") == pytest.approx(1, abs=0.05)
    evidence = INVENTORY["G-04"].evidence
    assert "unit-variance scores" not in evidence and "(variance {{ claims.scaling.var_dot_64 }})" in evidence


@claim("C000-21")
def test_c000_21_stable_rows_are_one_hot_to_rounding_as_the_chapter_says():
    from support import INVENTORY

    evidence = INVENTORY["C000-21"].evidence
    assert "exactly one-hot" not in evidence and "one-hot to float64 rounding" in evidence
    chapter = flat_page("scaled-dot-product.md")
    assert "one-hot to within float64 rounding" in chapter  # the two pages now say the same
