"""The one reader of what a page uses from the build, and the one place that spells the reference syntax.

A snippet is named by its path under snippets/ without ``.py``: ``<chapter>/<what>`` (``scaled_dot_product/steps``).
A page uses it in five ways, and every part of the build and the tests finds them through ``read_page``:

- code: ``--8<-- "snippets/scaled_dot_product/steps.py"`` or one section,
  ``--8<-- "snippets/scaled_dot_product/steps.py:print"``; library code the same way from
  ``snippets/lib/<module>.py``;
- an output: ``--8<-- "docs/generated/scaled_dot_product/steps/output-print.txt"`` (or ``stdout.txt``);
- a table: ``--8<-- "docs/generated/scaled_dot_product/steps/table-shapes.md"`` on a line of its own, rendered
  from the table's JSON by the hooks (a table's cells may quote values too);
- a figure: ``![alt text](generated/scaled_dot_product/steps/weights.svg)`` (a Chinese page writes the same; its
  build shows the Chinese twin, ``weights.zh.svg``, through ``substitute_figures``);
- a value: ``{{ scaled_dot_product.steps.d_k }}``, the text ``publish.value("d_k", ...)`` produced.
"""

import re
from dataclasses import dataclass

NAME = r"[a-z0-9_]+"
SNIPPET = rf"(?!lib/){NAME}/{NAME}"  # <chapter>/<what>; snippets/lib/ is the library, never a snippet

VALUE = re.compile(rf"\{{\{{\s*({NAME})\.({NAME})\.({NAME})\s*\}}\}}")
CODE = re.compile(rf'^[ \t]*--8<--[ \t]+"snippets/({SNIPPET})\.py(?::([\w-]+))?"', re.MULTILINE)
SHOWN_CODE = re.compile(
    r'^[ \t]*--8<--[ \t]+"(snippets/[\w/]+\.py)(?::([\w-]+))?"[ \t]*$'
)  # any code include: path, section
LIBRARY_CODE = re.compile(rf'^[ \t]*--8<--[ \t]+"snippets/lib/({NAME})\.py(?::[\w-]+)?"', re.MULTILINE)
OUTPUT = re.compile(rf'^[ \t]*--8<--[ \t]+"docs/generated/({SNIPPET})/([\w.-]+)"', re.MULTILINE)
TABLE = re.compile(rf'^--8<-- "docs/generated/({SNIPPET})/table-({NAME})\.md"$', re.MULTILINE)
FIGURE = re.compile(rf"!\[([^\]]*)\]\((generated/({SNIPPET})/([a-z0-9_-]+)\.svg)\)")
INCLUDE = re.compile(r'^[ \t]*--8<--[ \t]+"([^"]+)"', re.MULTILINE)  # any include line, as written
INCLUDE_MARK = re.escape("--8<--")  # how include lines and section markers begin, for checks that skip them
# A section of a file, for includes of one part of it: ``# --8<-- [start:name]`` ... ``# --8<-- [end:name]`` in
# Python, ``<!-- --8<-- [start:name] -->`` ... in Markdown. Sections are the unit of a snippet's output too.
SECTION_MARKER = re.compile(r"^[ \t]*(?:#|<!--) --8<-- \[(start|end):([\w-]+)\](?: -->)?[ \t]*$", re.MULTILINE)


def snippet_of(chapter, what):
    """The snippet name a value reference ``{{ chapter.what.value }}`` points at."""
    return f"{chapter}/{what}"


def chapter_folder(page_stem):
    """The folder under snippets/ and docs/generated/ of a page: its file stem with hyphens as underscores."""
    return page_stem.replace("-", "_")


@dataclass(frozen=True)
class Figure:
    alt: str
    path: str  # relative to docs/: generated/<chapter>/<what>/<name>.svg
    snippet: str
    name: str


