"""The cross-attention chapter: cross-attention against plain loops, the source padding mask, its shapes and errors,
the source's keys and values computed once while the target is generated, and the exercises against oracles."""

import math

import numpy as np
import pytest

from lib.attention import padding_mask
from lib.encoder_decoder import cross_attention, source_keys_values
from support import flat_page, oracle_attention, published, published_table, run_snippet


def cross_oracle(x, memory, w_q, w_k, w_v, w_o, n_heads, source_lengths):
    """Loops from the definition: per sentence and head, queries from x, keys and values from memory."""
    batch, l_q, d_model = x.shape
    l_k, d_head = memory.shape[1], d_model // n_heads
    outputs, weights = [], []
    for b in range(batch):
        allowed = [[j < source_lengths[b] for j in range(l_k)] for _ in range(l_q)]
        heads, head_weights = [], []
        for head in range(n_heads):
            cols = slice(head * d_head, (head + 1) * d_head)
            out, w = oracle_attention(
                (x[b] @ w_q[:, cols]).tolist(),
                (memory[b] @ w_k[:, cols]).tolist(),
                (memory[b] @ w_v[:, cols]).tolist(),
                allowed,
            )
            heads.append(np.array(out))
            head_weights.append(w)
        outputs.append(np.hstack(heads) @ w_o)
        weights.append(head_weights)
    return np.array(outputs), np.array(weights)


@pytest.mark.claim(
    "Cross-attention (queries from one sequence, keys and values from another, a source padding mask) "
    "equals plain loops over queries and keys, with L_q != L_k",
    zh="交叉注意力（查询来自一个序列，键和值来自另一个序列，加上源序列填充掩码）在 L_q != L_k "
    "时等于对查询和键的普通循环",
)
@pytest.mark.parametrize("l_q,l_k,n_heads", [(1, 6, 2), (4, 7, 2), (5, 3, 4)])
def test_cross_attention_against_loops(l_q, l_k, n_heads):
    rng = np.random.default_rng(l_q * 10 + l_k)
    d_model = 8
    w_q, w_k, w_v, w_o = rng.normal(scale=d_model**-0.5, size=(4, d_model, d_model))
    x, memory = rng.normal(size=(2, l_q, d_model)), rng.normal(size=(2, l_k, d_model))
    lengths = np.array([l_k, max(1, l_k - 2)])
    out, weights = cross_attention(
        x, source_keys_values(memory, w_k, w_v, n_heads), w_q, w_o, n_heads, padding_mask(lengths, l_k)
    )
    want_out, want_w = cross_oracle(x, memory, w_q, w_k, w_v, w_o, n_heads, lengths)
    assert weights.shape == (2, n_heads, l_q, l_k) and out.shape == (2, l_q, d_model)
    np.testing.assert_allclose(weights, want_w, atol=1e-12)
    np.testing.assert_allclose(out, want_out, atol=1e-12)


def test_wrong_masks_and_shapes_are_refused_with_their_shapes():
    rng = np.random.default_rng(0)
    w = rng.normal(size=(4, 8, 8))
    kv = source_keys_values(rng.normal(size=(2, 7, 8)), w[1], w[2], 2)
    x = rng.normal(size=(2, 4, 8))
    with pytest.raises(
        ValueError, match=r"mask of shape \(2, 1, 1, 4\) does not broadcast to the scores' shape \(2, 2, 4, 7\)"
    ):
        cross_attention(x, kv, w[0], w[3], 2, padding_mask(np.array([4, 2]), 4))  # a mask over the target's length
    with pytest.raises(ValueError, match=r"source_mask must be \(\.\.\., L_q or 1, L_k\), got shape \(7,\)"):
        cross_attention(x, kv, w[0], w[3], 2, np.ones(7, dtype=bool))
    with pytest.raises(ValueError, match="the source keys have 2 heads"):
        cross_attention(x, kv, w[0], w[3], 4)
    with pytest.raises(ValueError, match=r"x must be \(\.\.\., L_q, d_model\) with d_model = 8, got shape \(2, 4, 6\)"):
        cross_attention(x[..., :6], kv, w[0], w[3], 2)


