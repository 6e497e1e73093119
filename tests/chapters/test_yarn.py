"""The YaRN chapter: every sentence that describes its numbers, against recomputations written from the paper's
equations and the reference code's rule (loops over the pairs, math instead of lib.yarn); its exercises against the
same math."""

import json
import math
import re

import numpy as np
import pytest

from scripts.pipeline.references import VALUE
from support import REPO, flat_page, published, published_table

CONFIGS, TEMPERATURE = published("yarn/configs"), published("yarn/temperature")
CONFIGS_DIR = REPO / "docs/generated/yarn/configs"


def bounds(d, base, context, fast, slow, rounded):
    low = d * math.log(context / (fast * 2 * math.pi)) / (2 * math.log(base))
    high = d * math.log(context / (slow * 2 * math.pi)) / (2 * math.log(base))
    if rounded:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, d - 1)


def frequencies(d, base, s, context, fast=32.0, slow=1.0, rounded=True):
    low, high = bounds(d, base, context, fast, slow, rounded)
    out = []
    for i in range(d // 2):
        theta = base ** (-2 * i / d)
        ramp = min(max((i - low) / (high - low), 0.0), 1.0)
        out.append((1 - ramp) * theta + ramp * theta / s)
    return out


def kinds(d, base, s, context, rounded):
    """(kept, mixed, divided) pair indices."""
    freq = frequencies(d, base, s, context, rounded=rounded)
    kept = [i for i, f in enumerate(freq) if f == base ** (-2 * i / d)]
    divided = [i for i, f in enumerate(freq) if math.isclose(f, base ** (-2 * i / d) / s, rel_tol=1e-12)]
    return kept, [i for i in range(d // 2) if i not in kept and i not in divided], divided


@pytest.mark.claim(
    "In DeepSeek-V3's YaRN configuration the first 11 of 32 rotary pairs keep their frequency, 12 are mixed and the "
    "last 9 are divided by 40; in gpt-oss's, 9, 9 and 14 (divided by 32)",
    zh="在 DeepSeek-V3 的 YaRN 配置中，32 个旋转对里前 11 对保持原频率，12 对混合，最后 9 对除以 40；"
    "gpt-oss 的配置中分别是 9、9 和 14 对（除以 32）",
)
def test_which_pairs_are_kept_mixed_and_divided():
    kept, mixed, divided = kinds(64, 10000.0, 40.0, 4096, True)
    assert (len(kept), len(mixed), len(divided)) == (11, 12, 9) and kept == list(range(11))
    assert [CONFIGS[f"deepseek_v3_{k}"] for k in ("kept", "mixed", "divided")] == [11, 12, 9]
    assert bounds(64, 10000.0, 4096, 32.0, 1.0, True) == (10, 23) == (CONFIGS["deepseek_low"], CONFIGS["deepseek_high"])
    kept, mixed, divided = kinds(64, 150000.0, 32.0, 4096, False)
    assert [len(kept), len(mixed), len(divided)] == [CONFIGS[f"gpt_oss_{k}"] for k in ("kept", "mixed", "divided")]
    assert (len(kept), len(mixed), len(divided)) == (9, 9, 14)


def test_rounding_gpt_oss_bounds_keeps_the_same_sets_and_moves_the_mixed_frequencies():
    """The page: rounded, the bounds would be pairs 8 and 18; the same pairs kept and divided; the mixed ones up to
    gpt_oss_rounding_gap away."""
    low, high = bounds(64, 150000.0, 4096, 32.0, 1.0, False)
    assert (low, high) == pytest.approx((CONFIGS["gpt_oss_low"], CONFIGS["gpt_oss_high"]), rel=1e-12)
    assert bounds(64, 150000.0, 4096, 32.0, 1.0, True) == (8, 18)
    raw, rounded = kinds(64, 150000.0, 32.0, 4096, False), kinds(64, 150000.0, 32.0, 4096, True)
    assert raw[0] == rounded[0] and raw[2] == rounded[2]
    a = frequencies(64, 150000.0, 32.0, 4096, rounded=False)
    b = frequencies(64, 150000.0, 32.0, 4096, rounded=True)
    assert max(abs(y / x - 1) for x, y in zip(a, b)) == pytest.approx(CONFIGS["gpt_oss_rounding_gap"], abs=0.005)
    page = flat_page("yarn.md")
    assert "Rounded, they would be pairs 8 and 18: the same pairs would be kept and divided" in page
    assert "边界就是第 8 对和第 18 对" in flat_page("yarn.md", "docs-zh")


def test_the_paper_ramp_on_the_turns_differs_from_the_index_ramp():
    d, base, context, s = 64, 10000.0, 4096, 40.0
    code = frequencies(d, base, s, context)
    gaps = []
    for i in range(d // 2):
        theta = base ** (-2 * i / d)
        r = context * theta / (2 * math.pi)  # eq. 17
        gamma = 0.0 if r < 1 else 1.0 if r > 32 else (r - 1) / 31  # eq. 18
        gaps.append(abs(((1 - gamma) * theta / s + gamma * theta) / code[i] - 1))  # eq. 20
    assert max(gaps) == pytest.approx(CONFIGS["paper_gap"], abs=0.005) and max(gaps) > 0.1


def past_trained(freq, theta, length, context):
    return sum(
        1
        for new, old in zip(freq, theta)
        if (context - 1) * old < 2 * math.pi and (length - 1) * new - (context - 1) * old > old
    )


@pytest.mark.claim(
    "Run on 40 times its 4,096 trained positions, DeepSeek-V3's rotary part has 9 pairs past their trained angles "
    "without a change and none with position interpolation or YaRN; YaRN keeps pair 0 at 1 radian per position",
    zh="把 DeepSeek-V3 的旋转部分用在训练时 4,096 个位置的 40 倍上：不做改动有 9 对超出训练时的角度，"
    "用位置插值或 YaRN 则一对也没有；YaRN 让第 0 对保持每个位置 1 弧度",
)
def test_what_the_frequencies_do_far_away():
    theta = [10000.0 ** (-2 * i / 64) for i in range(32)]
    length = 40 * 4096
    assert past_trained(theta, theta, length, 4096) == TEMPERATURE["unseen_none"] == 9
    assert past_trained([t / 40 for t in theta], theta, length, 4096) == TEMPERATURE["unseen_pi"] == 0
    assert past_trained(frequencies(64, 10000.0, 40.0, 4096), theta, length, 4096) == TEMPERATURE["unseen_yarn"] == 0
    assert TEMPERATURE["fastest_pi"] * 40 == pytest.approx(1.0) and TEMPERATURE["fastest_yarn"] == 1.0
    assert TEMPERATURE["length"] == length


@pytest.mark.claim(
    "With s = 40, YaRN's temperature multiplies the scores by 1.874; applied twice by 3.511, and on one random draw "
    "over 163,840 keys the weights' entropy falls from 10.52 to 6.84 nats; left out, it rises to 11.59",
    zh="s = 40 时，YaRN 的温度把分数乘以 1.874；用两次则乘以 3.511，在 163,840 个键上的一次随机抽取中，"
    "权重的熵从 10.52 nats 降到 6.84 nats；漏掉时升到 11.59",
)
def test_the_temperature_right_twice_and_left_out():
    m = 0.1 * math.log(40) + 1
    assert TEMPERATURE["factor_right"] == pytest.approx(m * m, rel=1e-12)
    assert TEMPERATURE["factor_twice"] == pytest.approx(m**4, rel=1e-12) and TEMPERATURE["factor_missing"] == 1.0
    assert CONFIGS["deepseek_v3_mscale"] == pytest.approx(m)
    assert CONFIGS["deepseek_v3_score_factor"] == pytest.approx(m * m)
    right, twice, missing = (TEMPERATURE[f"entropy_{k}"] for k in ("right", "twice", "missing"))
    assert twice < right < missing < TEMPERATURE["uniform_entropy"] == pytest.approx(math.log(163840))
    assert TEMPERATURE["largest_twice"] > TEMPERATURE["largest_right"]
    # "more keys spread the weights, and the temperature takes back part of that spread"
    assert TEMPERATURE["entropy_trained"] < right < missing
    rows = {row["scores multiplied by"]: row for row in published_table("yarn/temperature", "temperature")}
    assert set(rows) == {"1/t (right)", "(1/t)^2 (applied twice)", "1 (left out)"}


def test_entropy_of_scaled_random_scores_by_a_loop():
    """The snippet's entropies come from softmax over random scores; the same law on a smaller draw, by a loop:
    entropy falls as the factor on the scores grows."""
    scores = np.random.default_rng(1).normal(size=2000).tolist()
    entropies = []
    for factor in (1.0, 1.874, 3.511):
        top = max(factor * x for x in scores)
        e = [math.exp(factor * x - top) for x in scores]
        total = sum(e)
        entropies.append(-sum(w / total * math.log(w / total) for w in e))
    assert entropies[0] > entropies[1] > entropies[2]


def test_the_configuration_table_matches_the_values():
    rows = {row["published configuration"]: row for row in published_table("yarn/configs", "configs")}
    assert rows["DeepSeek-V3"]["pairs kept"] == "11" and rows["gpt-oss"]["pairs divided by s"] == "14"
    assert rows["DeepSeek-V3"]["ramp (pairs)"] == "10 to 23"
    shown = {name: entry["text"] for name, entry in json.loads((CONFIGS_DIR / "values.json").read_text()).items()}
    # gpt-oss's unrounded bounds read the same in the table as in the prose (once 8.093 to 17.4 against 8.09, 17.40)
    assert rows["gpt-oss"]["ramp (pairs)"] == f"{shown['gpt_oss_low']} to {shown['gpt_oss_high']}"


@pytest.mark.parametrize("folder", ["docs", "docs-zh"])
def test_no_line_starts_with_a_value_that_ends_a_sentence(folder):
    """A source line that starts with a quoted value and ". " (or ") ") renders as a numbered list item once the value
    is a number: "pairs 10 and\n  {{ deepseek_high }}. gpt-oss's ..." lost the 23 and split the bullet in two."""
    texts = {
        f"yarn.{what}.{name}": entry["text"]
        for what in ("configs", "temperature", "exercises")
        for name, entry in json.loads((REPO / f"docs/generated/yarn/{what}/values.json").read_text()).items()
    }
    for number, line in enumerate((REPO / folder / "yarn.md").read_text(encoding="utf-8").splitlines(), 1):
        shown = VALUE.sub(lambda m: texts[".".join(m.groups())], line)
        assert not re.match(r"\s*\d{1,9}[.)](\s|$)", shown), f"{folder}/yarn.md:{number}: {line.strip()}"


def test_the_chinese_temperature_table_does_not_call_its_factor_s():
    """s is 倍数 on the page and in the configuration table; the multiplier on the scores is 系数, as in the prose."""
    header = json.loads((REPO / "docs/generated/yarn/temperature/table-temperature.zh.json").read_text())["header"]
    assert header[1] == "系数" and "倍数" not in header[1]
    configs = json.loads((CONFIGS_DIR / "table-configs.zh.json").read_text())["header"]
    assert "倍数 s" in configs


@pytest.mark.parametrize("folder", ["docs", "docs-zh"])
def test_the_sources_are_named_with_their_commits(folder):
    page = flat_page("yarn.md", folder)
    for needle in ("arXiv 2309.00071", "ef468064", "00d678e1", "deepseek_scaling_rope.py", "_compute_yarn_parameters"):
        assert needle in page, needle
    for needle in ("52fa975d", "arXiv 2505.09388", "transformers 4.57.1"):
        assert needle in page, needle
    docstring = flat_page("../snippets/yarn/configs.py", "docs")
    for needle in (
        "9b4e9788",
        "0568dfc9",
        "config_671B.json",
        "rope_factor 40",
        "rope_scaling_factor 32.0",
        "52fa975d",
        '"factor": 4.0, "original_max_position_embeddings": 32768',
        "arXiv 2505.09388v1, section 3.2",
        "from 10,000 to 1,000,000 using the ABF technique",
        "transformers 4.57.1",
        "src/transformers/models/qwen3/configuration_qwen3.py",
        "to that of Qwen3-8B",
    ):
        assert needle in docstring, needle


QWEN3_8B = (128, 1000000.0, 4.0, 32768)  # d, base, s, L: transformers' Qwen3Config, the report, Qwen3's documentation


def qwen3_8b_row():
    return {row["published configuration"]: row for row in published_table("yarn/configs", "configs")}["Qwen3-8B"]


def test_the_qwen3_8b_temperature():
    """The page: Qwen3's recommended factor 4 gives sqrt(1/t) = 0.1 ln 4 + 1 and its square on the scores."""
    m = 0.1 * math.log(4) + 1
    assert CONFIGS["qwen3_8b_factor"] == 4.0
    assert CONFIGS["qwen3_8b_mscale"] == pytest.approx(m, rel=1e-12)
    assert CONFIGS["qwen3_8b_score_factor"] == pytest.approx(m * m, rel=1e-12)
    row = qwen3_8b_row()
    assert (row["factor s"], row["trained context L"]) == ("4", "32,768")
    assert (row["sqrt(1/t)"], row["1/t on the scores"]) == (f"{m:.4f}", f"{m * m:.4f}")
    assert (
        '"factor": 4.0, "original_max_position_embeddings": 32768` '
        "(`QwenLM/Qwen3/docs/source/inference/transformers.md` at commit `52fa975d`): "
        "$s$ = {{ yarn.configs.qwen3_8b_factor }} gives $\\sqrt{1/t}$ = "
        "{{ yarn.configs.qwen3_8b_mscale }} and {{ yarn.configs.qwen3_8b_score_factor }} on the scores."
        in flat_page("yarn.md")
    )
    assert (
        "$s$ = {{ yarn.configs.qwen3_8b_factor }} 时 $\\sqrt{1/t}$ = {{ yarn.configs.qwen3_8b_mscale }}，分数乘以 "
        "{{ yarn.configs.qwen3_8b_score_factor }}。" in flat_page("yarn.md", "docs-zh")
    )


@pytest.mark.claim(
    "In Qwen3-8B's YaRN configuration (factor 4 on a trained context of 32,768, base 1,000,000, 128 rotated features) "
    "the first 24 of 64 rotary pairs keep their frequency, 16 are mixed and the last 24 are divided by 4",
    zh="在 Qwen3-8B 的 YaRN 配置中（训练上下文 32,768，倍数 4，基数 1,000,000，旋转 128 个特征），64 个旋转对里"
    "前 24 对保持原频率，16 对混合，最后 24 对除以 4",
)
def test_which_qwen3_8b_pairs_are_kept_mixed_and_divided():
    """The page's sentence on Qwen3-8B's row and the numbers it types (the base, the head's width, its pairs), against
    the configuration the sources give, recomputed by the loop."""
    d, base, s, context = QWEN3_8B
    kept, mixed, divided = kinds(d, base, s, context, True)
    assert (len(kept), len(mixed), len(divided)) == (24, 16, 24) and kept == list(range(24))
    assert [CONFIGS[f"qwen3_8b_{k}"] for k in ("kept", "mixed", "divided")] == [24, 16, 24]
    row = qwen3_8b_row()
    assert (row["d (rotated)"], row["rotary base"]) == (str(d), f"{base:,.0f}") == ("128", "1,000,000")
    assert row["ramp (pairs)"] == "{} to {}".format(*bounds(d, base, context, 32.0, 1.0, True)) == "23 to 40"
    assert [row[k] for k in ("pairs kept", "pairs mixed", "pairs divided by s")] == ["24", "16", "24"]
    page, zh = flat_page("yarn.md"), flat_page("yarn.md", "docs-zh")
    assert (
        "With the rotary base of 1,000,000 that the Qwen3 Technical Report gives (arXiv 2505.09388, section 3.2) and "
        "heads of 128 features, all rotated (`Qwen3Config` and `modeling_qwen3.py` in transformers 4.57.1), Qwen3-8B's "
        "row of the table keeps its first {{ yarn.configs.qwen3_8b_kept }} of 64 pairs as trained, mixes "
        "{{ yarn.configs.qwen3_8b_mixed }} and divides the last {{ yarn.configs.qwen3_8b_divided }} by "
        "{{ yarn.configs.qwen3_8b_factor }}." in page
    )
    assert (
        "旋转基数取 Qwen3 技术报告给出的 1,000,000（arXiv 2505.09388，第 3.2 节），每个头 128 个特征全部旋转"
        "（transformers 4.57.1 的 `Qwen3Config` 和 `modeling_qwen3.py`），于是表中 Qwen3-8B 这一行让 64 对中的前 "
        "{{ yarn.configs.qwen3_8b_kept }} 对保持训练时的频率，混合 {{ yarn.configs.qwen3_8b_mixed }} 对，把最后 "
        "{{ yarn.configs.qwen3_8b_divided }} 对除以 {{ yarn.configs.qwen3_8b_factor }}。" in zh
    )
    # the figure's text alternative types the widths and pair counts too
    assert (
        "the 32 pairs of DeepSeek-V3's and gpt-oss's 64-wide rotary parts and the 64 pairs of Qwen3-8B's 128-wide"
        in page
    )
    assert "DeepSeek-V3 和 gpt-oss 宽 64 的旋转部分各有 32 对，Qwen3-8B 宽 128 的头有 64 对" in zh
    widths = {r["published configuration"]: r["d (rotated)"] for r in published_table("yarn/configs", "configs")}
    assert widths == {"DeepSeek-V3": "64", "gpt-oss": "64", "Qwen3-8B": "128"}


def test_only_deepseek_and_gpt_oss_set_the_thresholds():
    """Qwen3's recommendation, as quoted, sets the factor only: the page must not say all three set the thresholds."""
    page = flat_page("yarn.md")
    quoted = re.search(r'`"rope_type": "yarn", [^`]*`', page).group(0)
    assert "beta" not in quoted and '"factor": 4.0' in quoted
    assert "a factor $s$ (all three), two thresholds `beta_fast` and `beta_slow` (DeepSeek-V3, and gpt-oss as" in page
    assert "一个倍数 $s$（三者都设），两个阈值 `beta_fast` 和 `beta_slow`（DeepSeek-V3 设；gpt-oss 也设" in flat_page(
        "yarn.md", "docs-zh"
    )


def test_the_page_counts_the_configurations_its_table_shows():
    """The table has three rows; the page says three where it introduces them and 'the first two' where it names the
    temperature of DeepSeek-V3's and gpt-oss's only (it said 'the two configurations' when the table had two)."""
    rows = [row["published configuration"] for row in published_table("yarn/configs", "configs")]
    assert rows == ["DeepSeek-V3", "gpt-oss", "Qwen3-8B"]
    page, zh = flat_page("yarn.md"), flat_page("yarn.md", "docs-zh")
    assert "Three published configurations, read from their repositories" in page and "三个已发布的配置" in zh
    assert "For the first two configurations above, $\\sqrt{1/t}$ is {{ yarn.configs.deepseek_v3_mscale }}" in page
    assert "对上面前两个配置，$\\sqrt{1/t}$ 分别是 {{ yarn.configs.deepseek_v3_mscale }}" in zh
    assert "DeepSeek-V3's and Qwen3-8B's configurations with transformers' `_compute_yarn_parameters`" in page
    assert "DeepSeek-V3 和 Qwen3-8B 的配置对照 transformers 的 `_compute_yarn_parameters`" in zh
    for stale in ("Two published configurations", "For the two configurations above", "not in the files read"):
        assert stale not in page, stale


# ------------------------------------------------------------------ the exercises, against math written out
def deepseek_row():
    (row,) = [r for r in published_table("yarn/configs", "configs") if r["published configuration"] == "DeepSeek-V3"]
    return row


def test_exercises_use_deepseek_v3s_configuration():
    row, values = deepseek_row(), published("yarn/exercises")
    assert str(values["d"]) == row["d (rotated)"] and f"{values['base']:,.0f}" == row["rotary base"]
    assert f"{values['context']:,}" == row["trained context L"] and row["ramp (pairs)"] == (
        f"{values['low']} to {values['high']}"
    )


def test_exercise_turns_and_its_mistakes():
    values = published("yarn/exercises")
    d, base, context, i = 64, 10000.0, 4096, values["turns_pair"]
    assert values["turns"] == pytest.approx(context * base ** (-2 * i / d) / (2 * math.pi), rel=1e-12)
    assert values["turns__no_two_pi"] == pytest.approx(context * base ** (-2 * i / d), rel=1e-12)
    assert values["turns__exponent_i_over_d"] == pytest.approx(context * base ** (-i / d) / (2 * math.pi), rel=1e-12)
    assert 1 < values["turns"] < 32 and values["low"] <= i <= values["high"]  # "between the betas, on the ramp"
    # the question asks for turns "not necessarily whole": the whole turns alone are wrong at one decimal
    assert abs(math.floor(values["turns"]) - values["turns"]) >= 0.05


def pair_at(turns, d=64, base=10000.0, context=4096):
    """The fractional pair index where L base^(-2i/d) / (2 pi) = turns, solved by hand."""
    return d * math.log(context / (2 * math.pi * turns)) / (2 * math.log(base))


def test_exercise_ratio_and_its_mistakes():
    values = published("yarn/exercises")
    d, base, context, s, i = 64, 10000.0, 4096, 40.0, values["ratio_pair"]
    low, high = math.floor(pair_at(32.0)), math.ceil(pair_at(1.0))
    assert (values["low"], values["high"]) == (low, high)
    gamma = 1 - (i - low) / (high - low)
    assert 0 < gamma < 1 and values["gamma"] == pytest.approx(gamma, rel=1e-12)
    assert values["ratio"] == pytest.approx((1 - gamma) / s + gamma, rel=1e-12)
    assert values["ratio"] > 0.5  # "a little more than half"
    assert values["ratio__gamma_swapped"] == pytest.approx(gamma / s + (1 - gamma), rel=1e-12)
    turns = context * base ** (-2 * i / d) / (2 * math.pi)
    gamma_turns = min(max((turns - 1) / 31, 0.0), 1.0)
    assert values["ratio__ramp_on_turns"] == pytest.approx((1 - gamma_turns) / s + gamma_turns, rel=1e-12)


def test_exercise_ramp_start_and_its_mistakes():
    values = published("yarn/exercises")
    fast = values["other_fast"]
    assert values["start_unrounded"] == pytest.approx(pair_at(fast), rel=1e-12)
    assert values["ramp_start"] == math.floor(pair_at(fast)) > values["low"]  # "more pairs as trained"
    assert values["ramp_start__rounded_up"] == math.ceil(pair_at(fast))
    assert values["ramp_start__no_two_pi"] == math.floor(64 * math.log(4096 / fast) / (2 * math.log(10000.0)))


def test_exercise_score_factor_and_its_mistakes():
    values = published("yarn/exercises")
    s = values["stretched"] / values["context"]
    assert values["factor"] == s
    root = 0.1 * math.log(s) + 1
    assert values["sqrt_inv_t"] == pytest.approx(root, rel=1e-12)
    assert values["score_factor"] == pytest.approx(root**2, rel=1e-12)
    assert values["score_factor__not_squared"] == pytest.approx(root, rel=1e-12)
    assert values["score_factor__twice"] == pytest.approx(root**4, rel=1e-12)
    assert values["score_factor__log10"] == pytest.approx((0.1 * math.log10(s) + 1) ** 2, rel=1e-12)
