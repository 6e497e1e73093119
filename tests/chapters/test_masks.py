"""The chapter "Masks": its statements, recomputed independently.

Every masked result is compared with the loop oracle of tests/support.py, which skips masked keys one by one
(softmax_row gives -inf entries weight 0); masks are rebuilt with explicit loops (j <= i, j < length); the
fully-masked-row conventions are recomputed with math.exp. General properties use Hypothesis.
Published numbers are read from docs/generated/masks/*/values.json.
"""

import math
import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

from lib.attention import attention_scores, causal_mask, padding_mask, scaled_dot_product_attention, softmax
from lib.debug_tools import max_subtract_softmax
from lib.exercises import check
from lib.running_example import SENTENCE, embed, projection_weights, tokenize
from support import (
    GENERATED,
    REPO,
    flat_page,
    nonempty_glob,
    oracle_attention,
    published,
    published_exercise,
    published_table,
    softmax_row,
)

TOKENS = tokenize(SENTENCE)


def causal_loop(n):
    return [[j <= i for j in range(n)] for i in range(n)]


def random_qkv(seed, lq, lk, d=4):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(lq, d)), rng.normal(size=(lk, d)), rng.normal(size=(lk, 3))


@pytest.mark.claim(
    "Causal, padding and combined masks give the weights of a loop that skips the forbidden keys",
    zh="因果掩码、填充掩码和组合掩码给出的权重，与跳过禁止键的循环所得权重相同",
)
@given(st.integers(0, 2**32 - 1), st.integers(1, 7), st.data())
def test_causal_padding_and_both_match_the_loop(seed, n, data):
    length = data.draw(st.integers(1, n))
    q, k, v = random_qkv(seed, n, n)
    allowed_pad = [[j < length for j in range(n)] for _ in range(n)]
    allowed_both = [[j <= i and j < length for j in range(n)] for i in range(n)]
    cases = [
        (causal_mask(n), causal_loop(n)),
        (padding_mask([length], n)[0], allowed_pad),
        (causal_mask(n) & padding_mask([length], n)[0], allowed_both),
    ]
    for mask, allowed in cases:
        assert mask.shape[-1] == n and np.array_equal(np.broadcast_to(mask, (n, n)), np.array(allowed))
        output, weights = scaled_dot_product_attention(q, k, v, mask)
        want_out, want_w = oracle_attention(q.tolist(), k.tolist(), v.tolist(), allowed)
        np.testing.assert_allclose(weights, want_w, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(output, want_out, rtol=1e-12, atol=1e-14)


@pytest.mark.claim(
    "A zero padding vector still takes weight unless it is masked: its key scores 0 and e^0 = 1",
    zh="全零的填充向量除非被掩码，否则仍会分得权重：它的键得分为 0，而 e^0 = 1",
)
def test_zero_pad_key_gets_weight_without_mask():
    x = embed(TOKENS)
    x_b = np.vstack([x[[0, 1, 2, 6]], np.zeros((3, x.shape[1]))])
    w_q, w_k, w_v = projection_weights()
    q, k, v = ((x_b @ w).tolist() for w in (w_q, w_k, w_v))
    _, weights = oracle_attention(q, k, v)
    pad_share = max(sum(row[4:]) for row in weights[:4])
    values = published("masks/kinds")
    assert values["pad_weight_no_mask"] == pytest.approx(pad_share, abs=1e-12) and pad_share > 0.3
    assert values["pad_weight_masked"] == 0.0 and values["future_weight_causal"] == 0.0
    assert values["same_first_rows"] is True


@pytest.mark.claim(
    "A boolean mask and an additive 0/-inf mask give the same weights", zh="布尔掩码与加性的 0/-inf 掩码给出相同的权重"
)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(1, 6), st.data())
def test_boolean_equals_additive(seed, lq, lk, data):
    q, k, v = random_qkv(seed, lq, lk)
    allowed = data.draw(st.lists(st.lists(st.booleans(), min_size=lk, max_size=lk), min_size=lq, max_size=lq))
    for row in allowed:
        row[data.draw(st.integers(0, lk - 1))] = True  # at least one key per query
    mask = np.array(allowed)
    additive = np.where(mask, 0.0, -np.inf)
    _, weights = scaled_dot_product_attention(q, k, v, mask)
    scores = [[sum(a * b for a, b in zip(qi, kj)) / 2.0 for kj in k.tolist()] for qi in q.tolist()]  # sqrt(d) = 2
    want = [softmax_row([s + a for s, a in zip(srow, arow)]) for srow, arow in zip(scores, additive.tolist())]
    np.testing.assert_allclose(weights, want, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(softmax(attention_scores(q, k) + additive), want, rtol=1e-12, atol=1e-15)


@pytest.mark.claim(
    "Zeroing after softmax equals masking first only with renormalising; without it rows sum to < 1",
    zh="在 softmax 之后置零，只有重新归一化才等同于先加掩码；不重新归一化时各行之和 < 1",
)
@given(st.integers(0, 2**32 - 1), st.integers(2, 7))
def test_after_softmax_variants(seed, n):
    q, k, v = random_qkv(seed, n, n)
    allowed = causal_loop(n)
    _, want = oracle_attention(q.tolist(), k.tolist(), v.tolist(), allowed)
    p = softmax(attention_scores(q, k))
    zeroed = np.where(np.array(allowed), p, 0.0)
    np.testing.assert_allclose(zeroed / zeroed.sum(axis=-1, keepdims=True), want, rtol=1e-12, atol=1e-15)
    sums = zeroed.sum(axis=-1)
    assert np.all(sums[:-1] < 1.0)  # every row but the last lost the weight of its future keys
    assert sums[-1] == pytest.approx(1.0)


def test_published_after_softmax_numbers():
    values = published("masks/additive") | published("masks/after_softmax")
    assert values["bool_vs_additive"] == 0.0
    assert values["renormalise_error"] < 1e-15
    assert values["no_renorm_error"] > 0.5 and values["no_renorm_min_sum"] < 0.5
    assert values["subtract_after_min"] < -9e8  # "ineffective"? No: weights near -1e9
    assert values["converted_equals_causal"] is True
    assert values["inverted_future_weight"] == pytest.approx(1.0) and values["inverted_last_row_sum"] == 0.0


@pytest.mark.claim(
    "The blocked-is-1 mask np.triu(ones, k=1) converts to ours with == 0; the core rejects a float mask",
    zh="以 1 表示屏蔽的掩码 np.triu(ones, k=1) 用 == 0 即可转换为我们的掩码；核心实现拒绝浮点掩码",
)
@given(st.integers(1, 12))
def test_seed_mask_conversion(n):
    blocked = np.triu(np.ones((n, n)), k=1)
    assert np.array_equal(blocked == 0, np.array(causal_loop(n)))
    q, k, v = random_qkv(0, n, n)
    with pytest.raises(ValueError, match="boolean"):
        scaled_dot_product_attention(q, k, v, mask=blocked)


@pytest.mark.claim(
    "In float64, -1e9 and -inf give identical weights when each row keeps an allowed key",
    zh="在 float64 下，只要每行都保留一个允许的键，-1e9 与 -inf 给出完全相同的权重",
)
@given(st.integers(0, 2**32 - 1), st.integers(1, 7))
def test_minus_1e9_equals_minus_inf(seed, n):
    q, k, _ = random_qkv(seed, n, n)
    scores = attention_scores(q, k).tolist()
    allowed = causal_loop(n)
    with_inf = [softmax_row([s if a else -math.inf for s, a in zip(sr, ar)]) for sr, ar in zip(scores, allowed)]
    with_1e9 = [softmax_row([s if a else -1e9 for s, a in zip(sr, ar)]) for sr, ar in zip(scores, allowed)]
    assert with_inf == with_1e9


@pytest.mark.claim(
    "float16 cannot hold -1e9: it becomes -inf (float16 max is 65504)",
    zh="float16 无法表示 -1e9：它会变成 -inf（float16 的最大值是 65504）",
)
def test_float16_overflow():
    largest = (2 - 2**-10) * 2**15  # the largest float16: 10-bit mantissa, exponent 15
    assert largest == 65504
    values = published("masks/large_negative")
    assert values["float16_max"] == largest == float(np.finfo(np.float16).max)
    with np.errstate(over="ignore"):
        assert np.float16(-1e9) == -np.inf
    assert values["float16_of_minus_1e9"] == "-inf"
    assert values["float16_of_minus_1e4"] == -10000


@pytest.mark.claim(
    "Fully masked row: -inf gives NaN, a -1e9 fill gives uniform weights, adding -1e9 gives the "
    "unmasked weights, our core gives zeros",
    zh="全被掩码的行：-inf 得到 NaN，用 -1e9 填充得到均匀权重，加上 -1e9 得到未加掩码时的权重，我们的核心实现给出全零",
)
@given(st.lists(st.floats(-10, 10), min_size=1, max_size=8))
def test_fully_masked_row_conventions(z):
    n = len(z)
    # -inf everywhere: subtracting the max gives -inf - (-inf) = nan.
    assert math.isnan(-math.inf - -math.inf)
    with np.errstate(invalid="ignore"):
        row = np.full(n, -np.inf)
        assert np.all(np.isnan(max_subtract_softmax(row)))
    # fill -1e9: all entries equal, so uniform.
    assert softmax_row([-1e9] * n) == pytest.approx([1 / n] * n)
    # add -1e9: the shift cancels (up to the float64 spacing near 1e9, about 1.2e-7).
    np.testing.assert_allclose(softmax_row([s - 1e9 for s in z]), softmax_row(z), atol=1e-6)
    # our core: zeros, and a zero output row.
    rng = np.random.default_rng(n)
    q, k, v = rng.normal(size=(1, 3)), rng.normal(size=(n, 3)), rng.normal(size=(n, 2))
    output, weights = scaled_dot_product_attention(q, k, v, mask=np.zeros((1, n), dtype=bool))
    assert np.all(weights == 0.0) and np.all(output == 0.0)


def test_published_fully_masked_table():
    values = published("masks/large_negative")
    assert values["inf_vs_1e9"] == 0.0 and values["masked_weight_1e9"] == 0.0 and values["first_row_1e9"] == 1.0
    assert values["add_1e9_vs_unmasked"] < 1e-6
    assert values["core_output_max"] == 0.0
    rows = {
        row["convention"]: row['weights of "cat" when every key is masked']
        for row in published_table("masks/large_negative", "fully_masked")
    }
    assert rows["fill -inf, exp / sum"].count("nan") == len(TOKENS)
    assert rows["fill -inf, subtract the max"].count("nan") == len(TOKENS)
    assert rows["fill -1e9 in float16, subtract the max"].count("nan") == len(TOKENS)
    assert rows["add -1e9, exp / sum"].count("nan") == len(TOKENS)
    assert rows["fill -1e9, subtract the max"].count("0.143") == len(TOKENS)
    assert rows["our core: boolean mask"] == "[0. 0. 0. 0. 0. 0. 0.]"


def leakage_loop(allowed, x, w_q, w_k, w_v, rng):
    """Largest change of outputs 0..t (oracle) after replacing every token after t, over all cuts t."""

    def run(xs):
        return np.array(oracle_attention((xs @ w_q).tolist(), (xs @ w_k).tolist(), (xs @ w_v).tolist(), allowed)[0])

    base = run(x)
    changes = []
    for t in range(len(x) - 1):
        x_new = x.copy()
        x_new[t + 1 :] = rng.normal(size=x_new[t + 1 :].shape)
        changes.append(np.max(np.abs(run(x_new)[: t + 1] - base[: t + 1])))
    return changes


@pytest.mark.claim(
    "Under a causal mask, changing future tokens changes earlier outputs by exactly 0.0; a transposed "
    "or off-by-one mask leaks",
    zh="在因果掩码下，改变未来的词元使先前输出的变化恰好为 0.0；转置的或错位一格的掩码会泄露",
)
@given(st.integers(0, 2**32 - 1), st.integers(2, 6))
def test_leakage(seed, n):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4))
    # N(0, 1/d) projections keep scores near unit scale, so no weight on a future key underflows to exactly 0
    w_q, w_k, w_v = (rng.normal(scale=0.5, size=(4, 4)) for _ in range(3))
    assert leakage_loop(causal_loop(n), x, w_q, w_k, w_v, rng) == [0.0] * (n - 1)
    transposed = [[j >= i for j in range(n)] for i in range(n)]
    off_by_one = [[j <= i + 1 for j in range(n)] for i in range(n)]
    assert max(leakage_loop(transposed, x, w_q, w_k, w_v, rng)) > 0.0
    assert max(leakage_loop(off_by_one, x, w_q, w_k, w_v, rng)) > 0.0
    # The core too: the same exact zero.
    x_new = x.copy()
    x_new[1:] = rng.normal(size=x_new[1:].shape)
    out_1, _ = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, causal_mask(n))
    out_2, _ = scaled_dot_product_attention(x_new @ w_q, x_new @ w_k, x_new @ w_v, causal_mask(n))
    assert np.array_equal(out_1[0], out_2[0])