@pytest.mark.claim(
    "In every sentence of the batch, the first target word has weight on every source word in every head and none "
    "on the padding",
    zh="在批量中的每个句子里，第一个目标词在每个头中都给每个源词一些权重，而不给填充位置任何权重",
)
def test_the_first_target_word_sees_every_sentence_source():
    snippet = run_snippet("cross_attention/attend")
    weights, lengths = snippet["weights"], snippet["lengths"]
    assert len(lengths) > 1 and min(lengths) < max(lengths)  # more than one sentence, one of them padded
    for sentence, length in enumerate(lengths):
        first = weights[sentence, :, 0, :]  # (h, L_k)
        assert (first[:, :length] > 0).all() and (first[:, length:] == 0).all(), f"sentence {sentence}"
    assert published("cross_attention/attend")["first_query_sees_whole_source"] is True


def test_the_snippet_values_describe_its_weights_and_figure():
    snippet = run_snippet("cross_attention/attend")
    weights, lengths = snippet["weights"], snippet["lengths"]
    values = published("cross_attention/attend")
    assert weights.shape == (values["batch_size"], values["n_heads"], values["l_q"], values["l_k"])
    assert values["l_q"] != values["l_k"]  # rectangular: the figure is not square
    assert values["l_k"] - values["source_2_length"] == 3  # the alt text's "three pad columns"
    assert values["max_pad_weight"] == 0.0 and (weights[1][..., lengths[1] :] == 0).all()
    assert (weights[0] > 0).all()  # sentence 1 (no padding): every cell carries weight, the first row too
    assert values["first_query_sees_whole_source"] is True and values["rows_sum_to_one"] is True
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0)
    # the figure's rows are the target tokens (queries), its columns the source tokens (keys)
    assert (
        values["target_1"].split() == snippet["targets"][0] and values["source_2"].split() == snippet["src_tokens"][1]
    )


def test_the_shapes_table_follows_from_the_symbols():
    values = published("cross_attention/attend")
    sizes = {
        "B": values["batch_size"],
        "h": values["n_heads"],
        "L_q": values["l_q"],
        "L_k": values["l_k"],
        "d_model": 8,
        "d_head": 8 // values["n_heads"],
    }
    for row in published_table("cross_attention/attend", "shapes"):
        symbols = row["shape in symbols"].strip("()").split(", ")
        assert row["shape here"] == str(tuple(int(s) if s.isdigit() else sizes[s] for s in symbols)), row


@pytest.mark.claim(
    "Generating with cross-attention, the source's keys and values are projected once and the steps "
    "equal one call on the whole target",
    zh="用交叉注意力生成时，源序列的键和值只投影一次，逐步计算等于对整个目标序列的一次调用",
)
def test_decoding_reuses_the_source_keys_and_values():
    snippet = run_snippet("cross_attention/decode")
    values = published("cross_attention/decode")
    assert values["max_error"] < 1e-12
    l_q, l_k, d = values["l_q"], values["l_k"], values["d_model"]
    assert values["projections_once"] == 2 * l_k * d * d and values["projections_every_step"] == l_q * 2 * l_k * d * d
    rows = published_table("cross_attention/decode", "steps")
    assert [r["self-attention keys (h, t, d_head)"] for r in rows] == [f"(2, {t}, 4)" for t in range(1, l_q + 1)]
    assert {r["source keys (h, L_k, d_head)"] for r in rows} == {f"(2, {l_k}, 4)"}
    k, v = snippet["source_kv"]
    k_again, _ = source_keys_values(snippet["memory"], snippet["cross_w"][1], snippet["cross_w"][2], 2)
    np.testing.assert_array_equal(k, k_again)  # what the steps used is the one projection of the memory


def test_the_page_quotes_the_paper_and_labels_the_axes():
    page = flat_page("cross-attention.md")
    assert "Vaswani et al. 2017, section 3.2.3" in page
    assert (
        '"the queries come from the previous decoder layer, and the memory keys and values come from the output of '
        'the encoder"' in page
    )
    assert '"all of the keys, values and queries come from the same place"' in page
    assert "queries from the target as rows, keys from the source as columns" in page


# ------------------------------------------------------------------ the exercises, against oracles of their own
def exercise_values():
    return published("cross_attention/exercises")


