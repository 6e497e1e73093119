"""Positional encoding: the formula, frequencies, the shift as a rotation, dot products, scale, and the pipelines.

Literature quoted on docs/positional-encoding.md, recorded here with its source:
- Vaswani et al., "Attention Is All You Need" (arXiv:1706.03762): section 3.5 (formula; "The wavelengths form a
  geometric progression from 2pi to 10000 * 2pi"; "for any fixed offset k, PE_{pos+k} can be represented as a linear
  function of PE_{pos}"; extrapolation hope), section 5.4 (dropout "to the sums of the embeddings and the positional
  encodings", P_drop = 0.1 for the base model), Table 3 row (E) (learned positional embedding: PPL 4.92, BLEU 25.7;
  base: 4.92, 25.8; newstest2013). Its "same dimension ... so that the two can be summed" is quoted on
  docs/order-matters.md (adding or concatenating) and checked in tests/chapters/test_order_matters.py.
- google-research/bert modeling.py: embedding_postprocessor adds token-type and position embeddings, then
  layer_norm_and_dropout; max_position_embeddings=512; initializer_range=0.02 (truncated normal).
- openai/gpt-2 src/model.py: h = tf.gather(wte, X) + tf.gather(wpe, positions_for(X, past_length));
  wpe stddev 0.01, wte stddev 0.02; LayerNorm ln_1 inside each block.
- tensorflow/models official/nlp/transformer/embedding_layer.py: shared weights N(0, hidden_size**-0.5), embeddings
  multiplied by hidden_size ** 0.5.
"""

import math
import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

from lib.attention import sinusoidal_positions
from lib.running_example import SENTENCE, tokenize
from support import REPO, positional_encoding, published, run_snippet

PAGE = re.sub(r"\s+", " ", (REPO / "docs" / "positional-encoding.md").read_text(encoding="utf-8"))


@pytest.mark.claim(
    "The vectorised sinusoidal encoding agrees with the formula of section 3.5, entry by entry",
    zh="向量化的正弦位置编码与第 3.5 节的公式逐项一致",
)
@given(p=st.integers(0, 1000), pair=st.integers(0, 255), half=st.integers(1, 64))
def test_core_matches_the_formula_oracle(p, pair, half):
    d_model = 2 * half
    pair = pair % half
    pe = sinusoidal_positions(p + 1, d_model)
    for dim in (2 * pair, 2 * pair + 1):
        assert math.isclose(pe[p, dim], positional_encoding(p, dim, d_model), rel_tol=1e-9, abs_tol=1e-9)


def test_the_snippet_loop_matches_the_core_module():
    pe_loop = run_snippet("positional_encoding/heatmap")["pe_loop"]
    np.testing.assert_allclose(pe_loop(50, 12), sinusoidal_positions(50, 12), atol=1e-12)
    assert published("positional_encoding/heatmap")["loop_max_error"] < 1e-13


@pytest.mark.claim(
    'After adding the encodings, "The" (position 0) and "the" (position 4) differ by exactly the distance '
    "between their encodings",
    zh="加上位置编码后，“The”（位置 0）与 “the”（位置 4）之差恰好等于它们的位置编码之间的距离",
)
def test_the_and_the_differ_only_by_their_encodings():
    values = published("positional_encoding/heatmap")
    assert values["the_embedding_difference"] == 0.0
    pe = sinusoidal_positions(5, 8)
    assert math.isclose(values["the_input_difference"], np.linalg.norm(pe[0] - pe[4]), rel_tol=1e-12)
    assert values["the_input_difference"] == values["the_pe_difference"]


