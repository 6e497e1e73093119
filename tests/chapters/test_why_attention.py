"""Why attention: path lengths by layer type, gradients over distance, and the paper's numbers as quoted.

The literature numbers typed into docs/why-attention.md are recorded here with their source, so the page cannot
drift from the paper without a failing test. Source: Vaswani et al., "Attention Is All You Need" (NIPS 2017,
arXiv:1706.03762), Table 1 (section 4), Table 2 and section 6.1, Table 3, section 5.2; checked against the paper's
LaTeX source.
"""

import math
import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

from lib.debug_tools import numeric_gradient
from support import INVENTORY, REPO, evidence_not_on_its_page, flat_page, published, run_snippet

PAGE = (REPO / "docs" / "why-attention.md").read_text(encoding="utf-8")


def prose(text):
    """The page with runs of whitespace collapsed, so quotes may wrap across lines."""
    return re.sub(r"\s+", " ", text)


# ---------------------------------------------------------------- path lengths


def smallest_power_reaching(k, n):
    """Smallest L with k**L >= n, by integer arithmetic (no logarithms)."""
    layers, reach = 0, 1
    while reach < n:
        layers, reach = layers + 1, reach * k
    return layers


@pytest.mark.claim(
    "A stack of causal convolutions of width k connects n positions in ceil((n-1)/(k-1)) layers, a "
    "dilated stack in ceil(log_k n), a recurrent layer in n - 1 steps, self-attention in 1 layer",
    zh="宽度为 k 的因果卷积堆叠需要 ceil((n-1)/(k-1)) 层才能连通 n 个位置，空洞卷积堆叠需要 ceil(log_k n) "
    "层，循环层需要 n - 1 步，自注意力只需 1 层",
)
@given(n=st.integers(2, 120), k=st.integers(2, 6))
def test_counted_steps_follow_the_closed_forms(n, k):
    ns = run_snippet("why_attention/path_length")
    steps, conv, rnn = ns["steps_to_connect"], ns["causal_conv"], ns["recurrent_step"]
    assert steps(n, [rnn(n)] * n) == n - 1
    assert steps(n, [conv(n, k)] * n) == -(-(n - 1) // (k - 1))
    dilated = (conv(n, k, dilation=min(k**layer, n)) for layer in range(n))
    assert steps(n, dilated) == smallest_power_reaching(k, n)
    assert steps(n, [ns["self_attention"](n, np.random.default_rng(n))]) == 1


@pytest.mark.claim(
    "cat and mat are 4 positions apart with 3 words in between, not five",
    zh="cat 和 mat 相隔 4 个位置，中间有 3 个词，而不是五个",
)
def test_cat_mat_distance():
    values = published("why_attention/path_length")
    words = "The cat sat on the mat .".split()
    assert values["cat_mat_distance"] == words.index("mat") - words.index("cat") == 4
    assert values["cat_mat_words_between"] == 3
    assert values["cat_mat_between"] == "sat on the"


@pytest.mark.claim(
    "At n = 512 and k = 3: 511 recurrent steps, 256 contiguous convolution layers, 6 dilated layers, 1 attention layer",
    zh="n = 512、k = 3 时：循环需要 511 步，连续卷积需要 256 层，空洞卷积需要 6 层，注意力只需 1 层",
)
def test_published_counts_at_512():
    values = published("why_attention/path_length")
    assert values["kernel"] == 3
    assert values["rnn_512"] == 511
    assert values["contiguous_512"] == math.ceil(511 / 2)
    assert values["dilated_512"] == 6 and 3**5 < 512 <= 3**6
    assert values["attention_512"] == 1


# ---------------------------------------------------------------- gradients over distance


def rnn_last_state(w, u, x):
    h = np.zeros(len(w))
    for x_t in x:
        h = np.tanh(w @ h + u @ x_t)
    return h


def test_rnn_chain_rule_matches_finite_differences():
    rnn_jacobian_norms = run_snippet("why_attention/rnn_gradient")["rnn_jacobian_norms"]
    rng = np.random.default_rng(11)
    d, n = 5, 9
    w, u = rng.normal(scale=1.2 / np.sqrt(d), size=(d, d)), rng.normal(scale=1 / np.sqrt(d), size=(d, d))
    x = rng.normal(size=(n, d))
    norms = rnn_jacobian_norms(w, u, x)
    jacobian = numeric_gradient(lambda z: rnn_last_state(w, u, z), x)  # (d, n, d): d last state / d x
    for t in range(n):
        np.testing.assert_allclose(norms[n - 1 - t], np.linalg.norm(jacobian[:, t], 2), rtol=1e-6, atol=1e-9)


def test_attention_backward_jacobian_matches_finite_differences():
    from support import oracle_attention

    attention_jacobian_norms = run_snippet("why_attention/rnn_gradient")["attention_jacobian_norms"]
    rng = np.random.default_rng(12)
    d, n = 4, 6
    w_q, w_k, w_v = (rng.normal(scale=1 / np.sqrt(d), size=(d, d)) for _ in range(3))
    x = rng.normal(size=(n, d))

    def last_output(z):  # the loop oracle, independent of the core module
        out, _ = oracle_attention((z @ w_q).tolist(), (z @ w_k).tolist(), (z @ w_v).tolist())
        return np.array(out[-1])

    norms = attention_jacobian_norms(x, w_q, w_k, w_v)
    jacobian = numeric_gradient(last_output, x)  # (d, n, d): d last output / d x
    for t in range(n):
        np.testing.assert_allclose(norms[n - 1 - t], np.linalg.norm(jacobian[:, t], 2), rtol=1e-6)


@pytest.mark.claim(
    "In a random tanh RNN the gradient of the last state shrinks geometrically with distance (gain 1) or "
    "grows (gain 3); one attention layer's gradient does not depend on distance",
    zh="在随机初始化的 tanh RNN 中，最后一个状态的梯度随距离按几何级数缩小（增益 1）或增大（增益 "
    "3）；一个注意力层的梯度与距离无关",
)
def test_gradient_vanishes_for_the_rnn_and_not_for_attention():
    values = published("why_attention/rnn_gradient")
    assert values["rnn_d1"] > values["rnn_d4"] > values["rnn_d20"] > values["rnn_d49"]
    assert values["rnn_d49"] < 1e-8
    assert 0.3 < values["rnn_rate"] < 0.9
    assert values["rnn_gain3_d49"] > 10
    assert values["att_min"] > 0.01 and values["att_max"] < 5 * values["att_min"]  # flat, no trend
    assert values["rnn_d20"] < values["att_min"] < values["rnn_d4"]
    crossing = values["crossing"]
    assert 4 < crossing < 20


@pytest.mark.claim(
    "From the published crossing distance on, the gain-1 RNN passes less gradient than attention at the same "
    "distance, and one step closer it passes more",
    zh="从公布的交叉距离起，在同一距离上，增益为 1 的 RNN 传过去的梯度比注意力少；再近一步则比注意力多",
)
def test_crossing_compares_the_same_distance():
    values = published("why_attention/rnn_gradient")
    assert values["rnn_at_crossing"] < values["att_at_crossing"]
    assert values["rnn_before_crossing"] >= values["att_before_crossing"]


# ---------------------------------------------------------------- the paper, quoted


TABLE_1 = [  # Vaswani et al. 2017, Table 1: layer type, complexity per layer, sequential operations, max path length
    ("Self-Attention", r"$O(n^2 \cdot d)$", "$O(1)$", "$O(1)$"),
    ("Recurrent", r"$O(n \cdot d^2)$", "$O(n)$", "$O(n)$"),
    ("Convolutional", r"$O(k \cdot n \cdot d^2)$", "$O(1)$", "$O(log_k(n))$"),
    ("Self-Attention (restricted)", r"$O(r \cdot n \cdot d)$", "$O(1)$", "$O(n/r)$"),
]

TABLE_2 = [  # Vaswani et al. 2017, Table 2 (newstest2014): BLEU EN-DE, EN-FR, training FLOPs EN-DE, EN-FR
    ("GNMT + RL", "24.6", "39.92", r"$2.3\cdot10^{19}$", r"$1.4\cdot10^{20}$"),
    ("ConvS2S", "25.16", "40.46", r"$9.6\cdot10^{18}$", r"$1.5\cdot10^{20}$"),
    ("MoE", "26.03", "40.56", r"$2.0\cdot10^{19}$", r"$1.2\cdot10^{20}$"),
    ("GNMT + RL Ensemble", "26.30", "41.16", r"$1.8\cdot10^{20}$", r"$1.1\cdot10^{21}$"),
    ("ConvS2S Ensemble", "26.36", "41.29", r"$7.7\cdot10^{19}$", r"$1.2\cdot10^{21}$"),
    ("Transformer (base model)", "27.3", "38.1", r"$3.3\cdot10^{18}$"),  # one cost cell spans both columns
    ("Transformer (big)", "28.4", "41.8", r"$2.3\cdot10^{19}$"),
]


def table_rows(markdown):
    return [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in markdown.splitlines()
        if line.startswith("| ")
    ]


@pytest.mark.claim(
    "The page quotes Table 1 of Attention Is All You Need exactly",
    zh="页面准确引用了《Attention Is All You Need》的表 1",
)
def test_table_1_is_quoted_exactly():
    rows = table_rows(PAGE)
    for row in TABLE_1:
        assert list(row) in rows, row
    text = prose(PAGE)
    assert (
        "requires a stack of $O(n/k)$ convolutional layers in the case of contiguous kernels, or "
        "$O(log_k(n))$ in the case of dilated convolutions"
    ) in text
    assert (
        "are faster than recurrent layers when the sequence length $n$ is smaller than the "
        "representation dimensionality $d$"
    ) in text


@pytest.mark.claim(
    "The page quotes the BLEU scores and training costs of Table 2 of Attention Is All You Need exactly",
    zh="页面准确引用了《Attention Is All You Need》表 2 中的 BLEU 分数和训练成本",
)
def test_table_2_is_quoted_exactly():
    rows = table_rows(PAGE)
    for row in TABLE_2:
        match = [r for r in rows if r[0] == row[0]]
        assert match, row[0]
        assert match[0][1:3] == list(row[1:3])
        assert all(cost in " ".join(match[0][3:]) for cost in row[3:])


@pytest.mark.claim(
    "25.8 BLEU is the Transformer base model on newstest2013 (Table 3), not an RNN score; the paper "
    "reports FLOPs, not a 3x speed-up",
    zh="25.8 BLEU 是 Transformer 基础模型在 newstest2013 上的成绩（表 3），不是 RNN 的成绩；论文报告的是 "
    "FLOPs，而不是 3 倍的加速",
)
def test_literature_corrections_are_quoted_exactly():
    text = prose(PAGE)
    # Table 3, row "base": PPL (dev) 4.92, BLEU (dev) 25.8, on newstest2013
    assert "25.8 is the *Transformer base model's* BLEU on the development set newstest2013, in Table 3" in text
    assert "The recurrent rows score 24.6 (GNMT + RL) and 26.03 (MoE," in text  # Table 2's recurrent rows
    # Section 6.1: "at less than 1/4 the training cost of the previous state-of-the-art model"
    assert '"less than 1/4 the training cost of the previous state-of-the-art model"' in text
    # Section 5.2: base models 100,000 steps or 12 hours; big models 300,000 steps (3.5 days); 8 NVIDIA P100 GPUs
    assert "12 hours for the base model and 3.5 days for the big model, on 8 P100 GPUs" in text
    # Section 6.1 prose of the LaTeX source says 41.0 for EN-FR; Table 2 says 41.8
    assert "gives 41.0 for the big English-to-French model while Table 2 gives 41.8" in text
    assert "3 times faster" in text and "is not in the paper" in text


@pytest.mark.claim(
    "Why attention announces w_ij and v_j before the chapters that teach them, says its T is the last "
    "time step; Notation discloses the two uses of T and of V",
    zh="“为什么需要注意力”一章在讲解 w_ij 和 v_j 的章节之前就预先说明了它们，并指出其中的 T "
    "是最后一个时间步；符号说明一章说明了 T 和 V 各自的两种用法",
)
def test_notation_clashes_are_disclosed():
    page = " ".join(PAGE.split())
    assert (
        "Here $w_{ij}$ is the weight word $i$ gives word $j$ and $v_j$ is what word $j$ passes on, its value; "
        "you will see both built later"
    ) in page
    assert page.index("Here $w_{ij}$ is the weight") < page.index("Start a signal at the first word")
    assert "Here $T$ is the last time step" in page and "as a temperature, in [Softmax](softmax.md)" in page
    notation = flat_page("notation.md")
    assert "and the last time step of a recurrence in [Why attention](why-attention.md)" in notation
    assert "The same letter names the values $V$ below" in notation


@pytest.mark.claim(
    "One attention layer's gradient has no geometric trend with distance: a fitted line changes by "
    "a factor near 1 over the sequence, against a vanishing factor for the gain-1 RNN",
    zh="一个注意力层的梯度随距离没有几何级数的趋势：拟合直线在整个序列上的变化倍数接近 1，而增益为 1 的 RNN "
    "的倍数趋于零",
)
def test_attention_gradient_trend_is_near_level_not_exactly_flat():
    values = published("why_attention/rnn_gradient")
    assert 0.5 < values["att_trend"] < 2 and values["rnn_trend"] < 1e-6
    namespace = run_snippet("why_attention/rnn_gradient")
    far = np.log(namespace["att_typical"][1:])
    slope = np.polyfit(np.arange(1, len(far) + 1), far, 1)[0]
    assert math.isclose(math.exp(slope * (len(far) - 1)), values["att_trend"], rel_tol=0.01)
    assert values["att_trend"] != 1  # "does not depend on distance" was stronger than this
    page = " ".join(PAGE.split())
    assert "the attention gradient does not depend on distance" not in page


@pytest.mark.claim(
    "Why attention says every word reads every other in one step only without a mask, and names the "
    "causal mask as the exception",
    zh="“为什么需要注意力”一章说明，只有在不加掩码时每个词才能一步读到其他所有词，并指出因果掩码是例外",
)
def test_one_step_to_every_word_is_stated_for_no_mask():
    page = " ".join(PAGE.split())
    intuition = page.split("**The intuition.**")[1].split("##")[0]
    assert "a decoder's [causal mask](masks.md), which comes later, limits that to the words before it" in intuition
    assert "with no mask every weight is positive" in page


# Table 2's rows of recurrent models with an English-to-German score (MoE: mixture-of-experts layers between stacked
# LSTM layers, Shazeer et al. 2017; Deep-Att + PosUnk, deep LSTMs, has English-to-French scores only)
RECURRENT_EN_DE = ("GNMT + RL", "MoE", "GNMT + RL Ensemble")


def test_25_8_is_said_against_every_recurrent_row_of_table_2():
    """ "25.8 is not an RNN score" is checked against every recurrent row of Table 2, and the sentence quotes each
    of their English-to-German scores (it quoted GNMT + RL alone, whose 24.6 is not the best recurrent single model)."""
    scores = {row[0]: row[1] for row in TABLE_2}
    recurrent = [scores[model] for model in RECURRENT_EN_DE]
    assert "25.8" not in recurrent and max(map(float, recurrent[:2])) == 26.03
    rows = {row[0]: row for row in table_rows(PAGE)}
    sentence = prose(PAGE).split("**25.8 is not an RNN score.**")[1].split(" 25.8 is the")[0]
    for model in RECURRENT_EN_DE:
        assert rows[model][1] == scores[model] and scores[model] in sentence, model


def test_the_attention_range_is_said_of_the_typical_gradient_not_of_each_draw():
    """att_min and att_max bound the geometric mean over the draws; single draws leave that range, so the page says
    which gradient the range is of."""
    namespace = run_snippet("why_attention/rnn_gradient")
    values = published("why_attention/rnn_gradient")
    single = np.array(namespace["att"])[:, 1:]  # (draws, distance 1 to L - 1)
    assert single.min() < values["att_min"] and single.max() > values["att_max"]
    assert single.min() < 0.1 * values["att_min"] and single.max() > 10 * values["att_max"]
    text = prose(PAGE)
    assert (
        "The typical attention gradient (the geometric mean over the {{ why_attention.rnn_gradient.draws }} draws) "
        "stays between"
    ) in text


@pytest.mark.parametrize("cid", sorted(c.id for c in INVENTORY.values() if c.see.startswith("why-attention.md")))
def test_each_claims_rows_evidence_stands_on_this_page(cid):
    """Every value a claims row linking here quotes, and every author it cites, is on this page (C000-11's
    first-to-last change and C000-05's Khandelwal et al. were not)."""
    assert evidence_not_on_its_page(INVENTORY[cid]) == [], cid


# Khandelwal et al. 2018 (ACL Anthology P18-1027), abstract: "On two standard datasets, Penn Treebank and WikiText-2,
# we find that the model is capable of using about 200 tokens of context on average"
KHANDELWAL_ABSTRACT = "is capable of using about 200 tokens of context on average"


def test_khandelwal_is_cited_for_what_the_model_can_use_on_its_two_datasets():
    """The abstract says the LSTM is *capable of using* about 200 tokens, on Penn Treebank and WikiText-2; the page and
    the claims rows said it "uses" them, which is more than the abstract reports."""
    assert "capable of using" in KHANDELWAL_ABSTRACT
    zh_page = (REPO / "docs-zh" / "why-attention.md").read_text(encoding="utf-8")
    assert (
        "a trained LSTM language model can use about 200 tokens of context on average (Penn Treebank, WikiText-2)"
        in (prose(PAGE))
    )
    assert "训练好的 LSTM 语言模型平均大约能利用 200 个词元的上下文（Penn Treebank 和 WikiText-2）" in zh_page
    cells = [
        text
        for claim in INVENTORY.values()
        for text in (claim.evidence, claim.evidence_zh)
        if "Khandelwal" in text and "200" in text
    ]
    assert len(cells) >= 4
    for text in cells + [prose(PAGE), zh_page]:
        assert not re.search(r"LSTM language models? uses? about 200|使用大约 200|大约使用 200", text), text


# ---------------------------------------------------------------- exercises


def test_exercise_recurrent_steps_from_cat_to_the_end():
    values = published("why_attention/exercises")
    words = "The cat sat on the mat .".split()
    start, end = words.index("cat"), len(words) - 1
    assert (values["cat_position"], values["end_position"]) == (start, end)
    assert values["cat_end_steps"] == sum(1 for _ in range(start, end))  # one step per move
    assert values["cat_end_steps__counted_words_between"] == len(words[start + 1 : end])
    assert values["cat_end_steps__counted_words"] == len(words[start : end + 1])


def test_exercise_convolution_layers_are_what_the_chapters_stacks_count():
    """The answers against path_length.py's own stacks, followed layer by layer; the mistakes by plain loops."""
    values, ns = published("why_attention/exercises"), run_snippet("why_attention/path_length")
    steps, conv, k = ns["steps_to_connect"], ns["causal_conv"], values["kernel"]
    n = values["contiguous_length"]
    assert values["contiguous_layers"] == steps(n, [conv(n, k)] * n)
    assert values["contiguous_layers__reach_without_first"] == next(m for m in range(1, n) if m * (k - 1) >= n)
    assert values["contiguous_layers__n_over_k"] == -(-n // k)
    m = values["contiguous_layers"]
    assert (values["contiguous_reach_before"], values["contiguous_reach"]) == (1 + (m - 1) * (k - 1), 1 + m * (k - 1))
    n = values["dilated_length"]
    assert values["dilated_layers"] == steps(n, (conv(n, k, dilation=min(k**layer, n)) for layer in range(n)))
    assert values["dilated_layers__rounded_down"] == smallest_power_reaching(k, n) - 1  # n is not a power of k
    assert values["dilated_layers__contiguous_stack"] == -(-(n - 1) // (k - 1))
    m = values["dilated_layers"]
    assert (values["dilated_reach_before"], values["dilated_reach"]) == (k ** (m - 1), k**m)


def test_exercise_weights_of_one_attention_layer():
    values = published("why_attention/exercises")
    n = values["weights_length"]
    pairs = [(i, j) for i in range(n) for j in range(n)]
    assert values["weights_count"] == len(pairs)
    assert values["weights_count__pairs_once"] == sum(1 for i, j in pairs if i < j)
    assert values["weights_count__left_out_self"] == sum(1 for i, j in pairs if i != j)
