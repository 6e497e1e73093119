"""The explorables' seeded generator (snippets/lib/seeded.py): SplitMix64 as published, and normals that are
N(0, 1). The page's JavaScript twin is compared with it in tests/site/test_explorables.py."""

import math

import numpy as np
import pytest

from lib.seeded import _splitmix64, normals
from support import FIRST_OUTPUT_ZERO


@pytest.mark.claim(
    "The explorables' generator is SplitMix64: its first outputs from seed 1234567 are the reference ones",
    zh="可交互示例的生成器是 SplitMix64：种子 1234567 的前几个输出与参考实现一致",
)
def test_splitmix64_gives_the_reference_outputs():
    bits = _splitmix64(1234567)  # the reference sequence of Vigna's splitmix64.c, as Java's SplittableRandom tests use
    assert [next(bits) for _ in range(3)] == [6457827717110365317, 3203168211198807973, 9817491932198370423]


@pytest.mark.claim(
    "The explorables' generator draws N(0, 1): Box-Muller from SplitMix64 uniforms",
    zh="可交互示例的生成器抽取 N(0, 1)：由 SplitMix64 的均匀数经 Box-Muller 变换得到",
)
def test_normals_are_box_muller_of_the_uniforms_and_standard():
    bits = _splitmix64(7)
    u1, u2 = (((next(bits) >> 11) + 0.5) / 2**53 for _ in range(2))
    first = math.sqrt(-2 * math.log(u1)) * np.array([math.cos(2 * math.pi * u2), math.sin(2 * math.pi * u2)])
    np.testing.assert_array_equal(normals(7, 2), first)
    draws = normals(3, 100_000)
    assert draws.dtype == np.float64 and draws.shape == (100_000,)
    assert abs(draws.mean()) < 0.02 and abs(draws.std() - 1) < 0.02  # standard errors are 0.003 and 0.002
    np.testing.assert_array_equal(normals(3, 5), draws[:5])  # a prefix of the same stream
    assert len(normals(3, 7)) == 7  # an odd count drops the last sine


def test_the_smallest_uniform_is_half_a_step_above_zero():
    assert next(_splitmix64(FIRST_OUTPUT_ZERO)) == 0  # the top 53 bits are 0: the uniform is 0.5 / 2**53, not 0
    draws = normals(FIRST_OUTPUT_ZERO, 2)  # without the half step: log(0), "math domain error"
    assert np.isfinite(draws).all()
    assert math.hypot(*draws) == pytest.approx(math.sqrt(-2 * math.log(0.5 / 2**53)), rel=1e-15)  # 8.65


def test_normals_reject_bad_arguments():
    for seed in (-1, 2**64, 2**64 + 7, 2**100, 1.5):  # 2**64 + 7 would wrap to seed 7's stream
        with pytest.raises(ValueError, match=r"seed must be a whole number in \[0, 2\*\*64\), got "):
            normals(seed, 3)
    assert normals(2**64 - 1, 1).shape == (1,)  # the largest seed is fine
    with pytest.raises(ValueError, match="count must be a whole number"):
        normals(0, 2.5)
