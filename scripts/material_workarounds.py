"""Every workaround of Material for MkDocs' internals, each with a guard on its target, the guards in one place.

Each workaround rewrites something Material generates (its markup, compiled stylesheets, script bundle, search
plugin) or relies on how it behaves. ``check_targets`` guards them all: when a target is missing from the installed
Material, the build stops with TargetMissing naming the workaround and the target; ``check_version`` stops it on a
Material other than the one they were written for. ``WORKAROUNDS`` names them; each function's docstring says what
its workaround does and why, and the four that live in other files say so there (early_script and
language_selector in overrides/partials/, site_css in site.css, search_dialog_name in site.js).

The three that patch Material's search plugin (search_entries_by_content, glossary_words_in_search,
search_excludes_whole_elements) are in scripts/material_search.py; their guards are here with the others.
scripts/hooks/material_workarounds.py calls them all: without that hook (one line of mkdocs.yml) and
overrides/partials/early_script.html the site still builds and works, with Material's own markup, only slower.
"""

import re
from importlib.metadata import version
from pathlib import Path

import material
from mkdocs.exceptions import Abort

from scripts.pipeline.project import REPO

MATERIAL = Path(material.__file__).parent / "templates"
SEARCH_PLUGIN = "../plugins/search/plugin.py"  # relative to MATERIAL, like every other target
OVERRIDES = REPO / "overrides"
WRITTEN_FOR = "9.8."  # the Material versions these workarounds were written against and checked on
WORKAROUNDS = (
    "tables_in_scroll_wrappers",
    "style_wrapped_tables_as_material_does",
    "keep_page_loads_from_restyling_twice",
    "code_reachable_by_keyboard",
    "drop_head_alternates",
    "first_paint_once_parsed",
    "early_script",
    "language_selector",
    "site_css",
    "search_dialog_name",
    "search_entries_by_content",
    "glossary_words_in_search",
    "search_excludes_whole_elements",
    "query_keeps_whole_words",
    "alternates_left_to_crawlers",
    "code_buttons_not_a_landmark",
)

TABLE = re.compile(r"<table>(.*?)</table>", re.DOTALL)
MATERIAL_TABLE = "table:not([class])"  # the tables Material's script wraps, and its stylesheet's selector for them
WRAPPED_TABLE = "data-table"
TABLE_WRAPPER = re.compile(r'\{class:"md-typeset__scrollwrap"\},\w+\("div",\{class:"md-typeset__table"\}')
# A whole rule, every selector of it below [data-md-color-switching]; anything else is not the rule it drops.
SWITCHING = r"\[data-md-color-switching\][^,{}]*"
PALETTE_SWITCHING_RULE = re.compile(rf"(?<![^}}]){SWITCHING}(?:,{SWITCHING})*\{{[^{{}}]*\}}")
CODE_BLOCK, CODE = '<div class="highlight">', "<pre><span></span><code>"
CONFIG_SCRIPT, FIRST_STYLESHEET = '<script id="__config"', '<link rel="stylesheet"'
HEAD_ALTERNATE = re.compile(r'\s*<link rel="alternate" href="[^"]*" hreflang="[^"]*">')
COLOR_SCHEME_META = re.compile(r'\w+\("meta",\{name:"color-scheme"\}\);document\.head\.appendChild\(')
BODY_SCHEME = re.compile(r"<body [^>]*data-md-color-scheme=")
SEARCH_INPUT = re.compile(r'class="md-search".*<input [^>]*class="md-search__input"[^>]*aria-label=', re.DOTALL)
TEMPLATE_COMMENT = re.compile(r"\A\{#-.*?-#\}\n", re.DOTALL)
URL_FILTERED_LINK, LINK_AS_GIVEN = "{{ alt.link | url }}", "{{ alt.link }}"
USER_DICTIONARY_LOADED = ("jieba.load_userdict(path)", "self.search_index = SearchIndex(**self.config)")
EXCLUDED_UNTIL_SAME_TAG = ('if key == "data-search-exclude":', "self.skip.add(el)", "self.skip.remove(el)")
# segment(query, index): `for (let j = i + 1; j < query.length; j++) if (query.slice(i, j) in index) ...`, minified
QUERY_WORDS = re.compile(r"for\(let (\w+)=(\w+)\+1;\1<(\w+)\.length;\1\+\+\)\3\.slice\(\2,\1\)in ")
PAGE_ALTERNATES = 'M("link[rel=alternate]")'
CODE_NAV = re.compile(r'\b(\w+)\("nav",(\{class:"md-code__nav"\})\)')  # the element of a code block's buttons


