"""The chapter "The whole layer on a batch": its statements, recomputed independently.

The snippet is run once (as the site's tests import examples) to reach its ``attention_layer`` and inputs; every
sentence is then recomputed alone with the plain-loop oracle of tests/support.py (loop attention, loop positional
encoding), and the published shape table is checked against the axis letters it names.
"""

import math
import re

import numpy as np
import pytest

from support import REPO, flat_page, oracle_attention, positional_encoding, published, published_table, run_snippet


@pytest.fixture(scope="module")
def layer():
    """The globals of snippets/full_layer/batch.py after it ran (its own published values kept apart)."""
    return run_snippet("full_layer/batch")


def oracle_alone(layer, tokens, causal=True):
    """One sentence, unpadded, through the layer with loops: embedding, positions, heads, attention, W_o."""
    g = layer
    d_model, h = g["d_model"], g["h"]
    d_head = d_model // h
    n = len(tokens)
    x = np.array(
        [
            [
                g["embedding"][g["vocab"][t.lower()]][c] * math.sqrt(d_model) + positional_encoding(p, c, d_model)
                for c in range(d_model)
            ]
            for p, t in enumerate(tokens)
        ]
    )
    allowed = [[(j <= i) or not causal for j in range(n)] for i in range(n)]
    q, k, v = (x @ w for w in (g["w_q"], g["w_k"], g["w_v"]))
    heads = [
        oracle_attention(
            q[:, i * d_head : (i + 1) * d_head].tolist(),
            k[:, i * d_head : (i + 1) * d_head].tolist(),
            v[:, i * d_head : (i + 1) * d_head].tolist(),
            allowed,
        )[0]
        for i in range(h)
    ]
    return np.concatenate([np.array(head) for head in heads], axis=1) @ g["w_o"]


@pytest.mark.claim(
    "In the padded batch every weight on a padding key is exactly 0, and every real query's weights sum to 1",
    zh="在填充后的批量中，落在填充键上的每个权重都恰好为 0，且每个真实查询的权重之和为 1",
)
def test_padding_keys_get_exactly_zero(layer):
    s, lengths = layer["attention_layer"](layer["sentences"])
    weights = s["weights"]  # (B, h, L, L)
    for b, n in enumerate(lengths):
        assert (weights[b, :, :, n:] == 0.0).all()
        np.testing.assert_allclose(weights[b, :, :n].sum(-1), 1.0, rtol=0, atol=1e-12)
    values = published("full_layer/batch")
    assert values["max_pad_weight"] == 0.0
    B, h, L, _ = weights.shape
    assert values["n_pad_weights"] == sum(h * L * (L - n) for n in lengths)


@pytest.mark.claim(
    "Each real sentence's output in the padded batch equals running it alone, unpadded (loop oracle)",
    zh="填充后的批量中每个真实句子的输出，都等于不加填充单独运行它的结果（循环参照实现）",
)
def test_each_sentence_equals_itself_alone(layer):
    s, lengths = layer["attention_layer"](layer["sentences"])
    for b, tokens in enumerate(layer["sentences"]):
        np.testing.assert_allclose(s["output"][b, : len(tokens)], oracle_alone(layer, tokens), rtol=0, atol=1e-12)
    values = published("full_layer/batch")
    assert values["alone_max_error"] < 1e-12 and values["core_max_error"] < 1e-12
    assert values["lengths"] == ", ".join(str(len(t)) for t in layer["sentences"])
    assert len(set(values["lengths"].split(", "))) > 1  # the batch really mixes lengths


@pytest.mark.claim(
    "Changing the padding token's embedding does not change any real output",
    zh="改变填充词元的嵌入不会改变任何真实输出",
)
def test_pad_embedding_is_invisible(layer):
    s, lengths = layer["attention_layer"](layer["sentences"])
    embedding = layer["embedding"]
    saved = embedding[0].copy()
    try:
        embedding[0] = np.random.default_rng(5).normal(scale=1e3, size=saved.shape)  # row 0 is <pad>
        changed, _ = layer["attention_layer"](layer["sentences"])
    finally:
        embedding[0] = saved
    assert layer["vocab"][layer["PAD"]] == 0
    for b, n in enumerate(lengths):
        assert np.array_equal(changed["output"][b, :n], s["output"][b, :n])
        if n < lengths.max():
            assert not np.array_equal(changed["x"][b, n:], s["x"][b, n:])  # the pad rows did change


