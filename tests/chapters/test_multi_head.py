"""The chapter "Multi-head attention": its statements, recomputed independently.

Head splits are recomputed with index arithmetic on plain lists (no reshape); multi-head attention with the
plain-loop oracle of tests/support.py, one head at a time, as the paper writes it. Published numbers are read from
docs/generated/multi_head/*/values.json.
"""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from lib.attention import causal_mask, merge_heads, multi_head_attention, split_heads
from lib.running_example import SENTENCE, embed, projection_weights, tokenize
from support import REPO, oracle_attention, published

CHAPTER = REPO / "docs" / "multi-head.md"
TOKENS = tokenize(SENTENCE)

# "Attention Is All You Need" (Vaswani et al., 2017), section 3.2.2: "In this work we employ h = 8 parallel
# attention layers, or heads. For each of these we use d_k = d_v = d_model/h = 64." (so d_model = 512, section 3.1)
PAPER = {"h": 8, "d_k": 64, "d_model": 512}


def causal_allowed(n):
    return [[j <= i for j in range(n)] for i in range(n)]


def split_by_index(rows, h):
    """Right split with index arithmetic: head i, position p, column c = rows[p][i * d_head + c]."""
    d_head = len(rows[0]) // h
    return [[[rows[p][i * d_head + c] for c in range(d_head)] for p in range(len(rows))] for i in range(h)]


def reshape_only_by_index(rows, h):
    """Reshape without transpose, spelled out: read the numbers in row-major order, cut into (h, L, d_head)."""
    flat = [value for row in rows for value in row]
    L, d_head = len(rows), len(rows[0]) // h
    return [[[flat[(i * L + p) * d_head + c] for c in range(d_head)] for p in range(L)] for i in range(h)]


def loop_multi_head(x, w_q, w_k, w_v, w_o, h, split, allowed):
    """Multi-head attention head by head with the loop oracle; ``split`` says how rows become heads."""
    q, k, v = (split((x @ w).tolist(), h) for w in (w_q, w_k, w_v))
    heads = [oracle_attention(q[i], k[i], v[i], allowed)[0] for i in range(h)]  # h x L x d_head
    if split is split_by_index:
        concat = [[value for i in range(h) for value in heads[i][p]] for p in range(len(x))]
    else:  # undo the plain reshape with a plain reshape
        flat = [value for head in heads for row in head for value in row]
        concat = [flat[p * x.shape[1] : (p + 1) * x.shape[1]] for p in range(len(x))]
    return np.array(concat) @ w_o


@given(st.integers(1, 6), st.integers(1, 4), st.integers(1, 4), st.integers(0, 2**32 - 1))
@pytest.mark.claim(
    "Splitting with reshape + transpose gives every head every position with its own slice of features, and merging "
    "undoes it exactly",
    zh="用 reshape 加 transpose 拆分，使每个头都得到所有位置及其各自的一段特征，合并则恰好将其还原",
)
def test_split_heads_matches_index_arithmetic(length, h, d_head, seed):
    x = np.random.default_rng(seed).normal(size=(length, h * d_head))
    assert split_heads(x, h).tolist() == split_by_index(x.tolist(), h)
    assert np.array_equal(merge_heads(split_heads(x, h)), x)


@pytest.mark.claim(
    "Reshaping without the transpose gives head 0 only the first half of the sentence and head 1 only the second "
    "half; 12 of 14 head rows hold the wrong word",
    zh="不加 transpose 直接 reshape，头 0 只得到句子的前半部分，头 1 只得到后半部分；14 个头行中有 12 个对应错误的词",
)
def test_reshape_only_cuts_the_sentence():
    L, h = len(TOKENS), 2
    tags = [[p] * 8 for p in range(L)]
    heads = reshape_only_by_index(tags, h)
    held = [sorted({value for row in head for value in row}) for head in heads]
    misplaced = sum(any(value != p for value in heads[i][p]) for i in range(h) for p in range(L))
    values = published("multi_head/split_merge")
    assert values["wrong_head0_positions"] == ", ".join(TOKENS[p] for p in held[0])
    assert values["wrong_head1_positions"] == ", ".join(TOKENS[p] for p in held[1])
    assert (values["wrong_rows_misplaced"], values["head_rows"]) == (misplaced, h * L) == (12, 14)
    assert values["right_rows_misplaced"] == 0
    assert values["split_matches_core"] is True and values["round_trip_error"] == 0.0


