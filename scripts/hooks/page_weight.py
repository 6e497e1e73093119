"""MkDocs hooks that keep pages light on a phone (scripts/fast_pages.py): math rendered at build time and its
fonts preloaded and cut down to the glyphs drawn, figures sized and lazy, notebook pages pruned to the CSS they
use, scripts deferred, code out of search, the search index compacted."""

import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # MkDocs loads hooks by path: make `scripts` importable

from scripts import fast_pages

log = logging.getLogger("mkdocs.hooks.page_weight")


class PageWeight:
    """The KaTeX fonts and glyphs the pages built so far use: those of this build, or in a dirty rebuild (which
    renders only the changed pages) those of every build since the first."""

    def __init__(self):
        self.dirty, self.fonts = False, None

    def on_startup(self, command, dirty):
        self.dirty = dirty

    def on_pre_build(self, config):
        if self.fonts is None or not self.dirty:
            self.fonts = fast_pages.MathFonts()

    def on_page_content(self, html, page, config, files):
        try:
            if page.file.src_path.endswith(".ipynb"):
                return fast_pages.notebook_content(html, page.url, config["docs_dir"], self.fonts)
            return fast_pages.chapter_content(html, page.url, config["docs_dir"], self.fonts)
        except (ValueError, FileNotFoundError) as error:  # fast_pages.MathError is a ValueError
            log.warning(f"{page.file.src_path}: {error}")
            return html

    def on_post_page(self, output, page, config):
        return fast_pages.finish_page(output, page.file.src_path.endswith(".ipynb"), self.fonts)

    def on_post_build(self, config):
        fast_pages.finish_site(config["site_dir"], self.fonts)


hooks = PageWeight()
on_startup, on_pre_build, on_page_content = hooks.on_startup, hooks.on_pre_build, hooks.on_page_content
on_post_page, on_post_build = hooks.on_post_page, hooks.on_post_build