@pytest.mark.claim(
    "An encoder without a padding mask lets real words attend to padding and changes their outputs; with the mask it "
    "matches the unpadded runs",
    zh="没有填充掩码的编码器让真实的词关注填充，从而改变其输出；加上掩码后与不加填充的运行结果一致",
)
def test_encoder_needs_the_padding_mask(layer):
    sentences = layer["sentences"]
    for pad_mask, should_match in ((True, True), (False, False)):
        s, lengths = layer["attention_layer"](sentences, causal=False, pad_mask=pad_mask)
        error = max(
            np.abs(s["output"][b, :n] - oracle_alone(layer, sentences[b], causal=False)).max()
            for b, n in enumerate(lengths)
        )
        assert (error < 1e-12) == should_match
    values = published("full_layer/batch")
    assert values["encoder_pad_mask_error"] < 1e-12 and values["causal_only_error"] < 1e-12
    assert values["encoder_no_pad_mask_leak"] > 0.1 and values["encoder_no_pad_mask_error"] > 0.1
    assert values["causal_only_pad_query_leak"] > 0.1


def test_the_leaks_are_one_pad_key_and_all_pad_keys_together(layer):
    """The mask ablation's leaks are the largest weight on a single pad key; the page also gives the total a query
    puts on all pad keys, which is larger. Causal only, a pad query's largest single pad-key weight is on itself, so
    it does not go "to other pads"."""
    values = published("full_layer/batch")
    for causal, queries, single, total in (
        (True, "pad", "causal_only_pad_query_leak", "causal_only_pad_query_total_leak"),
        (False, "real", "encoder_no_pad_mask_leak", "encoder_no_pad_mask_total_leak"),
    ):
        s, lengths = layer["attention_layer"](layer["sentences"], causal=causal, pad_mask=False)
        best_single, best_total, self_weight = 0.0, 0.0, 0.0
        for b, n in enumerate(lengths):
            rows = range(n, len(s["ids"][b])) if queries == "pad" else range(n)
            for head in s["weights"][b]:
                for i in rows:
                    pads = [float(w) for w in head[i][n:]]
                    best_single, best_total = max([best_single, *pads]), max(best_total, math.fsum(pads))
                    if i >= n:
                        self_weight = max(self_weight, float(head[i][i]))
        assert values[single] == pytest.approx(best_single, abs=5e-4)
        assert values[total] == pytest.approx(best_total, abs=5e-4)
        assert best_total > best_single + 0.1  # one key's weight is not the weight on padding
        if queries == "pad":
            assert self_weight == best_single  # the largest pad-to-pad weight is a pad query's weight on itself
    page = flat_page("full-layer.md")
    assert "of its weight on a single padding key" in page and "of their weight on a single padding key" in page


def test_shape_table_matches_its_axis_letters():
    values = published("full_layer/batch")
    sizes = {
        "B": values["batch_size"],
        "L": values["padded_length"],
        "h": values["n_heads"],
        "d_model": values["d_model"],
        "d_head": values["d_model"] // values["n_heads"],
    }
    rows = published_table("full_layer/batch", "shapes")
    assert len(rows) >= 12
    for row in rows:
        axes = [a.strip() for a in row["axes"].strip("()").split(",")]
        expected = tuple(math.prod(sizes[f.strip()] for f in a.split("*")) for a in axes)
        assert row["shape"] == str(expected), row


def test_every_stage_links_an_existing_chapter():
    for row in published_table("full_layer/batch", "shapes"):
        page = re.fullmatch(r"\[.+\]\(([a-z-]+\.md)\)", row["stage (links to its chapter)"]).group(1)
        assert (REPO / "docs" / page).is_file(), page


