"""`make bench`: the quick mode runs and writes files of the right shape. No timing thresholds (timings vary)."""

import json
import re
import subprocess
import sys
from fractions import Fraction

import pytest

from scripts import bench
from scripts.pipeline import references
from support import REPO, english_words, published

MEASURED = REPO / "docs" / "measured"


def check_structure(result, text):
    machine = result["machine"]
    for key in (
        "cpu",
        "logical_cpus",
        "usable_cpus",
        "platform",
        "python",
        "numpy",
        "blas",
        "thread_env",
        "load_average_start",
        "load_average_end",
    ):
        assert key in machine, key
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", result["date"])
    tiling, mha = result["settings"]["tiling"], result["settings"]["mha"]
    assert [row["L"] for row in result["tiling"]] == tiling["lengths"]
    assert [row["L"] for row in result["mha"]] == mha["lengths"]
    for row in result["tiling"]:
        assert [t["tile"] for t in row["tiled"]] == tiling["tiles"]
        for t in row["tiled"]:
            assert t["seconds"] > 0 and row["naive_s"] > 0
            assert t["ratio_to_naive"] == pytest.approx(t["seconds"] / row["naive_s"])
    for row in result["mha"]:
        assert row["ratio"] == pytest.approx(row["multi_head_attention_s"] / row["matmuls_s"])
        assert row["multiply_adds"] == 4 * row["L"] * mha["d_model"] ** 2 + 2 * row["L"] ** 2 * mha["d_model"]

    # The Markdown: the machine line names the CPU, NumPy and date; one table row per length, ratios as in the JSON.
    sections = references.sections(text)
    assert set(sections) == {"machine", "tiling", "mha"}
    assert result["date"][:10] in sections["machine"] and machine["cpu"] in sections["machine"]
    assert machine["numpy"] in sections["machine"]
    for name, rows in (("tiling", result["tiling"]), ("mha", result["mha"])):
        lines = [line for line in sections[name].splitlines() if line.startswith("|")]
        assert len(lines) == 2 + len(rows)  # header, alignment, one per length
        assert len({line.count("|") for line in lines}) == 1  # every row has as many cells as the header
    for row, line in zip(result["mha"], sections["mha"].splitlines()[2:]):
        assert f"**{row['ratio']:.2f}**" in line


def machine_words(result):
    """What the machine line quotes from bench.json: the CPU, platform and BLAS are names of the machine."""
    info = result["machine"]
    return [info["cpu"], info["platform"], bench.blas_text(info)]


def check_chinese(result, english, chinese):
    """bench.zh.md: the same sections, rows and numbers as bench.md, and Chinese words around them."""
    english_sections, chinese_sections = references.sections(english), references.sections(chinese)
    assert set(chinese_sections) == set(english_sections)
    for name, text in chinese_sections.items():
        assert sorted(re.findall(r"\d+(?:\.\d+)?", text)) == sorted(
            re.findall(r"\d+(?:\.\d+)?", english_sections[name])
        ), name
        assert len(text.splitlines()) == len(english_sections[name].splitlines()), name
    words = chinese_sections["machine"] + chinese_sections["tiling"] + chinese_sections["mha"]
    for name in machine_words(result):
        words = words.replace(name, "")
    assert english_words(words) == []
    assert "毫秒" in chinese_sections["tiling"] and "测得" in chinese_sections["machine"]


def test_quick_bench_writes_json_and_markdown(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "scripts.bench", "--quick", "--out", str(tmp_path)],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    result = json.loads((tmp_path / "bench.json").read_text())
    assert result["quick"] is True
    check_structure(result, (tmp_path / "bench.md").read_text())
    check_chinese(result, (tmp_path / "bench.md").read_text(), (tmp_path / "bench.zh.md").read_text(encoding="utf-8"))


def test_committed_results_are_a_full_run_with_the_same_structure():
    result = json.loads((MEASURED / "bench.json").read_text())
    assert result["quick"] is False
    check_structure(result, (MEASURED / "bench.md").read_text())
    check_chinese(result, (MEASURED / "bench.md").read_text(), (MEASURED / "bench.zh.md").read_text(encoding="utf-8"))