@pytest.mark.claim(
    "Small dimension index means short wavelength and fast change: dimension 0 repeats every 2 pi "
    "positions, the last pair just under 10000 * 2 pi",
    zh="维度下标越小，波长越短、变化越快：维度 0 每 2 pi 个位置重复一次，最后一对略小于 10000 * 2 pi",
)
def test_small_index_is_high_frequency():
    d_model = 512
    pe = sinusoidal_positions(3000, d_model)
    change = np.abs(np.diff(pe, axis=0)).mean(axis=0)  # (d_model,)
    sines = change[0::2]
    assert np.all(np.diff(sines) < 0)  # every sine column changes less than the one before it
    # independent period estimate for dimension 0: the sine repeats after 2 pi, the nearest integer shifts miss
    assert np.max(np.abs(np.sin(np.arange(100) + 2 * np.pi) - np.sin(np.arange(100)))) < 1e-12
    values = published("positional_encoding/wavelengths")
    assert math.isclose(values["shortest"], 2 * math.pi, rel_tol=1e-12)
    assert math.isclose(values["period_dim0_measured"], 2 * math.pi, rel_tol=1e-3)
    assert values["longest"] < values["paper_upper"] == 10000 * 2 * math.pi
    assert math.isclose(values["longest"], 2 * math.pi * 10000 ** (510 / 512), rel_tol=1e-12)
    assert values["change_dim0"] > 1000 * values["change_last"]
    assert values["small_change_dim0"] > 100 * values["small_change_dim6"]


@pytest.mark.claim(
    "PE(p + k) = M_k PE(p) for every position p, with one orthogonal block-diagonal M_k per offset k",
    zh="对每个位置 p 都有 PE(p + k) = M_k PE(p)，每个偏移 k 对应一个正交的分块对角矩阵 M_k",
)
@pytest.mark.parametrize("d_model,k", [(8, 1), (16, 5), (16, 31), (64, 7)])
def test_shift_is_one_linear_map_found_by_least_squares(d_model, k):
    """Fit a linear map from the data alone, on two separate sets of positions: it is exact, the same, orthogonal.

    Positions are spread up to 10^6 so that even the slowest pair turns many times; the encodings come from the
    one-number-at-a-time oracle, not from the core module.
    """
    rng = np.random.default_rng(d_model + k)
    fits = []
    for low, high in ((0, 500_000), (500_000, 1_000_000)):
        positions = rng.integers(low, high, size=6 * d_model)
        src = np.array([[positional_encoding(p, i, d_model) for i in range(d_model)] for p in positions])
        dst = np.array([[positional_encoding(p + k, i, d_model) for i in range(d_model)] for p in positions])
        m, *_ = np.linalg.lstsq(src, dst, rcond=None)  # dst = src @ m
        np.testing.assert_allclose(src @ m, dst, atol=1e-8)
        fits.append(m.T)
    np.testing.assert_allclose(fits[0], fits[1], atol=1e-8)
    np.testing.assert_allclose(fits[0].T @ fits[0], np.eye(d_model), atol=1e-8)
    if d_model == 16:
        shift_matrix = run_snippet("positional_encoding/relative")["shift_matrix"]
        np.testing.assert_allclose(shift_matrix(k), fits[0], atol=1e-8)


def test_published_rotation_values():
    values = published("positional_encoding/relative")
    assert values["rotation_max_error"] < 1e-13
    assert values["rotation_orthogonal_error"] < 1e-14


@pytest.mark.claim(
    "PE(p) . PE(q) depends only on p - q, and equals the sum over pairs of cos(omega_i (p - q))",
    zh="PE(p) . PE(q) 只依赖于 p - q，并等于对各维度对求和的 cos(omega_i (p - q))",
)
@given(p=st.integers(0, 300), q=st.integers(0, 300), shift=st.integers(0, 300), half=st.integers(1, 32))
def test_dot_product_depends_only_on_the_offset(p, q, shift, half):
    d_model = 2 * half
    pe = sinusoidal_positions(601, d_model)
    assert math.isclose(pe[p] @ pe[q], pe[p + shift] @ pe[q + shift], abs_tol=1e-9)
    cosines = sum(math.cos((p - q) / 10000 ** (2 * i / d_model)) for i in range(half))
    assert math.isclose(pe[p] @ pe[q], cosines, abs_tol=1e-9)