class TargetMissing(Abort):
    """A workaround's target is not in the installed Material: the workaround would silently do nothing."""


def require(workaround, found, target, where):
    if not found:
        raise TargetMissing(
            f"Material workaround {workaround} (scripts/material_workarounds.py): {target} is not in "
            f"{where}; Material changed under it: adapt the workaround or delete it"
        )


def check_version(installed=None):
    """Stop unless the installed Material is one the workarounds were written for."""
    installed = installed or version("mkdocs-material")
    if not installed.startswith(WRITTEN_FOR):
        raise TargetMissing(
            f"mkdocs-material {installed} is installed, but the workarounds in "
            f"scripts/material_workarounds.py ({', '.join(WORKAROUNDS)}) were written for "
            f"{WRITTEN_FOR}x: check each against the new Material, then update WRITTEN_FOR"
        )


def asset(material, pattern, workaround):
    """The one file of Material's assets that matches ``pattern`` (its name carries a content hash)."""
    found = sorted((material / "assets").glob(pattern))
    require(workaround, len(found) == 1, f"one file {pattern}", material / "assets")
    return found[0]


def check_targets(material=MATERIAL, overrides=OVERRIDES):
    """Every target the workarounds rely on, in Material's templates, compiled stylesheets and script bundle."""
    base = material / "base.html"
    bundle_path = asset(material, "javascripts/bundle.*.min.js", "early_script")
    main_path = asset(material, "stylesheets/main.*.min.css", "style_wrapped_tables_as_material_does")
    palette_path = asset(material, "stylesheets/palette.*.min.css", "keep_page_loads_from_restyling_twice")
    templates, bundle = base.read_text(encoding="utf-8"), bundle_path.read_text(encoding="utf-8")
    require("tables_in_scroll_wrappers", f'"{MATERIAL_TABLE}"' in bundle, f"the selector {MATERIAL_TABLE}", bundle_path)
    require(
        "tables_in_scroll_wrappers",
        TABLE_WRAPPER.search(bundle),
        "the md-typeset__scrollwrap > md-typeset__table wrapper",
        bundle_path,
    )
    require(
        "style_wrapped_tables_as_material_does",
        MATERIAL_TABLE in main_path.read_text(encoding="utf-8"),
        f"a rule for {MATERIAL_TABLE}",
        main_path,
    )
    palette = palette_path.read_text(encoding="utf-8")
    require(
        "keep_page_loads_from_restyling_twice",
        PALETTE_SWITCHING_RULE.search(palette),
        "the rule on [data-md-color-switching]",
        palette_path,
    )
    require("code_reachable_by_keyboard", '"content.lazy"' in bundle, "the feature content.lazy", bundle_path)
    require(
        "drop_head_alternates",
        f'<link rel="alternate" href="{URL_FILTERED_LINK}" hreflang=' in templates,
        "the head's language alternates",
        base,
    )
    require("drop_head_alternates", "sitemap.xml" in bundle, "the sitemap.xml request", bundle_path)
    require("first_paint_once_parsed", CONFIG_SCRIPT in templates, "the configuration script", base)
    require("early_script", "{% block extrahead %}" in templates, "the block extrahead", base)
    require(
        "early_script",
        'class="no-js"' in templates
        and 'classList.remove("no-js")' in bundle
        and 'classList.add("js-focus-visible")' in bundle,
        "the no-js and js-focus-visible classes",
        bundle_path,
    )
    require("early_script", COLOR_SCHEME_META.search(bundle), "the color-scheme meta appended to the head", bundle_path)
    require(
        "early_script",
        '"search/search_index.json"' in bundle and "new XMLHttpRequest" in bundle,
        "the search index requested by XMLHttpRequest",
        bundle_path,
    )
    header = material / "partials" / "header.html"
    require(
        "language_selector",
        '{% include "partials/alternate.html" %}' in header.read_text(encoding="utf-8"),
        "the include of partials/alternate.html",
        header,
    )
    selector = material / "partials" / "alternate.html"
    original = TEMPLATE_COMMENT.sub("", selector.read_text(encoding="utf-8"))
    fork = TEMPLATE_COMMENT.sub("", (overrides / "partials" / "alternate.html").read_text(encoding="utf-8"))
    require(
        "language_selector",
        original.replace(URL_FILTERED_LINK, LINK_AS_GIVEN) == fork,
        "the language selector overrides/partials/alternate.html was forked from",
        selector,
    )
    require(
        "site_css",
        'class="md-content__inner' in templates and BODY_SCHEME.search(templates),
        "the .md-content__inner and <body data-md-color-scheme> that site.css styles",
        base,
    )
    search = material / "partials" / "search.html"
    require(
        "search_dialog_name",
        SEARCH_INPUT.search(search.read_text(encoding="utf-8")),
        'the dialog class="md-search" and its box class="md-search__input" with an aria-label',
        search,
    )
    plugin = material / SEARCH_PLUGIN
    source = plugin.read_text(encoding="utf-8")
    require(
        "search_entries_by_content",
        "def add_entry_from_context(self, page):" in source and "self.entries.append(entry)" in source,
        "SearchIndex.add_entry_from_context appending to self.entries",
        plugin,
    )
    require(
        "glossary_words_in_search",
        all(line in source for line in USER_DICTIONARY_LOADED),
        "on_config loading jieba_dict_user and making the SearchIndex",
        plugin,
    )
    require(
        "search_excludes_whole_elements",
        all(line in source for line in EXCLUDED_UNTIL_SAME_TAG),
        "the Parser's skip set of data-search-exclude elements",
        plugin,
    )
    worker_path = asset(material, "javascripts/workers/search.*.min.js", "query_keeps_whole_words")
    require(
        "query_keeps_whole_words",
        len(QUERY_WORDS.findall(worker_path.read_text(encoding="utf-8"))) == 1,
        "the query segmenter's loop over words that end before the query does",
        worker_path,
    )
    require(
        "alternates_left_to_crawlers",
        bundle.count(PAGE_ALTERNATES) == 1,
        f"the selector {PAGE_ALTERNATES} of the sitemap requests",
        bundle_path,
    )
    require(
        "code_buttons_not_a_landmark",
        len(CODE_NAV.findall(bundle)) == 1,
        "the <nav class=md-code__nav> of a code block's buttons",
        bundle_path,
    )


