"""MkDocs hooks for the workarounds of Material's internals (scripts/material_workarounds.py, and
scripts/material_search.py for its search plugin): its version and every target checked, its search plugin patched
and given the glossary's words (scripts/search_text.py), its markup, stylesheets and scripts rewritten. Deleting
this hook's line in mkdocs.yml turns them all off."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # MkDocs loads hooks by path: make `scripts` importable

from scripts import material_search, material_workarounds, search_text


def on_config(config):
    material_workarounds.check_version()
    material_workarounds.check_targets()
    material_search.search_entries_by_content()
    material_search.search_excludes_whole_elements()
    material_search.glossary_words_in_search(config, search_text.write_dictionary())


def on_page_content(html, page, config, files):
    if page.file.src_path.endswith(".ipynb"):
        return material_workarounds.tables_in_scroll_wrappers(html)
    return material_workarounds.page_content(html)


def on_post_page(output, page, config):
    alternates = config.extra.get("alternate", [])
    return material_workarounds.first_paint_once_parsed(material_workarounds.drop_head_alternates(output, alternates))


def on_post_build(config):
    material_workarounds.site(config["site_dir"])
