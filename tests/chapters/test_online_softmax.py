"""The online softmax chapter: tiled attention equals the reference, and the memory claims hold.

Oracles: the loop implementation in tests/support.py (no NumPy), a two-pass
softmax written here, and tracemalloc run in a fresh process.
"""

import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, strategies as st

from lib.exercises import check
from lib.online_tiles import online_softmax, tiled_attention
from scripts.pipeline.published import printed
from support import REPO, flat_page, oracle_attention, published, published_table, softmax_row


@given(
    st.lists(st.floats(-50, 50, allow_nan=False), min_size=1, max_size=40),
    st.integers(1, 9),
)
def test_online_softmax_equals_the_loop_softmax(row, block):
    weights, trace = online_softmax(np.array(row), block)
    np.testing.assert_allclose(weights, softmax_row(row), rtol=1e-12, atol=1e-300)
    assert len(trace) == math.ceil(len(row) / block)
    m, ell = trace[-1]
    assert m == max(row)
    assert ell == pytest.approx(sum(math.exp(x - m) for x in row), rel=1e-12)


@pytest.mark.claim(
    "tiled attention with a running max and a running sum equals full-softmax attention (a loop oracle) for every "
    "tile size",
    zh="对每种分块大小，使用滚动最大值和滚动求和的分块注意力都等于完整 softmax 注意力（循环参照实现）",
)
@given(st.integers(1, 23), st.integers(1, 23), st.integers(1, 6), st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_tiled_attention_equals_the_loop_oracle(lq, lk, d, tile, seed):
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(lq, d)), rng.normal(size=(lk, d)), rng.normal(size=(lk, 3))
    expected, _ = oracle_attention(q.tolist(), k.tolist(), v.tolist())
    np.testing.assert_allclose(tiled_attention(q, k, v, tile), expected, rtol=1e-10, atol=1e-12)


def test_tiled_attention_survives_large_scores():
    """The running max keeps exp from overflowing even when scores are around 1e4."""
    rng = np.random.default_rng(0)
    q, k, v = 100 * rng.normal(size=(3, 10, 4))
    out = tiled_attention(q, k, v, tile=3)
    assert np.all(np.isfinite(out))
    expected, _ = oracle_attention(q.tolist(), k.tolist(), v.tolist())
    np.testing.assert_allclose(out, expected, rtol=1e-9, atol=1e-9)


def test_tiled_attention_batched():
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(3, 2, 3, 11, 4))
    out = tiled_attention(q, k, v, tile=4)
    for b, h in np.ndindex(2, 3):
        expected, _ = oracle_attention(q[b, h].tolist(), k[b, h].tolist(), v[b, h].tolist())
        np.testing.assert_allclose(out[b, h], expected, rtol=1e-10)


def test_published_errors_are_at_rounding_level():
    values = published("online_softmax/steps")
    for name in ("softmax_max_error", "sentence_max_error", "long_max_error"):
        assert values[name] < 1e-13


PEAK_PROGRAM = """
import sys, tracemalloc
import numpy as np
sys.path.insert(0, "snippets")
from lib.attention import scaled_dot_product_attention
from lib.online_tiles import tiled_attention
n, d = int(sys.argv[1]), 64
q, k, v = np.random.default_rng(0).normal(size=(3, n, d))
for fn, args in ((scaled_dot_product_attention, ()), (tiled_attention, (128,))):
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    fn(q, k, v, *args)
    print(tracemalloc.get_traced_memory()[1] - before)
    tracemalloc.stop()
"""


def peaks(n):
    result = subprocess.run(
        [sys.executable, "-c", PEAK_PROGRAM, str(n)], cwd=REPO, capture_output=True, text=True, check=True
    )
    return [int(line) for line in result.stdout.split()]


@pytest.mark.claim(
    "the full-scores peak grows with L^2, the tiled peak only by the (L, d) output",
    zh="完整分数矩阵的峰值内存随 L^2 增长，分块计算的峰值只随 (L, d) 的输出增长",
)
def test_memory_scaling_in_a_fresh_process():
    (naive_a, tiled_a), (naive_b, tiled_b) = peaks(512), peaks(1024)
    assert 3.5 < naive_b / naive_a < 4.5  # doubling L: about 4x
    growth = tiled_b - tiled_a
    output_growth = 512 * 64 * 8  # 512 more rows of 64 float64
    assert abs(growth - output_growth) < 16 * 1024
    assert naive_b > 2 * 1024 * 1024 * 8  # more than two (L, L) float64 arrays alive at once


def test_published_memory_values():
    values = published("online_softmax/memory")
    assert 1.9 < values["slope_naive"] < 2.1
    assert values["tiled_extra_is_constant"] is True
    assert values["naive_arrays"] > 2
    assert values["ratio_at_max"] > 10


def test_tracemalloc_peaks_reproduce_across_processes():
    """The byte-checked build relies on the peaks being the same in every run (they are rounded to KiB)."""
    first, second = peaks(256), peaks(256)
    assert [round(x / 1024) for x in first] == [round(x / 1024) for x in second]


@pytest.mark.claim(
    "The tiled peak grows like L, with the output (output plus a constant), not 'hardly at all'",
    zh="分块计算的峰值内存随输出按 L 增长（输出加一个常数），而不是“几乎不增长”",
)
def test_tiled_peak_grows_with_the_output():
    from scripts.pipeline.published import value

    extra, peak = value("online_softmax/memory", "tiled_extra_kib"), value("online_softmax/memory", "tiled_max_kib")
    output = value("online_softmax/memory", "output_kib")
    assert math.isclose(peak, output + extra, abs_tol=1.5) and output > extra  # the output is most of the peak
    assert value("online_softmax/memory", "tiled_extra_is_constant") is True
    page = flat_page("online-softmax.md")
    assert "the tiles hardly grow" not in page and "the tiled peak grows only like $L$, with the output" in page