def tables_in_scroll_wrappers(page_html):
    """Put each Markdown table (a bare ``<table>``) in Material's scrolling wrapper, as its script would after load
    (a move that restyles the whole table), with a class that keeps the script's hands off it (it wraps only
    ``table:not([class])``). The wrapper takes the keyboard focus: it may scroll sideways."""
    return TABLE.sub(
        lambda m: (
            '<div class="md-typeset__scrollwrap" tabindex="0"><div class="md-typeset__table">'
            f'<table class="{WRAPPED_TABLE}">{m.group(1)}</table></div></div>'
        ),
        page_html,
    )


def code_reachable_by_keyboard(page_html):
    """Code and output blocks may scroll sideways, so each one is focusable (axe: scrollable-region-focusable).
    Material's script does this only for the blocks it has set up, and with ``content.lazy`` it sets up a block
    when it scrolls into view (then drops the tabindex again where nothing overflows)."""
    require(
        "code_reachable_by_keyboard",
        CODE_BLOCK not in page_html or CODE in page_html,
        f"the code markup {CODE}",
        "a page with code blocks",
    )
    return page_html.replace(CODE, '<pre><span></span><code tabindex="0">')


def drop_head_alternates(page_html, alternates):
    """Drop the head's <link rel="alternate" hreflang> (one per entry of ``extra.alternate``): each takes the
    language switch's link, which is relative to the page; search engines ignore relative alternates, and
    Material's script would fetch a sitemap.xml beside each. scripts/addresses.py writes absolute ones instead."""
    require(
        "drop_head_alternates",
        len(HEAD_ALTERNATE.findall(page_html)) >= len(alternates),
        "a <link rel=alternate hreflang> per language",
        "the page's head",
    )
    return HEAD_ALTERNATE.sub("", page_html)


