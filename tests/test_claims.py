"""The claims audit: every verdict on docs/claims.md is consistent with an independent recomputation.

The verdicts and measured values come from docs/generated/claims_audit/values.json (the build proves it
matches snippets/claims_audit.py). Each test recomputes the evidence its own way (plain loops from
tests/oracle.py, closed forms, math/Decimal arithmetic, fresh random draws) and checks the verdict.
The paper's numbers are held here as the citation and checked against the page's prose.
"""

import ast
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracle import attention as oracle_attention
from oracle import positional_encoding, softmax_row

from lib.attention import sinusoidal_positions, softmax

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "docs" / "generated" / "claims_audit"
PAGE = ROOT / "docs" / "claims.md"
VALUES = json.loads((GENERATED / "values.json").read_text(encoding="utf-8"))
VERDICTS = VALUES["verdicts"]["value"]
ALLOWED = ("holds", "does not hold", "cannot be checked here")


def v(name):
    return VALUES[name]["value"]


def kind(cid):
    verdict = VERDICTS[cid]
    if verdict.startswith("holds only when "):
        return "holds only when"
    assert verdict in ALLOWED, verdict
    return verdict


def claim_texts():
    """{id: "claim (source)"} parsed from the generated tables, for the ledger's wording."""
    texts = {}
    for path in GENERATED.glob("table-claims_*.md"):
        for line in path.read_text(encoding="utf-8").splitlines()[2:]:
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            texts[cells[0]] = cells[1].replace("*", "")
    return texts


TEXTS = claim_texts()


def claim(cid):
    """pytest mark naming the claim and its verdict, worded as on the page."""
    return pytest.mark.claim(f"{cid} {TEXTS.get(cid, '')} Verdict: {VERDICTS.get(cid, '?')}.")


def attend(x, w, allowed=None):
    """Self-attention through the loop oracle: x (L, d) lists, w = (W_q, W_k, W_v) arrays."""
    x = np.asarray(x)
    q, k, val = (x @ m for m in w)
    out, weights = oracle_attention(q.tolist(), k.tolist(), val.tolist(), allowed)
    return np.array(out), np.array(weights)


def causal(n):
    return [[j <= i for j in range(n)] for i in range(n)]


rng = np.random.default_rng(31415)
X = rng.normal(size=(7, 8))
W = tuple(rng.normal(scale=8**-0.5, size=(3, 8, 8)))


# ============================================================ the audit's bookkeeping


def test_every_inventory_claim_has_one_allowed_verdict():
    seed_ids = {f"C000-{i:02d}" for i in range(1, 87)} | {f"C003-{i:02d}" for i in range(1, 48)}
    assert seed_ids <= set(VERDICTS), sorted(seed_ids - set(VERDICTS))
    for cid in VERDICTS:
        assert re.fullmatch(r"C00[03]-\d\d|G-\d\d", cid), cid
        kind(cid)


def test_counts_on_the_page_match_the_verdicts():
    kinds = [kind(c) for c in VERDICTS]
    assert v("n_holds") == kinds.count("holds")
    assert v("n_only_when") == kinds.count("holds only when")
    assert v("n_fails") == kinds.count("does not hold")
    assert v("n_unchecked") == kinds.count("cannot be checked here")
    assert v("n_claims") == len(VERDICTS) == v("n_seed_claims") + v("n_common_claims")
    page = PAGE.read_text(encoding="utf-8")
    for name in ("n_claims", "n_holds", "n_only_when", "n_fails", "n_unchecked"):
        assert f"{{{{ claims_audit.{name} }}}}" in page


def test_tables_show_every_claim_once_with_its_verdict_and_filled_evidence():
    seen = {}
    for path in sorted(GENERATED.glob("table-claims_*.md")):
        assert f'--8<-- "docs/generated/claims_audit/{path.name}"' in PAGE.read_text(encoding="utf-8")
        for line in path.read_text(encoding="utf-8").splitlines()[2:]:
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            assert len(cells) == 4, line
            cid, _, verdict, evidence = cells
            assert cid not in seen
            seen[cid] = verdict
            assert verdict == f"**{VERDICTS[cid]}**"
            assert evidence and "{" not in evidence and "}" not in evidence.replace("{t-1}", ""), (cid, evidence)
    assert set(seen) == set(VERDICTS)


def test_every_stdout_excerpt_on_the_page_is_one_whole_print_block():
    lines = (GENERATED / "stdout.txt").read_text(encoding="utf-8").splitlines()
    value_line = re.compile(r"^[a-z][a-z0-9_]* = ")
    includes = re.findall(r'stdout\.txt:(\d+):(\d+)"', PAGE.read_text(encoding="utf-8"))
    assert includes
    for start, end in ((int(a), int(b)) for a, b in includes):
        assert not any(value_line.match(line) for line in lines[start - 1 : end])
        assert value_line.match(lines[start - 2]) and value_line.match(lines[end])


