"""The claims page's bookkeeping: the inventory, its counts, its tables, its references and the paper's numbers.

The inventory (snippets/lib/claims_inventory.py) is the one list of claims; snippets/claims/summary.py publishes
one table per topic and the counts the page quotes. These tests check the committed outputs against the list,
that every value an evidence text quotes exists, and the paper's numbers against the citation held here.
"""

import re

import pytest
from support import (
    CLAIMS_PAGE as PAGE,
    GENERATED,
    INVENTORY,
    kind,
    published,
    published_table,
    TABLE_2,
    TABLE_3,
    text,
    v,
    VERDICTS,
)

from lib.claims_inventory import TOPICS, table_rows
from scripts.pipeline.references import read_page, without_references

SUMMARY = "claims/summary"


def test_every_seed_claim_has_one_allowed_verdict():
    for cid in VERDICTS:
        assert re.fullmatch(r"C00[03]-\d\d|G-\d\d", cid), cid
        kind(cid)
    assert {c["topic"] for c in INVENTORY.values()} <= set(TOPICS)


def test_counts_on_the_page_come_from_the_inventory():
    kinds = [kind(c) for c in VERDICTS]
    assert v(SUMMARY, "n_holds") == kinds.count("holds")
    assert v(SUMMARY, "n_only_when") == kinds.count("holds only when")
    assert v(SUMMARY, "n_fails") == kinds.count("does not hold")
    assert v(SUMMARY, "n_unchecked") == kinds.count("cannot be checked here")
    assert v(SUMMARY, "n_claims") == len(VERDICTS)
    assert v(SUMMARY, "n_claims") == (v(SUMMARY, "n_seed000_claims") + v(SUMMARY, "n_seed003_claims")
                                      + v(SUMMARY, "n_common_claims"))
    assert v(SUMMARY, "verdicts") == VERDICTS
    page = PAGE.read_text(encoding="utf-8")
    for name in ("n_claims", "n_holds", "n_only_when", "n_fails", "n_unchecked"):
        assert (SUMMARY, name) in read_page(page).values


def test_each_topic_table_is_on_the_page_and_shows_every_claim_once():
    page = PAGE.read_text(encoding="utf-8")
    seen = []
    for topic in TOPICS:
        assert (SUMMARY, topic) in read_page(page).tables
        rows = published_table(SUMMARY, topic)
        assert len(rows) == len(table_rows(topic))
        for row in rows:
            assert row["Verdict"] == f"**{VERDICTS[row['ID']]}**"
            seen.append(row["ID"])
    assert sorted(seen) == sorted(VERDICTS)


@pytest.mark.claim("Every value the claims page's evidence quotes is published by the snippet it names")
def test_every_quoted_value_exists():
    missing = []
    for cid, claim in INVENTORY.items():
        for snippet, name in read_page(claim["evidence"]).values:
            if not (GENERATED / snippet / "values.json").exists() or name not in published(snippet):
                missing.append(f"{cid}: {snippet}.{name}")
        assert "{" not in without_references(claim["evidence"]).replace("{t-1}", ""), cid
    assert not missing, missing


def test_the_page_includes_no_stdout_by_line_range():
    assert not re.search(r'stdout\.txt:\d', PAGE.read_text(encoding="utf-8"))


UNCHECKABLE = ["C000-34", "C000-47", "C000-59", "C000-62", "C000-63", "C000-68", "C000-69", "C000-77", "C000-80",
               "C000-82", "C000-86", "C003-01", "C003-07", "C003-08", "C003-10", "C003-13", "C003-43",
               "C003-47"]


def test_uncheckable_claims_are_opinions_anecdotes_or_need_training():
    assert sorted(c for c in VERDICTS if kind(c) == "cannot be checked here") == sorted(UNCHECKABLE)


# ============================================================ the paper's numbers (the citation)


@pytest.mark.claim("The page quotes Table 2 of Vaswani et al. 2017 exactly: big 28.4/41.8 BLEU at 2.3e19 FLOPs, "
                   "base 27.3/38.1 at 3.3e18, GNMT+RL 24.6/39.92")
def test_table_2_quoted_exactly():
    page = PAGE.read_text(encoding="utf-8")
    for model, (de, fr, m_de, e_de, m_fr, e_fr) in TABLE_2.items():
        row = f"| {model} | {de} | {fr} | ${m_de}\\cdot10^{{{e_de}}}$ | ${m_fr}\\cdot10^{{{e_fr}}}$ |"
        assert row in page, row
    assert v("claims/why", "paper_big_en_de") == 28.4 and v("claims/why", "paper_big_en_fr") == 41.8
    assert v("claims/why", "paper_base_en_de") == 27.3 and v("claims/why", "paper_gnmt_en_de") == 24.6
    assert text("claims/why", "paper_gnmt_ens_en_de") == "26.30"
    assert text("claims/why", "paper_flops_big") == "2.3·10^19"


@pytest.mark.claim("The page quotes Table 3 of Vaswani et al. 2017 exactly: base 25.8, one head 24.9, learned positions 25.7 (dev BLEU)")
def test_table_3_quoted_exactly():
    page = PAGE.read_text(encoding="utf-8")
    for variation, bleu in TABLE_3.items():
        assert f"| {variation} | {bleu} |" in page
    assert (v("claims/why", "paper_dev_base"), v("claims/why", "paper_dev_one_head"),
            v("claims/why", "paper_dev_learned_pe")) == (25.8, 24.9, 25.7)
    assert "41.0" in page  # the §6.1 prose figure, flagged on the page


@pytest.mark.claim("Every decimal number typed into the claims page's prose is a figure quoted from Tables 2 and 3 "
                   "of Vaswani et al. 2017 (or its §6.1 prose figure 41.0)")
def test_typed_numbers_in_the_prose_are_citations():
    page = PAGE.read_text(encoding="utf-8")
    page = re.sub(r"```.*?```", "", page, flags=re.DOTALL)  # code and output blocks
    page = without_references(page)  # values from snippets, includes
    prose = "\n".join(line for line in page.splitlines() if not line.startswith(("|", "![")))
    numbers = set(re.findall(r"(?<![\w.§:])\d+\.\d+(?![\w.])", prose))  # not §6.1, arXiv:1706.03762
    cited = {n for row in TABLE_2.values() for n in row[:2]} | set(TABLE_3.values()) | {"41.0", "41.8"}
    assert numbers and numbers <= cited, numbers - cited
    flat = " ".join(prose.split())
    assert "RNN rows of Table 2 score 24.6 (GNMT + RL) and 26.30 (its ensemble) on EN-DE" in flat
    assert "So 25.8 is the Transformer base model on the development set" in flat
    assert "The 28.4 is Transformer (big)" in flat


def test_seed_000_rows_are_one_hot_to_four_decimals_as_the_page_says():
    """The page said "every row is one-hot"; the scaled rows are one-hot to four decimals, not exactly."""
    assert text("scaled_dot_product/seed_claims", "s000_smallest_row_max_scaled") == "1.0000"
    assert v("scaled_dot_product/seed_claims", "s000_smallest_row_max_scaled") < 1  # not exactly one-hot
    page = " ".join(PAGE.read_text(encoding="utf-8").split())
    assert "so every row is one-hot" not in page and "one-hot to four decimals" in page
