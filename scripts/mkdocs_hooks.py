"""MkDocs hooks: what the site adds to MkDocs, in the order MkDocs calls them (and this file defines them). The
work is done in named modules; the hooks only call them.

- on_startup: note whether `mkdocs serve` is running, and whether it rebuilds only what changed (``--dirty``,
  as `make serve` runs it: scripts/serve_rebuilds.py).
- on_config: check the installed Material against its workarounds (scripts/material_workarounds.py), and give its
  search the glossary's words (scripts/search_text.py); export every notebook page with one shared nbconvert
  exporter (scripts/notebook_export.py); give the edition its address (scripts/addresses.py); keep the language
  switch's entries as mkdocs.yml gives them.
- on_pre_build: while serving, rerun stale snippets when a snippet changed (a failure is reported; serving goes
  on) and mark the pages that show their new outputs; the English build starts the Chinese one beside it
  (scripts/editions.py), except in a dirty rebuild after edits to English pages only.
- on_page_markdown: a chapter's tables and snippet values inlined (on a Chinese page, the Chinese twins of its
  tables and figures), its notebook links and provenance footer appended, the ledger's tables filled in
  (scripts/chapter_markdown.py).
- on_page_content: formulas in headings given a readable text for search (scripts/search_text.py), math rendered
  at build time, figures sized and lazy, code kept out of search
  (scripts/fast_pages.py); tables in Material's wrappers and code focusable (scripts/material_workarounds.py);
  notebook pages stay out of search and link their figures' committed SVG files with the chapter's alt text
  (scripts/notebook_figures.py).
- on_page_context: the language switch points at the same page in the other edition (scripts/editions.py).
- on_post_page: notebook pages pruned to the CSS they use, math fonts preloaded, scripts deferred
  (scripts/fast_pages.py); the head's language alternates dropped, and the first paint held until the page is
  parsed (scripts/material_workarounds.py); alternates that name the twin page by its address (scripts/addresses.py).
- on_post_build: the plain-script twin (.py) beside every notebook, the snippets the footers link (unless
  ``extra.repo_blob`` points the links at a repository), the math fonts cut down and the search index compacted
  (scripts/fast_pages.py), Material's stylesheets and scripts rewritten (scripts/material_workarounds.py); then
  the Chinese edition moved into <site>/zh/.
- on_build_error: the Chinese build stopped.

Without scripts/material_workarounds.py (and overrides/partials/early_script.html) the site builds and works,
only slower.
"""

import logging
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # MkDocs loads hooks by path: make `scripts` importable

from scripts import chapter_markdown, editions, fast_pages, notebook_export, provenance, serve_rebuilds  # noqa: E402
from scripts import addresses, search_text  # noqa: E402
from scripts.build_cache import cached  # noqa: E402
from scripts.chapter_list import translate_nav  # noqa: E402
from scripts.notebook_figures import chapter_alt_texts, link_figures  # noqa: E402
from scripts.pipeline.notebooks import notebook_script  # noqa: E402
from scripts.pipeline.project import REPO as ROOT, Project  # noqa: E402

try:
    import scripts.material_workarounds as material_workarounds  # noqa: E402
except ModuleNotFoundError as missing:  # deleted: the site builds without them, slower
    if missing.name != "scripts.material_workarounds":
        raise
    material_workarounds = None

log = logging.getLogger("mkdocs.hooks")
_serving = False
_dirty = False  # each build renders only the pages whose sources changed (mkdocs serve --dirty)
_alternate_roots = []
_chinese_build = None  # the editions.ChineseBuild running beside this (English) build
_math_fonts = None  # the fast_pages.MathFonts of the pages built so far (this build, or this dirty serve)
_files = None  # while serving: the files the last build read (serve_rebuilds.files)


def on_startup(command, dirty):
    global _serving, _dirty
    _serving, _dirty = command == "serve", dirty
    if dirty:
        logging.getLogger("mkdocs.commands.build").addFilter(serve_rebuilds.DirtyBuildIsInformation())


def on_config(config):
    if material_workarounds:
        material_workarounds.check_version()
        material_workarounds.check_targets()
        material_workarounds.search_entries_by_content()
        material_workarounds.search_excludes_whole_elements()
        material_workarounds.glossary_words_in_search(config, search_text.write_dictionary())
    addresses.edition_address(config)
    if "nav_labels" in config.extra:  # the Chinese edition: mkdocs.yml's menu, its labels translated
        config["nav"] = translate_nav(config["nav"], config.extra["nav_labels"])
    if "mkdocs-jupyter" in config.plugins:
        notebook_export.use_shared_exporters()
    editions.own_notebook_cache(config)
    _alternate_roots[:] = [dict(alternate) for alternate in config.extra.get("alternate", [])]