UNCHECKABLE = ["C000-05", "C000-34", "C000-47", "C000-59", "C000-62", "C000-63", "C000-68", "C000-69", "C000-75",
               "C000-77", "C000-80", "C000-82", "C000-85", "C000-86", "C003-01", "C003-04", "C003-07", "C003-08",
               "C003-10", "C003-13", "C003-43", "C003-47"]


def test_uncheckable_claims_say_so():
    assert sorted(c for c in VERDICTS if kind(c) == "cannot be checked here") == sorted(UNCHECKABLE)


# ============================================================ the paper's numbers (the citation)

# Vaswani et al. 2017, "Attention Is All You Need", arXiv:1706.03762, LaTeX source.
# Table 2: newstest2014 BLEU (EN-DE, EN-FR) and training cost in FLOPs (EN-DE, EN-FR).
TABLE_2 = {
    "GNMT + RL": ("24.6", "39.92", "2.3", "19", "1.4", "20"),
    "ConvS2S": ("25.16", "40.46", "9.6", "18", "1.5", "20"),
    "MoE": ("26.03", "40.56", "2.0", "19", "1.2", "20"),
    "GNMT + RL Ensemble": ("26.30", "41.16", "1.8", "20", "1.1", "21"),
    "ConvS2S Ensemble": ("26.36", "41.29", "7.7", "19", "1.2", "21"),
    "Transformer (base model)": ("27.3", "38.1", "3.3", "18", "3.3", "18"),  # one figure for both
    "Transformer (big)": ("28.4", "41.8", "2.3", "19", "2.3", "19"),
}
# Table 3: English-to-German dev set (newstest2013) BLEU.
TABLE_3 = {"base (8 heads, sinusoidal positions)": "25.8", "(A) 1 head": "24.9",
           "(E) learned positional embedding instead of sinusoids": "25.7"}


@pytest.mark.claim("The page quotes Table 2 of Vaswani et al. 2017 exactly: big 28.4/41.8 BLEU at 2.3e19 FLOPs, "
                   "base 27.3/38.1 at 3.3e18, GNMT+RL 24.6/39.92")
def test_table_2_quoted_exactly():
    page = PAGE.read_text(encoding="utf-8")
    for model, (de, fr, m_de, e_de, m_fr, e_fr) in TABLE_2.items():
        row = f"| {model} | {de} | {fr} | ${m_de}\\cdot10^{{{e_de}}}$ | ${m_fr}\\cdot10^{{{e_fr}}}$ |"
        assert row in page, row
    assert v("paper_big_en_de") == 28.4 and v("paper_big_en_fr") == 41.8 and v("paper_base_en_de") == 27.3
    assert v("paper_gnmt_en_de") == 24.6 and VALUES["paper_gnmt_ens_en_de"]["text"] == "26.30"
    assert VALUES["paper_flops_big"]["text"] == "2.3·10^19" and VALUES["paper_flops_base"]["text"] == "3.3·10^18"


@pytest.mark.claim("The page quotes Table 3 of Vaswani et al. 2017 exactly: base 25.8, one head 24.9, learned positions 25.7 (dev BLEU)")
def test_table_3_quoted_exactly():
    page = PAGE.read_text(encoding="utf-8")
    for variation, bleu in TABLE_3.items():
        assert f"| {variation} | {bleu} |" in page
    assert (v("paper_dev_base"), v("paper_dev_one_head"), v("paper_dev_learned_pe")) == (25.8, 24.9, 25.7)
    assert "41.0" in page  # the §6.1 prose figure, flagged on the page


@pytest.mark.claim("Every decimal number typed into the claims page's prose is a figure quoted from Tables 2 and 3 "
                   "of Vaswani et al. 2017 (or its §6.1 prose figure 41.0)")
def test_typed_numbers_in_the_prose_are_citations():
    text = PAGE.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)  # code and output blocks
    text = re.sub(r"\{\{.*?\}\}", "", text)  # values from snippets
    prose = "\n".join(line for line in text.splitlines() if not line.startswith(("|", "--8<--", "![")))
    numbers = set(re.findall(r"(?<![\w.§:])\d+\.\d+(?![\w.])", prose))  # not §6.1, arXiv:1706.03762
    cited = {n for row in TABLE_2.values() for n in row[:2]} | set(TABLE_3.values()) | {"41.0", "41.8"}
    assert numbers and numbers <= cited, numbers - cited
    flat = " ".join(prose.split())
    assert "RNN rows of Table 2 score 24.6 (GNMT + RL) and 26.30 (its ensemble) on EN-DE" in flat
    assert "So 25.8 is the Transformer base model on the development set" in flat
    assert "The 28.4 is Transformer (big)" in flat


