"""The corrections log, read from snippets/corrections/corrections.toml: one record per published statement whose
meaning changed, and the corrections page's table rows.

``load()`` reads and checks the file and returns the records (``Correction``) in the file's order. A record
missing a field or with an unknown one, a field that is not a string, a date that is not YYYY-MM-DD, an id that
does not start with its date, a page that is not ``<page>.md#<anchor>``, a test that is not
``tests/<file>.py::<function>`` or a repeated id raises ``CorrectionsError`` naming the record and the field
(text that is not TOML names the file and line). A chapter notebook runs without the repository's files: it
carries the file's text in ``lib.data_files`` (scripts/pipeline/notebooks.py).
"""

import datetime
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import lib

DATA = "corrections/corrections.toml"  # relative to snippets/
FIELDS = ("id", "date", "page", "old", "new", "old_zh", "new_zh", "evidence", "evidence_zh", "test")
HEADER = {
    "en": ["Date", "Page", "As published", "As it reads now", "Evidence", "Checked by"],
    "zh": ["日期", "页面", "原来的说法", "现在的说法", "证据", "检验"],
}
PAGE = re.compile(r"[a-z0-9-]+\.md#[a-z0-9-]+\Z")  # "induction-heads.md#seeds"
TEST = re.compile(r"tests/[\w/]+\.py::\w+\Z")  # "tests/chapters/test_rotary.py::test_name"


class CorrectionsError(ValueError):
    """A record of the corrections file that the reader refuses, with the record and the field at fault."""


@dataclass(frozen=True)
class Correction:
    id: str
    date: str  # YYYY-MM-DD
    page: str  # <page>.md#<anchor>: where the statement stands now
    old: str  # the statement as published, {{ chapter.what.value }} references as the page wrote them
    new: str
    old_zh: str
    new_zh: str
    evidence: str
    evidence_zh: str
    test: str  # tests/<file>.py::<function>: the test that now checks it

    def row(self, language="en"):
        """The record as a row of the corrections table in ``language`` ("en" or "zh"); the page link is written
        ``[→](page.md#anchor)``, which the site gives the page's title (scripts/chapter_list.py), and a link the
        wording makes within its own page, ``](#anchor)``, is pointed at that page."""
        link, test = f"[→]({self.page})", f"`{self.test}`"
        english = language == "en"
        texts = [self.old, self.new, self.evidence] if english else [self.old_zh, self.new_zh, self.evidence_zh]
        page = self.page.partition("#")[0]
        return [self.date, link, *(text.replace("](#", f"]({page}#") for text in texts), test]


def read_text():
    """The corrections file's text: the copy a notebook carries, else snippets/corrections/corrections.toml (found
    from this module's own path, so a snippet runs from any folder)."""
    carried = getattr(lib, "data_files", {})
    if DATA in carried:
        return carried[DATA]
    return (Path(__file__).resolve().parents[1] / DATA).read_text(encoding="utf-8")


def checked(record, where):
    """``record``'s fields checked one by one; CorrectionsError naming ``where`` and the field at fault."""
    missing = [field for field in FIELDS if field not in record]
    if missing:
        raise CorrectionsError(f"{where}: missing field {', '.join(missing)}")
    extra = [field for field in record if field not in FIELDS]
    if extra:
        raise CorrectionsError(f"{where}: unknown field {', '.join(extra)} (fields: {', '.join(FIELDS)})")
    wrong = [field for field in FIELDS if not isinstance(record[field], str)]
    if wrong:
        raise CorrectionsError(f"{where}: field {', '.join(wrong)}: not a string (quote it)")
    try:
        datetime.date.fromisoformat(record["date"])
    except ValueError:
        raise CorrectionsError(f"{where}: field date: {record['date']!r} is not a date YYYY-MM-DD") from None
    if not record["id"].startswith(record["date"] + "-"):
        raise CorrectionsError(f"{where}: field id: starts with its date, then a slug: {record['date']}-<slug>")
    if not PAGE.match(record["page"]):
        raise CorrectionsError(f"{where}: field page: {record['page']!r} is not <page>.md#<anchor>")
    if not TEST.match(record["test"]):
        raise CorrectionsError(f"{where}: field test: {record['test']!r} is not tests/<file>.py::<function>")
    return Correction(**record)


def load(text=None):
    """The checked records of the corrections file's ``text`` (by default the project's)."""
    try:
        data = tomllib.loads(read_text() if text is None else text)
    except tomllib.TOMLDecodeError as error:
        raise CorrectionsError(f"{DATA}: not valid TOML: {error}") from None
    unknown = set(data) - {"corrections"}
    if unknown:
        raise CorrectionsError(f"{DATA}: unknown tables {sorted(unknown)}; expected corrections")
    corrections, seen = [], set()
    for number, record in enumerate(data.get("corrections", []), 1):
        cid = record.get("id", f"number {number}")
        where = f"{DATA}: correction {cid}"
        correction = checked(record, where)
        if cid in seen:
            raise CorrectionsError(f"{where}: field id: {cid} is listed twice")
        seen.add(cid)
        corrections.append(correction)
    return corrections
