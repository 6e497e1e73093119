"""The chapter "The weighted sum, and one word's view": its statements, recomputed independently.

The "cat" row and the weighted sum are recomputed with the plain-loop oracle of tests/support.py; the random-draw
statistics with a closed form (a two-key softmax is a logistic function of the score gap) instead of a softmax;
general properties with Hypothesis. Published numbers are read from docs/generated/weighted_sum/*/values.json.
"""

import math
import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

from lib.attention import causal_mask, scaled_dot_product_attention
from lib.exercises import check
from lib.running_example import SENTENCE, embed, projection_weights, tokenize
from support import GENERATED, REPO, oracle_attention, published, published_exercise

CHAPTER = REPO / "docs" / "weighted-sum.md"
ZH_CHAPTER = REPO / "docs-zh" / "weighted-sum.md"
TOKENS = tokenize(SENTENCE)
CAT = TOKENS.index("cat")

# Seed 000, section 4.2, prints this row for "cat" (its sentence has no "." token).
TUTORIAL_CAT_ROW = [0.02, 0.45, 0.08, 0.15, 0.03, 0.27]


def causal_allowed(n):
    return [[j <= i for j in range(n)] for i in range(n)]


def oracle_causal_attention():
    """(weights, output, v) of the running sentence, causal mask, from the plain-loop oracle."""
    x = embed(TOKENS)
    w_q, w_k, w_v = projection_weights()
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    output, weights = oracle_attention(q.tolist(), k.tolist(), v.tolist(), causal_allowed(len(TOKENS)))
    return np.array(weights), np.array(output), v


@pytest.mark.claim(
    'Under the causal mask "cat" gives exactly 0 weight to every later word, "mat" included',
    zh="在因果掩码下，“cat” 给之后每个词的权重都恰好为 0，包括 “mat”",
)
def test_cat_row_from_the_loop_oracle():
    weights, _, _ = oracle_causal_attention()
    row = weights[CAT]
    assert all(w == 0.0 for w in row[CAT + 1 :])
    assert row[TOKENS.index("mat")] == 0.0
    values = published("weighted_sum/cat_row")
    assert values["cat_w_the"] == pytest.approx(row[0], abs=1e-12)
    assert values["cat_w_cat"] == pytest.approx(row[CAT], abs=1e-12)
    assert values["cat_w_mat"] == 0.0
    assert values["cat_n_zero"] == len(TOKENS) - (CAT + 1)
    assert values["cat_top_key"] == TOKENS[int(np.argmax(row))]
    assert values["the_w_the"] == 1.0


def test_the_cat_row_is_scaled_dot_product_attention_with_a_causal_mask():
    """The page runs the attention of scaled-dot-product (same projections, no mask there) under a causal mask: the
    last query sees every key either way, so its row is the same; the row of "cat" differs (zeros only with the mask).
    """
    weights, _, _ = oracle_causal_attention()
    x = embed(TOKENS)
    q, k, v = (x @ w for w in projection_weights())
    _, unmasked = oracle_attention(q.tolist(), k.tolist(), v.tolist())
    unmasked = np.array(unmasked)
    np.testing.assert_allclose(weights[-1], unmasked[-1], rtol=0, atol=1e-15)
    assert np.all(unmasked[CAT] > 0) and np.sum(weights[CAT] == 0) == len(TOKENS) - (CAT + 1)
    page = " ".join(CHAPTER.read_text(encoding="utf-8").split())
    assert "same projections, now under the causal mask of [Masks](masks.md)" in page
    assert "exactly as in [Scaled dot-product attention]" not in page


seeds = st.integers(0, 2**32 - 1)
scales = st.sampled_from([1e-3, 1.0, 30.0, 1e3])