def test_the_figure_text_counts_the_rows_each_word_fills():
    """The figure's alt text: reshape only gives The, cat, sat two rows each in head 0 and "on" one row in each head
    (its first half in head 0, its second half in head 1); the, mat and the full stop two rows each in head 1."""
    L, h = len(TOKENS), 2
    heads = reshape_only_by_index([[p] * 8 for p in range(L)], h)
    rows_per_word = [
        {TOKENS[p]: sum(row[0] == p for row in head) for p in sorted({row[0] for row in head})} for head in heads
    ]
    assert rows_per_word == [{"The": 2, "cat": 2, "sat": 2, "on": 1}, {"on": 1, "the": 2, "mat": 2, ".": 2}]
    assert all(len(set(row)) == 1 for head in heads for row in head)  # every row holds one word's numbers
    assert heads[0][-1][0] == heads[1][0][0] == TOKENS.index("on")  # head 0's last row and head 1's first: "on"
    page = " ".join(CHAPTER.read_text(encoding="utf-8").split())
    assert (
        "head 0 holds The, cat and sat, two rows each, then the first half of on; head 1 holds the second half" in page
    )


@pytest.mark.claim(
    'With the transpose, changing "The" moves every output row (causal mask); without it, only the first four',
    zh="加 transpose 时，改变 “The” 会使每个输出行都变化（因果掩码）；不加时只有前四行变化",
)
def test_who_moves_with_the_loop_oracle():
    x = embed(TOKENS)
    w_q, w_k, w_v = projection_weights()
    w_o = np.random.default_rng(2).normal(scale=1 / math.sqrt(8), size=(8, 8))
    allowed = causal_allowed(len(TOKENS))
    reach = {}
    for split in (split_by_index, reshape_only_by_index):
        base = loop_multi_head(x, w_q, w_k, w_v, w_o, 2, split, allowed)
        nudged = x.copy()
        nudged[0] += 1.0
        moved = np.abs(loop_multi_head(nudged, w_q, w_k, w_v, w_o, 2, split, allowed) - base).max(axis=1) > 1e-12
        reach[split.__name__] = int(moved.sum())
    values = published("multi_head/split_merge")
    assert reach["split_by_index"] == values["right_first_word_reach"] == len(TOKENS)
    assert reach["reshape_only_by_index"] == values["wrong_first_word_reach"] == 4
    right = loop_multi_head(x, w_q, w_k, w_v, w_o, 2, split_by_index, allowed)
    core, _ = multi_head_attention(x, w_q, w_k, w_v, w_o, 2, causal_mask(len(TOKENS)))
    np.testing.assert_allclose(core, right, rtol=0, atol=1e-12)
    assert published("multi_head/heads")["heads_max_error_vs_core"] < 1e-12


@pytest.mark.parametrize("d_model,h", [(PAPER["d_model"], PAPER["h"]), (128, 2)])
@pytest.mark.claim(
    "One fused (d_model, h*d_k) projection gives the same multi-head attention as h separate (d_model, d_k) "
    "projections, at the paper's base sizes and at the tutorial's",
    zh="一个合并的 (d_model, h*d_k) 投影与 h 个独立的 (d_model, d_k) "
    "投影给出相同的多头注意力，在论文的基础模型尺寸和教程的尺寸下都是如此",
)
def test_fused_equals_separate_with_the_loop_oracle(d_model, h):
    d_k, L = d_model // h, 5
    rng = np.random.default_rng(d_model)
    x = rng.normal(size=(L, d_model))
    per_head = rng.normal(scale=d_model**-0.5, size=(3, h, d_model, d_k))  # W_i^Q, W_i^K, W_i^V
    w_o = rng.normal(scale=d_model**-0.5, size=(h * d_k, d_model))
    allowed = causal_allowed(L)
    heads = [
        oracle_attention(
            (x @ per_head[0, i]).tolist(), (x @ per_head[1, i]).tolist(), (x @ per_head[2, i]).tolist(), allowed
        )[0]
        for i in range(h)
    ]
    paper_form = np.concatenate([np.array(head) for head in heads], axis=1) @ w_o
    fused = [np.concatenate(list(per_head[n]), axis=1) for n in range(3)]  # (d_model, h * d_k) each
    fused_form, _ = multi_head_attention(x, *fused, w_o, h, causal_mask(L))
    np.testing.assert_allclose(fused_form, paper_form, rtol=0, atol=1e-12)
    key = "paper" if d_model == PAPER["d_model"] else "tutorial"
    values = published("multi_head/fused_vs_separate")
    assert values[f"{key}_max_error"] < 1e-12 and values[f"{key}_slice_error"] < 1e-12
    assert values[f"{key}_params_w_q"] == h * d_model * d_k == d_model * d_model


