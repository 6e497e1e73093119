"""The Transformer block chapter: the hand-written backward passes against finite differences, and the measurements.

Finite differences are the independent oracle: (f(x + h e) - f(x - h e)) / 2h
for a loss f = sum(output * g), one coordinate e at a time, in float64.
"""

import json
import math

import numpy as np
import pytest

from lib.block_layers import (
    BLOCKS,
    attention,
    attention_backward,
    feed_forward,
    feed_forward_backward,
    init_params,
    layer_norm,
    layer_norm_backward,
    stack_gradients,
)
from lib.debug_tools import numeric_gradient
from lib.running_example import SENTENCE, embed, tokenize
from support import REPO, flat_page, published, published_table

N_HEADS = 2


def setup(seed=0, length=5, d_model=6, d_ff=10):
    rng = np.random.default_rng(seed)
    return rng, init_params(rng, d_model, d_ff), rng.normal(size=(length, d_model)), rng.normal(size=(length, d_model))


def assert_close(analytic, numeric):
    scale = max(1.0, np.max(np.abs(numeric)))
    assert np.max(np.abs(analytic - numeric)) < 1e-7 * scale, (analytic, numeric)


@pytest.mark.claim("the LayerNorm backward pass matches finite differences", zh="层归一化的反向传播与有限差分一致")
@pytest.mark.parametrize("seed", range(3))
def test_layer_norm_backward(seed):
    _, _, x, g = setup(seed)
    x = 3 * x + 1  # off-centre, not unit scale
    y, cache = layer_norm(x)
    assert_close(layer_norm_backward(g, cache), numeric_gradient(lambda z: np.sum(layer_norm(z)[0] * g), x))


def test_layer_norm_output_by_hand():
    x = np.array([[1.0, 2.0, 3.0, 6.0]])
    mean, var = 3.0, (4 + 1 + 0 + 9) / 4  # by hand
    expected = (x - mean) / np.sqrt(var + 1e-5)
    np.testing.assert_allclose(layer_norm(x)[0], expected, rtol=1e-14)


def test_attention_backward_input_and_weights():
    _, p, x, g = setup(1)
    d_x, grads = attention_backward(g, x, p, N_HEADS)
    assert_close(d_x, numeric_gradient(lambda z: np.sum(attention(z, p, N_HEADS)[0] * g), x))
    for name in ("w_q", "w_k", "w_v", "w_o"):
        f = lambda w, name=name: np.sum(attention(x, p | {name: w}, N_HEADS)[0] * g)  # noqa: E731
        assert_close(grads[name], numeric_gradient(f, p[name]))


def test_feed_forward_backward_input_and_weights():
    _, p, x, g = setup(2)
    out, cache = feed_forward(x, p)
    d_x, grads = feed_forward_backward(g, cache, p)
    assert_close(d_x, numeric_gradient(lambda z: np.sum(feed_forward(z, p)[0] * g), x))
    for name in ("w_1", "w_2"):
        f = lambda w, name=name: np.sum(feed_forward(x, p | {name: w})[0] * g)  # noqa: E731
        assert_close(grads[name], numeric_gradient(f, p[name]))


@pytest.mark.claim(
    "the hand-written backward pass of both blocks matches finite differences",
    zh="两种块手写的反向传播都与有限差分一致",
)
@pytest.mark.parametrize("kind", ["post-norm", "pre-norm"])
@pytest.mark.parametrize("seed", range(3))
def test_block_backward(kind, seed):
    _, p, x, g = setup(seed)
    block, backward = BLOCKS[kind]
    y, cache = block(x, p, N_HEADS)
    d_x, grads = backward(g, cache, p, N_HEADS)
    assert_close(d_x, numeric_gradient(lambda z: np.sum(block(z, p, N_HEADS)[0] * g), x))
    for name in ("w_q", "w_o", "w_2"):
        f = lambda w, name=name: np.sum(block(x, p | {name: w}, N_HEADS)[0] * g)  # noqa: E731
        assert_close(grads[name], numeric_gradient(f, p[name]))


@pytest.mark.parametrize("kind", ["post-norm", "pre-norm"])
def test_stack_gradients_at_every_block_input(kind):
    rng, _, x, g = setup(4)
    layers = [init_params(rng, 6, 10) for _ in range(3)]
    block = BLOCKS[kind][0]

    def loss_from(first, z):
        for p in layers[first:]:
            z = block(z, p, N_HEADS)[0]
        if kind == "pre-norm":
            z = layer_norm(z)[0]
        return np.sum(z * g)

    _, d_inputs, _ = stack_gradients(x, layers, N_HEADS, g, kind)
    inputs = [x]
    for p in layers[:-1]:
        inputs.append(block(inputs[-1], p, N_HEADS)[0])
    for first, (x_l, d_x_l) in enumerate(zip(inputs, d_inputs)):
        assert_close(d_x_l, numeric_gradient(lambda z, first=first: loss_from(first, z), x_l))


