"""lib.yarn against transcriptions of the reference code (transformers, gpt-oss) and the paper's equations written
as loops, for every configuration the chapter shows; its errors; the two temperature bugs."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from lib.attention import apply_rope
from lib.yarn import (
    attention_factor,
    buggy_temperature_missing,
    buggy_temperature_twice,
    get_mscale,
    rotate,
    score_multiplier,
    yarn_frequencies,
)

# (d, base, L, s, beta_fast, beta_slow, bounds rounded): DeepSeek-V3, gpt-oss and Qwen3-8B, as in
# snippets/yarn/configs.py
CONFIGS = [
    (64, 10000.0, 4096, 40.0, 32.0, 1.0, True),
    (64, 150000.0, 4096, 32.0, 32.0, 1.0, False),
    (128, 1000000.0, 32768, 4.0, 32.0, 1.0, True),
]


def transformers_yarn(dim, base, max_position_embeddings, factor, beta_fast=32, beta_slow=1):
    """huggingface/transformers src/transformers/modeling_rope_utils.py, _compute_yarn_parameters at commit
    ef46806472a64b0013ed413781e3afed82bfa047, transcribed line by line with math instead of torch (float64)."""
    attention_factor = 0.1 * math.log(factor) + 1.0

    def find_correction_dim(num_rotations, dim, base, max_position_embeddings):
        return (dim * math.log(max_position_embeddings / (num_rotations * 2 * math.pi))) / (2 * math.log(base))

    def find_correction_range(low_rot, high_rot, dim, base, max_position_embeddings):
        low = math.floor(find_correction_dim(low_rot, dim, base, max_position_embeddings))
        high = math.ceil(find_correction_dim(high_rot, dim, base, max_position_embeddings))
        return max(low, 0), min(high, dim - 1)

    def linear_ramp_factor(min, max, dim):
        if min == max:
            max += 0.001
        return [min_max(0, 1, (i - min) / (max - min)) for i in range(dim)]

    pos_freqs = [base ** (i / dim) for i in range(0, dim, 2)]
    inv_freq_extrapolation = [1.0 / p for p in pos_freqs]
    inv_freq_interpolation = [1.0 / (factor * p) for p in pos_freqs]
    low, high = find_correction_range(beta_fast, beta_slow, dim, base, max_position_embeddings)
    inv_freq_extrapolation_factor = [1 - r for r in linear_ramp_factor(low, high, dim // 2)]
    inv_freq = [
        i * (1 - e) + x * e
        for i, x, e in zip(inv_freq_interpolation, inv_freq_extrapolation, inv_freq_extrapolation_factor)
    ]
    return inv_freq, attention_factor


def min_max(lo, hi, x):
    return min(max(x, lo), hi)


def gpt_oss_yarn(head_dim, base, initial_context_length, scaling_factor, ntk_alpha=1.0, ntk_beta=32.0):
    """openai/gpt-oss gpt_oss/torch/model.py, RotaryEmbedding._compute_concentration_and_inv_freq at commit
    0568dfc94f09469e2968c2b90e50561d1b3fc424, transcribed with math instead of torch (float64)."""
    freq = [base ** (i / head_dim) for i in range(0, head_dim, 2)]
    concentration = 0.1 * math.log(scaling_factor) + 1.0
    d_half = head_dim / 2
    low = d_half * math.log(initial_context_length / (ntk_beta * 2 * math.pi)) / math.log(base)
    high = d_half * math.log(initial_context_length / (ntk_alpha * 2 * math.pi)) / math.log(base)
    assert 0 < low < high < d_half - 1
    interpolation = [1.0 / (scaling_factor * f) for f in freq]
    extrapolation = [1.0 / f for f in freq]
    mask = [1 - min_max(0, 1, (i - low) / (high - low)) for i in range(int(d_half))]
    inv_freq = [i * (1 - m) + e * m for i, e, m in zip(interpolation, extrapolation, mask)]
    return concentration, inv_freq


@pytest.mark.claim(
    "YaRN's frequencies and factor of the core agree with transformers' _compute_yarn_parameters (DeepSeek-V3's "
    "and Qwen3-8B's configurations) and gpt-oss's own code (gpt-oss's) to 1e-12",
    zh="核心模块的 YaRN 频率和系数与 transformers 的 _compute_yarn_parameters（DeepSeek-V3 和 Qwen3-8B 的配置）"
    "以及 gpt-oss 自己的代码（gpt-oss 的配置）一致，误差在 1e-12 以内",
)
def test_the_core_agrees_with_the_reference_code():
    # DeepSeek-V3's and Qwen3-8B's: no betas in Qwen3's rope_scaling, so transformers' defaults (32, 1) and its rounded
    # bounds apply (transformers 4.57.1 adds a `truncate` key, default True: the same rule)
    for d, base, context, s, fast, slow, truncate in (CONFIGS[0], CONFIGS[2]):
        want, factor = transformers_yarn(d, base, context, s, fast, slow)
        got = yarn_frequencies(d, base, s, context, fast, slow, truncate)
        assert np.max(np.abs(got - want) / np.asarray(want)) <= 1e-12
        assert abs(attention_factor(s) - factor) <= 1e-12
    d, base, context, s, fast, slow, truncate = CONFIGS[1]
    factor, want = gpt_oss_yarn(d, base, context, s, slow, fast)
    got = yarn_frequencies(d, base, s, context, fast, slow, truncate)
    assert np.max(np.abs(got - want) / np.asarray(want)) <= 1e-12
    assert abs(attention_factor(s) - factor) <= 1e-12
    # the rounding matters: gpt-oss's configuration with the bounds rounded is a different set of frequencies
    rounded = yarn_frequencies(d, base, s, context, fast, slow, True)
    assert np.max(np.abs(rounded - want) / np.asarray(want)) > 0.01


def test_the_index_ramp_keeps_and_divides_the_pairs_the_paper_does():
    """Eq. 18 and 20 with r_i = L theta_i / (2 pi): every pair the paper keeps (r > beta) or divides (r < alpha)
    is kept or divided by the code too; they differ only in between."""
    for d, base, context, s, fast, slow, truncate in CONFIGS:
        got = yarn_frequencies(d, base, s, context, fast, slow, truncate)
        for i in range(d // 2):
            theta = base ** (-2 * i / d)
            r = context * theta / (2 * math.pi)
            if r > fast:
                assert got[i] == theta
            elif r < slow:
                assert got[i] == pytest.approx(theta / s, rel=1e-12)


def test_mscale_and_its_ratio():
    assert get_mscale(8.0) == pytest.approx(1.2079441541679836)  # the paper's eq. 25: about 1.208
    assert get_mscale(1.0) == 1.0 and get_mscale(0.5) == 1.0
    assert attention_factor(40.0, 1.0, 1.0) == 1.0
    assert attention_factor(40.0, 0.707, 0.707) == 1.0
    ratio = attention_factor(40.0, 1.0, 0.707)
    assert ratio == pytest.approx((0.1 * math.log(40) + 1) / (0.0707 * math.log(40) + 1))
    # with the softmax scale carrying mscale_all_dim's square, the rotary features end with mscale's square
    assert ratio**2 * get_mscale(40.0, 0.707) ** 2 == pytest.approx(get_mscale(40.0, 1.0) ** 2)


@pytest.mark.claim(
    "Applying YaRN's temperature twice multiplies the scores by (1/t)^2 instead of 1/t; leaving it out, by 1",
    zh="把 YaRN 的温度用两次，分数乘的是 (1/t)^2 而不是 1/t；漏掉它，则乘以 1",
)
@given(st.floats(1.01, 1000.0))
def test_the_two_temperature_bugs(s):
    right = (0.1 * math.log(s) + 1) ** 2
    assert score_multiplier(s) == pytest.approx(right, rel=1e-12)
    assert buggy_temperature_twice(s) == pytest.approx(right**2, rel=1e-12)
    assert buggy_temperature_missing(s) == 1.0
    assert buggy_temperature_twice(s) > score_multiplier(s) > buggy_temperature_missing(s)


@given(st.floats(1.0001, 1e4), st.sampled_from([16, 32, 64, 128]), st.floats(100.0, 1e6))
def test_frequencies_lie_between_interpolation_and_extrapolation(s, d, base):
    theta = base ** (-np.arange(0, d, 2) / d)
    got = yarn_frequencies(d, base, s, 4096)
    assert np.all(got <= theta * (1 + 1e-12)) and np.all(got >= theta / s * (1 - 1e-12))
    assert np.all(np.diff(got / theta) <= 1e-12)  # the ratio never rises from a fast pair to a slower one


def test_rotate_with_the_trained_frequencies_is_apply_rope():
    x = np.random.default_rng(3).normal(size=(2, 5, 8))
    positions = np.array([0, 3, 17, 400, 9000])
    for pairing in ("interleaved", "half"):
        want = apply_rope(x, positions, pairing=pairing)
        got = rotate(x, positions, 10000.0 ** (-np.arange(0, 8, 2) / 8), pairing)
        assert np.max(np.abs(got - want)) <= 1e-12


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: yarn_frequencies(63, 10000.0, 4.0, 4096), "even whole number"),
        (lambda: yarn_frequencies(64, 1.0, 4.0, 4096), "base must be"),
        (lambda: yarn_frequencies(64, 10000.0, 0.5, 4096), "factor must be"),
        (lambda: yarn_frequencies(64, 10000.0, 4.0, 4096, 1.0, 32.0), "beta_fast"),
        (lambda: yarn_frequencies(64, 10000.0, 4.0, -1), "context must be"),
        (lambda: rotate(np.zeros((3, 8)), np.arange(3), np.ones(3)), "one per pair"),
        (lambda: rotate(np.zeros((3, 8)), np.arange(2), np.ones(4)), "one position per row"),
    ],
)
def test_bad_input_is_refused_naming_the_problem(call, message):
    with pytest.raises(ValueError, match=message):
        call()
