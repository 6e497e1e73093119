"""Claims about cost: each verdict against an independent recomputation (oracle loops, closed forms, fresh draws)."""

import numpy as np

from support import INVENTORY, W, X, attend, causal, claim, kind, v


@claim("C003-34")
def test_c003_34_training_in_parallel_equals_generation_step_by_step():
    parallel, _ = attend(X, W, causal(7))
    for t in range(7):
        alone, _ = attend(X[: t + 1], W, causal(t + 1))
        np.testing.assert_allclose(alone[t], parallel[t], rtol=1e-12, atol=1e-14)
    assert kind("C003-34") == "holds" and kind("C003-45") == "does not hold"


@claim("C003-35")
def test_c003_35_per_token_cost_with_and_without_a_cache():
    n, d = v("claims/cost", "n_ctx"), 64
    assert v("claims/cost", "step_madds_cache") == 2 * n * d and v("claims/cost", "step_madds_nocache") == n * v(
        "claims/cost", "step_madds_cache"
    )
    assert kind("C003-35") == "holds only when"


@claim("C003-35")
def test_c003_35_counts_the_whole_step_as_the_kv_cache_chapter_does():
    from support import published_table

    n, d = v("claims/cost", "n_ctx"), 64
    step = 4 * d * d + 2 * n * d  # projections and attention, the KV-cache chapter's accounting
    assert v("claims/cost", "step_madds_layer_cache") == step == 144_384
    assert v("claims/cost", "step_madds_layer_nocache") == n * step
    # the old evidence quoted only the attention part as the cost of a token
    assert v("claims/cost", "step_madds_cache") < step
    per_step = {row["step t"]: row for row in published_table("kv_cache/cost", "per_step")}
    t = 1024
    assert int(per_step[str(t)]["with cache"]) == 4 * d * d + 2 * t * d  # same formula on the other page
    from support import INVENTORY

    evidence = INVENTORY["C003-35"].evidence
    assert "counted as the KV-cache chapter counts a step" in evidence and "alone are" in evidence


@claim("C000-85")
def test_c000_85_learned_and_absent_positions_are_measured_or_cited_on_the_site():
    from support import INVENTORY, REPO

    assert kind("C000-85") == "holds only when"
    assert abs(v("claims/why", "paper_dev_learned_pe") - v("claims/why", "paper_dev_base")) < 0.15
    assert v("order_matters/permutation", "mask_equivariance_error") > 0.1
    evidence = INVENTORY["C000-85"].evidence
    assert "Haviv et al. 2022" in evidence and "BERT and GPT-2" in evidence
    order_matters = (REPO / "docs" / "order-matters.md").read_text(encoding="utf-8")
    positional = (REPO / "docs" / "positional-encoding.md").read_text(encoding="utf-8")
    assert "Haviv et al. (2022)" in order_matters and "learned token and position tables" in positional


@claim("C003-35")
def test_c003_35_the_o_n_step_is_the_cached_one_and_the_condition_says_nothing_is_recomputed():
    from lib.kv_decoder import macs_with_cache, macs_without_cache

    d, n = 64, v("claims/cost", "n_ctx")
    projections = 4 * d * d
    assert macs_with_cache(2 * n, d) - projections == 2 * (macs_with_cache(n, d) - projections)  # linear: the O(N)
    recomputed = [macs_without_cache(t, d) - t * projections for t in (n, 2 * n)]  # attention over every row
    assert recomputed[1] == 4 * recomputed[0]  # recomputing every row: quadratic, O(N²)
    condition = INVENTORY["C003-35"].condition
    # the old condition ("a KV cache is kept (then nothing is recomputed)") negated the claim's own verb
    assert condition.startswith('"recomputes" means "attends to"') and "O(N²)" in condition