@pytest.mark.claim(
    "The tiled peak is the output plus the same constant only from L = 256 on, and the caption and alt text say so",
    zh="分块的峰值从 L = 256 起才等于输出加同一个常数，图注和替代文字都这样说",
)
def test_the_tiled_extra_is_constant_only_from_the_second_length():
    rows = published_table("online_softmax/memory", "peaks")
    extra = [float(row["tiled minus output (KiB)"].replace(",", "")) for row in rows]
    values = published("online_softmax/memory")
    assert extra[0] != extra[1] and len(set(extra[1:])) == 1  # the smallest length has its own constant
    assert values["constant_from"] > values["l_min"]
    for folder, caption in (
        ("docs", "Right: from $L$ = {{ online_softmax.memory.constant_from }} on"),
        ("docs-zh", "右：从 $L$ = {{ online_softmax.memory.constant_from }} 起"),
    ):
        page = flat_page("online-softmax.md", folder)
        assert caption in page and page.count("{{ online_softmax.memory.constant_from }}") >= 3  # alt, caption, notice
    tiled = [float(row["tiled (KiB)"].replace(",", "")) for row in rows]
    lengths = [int(row["L"]) for row in rows]
    slopes = [(b - a) / (m - n) for a, b, n, m in zip(tiled, tiled[1:], lengths, lengths[1:])]
    assert slopes[0] > 1.5 * slopes[1] and len(set(slopes[1:])) == 1  # one straight line only from the second length
    assert "more steeply from {{ online_softmax.memory.l_min }}" in flat_page("online-softmax.md")
    assert "上升得更陡" in flat_page("online-softmax.md", "docs-zh")


# ---------------------------------------------------------------- exercises


def page_scores():
    """The row of scores as the page prints it (two decimals, so these are the exact values the snippets use)."""
    line = next(row for row in printed("online_softmax/steps").splitlines() if row.startswith("scores:"))
    return [float(x) for x in line.removeprefix("scores:").strip(" []").split()]


def test_exercise_wide_first_sum_against_a_loop():
    x, ex = page_scores(), published("online_softmax/exercises")
    first = x[: ex["wide_block"]]
    m = max(first)
    assert ex["wide_first_max"] == m
    assert ex["wide_first_sum"] == pytest.approx(sum(math.exp(s - m) for s in first), rel=1e-12)
    assert ex["wide_first_sum__row_max"] == pytest.approx(sum(math.exp(s - max(x)) for s in first), rel=1e-12)
    assert ex["wide_first_sum__no_max"] == pytest.approx(sum(math.exp(s) for s in first), rel=1e-12)


def test_exercise_rescaled_sum_against_a_loop_and_the_table():
    x, ex = page_scores(), published("online_softmax/exercises")
    block = published("online_softmax/steps")["block"]
    m_1, m_2 = max(x[:block]), max(x[: 2 * block])
    ell_1 = sum(math.exp(s - m_1) for s in x[:block])
    assert ex["rescale_factor"] == pytest.approx(math.exp(m_1 - m_2), rel=1e-12)
    assert ex["rescaled_sum"] == pytest.approx(ell_1 * math.exp(m_1 - m_2), rel=1e-12)
    assert ex["rescaled_sum__inverted"] == pytest.approx(ell_1 * math.exp(m_2 - m_1), rel=1e-12)
    assert ex["rescaled_sum__not_rescaled"] == pytest.approx(ell_1, rel=1e-12)
    trace = published_table("online_softmax/steps", "trace")  # what the reader reads: m and ell of each block
    shown = [(float(row["running max m"]), float(row["running sum ℓ"])) for row in trace]
    read = shown[0][1] * math.exp(shown[0][0] - shown[1][0])
    assert check(read, ex["rescaled_sum"], decimals=3) == ("right", None)  # the table's digits give the answer asked
    new_terms = sum(math.exp(s - m_2) for s in x[block : 2 * block])
    assert ex["block_2_terms"] == pytest.approx(new_terms, rel=1e-12)
    assert ex["rescaled_sum"] + new_terms == pytest.approx(shown[1][1], abs=5e-5)


def test_exercise_tiles_count_and_last_shape():
    ex, steps = published("online_softmax/exercises"), published("online_softmax/steps")
    length, tile = steps["long_length"], steps["long_tile"]
    assert (ex["long_length"], ex["long_tile"]) == (length, tile)  # the page's long check, not another one
    n_tiles = -(-length // tile)  # ceil
    assert ex["n_tiles"] == n_tiles and ex["score_blocks"] == n_tiles * n_tiles
    assert ex["score_blocks__partial_tile_dropped"] == (length // tile) ** 2
    assert ex["score_blocks__key_tiles_only"] == n_tiles
    last = length - (n_tiles - 1) * tile  # positions in the last tile
    assert ex["last_tile_start"] == (n_tiles - 1) * tile
    assert ex["long_qk_shape"] == [2, length, 16]
    assert ex["last_scores_shape"] == [2, last, last]
    assert ex["last_scores_shape__full_tile"] == [2, tile, tile]
    assert ex["last_scores_shape__no_batch"] == [last, last]
    assert ex["last_q_tile_shape"] == [2, last, 16] and ex["last_k_tile_t_shape"] == [2, 16, last]