@claim("C000-07")
def test_c000_07_25_8_is_not_an_rnn_score():
    rnn_en_de = [float(TABLE_2[m][0]) for m in ("GNMT + RL", "GNMT + RL Ensemble")]
    assert 25.8 not in rnn_en_de and TABLE_3["base (8 heads, sinusoidal positions)"] == "25.8"
    assert kind("C000-07") == "does not hold"


@claim("C000-08")
def test_c000_08_28_4_is_transformer_big():
    assert TABLE_2["Transformer (big)"][0] == "28.4" and kind("C000-08") == "holds"


@claim("C000-09")
def test_c000_09_no_3x_speedup_in_flops():
    big, gnmt = 2.3e19, float(TABLE_2["GNMT + RL"][2]) * 10 ** int(TABLE_2["GNMT + RL"][3])
    base, convs2s = 3.3e18, 9.6e18
    assert big / gnmt == pytest.approx(1.0)
    assert f"{convs2s / base:.1f}" == VALUES["flops_ratio_convs2s"]["text"] == "2.9"
    assert f"{gnmt / base:.1f}" == VALUES["flops_ratio_gnmt"]["text"] == "7.0"
    assert kind("C000-09") == "does not hold"


@claim("C000-26")
def test_c000_26_learned_positions_nearly_identical():
    assert abs(float(TABLE_3["(E) learned positional embedding instead of sinusoids"]) - 25.8) < 0.15
    assert kind("C000-26") == "holds"


# ============================================================ why attention


@claim("C000-04")
def test_c000_04_words_between_cat_and_mat():
    words = "The cat sat on the mat".split()
    assert words.index("mat") - words.index("cat") - 1 == 3 == v("cat_mat_between")
    assert words.index("mat") - words.index("cat") == 4 == v("cat_mat_steps")
    assert kind("C000-04") == "does not hold"


@claim("C000-06")
@pytest.mark.parametrize("n", [512, 1024])
def test_c000_06_conv_layers_grow_linearly_or_logarithmically(n):
    contiguous = math.ceil((n - 1) / 2)  # receptive field 1 + 2L >= n for width-3 kernels
    dilated = math.ceil(math.log(n, 3) - 1e-12)  # 3^L >= n with dilations 1, 3, 9, ...
    assert v(f"conv_contiguous_{n}") == contiguous and v(f"conv_dilated_{n}") == dilated
    assert contiguous < n and dilated <= math.log2(n)
    assert kind("C000-06") == "does not hold"


@claim("C000-11")
def test_c000_11_one_layer_links_first_and_last():
    moved = X.copy()
    moved[0] += 1.0
    assert np.abs(attend(moved, W)[0][-1] - attend(X, W)[0][-1]).max() > 0.01
    assert kind("C000-11") == "holds" and kind("C003-33") == "holds"


@claim("C003-02")
def test_c003_02_causal_mask_cuts_the_direct_path():
    changed = X.copy()
    changed[-1] += 1.0
    without = np.abs(attend(changed, W)[0][:-1] - attend(X, W)[0][:-1]).max()
    with_mask = np.abs(attend(changed, W, causal(7))[0][:-1] - attend(X, W, causal(7))[0][:-1]).max()
    assert without > 0.01 and with_mask == 0.0 and v("leak_causal") == 0.0
    assert kind("C003-02") == kind("C003-09") == "holds only when"


@claim("C003-03")
def test_c003_03_cost_grows_quadratically():
    assert v("n_score_entries_4096") / v("n_score_entries_512") == (4096 / 512) ** 2
    assert kind("C003-03") == "does not hold"


@claim("C000-02")
def test_c000_02_four_steps_equal_the_formula():
    q, k, val = (X @ m for m in W)
    scores = q @ k.T / math.sqrt(8)
    steps = np.array([softmax_row(list(r)) for r in scores]) @ val
    np.testing.assert_allclose(steps, attend(X, W)[0], rtol=1e-12)
    assert kind("C000-02") == kind("C003-14") == kind("C003-15") == kind("C000-12") == "holds"


# ============================================================ queries, keys, values


@claim("C000-14")
def test_c000_14_same_word_differs_only_through_positions():
    same = np.repeat(X[:1], 5, axis=0)
    q = same @ W[0]
    assert np.abs(q - q[0]).max() == 0.0
    pe = np.array([[positional_encoding(p, i, 8) for i in range(8)] for p in range(5)])
    q_pe = (same + pe) @ W[0]
    assert np.abs(q_pe[4] - q_pe[0]).max() > 0.01
    assert kind("C000-14") == "holds only when"


@claim("C000-58")
def test_c000_58_self_match_wins_only_with_shared_projections():
    separate = shared = 0
    local = np.random.default_rng(58)
    for _ in range(200):
        x = local.normal(size=(6, 64))
        wq, wk = local.normal(scale=0.125, size=(2, 64, 32))
        separate += np.sum(((x @ wq) @ (x @ wk).T).argmax(-1) == np.arange(6))
        shared += np.sum(((x @ wq) @ (x @ wq).T).argmax(-1) == np.arange(6))
    assert abs(separate / 1200 - 1 / 6) < 0.05 and shared / 1200 > 0.9
    assert kind("C000-58") == "holds only when"


