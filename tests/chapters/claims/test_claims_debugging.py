"""Claims about debugging advice: each verdict against an independent recomputation."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from lib.attention import softmax
from lib.debug_tools import numeric_gradient
from support import INVENTORY, claim, flat_page, kind, positional_encoding, softmax_row, text, v


@claim("C000-71")
def test_c000_71_dead_head_at_six_tokens():
    assert abs(v("claims/seed003", "six_min") - 1 / 6) < 0.01 and abs(v("claims/seed003", "six_max") - 1 / 6) < 0.01
    assert kind("C000-71") == "holds only when"


def test_c000_71_a_tiny_w_q_flattens_the_rows_as_much_as_a_tiny_w_k():
    """Flat rows do not point at W_k alone: with the other matrix at std 1/sqrt(d_model), a tiny W_q gives rows as
    close to uniform as a tiny W_k, and both far closer than a healthy pair."""
    rng = np.random.default_rng(0)
    d_model, d_k, n = 128, 64, 6
    x = rng.normal(size=(n, d_model))
    healthy, tiny = rng.normal(size=(2, d_model, d_k)) / math.sqrt(d_model), rng.normal(size=(d_model, d_k)) * 0.01

    def spread(w_q, w_k):
        scores = (x @ w_q) @ (x @ w_k).T / math.sqrt(d_k)
        return np.abs(np.array([softmax_row(row) for row in scores]) - 1 / n).max()

    tiny_q, tiny_k, neither = spread(tiny, healthy[1]), spread(healthy[0], tiny), spread(*healthy)
    assert max(tiny_q, tiny_k) < 0.05 < neither / 3 and 0.5 < tiny_q / tiny_k < 2
    assert "W_q or W_k" in INVENTORY["C000-71"].condition and "W_q 或 W_k" in INVENTORY["C000-71"].condition_zh


@claim("C000-66")
def test_c000_66_clipping_changes_the_weights():
    row = [120.0, 80.0, 60.0, 0.0]
    clipped = softmax_row([min(max(s, -50), 50) for s in row])
    assert clipped[0] == pytest.approx(1 / 3) and softmax_row(row)[0] > 0.999999
    assert (
        text("debugging/nan", "row_clipped_top") == f"{clipped[0]:.3f}"
        and text("debugging/nan", "row_exact_top") == "1.000000"
    )
    assert kind("C000-66") == "does not hold"


@claim("C000-67")
@pytest.mark.parametrize("n", [1, 6, 512])
def test_c000_67_pe_already_peaks_at_one(n):
    pe = [[positional_encoding(p, i, 16) for i in range(16)] for p in range(n)]
    assert max(abs(a) for row in pe for a in row) == 1.0
    assert kind("C000-67") == "does not hold"


@claim("C000-73")
def test_c000_73_no_gradient_reaches_masked_scores():
    weights = np.array(softmax_row([0.5, -0.2, -math.inf, -math.inf]))
    upstream = np.array([0.3, -1.0, 2.0, 5.0])
    d_scores = weights * (upstream - weights @ upstream)  # softmax's vector-Jacobian product
    assert d_scores[2] == 0.0 and d_scores[3] == 0.0 and not np.isnan(d_scores).any()
    assert (
        v("debugging/gradients", "masked_grad_max") == 0.0
        and kind("C000-73") == "does not hold"
        and kind("C000-72") == "holds"
    )


@claim("C000-78")
@given(st.lists(st.floats(-20, 20), min_size=2, max_size=6))
def test_c000_78_l1_penalty_is_constant(row):
    base = sum(abs(w) for w in softmax_row(row))
    for i in range(len(row)):
        bumped = list(row)
        bumped[i] += 1e-3
        assert sum(abs(w) for w in softmax_row(bumped)) == pytest.approx(base, abs=1e-12)
    assert kind("C000-78") == "does not hold"


@claim("C000-79")
def test_c000_79_distance_penalty_moves_weight_far():
    distance = np.abs(np.arange(6)[:, None] - np.arange(6)[None, :])
    short = (distance <= 1).astype(float)
    logits = np.random.default_rng(79).normal(size=(6, 6))
    mean_distance = lambda s: float(np.sum(softmax(s) * distance, -1).mean())  # noqa: E731
    s = logits.copy()
    for _ in range(50):  # finite-difference gradient of sum(softmax(s) * short)
        penalty = lambda z: float(np.sum(softmax(z) * short))  # noqa: E731
        s -= numeric_gradient(penalty, s)
    assert mean_distance(s) > mean_distance(logits) + 0.3
    assert (
        v("claims/debugging", "mean_distance_after") > v("claims/debugging", "mean_distance_before")
        and kind("C000-79") == "holds only when"  # measured on free scores, not through a head
    )
    assert INVENTORY["C000-79"].see == ""  # no page shows this measurement


@claim("C000-68")
def test_c000_68_names_where_the_0_02_comes_from():
    assert kind("C000-68") == "cannot be checked here"  # whether it fixes training is still a training question
    evidence = INVENTORY["C000-68"].evidence
    assert "BERT's `initializer_range`" in evidence and "`c_proj` included" in evidence
    positional = flat_page("positional-encoding.md")
    assert "standard deviation 0.02 (`initializer_range`)" in positional  # the site's own citation of BERT
    assert v("debugging/heads", "wo_small_gain") < 1  # the measured effect the evidence quotes


@claim("C000-66")
def test_c000_66_the_zero_gradient_share_is_of_all_scores_and_is_the_clipped_ones():
    from support import INVENTORY, run_snippet

    namespace = run_snippet("debugging/nan")
    scores, d_scores = namespace["scores"], namespace["d_scores"]
    np.testing.assert_array_equal(d_scores == 0, np.abs(scores) >= 50)  # zero gradient exactly where clipped
    assert math.isclose(v("debugging/nan", "clip_zero_grad_share"), np.mean(np.abs(scores) >= 50))
    assert "of the scores, every clipped one, get zero gradient" in INVENTORY["C000-66"].evidence
