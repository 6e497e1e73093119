"""MkDocs hooks: what the site adds to MkDocs, in build order.

- on_pre_build: while `mkdocs serve` runs, rerun stale snippets (a failure is reported; serving goes on).
- on_page_markdown: inline generated tables and snippet values (a table's cells may quote values too), append each
  chapter's notebook links and provenance footer (scripts/provenance.py), fill in the ledger tables.
- on_page_content: math rendered at build time, figures sized and lazy, code kept out of search
  (scripts/fast_pages.py); notebook pages link their figures' committed SVG files with the chapter's alt text and
  get keyboard-scrollable code cells.
- on_page_context / on_post_page: the language switch points at the same page in the other edition.
- on_pre_build / on_post_build: the English build builds the Chinese edition (mkdocs.zh.yml, docs-zh/) in a
  second process alongside it and moves it into <site>/zh/; on_post_build also writes the plain-script twin (.py)
  beside every notebook the site serves and serves the snippets the footers link, unless ``extra.repo_blob``
  points the links at a repository.

In a chapter, ``{{ chapter.what.value_name }}`` becomes the text that
``publish.value("value_name", ...)`` produced in snippets/chapter/what.py. A
reference to a missing snippet or value is a warning, so ``mkdocs build
--strict`` fails on it.
"""

import logging
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mkdocs.exceptions import Abort  # noqa: E402

from scripts import fast_pages, provenance  # noqa: E402
from scripts.ledger import claims_table, values_table  # noqa: E402
from scripts.notebook_figures import chapter_alt_texts, link_figures  # noqa: E402
from scripts.pipeline.notebooks import chapter_snippets, notebook_script  # noqa: E402
from scripts.pipeline.project import Project  # noqa: E402
from scripts.pipeline.published import table, values  # noqa: E402
from scripts.pipeline.references import chapter_folder, substitute_tables, substitute_values  # noqa: E402
from scripts.pipeline.tables import markdown_table  # noqa: E402

log = logging.getLogger("mkdocs.hooks.values")
LEDGER_CLAIMS, LEDGER_VALUES = "<!-- ledger:claims -->", "<!-- ledger:values -->"
_serving = False


def inline_values(markdown, project, page_name):
    """Replace every {{ chapter.what.value }} in ``markdown``; warn about each one that does not exist."""
    cache = {}

    def replace(snippet, name, written):
        published = cache.setdefault(snippet, values(snippet, project))
        if name not in published:
            log.warning(f"{page_name}: no value '{name}' published by snippets/{snippet}.py ({written})")
            return f"**[missing value {snippet}.{name}]**"
        return published[name]["text"]

    return substitute_values(markdown, replace)


NOTEBOOK_BOX = {
    "en": """

!!! example "Run this chapter yourself"
    Every snippet of this chapter, in reading order, is also a notebook:
    [the notebook with its outputs](notebooks/{stem}.ipynb) ·
    <a href="../notebooks/{stem}/{stem}.ipynb" download>download .ipynb</a> ·
    <a href="../notebooks/{stem}/{stem}.py" download>download .py</a>.
    Or run any snippet alone: `python snippets/{folder}/<name>.py`.
""",
    "zh": """

!!! example "自己运行本章"
    本章的每个代码片段按阅读顺序组成一个笔记本：
    [带输出的笔记本](notebooks/{stem}.ipynb) ·
    <a href="../notebooks/{stem}/{stem}.ipynb" download>下载 .ipynb</a> ·
    <a href="../notebooks/{stem}/{stem}.py" download>下载 .py</a>。
    也可以单独运行任何一个代码片段：`python snippets/{folder}/<name>.py`。
""",
}
CHINESE_CONFIG = "mkdocs.zh.yml"
_alternate_roots = []
_chinese_build = None  # (process, scratch folder) of the Chinese edition building beside the English one


def expand_tables(markdown, project):
    """Render each whole-line include of a published table from its data, so values its cells quote get inlined."""

    def render(snippet, name):
        try:
            published = table(snippet, name, project)
        except KeyError:
            return None  # pymdownx.snippets reports the missing file
        return markdown_table(published["header"], published["rows"]).rstrip("\n")

    return substitute_tables(markdown, render)


def edition(config):
    """The edition being built: "zh" for the Chinese one, else "en" (also for a theme without a language)."""
    return "zh" if "language" in config.theme and config.theme["language"] == "zh" else "en"


def notebook_box(markdown, stem, language):
    """The chapter's links to its generated notebook, for chapters that include snippets."""
    return NOTEBOOK_BOX[language].format(stem=stem, folder=chapter_folder(stem)) if chapter_snippets(markdown) else ""


def on_config(config):
    _alternate_roots[:] = [dict(alternate) for alternate in config.extra.get("alternate", [])]


HEAD_ALTERNATE = re.compile(r'\s*<link rel="alternate" href="[^"]*" hreflang="[^"]*">')


def on_post_page(output, page, config):
    """Drop the head's language alternates: Material's script would fetch sitemap.xml beside each of them and send
    the language switch to the other edition's home page (our sitemaps list nothing without a site_url). Pages
    with math preload its fonts; notebook pages keep only the CSS rules that can match them; scripts are deferred."""
    if page.file.src_path.endswith(".ipynb"):
        output = fast_pages.drop_unused_css(output)
    return HEAD_ALTERNATE.sub("", fast_pages.defer_scripts(fast_pages.preload_math_fonts(output)))


