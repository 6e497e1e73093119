"""The claims file (snippets/claims/claims.toml) and its reader (snippets/lib/claims.py): the file loads, every page
it links to exists in both editions, a notebook's carried copy is what the reader reads, and each kind of bad record
is refused with an error naming the claim and the field."""

import re
import types

import pytest

import lib
from lib import claims as reader
from scripts.pipeline.notebooks import data_cell, data_files
from support import CLAIMS, DOCS, DOCS_ZH, PROJECT

TEXT = (PROJECT.snippets / reader.DATA).read_text(encoding="utf-8")
FIRST = TEXT.index("\n[[claims]]\n")  # the first record, C000-02, runs to the second one
SECOND = TEXT.index("\n[[claims]]\n", FIRST + 1)
CONDITION = re.search(r"\ncondition = .*\ncondition_zh = .*", TEXT[FIRST:SECOND]).group(0)  # C000-02 is only_when


def first_record_changed(old, new):
    """The file's text with ``old`` replaced by ``new`` in its first record only."""
    record = TEXT[FIRST:SECOND]
    assert old in record, old
    return TEXT[:FIRST] + record.replace(old, new, 1) + TEXT[SECOND:]


def test_the_file_holds_every_claim_once_with_named_fields():
    assert len(CLAIMS.claims) == 180 and CLAIMS.claims[0].id == "C000-02"
    assert [claim.verdict for claim in CLAIMS.claims].count("only_when") == 57
    assert {claim.verdict for claim in CLAIMS.claims} == set(reader.VERDICTS)


@pytest.mark.parametrize("edition", [DOCS, DOCS_ZH], ids=["en", "zh"])
def test_every_linked_page_and_anchor_exists_in_both_editions(edition):
    links = {claim.see for claim in CLAIMS.claims if claim.see}
    assert links
    for link in links:
        page, _, anchor = link.partition("#")
        assert (edition / page).exists(), f"{reader.DATA}: see = {link!r} has no page in {edition.name}/"
        if anchor:
            assert re.search(rf"\{{#{anchor}\}}", (edition / page).read_text(encoding="utf-8")), link


def test_a_notebook_carries_the_file_and_the_reader_reads_that_copy(monkeypatch):
    carried = data_files(PROJECT, ["claims/summary", "claims/why"])
    assert carried == {reader.DATA: TEXT}
    notebook = {"sys": types.SimpleNamespace(modules={"lib": types.SimpleNamespace()})}
    exec(data_cell(carried), notebook)  # the notebook's hidden cell
    assert notebook["sys"].modules["lib"].data_files == carried
    changed = first_record_changed(f"verdict = 'only_when'{CONDITION}", "verdict = 'fails'")
    monkeypatch.setattr(lib, "data_files", {reader.DATA: changed}, raising=False)
    assert reader.load().claims[0].verdict_en == "does not hold"


BAD_RECORDS = {
    "unknown field": (
        ("see = 'scaled-dot-product.md'", "see = 'scaled-dot-product.md'\ncolour = 'red'"),
        "claim C000-02: unknown field colour",
    ),
    "missing field": (("\nevidence_zh = ", "\nevidence_in_chinese = "), "claim C000-02: missing field evidence_zh"),
    "unknown verdict": (
        (f"verdict = 'only_when'{CONDITION}", "verdict = 'true'"),
        "claim C000-02: field verdict: unknown verdict 'true'",
    ),
    "only_when without its condition": (
        (CONDITION, ""),
        "claim C000-02: missing field condition, condition_zh",
    ),
    "a condition without only_when": (
        ("verdict = 'only_when'", "verdict = 'holds'"),
        "claim C000-02: unknown field condition",
    ),
    "unknown topic": (("topic = 'why'", "topic = 'history'"), "claim C000-02: field topic: unknown topic 'history'"),
    "not a string": (("source = '000 §1'", "source = 1"), "claim C000-02: field source: not a string"),
    "repeated id": (("id = 'C000-02'", "id = 'C000-03'"), "claim C000-03: field id: C000-03 is listed twice"),
}


@pytest.mark.parametrize("planted", BAD_RECORDS)
def test_a_bad_record_is_refused_naming_the_claim_and_the_field(planted):
    (old, new), message = BAD_RECORDS[planted]
    with pytest.raises(reader.ClaimsError) as error:
        reader.load(first_record_changed(old, new))
    assert str(error.value).startswith(f"{reader.DATA}: {message}"), str(error.value)


def test_an_unknown_table_is_refused_naming_it():
    with pytest.raises(reader.ClaimsError, match=r"unknown tables \['claim'\]"):
        reader.load(TEXT.replace("\n[[claims]]\n", "\n[[claim]]\n", 1))


def test_text_that_is_not_toml_is_refused_naming_the_file_and_line():
    with pytest.raises(reader.ClaimsError, match=r"^claims/claims.toml: not valid TOML: .*line 19"):
        reader.load(TEXT.replace("why = 'Why attention, and the paper'", "why = Why attention"))


# Rows whose evidence a reader did not find where the row links (fourth reading): each now links where its numbers
# stand. A chapter's value stands on the linked page as {{ … }}; a value of the claims snippets that print the seeds'
# runs stands in the output the claims page shows under "How the audit measures".
LINKED_WHERE_SHOWN = ("C000-22", "C000-65", "C003-26", "C000-41", "C000-72", "G-06", "C000-71", "C000-56", "C000-57")
SHOWN_IN_THE_SEEDS_RUNS = ("C000-53", "C000-64", "C003-31", "C003-32")


@pytest.mark.parametrize("cid", LINKED_WHERE_SHOWN)
def test_a_rows_chapter_values_stand_on_the_page_it_links(cid):
    from scripts.pipeline.references import read_page

    claim = next(c for c in CLAIMS.claims if c.id == cid)
    page = read_page((DOCS / claim.see.partition("#")[0]).read_text(encoding="utf-8")).values
    quoted = [value for value in read_page(claim.evidence).values if not value[0].startswith("claims/")]
    assert quoted and not [v for v in quoted if v not in page], f"{cid}: not on {claim.see}: {quoted}"


@pytest.mark.parametrize("cid", SHOWN_IN_THE_SEEDS_RUNS)
def test_a_rows_seed_run_values_are_printed_in_the_section_it_links(cid):
    from scripts.pipeline.references import read_page

    claim = next(c for c in CLAIMS.claims if c.id == cid)
    assert claim.see == "claims.md#how-the-audit-measures"
    quoted = read_page(claim.evidence).values
    printed = {
        snippet: (PROJECT.generated / snippet / "stdout.txt").read_text(encoding="utf-8") for snippet, _ in quoted
    }
    assert quoted and all(f"\n{name} = " in "\n" + printed[snippet] for snippet, name in quoted), cid
    page = (DOCS / "claims.md").read_text(encoding="utf-8")
    assert all(f'--8<-- "docs/generated/{snippet}/stdout.txt"' in page for snippet in printed), cid
