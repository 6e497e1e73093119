"""A chapter's prose as the Markdown cells of its notebook, in either edition.

The chapter is cut where it first includes each snippet's code: the prose before that include (since the previous
cut) is the Markdown cell before the snippet's code cell; the prose after the last one is the last Markdown cell.
What the notebook shows elsewhere or cannot show is left out: each snippet's code where the chapter first includes
it (its code cell), outputs and figures (the code cells carry them), comments, explorables. Code the chapter shows
again, or from the library, stays as a code block in the prose (``code_as_text``), so that the sentence introducing
it still does; a figure's caption stays, naming the figure and the snippet that drew it. What the site renders with
its own Markdown extensions becomes plain Markdown: a published table its rows (in the edition's language), a value
reference its published text, an admonition a quotation, a heading without its ``{#id}`` (``heading_ids`` keeps it
for the notebook's metadata), a link to another chapter the site's page. Words the chapter says about its web page
("the notebook below", "run it from `snippets/`") become what a notebook's reader can follow (``notebook_wording``).
"""

import re
import textwrap
from dataclasses import dataclass

from scripts.words import words

from ..chapter_list import titled_links
from .published import shown_text, table, values
from .references import (
    CODE,
    FIGURE,
    INCLUDE,
    SECTION_MARKER,
    SHOWN_CODE,
    sections,
    substitute_tables,
    substitute_values,
    without_section_markers,
)
from .tables import markdown_table

FENCE = re.compile(r"^([ \t]*)(`{3,})[^\n]*\n(.*?)^\1\2[ \t]*$\n?", re.MULTILINE | re.DOTALL)
FIGURE_WITH_CAPTION = re.compile(  # FIGURE's groups (alt, path, snippet, label), then the caption's text if any
    rf"^[ \t]*{FIGURE.pattern}[ \t]*\n(?:[ \t]*/// caption[ \t]*\n(.*?)^[ \t]*///[ \t]*$\n?)?", re.MULTILINE | re.DOTALL
)
CAPTION = re.compile(r"^[ \t]*/// caption[ \t]*\n(.*?)^[ \t]*///[ \t]*$", re.MULTILINE | re.DOTALL)
ADMONITION = re.compile(  # its title, and its body: the blank and indented lines that follow
    r'^(?:!!!|\?\?\?\+?)[ \t]+\w+(?:[ \t]+"([^"]*)")?[ \t]*\n((?:(?:[ \t]*|    .*)\n)*)', re.MULTILINE
)
HEADING_ID = re.compile(r"^(#{1,6} (.*?))[ \t]*\{#([\w-]+)\}[ \t]*$", re.MULTILINE)  # (heading, text, id)
EXPLORABLE = re.compile(
    r'^<div class="explorable"[^>]*>\n.*?^</div>[ \t]*\n', re.MULTILINE | re.DOTALL
)  # runs in the site only
HTML_BLOCK_LINE = re.compile(r"^[ \t]*(?:<div\b[^>]*\bmarkdown\b[^>]*>|</div>)[ \t]*\n", re.MULTILINE)
HTML_COMMENT = re.compile(r"^[ \t]*<!--.*?-->[ \t]*\n?", re.MULTILINE | re.DOTALL)  # notes for the build's tests
CHAPTER_LINK = re.compile(r"\]\(([a-z0-9-]+)\.md(#[\w-]+)?\)")
TITLE = re.compile(r"^# (.+)\n", re.MULTILINE)


@dataclass(frozen=True)
class ChapterProse:
    """A chapter's prose cut at its snippets: ``before[name]`` precedes the code cell of snippet ``name``."""

    before: dict
    after: str  # the prose after the last snippet's code


def cut_at_snippets(markdown):
    """The chapter's Markdown cut where each snippet's code is first included (include blocks still in)."""
    cuts, seen = [], set()
    for fence in FENCE.finditer(markdown):
        names = [name for name, _ in CODE.findall(fence.group(3)) if name not in seen]
        if names:
            seen.update(names)
            cuts.append((names[0], block_start(markdown, fence.start()) if fence.group(1) else fence.start()))
    pieces, start = {}, 0
    for name, end in cuts:
        pieces[name], start = markdown[start:end], end
    return ChapterProse(before=pieces, after=markdown[start:])


def code_as_text(markdown, root):
    """The chapter with every code block that is not a snippet's first include (that one becomes the snippet's code
    cell: ``cut_at_snippets``) written out as the code the page shows: a section of a snippet shown again, or of a
    library module."""
    seen = set()

    def written_out(fence):
        indent, lines = fence.group(1), [line for line in fence.group(3).splitlines() if line.strip()]
        names = [name for name, _ in CODE.findall(fence.group(3))]
        first = [name for name in names if name not in seen]
        seen.update(names)
        if first or not lines or not all(SHOWN_CODE.match(line) for line in lines):
            return fence.group(0)
        code = "".join(shown_section(root, *SHOWN_CODE.match(line).groups()) for line in lines)
        body = "".join(f"{indent}{line}" if line.strip() else line for line in code.splitlines(keepends=True))
        return f"{indent}{fence.group(2)}python\n{body}{indent}{fence.group(2)}\n"

    return FENCE.sub(written_out, markdown)


def shown_section(root, path, section):
    """The code an include of ``path`` (one ``section`` of it, or all) shows: dedented, without section markers."""
    text = (root / path).read_text(encoding="utf-8")
    if section is not None:
        text = sections(text)[section]
    return textwrap.dedent(without_section_markers(text))