@claim("C000-60")
def test_c000_60_values_do_not_change_the_pattern():
    _, w1 = attend(X, W)
    _, w2 = attend(X, (W[0], W[1], rng.normal(size=(8, 8))))
    assert np.abs(w1 - w2).max() == 0.0 and v("w_v_weight_change") == 0.0
    assert kind("C000-60") == "does not hold"


@claim("C000-81")
@given(st.floats(0.1, 10))
def test_c000_81_dot_product_is_not_cosine(scale):
    q, k = np.array([1.0, 2.0, -0.5]), np.array([0.3, -1.0, 2.0])
    cos = lambda a, b: a @ b / math.hypot(*a) / math.hypot(*b)  # noqa: E731
    assert (scale * q) @ k == pytest.approx(scale * (q @ k))
    assert cos(scale * q, k) == pytest.approx(cos(q, k))
    assert kind("C000-81") == "does not hold"


@claim("C003-12")
def test_c003_12_shared_projection_gives_symmetric_scores_not_weights():
    q = X @ W[0]
    scores = q @ q.T
    weights = np.array([softmax_row(list(r)) for r in scores])
    assert np.abs(scores - scores.T).max() < 1e-12
    assert np.abs(weights - weights.T).max() > 0.01
    assert kind("C003-12") == "holds only when" and kind("G-02") == "does not hold"


@claim("C003-17")
@given(st.lists(st.floats(-30, 30), min_size=2, max_size=7, unique=True))
def test_c003_17_softmax_keeps_order_within_a_row(row):
    weights = softmax_row(row)
    for i in range(len(row)):
        for j in range(len(row)):
            if row[i] < row[j] - 1e-9:
                assert weights[i] <= weights[j]
    assert kind("C003-17") == "holds only when"


@claim("C003-23")
def test_c003_23_contribution_depends_on_value_length():
    weights = np.array([0.6, 0.4])
    values = np.array([[1.0, 0.0], [0.0, 3.0]])
    contributions = np.linalg.norm(weights[:, None] * values, axis=-1)
    assert contributions.argmax() != weights.argmax()
    assert v("rows_top_weight_not_top_contribution") >= 1
    assert kind("C003-23") == "holds only when"


@claim("C003-24")
def test_c003_24_value_gradient_is_weights_transposed_times_upstream():
    q, k, val = (X @ m for m in W)
    g = rng.normal(size=(7, 8))
    _, weights = oracle_attention(q.tolist(), k.tolist(), val.tolist())

    def loss(vv):
        return float(np.sum(np.array(oracle_attention(q.tolist(), k.tolist(), vv.tolist())[0]) * g))

    numeric = np.zeros_like(val)
    for i in np.ndindex(val.shape):
        step = np.zeros_like(val)
        step[i] = 1e-6
        numeric[i] = (loss(val + step) - loss(val - step)) / 2e-6
    np.testing.assert_allclose(numeric, np.array(weights).T @ g, rtol=1e-6, atol=1e-8)
    assert v("gradcheck_error") < 1e-6 and kind("C003-24") == "holds"


@claim("G-01")
def test_g01_every_head_sees_every_feature():
    w_q = rng.normal(size=(8, 8))
    nudged = X.copy()
    nudged[:, -1] += 1.0
    head0 = lambda x: (x @ w_q)[:, :4]  # noqa: E731  head 0 of 2 = the first 4 columns
    assert np.abs(head0(nudged) - head0(X)).max() > 0.01
    assert kind("G-01") == "does not hold"


# ============================================================ scaling and softmax


@claim("C000-16")
@pytest.mark.parametrize("d_k", [16, 64, 512])
def test_c000_16_dot_product_variance_is_d_k(d_k):
    local = np.random.default_rng(1000 + d_k)
    dots = np.einsum("nd,nd->n", local.standard_normal((20000, d_k)), local.standard_normal((20000, d_k)))
    assert dots.var() == pytest.approx(d_k, rel=0.05) and abs(dots.mean()) < 0.1 * math.sqrt(d_k)
    assert v(f"var_dot_{d_k}") == pytest.approx(d_k, rel=0.05)
    assert v(f"var_scaled_{d_k}") == pytest.approx(1.0, rel=0.05)
    assert kind("C000-16") == kind("C000-20") == "holds"


@claim("C000-17")
def test_c000_17_two_sigma_share():
    expected = math.erf(2 / math.sqrt(2))  # P(|N(0, 64)| <= 16) = P(|Z| <= 2)
    assert v("share_within_16") == pytest.approx(expected, abs=0.01)
    assert kind("C000-17") == "holds"


