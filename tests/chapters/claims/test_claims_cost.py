"""Claims about cost: each verdict against an independent recomputation (oracle loops, closed forms, fresh draws)."""

import numpy as np
from support import W, X, attend, causal, claim, kind, v


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
    assert v("claims/cost", "step_madds_cache") == 2 * n * d and v("claims/cost", "step_madds_nocache") == n * v("claims/cost", "step_madds_cache")
    assert kind("C003-35") == "holds only when"