def test_the_paper_quote_and_the_snippet_sizes_agree():
    text = CHAPTER.read_text(encoding="utf-8")
    assert "we employ $h = 8$ parallel attention layers, or heads" in text
    assert r"$d_k = d_v = d_{\text{model}}/h = 64$" in text
    values = published("multi_head/fused_vs_separate")
    assert (values["paper_h"], values["paper_d_k"], values["paper_d_model"]) == (
        PAPER["h"],
        PAPER["d_k"],
        PAPER["d_model"],
    )
    assert values["tutorial_d_model"] == 128 and values["tutorial_d_k"] == 64


@pytest.mark.claim(
    "Reusing one (d_model, d_k) matrix for every head makes all heads compute identical weights; separate matrices "
    "do not",
    zh="所有头共用一个 (d_model, d_k) 矩阵会使各头算出完全相同的权重；各自独立的矩阵则不会",
)
def test_shared_matrix_collapses_the_heads():
    x = embed(TOKENS)
    w_q, w_k, w_v = projection_weights()
    shared_q, shared_k = np.tile(w_q[:, :4], 2), np.tile(w_k[:, :4], 2)  # head 1 reuses head 0's columns
    _, weights = multi_head_attention(x, shared_q, shared_k, w_v, np.eye(8), 2, causal_mask(len(TOKENS)))
    assert np.array_equal(weights[0], weights[1])
    _, weights = multi_head_attention(x, w_q, w_k, w_v, np.eye(8), 2, causal_mask(len(TOKENS)))
    assert np.abs(weights[0] - weights[1]).max() > 0.1
    values = published("multi_head/fused_vs_separate")
    assert values["shared_heads_difference"] == 0.0 and values["separate_heads_difference"] > 0.1


@pytest.mark.claim(
    "Splitting adds no multiply-adds to the scores; only the scaling and the softmax run on h score matrices "
    "instead of one",
    zh="拆分不给分数增加任何乘加；只是缩放和 softmax 要在 h 个分数矩阵上各做一次，而不是一个",
)
def test_splitting_adds_no_multiply_adds_but_h_softmaxes():
    values = published("multi_head/fused_vs_separate")
    n, h, d_model = values["n_positions"], values["tutorial_h"], values["tutorial_d_model"]
    assert values["madds_heads"] == values["madds_one_head"] == n * n * d_model
    x = np.random.default_rng(5).normal(size=(n, d_model))
    w_q, w_k, w_v = (np.random.default_rng(seed).normal(size=(d_model, d_model)) for seed in (6, 7, 8))
    _, weights = multi_head_attention(x, w_q, w_k, w_v, np.eye(d_model), h)
    assert h > 1 and weights.shape == (h, n, n)  # h softmaxed score matrices: h * L^2 exponentials, not L^2


def test_the_tutorial_sizes_are_quoted_with_their_section():
    """The splitting bullet works at seed tutorial 000's d_model and h, which its section 3.2 sets (128 and 2); the
    page names that section in both editions, as the home page promises for every number quoted from a tutorial."""
    values = published("multi_head/fused_vs_separate")
    assert (values["tutorial_d_model"], values["tutorial_h"]) == (128, 2)
    for page, cited in (
        (CHAPTER, "seed tutorial 000's $d_{\\text{model}}$ and $h$ (§3.2)"),
        (REPO / "docs-zh" / "multi-head.md", "种子教程 000 的 $d_{\\text{model}}$ 和 $h$（§3.2）"),
    ):
        assert cited in " ".join(page.read_text(encoding="utf-8").split()), f"{page}: no section for the sizes"


