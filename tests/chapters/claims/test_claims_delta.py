"""Claims about linear attention and the delta rule (G-70 to G-74): each verdict against an independent
recomputation (loops over lists written from the update rules, counts from the configuration's numbers)."""

import numpy as np

from support import INVENTORY, claim, kind, v

RECALL, MEMORY, IDENTITIES = "delta_rule/recall", "delta_rule/memory", "delta_rule/identities"


def read_back(keys, values, rule):
    """Write the pairs in order into a d_k x d_v state of lists (sum rule or delta rule, beta = 1), read each key."""
    d_k, d_v = len(keys[0]), len(values[0])
    s = [[0.0] * d_v for _ in range(d_k)]
    for k, val in zip(keys, values):
        old = [sum(s[i][j] * k[i] for i in range(d_k)) for j in range(d_v)] if rule == "delta" else [0.0] * d_v
        for i in range(d_k):
            for j in range(d_v):
                s[i][j] += k[i] * (val[j] - old[j])
    return np.array([[sum(s[i][j] * k[i] for i in range(d_k)) for j in range(d_v)] for k in keys])


def pairs(rng, n, d_k, d_v):
    keys, values = rng.normal(size=(n, d_k)), rng.normal(size=(n, d_v))
    return keys / np.linalg.norm(keys, axis=1, keepdims=True), values / np.linalg.norm(values, axis=1, keepdims=True)


@claim("G-70")
def test_g70_linear_attention_does_not_give_softmax_outputs():
    keys, values = pairs(np.random.default_rng(70), 12, 4, 3)
    linear = read_back(keys.tolist(), values.tolist(), "sum")
    scores = 8.0 * keys @ keys.T
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    softmax = (weights / weights.sum(axis=1, keepdims=True)) @ values
    assert np.abs(linear - softmax).max() > 0.1
    assert v(RECALL, "softmax_16_recall_max") > v(RECALL, "linear_16_recall_max")
    assert kind("G-70") == "does not hold"


@claim("G-71")
def test_g71_the_state_does_not_grow():
    for n in (3, 30):  # the state of lists has d_k x d_v entries whatever the number of tokens written
        keys, values = pairs(np.random.default_rng(n), n, 4, 2)
        assert read_back(keys.tolist(), values.tolist(), "delta").shape == (n, 2)
    assert v(MEMORY, "qwen_state_numbers") == 32 * 128 * 128 and v(MEMORY, "qwen_token_numbers") == 2 * 2 * 256
    assert v(MEMORY, "toy_state_bytes") == 2 * 4 * 4 * 8 and v(MEMORY, "toy_cache_bytes") == 2 * 2 * 64 * 4 * 8
    assert kind("G-71") == "holds"


@claim("G-72")
def test_g72_the_delta_rule_is_more_exact_below_d_k_and_recalls_less_above():
    keys, values = pairs(np.random.default_rng(72), 4, 8, 3)
    delta, linear = (read_back(keys.tolist(), values.tolist(), r) for r in ("delta", "sum"))
    assert np.abs(delta[-1] - values[-1]).max() < 1e-12 < np.abs(linear[-1] - values[-1]).max()  # newest: exact
    for d_k in v(RECALL, "d_ks"):
        assert v(RECALL, f"delta10_{d_k}_exact_up_to") > v(RECALL, f"linear_{d_k}_exact_up_to")
        assert v(RECALL, f"delta1_{d_k}_recall_2dk") < v(RECALL, f"linear_{d_k}_recall_2dk")
        assert v(RECALL, f"delta1_{d_k}_newest") > v(RECALL, f"delta1_{d_k}_oldest")
    assert kind("G-72") == "holds only when"


@claim("G-73")
def test_g73_the_chunked_form_is_exact():
    assert v(IDENTITIES, "largest_identity_gap") < 1e-12
    assert kind("G-73") == "does not hold"


@claim("G-73")
def test_g73_quotes_the_chunked_forms_own_gap_not_the_linear_rows():
    # the largest gap of all includes "linear: recurrence vs masked matrix form", which is not the chunked form
    assert v(IDENTITIES, "chunked_gap") < v(IDENTITIES, "largest_identity_gap")
    for evidence in (INVENTORY["G-73"].evidence, INVENTORY["G-73"].evidence_zh):
        assert "delta_rule.identities.chunked_gap" in evidence and "largest_identity_gap" not in evidence


@claim("G-74")
def test_g74_a_quarter_only_for_long_contexts():
    linear_layers, full_layers, state, per_token = 36, 12, 32 * 128 * 128, 2 * 2 * 256

    def ratio(length):
        return (linear_layers * state + full_layers * per_token * length) / (48 * per_token * length)

    assert ratio(256) > 1 and ratio(512) == 1 and 0.25 < ratio(262144) < 0.252
    assert v(MEMORY, "ratio_4096") == ratio(4096) and v(MEMORY, "equal_at") == 512
    assert kind("G-74") == "holds only when"
    assert "{{ delta_rule.memory.ratio_262144 }}" in INVENTORY["G-74"].evidence