def on_page_context(context, page, config, nav):
    """Point each entry of the language switch at this page in that edition (every page has a twin); the links
    are relative to this page, so they work under any version folder (overrides/partials/alternate.html)."""
    up = "../" * page.url.count("/")
    config.extra["alternate"] = [{**root, "link": (up + root["link"].removeprefix("./") + page.url) or "./"}
                                 for root in _alternate_roots]
    return context


def on_startup(command, dirty):
    global _serving
    _serving = command == "serve"


def on_pre_build(config):
    """While serving, rerun stale snippets first (in their own process, like `make outputs`); a failing or
    timed-out snippet is reported and the site keeps serving. Then the English build starts the Chinese one beside
    it, into a scratch folder (the English build is about to empty its site folder)."""
    global _chinese_build
    if _serving and subprocess.run([sys.executable, "-m", "scripts.pipeline", "build"], cwd=ROOT).returncode != 0:
        log.warning("some snippets failed; their pages show the previous outputs (see the messages above)")
    chinese = Path(config.config_file_path).with_name(CHINESE_CONFIG)
    if edition(config) == "zh" or not chinese.exists():
        return
    scratch = Path(tempfile.mkdtemp(prefix="site-zh-"))
    command = [sys.executable, "-m", "mkdocs", "build", "-f", str(chinese), "-d", str(scratch)]
    _chinese_build = (subprocess.Popen(command + (["--strict"] if config.strict else []), cwd=chinese.parent), scratch)


def on_post_build(config):
    """Beside each notebook the site serves, the same cells as a plain script (derived, never committed); then,
    in the English build, the Chinese edition into <site>/zh/ (same strictness)."""
    for notebook in sorted(Project().notebooks.glob("*.ipynb")):
        script = Path(config["site_dir"]) / "notebooks" / notebook.stem / f"{notebook.stem}.py"
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(notebook_script(notebook), encoding="utf-8")
    if not config["extra"].get("repo_blob"):
        provenance.copy_snippets(ROOT, config["site_dir"])
    fast_pages.compact_search_index(config["site_dir"])
    fast_pages.keep_page_loads_from_restyling_twice(config["site_dir"])
    fast_pages.style_wrapped_tables_as_material_does(config["site_dir"])
    fast_pages.keep_only_the_glyphs_the_formulas_draw(config["site_dir"])
    if _chinese_build is not None:
        finish_chinese_build(Path(config["site_dir"]) / "zh")


def on_build_error(error):
    """The English build failed: stop the Chinese one and drop its scratch folder."""
    global _chinese_build
    if _chinese_build is not None:
        process, scratch = _chinese_build
        _chinese_build = None
        process.kill()
        process.wait()
        shutil.rmtree(scratch, ignore_errors=True)


def finish_chinese_build(target):
    """Wait for the Chinese edition started in on_pre_build and move it into <site>/zh/."""
    global _chinese_build
    process, scratch = _chinese_build
    _chinese_build = None
    if process.wait() != 0:
        shutil.rmtree(scratch, ignore_errors=True)
        if not _serving:
            raise Abort("the Chinese edition (mkdocs.zh.yml) failed to build: see its messages above")
        log.warning("the Chinese edition failed to build; /zh/ is missing from this build (see the messages above)")
        return
    shutil.rmtree(target, ignore_errors=True)
    shutil.move(scratch, target)


def on_page_content(html, page, config, files):
    """Render math, size figures, keep code out of search. Notebook pages, which repeat their chapter's code,
    stay out of search; their output figures link the committed files with the chapter's alt text and are sized like the
    chapter's, and their code cells can be scrolled by keyboard."""
    try:
        if page.file.src_path.endswith(".ipynb"):
            page.meta["search"] = {"exclude": True}
            project = Project()
            chapter = Path(config["docs_dir"]) / f"{Path(page.file.src_path).stem}.md"
            markdown = inline_values(chapter.read_text(encoding="utf-8"), project, chapter.name) if chapter.exists() else ""
            html = link_figures(html, project.generated, chapter_alt_texts(markdown))
            html = html.replace('<div class="highlight-ipynb', '<div tabindex="0" class="highlight-ipynb')
            return fast_pages.size_images(fast_pages.render_notebook_math(html), page.url, files)
        html = fast_pages.tables_in_scroll_wrappers(fast_pages.code_reachable_by_keyboard(fast_pages.render_math(html)))
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
    markdown = expand_tables(markdown, project)  # a table may quote values: {{ chapter.what.value }}
    markdown = inline_values(markdown, project, page.file.src_path) + notebook_box(markdown, stem, edition(config))
    if snippets:
        try:
            markdown += provenance.footer(
                snippets, project.generated, project.root, page.url.count("/"), config["extra"].get("repo_blob"),
                edition(config),
            )
        except FileNotFoundError as error:
            log.warning(f"{page.file.src_path}: {error}")
    if LEDGER_CLAIMS in markdown:
        markdown = markdown.replace(LEDGER_CLAIMS, claims_table(project)).replace(LEDGER_VALUES, values_table(project))
    return markdown
