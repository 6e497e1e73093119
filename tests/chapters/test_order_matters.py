"""Order matters: self-attention without positions is permutation-equivariant; pooling makes it invariant;
positional encodings and a causal mask break both. Oracles: the loop implementation in tests/support.py.

Literature named on docs/order-matters.md: Vaswani et al., "Attention Is All You Need" (arXiv:1706.03762),
section 3.5: the positional encodings "have the same dimension d_model as the embeddings, so that the two can be
summed". Haviv et al. (2022), "Transformer Language Models without Positional
Encodings Still Learn Positional Information", Findings of EMNLP 2022 (abstract: "causal attention enables the
model to infer the number of predecessors that each token can attend to").
"""

import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

from lib.attention import apply_rope, causal_mask, multi_head_attention, sinusoidal_positions
from support import REPO, attend, oracle_attention, published

PAGE = re.sub(r"\s+", " ", (REPO / "docs" / "order-matters.md").read_text(encoding="utf-8"))


def loop_self_attention(x, w_q, w_k, w_v, mask=None):
    """Self-attention through the loop oracle (shares no code with snippets/lib/attention.py)."""
    out, _ = oracle_attention(
        (x @ w_q).tolist(), (x @ w_k).tolist(), (x @ w_v).tolist(), None if mask is None else mask.tolist()
    )
    return np.array(out)


def setup(seed, length, d):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(length, d))
    weights = [rng.normal(scale=d**-0.5, size=(d, d)) for _ in range(3)]
    return rng, x, weights


@pytest.mark.claim(
    "Without positions, self-attention is permutation-equivariant: permuting the input rows permutes the "
    "output rows, each row unchanged",
    zh="没有位置信息时，自注意力是置换等变的：置换输入行就会置换输出行，每一行本身不变",
)
@given(seed=st.integers(0, 2**32 - 1), length=st.integers(2, 8), d=st.integers(1, 5))
def test_self_attention_is_permutation_equivariant(seed, length, d):
    rng, x, w = setup(seed, length, d)
    perm = rng.permutation(length)
    np.testing.assert_allclose(
        loop_self_attention(x[perm], *w), loop_self_attention(x, *w)[perm], rtol=1e-10, atol=1e-12
    )


@pytest.mark.claim(
    "The mean over positions of the self-attention output is permutation-invariant",
    zh="自注意力输出在各位置上的平均值是置换不变的",
)
@given(seed=st.integers(0, 2**32 - 1), length=st.integers(2, 8), d=st.integers(1, 5))
def test_mean_pooled_output_is_permutation_invariant(seed, length, d):
    rng, x, w = setup(seed, length, d)
    perm = rng.permutation(length)
    np.testing.assert_allclose(
        loop_self_attention(x[perm], *w).mean(0), loop_self_attention(x, *w).mean(0), rtol=1e-10, atol=1e-12
    )


def test_multi_head_attention_is_equivariant_too():
    rng, x, _ = setup(3, 6, 8)
    w = [rng.normal(scale=8**-0.5, size=(8, 8)) for _ in range(4)]
    for _ in range(20):
        perm = rng.permutation(6)
        out_p, weights_p = multi_head_attention(x[perm], *w, n_heads=4)
        out, weights = multi_head_attention(x, *w, n_heads=4)
        np.testing.assert_allclose(out_p, out[perm], atol=1e-12)
        np.testing.assert_allclose(weights_p, weights[:, perm][:, :, perm], atol=1e-12)


@pytest.mark.claim(
    "Self-attention is not permutation-invariant: position by position, the outputs of the two sentences differ",
    zh="自注意力不是置换不变的：逐个位置比较，两个句子的输出并不相同",
)
def test_self_attention_is_not_invariant():
    values = published("order_matters/permutation")
    assert values["invariance_error"] > 0.1
    _, x, w = setup(3, 7, 8)
    swapped = x[[0, 5, 2, 3, 4, 1, 6]]  # "cat" and "mat" trade places
    assert np.abs(loop_self_attention(swapped, *w) - loop_self_attention(x, *w)).max() > 1e-3
    assert values["equivariance_error"] < 1e-14 and values["pooled_error"] < 1e-14
    assert values["weights_error"] < 1e-14 and values["cat_row_error"] < 1e-14
    assert values["multihead_equivariance_error"] < 1e-14
    assert values["swapped_sentence"] == "The mat sat on the cat."


