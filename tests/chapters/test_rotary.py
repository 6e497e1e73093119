"""The rotary chapter: every sentence that describes its numbers, against recomputations written from the
definitions (rotations by math.cos and math.sin, counts by loops), not through apply_rope."""

import json
import math

import numpy as np
import pytest

from support import INVENTORY, REPO, SEEDS, flat_page, nonempty_glob, published, published_table, text

RELATIVE, PAIRING = published("rotary/relative"), published("rotary/pairing")
WAVES, STRETCH = published("rotary/wavelengths"), published("rotary/stretch")


def rotate(vector, m, base=10000.0):
    """Adjacent pairs of a list turned by m * base^(-2i/d), one pair at a time."""
    d = len(vector)
    out = list(vector)
    for i in range(d // 2):
        angle = m * base ** (-2 * i / d)
        a, b = vector[2 * i], vector[2 * i + 1]
        out[2 * i], out[2 * i + 1] = (
            a * math.cos(angle) - b * math.sin(angle),
            a * math.sin(angle) + b * math.cos(angle),
        )
    return out


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


@pytest.mark.claim(
    "With rotary positions, q_m . k_n is the same for every n at a fixed offset m - n, up to rounding, for "
    "positions up to 1,100,000",
    zh="使用旋转位置编码时，偏移 m - n 固定，q_m · k_n 对每个 n 都相同（在舍入误差内），位置最大到 1,100,000",
)
def test_scores_depend_on_the_offset_only():
    assert RELATIVE["max_spread"] < 1e-8 * RELATIVE["score_scale"]
    rows = published_table("rotary/relative", "relative")
    assert len({row["q_m · k_n at n = 0"] for row in rows}) == len(rows)  # "different offsets give different scores"
    q, k = np.random.default_rng(5).normal(size=(2, 16)).tolist()
    for offset in (0, 3, 1000):
        scores = [dot(rotate(q, n + offset), rotate(k, n)) for n in (0, 17, 90_000)]
        assert max(scores) - min(scores) < 1e-9
    assert RELATIVE["shift_change"] < 1e-12


@pytest.mark.claim(
    "For independent random q and k the size of a rotary score does not fall with the offset; for a key "
    "equal to its query it does",
    zh="对相互独立的随机 q 和 k，旋转后分数的大小不随偏移减小；键等于查询时则会减小",
)
def test_what_dot_products_do_with_distance():
    assert 0.9 < RELATIVE["random_far_ratio"] < 1.1
    assert RELATIVE["same_near"] > 5 * RELATIVE["same_far"]
    assert RELATIVE["bound_near"] > 3 * RELATIVE["bound_far"]
    # the reason, from the definition: E[(q_m . k_0)^2] = d at every offset for independent unit Gaussians
    rng = np.random.default_rng(11)
    d, draws = 8, 4000
    for offset in (0, 50, 3000):
        squares = []
        for _ in range(draws):
            q, k = rng.normal(size=(2, d)).tolist()
            squares.append(dot(rotate(q, offset), k) ** 2)
        assert np.mean(squares) == pytest.approx(d, rel=0.08)
    same = [sum(math.cos(r * 10000 ** (-2 * i / 64)) for i in range(32)) * 2 for r in (0, 1000)]
    assert same[0] == 64 and abs(same[1]) < 20  # E[q_m . q_0] = 2 sum_i cos(r theta_i) for unit Gaussians


@pytest.mark.claim(
    "Permuting each head's W_Q and W_K columns (2i -> i, 2i+1 -> i + d/2) turns an interleaved RoPE "
    "checkpoint into a half-pairing one with the same scores; without it the scores change",
    zh="把每个头的 W_Q 和 W_K 的列置换（2i -> i，2i+1 -> i + d/2），就把相邻配对的 RoPE "
    "检查点变成对半配对的检查点，分数不变；不置换则分数改变",
)
def test_the_permutation_converts_the_checkpoint():
    assert PAIRING["converted_error"] < 1e-12
    assert PAIRING["unconverted_error"] > 0.1 * PAIRING["score_range"]


def test_the_permutation_is_the_one_of_the_llama_conversion_script():
    """transformers' convert_llama_weights_to_hf.py: w.view(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(1, 2)
    .reshape(dim1, dim2), on a (out, in) weight. The snippet's column order on an (in, out) weight is the same."""
    from support import run_snippet

    ns = run_snippet("rotary/pairing")
    n_heads, d_model = ns["n_heads"], ns["d_model"]
    w = np.random.default_rng(0).normal(size=(d_model, d_model))  # (out, in), PyTorch's layout
    converted = w.reshape(n_heads, d_model // n_heads // 2, 2, d_model).transpose(0, 2, 1, 3).reshape(d_model, d_model)
    np.testing.assert_array_equal(converted, w.T[:, ns["columns"]].T)


def test_rope_angles_are_the_sinusoidal_arguments():
    assert WAVES["same_as_sinusoidal"] < 1e-9


@pytest.mark.claim(
    "With base 10000 and 4,096 positions, 18 of 64 rotary pairs (d_head = 128) never complete a turn; "
    "with base 500000 and 8,192, 29",
    zh="基数 10000、4,096 个位置时，64 个旋转对（d_head = 128）中有 18 个转不满一圈；基数 500000、8,192 个位置时有 "
    "29 个",
)
def test_pairs_that_never_turn():
    def unturned(base, context):
        return sum(1 for i in range(64) if 2 * math.pi * base ** (2 * i / 128) > context)

    assert WAVES["unturned_llama2"] == unturned(10000, 4096) == 18
    assert WAVES["unturned_llama3"] == unturned(500000, 8192) == 29
    page = flat_page("rotary.md")
    assert "base 10000 and a 4,096-token context" in page and "base 500000 and 8,192 tokens" in page


def overshoots(theta_new, theta, trained, target):
    """Steps past the trained angles, per pair, by a loop."""
    steps = []
    for new, old in zip(theta_new, theta):
        seen, reached = (trained - 1) * old, (target - 1) * new
        steps.append(0.0 if seen >= 2 * math.pi else max(reached - seen, 0.0) / old)
    return steps


@pytest.mark.claim(
    "Going from 4,096 to 16,384 positions, position interpolation leaves no rotary pair more than one "
    "position past its trained angles; without it 18 pairs go past, and with an NTK-aware base 17",
    zh="从 4,096 个位置扩展到 16,384 个时，位置插值不让任何旋转对超出训练时角度一个位置以上；不做改动有 18 "
    "对超出，NTK 感知的基数有 17 对",
)
def test_stretching_methods_against_a_loop():
    d, base, s = 128, 10000.0, 4.0
    theta = [base ** (-2 * i / d) for i in range(d // 2)]
    ntk_base = base * s ** (d / (d - 2))
    methods = {"none": theta, "pi": [t / s for t in theta], "ntk": [ntk_base ** (-2 * i / d) for i in range(d // 2)]}
    for name, theta_new in methods.items():
        steps = overshoots(theta_new, theta, 4096, 16384)
        assert STRETCH[f"unseen_{name}"] == sum(step > 1 for step in steps)
        assert STRETCH[f"beyond_{name}"] == pytest.approx(max(steps))
    assert STRETCH["unseen_none"] == 18 and STRETCH["unseen_pi"] == 0 and STRETCH["unseen_ntk"] == 17
    assert methods["ntk"][0] == 1.0 and methods["ntk"][-1] / theta[-1] == pytest.approx(1 / s)
    assert STRETCH["fastest_pi"] == pytest.approx(0.25) and STRETCH["fastest_ntk"] == 1.0


@pytest.mark.claim(
    "Fine-tuning on 128 positions a model trained on 512 brings no rotary angle it has not seen",
    zh="用 128 个位置微调在 512 个位置上训练的模型，不会带来任何没见过的旋转角度",
)
def test_the_seed_cold_start_meets_no_new_angle():
    theta = [10000 ** (-2 * i / 128) for i in range(64)]
    assert max(overshoots(theta, theta, 512, 128)) == 0.0 == STRETCH["seed_overshoot"]
    assert STRETCH["seed_unseen"] == 0
    # texts of average length 128 may run longer: every length up to 512 is inside the trained angles
    assert all(max(overshoots(theta, theta, 512, length)) == 0.0 for length in range(1, 513))


def test_the_pairing_prose_quotes_the_digits_the_table_shows():
    """The prose once said 1.98 where the table printed 2: both now show the same formatted value."""
    rows = {row["weights"] + ", " + row["pairing"]: row for row in published_table("rotary/pairing", "pairings")}
    column = "largest score difference from the trained model"
    assert rows["columns permuted, half (i, i + d/2)"][column] == text("rotary/pairing", "converted_error")
    assert rows["as trained, half (i, i + d/2)"][column] == text("rotary/pairing", "unconverted_error")


def test_the_cold_start_claim_names_its_source():
    """The page once called seed 000's tip "a common tutorial claim"; it names the section the claims page audits
    it under (C000-74 to C000-76), and so does the Chinese page."""
    sources = {INVENTORY[cid].source for cid in ("C000-74", "C000-75", "C000-76")}
    assert sources == {"000 §5.2"}
    coverage = json.loads((REPO / "tests/chapters/claims/seed_coverage.json").read_text(encoding="utf-8"))
    (tip,) = [entry["starts"] for entry in coverage if "C000-74" in entry.get("claims", [])]
    assert tip.startswith("技巧3位置编码的“冷启动”陷阱")  # "tip 3: the 'cold start' trap of position encodings"
    assert "Seed tutorial 000 (§5.2, its third tip) claims that a model" in flat_page("rotary.md")
    assert "A common tutorial claim" not in flat_page("rotary.md")
    assert "种子教程 000（第 5.2 节第三个技巧，“位置编码的‘冷启动’陷阱”）说" in flat_page("rotary.md", "docs-zh")


def test_the_cold_start_paraphrase_says_what_the_seed_says():
    """The page once paraphrased the tip as "128-token texts" and "linearly ... down to 128 and back", and the
    Chinese page added the seed's "2.3 times faster convergence", which nothing here measures. The seed's own
    words: an average sentence length of 128, proportional mapping down to 128 and bilinear interpolation back."""
    if SEEDS.is_dir():  # where the seeds are at hand
        tip = nonempty_glob(SEEDS, "000_*.txt")[0].read_text(encoding="utf-8")
        assert "下游任务句子平均长度128" in tip and "按比例映射到128维空间再双线性插值回512维" in tip
    english, chinese = flat_page("rotary.md"), flat_page("rotary.md", "docs-zh")
    assert "texts of average length 128" in english and "bilinearly" in english and "128-token texts" not in english
    assert "句子平均长度为 128" in chinese and "双线性插值" in chinese and "2.3 倍" not in chinese


def test_the_ntk_base_extrapolates_every_unturned_pair_but_the_slowest():
    """The page once placed the 17 pairs "in the middle"; they are the slow end: every pair that never comes full
    circle in 4,096 positions except the last one."""
    d, base, s = 128, 10000.0, 4.0
    theta = [base ** (-2 * i / d) for i in range(d // 2)]
    ntk_base = base * s ** (d / (d - 2))
    steps = overshoots([ntk_base ** (-2 * i / d) for i in range(d // 2)], theta, 4096, 16384)
    unturned = [i for i in range(d // 2) if 4095 * theta[i] < 2 * math.pi]
    assert [i for i, step in enumerate(steps) if step > 1] == unturned[:-1]
    assert STRETCH["unseen_ntk"] == len(unturned) - 1
    assert "pairs in the middle" not in flat_page("rotary.md")


def test_one_query_and_key_need_not_decay_a_correlated_key_does_on_average():
    """The page once said the decay "holds for a query and a key that point the same way": a q = k with all its
    weight in the fastest pair scores cos(m - n), which does not fall; a key correlated with its query falls on
    average."""
    q = [1.0] + [0.0] * 63
    far = [dot(rotate(q, r), q) for r in range(512, 4097, 7)]
    assert max(abs(x) for x in far) > 0.99 and RELATIVE["one_pair_far_max"] > 0.99
    assert RELATIVE["correlated_far"] < 0.3 * RELATIVE["correlated_near"]
    assert "point the same way" not in flat_page("rotary.md")
    assert "只对方向相同的查询和键成立" not in flat_page("rotary.md", "docs-zh")


def test_the_ntk_base_is_cited_as_reported_by_yarn():
    """The page once cited "bloc97 2023" as if it were a paper; the original is a Reddit post, which YaRN (Peng et
    al. 2023, section 3.1) credits, so both editions cite it as reported there, with the arXiv link."""
    english, chinese = flat_page("rotary.md"), flat_page("rotary.md", "docs-zh")
    assert "bloc97 (2023, a Reddit post, as reported by [Peng et al. 2023, YaRN, section 3.1]" in english
    assert "bloc97（2023，一篇 Reddit 帖子，据 [Peng 等人 2023 的 YaRN 第 3.1 节]" in chinese
    for page in (english, chinese):
        assert "(https://arxiv.org/abs/2309.00071)" in page and "bloc97 2023" not in page


# ------------------------------------------------------------------ the exercises (snippets/rotary/exercises.py)
EXERCISES = published("rotary/exercises")


def test_exercise_offset_score_is_the_cosine_of_the_offset():
    m, n = EXERCISES["m"], EXERCISES["n"]
    assert EXERCISES["offset"] == m - n
    unit = [1.0, 0.0]
    assert EXERCISES["offset_score"] == pytest.approx(math.cos(m - n), abs=1e-12)
    assert EXERCISES["offset_score"] == pytest.approx(dot(rotate(unit, m), rotate(unit, n)), abs=1e-12)
    assert EXERCISES["offset_score__angles_added"] == pytest.approx(math.cos(m + n), abs=1e-12)
    assert EXERCISES["offset_score__only_query_rotated"] == pytest.approx(dot(rotate(unit, m), unit), abs=1e-12)


def test_exercise_rotated_feature_turns_pair_1():
    x, m, feature = EXERCISES["x"], EXERCISES["position"], EXERCISES["feature"]
    d = len(x)
    assert EXERCISES["theta_1"] == pytest.approx(10000.0 ** (-2 / d)) and EXERCISES["angle"] == pytest.approx(
        m * 10000.0 ** (-2 / d)
    )
    assert EXERCISES["rotated_feature"] == pytest.approx(rotate(x, m)[feature], abs=1e-12)
    assert EXERCISES["rotated_feature__turned_backwards"] == pytest.approx(rotate(x, -m)[feature], abs=1e-12)
    half = list(x)  # the split halves: pair i is (i, i + d/2)
    for i in range(d // 2):
        angle = m * 10000.0 ** (-2 * i / d)
        a, b = x[i], x[i + d // 2]
        half[i], half[i + d // 2] = a * math.cos(angle) - b * math.sin(angle), a * math.sin(angle) + b * math.cos(angle)
    assert EXERCISES["rotated_feature__half_pairing"] == pytest.approx(half[feature], abs=1e-12)
    angle = m * 10000.0 ** (-1 / d)  # pair 1 with the exponent i/d
    wrong = x[2] * math.cos(angle) - x[3] * math.sin(angle)
    assert EXERCISES["rotated_feature__exponent_without_two"] == pytest.approx(wrong, abs=1e-12)


def test_exercise_wavelength_of_pair_32():
    d, i = EXERCISES["d_head"], EXERCISES["pair"]
    assert EXERCISES["exponent"] == 2 * i / d and EXERCISES["theta_pair"] == pytest.approx(10000.0 ** (-2 * i / d))
    assert EXERCISES["wavelength"] == pytest.approx(2 * math.pi * 10000.0 ** (2 * i / d), rel=1e-12)
    assert EXERCISES["wavelength__no_two_pi"] == pytest.approx(10000.0 ** (2 * i / d), rel=1e-12)
    assert EXERCISES["wavelength__exponent_without_two"] == pytest.approx(2 * math.pi * 10000.0 ** (i / d), rel=1e-12)


def test_exercise_unturned_pairs_at_the_stretch_target():
    d, context = EXERCISES["d_head"], EXERCISES["context"]
    assert context == STRETCH["target"]  # the page calls it the target length of "Stretching the context"
    waves = [2 * math.pi * 10000.0 ** (2 * i / d) for i in range(d // 2)]
    longer = [i for i, wave in enumerate(waves) if wave > context]
    assert EXERCISES["unturned_pairs"] == len(longer) and longer == list(range(longer[0], d // 2))
    assert [EXERCISES["first_unturned"], EXERCISES["last_pair"]] == [longer[0], d // 2 - 1]
    assert EXERCISES["first_unturned_wavelength"] == pytest.approx(waves[longer[0]])
    assert EXERCISES["last_turned_wavelength"] == pytest.approx(waves[longer[0] - 1])
    assert EXERCISES["unturned_pairs__turned_pairs"] == d // 2 - len(longer)
    assert EXERCISES["unturned_pairs__no_two_pi"] == sum(10000.0 ** (2 * i / d) > context for i in range(d // 2))


def test_exercise_ntk_ratio_of_pair_32():
    d, i, s = EXERCISES["d_head"], EXERCISES["pair"], EXERCISES["s"]
    assert s == STRETCH["target"] / STRETCH["trained"]
    factor = s ** (d / (d - 2))
    assert EXERCISES["ntk_base_factor"] == pytest.approx(factor, rel=1e-12)
    ntk_theta, theta = (10000.0 * factor) ** (-2 * i / d), 10000.0 ** (-2 * i / d)
    assert EXERCISES["ntk_ratio"] == pytest.approx(ntk_theta / theta, rel=1e-12)
    assert EXERCISES["ntk_ratio__interpolation"] == pytest.approx(1 / s, rel=1e-12)
    assert EXERCISES["ntk_ratio__base_times_s"] == pytest.approx((10000.0 * s) ** (-2 * i / d) / theta, rel=1e-12)


def test_exercise_half_partner_of_feature_3():
    d, feature = EXERCISES["d_head"], EXERCISES["partner_of"]
    assert EXERCISES["half_d"] == d // 2
    assert EXERCISES["half_partner"] == (feature + d // 2 if feature < d // 2 else feature - d // 2)
    assert EXERCISES["half_partner__interleaved"] == (feature + 1 if feature % 2 == 0 else feature - 1)