@pytest.mark.claim(
    "Without W_o each output feature comes from one head; with W_o every output feature depends on every head",
    zh="没有 W_o 时，每个输出特征来自一个头；有 W_o 时，每个输出特征都依赖于所有头",
)
def test_w_o_mixes_the_heads():
    values = published("multi_head/heads")
    assert (values["head1_concat_features"], values["head1_output_features"], values["d_model"]) == (4, 8, 8)
    rng = np.random.default_rng(3)
    heads = rng.normal(size=(2, 7, 4))
    w_o = rng.normal(size=(8, 8))
    bumped = heads.copy()
    bumped[1] += 1.0
    concat_change = np.abs(merge_heads(bumped) - merge_heads(heads)).max(axis=0)
    assert (concat_change[:4] == 0).all() and (concat_change[4:] > 0).all()
    assert (np.abs(merge_heads(bumped) @ w_o - merge_heads(heads) @ w_o).max(axis=0) > 0).all()


# ------------------------------------------------------------------ the exercises (snippets/multi_head/exercises.py)
EXERCISES = published("multi_head/exercises")


def test_exercise_split_shape_with_four_heads():
    h, rows = EXERCISES["h_four"], (embed(TOKENS) @ projection_weights()[0]).tolist()
    heads = split_by_index(rows, h)
    assert EXERCISES["split_shape"] == [len(heads), len(heads[0]), len(heads[0][0])]
    assert [EXERCISES["length"], EXERCISES["d_head_four"]] == [len(rows), len(rows[0]) // h]
    assert EXERCISES["split_shape__no_transpose"] == [len(rows), h, len(rows[0]) // h]
    assert EXERCISES["split_shape__full_width"] == [h, len(rows), len(rows[0])]


def test_exercise_reshape_only_words_of_head_1():
    h, L = EXERCISES["h_four"], len(TOKENS)
    tags = [[p] * 8 for p in range(L)]
    held = sorted({p for row in reshape_only_by_index(tags, h)[1] for p in row})
    assert EXERCISES["reshape_only_words"] == [TOKENS[p] for p in held]
    every = sorted({p for row in split_by_index(tags, h)[1] for p in row})
    assert EXERCISES["reshape_only_words__with_transpose"] == [TOKENS[p] for p in every]
    block = L * 8 // h  # numbers per head, row after row
    assert [EXERCISES["head_block"], EXERCISES["block_end"]] == [block, 2 * block - 1]
    assert [EXERCISES["first_row"], EXERCISES["last_row"]] == [block // 8, (2 * block - 1) // 8] == [held[0], held[-1]]


def test_exercise_head_score_of_mat_on_sat_in_head_1():
    x = embed(TOKENS)
    w_q, w_k, _ = projection_weights()
    d_head = 8 // 2
    q_row = [round(float(value), 2) for value in (x @ w_q)[TOKENS.index("mat")][d_head : 2 * d_head]]  # head 1
    k_row = [round(float(value), 2) for value in (x @ w_k)[TOKENS.index("sat")][d_head : 2 * d_head]]
    assert EXERCISES["score_query"] == q_row and EXERCISES["score_key"] == k_row
    dot = sum(a * b for a, b in zip(q_row, k_row))
    assert EXERCISES["score_dot"] == pytest.approx(dot, abs=1e-12)
    assert EXERCISES["head_score"] == pytest.approx(dot / math.sqrt(d_head), abs=1e-12)
    exact = (x @ w_q)[TOKENS.index("mat")][d_head:] @ (x @ w_k)[TOKENS.index("sat")][d_head:] / math.sqrt(d_head)
    assert f"{exact:.2f}" == f"{EXERCISES['head_score']:.2f}"  # the notebook's unrounded q and k give the same reply
    assert EXERCISES["head_score__unscaled"] == pytest.approx(dot, abs=1e-12)
    assert EXERCISES["head_score__scaled_by_d_model"] == pytest.approx(dot / math.sqrt(8), abs=1e-12)
    assert EXERCISES["head_score__divided_by_d_head"] == pytest.approx(dot / d_head, abs=1e-12)


def test_exercise_per_head_params_at_1024_and_16():
    d_model, h = EXERCISES["big_d_model"], EXERCISES["big_h"]
    assert (d_model, h) == (1024, 16)  # the sizes the page's "check it yourself" names
    assert EXERCISES["big_d_k"] == d_model // h
    assert EXERCISES["per_head_params"] == h * d_model * (d_model // h) == d_model * d_model
    assert EXERCISES["per_head_params__one_head"] == d_model * (d_model // h)
    assert EXERCISES["per_head_params__full_width_heads"] == h * d_model * d_model