@pytest.mark.claim(
    "a post-norm block's output rows have mean 0 and standard deviation 1; with its sub-layers off a pre-norm block "
    "is the identity",
    zh="后归一化块的输出行均值为 0、标准差为 1；关闭子层后，前归一化块就是恒等映射",
)
def test_block_compare_values():
    values = published("transformer_block/compare")
    assert values["post_std_error"] < 1e-4
    assert values["pre_off_error"] == 0.0
    assert values["post_off_change"] > 1
    _, p, x, _ = setup(5)
    off = p | {"w_o": np.zeros_like(p["w_o"]), "w_2": np.zeros_like(p["w_2"])}
    np.testing.assert_array_equal(BLOCKS["pre-norm"][0](x, off, N_HEADS)[0], x)
    y = BLOCKS["post-norm"][0](x, p, N_HEADS)[0]
    np.testing.assert_allclose(y.mean(-1), 0, atol=1e-12)
    np.testing.assert_allclose(y.std(-1), 1, atol=1e-4)


@pytest.mark.claim(
    "at initialisation the pre-norm last block's W_2 gradient shrinks about like 1/sqrt(N) with depth; the post-norm "
    "one does not",
    zh="初始化时，前归一化的最后一个块的 W_2 梯度随深度大致按 1/sqrt(N) 缩小；后归一化则不会",
)
def test_depth_scaling_published():
    values = published("transformer_block/gradients")
    assert 0.5 * values["inverse_sqrt_depth_ratio"] < values["pre_w2_change"] < 2 * values["inverse_sqrt_depth_ratio"]
    assert 0.7 < values["post_w2_change"] < 1.4
    assert values["pre_first_over_last"] > 2  # pre-norm: larger gradients near the input
    assert 0.5 < values["post_first_over_last"] < 2  # post-norm: about flat


@pytest.mark.claim(
    "Pre-norm's gradient falls from every block to the next; post-norm's varies within a narrower "
    "band (largest / smallest block) than pre-norm's, as the page quantifies",
    zh="前归一化的梯度逐块下降；后归一化的梯度变化范围（最大块 / 最小块）比前归一化更窄，与页面给出的量化结果一致",
)
def test_per_block_gradient_bands_as_worded():

    values = published("transformer_block/gradients")
    assert values["pre_monotone"] is True and values["post_monotone"] is False  # "falls steadily" vs a band
    assert 1 < values["post_spread"] < values["pre_spread"]
    assert values["pre_spread"] == values["pre_first_over_last"]  # monotone: the ends are the extremes
    page = flat_page("transformer-block.md")
    assert "stays within a narrow band" not in page and "narrower band" in page


def test_the_pre_norm_output_stays_near_its_input_but_is_not_kept():
    """Row stats: the pre-norm rows' standard deviations stay within 15 % of the input's and their means within 0.5,
    but they are not equal (the old page: "keeps the scale and offset of its input")."""
    table = json.loads((REPO / "docs/generated/transformer_block/compare/table-row_stats.json").read_text())
    rows = {row[0]: [float(x) for x in row[1:]] for row in table["rows"]}
    x, pre = np.array(rows["input x"]), np.array(rows["pre-norm output"])
    assert np.all(np.abs(pre[3:] / x[3:] - 1) < 0.15) and np.all(np.abs(pre[:3] - x[:3]) < 0.5)
    assert not np.allclose(pre, x, atol=0.05)


def test_only_the_pre_norm_block_passes_x_through_untouched():
    """Switched off, the pre-norm block returns x and the post-norm block changes it: the residual keeps x only in a
    pre-norm block (the old page and claims row C000-59 said so of any Transformer block)."""
    values = published("transformer_block/compare")
    assert values["pre_off_error"] == 0 and values["post_off_change"] > 1
    assert "In a pre-norm block that job belongs" in flat_page("transformer-block.md")


def test_gpt2_init_sentence_does_not_attribute_the_count_to_the_paper():
    """GPT-2's section 2.3 gives 1/sqrt(N), N the number of residual layers, without a count per block: the page
    says the count of two is the reimplementations' (the old page: "two per block" as the paper's)."""
    text = flat_page("transformer-block.md")
    assert "the paper does not say how many a block has" in text
    assert "residual layers}}$, two per block" not in text


# ------------------------------------------------------------------ exercises: answers and mistakes, by other means
def exercise_values():
    return published("transformer_block/exercises")