@claim("C000-18")
def test_c000_18_saturation_is_about_gaps():
    assert math.exp(10) == pytest.approx(22026, abs=1) and math.exp(20) == pytest.approx(4.85e8, rel=0.01)
    assert softmax_row([1000.0, 1001.0, 1002.0]) == pytest.approx(softmax_row([0.0, 1.0, 2.0]), abs=1e-15)
    top = math.exp(10) / (math.exp(10) + 5)
    assert VALUES["gap10_top"]["text"] == f"{top:.5f}"
    assert kind("C000-18") == "holds only when"


@claim("C000-19")
def test_c000_19_jacobian_vanishes_when_saturated():
    one_hot = np.array([1.0, 0, 0, 0])
    assert np.abs(np.diag(one_hot) - np.outer(one_hot, one_hot)).max() == 0.0
    uniform = np.full(4, 0.25)
    assert np.linalg.norm(np.diag(uniform) - np.outer(uniform, uniform)) > 0.4
    assert v("jacobian_unscaled") < v("jacobian_scaled")
    assert kind("C000-19") == kind("C003-19") == "holds"


def seed000_head(w_std, scale=True, seed=0):
    """Seed 000's head 0, written independently: X + PE (oracle), W with std w_std, causal mask."""
    local = np.random.default_rng(seed)
    x = local.standard_normal((6, 128)) + np.array([[positional_encoding(p, i, 128) for i in range(128)] for p in range(6)])
    w_q, w_k = local.standard_normal((2, 128, 64)) * w_std
    scores = (x @ w_q) @ (x @ w_k).T / (8.0 if scale else 1.0)
    return np.where(np.tril(np.ones((6, 6))) == 1, scores, -1e9)


@claim("C000-21")
def test_c000_21_unscaled_seed_code_gives_nan_not_0_999():
    scores = seed000_head(1.0, scale=False)
    assert scores.max() > math.log(np.finfo(float).max)
    with np.errstate(over="ignore", invalid="ignore"):
        naive = np.exp(scores) / np.exp(scores).sum(-1, keepdims=True)
    assert np.isnan(naive).any() and v("seed000_unscaled_nan_rows") >= 1
    assert kind("C000-21") == "does not hold"


@claim("C000-22")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_c000_22_scaling_alone_leaves_the_seed_one_hot(seed):
    weights = softmax(seed000_head(1.0, seed=seed))
    assert weights.max(-1).mean() > 0.95
    fixed = softmax(seed000_head(128**-0.5, seed=seed))
    assert fixed[1:].max(-1).mean() < 0.9  # row 0 sees one key under the causal mask
    assert kind("C000-22") == kind("C000-65") == "does not hold"
    assert kind("C000-23") == kind("C003-41") == "holds only when"


@claim("C003-20")
@pytest.mark.parametrize("std,low,high", [(0.01, 0, 0.1), (128**-0.5, 0.5, 3), (1.0, 50, 1e4)])
def test_c003_20_scaled_variance_depends_on_the_projections(std, low, high):
    scores = seed000_head(std)
    visible = scores[np.tril(np.ones((6, 6))) == 1]
    assert low < visible.std() < high
    assert kind("C003-20") == kind("C003-18") == kind("C003-21") == "holds only when"


@claim("C003-22")
@given(st.lists(st.floats(-700, 700), min_size=1, max_size=9))
def test_c003_22_rows_sum_to_one(row):
    assert sum(softmax(np.array(row))) == pytest.approx(1.0, abs=1e-12)
    assert kind("C003-22") == "holds"


@claim("C003-25")
@given(st.lists(st.floats(-50, 50), min_size=1, max_size=9))
def test_c003_25_max_subtraction_changes_nothing(row):
    naive = np.exp(row) / np.sum(np.exp(row))
    np.testing.assert_allclose(softmax(np.array(row)), naive, rtol=1e-12)
    assert kind("C003-25") == kind("C003-42") == "holds"


@claim("G-03")
def test_g03_dividing_by_d_k_flattens_the_weights():
    local = np.random.default_rng(3)
    q, k = local.standard_normal((2, 6, 64))
    flat = np.array([softmax_row(list(r)) for r in q @ k.T / 64]).max(-1).mean()
    assert flat < 1 / 6 + 0.1 and kind("G-03") == "does not hold"


@claim("G-04")
def test_g04_scale_is_a_temperature():
    s = rng.normal(size=5)
    t = math.sqrt(64)
    assert softmax_row(list(s / t)) == pytest.approx([math.exp(a / t) / sum(math.exp(b / t) for b in s) for a in s])
    assert kind("G-04") == "holds"


# ============================================================ positions and order


