"""The corrections page and its log (snippets/corrections/corrections.toml, read by snippets/lib/corrections.py):
each record's test exists, its page and anchor exist in both editions, its new wording stands on the page and its
old wording is gone, every value it quotes is published, the page's table lists every record, and each kind of bad
record is refused with an error naming the record and the field."""

import ast
import json
import re

import pytest
from markdown.extensions.toc import slugify

import lib
from lib import corrections as reader
from lib.claims import load as load_claims
from scripts.pipeline.notebooks import data_files
from scripts.pipeline.references import read_page
from support import DOCS, DOCS_ZH, PROJECT, REPO, flat_page, published, published_table

TEXT = (PROJECT.snippets / reader.DATA).read_text(encoding="utf-8")
CORRECTIONS = reader.load()
CLAIMS = load_claims().claims
FIRST = TEXT.index("\n[[corrections]]\n")  # the first record runs to the second one
SECOND = TEXT.index("\n[[corrections]]\n", FIRST + 1)
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^#{1,6} (?P<text>.+?)(?:\s*\{#(?P<id>[\w-]+)[^}]*\})?\s*$", re.MULTILINE)
EDITIONS = {"en": DOCS, "zh": DOCS_ZH}


def anchors(markdown):
    """The ids of a page's headings: each one's ``{#id}``, else the id MkDocs makes from its text."""
    return {match["id"] or slugify(match["text"], "-") for match in HEADING.finditer(FENCE.sub("", markdown))}


def claim_row(claim, language):
    """A claims row as one line, as a correction quotes it: "<id> <claim> Verdict: <verdict>. <evidence>"."""
    if language == "en":
        return f"{claim.id} {claim.claim} Verdict: {claim.verdict_en}. {claim.evidence}"
    return f"{claim.id} {claim.claim_zh}结论：{claim.verdict_zh}。{claim.evidence_zh}"


def by_id(correction):
    return correction.id


def test_the_log_has_records_and_the_page_lists_each_once_in_both_languages():
    assert len(CORRECTIONS) >= 5
    assert published("corrections/listing")["n_corrections"] == len(CORRECTIONS)
    table = published_table("corrections/listing", "corrections")
    assert [row["As published"] for row in table] == [c.old for c in CORRECTIONS]
    assert [row["Page"] for row in table] == [f"[→]({c.page})" for c in CORRECTIONS]
    for edition in EDITIONS.values():
        assert '--8<-- "docs/generated/corrections/listing/table-corrections.md"' in flat_page(
            "corrections.md", edition.name
        )


@pytest.mark.parametrize("correction", CORRECTIONS, ids=by_id)
def test_each_named_test_exists(correction):
    path, _, name = correction.test.partition("::")
    assert (REPO / path).is_file(), f"{correction.id}: test = {correction.test!r}: no file {path}"
    tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert name in functions, f"{correction.id}: test = {correction.test!r}: {path} defines no function {name}"


@pytest.mark.parametrize("language", EDITIONS)
@pytest.mark.parametrize("correction", CORRECTIONS, ids=by_id)
def test_each_page_and_anchor_exists_in_both_editions(correction, language):
    page, _, anchor = correction.page.partition("#")
    path = EDITIONS[language] / page
    assert path.is_file(), f"{correction.id}: page = {correction.page!r}: no {path.relative_to(REPO)}"
    assert anchor in anchors(path.read_text(encoding="utf-8")), (
        f"{correction.id}: page = {correction.page!r}: {path.relative_to(REPO)} has no heading #{anchor}"
    )


@pytest.mark.parametrize("language", EDITIONS)
@pytest.mark.parametrize("correction", CORRECTIONS, ids=by_id)
def test_the_new_wording_stands_and_the_old_is_gone(correction, language):
    """Compared with the page's source, references {{ … }} as written; an edition that was already right keeps
    its sentence (old and new the same)."""
    page = flat_page(correction.page.partition("#")[0], EDITIONS[language].name)
    if correction.page.startswith("claims.md#"):  # a claims row: its text is the claims file's, as the page shows it
        page += "\n".join(claim_row(claim, language) for claim in CLAIMS)
    old, new = (correction.old, correction.new) if language == "en" else (correction.old_zh, correction.new_zh)
    assert " ".join(new.split()) in page, f"{correction.id}: the new wording is not on {correction.page} ({language})"
    if old != new:
        assert " ".join(old.split()) not in page, f"{correction.id}: the old wording is still on {correction.page}"