@given(seeds, scales)
@pytest.mark.claim(
    "For any queries and keys, causal attention gives the second word's row exactly 0 beyond itself, so the "
    'tutorial\'s row for "cat" cannot come from causal attention',
    zh="对任意查询和键，因果注意力在第二个词的行中、它自身之后的权重都恰好为 0，所以教程中 “cat” "
    "的行不可能来自因果注意力",
)
def test_no_causal_row_can_look_like_the_tutorials(seed, scale):
    q, k = np.random.default_rng(seed).normal(scale=scale, size=(2, 6, 4))
    _, weights = scaled_dot_product_attention(q, k, k, causal_mask(6))
    assert (weights[1, 2:] == 0.0).all()
    assert sum(TUTORIAL_CAT_ROW[2:]) > 0.5  # the claimed row needs half its weight on those keys


def test_the_page_quotes_the_tutorial_row_exactly_as_the_snippet_uses_it():
    text = CHAPTER.read_text(encoding="utf-8")
    assert "[0.02, 0.45, 0.08, 0.15, 0.03, 0.27]" in text
    values = published("weighted_sum/cat_row")
    assert values["claimed_future_mass"] == pytest.approx(sum(TUTORIAL_CAT_ROW[2:]))
    assert values["claimed_n_future"] == sum(1 for w in TUTORIAL_CAT_ROW[2:] if w > 0)


def test_the_tutorial_row_is_quoted_with_its_section():
    """The home page promises that a number quoted from a tutorial comes with where it stands: seed tutorial 000
    prints the row of "cat" in its section 4.2 (as the claims rows on that row give their source)."""
    for page, opening in ((CHAPTER, "Seed tutorial 000 (§4.2) runs"), (ZH_CHAPTER, "种子教程 000（§4.2）用它")):
        paragraph = next(p for p in page.read_text(encoding="utf-8").split("\n\n") if "[0.02, 0.45" in p)
        assert opening in paragraph, f"{page.name}: the quoted row does not name seed 000's section 4.2"


@pytest.mark.claim(
    'In the rows of "the", "mat" and ".", the keys "The" and "the" get identical weights (no positions yet)',
    zh="在 “the”、“mat” 和 “.” 的行中，键 “The” 和 “the” 得到完全相同的权重（此时还没有位置信息）",
)
def test_the_and_the_share_weights():
    weights, _, _ = oracle_causal_attention()
    first, second = TOKENS.index("The"), TOKENS.index("the")
    for i in range(second, len(TOKENS)):
        assert weights[i][first] == pytest.approx(weights[i][second], rel=1e-12)


@pytest.mark.claim(
    'The output of "cat" equals the explicit weighted sum of value rows, to rounding error',
    zh="“cat” 的输出在舍入误差范围内等于值行的显式加权和",
)
def test_output_is_the_weighted_sum_of_value_rows():
    weights, output, v = oracle_causal_attention()
    core_output, _ = scaled_dot_product_attention(
        *[embed(TOKENS) @ w for w in projection_weights()], causal_mask(len(TOKENS))
    )
    for i in range(len(TOKENS)):
        by_hand = [math.fsum(weights[i][j] * v[j][c] for j in range(len(TOKENS))) for c in range(v.shape[1])]
        np.testing.assert_allclose(core_output[i], by_hand, rtol=0, atol=1e-13)
    np.testing.assert_allclose(output, core_output, rtol=0, atol=1e-13)
    values = published("weighted_sum/rows")
    assert values["cat_sum_max_error"] < 1e-12
    assert values["all_rows_max_error"] < 1e-12
    assert values["the_output_minus_v_the"] == 0.0
    assert values["cat_columns_inside"] == values["cat_columns"] == v.shape[1]


