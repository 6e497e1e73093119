"""No page line starts with a quoted value that shows as a whole number followed by "." or ")": Python-Markdown
makes a list item of such a line inside a list, and the notebooks' CommonMark does in any paragraph when the number
is 1, so the number vanishes from its sentence (a reader of the sliding-window page lost Mistral's span so). A value
belongs after the line's first word."""

import re

import pytest

from scripts.pipeline.published import shown_text, values
from scripts.pipeline.references import VALUE, substitute_values
from support import DOCS, DOCS_ZH, nonempty_glob

PAGES = [*nonempty_glob(DOCS, "*.md"), *nonempty_glob(DOCS_ZH, "*.md")]


def values_read_as_list_markers(page, language):
    """The lines of ``page`` that, their values shown as the edition shows them, start with "<digits>." or ")"."""

    def shown(snippet, name, written):
        entry = values(snippet).get(name)
        return written if entry is None else shown_text(entry, language)

    return [
        f"{page.name}:{number}: {filled.strip()}"
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1)
        if VALUE.match(line.lstrip())
        for filled in [substitute_values(line, shown)]
        if re.match(r"\s*\d+[.)](\s|$)", filled)
    ]


@pytest.mark.parametrize("page", PAGES, ids=[f"{p.parent.name}/{p.name}" for p in PAGES])
def test_no_value_starts_a_line_where_markdown_reads_a_list_item(page):
    assert values_read_as_list_markers(page, "zh" if page.parent == DOCS_ZH else "en") == []
