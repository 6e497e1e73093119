"""The claims inventory, read from snippets/claims/claims.toml: one record per claim, and each claims table's rows.

``load()`` reads and checks the file and returns a ``Claims`` (its topics and claims, in the file's order); a
record missing a field or with an unknown one, an unknown verdict or topic or a repeated id raises
``ClaimsError`` naming the claim and the field (text that is not TOML names the file and line). A claim's link
to its page is written ``[→](page.md)``: the site gives it the page's title. A chapter notebook
runs without the repository's files: it carries the file's text in ``lib.data_files``
(scripts/pipeline/notebooks.py).
"""

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import lib

DATA = "claims/claims.toml"  # relative to snippets/
FIELDS = ("id", "source", "topic", "verdict", "see", "claim", "claim_zh", "evidence", "evidence_zh")
CONDITION = ("condition", "condition_zh")  # only with verdict = "only_when"
# Each verdict and its words in English and Chinese (only_when's are in Claim.verdict_en and verdict_zh).
VERDICTS = {"holds": ("holds", "成立"), "fails": ("does not hold", "不成立"),
            "unchecked": ("cannot be checked here", "此处无法核查"), "only_when": None}
LATIN_EDGE = re.compile(r"[A-Za-z0-9()\[\]`$]")  # a character that wants a space beside Chinese text
HEADER = {"en": ["ID", "Claim (source)", "Verdict", "Evidence"], "zh": ["编号", "论断（出处）", "判定", "证据"]}


class ClaimsError(ValueError):
    """A record of the claims file that the reader refuses, with the claim and the field at fault."""


@dataclass(frozen=True)
class Claim:
    id: str
    source: str
    topic: str
    verdict: str  # one of VERDICTS
    see: str
    claim: str
    claim_zh: str
    evidence: str
    evidence_zh: str
    condition: str = ""
    condition_zh: str = ""

    @property
    def verdict_en(self):
        """The verdict as the English page words it."""
        return f"holds only when {self.condition}" if self.verdict == "only_when" else VERDICTS[self.verdict][0]

    @property
    def verdict_zh(self):
        """The verdict as the Chinese page words it; a condition that begins or ends in Latin letters, digits or
        ASCII brackets is set off from 仅当 and 时成立 by a space."""
        if self.verdict != "only_when":
            return VERDICTS[self.verdict][1]
        before = " " if LATIN_EDGE.match(self.condition_zh[:1]) else ""
        after = " " if LATIN_EDGE.match(self.condition_zh[-1:]) else ""
        return f"仅当{before}{self.condition_zh}{after}时成立"

    @property
    def source_zh(self):
        """"000 §2.1" -> "种子教程 000 §2.1"; "common" -> "常见说法"."""
        return "常见说法" if self.source == "common" else f"种子教程 {self.source}"


@dataclass(frozen=True)
class Claims:
    topics: dict  # topic key -> its English title
    claims: list  # of Claim

    def table_rows(self, topic, language="en"):
        """The claims table of one topic in ``language`` ("en" or "zh"): [ID, claim (source), verdict, evidence
        with its chapter link]; the Chinese rows have no italics (Chinese has none)."""
        rows = []
        for c in (c for c in self.claims if c.topic == topic):
            link = f"[→]({c.see})" if c.see else ""  # the site writes the page's title in (scripts/chapter_list.py)
            if language == "en":
                evidence = f"{c.evidence} {link}" if link else c.evidence
                rows.append([c.id, f"{c.claim} *({c.source})*", f"**{c.verdict_en}**", evidence])
            else:
                rows.append([c.id, f"{c.claim_zh}（{c.source_zh}）", f"**{c.verdict_zh}**", c.evidence_zh + link])
        return rows


def read_text():
    """The claims file's text: the copy a notebook carries, else snippets/claims/claims.toml (found from this
    module's own path, so a snippet runs from any folder)."""
    carried = getattr(lib, "data_files", {})
    if DATA in carried:
        return carried[DATA]
    return (Path(__file__).resolve().parents[1] / DATA).read_text(encoding="utf-8")


def load(text=None):
    """The checked inventory of the claims file's ``text`` (by default the project's)."""
    try:
        data = tomllib.loads(read_text() if text is None else text)
    except tomllib.TOMLDecodeError as error:
        raise ClaimsError(f"{DATA}: not valid TOML: {error}") from None
    unknown = set(data) - {"topics", "claims"}
    if unknown:
        raise ClaimsError(f"{DATA}: unknown tables {sorted(unknown)}; expected topics and claims")
    topics = data.get("topics", {})
    claims, seen = [], set()
    for number, record in enumerate(data.get("claims", []), 1):
        cid = record.get("id", f"number {number}")
        where = f"{DATA}: claim {cid}"
        condition = CONDITION if record.get("verdict") == "only_when" else ()
        missing = [field for field in FIELDS + condition if field not in record]
        if missing:
            raise ClaimsError(f"{where}: missing field {', '.join(missing)}")
        wrong = [field for field in FIELDS + condition if not isinstance(record[field], str)]
        if wrong:
            raise ClaimsError(f"{where}: field {', '.join(wrong)}: not a string")
        extra = [field for field in record if field not in FIELDS + condition]
        if extra:
            raise ClaimsError(f"{where}: unknown field {', '.join(extra)} (fields: {', '.join(FIELDS + CONDITION)}; "
                              "condition and condition_zh only with verdict = \"only_when\")")
        if record["verdict"] not in VERDICTS:
            raise ClaimsError(f"{where}: field verdict: unknown verdict {record['verdict']!r}; "
                              f"use one of {', '.join(VERDICTS)}")
        if record["topic"] not in topics:
            raise ClaimsError(f"{where}: field topic: unknown topic {record['topic']!r}; known: {list(topics)}")
        if cid in seen:
            raise ClaimsError(f"{where}: field id: {cid} is listed twice")
        seen.add(cid)
        claims.append(Claim(**record))
    return Claims(topics, claims)