def the_input_row():
    """The running sentence's input row of "The" (3 x its embedding), as plain floats."""
    return [3.0 * float(e) for e in embed(tokenize(SENTENCE))[0]]


def test_exercise_hidden_shape():
    """x (7, d_model) @ W_1 (d_model, d_ff): 7 tokens in "The cat sat on the mat." and the d_ff the page quotes."""
    values = exercise_values()
    n_tokens = len("The cat sat on the mat .".split())
    assert values["block_length"] == n_tokens and (values["block_d_model"], values["block_d_ff"]) == (8, 32)
    assert values["hidden_shape"] == [n_tokens, 32]
    assert values["hidden_shape__output_shape"] == [n_tokens, 8]  # after W_2
    assert values["hidden_shape__product_reversed"] == [32, n_tokens]  # W_1^T x^T


def plain_layer_norm(row, eps=1e-5):
    mean = sum(row) / len(row)
    var = sum((r - mean) ** 2 for r in row) / len(row)
    return [(r - mean) / math.sqrt(var + eps) for r in row]


def test_exercise_switched_off_post_norm_entry():
    """LN(LN(x)) of the row "The", by plain loops; the mistakes: x itself, no centring, divided by the variance."""
    values, row = exercise_values(), the_input_row()
    mean = sum(row) / len(row)
    var = sum((r - mean) ** 2 for r in row) / len(row)
    assert values["the_first_entry"] == pytest.approx(row[0], abs=1e-12)
    assert (values["the_mean"], values["the_std"]) == pytest.approx((mean, math.sqrt(var)), abs=1e-12)
    table = json.loads((REPO / "docs/generated/transformer_block/compare/table-row_stats.json").read_text())
    assert table["rows"][0][1] == f"{mean:.3f}" and table["rows"][0][4] == f"{math.sqrt(var):.3f}"  # the table quoted
    assert values["switched_off_post"] == pytest.approx(plain_layer_norm(plain_layer_norm(row))[0], abs=1e-9)
    assert values["switched_off_post__pre_norm"] == pytest.approx(row[0], abs=1e-12)
    assert values["switched_off_post__not_centred"] == pytest.approx(row[0] / math.sqrt(var + 1e-5), abs=1e-12)
    assert values["switched_off_post__divided_by_variance"] == pytest.approx((row[0] - mean) / (var + 1e-5), abs=1e-12)
    second = max(abs(a - b) for a, b in zip(plain_layer_norm(plain_layer_norm(row)), plain_layer_norm(row)))
    assert values["second_norm_change"] == pytest.approx(second, rel=1e-3)
    assert round(values["switched_off_post"], 2) == round((row[0] - mean) / math.sqrt(var), 2)  # "ε does not change"


def test_exercise_stack_weights():
    """4 d_model² for attention and 2 d_model d_ff for the feed-forward network, per block, for the page's stack."""
    values, stack = exercise_values(), published("transformer_block/gradients")
    n, d, d_ff = stack["n_layers"], stack["d_model"], stack["d_ff"]
    assert values["block_attention_weights"] == 4 * d * d and values["block_ffn_weights"] == 2 * d * d_ff
    assert values["stack_weights"] == n * (4 * d * d + 2 * d * d_ff)
    assert values["stack_weights__one_block"] == 4 * d * d + 2 * d * d_ff
    assert values["stack_weights__no_output_projection"] == n * (3 * d * d + 2 * d * d_ff)


def test_exercise_sqrt_prediction_and_the_table_it_is_compared_with():
    """sqrt(N_shallow / N_deep) for two rows of the table; the solution: the pre-norm column falls by nearly that
    factor (within 10 %), the post-norm column stays within a tenth of where it was."""
    values = exercise_values()
    shallow, deep = values["shallow"], values["deep"]
    assert values["sqrt_prediction"] == pytest.approx(math.sqrt(shallow / deep), abs=1e-12)
    assert values["sqrt_prediction__no_square_root"] == pytest.approx(shallow / deep, abs=1e-12)
    assert values["sqrt_prediction__upside_down"] == pytest.approx(math.sqrt(deep / shallow), abs=1e-12)
    rows = {int(r["blocks N"]): r for r in published_table("transformer_block/gradients", "last_block")}
    pre, post = "pre-norm: ‖dL/dW_2‖ of block N", "post-norm: ‖dL/dW_2‖ of block N"
    measured = float(rows[deep][pre]) / float(rows[shallow][pre])
    assert abs(measured / values["sqrt_prediction"] - 1) < 0.1
    assert abs(float(rows[deep][post]) / float(rows[shallow][post]) - 1) < 0.1
