"""YaRN (Peng et al. 2023, "YaRN: Efficient Context Window Extension of Large Language Models", arXiv 2309.00071):
stretch a rotary model's context by a factor s, pair by pair, and sharpen its softmax by a temperature.

- Each rotary pair i turns at theta_i = base^(-2i/d), so it makes r_i = L / lambda_i = L theta_i / (2 pi) turns in
  the L trained positions (the paper's eq. 17, r(d) = L / lambda_d).
- The ramp (the paper's eq. 18 and 20): pairs that turn more than beta_fast times keep theta_i (extrapolation),
  pairs that turn fewer than beta_slow times get theta_i / s (interpolation, as position interpolation does), and
  the pairs between get a linear mix. Implementations place the ramp on the pair index: from the index where
  r = beta_fast to the index where r = beta_slow, rounded outward (floor, ceil) unless ``truncate`` is False.
- The temperature (the paper's eq. 21 and 22): the scores are divided by t, with sqrt(1/t) = 0.1 ln(s) + 1, by
  multiplying both q and k by sqrt(1/t). DeepSeek's configurations split the factor in two, ``mscale`` and
  ``mscale_all_dim``: see ``attention_factor``.

The two ``buggy_`` functions are mistakes kept for the chapter and its tests only.
"""

import math
import numbers

import numpy as np

from lib.attention import check_base, rope_pairs


def _positive(name, x, at_least=0.0):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real) or not at_least < x < math.inf:
        raise ValueError(f"{name} must be a finite number greater than {at_least:g}, got {x!r}")
    return float(x)


def _check_d(d):
    if isinstance(d, (bool, np.bool_)) or not isinstance(d, numbers.Integral) or d < 2 or d % 2:
        raise ValueError(f"d (the rotated width of a head) must be an even whole number of at least 2, got {d!r}")
    return int(d)


# --8<-- [start:ramp]
def turns_in_context(d, base, context):
    """r_i = L / lambda_i: how many full turns pair i makes in the trained context L. (d/2,)."""
    theta = check_base(base) ** (-np.arange(0, _check_d(d), 2) / d)  # (d/2,) radians per position
    return _positive("context", context, 1.0) * theta / (2 * math.pi)


def pair_where(turns, d, base, context):
    """The (fractional) pair index i at which r_i equals ``turns``: solves L base^(-2i/d) / (2 pi) = turns."""
    return d * math.log(context / (turns * 2 * math.pi)) / (2 * math.log(base))


def ramp_bounds(d, base, context, beta_fast=32.0, beta_slow=1.0, truncate=True):
    """(low, high): the ramp runs from pair ``low`` (r = beta_fast) to pair ``high`` (r = beta_slow)."""
    d, base = _check_d(d), check_base(base)
    context = _positive("context", context, 1.0)
    beta_fast, beta_slow = _positive("beta_fast", beta_fast), _positive("beta_slow", beta_slow)
    if beta_fast <= beta_slow:
        raise ValueError(f"beta_fast ({beta_fast:g} turns) must be larger than beta_slow ({beta_slow:g} turns)")
    low, high = pair_where(beta_fast, d, base, context), pair_where(beta_slow, d, base, context)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, d - 1)


def extrapolated_share(d, base, context, beta_fast=32.0, beta_slow=1.0, truncate=True):
    """gamma_i: 1 for a pair left as trained (fast), 0 for a pair interpolated by s (slow), linear between. (d/2,)."""
    low, high = ramp_bounds(d, base, context, beta_fast, beta_slow, truncate)
    if low == high:
        high += 0.001  # one pair wide: a step, as the implementations do
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0.0, 1.0)  # (d/2,): 0 at low, 1 at high
    return 1.0 - ramp