def test_exercise_keys_shape_and_its_mistakes():
    sizes, values = published("cross_attention/attend"), exercise_values()
    b, l_q, l_k, heads, d_model = sizes["batch_size"], sizes["l_q"], sizes["l_k"], values["heads_wide"], 8
    assert heads != sizes["n_heads"] and values["d_model"] == d_model and values["d_head_wide"] == d_model // heads
    assert values["keys_shape"] == [b, heads, l_k, d_model // heads]
    assert values["keys_shape__keys_from_target"] == [b, heads, l_q, d_model // heads]
    assert values["keys_shape__no_transpose"] == [b, l_k, heads, d_model // heads]
    assert values["keys_shape__whole_width"] == [b, heads, l_k, d_model]


def softmax_of(scores):
    """Softmax of a list of floats (-inf for hidden keys), written out."""
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    return [e / sum(exps) for e in exps]


def test_exercise_weight_on_the_and_its_mistakes():
    snippet, values = run_snippet("cross_attention/attend"), exercise_values()
    h, memory, w, n_heads = snippet["h"], snippet["memory"], snippet["cross_w"], snippet["n_heads"]
    d_head = 8 // n_heads
    cols = slice(d_head, 2 * d_head)  # head 2
    q = (h[1, 0] @ w[0][:, cols]).tolist()  # sentence 2's first target word, head 2
    keys = (memory[1] @ w[1][:, cols]).tolist()
    raw = [sum(a * b for a, b in zip(q, key)) for key in keys]
    assert all(abs(r - shown) <= 0.005 + 1e-12 for r, shown in zip(raw, values["raw_scores"], strict=True))
    shown, real = values["raw_scores"], published("cross_attention/attend")["source_2_length"]
    hidden = [j >= real for j in range(len(shown))]
    scaled = [-math.inf if pad else s / math.sqrt(d_head) for s, pad in zip(shown, hidden)]
    assert values["weight_on_the"] == pytest.approx(softmax_of(scaled)[0], abs=1e-12)
    unscaled = [-math.inf if pad else s for s, pad in zip(shown, hidden)]
    assert values["weight_on_the__no_scale"] == pytest.approx(softmax_of(unscaled)[0], abs=1e-12)
    assert values["weight_on_the__no_mask"] == pytest.approx(
        softmax_of([s / math.sqrt(d_head) for s in shown])[0], abs=1e-12
    )
    assert values["weight_on_the__causal_mask"] == 1.0  # the first query sees the first source word alone
    assert values["weights"] == pytest.approx(softmax_of(scaled)[:real], abs=1e-12)


def test_exercise_mask_against_loops_over_each_option():
    snippet, values = run_snippet("cross_attention/attend"), exercise_values()
    h, memory, w, lengths = snippet["h"], snippet["memory"], snippet["cross_w"], snippet["lengths"]
    n_heads, l_q, l_k = snippet["n_heads"], snippet["l_q"], snippet["l_k"]
    d_head = 8 // n_heads
    options = {
        "none": lambda b, i, j: True,
        "causal": lambda b, i, j: j <= i,
        "padding": lambda b, i, j: j < lengths[b],
        "both": lambda b, i, j: j <= i and j < lengths[b],
    }
    works = {}
    for option, allowed in options.items():
        ok = True
        for b in range(len(lengths)):
            for head in range(n_heads):
                cols = slice(head * d_head, (head + 1) * d_head)
                _, weights = oracle_attention(
                    (h[b] @ w[0][:, cols]).tolist(),
                    (memory[b] @ w[1][:, cols]).tolist(),
                    (memory[b] @ w[2][:, cols]).tolist(),
                    [[allowed(b, i, j) for j in range(l_k)] for i in range(l_q)],
                )
                pads_empty = all(row[j] == 0 for row in weights for j in range(lengths[b], l_k))
                ok &= pads_empty and all(weights[0][j] > 0 for j in range(lengths[b]))
        works[option] = ok
    assert [option for option, ok in works.items() if ok] == [values["mask"]]
    mistakes = {key.split("__")[1]: v for key, v in values.items() if key.startswith("mask__")}
    assert mistakes == {option: option for option, ok in works.items() if not ok}


def test_exercise_saved_multiply_adds():
    decode, values = published("cross_attention/decode"), exercise_values()
    l_k, d, steps = values["decode_l_k"], values["decode_d_model"], values["long_target"]
    assert (l_k, d) == (decode["l_k"], decode["d_model"])  # the generation example's sizes
    assert values["saved"] == (steps - 1) * 2 * l_k * d * d
    assert values["saved__keys_only"] == (steps - 1) * l_k * d * d
    assert values["saved__every_step"] == steps * 2 * l_k * d * d
    assert values["one_round"] == 2 * l_k * d * d