def on_pre_build(config):
    """While serving, rerun stale snippets first (in their own process, like `make outputs`) when a snippet
    changed; a failing or timed-out snippet is reported and the site keeps serving. Then the English build starts
    the Chinese one, unless this is a dirty rebuild after edits to English pages only."""
    global _chinese_build, _math_fonts, _files
    if _math_fonts is None or not _dirty:  # a dirty rebuild keeps the fonts' glyphs of the pages it does not render
        _math_fonts = fast_pages.MathFonts()
    edited = None  # everything, as far as this build knows
    if _serving:
        edited, _files = rerun_snippets(config, _files)
    if _dirty and "mkdocs-jupyter" in config.plugins:
        notebook_export.keep_cache_of_pages_not_rebuilt(config.plugins["mkdocs-jupyter"])
    chinese_unchanged = _dirty and edited is not None and serve_rebuilds.english_pages_only(edited)
    if editions.ChineseBuild.wanted(config) and not chinese_unchanged:
        _chinese_build = editions.ChineseBuild(config, _dirty)


def rerun_snippets(config, before):
    """Rerun the stale snippets when a snippet changed since the last build (``before``: its files, or None for
    the first); in a dirty rebuild, mark the pages of both editions that show outputs which changed. Returns the
    changed paths (None on the first build) and the files now."""
    now = serve_rebuilds.files(ROOT)
    edited = None if before is None else serve_rebuilds.changed(before, now)
    if edited is not None and not serve_rebuilds.snippets_changed(edited):
        return edited, now
    if subprocess.run([sys.executable, "-m", "scripts.pipeline", "build"], cwd=ROOT).returncode != 0:
        log.warning("some snippets failed; their pages show the previous outputs (see the messages above)")
    after = serve_rebuilds.files(ROOT)
    if edited is None:
        return None, after
    outputs = serve_rebuilds.changed(now, after)
    if _dirty:
        rerun = serve_rebuilds.rerun_snippets(outputs)
        serve_rebuilds.age_pages_showing(rerun, config["docs_dir"], config["site_dir"])
        serve_rebuilds.age_pages_showing(rerun, ROOT / "docs-zh", Path(config["site_dir"]) / "zh")
    return edited | outputs, after


def on_page_markdown(markdown, page, config, files):
    if not page.file.src_path.endswith(".md"):  # notebooks quote their own outputs
        return markdown
    return chapter_markdown.chapter(markdown, Project(), page.file.src_path, page.url.count("/"),
                                    editions.edition(config), config["extra"].get("repo_blob"), config["nav"],
                                    config["docs_dir"])


def on_page_content(html, page, config, files):
    """Notebook pages, which repeat their chapter's code, stay out of search; their output figures link the
    committed files with the chapter's alt text; the tables of their Markdown cells sit in Material's scrolling
    wrappers, as a chapter's do."""
    try:
        if page.file.src_path.endswith(".ipynb"):
            page.meta["search"] = {"exclude": True}
            project = Project()
            chapter = Path(config["docs_dir"]) / f"{Path(page.file.src_path).stem}.md"
            markdown = chapter.read_text(encoding="utf-8") if chapter.exists() else ""
            markdown = chapter_markdown.inline_values(markdown, project, chapter.name)
            html = link_figures(html, project.generated, chapter_alt_texts(markdown))
            html = fast_pages.notebook_content(html, page.url, config["docs_dir"], _math_fonts)
            return material_workarounds.tables_in_scroll_wrappers(html) if material_workarounds else html
        html = fast_pages.chapter_content(search_text.searchable_heading_math(html), page.url, config["docs_dir"],
                                          _math_fonts)
        return material_workarounds.page_content(html) if material_workarounds else html
    except (ValueError, FileNotFoundError) as error:  # fast_pages.MathError is a ValueError
        log.warning(f"{page.file.src_path}: {error}")
        return html


def on_page_context(context, page, config, nav):
    config.extra["alternate"] = editions.language_switch(_alternate_roots, page.url)
    return context


def on_post_page(output, page, config):
    output = fast_pages.finish_page(output, page.file.src_path.endswith(".ipynb"), _math_fonts)
    if material_workarounds:
        output = material_workarounds.first_paint_once_parsed(
            material_workarounds.drop_head_alternates(output, _alternate_roots))
    return addresses.head_links(output, config.site_url, _alternate_roots, page.url)


def on_post_build(config):
    """Beside each notebook the site serves, the same cells as a plain script (derived, never committed); then,
    in the English build, the Chinese edition into <site>/zh/ (same strictness)."""
    global _chinese_build
    for notebook in sorted((Path(config["docs_dir"]) / "notebooks").glob("*.ipynb")):  # this edition's
        script = Path(config["site_dir"]) / "notebooks" / notebook.stem / f"{notebook.stem}.py"
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(cached("notebook-script", notebook.read_bytes(), lambda: notebook_script(notebook)),
                          encoding="utf-8")
    if not config["extra"].get("repo_blob"):
        provenance.copy_snippets(ROOT, config["site_dir"])
    fast_pages.finish_site(config["site_dir"], _math_fonts)
    if material_workarounds:
        material_workarounds.site(config["site_dir"])
    if _chinese_build is not None:
        build, _chinese_build = _chinese_build, None
        build.finish(Path(config["site_dir"]) / "zh", _serving)


def on_build_error(error):
    global _chinese_build
    if _chinese_build is not None:
        build, _chinese_build = _chinese_build, None
        build.stop()