@pytest.mark.claim(
    'A larger weight is not a larger contribution: "cat" weights itself more, yet "The" contributes the longer vector',
    zh="权重更大不等于贡献更大：“cat”给自己的权重更大，贡献的向量却是“The”的更长",
)
def test_the_top_weight_key_need_not_be_the_largest_contributor():
    weights, _, v = oracle_causal_attention()
    lengths = [math.sqrt(math.fsum(c * c for c in row)) for row in v]
    contribution = np.array([[w * length for w, length in zip(row, lengths)] for row in weights])  # |w_ij v_j|
    assert weights[CAT, CAT] > weights[CAT, 0] and contribution[CAT, 0] > contribution[CAT, CAT]
    values = published("weighted_sum/rows")
    assert values["cat_contribution_the"] == pytest.approx(contribution[CAT, 0], abs=1e-12)
    assert values["cat_contribution_cat"] == pytest.approx(contribution[CAT, CAT], abs=1e-12)
    assert values["rows_top_weight_not_top_contribution"] == int(np.sum(contribution.argmax(1) != weights.argmax(1)))
    assert values["n_rows"] == len(TOKENS)


@given(seeds, scales)
@pytest.mark.claim(
    "Every output feature lies inside the range of the value rows its query can see (attention averages)",
    zh="每个输出特征都落在其查询可见的值行的取值范围之内（注意力是在求平均）",
)
def test_outputs_stay_inside_the_visible_values(seed, scale):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(scale=scale, size=(2, 5, 3))
    v = rng.normal(scale=100, size=(5, 2))
    output, _ = scaled_dot_product_attention(q, k, v, causal_mask(5))
    for i in range(5):
        seen = v[: i + 1]
        assert (output[i] >= seen.min(axis=0) - 1e-9).all() and (output[i] <= seen.max(axis=0) + 1e-9).all()


@given(seeds, scales)
@pytest.mark.claim("W_v changes the outputs but never the weights", zh="W_v 改变输出，但从不改变权重")
def test_w_v_never_changes_the_weights(seed, scale):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(7, 8))
    w_q, w_k, w_v, other_w_v = rng.normal(scale=scale / math.sqrt(8), size=(4, 8, 8))
    _, weights_a = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, causal_mask(7))
    _, weights_b = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ other_w_v, causal_mask(7))
    assert np.array_equal(weights_a, weights_b)


@pytest.mark.claim(
    'Over 1000 random draws of W_q and W_k, "cat" is its own top key in about half of them, and without the mask '
    '"mat" is its top key about as often as chance',
    zh="在 W_q 和 W_k 的 1000 次随机抽样中，约一半的情况下 “cat” 得分最高的键是它自己；不加掩码时，“mat” "
    "成为其得分最高的键的频率与随机水平相当",
)
def test_random_draw_statistics_from_a_closed_form():
    x = embed(TOKENS)
    d = x.shape[1]
    mat = TOKENS.index("mat")
    rng = np.random.default_rng(2024)  # the snippet's generator, so the same draws
    self_weight, mat_top = [], []
    for _ in range(1000):
        w_q, w_k = rng.normal(scale=1 / math.sqrt(d), size=(2, d, d))
        q, k = x @ w_q, x @ w_k
        score = [float(q[CAT] @ k[j]) / math.sqrt(d) for j in range(len(TOKENS))]
        self_weight.append(1 / (1 + math.exp(score[0] - score[CAT])))  # two visible keys: a logistic function
        mat_top.append(max(range(len(TOKENS)), key=lambda j: score[j]) == mat)
    values = published("weighted_sum/random_draws")
    assert values["n_draws"] == 1000
    assert values["self_weight_mean"] == pytest.approx(np.mean(self_weight), abs=1e-9)
    assert values["self_top_percent"] == pytest.approx(100 * np.mean(np.array(self_weight) > 0.5), abs=1e-9)
    assert values["mat_top_percent_unmasked"] == pytest.approx(100 * np.mean(mat_top), abs=1e-9)
    assert 40 <= values["self_top_percent"] <= 60  # "a coin flip"
    assert abs(values["mat_top_percent_unmasked"] - 100 / len(TOKENS)) < 5  # "about chance"
    assert values["self_weight_p05"] < 0.1 and values["self_weight_p95"] > 0.9
    assert values["w_v_weights_change"] == 0.0 and values["w_v_output_change"] > 0.1


