"""Claims about YaRN (G-20, G-61 to G-64; G-21 to G-24 were already taken): each verdict against a recomputation
written from the paper's equations (loops over the pairs, the temperature in closed form), not through lib.yarn."""

import math

import numpy as np
from hypothesis import given, strategies as st

from support import INVENTORY, claim, kind, v


def turns(d, base, context):
    return [context * base ** (-2 * i / d) / (2 * math.pi) for i in range(d // 2)]


@claim("G-20")
def test_g20_only_the_slow_pairs_are_divided():
    kept, mixed, divided = (v("yarn/configs", f"deepseek_v3_{k}") for k in ("kept", "mixed", "divided"))
    assert kept + mixed + divided == 32 and kept > 0 and mixed > 0
    r = turns(64, 10000.0, 4096)
    assert sum(x > 32 for x in r) <= kept  # every pair that turns more than beta_fast times is kept
    assert kind("G-20") == "does not hold"


@claim("G-61")
def test_g61_the_scores_get_the_square():
    m = 0.1 * math.log(40) + 1
    assert abs(v("yarn/temperature", "factor_right") - m * m) < 1e-12
    assert abs(v("yarn/configs", "deepseek_v3_mscale") - m) < 1e-12 and m * m > m + 0.4
    assert kind("G-61") == "does not hold"


@claim("G-62")
def test_g62_twice_sharpens_the_weights():
    assert abs(v("yarn/temperature", "factor_twice") - v("yarn/temperature", "factor_right") ** 2) < 1e-12
    assert v("yarn/temperature", "entropy_twice") < v("yarn/temperature", "entropy_right") - 1
    assert v("yarn/temperature", "largest_twice") > 10 * v("yarn/temperature", "largest_right")
    assert kind("G-62") == "does not hold"


def past_trained(freq, theta, length, context):
    count = 0
    for new, old in zip(freq, theta):
        seen, reached = (context - 1) * old, (length - 1) * new
        if seen < 2 * math.pi and reached - seen > old:
            count += 1
    return count


def yarn_loop(d, base, s, context, fast, slow):
    """transformers' rule (bounds rounded outward), one pair at a time."""
    low = math.floor(d * math.log(context / (fast * 2 * math.pi)) / (2 * math.log(base)))
    high = math.ceil(d * math.log(context / (slow * 2 * math.pi)) / (2 * math.log(base)))
    low, high = max(low, 0), min(high, d - 1)
    high = high + 0.001 if low == high else high
    out = []
    for i in range(d // 2):
        theta = base ** (-2 * i / d)
        ramp = min(max((i - low) / (high - low), 0.0), 1.0)
        out.append(ramp * theta / s + (1 - ramp) * theta)
    return out


SHOWN = {  # d, base, s, context
    "DeepSeek-V3": (64, 10000.0, 40.0, 4096),
    "gpt-oss": (64, 150000.0, 32.0, 4096),
    "Qwen3-8B": (128, 1000000.0, 4.0, 32768),
}


@claim("G-63")
@given(st.sampled_from(sorted(SHOWN)), st.floats(1.0, 4.0))
def test_g63_no_pair_past_its_angles_in_the_configurations_shown_when_beta_slow_is_at_least_one(name, slow):
    d, base, s, context = SHOWN[name]
    theta = [base ** (-2 * i / d) for i in range(d // 2)]
    assert past_trained(yarn_loop(d, base, s, context, 32.0, slow), theta, int(s * context), context) == 0
    assert v("yarn/temperature", "unseen_yarn") == 0 < v("yarn/temperature", "unseen_none")
    assert kind("G-63") == "holds only when"


def test_g63_beta_slow_of_one_is_not_enough_everywhere():
    """With the ramp's bounds rounded outward, a pair that turns just under once in training can sit on the ramp and
    be partly extrapolated: the configuration the condition names has one pair past its trained angles."""
    d, base, s, context = 128, 645211.0, 2.0, 4096
    theta = [base ** (-2 * i / d) for i in range(d // 2)]
    assert past_trained(yarn_loop(d, base, s, context, 32.0, 1.0), theta, int(s * context), context) == 1
    row = INVENTORY["G-63"]
    assert "d = 128, base 645211, s = 2" in row.condition and "645211" in row.condition_zh


def test_g63_needs_its_condition():
    """With beta_slow = 0.5 the pairs that turn between half a turn and one turn in training sit on the ramp, partly
    extrapolated: DeepSeek-V3's configuration then has pairs past their trained angles."""
    d, base, s, context = 64, 10000.0, 40.0, 4096
    theta = [base ** (-2 * i / d) for i in range(d // 2)]
    assert past_trained(yarn_loop(d, base, s, context, 32.0, 1.0), theta, int(s * context), context) == 0
    assert past_trained(yarn_loop(d, base, s, context, 32.0, 0.5), theta, int(s * context), context) > 0


def test_g63_the_condition_is_enough_not_necessary():
    """beta_slow >= 1 is enough, not needed: DeepSeek-V3's configuration still has no pair past its trained angles at
    beta_slow = 0.9, so the condition must not read as if every beta_slow below 1 fails, and says so."""
    d, base, s, context = 64, 10000.0, 40.0, 4096
    theta = [base ** (-2 * i / d) for i in range(d // 2)]
    assert past_trained(yarn_loop(d, base, s, context, 32.0, 0.9), theta, int(s * context), context) == 0
    assert past_trained(yarn_loop(d, base, s, context, 32.0, 0.8), theta, int(s * context), context) > 0
    assert past_trained(yarn_loop(d, base, s, context, 32.0, 0.5), theta, int(s * context), context) > 0
    row = INVENTORY["G-63"]
    assert "holds at 0.9 and fails at 0.8 and at 0.5" in row.condition
    assert "0.9 时仍成立，在 0.8 和 0.5 时不成立" in row.condition_zh


@claim("G-64")
def test_g64_the_rotary_features_end_with_mscale_alone():
    def get_mscale(scale, mscale):
        return 0.1 * mscale * math.log(scale) + 1.0

    for s in (4.0, 40.0):
        for mscale, mscale_all_dim in ((1.0, 1.0), (0.707, 0.707), (1.0, 0.707), (0.8, 1.2)):
            ratio = get_mscale(s, mscale) / get_mscale(s, mscale_all_dim)
            rotary = ratio**2 * get_mscale(s, mscale_all_dim) ** 2
            assert np.isclose(rotary, get_mscale(s, mscale) ** 2, rtol=1e-12)
            both = get_mscale(s, mscale) ** 2 * get_mscale(s, mscale_all_dim) ** 2
            assert not np.isclose(both, rotary) or mscale_all_dim == 0
    assert kind("G-64") == "does not hold"
