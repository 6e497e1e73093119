"""Claims about the seeds' code: each verdict against an independent recomputation."""

import ast
import math

import numpy as np
import pytest

from support import REPO, claim, kind, text, v


@claim("C000-55")
@pytest.mark.parametrize("seed", range(5))
def test_c000_55_cat_row_is_one_hot_and_masked(seed):
    from lib.claims_seeds import manual_self_attention

    with np.errstate(over="ignore", invalid="ignore"):
        weights, output = manual_self_attention(["The", "cat", "sat", "on", "the", "mat"], np.random.default_rng(seed))
    assert weights.shape == (6, 6) and output.shape == (6, 64)
    assert np.all(weights[1, 2:] == 0.0)
    assert weights[1].max() > 0.99  # never 0.45
    assert kind("C000-55") == kind("C000-56") == kind("C000-57") == "does not hold"
    assert kind("C000-50") == kind("C000-51") == "holds"


@claim("C000-53")
def test_c000_53_seed_code_needs_six_words():
    from lib.claims_seeds import manual_self_attention

    with pytest.raises(ValueError, match="could not be broadcast together with shapes \\(5,5\\) \\(6,6\\)"):
        manual_self_attention(["The", "cat", "sat", "on", "mats"], np.random.default_rng(0))
    assert kind("C000-53") == "holds only when" and kind("C000-64") == "does not hold"


@claim("C000-01")
def test_c000_01_the_function_is_about_twenty_statements():
    from lib.claims_seeds import SEED_000_CODE

    body = [line for line in SEED_000_CODE.splitlines()[2:] if line.strip() and not line.strip().startswith("#")]
    assert 20 < len(body) <= 25 and len(body) == v("claims/seed000", "statements")
    imports = ast.parse((REPO / "snippets" / "lib" / "claims_seeds.py").read_text()).body
    assert [n.names[0].name for n in imports if isinstance(n, ast.Import)] == ["numpy"]
    assert kind("C000-01") == kind("C000-49") == "holds only when" and kind("C000-48") == "holds"


@claim("C003-26")
def test_c003_26_small_init_flattens_seed_003():
    local = np.random.default_rng(26)
    x = local.standard_normal((2, 5, 10))
    w_q, w_k, w_v = local.standard_normal((3, 10, 10)) * 0.01
    scores = (x @ w_q) @ (x @ w_k).transpose(0, 2, 1) / math.sqrt(10)
    weights = np.exp(scores) / np.exp(scores).sum(-1, keepdims=True)
    assert np.abs(weights - 0.2).max() < 0.002
    assert len({f"{w:.2f}" for w in weights[0].ravel()}) == 1 == v("claims/seed003", "n_labels")
    output = weights @ (x @ w_v)
    assert output.std(axis=1).max() < 1e-3
    assert kind("C003-26") == kind("C003-32") == "does not hold" and kind("C003-31") == "holds only when"


@claim("C003-28")
def test_c003_28_seed_003_needs_batched_input():
    from lib.claims_seeds import SelfAttention

    layer = SelfAttention(10, np.random.default_rng(0))
    out, weights = layer.forward(np.ones((2, 5, 10)))
    assert (out.shape, weights.shape) == ((2, 5, 10), (2, 5, 5))
    with pytest.raises(ValueError, match="axes don't match array"):
        layer.forward(np.ones((5, 10)))
    assert kind("C003-28") == "holds only when" and kind("C003-29") == kind("C003-30") == kind("C003-44") == "holds"
    assert text("claims/seed003", "row_sum") == "1.000"