# ------------------------------------------------------------------ the exercises
def exercise(name):
    """An exercise's published answer, {mistake: result} and decimals asked."""
    return published_exercise("weighted_sum/exercises", name)


def printed_numbers(label):
    """The numbers a line of the rows snippet's printout shows after ``label`` (three decimals, as on the page)."""
    printed = (GENERATED / "weighted_sum" / "rows" / "stdout.txt").read_text(encoding="utf-8")
    (line,) = [line for line in printed.splitlines() if line.startswith(label)]
    return [float(n) for n in line.partition(": [")[2].rstrip("]").split()]


def test_exercise_column_total_and_its_mistake():
    weights, _, _ = oracle_causal_attention()
    the = TOKENS.index("The")
    answer, mistakes, _ = exercise("column_total_the")
    assert answer == pytest.approx(math.fsum(row[the] for row in weights), abs=1e-12)
    assert mistakes == pytest.approx({"row_instead_of_column": math.fsum(weights[the])}, abs=1e-12)


def test_exercise_draw_output_and_its_mistakes():
    _, _, v = oracle_causal_attention()
    values = published("weighted_sum/exercises")
    w_self, w_the = values["draw_self_weight"], values["draw_the_weight"]
    the_last, cat_last = v[TOKENS.index("The")][-1], v[CAT][-1]
    assert w_self + w_the == pytest.approx(1.0, abs=1e-15)
    assert (values["v_the_last"], values["v_cat_last"]) == (the_last, cat_last)
    answer, mistakes, _ = exercise("draw_output_last")
    assert answer == pytest.approx(w_the * the_last + w_self * cat_last, abs=1e-12)
    assert mistakes == pytest.approx(
        {"weights_swapped": w_self * the_last + w_the * cat_last, "plain_mean": (the_last + cat_last) / 2}, abs=1e-12
    )


def test_exercise_break_even_weight_and_its_mistakes():
    _, _, v = oracle_causal_attention()
    length_the = math.sqrt(math.fsum(x * x for x in v[TOKENS.index("The")]))
    length_cat = math.sqrt(math.fsum(x * x for x in v[CAT]))
    answer, mistakes, _ = exercise("break_even_self_weight")
    assert answer * length_cat == pytest.approx((1 - answer) * length_the, abs=1e-12)  # equal contributions
    assert mistakes == pytest.approx(
        {"equal_weights": 0.5, "norms_swapped": length_cat / (length_the + length_cat)}, abs=1e-12
    )
    values = published("weighted_sum/exercises")
    assert (values["norm_v_the"], values["norm_v_cat"]) == pytest.approx((length_the, length_cat), abs=1e-12)
    assert published("weighted_sum/cat_row")["cat_w_cat"] < answer  # the solution: the page's weight lies below


def test_exercises_answered_from_the_printed_numbers_are_accepted():
    """A reader who works from the printed three-decimal weights and value rows gets the answers accepted."""
    printed = (GENERATED / "weighted_sum" / "cat_row" / "stdout.txt").read_text(encoding="utf-8")
    matrix = printed.split("columns = keys):")[1].split('row of "cat"')[0]
    rows = [[float(n) for n in row.split()] for row in re.findall(r"\[\s*([-\d.\s]+?)\]", matrix)]
    v_the, v_cat = printed_numbers("v[The]:"), printed_numbers("v[cat]:")
    values = published("weighted_sum/exercises")
    w_self, w_the = values["draw_self_weight"], values["draw_the_weight"]
    length_the, length_cat = math.hypot(*v_the), math.hypot(*v_cat)
    replies = {
        "column_total_the": math.fsum(row[TOKENS.index("The")] for row in rows),
        "draw_output_last": w_the * v_the[-1] + w_self * v_cat[-1],
        "break_even_self_weight": length_the / (length_the + length_cat),
    }
    for name, reply in replies.items():
        verdict = check(reply, *exercise(name))
        assert verdict == ("right", None), (name, reply, verdict)