@pytest.mark.claim(
    "Adding positional encodings, or a causal mask, breaks permutation equivariance",
    zh="加上位置编码或因果掩码都会破坏置换等变性",
)
def test_positions_and_causal_mask_break_equivariance():
    rng, x, w = setup(8, 7, 8)
    pe = sinusoidal_positions(7, 8)
    mask = causal_mask(7)
    perm = np.array([0, 5, 2, 3, 4, 1, 6])
    with_pe = loop_self_attention(x[perm] + pe, *w) - loop_self_attention(x + pe, *w)[perm]
    with_mask = loop_self_attention(x[perm], *w, mask) - loop_self_attention(x, *w, mask)[perm]
    assert np.abs(with_pe).max() > 1e-3
    assert np.abs(with_mask).max() > 1e-3
    values = published("order_matters/permutation")
    for name in ("pe_equivariance_error", "pe_pooled_error", "mask_equivariance_error", "mask_pooled_error"):
        assert values[name] > 0.01, name


def rotary_self_attention(x, w_q, w_k, w_v, positions):
    """Self-attention with rotary positions: nothing added to the input, queries and keys rotated by position."""
    q, k = apply_rope(x @ w_q, positions), apply_rope(x @ w_k, positions)
    return np.array(oracle_attention(q.tolist(), k.tolist(), (x @ w_v).tolist())[0])


def test_position_inside_attention_breaks_equivariance_too():
    """The page names the two things it measures and does not call them the only ones: rotary positions, applied to
    queries and keys inside attention with nothing added to the input, break the symmetry as well."""
    _, x, w = setup(8, 7, 8)
    perm = np.array([0, 5, 2, 3, 4, 1, 6])
    positions = np.arange(7)
    error = rotary_self_attention(x[perm], *w, positions) - rotary_self_attention(x, *w, positions)[perm]
    assert np.abs(error).max() > 1e-3
    assert "Two things measured here give the layer a sense of order" in PAGE
    assert "[Rotary embeddings](rotary.md)" in PAGE


def test_swapping_identical_tokens_changes_nothing_without_positions():
    """The page's "check it yourself": "The" and "the" share a vector, so exchanging them leaves the input as it is."""
    from lib.running_example import SENTENCE, embed, tokenize

    x = embed(tokenize(SENTENCE))
    perm = np.array([4, 1, 2, 3, 0, 5, 6])
    np.testing.assert_array_equal(x[perm], x)
    pe = sinusoidal_positions(7, 8)
    assert not np.array_equal((x + pe)[perm], x + pe)


def test_the_page_uses_the_precise_words():
    assert "**permutation-equivariant**" in PAGE and "**permutation-invariant**" in PAGE
    assert "That is equivariance." in PAGE
    assert "Transformer Language Models without Positional Encodings Still Learn Positional Information" in PAGE
    assert '"have the same dimension $d_{\\text{model}}$ as the embeddings, so that the two can be summed"' in PAGE


@pytest.mark.claim(
    "Projecting a concatenation [x, PE] equals two projections added; adding x + PE is the tied case",
    zh="对拼接 [x, PE] 做投影等于两个投影相加；直接相加 x + PE 是两者共用权重的情形",
)
def test_concatenation_is_two_projections_added():
    rng = np.random.default_rng(4)
    x, pe, w = rng.normal(size=(7, 8)), sinusoidal_positions(7, 8), rng.normal(size=(16, 5))
    np.testing.assert_allclose(np.hstack([x, pe]) @ w, x @ w[:8] + pe @ w[8:], atol=1e-13)
    np.testing.assert_allclose(np.hstack([x, pe]) @ np.vstack([w[:8], w[:8]]), (x + pe) @ w[:8], atol=1e-13)
    values = published("order_matters/add_vs_concat")
    assert max(values["concat_split_error"], values["tied_add_error"], values["four_term_error"]) < 1e-13


@pytest.mark.claim(
    "The intuition's 'the output is shuffled as the input was' is stated for no causal mask; with "
    "one, the equivariance error is of order 1",
    zh="直观解释中“输出按输入的方式被打乱”是针对无因果掩码的情形说的；加上因果掩码时，等变误差在 1 的量级",
)
def test_intuition_names_the_causal_mask_exception():
    assert published("order_matters/permutation")["mask_equivariance_error"] > 0.1
    intuition = PAGE.split("**The intuition.**")[1].split("##")[0]
    assert "as long as no [causal mask](masks.md)" in intuition
    assert "shuffled exactly as the input was" not in intuition


# ------------------------------------------------------------------ the exercises (snippets/order_matters/exercises.py)
EXERCISES = published("order_matters/exercises")


def running_tokens_and_x():
    from lib.running_example import SENTENCE, embed, projection_weights, tokenize

    tokens = tokenize(SENTENCE)
    return tokens, embed(tokens), projection_weights()