def test_render_rewrites_both_markdown_files_from_the_json_alone(tmp_path):
    """--render measures nothing: from a copy of the committed bench.json it writes the committed Markdown."""
    (tmp_path / "bench.json").write_bytes((MEASURED / "bench.json").read_bytes())
    assert bench.main(["--render", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bench.json", "bench.md", "bench.zh.md"]
    for name in ("bench.md", "bench.zh.md"):
        assert (tmp_path / name).read_text(encoding="utf-8") == (MEASURED / name).read_text(encoding="utf-8"), name


@pytest.mark.claim(
    "the Benchmarks page shows the committed measurements, labelled with machine and date, and no typed timings",
    zh="基准测试页展示已提交的测量结果，注明机器和日期，正文中没有手写的计时",
)
def test_benchmarks_page_includes_the_measured_tables():
    page = (REPO / "docs" / "benchmarks.md").read_text()
    for section in ("machine", "tiling", "mha"):
        assert f'--8<-- "docs/measured/bench.md:{section}"' in page
    assert "not verified by the build" in page
    measured = (REPO / "docs" / "measured" / "bench.md").read_text()
    machine = measured.split("[start:machine]")[1].split("[end:machine]")[0]
    assert re.search(r"Measured on \*\*\d{4}-\d{2}-\d{2}\*\* .*? on \*\*[^*]+\*\*, \d+ usable", machine), machine
    prose = re.sub(r"```.*?```", "", page, flags=re.S)
    assert not re.search(r"\d\s*(ms|s|seconds|µs)\b", prose), "timings belong in docs/measured/bench.md, not in prose"
    chinese = (REPO / "docs-zh" / "benchmarks.md").read_text(encoding="utf-8")
    for section in ("machine", "tiling", "mha"):
        assert f'--8<-- "docs/measured/bench.zh.md:{section}"' in chinese
    assert not re.search(r"\d\s*(ms|s|毫秒|秒|µs)", re.sub(r"```.*?```", "", chinese, flags=re.S))


def test_the_tiles_win_wherever_they_split_the_scores():
    """The page: on the committed machine every tile smaller than L is faster than the full version, and a tile as
    large as L is slower (the old page said large tiles approach the full version, where they were the fastest)."""
    result = json.loads((MEASURED / "bench.json").read_text())
    for row in result["tiling"]:
        for tiled in row["tiled"]:
            assert (tiled["ratio_to_naive"] < 1) == (tiled["tile"] < row["L"]), (row["L"], tiled)


# ------------------------------------------------------------------ exercises: exact counts, by other means
def test_exercises_use_the_sizes_of_the_page_tables():
    values, settings = published("benchmarks/exercises"), json.loads((MEASURED / "bench.json").read_text())["settings"]
    assert (values["d_model"], values["n_heads"]) == (settings["mha"]["d_model"], settings["mha"]["n_heads"])
    assert values["mha_length"] in settings["mha"]["lengths"] and values["share_length"] in settings["mha"]["lengths"]
    assert values["d"] == settings["tiling"]["d"] and values["tile"] in settings["tiling"]["tiles"]
    assert values["tiles_length"] in settings["tiling"]["lengths"]


def test_exercise_mha_multiply_adds():
    """4 L d^2 + 2 L^2 d, as bench.json records it for the table's rows; the mistakes: no W_o (3 L d^2 + 2 L^2 d),
    the L^2 products of one head (width d / h)."""
    values, result = published("benchmarks/exercises"), json.loads((MEASURED / "bench.json").read_text())
    length, d, h = values["mha_length"], values["d_model"], values["n_heads"]
    (row,) = [row for row in result["mha"] if row["L"] == length]
    assert values["mha_millions"] == pytest.approx(row["multiply_adds"] / 1e6, abs=1e-9)
    assert values["mha_projection_millions"] == pytest.approx(length * d * d / 1e6, abs=1e-9)
    assert values["mha_scores_millions"] == pytest.approx(length * length * d / 1e6, abs=1e-9)
    assert values["mha_millions__no_output_projection"] == pytest.approx((3 * length * d**2 + 2 * length**2 * d) / 1e6)
    assert values["mha_millions__one_head"] == pytest.approx((4 * length * d**2 + 2 * length**2 * (d // h)) / 1e6)


def test_exercise_quadratic_share():
    """2L / (4d + 2L) in exact fractions; the solution: the L^2 products do most of the work exactly where L > 2d."""
    values = published("benchmarks/exercises")
    length, d, h = values["share_length"], values["d_model"], values["n_heads"]
    assert values["quadratic_share"] == pytest.approx(float(Fraction(2 * length, 4 * d + 2 * length)), abs=1e-12)
    assert values["quadratic_share__projections_share"] == pytest.approx(float(Fraction(4 * d, 4 * d + 2 * length)))
    one_head = Fraction(2 * length * length * (d // h), 4 * length * d * d + 2 * length * length * (d // h))
    assert values["quadratic_share__one_head"] == pytest.approx(float(one_head), abs=1e-12)
    for n in range(1, 4 * d):
        assert (Fraction(2 * n, 4 * d + 2 * n) > Fraction(1, 2)) == (n > 2 * d)


def test_exercise_tile_pairs_and_bytes():
    """(L / tile)^2 pairs (the causal mistake: the n (n + 1) / 2 on or below the diagonal); L^2 float64 entries of
    8 bytes in MiB (float32: 4 bytes; the (L, d) array); a tile's scores in KiB."""
    values = published("benchmarks/exercises")
    length, tile, d = values["tiles_length"], values["tile"], values["d"]
    n = length // tile
    assert (values["tile_pairs"], values["tile_pairs__not_squared"]) == (n * n, n)
    assert values["tile_pairs__causal_only"] == n * (n + 1) // 2
    assert values["weights_mib"] == length * length * 8 // 2**20
    assert values["weights_mib__float32"] == length * length * 4 // 2**20
    assert values["weights_mib__query_array"] == length * d * 8 // 2**20
    assert values["tile_scores_kib"] == tile * tile * 8 // 2**10
