"""What a chapter's Markdown gets before MkDocs renders it: generated tables and snippet values inlined, the
chapter's notebook links and provenance footer appended, the ledger's tables filled in. A Chinese page shows the
Chinese twins of the tables and figures (``table-<name>.zh.json``, ``<label>.zh.svg``).

In a chapter, ``{{ <chapter>.<what>.<value_name> }}`` becomes the text that ``publish.value("<value_name>", ...)``
produced in snippets/<chapter>/<what>.py. A reference to a missing snippet or value is a warning, so ``mkdocs build
--strict`` fails on it.
"""

import html
import json
import logging
import re

from scripts import provenance
from scripts.chapter_list import CHAPTER_LIST, chapter_list, titled_links
from scripts.exercises import with_check_data
from scripts.ledger import claims_table, values_table
from scripts.pipeline.published import figure_file, shown_text, table, values
from scripts.pipeline.references import (
    chapter_folder,
    read_page,
    substitute_figures,
    substitute_tables,
    substitute_values,
)
from scripts.pipeline.tables import markdown_table
from scripts.words import words

log = logging.getLogger("mkdocs.hooks.values")
LEDGER_CLAIMS, LEDGER_VALUES = "<!-- ledger:claims -->", "<!-- ledger:values -->"
EXPLORABLE = re.compile(r'(<div class="explorable" data-explorable="([\w-]+)")')


def inline_values(markdown, project, page_name, language="en"):
    """Replace every {{ chapter.what.value }} in ``markdown`` by its text as a page in ``language`` writes it
    (``published.shown_text``); warn about each one that does not exist."""
    cache = {}

    def replace(snippet, name, written):
        published = cache.setdefault(snippet, values(snippet, project))
        if name not in published:
            log.warning(f"{page_name}: no value '{name}' published by snippets/{snippet}.py ({written})")
            return f"**[missing value {snippet}.{name}]**"
        return shown_text(published[name], language)

    return substitute_values(markdown, replace, escape_html=True)


def expand_tables(markdown, project, page_name, language="en"):
    """Render each whole-line include of a published table from its data in the page's language, so values its
    cells quote get inlined. A Chinese page with no Chinese table gets a warning (the strict build fails)."""

    def render(snippet, name):
        try:
            published = table(snippet, name, project, language)
        except KeyError as missing:
            if language == "en":
                return None  # pymdownx.snippets reports the missing file
            log.warning(f"{page_name}: {missing.args[0]} (its Chinese table)")
            return f"**[missing Chinese table {snippet}/{name}]**"
        return markdown_table(published["header"], published["rows"]).rstrip("\n")

    return substitute_tables(markdown, render)


def chinese_figures(markdown, project, page_name):
    """Every figure of a Chinese page shown as its Chinese twin; warn about each one that was not drawn."""

    def chinese(figure):
        twin = figure_file(figure.name, "zh")
        if not (project.generated / figure.snippet / twin).exists():
            log.warning(f"{page_name}: snippets/{figure.snippet}.py drew no Chinese figure {twin} ({figure.path})")
        return twin

    return substitute_figures(markdown, chinese)


def out_of_search(block):
    """Generated lists (the ledger's rows: test ids, snippet paths) stay out of the search index; the page's prose
    stays in it."""
    return f'<div markdown="1" data-search-exclude>\n\n{block}\n\n</div>'


def explorable_words(markdown, src_path, language):
    """Each explorable element with its labels in the page's language (``explorables.<name>`` of
    scripts/words/<language>.toml) as JSON in ``data-words``, which its module reads; a warning for an explorable
    that has none."""
    labels = words(language, "explorables")

    def with_words(match):
        name = match.group(2)
        if name not in labels:
            log.warning(
                f"{src_path}: the explorable {name!r} has no labels: add [explorables.{name}] to "
                f"scripts/words/{language}.toml"
            )
            return match.group(0)
        return f'{match.group(1)} data-words="{html.escape(json.dumps(labels[name], ensure_ascii=False))}"'

    return EXPLORABLE.sub(with_words, markdown)


def notebook_box(uses, stem, language):
    """The chapter's links to its generated notebook, for chapters that include snippets (``uses``: read_page)."""
    return words(language, "notebook")["box"].format(stem=stem, folder=chapter_folder(stem)) if uses.code else ""


def chapter(markdown, project, src_path, depth, language, repo_blob, nav, docs_dir):
    """A chapter's Markdown with everything it quotes inlined and its notebook links and footer appended;
    ``depth`` is how many folders deep its page is served; ``nav`` (the menu) and ``docs_dir`` give the list
    of chapters and the titles of ``[→](page.md)`` links."""
    stem = src_path[: -len(".md")]
    uses = read_page(markdown)  # the page's one parse
    snippets = uses.snippets
    markdown = expand_tables(
        markdown, project, src_path, language
    )  # a table may quote values: {{ chapter.what.value }}
    markdown = inline_values(markdown, project, src_path, language) + notebook_box(uses, stem, language)
    if CHAPTER_LIST in markdown:
        markdown = markdown.replace(CHAPTER_LIST, chapter_list(nav, docs_dir, language))
    markdown = titled_links(markdown, docs_dir)
    markdown = explorable_words(markdown, src_path, language)
    markdown = with_check_data(
        markdown, project, words(language, "exercises"), lambda problem: log.warning(f"{src_path}: {problem}")
    )
    if language == "zh":
        markdown = chinese_figures(markdown, project, src_path)
    if snippets:
        try:
            markdown += provenance.footer(snippets, project.generated, project.root, depth, repo_blob, language)
        except FileNotFoundError as error:
            log.warning(f"{src_path}: {error}")
    if LEDGER_CLAIMS in markdown:
        markdown = markdown.replace(LEDGER_CLAIMS, out_of_search(claims_table(project, language=language)))
        markdown = markdown.replace(LEDGER_VALUES, out_of_search(values_table(project, language=language)))
    return markdown