@pytest.mark.claim(
    "A batched sentence equals itself run alone up to rounding, not exactly, and the intuition says so",
    zh="批量中的句子与单独运行它的结果在舍入误差范围内相等，而非完全相等，直观解释部分也这样说",
)
def test_batched_equals_alone_up_to_rounding_not_exactly():
    from support import v

    error = v("full_layer/batch", "alone_max_error")
    assert 0 < error < 1e-12  # "exactly as if it had been run alone" was stronger than the data
    page = flat_page("full-layer.md")
    assert "comes out as if it had been run alone, up to rounding" in page


# ------------------------------------------------------------------ the exercises (snippets/full_layer/exercises.py)
EXERCISES = published("full_layer/exercises")


def test_the_exercises_use_the_chapters_batch_and_fourth_sentence(layer):
    assert run_snippet("full_layer/exercises")["SENTENCES"] == layer["SENTENCES"]
    fourth = EXERCISES["fourth_sentence"]
    assert f'"Dogs chase the cat.", "{fourth}"]' in flat_page("full-layer.md")  # the try-this edit adds it
    assert EXERCISES["fourth_length"] == len(re.findall(r"\w+|[^\w\s]", fourth))


def test_exercise_mask_shape_has_the_head_axis_second(layer):
    s, _ = layer["attention_layer"](layer["sentences"])
    B, h, L, _ = s["scores"].shape
    mask_row = next(row for row in published_table("full_layer/batch", "shapes") if row["array"] == "`mask`")
    assert EXERCISES["mask_shape"] == [B, 1, L, L]
    assert str(tuple(EXERCISES["mask_shape__no_head_axis"])) == mask_row["shape"]
    assert EXERCISES["mask_shape__axis_at_end"] == [B, L, L, 1]
    np.broadcast_shapes(tuple(EXERCISES["mask_shape"]), s["scores"].shape)  # it broadcasts against the scores


def test_exercise_scores_shape_with_the_fourth_sentence(layer):
    B, h = len(layer["sentences"]) + 1, layer["h"]
    L = max(EXERCISES["fourth_length"], *(len(tokens) for tokens in layer["sentences"]))
    assert EXERCISES["four_sentences"] == B
    assert EXERCISES["scores_shape_four"] == [B, h, L, L]
    assert EXERCISES["scores_shape_four__no_head_axis"] == [B, L, L]
    old_L = published("full_layer/batch")["padded_length"]
    assert EXERCISES["scores_shape_four__old_length"] == [B, h, old_L, old_L]


def test_exercise_allowed_pairs_of_sentence_3(layer):
    s, lengths = layer["attention_layer"](layer["sentences"])
    n, L = int(lengths[2]), s["mask"].shape[-1]
    both = sum(1 for i in range(L) for j in range(L) if j <= i and j < n)
    assert EXERCISES["third_length"] == n
    assert EXERCISES["allowed_pairs"] == both == int(s["mask"][2].sum())
    assert EXERCISES["third_real_row_pairs"] == sum(1 for i in range(n) for j in range(L) if j <= i)
    assert EXERCISES["third_pad_row_pairs"] == sum(1 for i in range(n, L) for j in range(n))
    assert EXERCISES["allowed_pairs__causal_only"] == sum(1 for i in range(L) for j in range(L) if j <= i)
    assert EXERCISES["allowed_pairs__padding_only"] == sum(1 for i in range(L) for j in range(L) if j < n)


def test_exercise_pad_key_weights_of_sentence_2(layer):
    s, lengths = layer["attention_layer"](layer["sentences"])
    _, h, L, _ = s["weights"].shape
    n = int(lengths[1])
    pad_keys = [(head, i, j) for head in range(h) for i in range(L) for j in range(L) if j >= n]
    assert EXERCISES["second_pads"] == L - n
    assert EXERCISES["pad_key_weights"] == len(pad_keys)
    assert all(s["weights"][1, head, i, j] == 0.0 for head, i, j in pad_keys)  # the solution's "exactly 0"
    assert EXERCISES["pad_key_weights__one_head"] == sum(1 for head, _, _ in pad_keys if head == 0)
    assert EXERCISES["pad_key_weights__real_queries_only"] == sum(1 for _, i, _ in pad_keys if i < n)
