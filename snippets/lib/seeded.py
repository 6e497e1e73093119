"""A seeded generator simple enough to write twice: here, and in the page's JavaScript.

NumPy's ``default_rng`` (PCG64 and a ziggurat) is too much to reproduce in a browser, so the explorables draw
their random queries and keys from this one instead: SplitMix64 (Steele, Lea and Flood, "Fast splittable
pseudorandom number generators", OOPSLA 2014) for uniforms in (0, 1), and the Box-Muller transform for
normals. ``docs/assets/javascripts/explorables/core.js`` (``normals``) is the same algorithm, step for step; the
only difference is that each side's ``log``, ``cos`` and ``sin`` may round a last bit differently.
"""

import math

import numpy as np

_MASK64 = (1 << 64) - 1


def _splitmix64(seed):
    """Yield SplitMix64's 64-bit outputs from ``seed``."""
    state = seed
    while True:
        state = (state + 0x9E3779B97F4A7C15) & _MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        yield z ^ (z >> 31)


def normals(seed, count):
    """(count,) float64 draws from N(0, 1), reproducible from the whole number ``seed`` in [0, 2**64)."""
    if int(seed) != seed or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be a whole number in [0, 2**64), got {seed!r}")
    if int(count) != count or count < 0:
        raise ValueError(f"count must be a whole number >= 0, got {count!r}")
    bits = _splitmix64(int(seed))
    out = []
    while len(out) < count:
        u1 = ((next(bits) >> 11) + 0.5) / 2**53  # (0, 1): never 0, so log(u1) is finite
        u2 = ((next(bits) >> 11) + 0.5) / 2**53
        radius = math.sqrt(-2.0 * math.log(u1))
        out += [radius * math.cos(2 * math.pi * u2), radius * math.sin(2 * math.pi * u2)]
    return np.array(out[: int(count)], dtype=np.float64)