def test_published_leakage():
    values = published("masks/leakage")
    assert values["causal_max_change"] == 0.0
    for name in ("transposed_max_change", "off_by_one_max_change", "no_mask_max_change"):
        assert values[name] > 0.1


@pytest.mark.claim(
    "A mask hard-coded for 6 tokens fails on a 5-token sentence; the core's error names the mask",
    zh="为 6 个词元写死的掩码在 5 个词元的句子上出错；核心实现的错误信息会指明掩码",
)
def test_hard_coded_mask_error():
    q, k, v = random_qkv(0, 5, 5)
    with pytest.raises(ValueError, match=r"operands could not be broadcast together with shapes \(5,5\) \(6,6\)"):
        _ = attention_scores(q, k) - 1e9 * np.triu(np.ones((6, 6)), k=1)
    with pytest.raises(ValueError, match=r"mask of shape \(6, 6\) does not broadcast to the scores' shape \(5, 5\)"):
        scaled_dot_product_attention(q, k, v, mask=causal_mask(6))
    stdout = (GENERATED / "masks/seed_shape" / "stdout.txt").read_text(encoding="utf-8")
    assert "operands could not be broadcast together with shapes (5,5) (6,6)" in stdout
    assert "mask of shape (6, 6) does not broadcast to the scores' shape (5, 5)" in stdout