def yarn_frequencies(d, base, factor, context, beta_fast=32.0, beta_slow=1.0, truncate=True):
    """YaRN's radians per position of each pair, (d/2,): (1 - gamma_i) theta_i / s + gamma_i theta_i."""
    factor = _positive("factor", factor, 1.0)
    theta = check_base(base) ** (-np.arange(0, _check_d(d), 2) / d)  # (d/2,) trained frequencies
    gamma = extrapolated_share(d, base, context, beta_fast, beta_slow, truncate)  # (d/2,)
    return (1.0 - gamma) * theta / factor + gamma * theta
# --8<-- [end:ramp]


# --8<-- [start:temperature]
def get_mscale(factor, mscale=1.0):
    """sqrt(1/t) = 0.1 * mscale * ln(s) + 1 (the paper's eq. 22 has mscale = 1); 1 when s <= 1."""
    factor = _positive("factor", factor)
    return 1.0 if factor <= 1 else 0.1 * mscale * math.log(factor) + 1.0


def attention_factor(factor, mscale=None, mscale_all_dim=None):
    """What multiplies cos and sin, so q and k each: get_mscale(s), or with DeepSeek's two keys their ratio
    get_mscale(s, mscale) / get_mscale(s, mscale_all_dim). The softmax scale then carries get_mscale(s,
    mscale_all_dim)^2 for every feature of the score, so the rotary features end with get_mscale(s, mscale)^2."""
    if mscale and mscale_all_dim:
        return get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)
    return get_mscale(factor)


def score_multiplier(factor):
    """1/t: what the temperature does to every score, q and k each multiplied by sqrt(1/t)."""
    return get_mscale(factor) ** 2
# --8<-- [end:temperature]


# --8<-- [start:bugs]
def buggy_temperature_twice(factor):
    """THE BUG, for the lesson and its test only: sqrt(1/t) multiplies cos and sin (so the scores get 1/t) and the
    softmax scale is multiplied by 1/t again: the scores get (1/t)^2."""
    return score_multiplier(factor) ** 2


def buggy_temperature_missing(factor):
    """THE BUG, for the lesson and its test only: the frequencies are YaRN's, the temperature is left at 1."""
    _positive("factor", factor)
    return 1.0
# --8<-- [end:bugs]


def rotate(x, positions, frequencies, pairing="interleaved"):
    """Turn pair i of row m by m * frequencies[i]: ``apply_rope`` with any frequencies (YaRN's).

    x (..., L, d), positions (L,), frequencies (d/2,). Returns a new float64 array (..., L, d).
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim < 2:
        raise ValueError(f"x must be (..., L, d), got shape {x.shape}")
    *_, length, d = x.shape
    first, second = rope_pairs(d, pairing)  # each (d/2,)
    frequencies = np.asarray(frequencies, dtype=np.float64)
    if frequencies.shape != (d // 2,):
        raise ValueError(f"frequencies must give one per pair of x's {d} features: shape ({d // 2},), "
                         f"got {frequencies.shape}")
    if np.shape(positions) != (length,):
        raise ValueError(f"positions must give one position per row of x: shape ({length},), got {np.shape(positions)}")
    angles = np.asarray(positions, dtype=np.float64)[:, None] * frequencies[None, :]  # (L, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    a, b = x[..., first], x[..., second]  # (..., L, d/2) each
    out = np.empty_like(x)
    out[..., first] = a * cos - b * sin
    out[..., second] = a * sin + b * cos
    return out


def unseen_angle_pairs(frequencies, trained_frequencies, length, context):
    """How many pairs, run on ``length`` positions with ``frequencies``, reach an angle more than one trained
    step past the largest they reached in ``context`` trained positions (a pair that came full circle in training
    has seen every angle)."""
    seen = (context - 1) * np.asarray(trained_frequencies)  # (d/2,) largest trained angle
    reached = (length - 1) * np.asarray(frequencies)  # (d/2,)
    steps = np.where(seen >= 2 * math.pi, 0.0, np.maximum(reached - seen, 0.0) / trained_frequencies)
    return int(np.sum(steps > 1))