def test_dot_product_is_not_monotone_in_distance():
    values = published("positional_encoding/relative")
    assert values["valley_offset"] < values["peak_offset"]
    assert values["valley_dot"] < values["peak_dot"]
    pe = sinusoidal_positions(64, 16)
    assert pe[0] @ pe[values["valley_offset"]] < pe[0] @ pe[values["peak_offset"]]


@pytest.mark.claim(
    "Every encoding has norm sqrt(d_model / 2) and largest entry exactly 1, so dividing by the maximum changes nothing",
    zh="每个位置编码的范数都是 sqrt(d_model / 2)，最大分量恰好为 1，所以除以最大值不改变任何东西",
)
@given(n=st.integers(1, 200), half=st.integers(1, 128))
def test_norm_and_the_max_normalisation_no_op(n, half):
    pe = sinusoidal_positions(n, 2 * half)
    np.testing.assert_allclose(np.linalg.norm(pe, axis=-1), math.sqrt(half), rtol=1e-12)
    assert np.max(np.abs(pe)) == 1.0  # cos(0) at position 0, exactly
    np.testing.assert_array_equal(pe / np.max(np.abs(pe)), pe)


def test_published_scale_values():
    values = published("positional_encoding/scale")
    assert values["pe_peak"] == 1.0 and values["fix_max_change"] == 0.0
    assert values["pe_norm"] == 2.0 and values["pe_norm_spread"] < 1e-12
    assert math.isclose(values["pe_rms"], math.sqrt(0.5), rel_tol=1e-12)
    assert math.isclose(values["paper_pos_norm"], 16.0, rel_tol=1e-12)  # sqrt(512 / 2)
    assert 20 < values["paper_tok_norm"] < 25  # sqrt(512) * (unit-variance entries)
    assert math.isclose(values["bert_out_norm"], math.sqrt(768), rel_tol=1e-6)
    assert 1.5 < values["gpt2_tok_norm"] / values["gpt2_pos_norm"] < 2.5  # init std 0.02 vs 0.01


@pytest.mark.claim(
    "BERT's LayerNorm after the sum, at its initial gain 1 and bias 0, gives every input row norm sqrt(d_model); "
    "the original Transformer and GPT-2 have no LayerNorm there",
    zh="BERT 在求和之后做层归一化，取初始的增益 1、偏置 0 时使每个输入行的范数为 sqrt(d_model)；"
    "原始 Transformer 和 GPT-2 在该处没有层归一化",
)
def test_pipelines():
    ns = run_snippet("positional_encoding/scale")
    rng = np.random.default_rng(9)
    tables = [rng.normal(size=shape) * s for shape, s in (((50, 24), 3.0), ((2, 24), 1.0), ((30, 24), 0.1))]
    ids = rng.integers(50, size=10)
    tok, pos, out = ns["bert_input"](ids, np.zeros_like(ids), *tables, rng)
    np.testing.assert_allclose(np.linalg.norm(out, axis=-1), math.sqrt(24), rtol=1e-9)
    tok, pos, out = ns["gpt2_input"](ids, tables[0], tables[2])
    np.testing.assert_array_equal(out, tables[0][ids] + tables[2][:10])
    emb = rng.normal(size=(50, 24))
    tok, pos, out = ns["transformer_input"](ids, emb, 24, rng)  # inference: dropout off
    np.testing.assert_allclose(out, emb[ids] * math.sqrt(24) + sinusoidal_positions(10, 24), rtol=1e-15)
    _, _, trained = ns["transformer_input"](ids, emb, 24, np.random.default_rng(0), training=True)
    dropped = trained == 0
    assert 0 < dropped.mean() < 0.3  # dropout 0.1 zeroes about a tenth of the entries
    np.testing.assert_allclose(trained[~dropped], out[~dropped] / 0.9)