@pytest.mark.claim(
    "All three wrong masks leak in the leakage test (no 'only a test' claim), and the right one leaks 0",
    zh="三种错误的掩码在泄露测试中都会泄露（不存在“只是个测试”的说法），正确的掩码泄露为 0",
)
def test_the_leakage_test_catches_all_three_wrong_masks():

    values = published("masks/leakage")
    assert values["causal_max_change"] == 0
    for name in ("transposed_max_change", "off_by_one_max_change", "no_mask_max_change"):
        assert values[name] > 0.5, name
    page = flat_page("masks.md")
    assert "Only a test like this one catches them" not in page
    assert "a test like this one catches all three" in page


def test_a_fully_masked_row_comes_from_an_all_padding_entry_not_from_an_empty_sequence():
    """The page's example of a fully masked query: a batch entry that is all padding. A length-0 sequence has no
    query row at all."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 4))
    output, weights = scaled_dot_product_attention(x, x, x, mask=padding_mask(np.array([3, 0]), 5))
    assert np.all(weights[1] == 0.0) and np.all(output[1] == 0.0)  # every query of the all-padding entry
    empty = np.zeros((0, 4))
    output, weights = scaled_dot_product_attention(empty, empty, empty)
    assert output.shape == (0, 4) and weights.shape == (0, 0)  # no row to mask


SEEDS = REPO.parent / "shared" / "seeds"


@pytest.mark.skipif(not SEEDS.is_dir(), reason=f"the seed tutorials are not in {SEEDS}")
def test_only_seed_000_builds_the_triu_mask():
    """The page says seed 000 builds np.triu(np.ones((L, L)), k=1); seed 003 has no mask at all."""
    texts = {path.name[:3]: path.read_text(encoding="utf-8") for path in nonempty_glob(SEEDS, "*.txt")}
    assert "triu" in texts["000"] and "triu" not in texts["003"]
    assert "Seed 000, one of the tutorials we started from, builds `np.triu" in flat_page("masks.md")


# ------------------------------------------------------------------ the exercises
def exercise(name):
    """An exercise's published answer, {mistake: result} and decimals asked."""
    return published_exercise("masks/exercises", name)


