"""The claims page's bookkeeping: the inventory, its counts, its tables, its references and the paper's numbers.

The inventory (snippets/claims/claims.toml, read by snippets/lib/claims.py) is the one list of claims;
snippets/claims/summary.py publishes one table per topic and the counts the page quotes. These tests check the
committed outputs against the list, that every value an evidence text quotes exists, and the paper's numbers
against the citation held here.
"""

import fnmatch
import re
from collections import Counter

import pytest

from lib.claims import HEADER
from scripts.pipeline import published as outputs
from scripts.pipeline.references import read_page, without_references
from support import (
    CLAIMS,
    CLAIMS_PAGE as PAGE,
    GENERATED,
    INVENTORY,
    REPO,
    TABLE_2,
    TABLE_3,
    VERDICTS,
    english_words,
    flat_page,
    kind,
    nonempty_glob,
    published,
    published_table,
    text,
    v,
)

SUMMARY = "claims/summary"


def test_every_seed_claim_has_one_allowed_verdict():
    for cid in VERDICTS:
        assert re.fullmatch(r"C00[03]-\d\d|G-\d\d", cid), cid
        kind(cid)
    assert {c.topic for c in INVENTORY.values()} <= set(CLAIMS.topics)


def test_counts_on_the_page_come_from_the_inventory():
    kinds = [kind(c) for c in VERDICTS]
    assert v(SUMMARY, "n_holds") == kinds.count("holds")
    assert v(SUMMARY, "n_only_when") == kinds.count("holds only when")
    assert v(SUMMARY, "n_fails") == kinds.count("does not hold")
    assert v(SUMMARY, "n_unchecked") == kinds.count("cannot be checked here")
    assert v(SUMMARY, "n_claims") == len(VERDICTS)
    assert v(SUMMARY, "n_claims") == (
        v(SUMMARY, "n_seed000_claims") + v(SUMMARY, "n_seed003_claims") + v(SUMMARY, "n_common_claims")
    )
    assert v(SUMMARY, "verdicts") == VERDICTS
    page = PAGE.read_text(encoding="utf-8")
    for name in ("n_claims", "n_holds", "n_only_when", "n_fails", "n_unchecked"):
        assert (SUMMARY, name) in read_page(page).values


def test_each_topic_table_is_on_the_page_and_shows_every_claim_once():
    page = PAGE.read_text(encoding="utf-8")
    seen = []
    for topic in CLAIMS.topics:
        assert (SUMMARY, topic) in read_page(page).tables
        rows = published_table(SUMMARY, topic)
        assert len(rows) == len(CLAIMS.table_rows(topic))
        for row in rows:
            assert row["Verdict"] == f"**{VERDICTS[row['ID']]}**"
            seen.append(row["ID"])
    assert sorted(seen) == sorted(VERDICTS)


@pytest.mark.claim(
    "Every value the claims page's evidence quotes is published by the snippet it names",
    zh="论断核查页的证据引用的每个值，都由它所指明的代码片段发布",
)
def test_every_quoted_value_exists():
    missing = []
    for cid, claim in INVENTORY.items():
        for snippet, name in read_page(claim.evidence).values:
            if not (GENERATED / snippet / "values.json").exists() or name not in published(snippet):
                missing.append(f"{cid}: {snippet}.{name}")
        assert "{" not in without_references(claim.evidence).replace("{t-1}", ""), cid
    assert not missing, missing


NUMBER = re.compile(r"\d+(?:\.\d+)?")
CJK = re.compile(r"[\u4e00-\u9fff]")


def typed_numbers(text):
    """The numbers typed into a text, not counting the values it quotes."""
    return Counter(NUMBER.findall(without_references(text)))


def quoted(text):
    return Counter(read_page(text).values)