def test_literature_quotes():
    assert '"The wavelengths form a geometric progression from $2\\pi$ to $10000 \\cdot 2\\pi$."' in PAGE
    assert '"for any fixed offset $k$, $PE_{pos+k}$ can be represented as a linear function of $PE_{pos}$"' in PAGE
    assert (
        '"because it may allow the model to extrapolate to sequence lengths longer than the ones '
        'encountered during training"'
    ) in PAGE
    assert (
        '"dropout to the sums of the embeddings and the positional encodings in both the encoder '
        'and decoder stacks", with $P_{drop} = 0.1$ for the base model'
    ) in PAGE
    assert "Table 3, row (E), reports 25.7 BLEU (perplexity 4.92) on newstest2013 against 25.8 (4.92)" in PAGE
    # BERT modeling.py: initializer_range=0.02, max_position_embeddings=512; GPT-2 model.py: wte 0.02, wpe 0.01
    assert "truncated normal with standard deviation 0.02 (`initializer_range`)" in PAGE
    assert "`max_position_embeddings` rows (512 by default)" in PAGE
    assert "`wte` with standard deviation 0.02 and `wpe` with 0.01" in PAGE
    assert "`h = tf.gather(wte, X) + tf.gather(wpe, positions_for(X, past_length))`" in PAGE


@pytest.mark.claim(
    "Shuffling the words only moves the output rows when every word may attend to every other; "
    "with a causal mask the rows change, and the question says so",
    zh="只有当每个词都能关注其他所有词时，打乱词序才只是移动输出行；加上因果掩码后各行本身会改变，题目中也这样说",
)
def test_shuffle_moves_rows_only_without_a_causal_mask():
    from support import W, X, attend, causal

    order = np.random.default_rng(2103).permutation(len(X))
    plain, _ = attend(X, W)
    shuffled, _ = attend(X[order], W)
    np.testing.assert_allclose(shuffled, plain[order], atol=1e-12)
    masked, _ = attend(X, W, causal(len(X)))
    masked_shuffled, _ = attend(X[order], W, causal(len(X)))
    assert np.abs(masked_shuffled - masked[order]).max() > 0.1  # the old wording's "each word ... same row" fails
    assert published("order_matters/permutation")["mask_equivariance_error"] > 0.1
    question = " ".join(PAGE.split("**The intuition.**")[0].split())
    assert "as long as every word may attend to every other, each word gets the same output row" in question
    assert "a [causal mask](masks.md), which comes later, breaks it" in question


def test_the_heatmap_alt_text_says_how_far_the_right_half_moves():
    """The heatmap's alt text once called the right half "almost constant": over positions 0 to 63 at d_model = 128
    its first sine column moves by more than half of the scale. Recomputed with the formula oracle; both editions'
    alt texts quote the snippet's numbers."""
    values = published("positional_encoding/heatmap")
    n, d = values["heat_positions"], values["heat_d_model"]
    moves = [
        max(column) - min(column) for column in ([positional_encoding(p, dim, d) for p in range(n)] for dim in range(d))
    ]
    first, still, threshold = values["right_half_first"], values["still_from"], values["still_threshold"]
    assert first == d // 2 and values["right_half_sine_range"] == pytest.approx(moves[first], abs=1e-12)
    assert moves[first] > 0.5  # the premise of "almost constant" fails
    assert min(moves[first:still:2]) >= threshold > max(moves[still:])  # sine columns before `still` move, none after
    assert moves[still - 1] >= threshold  # the last column that moves that far
    for edition in ("docs", "docs-zh"):
        page = (REPO / edition / "positional-encoding.md").read_text(encoding="utf-8")
        (alt,) = re.findall(r"!\[([^\]]*)\]\(generated/positional_encoding/heatmap/pe-heatmap\.svg\)", page)
        for name in ("right_half_first", "right_half_sine_range", "still_from", "still_threshold"):
            assert f"{{{{ positional_encoding.heatmap.{name} }}}}" in alt, (edition, name)
        assert "almost constant" not in alt and "几乎不变" not in alt