def count_pairs(n, allowed):
    """How many (query i, key j) pairs of an n-by-n grid ``allowed(i, j)`` lets through, one pair at a time."""
    return sum(1 for i in range(n) for j in range(n) if allowed(i, j))


def test_exercise_allowed_pairs_and_its_mistakes():
    n, real = published("masks/kinds")["n_positions"], published("masks/kinds")["n_real_b"]
    answer, mistakes, _ = exercise("allowed_pairs_b")
    assert answer == count_pairs(n, lambda i, j: j <= i and j < real)
    assert mistakes == {
        "or_instead_of_and": count_pairs(n, lambda i, j: j <= i or j < real),
        "pad_queries_masked": count_pairs(n, lambda i, j: j <= i and j < real and i < real),
    }
    values = published("masks/exercises")
    assert values["real_query_pairs"] == count_pairs(real, lambda i, j: j <= i)
    assert values["pad_query_pairs"] == (n - real) * real


def sentence_b_weights():
    """Sentence b's weights without a mask, from the plain-loop oracle."""
    x = embed(tokenize(SENTENCE))
    keep = [0, 1, 2, len(x) - 1]  # "The cat sat ."
    x_b = [x[i].tolist() for i in keep] + [[0.0] * x.shape[1]] * (len(x) - len(keep))
    w_q, w_k, w_v = projection_weights()
    q, k, v = (np.array(x_b) @ w for w in (w_q, w_k, w_v))
    return oracle_attention(q.tolist(), k.tolist(), v.tolist())[1]