@dataclass(frozen=True)
class PageUses:
    """Everything a page takes from the build, each list in order of first appearance."""

    code: list  # snippets whose code the page includes
    library: list  # library modules (``attention``) whose code the page includes
    outputs: list  # (snippet, file name) of included outputs, tables included
    tables: list  # (snippet, table name)
    figures: list  # Figure
    values: list  # (snippet, value name)
    includes: list  # every include target, as written

    @property
    def snippets(self):
        """Every snippet the page uses in any way, in order of first use."""
        used = [
            *self.code,
            *(s for s, _ in self.outputs),
            *(f.snippet for f in self.figures),
            *(s for s, _ in self.values),
        ]
        return list(dict.fromkeys(used))


def _once(items):
    return list(dict.fromkeys(items))


def read_page(markdown):
    """What a page's Markdown uses from the build."""
    return PageUses(
        code=_once(name for name, _ in CODE.findall(markdown)),
        library=_once(LIBRARY_CODE.findall(markdown)),
        outputs=_once(OUTPUT.findall(markdown)),
        tables=_once(TABLE.findall(markdown)),
        figures=_once(Figure(alt, path, snippet, name) for alt, path, snippet, name in FIGURE.findall(markdown)),
        values=_once((snippet_of(chapter, what), name) for chapter, what, name in VALUE.findall(markdown)),
        includes=_once(INCLUDE.findall(markdown)),
    )


# Where Markdown shows text as written (fenced and inline code) or hands it to KaTeX (math).
LITERAL = re.compile(
    r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?^[ \t]*\1|`[^`\n]+`|\$\$.*?\$\$|\$[^$\n]+\$", re.DOTALL | re.MULTILINE
)


def substitute_values(markdown, text_of, *, escape_html=False):
    """Replace every ``{{ chapter.what.value }}`` by ``text_of(snippet, value name, reference as written)``.
    With ``escape_html`` (Markdown that becomes HTML), a value outside code and math has its ``<`` and ``>`` written
    as entities, so a token such as ``<pad>`` shows as written instead of being read as an HTML tag."""
    literal = [m.span() for m in LITERAL.finditer(markdown)] if escape_html else []

    def replace(m):
        text = text_of(snippet_of(m.group(1), m.group(2)), m.group(3), m.group(0))
        if not escape_html or any(start <= m.start() < end for start, end in literal):
            return text
        return text.replace("<", "&lt;").replace(">", "&gt;")

    return VALUE.sub(replace, markdown)


def substitute_tables(markdown, render):
    """Replace every whole-line table include by ``render(snippet, table name)``; None keeps the line."""

    def replace(match):
        rendered = render(match.group(1), match.group(2))
        return match.group(0) if rendered is None else rendered

    return TABLE.sub(replace, markdown)


def substitute_figures(markdown, file_of):
    """Show, in every figure ``![alt](generated/<snippet>/<name>.svg)``, the file ``file_of(Figure)`` of the same
    snippet instead."""

    def replace(match):
        alt, _, snippet, name = match.groups()
        return f"![{alt}](generated/{snippet}/{file_of(Figure(alt, match.group(2), snippet, name))})"

    return FIGURE.sub(replace, markdown)


def sections(text):
    """{name: the lines between its start and end markers} of every section in ``text`` (nested ones included)."""
    found, open_at = {}, {}
    lines = text.splitlines(keepends=True)
    for number, line in enumerate(lines):
        marker = SECTION_MARKER.match(line)
        if marker and marker.group(1) == "start":
            open_at[marker.group(2)] = number + 1
        elif marker and marker.group(2) in open_at:
            found[marker.group(2)] = "".join(lines[open_at.pop(marker.group(2)) : number])
    return found


def without_section_markers(text):
    return "".join(line for line in text.splitlines(keepends=True) if not SECTION_MARKER.match(line))


def without_references(markdown):
    """The Markdown with value references and include lines removed (for checks that read only the prose)."""
    return INCLUDE.sub("", VALUE.sub("", markdown))