@pytest.mark.claim(
    "Every claims row has its claim, verdict and evidence in Chinese, quoting the same values and "
    "typing every number the English row types",
    zh="每一行论断的论断、判定和证据都有中文表述，引用的值与英文行相同，英文行写出的每个数字中文行也都写出",
)
def test_every_row_has_chinese_text_with_the_same_values_and_numbers():
    for cid, claim in INVENTORY.items():
        english = " ".join((claim.claim, claim.verdict_en, claim.evidence))
        chinese = " ".join((claim.claim_zh, claim.verdict_zh, claim.evidence_zh))
        for field in ("claim", "evidence"):  # a formula may be all a text says (C000-30): it differs by its "。"
            chinese_text = getattr(claim, f"{field}_zh")
            assert chinese_text.strip() and chinese_text != getattr(claim, field), f"{cid}: no Chinese {field}"
        assert CJK.search(claim.verdict_zh), cid
        assert quoted(claim.evidence_zh) == quoted(claim.evidence), cid
        assert not typed_numbers(english) - typed_numbers(chinese), (
            cid,
            typed_numbers(english) - typed_numbers(chinese),
        )


def test_the_chinese_rows_use_no_english_words_but_code_names_and_citations():
    found = {cid: english_words(" ".join((c.claim_zh, c.verdict_zh, c.evidence_zh))) for cid, c in INVENTORY.items()}
    assert not {cid: words for cid, words in found.items() if words}


def test_the_chinese_verdicts_say_what_the_english_ones_say():
    wording = {"holds": "成立", "does not hold": "不成立", "cannot be checked here": "此处无法核查"}
    for cid, claim in INVENTORY.items():
        if kind(cid) == "holds only when":
            assert re.fullmatch(r"仅当.+时成立", claim.verdict_zh), cid
        else:
            assert claim.verdict_zh == wording[claim.verdict_en], cid


def test_a_chinese_condition_in_latin_letters_stands_a_space_from_its_frame():
    """仅当W_q = W_k时成立 once glued the condition to its frame; Latin, digits and ASCII brackets stand one space away
    from 仅当 and 时, Chinese characters and quotes touch them."""
    for cid, claim in INVENTORY.items():
        if kind(cid) == "holds only when":
            condition = claim.condition_zh
            space_before, space_after = condition[0].isascii(), condition[-1].isascii()
            expected = f"仅当{' ' * space_before}{condition}{' ' * space_after}时成立"
            assert claim.verdict_zh == expected, cid
    assert INVENTORY["C000-58"].verdict_zh.startswith("仅当 W_q = W_k 为")


def test_the_chinese_rows_name_the_tutorials_in_chinese_and_write_no_italics():
    for topic in CLAIMS.topics:
        for cid, claim_cell, _, evidence in CLAIMS.table_rows(topic, "zh"):
            assert claim_cell.endswith(("（常见说法）", f"（种子教程 {INVENTORY[cid].source}）")), claim_cell
            for cell in (claim_cell, evidence):
                assert "*" not in re.sub(r"`[^`]*`", "", cell).replace("**", ""), cell
                prose = re.sub(r"\]\([^)]*\)", "]", cell)  # a link's address (#seed-claims) is not prose
                assert not re.search(r"\bseed\b|et al", prose, re.IGNORECASE), cell
                assert '"' not in without_references(cell), cell  # “” around quotations


@pytest.mark.claim(
    "The Chinese claims tables come from the same run as the English ones: the same ids, the same "
    "verdicts, the same quoted values, in Chinese",
    zh="中文论断表格与英文表格来自同一次运行：编号、判定和引用的值都相同，文字是中文",
)
def test_each_topic_has_a_chinese_table_with_the_same_ids_verdicts_and_values():
    for topic in CLAIMS.topics:
        english, chinese = outputs.table(SUMMARY, topic), outputs.table(SUMMARY, topic, language="zh")
        assert chinese["header"] == HEADER["zh"]
        assert [row[0] for row in chinese["rows"]] == [row[0] for row in english["rows"]]
        for (cid, claim, verdict, evidence), english_row in zip(chinese["rows"], english["rows"]):
            assert verdict == f"**{INVENTORY[cid].verdict_zh}**" and english_row[2] == f"**{VERDICTS[cid]}**"
            assert quoted(evidence) == quoted(english_row[3]), cid
            assert english_words(" ".join((claim, verdict, evidence))) == [], cid