@claim("C003-36")
def test_c003_36_equivariant_not_invariant():
    perm = [3, 0, 6, 1, 5, 2, 4]
    out, _ = attend(X, W)
    shuffled, _ = attend(X[perm], W)
    np.testing.assert_allclose(shuffled, out[perm], rtol=1e-12, atol=1e-14)
    assert np.abs(shuffled - out).max() > 0.01
    np.testing.assert_allclose(np.sort(shuffled, 0), np.sort(out, 0), atol=1e-14)
    assert kind("C003-36") == "does not hold"
    assert kind("C000-24") == kind("C003-37") == "holds" and kind("C003-38") == "holds only when"


@claim("C000-84")
def test_c000_84_causal_mask_or_positions_break_the_symmetry():
    perm = [3, 0, 6, 1, 5, 2, 4]
    causal_gap = np.abs(attend(X[perm], W, causal(7))[0] - attend(X, W, causal(7))[0][perm]).max()
    pe = np.array([[positional_encoding(p, i, 8) for i in range(8)] for p in range(7)])
    pe_gap = np.abs(attend(X[perm] + pe, W)[0] - attend(X + pe, W)[0][perm]).max()
    assert causal_gap > 0.01 and pe_gap > 0.01
    assert kind("C000-84") == kind("C000-83") == "holds only when" and kind("C003-46") == "holds"


@claim("C000-29")
def test_c000_29_distance_depends_only_on_offset():
    pe = np.array([[positional_encoding(p, i, 16) for i in range(16)] for p in range(30)])
    dist = lambda i, j: float(np.linalg.norm(pe[i] - pe[j]))  # noqa: E731
    for offset in range(1, 20):
        assert max(dist(i, i + offset) for i in range(10)) - min(dist(i, i + offset) for i in range(10)) < 1e-12
    profile = [dist(0, j) for j in range(30)]
    assert any(b < a for a, b in zip(profile[1:], profile[2:]))  # not monotone
    assert kind("C000-29") == "holds"


@claim("C000-30")
def test_c000_30_seed_formula_is_the_paper_formula():
    for p in range(6):
        for j in range(0, 16, 2):
            assert math.sin(p / 10000 ** (j / 16)) == pytest.approx(positional_encoding(p, j, 16), abs=1e-15)
            assert math.cos(p / 10000 ** (j / 16)) == pytest.approx(positional_encoding(p, j + 1, 16), abs=1e-15)
    assert v("pe_formula_error") < 1e-12 and kind("C000-30") == "holds"


@claim("C000-31")
def test_c000_31_low_dimensions_are_high_frequency():
    periods = [2 * math.pi * 10000 ** (j / 128) for j in range(0, 128, 2)]
    assert periods == sorted(periods) and periods[0] == pytest.approx(2 * math.pi)
    assert VALUES["period_last"]["text"] == f"{periods[-1]:,.0f}"
    assert kind("C000-31") == "does not hold"


@claim("C000-32")
def test_c000_32_positions_do_not_dominate_word_vectors():
    pe = np.array([[positional_encoding(p, i, 128) for i in range(128)] for p in range(200)])
    assert pe.std() < 0.75 < 0.95 < v("seed000_x_std") + 0.1
    assert kind("C000-32") == "does not hold" and kind("C000-33") == "holds only when"


@claim("C000-28")
def test_c000_28_encodings_exist_far_away():
    far = [positional_encoding(100_000, i, 8) for i in range(8)]
    assert all(abs(a) <= 1 for a in far) and kind("C000-28") == "holds only when"
    assert kind("C000-25") == "does not hold" and kind("C000-27") == "holds"
    np.testing.assert_array_equal(sinusoidal_positions(5, 8), sinusoidal_positions(5, 8))


@claim("C003-40")
def test_c003_40_adding_keeps_the_width():
    assert (X + X).shape[-1] == 8 and np.concatenate([X, X], -1).shape[-1] == 16
    assert (v("add_width"), v("concat_width")) == (128, 256) and kind("C003-40") == "holds only when"


# ============================================================ shapes and heads


@claim("C000-39")
def test_c000_39_fused_projection_is_concatenated_heads():
    w = rng.normal(size=(8, 8))
    fused = (X @ w).reshape(7, 2, 4).transpose(1, 0, 2)
    for h in range(2):
        np.testing.assert_allclose(fused[h], X @ w[:, 4 * h : 4 * h + 4], rtol=1e-12, atol=1e-14)
    assert kind("C000-39") == kind("C000-52") == kind("C000-38") == "does not hold"
    assert kind("C000-35") == kind("C000-36") == kind("C000-61") == "holds"
    assert VALUES["split_shapes"]["text"] == "(6, 128) -> (6, 2, 64) -> (2, 6, 64)"


@claim("C000-37")
def test_c000_37_softmax_axis_for_stacked_heads():
    scores = rng.normal(size=(2, 5, 5))
    wrong = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
    assert np.abs(wrong.sum(-1) - 1).max() > 0.1
    right = np.exp(scores) / np.exp(scores).sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(right.sum(-1), 1.0)
    assert kind("C000-37") == "holds only when"


