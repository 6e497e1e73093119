"""The workarounds of Material for MkDocs' search plugin, patched in place: each page's search entries kept in the
build cache, the glossary's words handed to its Chinese word cutter, and ``data-search-exclude`` elements left out
whole. Their guards are in scripts/material_workarounds.py with every other workaround's (``check_targets``), and
scripts/hooks/material_workarounds.py calls them.
"""

from pathlib import Path

from material.plugins.search import plugin as search_plugin
from material.plugins.search.plugin import Parser, SearchIndex

from scripts.build_cache import cached


def _toc(items):
    return [(item.id, item.url, item.title, _toc(item.children)) for item in items]


def _dictionaries(config):
    return [Path(config[name]).read_bytes() for name in ("jieba_dict", "jieba_dict_user") if config.get(name)]


def search_entries_by_content(index_class=SearchIndex):
    """Keep each page's search entries in the build cache (scripts/build_cache.py), keyed by everything the search
    plugin reads to make them: its HTML, address, title, table of contents, search metadata and the plugin's
    configuration, dictionaries included (the plugin's pure-Python parse and jieba's cuts are slow)."""
    add = index_class.add_entry_from_context
    if getattr(add, "by_content", False):
        return

    def add_entry_from_context(self, page):
        meta = {name: page.meta.get(name) for name in ("title", "tags", "search")}
        key = (
            page.content,
            page.url,
            page.title,
            meta,
            _toc(page.toc),
            repr(sorted(self.config.items())),
            _dictionaries(self.config),
        )
        start = len(self.entries)

        def entries():
            add(self, page)
            return self.entries[start:]

        found = cached("search", key, entries)
        if len(self.entries) == start:  # a stored result: the plugin did not run
            self.entries.extend(found)

    add_entry_from_context.by_content = True
    index_class.add_entry_from_context = add_entry_from_context


def glossary_words_in_search(config, dictionary):
    """Point the search plugin at the jieba user dictionary ``dictionary`` (the glossary's terms, written at each
    build: without it compound terms are cut apart) and let it configure itself again: it loads the dictionary
    and makes its index as it configures, before the hooks run (so the cached entries are keyed by it too)."""
    search = config.plugins.get("material/search")  # mkdocs.yml's `search`, under another theme MkDocs' own
    if search is None:
        return
    search.config.jieba_dict_user = str(dictionary)
    search.on_config(config)


def search_excludes_whole_elements(parser_class=Parser):
    """Leave everything inside a ``data-search-exclude`` element out of the index, nested elements of the same name
    included (the plugin's parser ended the exclusion at the first closing tag of the same name, so the rest of a
    rendered formula went into the index): while inside one, the parser sees nothing but the tags that close it."""
    start, end, data = parser_class.handle_starttag, parser_class.handle_endtag, parser_class.handle_data
    if getattr(start, "whole_elements", False):
        return

    def handle_starttag(self, tag, attrs):
        inside = getattr(self, "excluded_depth", 0)
        if inside:
            self.excluded_depth = inside + (tag not in search_plugin.void)
            return
        start(self, tag, attrs)
        if tag not in search_plugin.void and any(name == "data-search-exclude" for name, _ in attrs):
            self.excluded_depth = 1

    def handle_endtag(self, tag):
        inside = getattr(self, "excluded_depth", 0)
        if inside:
            if tag in search_plugin.void:
                return
            self.excluded_depth = inside - 1
            if self.excluded_depth:  # an element inside the excluded one closes
                return
        end(self, tag)

    def handle_data(self, text):
        if not getattr(self, "excluded_depth", 0):
            data(self, text)

    handle_starttag.whole_elements = True
    parser_class.handle_starttag, parser_class.handle_endtag, parser_class.handle_data = (
        handle_starttag,
        handle_endtag,
        handle_data,
    )
