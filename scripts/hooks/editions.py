"""MkDocs hooks for the two editions (scripts/editions.py): the English build starts the Chinese one beside it
and moves it into <site>/zh/; the Chinese one translates the labels of the menu it inherits
(scripts/chapter_list.py); the templates get their edition's words (``config.extra.words``, scripts/words/); each
page's language switch and hreflang links name its twin in the other edition
(scripts/addresses.py gives each edition its address)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # MkDocs loads hooks by path: make `scripts` importable

from scripts import addresses, editions, serve_rebuilds
from scripts.chapter_list import translate_nav
from scripts.pipeline.project import REPO
from scripts.words import words


class Editions:
    """How this process builds (serving, dirty), each edition's root as mkdocs.yml gives it (``extra.alternate``),
    the Chinese build running beside this English one, and, in a dirty serve, what the last build saw."""

    def __init__(self):
        self.serving = self.dirty = False
        self.roots, self.chinese_build = [], None
        self.edits = serve_rebuilds.Edits(REPO)

    def on_startup(self, command, dirty):
        self.serving, self.dirty = command == "serve", dirty

    def on_config(self, config):
        if config["nav"] and "nav_labels" in config.extra:  # the Chinese edition: mkdocs.yml's menu, translated
            config["nav"] = translate_nav(config["nav"], config.extra["nav_labels"])
        config.extra["words"] = words(config.theme["language"], "theme")  # for overrides/ and notebook pages
        addresses.edition_address(config)
        editions.own_notebook_cache(config)
        self.roots = [dict(alternate) for alternate in config.extra.get("alternate", [])]

    def on_pre_build(self, config):
        """Start the Chinese build, unless this is a dirty rebuild after edits to English pages only (the
        snippets were rerun first: their outputs count as edits)."""
        edited = self.edits.since_last_look() if self.serving and self.dirty else None
        english_only = edited is not None and serve_rebuilds.english_pages_only(edited)
        if editions.ChineseBuild.wanted(config) and not english_only:
            self.chinese_build = editions.ChineseBuild(config, self.dirty)

    def on_page_context(self, context, page, config, nav):
        config.extra["alternate"] = editions.language_switch(self.roots, page.url)
        return context

    def on_post_page(self, output, page, config):
        return addresses.head_links(output, config.site_url, self.roots, page.url)

    def on_post_build(self, config):
        if self.chinese_build is not None:
            build, self.chinese_build = self.chinese_build, None
            build.finish(Path(config["site_dir"]) / "zh", self.serving)

    def on_build_error(self, error):
        if self.chinese_build is not None:
            build, self.chinese_build = self.chinese_build, None
            build.stop()


hooks = Editions()
on_startup, on_config, on_pre_build, on_page_context = (
    hooks.on_startup,
    hooks.on_config,
    hooks.on_pre_build,
    hooks.on_page_context,
)
on_post_page, on_post_build, on_build_error = hooks.on_post_page, hooks.on_post_build, hooks.on_build_error