@claim("G-05")
@pytest.mark.parametrize("L,d_model,h", [(6, 128, 2), (10, 512, 8)])
def test_g05_heads_cost_the_same(L, d_model, h):
    assert h * L * L * (d_model // h) == L * L * d_model
    assert v("madds_multi") == v("madds_single") and kind("G-05") == "holds"


# ============================================================ masks


@claim("C000-42")
def test_c000_42_triu_marks_the_future():
    mask = np.triu(np.ones((6, 6)), k=1)
    assert all((mask[i][j] == 1) == (j > i) for i in range(6) for j in range(6))
    assert kind("C000-42") == "holds"


@claim("C000-43")
def test_c000_43_minus_1e9_is_zero_unless_the_row_is_empty():
    assert math.exp(-1e9) == 0.0
    assert softmax_row([0.3, -1e9, -1e9])[1:] == [0.0, 0.0]
    assert softmax_row([-1e9] * 6) == pytest.approx([1 / 6] * 6)
    assert kind("C000-43") == "holds only when" and kind("C000-44") == kind("C000-45") == "holds"


@claim("C000-46")
def test_c000_46_mask_after_softmax_gives_negative_weights():
    weights = np.array(softmax_row([0.1, 0.2, 0.3]))
    after = weights - 1e9 * np.array([0, 1, 1])
    assert after.min() < -9e8 and kind("C000-46") == "does not hold"


@claim("G-06")
def test_g06_all_minus_inf_row_is_nan_in_the_naive_softmax():
    with np.errstate(invalid="ignore"):
        row = np.exp(np.full(4, -np.inf))
        assert np.isnan(row / row.sum()).all()
    assert v("fully_masked_inf_nan") == 6 and kind("G-06") == "does not hold"


@claim("C000-40")
def test_c000_40_padding_is_visible_without_a_mask():
    padded = np.concatenate([X[:4], np.zeros((3, 8))])
    _, weights = attend(padded, W)
    assert weights[:4, 4:].sum(-1).max() > 0.05
    _, masked = attend(padded, W, [[j < 4 for j in range(7)] for _ in range(7)])
    assert masked[:4, 4:].max() == 0.0
    assert kind("C000-40") == kind("C000-70") == "holds only when" and kind("C000-41") == "holds"


# ============================================================ the seeds' code


@claim("C000-55")
@pytest.mark.parametrize("seed", range(5))
def test_c000_55_cat_row_is_one_hot_and_masked(seed):
    from lib.claims_seeds import manual_self_attention

    with np.errstate(over="ignore", invalid="ignore"):
        weights, output = manual_self_attention(["The", "cat", "sat", "on", "the", "mat"], np.random.default_rng(seed))
    assert weights.shape == (6, 6) and output.shape == (6, 64)
    assert np.all(weights[1, 2:] == 0.0)
    assert weights[1].max() > 0.99  # never 0.45
    assert kind("C000-55") == kind("C000-56") == kind("C000-57") == "does not hold"
    assert kind("C000-50") == kind("C000-51") == "holds"


@claim("C000-53")
def test_c000_53_seed_code_needs_six_words():
    from lib.claims_seeds import manual_self_attention

    with pytest.raises(ValueError, match="could not be broadcast together with shapes \\(5,5\\) \\(6,6\\)"):
        manual_self_attention(["The", "cat", "sat", "on", "mats"], np.random.default_rng(0))
    assert kind("C000-53") == "holds only when" and kind("C000-64") == "does not hold"


@claim("C000-01")
def test_c000_01_the_function_is_about_twenty_statements():
    from lib.claims_seeds import SEED_000_CODE

    body = [line for line in SEED_000_CODE.splitlines()[2:] if line.strip() and not line.strip().startswith("#")]
    assert 20 < len(body) <= 25 and len(body) == v("seed000_statements")
    imports = ast.parse((ROOT / "snippets" / "lib" / "claims_seeds.py").read_text()).body
    assert [n.names[0].name for n in imports if isinstance(n, ast.Import)] == ["numpy"]
    assert kind("C000-01") == kind("C000-49") == "holds only when" and kind("C000-48") == "holds"


@claim("C003-26")
def test_c003_26_small_init_flattens_seed_003():
    local = np.random.default_rng(26)
    x = local.standard_normal((2, 5, 10))
    w_q, w_k, w_v = local.standard_normal((3, 10, 10)) * 0.01
    scores = (x @ w_q) @ (x @ w_k).transpose(0, 2, 1) / math.sqrt(10)
    weights = np.exp(scores) / np.exp(scores).sum(-1, keepdims=True)
    assert np.abs(weights - 0.2).max() < 0.002
    assert len({f"{w:.2f}" for w in weights[0].ravel()}) == 1 == v("seed003_labels")
    output = weights @ (x @ w_v)
    assert output.std(axis=1).max() < 1e-3
    assert kind("C003-26") == kind("C003-32") == "does not hold" and kind("C003-31") == "holds only when"


@claim("C000-71")
def test_c000_71_dead_head_at_six_tokens():
    assert abs(v("seed003_l6_min") - 1 / 6) < 0.01 and abs(v("seed003_l6_max") - 1 / 6) < 0.01
    assert kind("C000-71") == "holds"


@claim("C003-28")
def test_c003_28_seed_003_needs_batched_input():
    from lib.claims_seeds import SelfAttention

    layer = SelfAttention(10, np.random.default_rng(0))
    out, weights = layer.forward(np.ones((2, 5, 10)))
    assert (out.shape, weights.shape) == ((2, 5, 10), (2, 5, 5))
    with pytest.raises(ValueError, match="axes don't match array"):
        layer.forward(np.ones((5, 10)))
    assert kind("C003-28") == "holds only when" and kind("C003-29") == kind("C003-30") == kind("C003-44") == "holds"
    assert VALUES["seed003_row_sum"]["text"] == "1.000"


# ============================================================ debugging advice


@claim("C000-66")
def test_c000_66_clipping_changes_the_weights():
    row = [120.0, 80.0, 60.0, 0.0]
    clipped = softmax_row([min(max(s, -50), 50) for s in row])
    assert clipped[0] == pytest.approx(1 / 3) and softmax_row(row)[0] > 0.999999
    assert VALUES["clip_top"]["text"] == f"{clipped[0]:.3f}" and VALUES["clip_top_exact"]["text"] == "1.000000"
    assert kind("C000-66") == "does not hold"


@claim("C000-67")
@pytest.mark.parametrize("n", [1, 6, 512])
def test_c000_67_pe_already_peaks_at_one(n):
    pe = [[positional_encoding(p, i, 16) for i in range(16)] for p in range(n)]
    assert max(abs(a) for row in pe for a in row) == 1.0
    assert kind("C000-67") == "does not hold"


@claim("C000-73")
def test_c000_73_no_gradient_reaches_masked_scores():
    weights = np.array(softmax_row([0.5, -0.2, -math.inf, -math.inf]))
    upstream = np.array([0.3, -1.0, 2.0, 5.0])
    d_scores = weights * (upstream - weights @ upstream)  # softmax's vector-Jacobian product
    assert d_scores[2] == 0.0 and d_scores[3] == 0.0 and not np.isnan(d_scores).any()
    assert v("masked_grad") == 0.0 and kind("C000-73") == "does not hold" and kind("C000-72") == "holds"


@claim("C000-78")
@given(st.lists(st.floats(-20, 20), min_size=2, max_size=6))
def test_c000_78_l1_penalty_is_constant(row):
    base = sum(abs(w) for w in softmax_row(row))
    for i in range(len(row)):
        bumped = list(row)
        bumped[i] += 1e-3
        assert sum(abs(w) for w in softmax_row(bumped)) == pytest.approx(base, abs=1e-12)
    assert kind("C000-78") == "does not hold"


@claim("C000-79")
def test_c000_79_distance_penalty_moves_weight_far():
    distance = np.abs(np.arange(6)[:, None] - np.arange(6)[None, :])
    short = (distance <= 1).astype(float)
    logits = np.random.default_rng(79).normal(size=(6, 6))
    mean_distance = lambda s: float(np.sum(softmax(s) * distance, -1).mean())  # noqa: E731
    s = logits.copy()
    for _ in range(50):  # finite-difference gradient of sum(softmax(s) * short)
        penalty = lambda z: float(np.sum(softmax(z) * short))  # noqa: E731
        grad = np.zeros_like(s)
        for i in np.ndindex(s.shape):
            step = np.zeros_like(s)
            step[i] = 1e-6
            grad[i] = (penalty(s + step) - penalty(s - step)) / 2e-6
        s -= grad
    assert mean_distance(s) > mean_distance(logits) + 0.3
    assert v("mean_distance_after") > v("mean_distance_before") and kind("C000-79") == "holds"


# ============================================================ cost


@claim("C003-34")
def test_c003_34_training_in_parallel_equals_generation_step_by_step():
    parallel, _ = attend(X, W, causal(7))
    for t in range(7):
        alone, _ = attend(X[: t + 1], W, causal(t + 1))
        np.testing.assert_allclose(alone[t], parallel[t], rtol=1e-12, atol=1e-14)
    assert kind("C003-34") == "holds" and kind("C003-45") == "does not hold"


@claim("C003-35")
def test_c003_35_per_token_cost_with_and_without_a_cache():
    n, d = v("n_ctx"), 64
    assert v("step_madds_cache") == 2 * n * d and v("step_madds_nocache") == n * v("step_madds_cache")
    assert kind("C003-35") == "holds only when"