def test_exercise_zeroed_row_sum_and_its_mistakes():
    real, sat = published("masks/kinds")["n_real_b"], 2  # "sat": the third token of "The cat sat."
    row = sentence_b_weights()[sat]
    answer, mistakes, _ = exercise("zeroed_row_sum")
    assert answer == pytest.approx(math.fsum(row[:real]), abs=1e-12)
    assert mistakes == pytest.approx({"renormalised": 1.0, "mask_inverted": math.fsum(row[real:])}, abs=1e-12)


def test_exercise_zeroed_row_sum_from_the_printed_weights():
    """A reader who adds the printed two-decimal weights of "sat" gets the answer, and the inverted mask's sum
    is recognised as that mistake."""
    printed = (GENERATED / "masks" / "kinds" / "stdout.txt").read_text(encoding="utf-8")
    matrix = printed.split("weights of sentence b, no mask")[1].split("weights of sentence b, causal")[0]
    rows = [[float(n) for n in row.split()] for row in re.findall(r"\[\s*([-\d.\s]+?)\]", matrix)]
    real, sat = published("masks/kinds")["n_real_b"], 2  # "sat": the third token of "The cat sat."
    assert check(math.fsum(rows[sat][:real]), *exercise("zeroed_row_sum")) == ("right", None)
    assert check(math.fsum(rows[sat][real:]), *exercise("zeroed_row_sum")) == ("mistake", "mask_inverted")


def test_exercise_float16_fill_and_its_mistake():
    """float16 holds finite numbers up to (2 - 2**-10) * 2**15; a row of -inf gives 0/0; equal finite numbers,
    uniform weights."""
    float16_max = (2 - 2**-10) * 2**15
    fills = ["-inf", "-1e9", "-1e4"]
    answer, mistakes, _ = exercise("float16_fill")
    assert [answer] == [f for f in fills if math.isfinite(float(f)) and abs(float(f)) <= float16_max]
    assert [mistakes["float64_thinking"]] == [
        f for f in fills if math.isfinite(float(f)) and abs(float(f)) > float16_max
    ]
    assert set(mistakes) == {"float64_thinking"}


def test_exercise_off_by_one_future_pairs_and_its_mistakes():
    n = len(tokenize(SENTENCE))
    answer, mistakes, _ = exercise("off_by_one_future_pairs")
    assert answer == count_pairs(n, lambda i, j: j == i + 1)
    assert mistakes == {
        "counted_all_allowed": count_pairs(n, lambda i, j: j <= i + 1),
        "counted_two_diagonals": count_pairs(n, lambda i, j: i <= j <= i + 1),
    }
    (off_by_one,) = [row for row in published_table("masks/leakage", "leakage") if row["mask"] == "off by one"]
    assert answer == int(off_by_one["cuts that leak (of 6)"])  # one pair per cut of the leakage test
