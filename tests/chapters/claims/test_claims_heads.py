"""Claims about shapes and heads: each verdict against an independent recomputation."""

import numpy as np
import pytest

from support import X, claim, kind, text, v

rng = np.random.default_rng(5)  # fresh draws for this file's tests


@claim("C000-39")
def test_c000_39_fused_projection_is_concatenated_heads():
    w = rng.normal(size=(8, 8))
    fused = (X @ w).reshape(7, 2, 4).transpose(1, 0, 2)
    for h in range(2):
        np.testing.assert_allclose(fused[h], X @ w[:, 4 * h : 4 * h + 4], rtol=1e-12, atol=1e-14)
    assert kind("C000-39") == kind("C000-52") == kind("C000-38") == "does not hold"
    assert kind("C000-35") == kind("C000-36") == kind("C000-61") == "holds"
    assert text("claims/heads", "split_shapes") == "(6, 128) -> (6, 2, 64) -> (2, 6, 64)"


@claim("C000-37")
def test_c000_37_softmax_axis_for_stacked_heads():
    scores = rng.normal(size=(2, 5, 5))
    wrong = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
    assert np.abs(wrong.sum(-1) - 1).max() > 0.1
    right = np.exp(scores) / np.exp(scores).sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(right.sum(-1), 1.0)
    assert kind("C000-37") == "holds only when"


@claim("G-05")
@pytest.mark.parametrize("L,d_model,h", [(6, 128, 2), (10, 512, 8)])
def test_g05_heads_cost_the_same(L, d_model, h):
    assert h * L * L * (d_model // h) == L * L * d_model
    counts = v("multi_head/fused_vs_separate", "madds_heads"), v("multi_head/fused_vs_separate", "madds_one_head")
    n, width = v("multi_head/fused_vs_separate", "n_positions"), v("multi_head/fused_vs_separate", "tutorial_d_model")
    assert counts == (n * n * width, n * n * width) and kind("G-05") == "holds"


@claim("C000-38")
def test_c000_38_unsplit_q_and_k_have_the_same_width():
    n = v("multi_head/fused_vs_separate", "n_positions")
    assert text("multi_head/fused_vs_separate", "unsplit_scores_shape") == str((n, n))
    assert kind("C000-38") == "does not hold"