def test_exercise_shuffled_tokens_reads_perm_forwards():
    tokens, _, _ = running_tokens_and_x()
    perm = EXERCISES["perm"]
    forwards = [tokens[perm[i]] for i in range(len(perm))]  # new position i takes token perm[i]
    backwards = [None] * len(perm)
    for i, target in enumerate(perm):  # token i sent to position perm[i]
        backwards[target] = tokens[i]
    assert EXERCISES["shuffled_tokens"] == forwards
    assert EXERCISES["shuffled_tokens__inverse"] == backwards


def test_exercise_moved_weight_is_the_original_weight_of_the_same_two_words():
    tokens, x, w = running_tokens_and_x()
    perm = EXERCISES["perm"]
    _, original = attend(x, w)
    _, shuffled = attend(x[perm], w)
    query, key = EXERCISES["query_position"], EXERCISES["key_position"]
    assert [tokens[perm[query]], tokens[perm[key]]] == ["sat", "cat"]
    before = {"query": tokens.index("sat"), "key": tokens.index("cat")}
    assert [EXERCISES["query_position_before"], EXERCISES["key_position_before"]] == list(before.values())
    inverse = [perm.index(i) for i in range(len(perm))]
    assert EXERCISES["moved_weight"] == pytest.approx(shuffled[query][key], abs=1e-12)
    assert EXERCISES["moved_weight"] == pytest.approx(original[before["query"]][before["key"]], abs=1e-12)
    assert EXERCISES["moved_weight__positions_kept"] == pytest.approx(original[query][key], abs=1e-12)
    assert EXERCISES["moved_weight__rows_only"] == pytest.approx(original[perm[query]][key], abs=1e-12)
    assert EXERCISES["moved_weight__inverse"] == pytest.approx(original[inverse[query]][inverse[key]], abs=1e-12)


def test_exercise_causal_keys_are_those_of_the_position():
    tokens, _, _ = running_tokens_and_x()
    swapped = published("order_matters/permutation")["swapped_sentence"].replace(".", " .").split()
    where = swapped.index("cat")
    assert EXERCISES["cat_position_swapped"] == where
    assert EXERCISES["causal_keys"] == [swapped[j] for j in range(len(swapped)) if j <= where]
    assert EXERCISES["causal_keys__mask_moved"] == [tokens[j] for j in range(len(tokens)) if j <= tokens.index("cat")]
    assert EXERCISES["causal_keys__without_itself"] == [swapped[j] for j in range(len(swapped)) if j < where]


def test_exercise_concat_params_counts_three_matrices_of_the_concatenation():
    d = EXERCISES["d_wide"]
    assert EXERCISES["concat_width"] == 2 * d
    assert EXERCISES["concat_params"] == 3 * (2 * d) * d
    assert EXERCISES["concat_params__added"] == 3 * d * d
    assert EXERCISES["concat_params__one_matrix"] == (2 * d) * d
    assert EXERCISES["concat_params__wider_output"] == 3 * (2 * d) * (2 * d)


@pytest.mark.parametrize("folder, says", [("docs", "case matters"), ("docs-zh", "区分大小写")])
def test_a_question_whose_answer_has_words_differing_only_in_case_says_case_matters(folder, says):
    from scripts.exercises import exercises

    asked = exercises((REPO / folder / "order-matters.md").read_text(encoding="utf-8"))
    cased = [
        e for e in asked if isinstance(EXERCISES[e.name], list) and all(isinstance(w, str) for w in EXERCISES[e.name])
    ]
    cased = [e for e in cased if len({w.lower() for w in EXERCISES[e.name]}) < len(set(EXERCISES[e.name]))]
    assert {e.name for e in cased} >= {"causal_keys"}  # "The" and "the" both among the keys
    assert all(says in e.question for e in cased), [e.name for e in cased if says not in e.question]


@pytest.mark.parametrize(
    "folder, names", [("docs", '("The cat sat on the mat.")'), ("docs-zh", "（“The cat sat on the mat.”）")]
)
def test_the_heatmap_exercise_2_reads_is_the_first_figure_the_one_of_the_running_sentence(folder, names):
    from scripts.exercises import exercises

    markdown = (REPO / folder / "order-matters.md").read_text(encoding="utf-8")
    first_figure = re.search(r"!\[[^\]]*\]\(([^)]*)\)", markdown).group(1)
    assert first_figure.endswith("permutation/swap-weights.svg")  # its left heatmap: the original sentence's weights
    (question,) = [e.question for e in exercises(markdown) if e.name == "moved_weight"]
    assert names in question
    assert published("order_matters/permutation")["swapped_sentence"] != "The cat sat on the mat."