def test_the_wavelength_panel_does_not_say_its_highest_dimension_barely_moves():
    """The right panel's title once said high dimensions "barely move": its highest drawn dimension, d_model / 2,
    covers more than half of its range over positions 0 to 60. The title now says only that higher ones turn slower."""
    d = published("positional_encoding/wavelengths")["d_model"]
    column = [positional_encoding(p, d // 2, d) for p in range(61)]
    assert max(column) - min(column) > 0.5
    figures = REPO / "docs" / "generated" / "positional_encoding" / "wavelengths"
    for name, old, new in (("wavelengths.svg", "barely move", "Higher"), ("wavelengths.zh.svg", "几乎不动", "越慢")):
        svg = (figures / name).read_text(encoding="utf-8")
        assert old not in svg and new in svg, name


def test_the_layernorm_row_norm_is_sqrt_d_model_only_at_its_initial_gain_and_bias():
    """The page once said BERT's rows have norm sqrt(d_model) after LayerNorm "whatever the tables hold": that holds
    at gain 1 and bias 0 (the snippet's LayerNorm, their initial values); a learned gain or bias changes the norm."""
    rows = np.random.default_rng(11).normal(size=(5, 768)) * 3.0
    centred = rows - rows.mean(-1, keepdims=True)
    normed = centred / rows.std(-1, keepdims=True)
    np.testing.assert_allclose(np.linalg.norm(normed, axis=-1), math.sqrt(768), rtol=1e-9)
    gain, bias = np.linspace(0.5, 1.5, 768), 0.1
    assert np.all(np.abs(np.linalg.norm(gain * normed + bias, axis=-1) - math.sqrt(768)) > 0.1)
    for edition, words in (("docs", "initial gain 1 and bias 0"), ("docs-zh", "初始的增益 1、偏置 0")):
        page = " ".join((REPO / edition / "positional-encoding.md").read_text(encoding="utf-8").split())
        assert words in page, edition


def test_closer_is_larger_only_up_to_an_offset_that_depends_on_the_width():
    """The page once said "closer positions have larger dot products" holds "only over the first few offsets": the
    offset after which the dot product first rises again is 3 at d_model = 16 and grows with the width, so the page
    names the width it measured."""

    def first_rise(d_model):
        pe = sinusoidal_positions(64, d_model)
        return int(np.argmax(np.diff(pe @ pe[0]) > 0))

    values = published("positional_encoding/relative")
    assert first_rise(values["pe_d_model"]) == values["valley_offset"] < first_rise(128) < first_rise(512)
    assert "holds only over the first few" not in PAGE
    assert 'At $d_{\\text{model}} = {{ positional_encoding.relative.pe_d_model }}$, "closer positions' in PAGE


def test_the_orthogonality_error_is_named_for_the_matrix_it_measures():
    """The snippet measures M_5^T M_5 - I only; the page once quoted it for every M_k."""
    source = (REPO / "snippets" / "positional_encoding" / "relative.py").read_text(encoding="utf-8")
    assert "m_5 = shift_matrix(5)" in source and "m_5.T @ m_5" in source
    assert "$M_5^\\top M_5 = I$ to within {{ positional_encoding.relative.rotation_orthogonal_error }}" in PAGE
    assert "$M_k$ is orthogonal ($M_k^\\top M_k = I$ to within" not in PAGE


# ---------------------------------------------------------------- exercises


def pe_row(p, d_model):
    return [positional_encoding(p, dim, d_model) for dim in range(d_model)]


def test_exercise_entry_past_the_printed_positions():
    values = published("positional_encoding/exercises")
    p, dim, d = values["entry_position"], values["entry_dimension"], values["d_model"]
    assert d == 8 and dim % 2 == 0  # the solution says the dimension is even and holds a sine
    angle = p / 10000 ** (2 * (dim // 2) / d)
    assert abs(values["entry_angle"] - angle) < 1e-12
    assert abs(values["entry"] - positional_encoding(p, dim, d)) < 1e-12
    assert abs(values["entry__degrees"] - math.sin(angle * math.pi / 180)) < 1e-12
    assert abs(values["entry__sin_cos_swapped"] - math.cos(angle)) < 1e-12
    assert abs(values["entry__dimension_as_pair_index"] - math.sin(p / 10000 ** (2 * dim / d))) < 1e-12


def test_exercise_wavelength_of_a_pair():
    values = published("positional_encoding/exercises")
    i, d = values["wavelength_pair"], values["d_model"]
    sine = [positional_encoding(t, 2 * i, d) for t in range(1000)]
    back = next(t for t in range(1, 999) if sine[t] < 0 <= sine[t + 1])  # the sine turns positive again
    assert back < values["wavelength"] <= back + 1  # after one wavelength
    assert abs(values["wavelength"] - 2 * math.pi * 10000 ** (2 * i / d)) < 1e-9
    assert abs(values["wavelength_omega"] - 10000 ** (-2 * i / d)) < 1e-15
    assert abs(values["wavelength__left_out_two_pi"] - 10000 ** (2 * i / d)) < 1e-9
    assert abs(values["wavelength__frequency"] - 10000 ** (-2 * i / d)) < 1e-15
    assert abs(values["wavelength__exponent_without_two"] - 2 * math.pi * 10000 ** (i / d)) < 1e-9


def test_exercise_dot_product_of_two_printed_encodings():
    values = published("positional_encoding/exercises")
    p, q, d = values["dot_first"], values["dot_second"], values["d_model"]
    assert max(p, q) < len(tokenize(SENTENCE))  # rows the page prints
    assert values["dot_offset"] == q - p
    a, b = pe_row(p, d), pe_row(q, d)
    assert abs(values["dot"] - sum(x * y for x, y in zip(a, b))) < 1e-12
    printed = sum(round(x, 3) * round(y, 3) for x, y in zip(a, b))  # the solution: the printed rows agree
    assert f"{printed:.2f}" == f"{values['dot']:.2f}"
    angles = [(p + q) / 10000 ** (2 * i / d) for i in range(d // 2)]
    assert abs(values["dot__p_plus_q"] - sum(math.cos(x) for x in angles)) < 1e-12
    assert abs(values["dot__cosine_per_dimension"] - 2 * values["dot"]) < 1e-12


def test_exercise_norm_at_512():
    values = published("positional_encoding/exercises")
    d, p = values["norm_d_model"], values["norm_position"]
    squared = sum(x * x for x in pe_row(p, d))
    assert values["norm_pairs"] == d // 2 and abs(squared - d / 2) < 1e-9
    assert abs(values["norm"] - math.sqrt(squared)) < 1e-12
    assert abs(values["norm__squared"] - squared) < 1e-9
    assert abs(values["norm__entries_of_size_one"] - math.sqrt(d)) < 1e-12


def test_exercise_dot_product_states_the_offset_with_its_sign():
    """The solution writes the offset as the published dot_offset = dot_second - dot_first (q - p, positive); p - q
    is its negative, so an equation "p - q = dot_offset" would be false (the cosine being even, the sum is not)."""
    values = published("positional_encoding/exercises")
    p, q = values["dot_first"], values["dot_second"]
    assert values["dot_offset"] == q - p and p - q != values["dot_offset"]
    for folder in ("docs", "docs-zh"):
        page = (REPO / folder / "positional-encoding.md").read_text(encoding="utf-8")
        assert "$q - p = {{ positional_encoding.exercises.dot_offset }}$" in page
        assert "p - q = {{ positional_encoding.exercises.dot_offset }}" not in page