@pytest.mark.parametrize("language", EDITIONS)
def test_a_link_within_a_corrected_page_points_at_that_page_from_the_corrections_page(language):
    """A wording that links a heading of its own page (``](#seeds)``) would point at the corrections page."""
    rows = (PROJECT.generated / "corrections/listing").joinpath(
        "table-corrections.json" if language == "en" else "table-corrections.zh.json"
    )
    cells = [cell for row in json.loads(rows.read_text(encoding="utf-8"))["rows"] for cell in row]
    assert any("induction-heads.md#seeds)" in cell for cell in cells)
    assert not [cell for cell in cells if "](#" in cell]


@pytest.mark.parametrize("correction", CORRECTIONS, ids=by_id)
def test_every_value_a_record_quotes_is_published(correction):
    for field in reader.FIELDS:
        for snippet, name in read_page(getattr(correction, field)).values:
            assert name in published(snippet), f"{correction.id}: field {field}: no value {name} in {snippet}"


def test_a_notebook_carries_the_file_and_the_reader_reads_that_copy(monkeypatch):
    carried = data_files(PROJECT, ["corrections/listing"])
    assert carried == {reader.DATA: TEXT}
    changed = first_record_changed("::test_", "::test_carried_")
    monkeypatch.setattr(lib, "data_files", {reader.DATA: changed}, raising=False)
    assert reader.load()[0].test.partition("::")[2].startswith("test_carried_")


def first_record_changed(old, new):
    """The file's text with ``old`` replaced by ``new`` in its first record only."""
    record = TEXT[FIRST:SECOND]
    assert old in record, old
    return TEXT[:FIRST] + record.replace(old, new, 1) + TEXT[SECOND:]


FIRST_ID = CORRECTIONS[0].id
BAD_RECORDS = {
    "unknown field": (("\ntest = ", "\ncolour = 'red'\ntest = "), "unknown field colour"),
    "missing field": (("\nevidence_zh = ", "\nevidence_in_chinese = "), "missing field evidence_zh"),
    "not a string": (("date = '2026-12-05'", "date = 2026-12-05"), "field date: not a string"),
    "not a date": (("date = '2026-12-05'", "date = '2026-12-32'"), "field date: '2026-12-32' is not a date"),
    "id without its date": ((f"id = '{FIRST_ID}'", "id = 'induction'"), "field id: starts with its date"),
    "page without an anchor": (("page = 'induction-heads.md#seeds'", "page = 'induction-heads.md'"), "field page"),
    "test without a function": (("test_induction_heads.py::", "test_induction_heads.py:"), "field test"),
}


@pytest.mark.parametrize("planted", BAD_RECORDS)
def test_a_bad_record_is_refused_naming_the_record_and_the_field(planted):
    (old, new), message = BAD_RECORDS[planted]
    changed = first_record_changed(old, new)
    cid = "induction" if planted == "id without its date" else FIRST_ID
    with pytest.raises(reader.CorrectionsError) as error:
        reader.load(changed)
    assert str(error.value).startswith(f"{reader.DATA}: correction {cid}: {message}"), str(error.value)


def test_a_repeated_id_is_refused_naming_it():
    with pytest.raises(reader.CorrectionsError, match=rf"correction {FIRST_ID}: field id: .* is listed twice"):
        reader.load(TEXT + TEXT[FIRST:SECOND])


def test_an_unknown_table_and_text_that_is_not_toml_are_refused_naming_them():
    with pytest.raises(reader.CorrectionsError, match=r"unknown tables \['correction'\]"):
        reader.load(TEXT.replace("\n[[corrections]]\n", "\n[[correction]]\n", 1))
    with pytest.raises(reader.CorrectionsError, match=rf"^{reader.DATA}: not valid TOML"):
        reader.load(TEXT.replace("date = '2026-12-05'", "date = 2026-12-05'", 1))