def test_the_chinese_table_of_the_seeds_mask_shows_the_same_numbers():
    english = outputs.table("claims/masks", "seed000_minus_1e9")
    chinese = outputs.table("claims/masks", "seed000_minus_1e9", language="zh")
    assert [NUMBER.findall(cell) for row in chinese["rows"] for cell in row] == [
        NUMBER.findall(cell) for row in english["rows"] for cell in row
    ]
    assert english_words(" ".join([*chinese["header"], *(cell for row in chinese["rows"] for cell in row)])) == []


def test_the_chinese_page_explains_the_verdicts_its_rows_use_and_no_longer_says_they_are_english():
    page = flat_page("claims.md", "docs-zh")
    wordings = {claim.verdict_zh for claim in INVENTORY.values() if kind(claim.id) != "holds only when"}
    for verdict in (*sorted(wordings), "仅当……时成立"):
        assert f"- **{verdict}**：" in page, verdict
    assert "用英文" not in page and "英文转述" not in page
    assert "Vaswani 等人 2017" in page and "et al" not in page


def test_the_page_includes_no_stdout_by_line_range():
    assert not re.search(r"stdout\.txt:\d", PAGE.read_text(encoding="utf-8"))


UNCHECKABLE = [
    "C000-34",
    "C000-47",
    "C000-59",
    "C000-62",
    "C000-63",
    "C000-68",
    "C000-69",
    "C000-75",
    "C000-77",
    "C000-80",
    "C000-82",
    "C000-86",
    "C003-01",
    "C003-07",
    "C003-08",
    "C003-10",
    "C003-13",
    "C003-43",
    "C003-47",
]


def test_uncheckable_claims_are_opinions_anecdotes_or_need_training():
    assert sorted(c for c in VERDICTS if kind(c) == "cannot be checked here") == sorted(UNCHECKABLE)
    # seed 000 gives its 1.2 BLEU as the author's own run ("我尝试去掉Wₒ"), not as the paper's
    assert "author's own run" in INVENTORY["C000-63"].evidence and "作者自己" in INVENTORY["C000-63"].evidence_zh


# ============================================================ the paper's numbers (the citation)


@pytest.mark.claim(
    "The page quotes Table 2 of Vaswani et al. 2017 exactly: big 28.4/41.8 BLEU at 2.3e19 FLOPs, "
    "base 27.3/38.1 at 3.3e18, GNMT+RL 24.6/39.92",
    zh="本页逐字引用 Vaswani 等人 2017 的表 2：big 为 28.4/41.8 BLEU、2.3e19 FLOPs，"
    "base 为 27.3/38.1、3.3e18，GNMT+RL 为 24.6/39.92",
)
def test_table_2_quoted_exactly():
    page = PAGE.read_text(encoding="utf-8")
    for model, (de, fr, m_de, e_de, m_fr, e_fr) in TABLE_2.items():
        row = f"| {model} | {de} | {fr} | ${m_de}\\cdot10^{{{e_de}}}$ | ${m_fr}\\cdot10^{{{e_fr}}}$ |"
        assert row in page, row
    assert v("claims/why", "paper_big_en_de") == 28.4 and v("claims/why", "paper_big_en_fr") == 41.8
    assert v("claims/why", "paper_base_en_de") == 27.3 and v("claims/why", "paper_gnmt_en_de") == 24.6
    assert text("claims/why", "paper_gnmt_ens_en_de") == "26.30"
    assert text("claims/why", "paper_flops_big") == "2.3·10^19"


