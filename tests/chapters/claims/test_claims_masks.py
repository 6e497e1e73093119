"""Claims about masks: each verdict against an independent recomputation (oracle loops, closed forms, fresh draws)."""

import math

import numpy as np
import pytest

from support import W, X, attend, claim, kind, softmax_row, text, v


@claim("C000-42")
def test_c000_42_triu_marks_the_future():
    mask = np.triu(np.ones((6, 6)), k=1)
    assert all((mask[i][j] == 1) == (j > i) for i in range(6) for j in range(6))
    assert kind("C000-42") == "holds"


@claim("C000-43")
def test_c000_43_subtracting_1e9_as_seed_000_does():
    """The seed's own operations, scores - 1e9 * mask, written out with math (float64) and NumPy (float16)."""
    scores = [3.0, 1.0, -2.0]
    shifted = [s - 1e9 * m for s, m in zip(scores, [0, 1, 1])]  # one visible key
    assert softmax_row(shifted)[1:] == [0.0, 0.0]
    all_masked = [s - 1e9 for s in scores]
    exps = [math.exp(s) for s in all_masked]  # the seed's exp / sum: 0 / 0
    assert sum(exps) == 0.0
    assert softmax_row(all_masked) == pytest.approx(softmax_row(scores), abs=1e-6)  # max subtracted: unmasked row
    assert v("claims/masks", "float64_naive_empty") == "36 NaN"
    assert float(v("claims/masks", "float64_stable_empty")) < 1e-6
    with np.errstate(over="ignore", invalid="ignore"):
        half = np.array(scores, dtype=np.float16) - 1e9 * np.array([0, 1, 1], dtype=np.float16)
    assert np.isnan(half[0]) and np.isneginf(half[1])  # float16 stores 1e9 as inf; inf * 0 = NaN on the visible key
    assert v("claims/masks", "float16_naive_causal") == v("claims/masks", "float16_stable_causal") == "36 NaN"
    assert np.float32(3.0) - np.float32(1e9) == np.float32(1.0) - np.float32(1e9)  # float32: steps of 64 near 1e9
    assert float(v("claims/masks", "float32_stable_empty")) > 0.01
    # float32 with the seed's exp / sum fails even under the causal mask; subtracting the row maximum does not
    naive_float32 = v("claims/masks", "float32_naive_causal")  # e.g. "13 NaN" of 36 weights
    assert naive_float32.endswith(" NaN") and int(naive_float32.split()[0]) > 0
    assert float(v("claims/masks", "float32_stable_causal")) == 0.0
    assert kind("C000-43") == "holds only when" and kind("C000-45") == "holds"


@claim("C000-44")
def test_c000_44_masked_weights_and_gradients_are_zero_only_where_the_weights_are():
    """Seed 000 says this of its own line, scores - 1e9 * mask. A weight of exactly 0 has gradient w (1 - w) = 0;
    the seed's line in float16 gives NaN weights instead, so the verdict needs C000-43's conditions."""
    weights = np.array(softmax_row([3.0 - 1e9, 1.0, -2.0]))  # float64: the masked weight is exactly 0
    assert weights[0] == 0.0 and weights[0] * (1 - weights[0]) == 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        half = np.array([3.0, 1.0], dtype=np.float16) - 1e9 * np.array([1, 0], dtype=np.float16)
        shifted = np.exp(half - half.max())
    assert np.isnan(shifted / shifted.sum()).all()  # NaN, not 0: the claim fails outside C000-43's conditions
    scores = [3.0, 1.0, -2.0]
    empty = np.array(scores) - 1e9  # every key of the row masked, float64
    with np.errstate(under="ignore", invalid="ignore"):
        assert np.isnan(np.exp(empty) / np.exp(empty).sum()).all()  # the seed's exp / sum: NaN
    assert np.allclose(softmax_row(list(empty)), softmax_row(scores))  # max-subtracting: the unmasked weights
    assert kind("C000-44") == "holds only when"


@claim("C000-46")
def test_c000_46_mask_after_softmax_gives_negative_weights():
    weights = np.array(softmax_row([0.1, 0.2, 0.3]))
    after = weights - 1e9 * np.array([0, 1, 1])
    assert after.min() < -9e8 and kind("C000-46") == "does not hold"
    # not saturation: a saturated row and a uniform row fail the same way, by the same -1e9
    for row in ([50.0, 0.0, 0.0], [0.0, 0.0, 0.0]):
        assert (np.array(softmax_row(row)) - 1e9 * np.array([0, 1, 1]))[1:].max() < -9e8


@claim("G-06")
def test_g06_all_minus_inf_row_is_nan_in_the_naive_softmax():
    with np.errstate(invalid="ignore"):
        row = np.exp(np.full(4, -np.inf))
        assert np.isnan(row / row.sum()).all()
    assert v("claims/masks", "fully_masked_inf_nan") == 6 and kind("G-06") == "does not hold"


@claim("C000-40")
def test_c000_40_padding_is_visible_without_a_mask():
    padded = np.concatenate([X[:4], np.zeros((3, 8))])
    _, weights = attend(padded, W)
    assert weights[:4, 4:].sum(-1).max() > 0.05
    _, masked = attend(padded, W, [[j < 4 for j in range(7)] for _ in range(7)])
    assert masked[:4, 4:].max() == 0.0
    assert kind("C000-40") == kind("C000-70") == "holds only when" and kind("C000-41") == "holds"


def test_the_float32_nan_of_seed_000s_mask_are_overflow_and_a_row_the_mask_leaves_empty():
    """The claims page: in float32 the seed's exp / sum overflows on large scores (mask or no mask), and the first
    query's row is 0/0 because the mask leaves it one score whose exp underflows; without the mask it has no NaN."""
    from lib.claims_seeds import seed000_heads

    _, q, k, _ = seed000_heads(6, np.random.default_rng(42))
    scores = (q[0] @ k[0].T / np.sqrt(64)).astype(np.float32)  # (6, 6), as snippets/claims/masks.py computes them
    limit = math.log(float(np.finfo(np.float32).max))
    assert f"{limit:.1f}" == text("claims/masks", "float32_exp_limit")
    overflowing = int((np.triu(np.ones((6, 6)), k=1) == 0)[scores > limit].sum())
    assert overflowing == v("claims/masks", "float32_overflow_weights") > 0
    first = float(v("claims/masks", "float32_first_score"))
    assert math.exp(first) < float(np.finfo(np.float32).tiny) * 2**-23 and scores[0, 0] == pytest.approx(first)
    assert (scores[0] > -limit).any()  # unmasked, the first row keeps scores whose exp is not 0
    n_nan = int(v("claims/masks", "float32_naive_causal").split()[0])
    assert n_nan == overflowing + 6 * v("claims/masks", "float32_zero_rows")
