"""MkDocs hooks for the notebook pages: exported by one shared exporter (scripts/notebook_export.py), their cells'
copy buttons in the edition's language, kept out of search, their figures linked to the committed files with the
chapter's alt text (scripts/notebook_figures.py); the notebooks served for download with their links to other pages
checked, and absolute when the site has an address, and a plain-script twin (.py) served beside each."""

import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # MkDocs loads hooks by path: make `scripts` importable

from scripts import editions, notebook_export, notebook_figures
from scripts.pipeline.project import Project

log = logging.getLogger("mkdocs.hooks.notebooks")


class Notebooks:
    """Whether this process rebuilds dirty (then mkdocs-jupyter keeps the pages it does not render again)."""

    def __init__(self):
        self.dirty = False

    def on_startup(self, command, dirty):
        self.dirty = dirty

    def on_config(self, config):
        if "mkdocs-jupyter" in config.plugins:
            notebook_export.use_shared_exporters()

    def on_pre_build(self, config):
        if self.dirty and "mkdocs-jupyter" in config.plugins:
            notebook_export.keep_cache_of_pages_not_rebuilt(config.plugins["mkdocs-jupyter"])

    def on_page_content(self, html, page, config, files):
        if not page.file.src_path.endswith(".ipynb"):
            return html
        page.meta["search"] = {"exclude": True}  # the page repeats its chapter's code
        html = notebook_export.copy_buttons_in(html, config.extra["words"])
        try:
            return notebook_figures.chapter_figures(
                html, page.file.src_path, config["docs_dir"], Project(), editions.edition(config)
            )
        except (ValueError, FileNotFoundError) as error:
            log.warning(f"{page.file.src_path}: {error}")
            return html

    def on_post_build(self, config):
        notebook_export.absolute_links_in_downloads(config["docs_dir"], config["site_dir"], config.site_url)
        notebook_export.write_scripts(config["site_dir"])


hooks = Notebooks()
on_startup, on_config, on_pre_build = hooks.on_startup, hooks.on_config, hooks.on_pre_build
on_page_content, on_post_build = hooks.on_page_content, hooks.on_post_build