@pytest.mark.claim(
    "The page quotes Table 3 of Vaswani et al. 2017 exactly: base 25.8, one head 24.9, learned positions 25.7 (dev "
    "BLEU)",
    zh="本页逐字引用 Vaswani 等人 2017 的表 3：base 为 25.8，1 个头为 24.9，学习得到的位置编码为 25.7（开发集 BLEU）",
)
def test_table_3_quoted_exactly():
    page = PAGE.read_text(encoding="utf-8")
    for variation, bleu in TABLE_3.items():
        assert f"| {variation} | {bleu} |" in page
    assert (
        v("claims/why", "paper_dev_base"),
        v("claims/why", "paper_dev_one_head"),
        v("claims/why", "paper_dev_learned_pe"),
    ) == (25.8, 24.9, 25.7)
    assert "41.0" in page  # the §6.1 prose figure, flagged on the page


@pytest.mark.claim(
    "Every decimal number typed into the claims page's prose is a figure quoted from Tables 2 and 3 "
    "of Vaswani et al. 2017 (or its §6.1 prose figure 41.0)",
    zh="论断核查页正文中手写的每个小数，都是引自 Vaswani 等人 2017 表 2 和表 3 的数字（或其 §6.1 正文中的 41.0）",
)
def test_typed_numbers_in_the_prose_are_citations():
    page = PAGE.read_text(encoding="utf-8")
    page = re.sub(r"```.*?```", "", page, flags=re.DOTALL)  # code and output blocks
    page = without_references(page)  # values from snippets, includes
    prose = "\n".join(line for line in page.splitlines() if not line.startswith(("|", "![")))
    numbers = set(re.findall(r"(?<![\w.§:])\d+\.\d+(?![\w.])", prose))  # not §6.1, arXiv:1706.03762
    cited = {n for row in TABLE_2.values() for n in row[:2]} | set(TABLE_3.values()) | {"41.0", "41.8"}
    assert numbers and numbers <= cited, numbers - cited
    flat = " ".join(prose.split())
    recurrent = flat[flat.index("The recurrent rows of Table 2") :].partition(" on EN-DE.")[0]
    assert all(f"{TABLE_2[model][0]} ({model}" in recurrent for model in ("GNMT + RL", "MoE", "GNMT + RL Ensemble"))
    assert "Table 2, selected rows" in flat and "Table 3, selected rows" in flat  # the paper's tables are longer
    assert "So 25.8 is the Transformer base model on the development set" in flat
    assert "The 28.4 is Transformer (big)" in flat


def test_seed_000_rows_are_one_hot_to_four_decimals_as_the_page_says():
    """The page said "every row is one-hot"; the scaled rows are one-hot to four decimals, not exactly."""
    assert text("scaled_dot_product/seed_claims", "s000_smallest_row_max_scaled") == "1.0000"
    assert v("scaled_dot_product/seed_claims", "s000_smallest_row_max_scaled") < 1  # not exactly one-hot
    page = " ".join(PAGE.read_text(encoding="utf-8").split())
    assert "so every row is one-hot" not in page and "one-hot to four decimals" in page


def test_a_chinese_condition_that_begins_or_ends_in_latin_is_set_off_by_a_space():
    """仅当 q 和 k 的分量方差为 1 时成立, not 仅当q……为 1时成立 (one space between Chinese and Latin or digits)."""
    checked = 0
    for cid, claim in INVENTORY.items():
        if kind(cid) == "holds only when":
            verdict = claim.verdict_zh
            assert not re.search(r"仅当[A-Za-z0-9(`]|[A-Za-z0-9)`]时成立$", verdict), (cid, verdict)
            checked += bool(re.search(r"仅当 [A-Za-z0-9(`]|[A-Za-z0-9)`] 时成立$", verdict))
    assert checked >= 5


@pytest.mark.parametrize("folder", ["docs", "docs-zh"])
def test_every_snippet_name_the_claims_page_writes_matches_a_file(folder):
    """The page once said "or any `claims_*.py`", a name no file in snippets/claims/ has."""
    page = (REPO / folder / "claims.md").read_text(encoding="utf-8")
    names = set(re.findall(r"`(?:snippets/claims/)?([\w*]+\.py)`", page))
    folder_files = {path.name for path in nonempty_glob(REPO / "snippets" / "claims", "*.py")}
    assert names and not {name for name in names if not fnmatch.filter(folder_files, name)}