def block_start(markdown, position):
    """Where the block (an admonition) that holds the indented text at ``position`` begins."""
    lines = markdown[:position].splitlines(keepends=True)
    while lines and (not lines[-1].strip() or lines[-1][0] in " \t"):
        lines.pop()
    return sum(len(line) for line in lines[:-1])


def without_includes(markdown):
    """The prose without fenced blocks that only include files, and without include lines left elsewhere."""

    def drop_include_blocks(fence):
        body = [line for line in fence.group(3).splitlines() if line.strip()]
        return "" if body and all(INCLUDE.match(line) for line in body) else fence.group(0)

    return INCLUDE.sub("", FENCE.sub(drop_include_blocks, markdown))


def admonitions_as_quotes(markdown):
    """``??? example "Title"`` and its indented body as a quotation headed by the title; an empty one dropped."""

    def quote(match):
        title, body = match.group(1), match.group(2)
        lines = [line[4:] if line.startswith("    ") else line.strip() for line in body.splitlines()]
        if not any(lines):
            return ""
        while not lines[-1]:
            lines.pop()
        quoted = ([f"**{title}**", ""] if title else []) + lines
        return "\n".join(f"> {line}".rstrip() for line in quoted) + "\n\n"

    return ADMONITION.sub(quote, markdown)


def rendered_prose(markdown, project, language, chapter):
    """One piece of a chapter's prose as a notebook's Markdown."""

    def render_table(snippet, name):
        published = table(snippet, name, project, language)
        return markdown_table(published["header"], published["rows"]).rstrip("\n")

    def value_text(snippet, name, written):
        published = values(snippet, project)
        if name not in published:
            raise KeyError(f"{chapter}: {written} quotes no value snippets/{snippet}.py publishes")
        return shown_text(published[name], language)

    markdown = substitute_tables(markdown, render_table)  # a table's cells may quote values
    markdown = substitute_values(markdown, value_text, escape_html=True)
    figure = words(language, "notebook")["figure"]
    markdown = FIGURE_WITH_CAPTION.sub(
        lambda m: (
            figure.format(label=m.group(4), snippet=m.group(3), caption=" ".join(m.group(5).split())) + "\n\n"
            if m.group(5)
            else ""
        ),
        markdown,
    )
    markdown = CAPTION.sub(r"\1", markdown)
    markdown = admonitions_as_quotes(without_includes(SECTION_MARKER.sub("", markdown)))
    markdown = HTML_COMMENT.sub("", HTML_BLOCK_LINE.sub("", HEADING_ID.sub(r"\1", EXPLORABLE.sub("", markdown))))
    markdown = titled_links(markdown, project.root / ("docs" if language == "en" else f"docs-{language}"))
    markdown = CHAPTER_LINK.sub(lambda m: f"](../../{m.group(1)}/{m.group(2) or ''})", markdown)
    return re.sub(r"\n{3,}", "\n\n", notebook_wording(markdown, language)).strip()


def notebook_wording(markdown, language):
    """The prose with each of the web page's words about itself (scripts/words/<language>.toml
    [notebook.page_wording] ``page``) replaced by the notebook's words at the same place in ``notebook``."""
    wording = words(language, "notebook")["page_wording"]
    if len(wording["page"]) != len(wording["notebook"]):
        raise ValueError(
            f"scripts/words/{language}.toml [notebook.page_wording]: {len(wording['page'])} page wordings but "
            f"{len(wording['notebook'])} notebook wordings; each page wording needs the notebook's at the same place"
        )
    for page, notebook in zip(wording["page"], wording["notebook"], strict=True):
        markdown = markdown.replace(page, notebook)
    return markdown


def chapter_cells(markdown, project, language, chapter):
    """({snippet: the Markdown cell before its code cell}, the last Markdown cell) of a chapter's notebook; the
    chapter's title, which heads the notebook's first cell, is left out."""
    prose = cut_at_snippets(code_as_text(TITLE.sub("", markdown, count=1), project.root))
    source = words(language, "notebook")["source"]
    before = {
        name: "\n\n".join(
            filter(None, [rendered_prose(text, project, language, chapter), source.format(path=f"snippets/{name}.py")])
        )
        for name, text in prose.before.items()
    }
    return before, rendered_prose(prose.after, project, language, chapter)


def heading_ids(markdown):
    """{a heading's text: its ``{#id}``} for each heading of a chapter that names its id. The Chinese chapters name
    their English twins' ids, so that the language switch keeps the anchor; the notebook's pages give its headings
    the same ids (scripts/notebook_export.py)."""
    return {match.group(2).strip(): match.group(3) for match in HEADING_ID.finditer(markdown)}


def chapter_title(markdown, fallback):
    """The chapter's ``# title``, without its ``{#id}``."""
    match = TITLE.search(markdown)
    return HEADING_ID.sub(r"\1", match.group(0)).removeprefix("# ").strip() if match else fallback


def introduction(title, modules, language):
    """The notebook's first Markdown cell: the chapter's title and what the notebook is (``modules``: the
    library files it loads)."""
    notebook = words(language, "notebook")
    listed = notebook["and"].join(f"`{module}`" for module in modules) or notebook["none"]
    return f"# {title}\n\n" + notebook["intro"].format(title=title, modules=listed)