def first_paint_once_parsed(page_html):
    """Hold the first paint until the parser has read the page down to Material's configuration script, at the end
    of <body>: Material's inline scripts make the parser read the body in chunks, and a paint between two drew a
    table with part of its rows, whose columns widened when the rest arrived (a layout shift)."""
    require("first_paint_once_parsed", CONFIG_SCRIPT in page_html, "the configuration script", "the page")
    first = page_html.index(FIRST_STYLESHEET)
    return page_html[:first] + '<link rel="expect" href="#__config" blocking="render">' + page_html[first:]


def page_content(page_html):
    """A chapter's content: tables in their wrappers, code blocks focusable."""
    return tables_in_scroll_wrappers(code_reachable_by_keyboard(page_html))


def keep_page_loads_from_restyling_twice(site_dir, material=MATERIAL):
    """Drop the palette stylesheet's rule keyed on <body data-md-color-switching>, an attribute Material's script
    sets and removes at every page load, each change restyling the whole page. A switch between light and dark
    then fades the colours (Material's short transitions)."""
    for path in sorted(Path(site_dir, "assets", "stylesheets").glob("palette.*.css")):
        css = (material / "assets" / "stylesheets" / path.name).read_text(encoding="utf-8")
        path.write_text(PALETTE_SWITCHING_RULE.sub("", css), encoding="utf-8")


def style_wrapped_tables_as_material_does(site_dir, material=MATERIAL):
    """Extend each of Material's rules for bare tables to the tables wrapped at build time (same specificity), so
    they look as Material's script would have made them."""
    for path in sorted(Path(site_dir, "assets", "stylesheets").glob("main.*.min.css")):
        css = (material / "assets" / "stylesheets" / path.name).read_text(encoding="utf-8")
        path.write_text(css.replace(MATERIAL_TABLE, f"table:is(:not([class]),.{WRAPPED_TABLE})"), encoding="utf-8")


def query_keeps_whole_words(site_dir, material=MATERIAL):
    """The search worker's query segmenter also tries the words that end where the query ends: it cuts a Chinese
    query into the longest words of the index but never tried those, so 层归一化 was searched as 层."""
    for path in sorted(Path(site_dir, "assets", "javascripts", "workers").glob("search.*.min.js")):
        script = (material / "assets" / "javascripts" / "workers" / path.name).read_text(encoding="utf-8")
        path.write_text(QUERY_WORDS.sub(lambda m: m.group(0).replace("<", "<="), script), encoding="utf-8")


def alternates_left_to_crawlers(script):
    """Material's script leaves the page's hreflang alternates alone: it fetches sitemap.xml beside every
    <link rel="alternate"> and reroutes clicks into it, and those of scripts/addresses.py name the twin page, not
    an edition's root, so each would be a request for a sitemap that is not there."""
    return script.replace(PAGE_ALTERNATES, 'M("link[rel=alternate]:not([hreflang])")')


def code_buttons_not_a_landmark(script):
    """Material's script holds a code block's buttons in a <div>, not a <nav>: a navigation landmark per block,
    with no name, which axe reports (landmark-unique) and a screen reader lists. Its stylesheets select it by class."""
    return CODE_NAV.sub(r'\1("div",\2)', script)


def rewrite_bundle(site_dir, material=MATERIAL):
    """Material's script bundle in the built site, with the workarounds of its behaviour."""
    for path in sorted(Path(site_dir, "assets", "javascripts").glob("bundle.*.min.js")):
        script = (material / "assets" / "javascripts" / path.name).read_text(encoding="utf-8")
        path.write_text(code_buttons_not_a_landmark(alternates_left_to_crawlers(script)), encoding="utf-8")


def site(site_dir, material=MATERIAL):
    """The built site: Material's stylesheets and scripts rewritten (from Material's own copies, so a rebuild into
    the same folder rewrites them once)."""
    keep_page_loads_from_restyling_twice(site_dir, material)
    style_wrapped_tables_as_material_does(site_dir, material)
    query_keeps_whole_words(site_dir, material)
    rewrite_bundle(site_dir, material)
