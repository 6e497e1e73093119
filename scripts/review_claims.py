"""List the sentences that state a quantity or a quality of the data, so the "truth" review can be repeated.

A sentence is a candidate when it uses a quantifier or a trend word (all, every, none, never, always, only,
exactly, stays, jumps, flat, same, ...), a comparison (more, less, larger, smaller, below, above, ... than), or a
cause (because, so, therefore, which is why); figure alt texts count as sentences. Values are shown as the page
shows them. Each claims verdict is listed with its evidence, then the same row in Chinese. The script finds
candidates; it does not judge them.

    .venv/bin/python -m scripts.review_claims            # every English chapter, then every claims verdict
    .venv/bin/python -m scripts.review_claims backward   # one chapter (file stem)
    .venv/bin/python -m scripts.review_claims --counts   # candidates per chapter, and the verdicts
"""

import re
import sys

from scripts.pipeline import published
from scripts.pipeline.project import REPO
from scripts.pipeline.references import read_page, substitute_values, without_references

DOCS = REPO / "docs"
SKIP = {"ledger.md", "benchmarks.md"}  # generated from test runs and timings, not prose about the data
QUANTIFIERS = (
    r"all|every|each|none|no|nothing|never|always|only|exactly|entirely|completely|stays?|stayed|remains?|jumps?|"
    r"flat|same|identical|constant|any|whatever|whichever|equal|equals|unchanged|independent|collapses?|vanish(?:es)?"
)
COMPARISONS = (
    r"(?:more|less|fewer|larger|smaller|higher|lower|greater|faster|slower|better|worse|further)\b.{0,60}?\bthan"
)
TRENDS = r"grows?|falls?|rises?|drops?|climbs?|shrinks?|increases?|decreases?"
CAUSES = r"because|therefore|so that|which is why|due to|caused by|causes?"
PATTERN = re.compile(rf"\b(?:{QUANTIFIERS}|{TRENDS}|{CAUSES})\b|{COMPARISONS}", re.IGNORECASE)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"(\[*$`])")


def _shown(snippet, name, written):
    try:
        return published.values(snippet)[name]["text"]
    except KeyError:
        return written


def sentences(markdown):
    """(line number, sentence) of the prose and the figure alt texts; code blocks, includes and headings left out."""
    found = []
    for alt in (figure.alt for figure in read_page(markdown).figures):
        found.append((_line_of(markdown, alt), "[alt] " + " ".join(alt.split())))
    lines = markdown.splitlines()
    block, start, fenced = [], 0, False
    for number, line in enumerate(lines + [""], start=1):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        new_item = bool(re.match(r"(?:[-*]|\d+\.) ", stripped))
        if not stripped or stripped.startswith(("#", "--8<--", "![", "///", "<!--")) or new_item:
            if block:
                found += [(start, s) for s in SENTENCE_END.split(" ".join(block))]
            block, start = ([stripped[2:]], number) if new_item else ([], number + 1)
            continue
        if not block:
            start = number
        block.append(stripped)
    return found


def _line_of(markdown, text):
    return markdown[: markdown.find(text)].count("\n") + 1


def candidates(page):
    """(line, sentence) of one page whose wording states a quantity or a quality of the data."""
    markdown = page.read_text(encoding="utf-8")
    shown = substitute_values(markdown, _shown)
    out = []
    for line, sentence in sentences(shown):
        if sentence.startswith("|"):  # a table row of the page: its cells are read with the table
            continue
        if PATTERN.search(without_references(sentence)):
            out.append((line, sentence))
    return out


def chapters():
    return [page for page in sorted(DOCS.glob("*.md")) if page.name not in SKIP]


def verdicts(language="en"):
    """(id, verdict, claim, evidence as the claims page shows it) of every claim in the inventory, in ``language``
    ("en", or "zh" for the Chinese row)."""
    sys.path.insert(0, str(REPO / "snippets"))
    from lib.claims import load

    suffix = "_zh" if language == "zh" else ""
    return [
        (
            c.id,
            c.verdict_zh if suffix else c.verdict_en,
            getattr(c, f"claim{suffix}"),
            substitute_values(getattr(c, f"evidence{suffix}"), _shown),
        )
        for c in load().claims
    ]


def main(argv):
    counts = "--counts" in argv
    wanted = [a for a in argv if not a.startswith("--")]
    total = 0
    for page in chapters():
        if wanted and page.stem not in wanted:
            continue
        found = candidates(page)
        total += len(found)
        if counts:
            print(f"{len(found):4d}  {page.name}")
            continue
        print(f"## {page.name} ({len(found)} candidates)")
        for line, sentence in found:
            print(f"{page.name}:{line}: {sentence}")
    listed = verdicts() if not wanted else []
    print(
        f"{total} candidate sentences in {len(chapters()) if not wanted else len(wanted)} pages; "
        f"{len(listed)} claims verdicts"
    )
    if not counts:  # each verdict, then its Chinese row, so that the review reads both
        for (cid, verdict, claim, evidence), (_, verdict_zh, claim_zh, evidence_zh) in zip(listed, verdicts("zh")):
            print(f"{cid} [{verdict}] {claim} -- {evidence}")
            print(f"{cid} 中文 [{verdict_zh}] {claim_zh} -- {evidence_zh}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
