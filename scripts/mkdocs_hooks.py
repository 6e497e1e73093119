"""MkDocs hooks: what the site adds to MkDocs, in build order.

- on_pre_build: while `mkdocs serve` runs, rerun stale snippets (a failure is reported; serving goes on).
- on_page_markdown: inline snippet values, append each chapter's notebook links and provenance footer
  (scripts/provenance.py), fill in the ledger tables.
- on_page_content: math rendered at build time, figures sized and lazy, code kept out of search
  (scripts/fast_pages.py); notebook pages get alt text on output figures and keyboard-scrollable code cells.
- on_post_build: write the plain-script twin (.py) beside every notebook the site serves; serve the snippets the
  footers link, unless ``extra.repo_blob`` points the links at a repository.

In a chapter, ``{{ snippet_name.value_name }}`` becomes the text that
``publish.value("value_name", ...)`` produced in snippets/snippet_name.py. A
reference to a missing snippet or value is a warning, so ``mkdocs build
--strict`` fails on it.
"""

import json
import logging
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts import fast_pages, provenance  # noqa: E402
from scripts.ledger import claims_table, values_table  # noqa: E402
from scripts.pipeline.build import build  # noqa: E402
from scripts.pipeline.notebooks import chapter_snippets, notebook_script  # noqa: E402
from scripts.pipeline.project import Project  # noqa: E402

log = logging.getLogger("mkdocs.hooks.values")
REFERENCE = re.compile(r"\{\{\s*([a-z0-9_]+)\.([a-z0-9_]+)\s*\}\}")
LEDGER_CLAIMS, LEDGER_VALUES = "<!-- ledger:claims -->", "<!-- ledger:values -->"
IMAGE_WITHOUT_ALT = re.compile(r"<img (?![^>]*\balt=)")
_serving = False


def load_values(generated, snippet):
    path = generated / snippet / "values.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def inline_values(markdown, generated, page_name):
    """Replace every {{ snippet.value }} in ``markdown``; warn about each one that does not exist."""
    cache = {}

    def replace(match):
        snippet, name = match.groups()
        values = cache.setdefault(snippet, load_values(generated, snippet))
        if name not in values:
            log.warning(f"{page_name}: no value '{name}' published by snippets/{snippet}.py ({match.group(0)})")
            return f"**[missing value {snippet}.{name}]**"
        return values[name]["text"]

    return REFERENCE.sub(replace, markdown)


NOTEBOOK_BOX = """

!!! example "Run this chapter yourself"
    Every snippet of this chapter, in reading order, is also a notebook:
    [the executed notebook](notebooks/{stem}.ipynb) ·
    <a href="../notebooks/{stem}/{stem}.ipynb" download>download .ipynb</a> ·
    <a href="../notebooks/{stem}/{stem}.py" download>download .py</a>.
    Or run any snippet alone: `python snippets/<name>.py`.
"""


def notebook_box(markdown, stem):
    """The chapter's links to its generated notebook, for chapters that include snippets."""
    return NOTEBOOK_BOX.format(stem=stem) if chapter_snippets(markdown) else ""


def on_startup(command, dirty):
    global _serving
    _serving = command == "serve"


def on_pre_build(config):
    """While serving, rerun stale snippets first; a failing snippet is reported and the site keeps serving."""
    if _serving and build(Project()) != 0:
        log.warning("some snippets failed; their pages show the previous outputs (see the messages above)")


def on_post_build(config):
    """Beside each notebook the site serves, the same cells as a plain script (derived, never committed)."""
    for notebook in sorted(Project().notebooks.glob("*.ipynb")):
        script = Path(config["site_dir"]) / "notebooks" / notebook.stem / f"{notebook.stem}.py"
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(notebook_script(notebook), encoding="utf-8")
    if not config["extra"].get("repo_blob"):
        provenance.copy_snippets(ROOT, config["site_dir"])


def on_page_content(html, page, config, files):
    """Render math, size figures, keep code out of search. Notebook pages, which repeat their chapter's code,
    stay out of search; their output figures get a description and their code cells can be scrolled by keyboard."""
    try:
        if page.file.src_path.endswith(".ipynb"):
            page.meta["search"] = {"exclude": True}
            html = IMAGE_WITHOUT_ALT.sub('<img alt="Figure drawn by the code cell above" ', html)
            html = html.replace('<div class="highlight-ipynb', '<div tabindex="0" class="highlight-ipynb')
            return fast_pages.render_notebook_math(html)
        html = fast_pages.render_math(html)
        return fast_pages.leave_out_of_search(fast_pages.size_images(html, page.url, files))
    except (ValueError, FileNotFoundError) as error:  # fast_pages.MathError is a ValueError
        log.warning(f"{page.file.src_path}: {error}")
        return html


def on_page_markdown(markdown, page, config, files):
    if not page.file.src_path.endswith(".md"):  # notebooks quote their own outputs
        return markdown
    project = Project()
    stem = page.file.src_path[: -len(".md")]
    snippets = provenance.page_snippets(markdown)
    markdown = inline_values(markdown, project.generated, page.file.src_path) + notebook_box(markdown, stem)
    if snippets:
        try:
            markdown += provenance.footer(
                snippets, project.generated, project.root, page.url.count("/"), config["extra"].get("repo_blob")
            )
        except FileNotFoundError as error:
            log.warning(f"{page.file.src_path}: {error}")
    if LEDGER_CLAIMS in markdown:
        markdown = markdown.replace(LEDGER_CLAIMS, claims_table(project)).replace(LEDGER_VALUES, values_table(project))
    return markdown
