"""The workarounds of Material's internals (scripts/material_workarounds.py, scripts/material_search.py): what each
does, that each guard fails naming its workaround when its target is gone from Material, and that the site builds
without them."""

import json
import os
import re
import shutil
import subprocess
import sys

import material
import pytest
from bs4 import BeautifulSoup

from scripts import material_search, material_workarounds as workarounds
from scripts.material_workarounds import MATERIAL, TargetMissing
from support import REPO, git, nonempty_glob

# The files of Material the guards read, relative to its templates folder.
TARGETS = [
    "base.html",
    "partials/header.html",
    "partials/alternate.html",
    "partials/search.html",
    "assets/javascripts/bundle.*.min.js",
    "assets/stylesheets/main.*.min.css",
    "assets/stylesheets/palette.*.min.css",
    "assets/javascripts/workers/search.*.min.js",
    workarounds.SEARCH_PLUGIN,
]


@pytest.fixture
def material_copy(tmp_path):
    """A copy of the installed Material's files that the guards read (its templates folder and the search plugin
    beside it), to edit one target in."""
    templates = tmp_path / "templates"
    for pattern in TARGETS:
        for path in nonempty_glob(MATERIAL, pattern):
            copy = templates / path.relative_to(MATERIAL)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, copy)
    return templates


def edit(material, pattern, old, new):
    (path,) = nonempty_glob(material, pattern)
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{pattern} has no {old!r} to edit"
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_the_installed_material_is_the_one_the_workarounds_were_written_for_and_has_every_target():
    workarounds.check_version()
    workarounds.check_targets()


def test_another_material_version_fails_naming_every_workaround():
    workarounds.check_version("9.8.7")
    with pytest.raises(TargetMissing) as error:
        workarounds.check_version("9.9.0")
    assert "mkdocs-material 9.9.0" in str(error.value)
    assert all(name in str(error.value) for name in workarounds.WORKAROUNDS)


# Each target, as Material 9.8 writes it, and an edit that takes it away.
GONE = {
    "tables_in_scroll_wrappers": [
        ("assets/javascripts/bundle.*.min.js", '"table:not([class])"', '"table.bare"'),
        ("assets/javascripts/bundle.*.min.js", '"md-typeset__scrollwrap"', '"md-scroll"'),
    ],
    "style_wrapped_tables_as_material_does": [
        ("assets/stylesheets/main.*.min.css", "table:not([class])", "table.bare")
    ],
    "keep_page_loads_from_restyling_twice": [
        ("assets/stylesheets/palette.*.min.css", "[data-md-color-switching] *", "[data-md-color-changing] *")
    ],
    "code_reachable_by_keyboard": [("assets/javascripts/bundle.*.min.js", '"content.lazy"', '"content.later"')],
    "drop_head_alternates": [
        ("base.html", '<link rel="alternate" href="{{ alt.link | url }}" hreflang=', '<link rel="alternate" hreflang=')
    ],
    "first_paint_once_parsed": [("base.html", '<script id="__config"', '<script id="__settings"')],
    "early_script": [
        ("base.html", "{% block extrahead %}", "{% block head_extra %}"),
        ("assets/javascripts/bundle.*.min.js", '{name:"color-scheme"}', '{name:"scheme"}'),
        ("assets/javascripts/bundle.*.min.js", "new XMLHttpRequest", "new Request"),
    ],
    "language_selector": [
        ("partials/header.html", '{% include "partials/alternate.html" %}', '{% include "partials/languages.html" %}'),
        ("partials/alternate.html", 'class="md-select__link"', 'class="md-select__link" rel="x"'),
    ],
    "site_css": [("base.html", 'class="md-content__inner', 'class="md-content__body')],
    "search_dialog_name": [("partials/search.html", 'class="md-search__input"', 'class="md-search__query"')],
    "search_entries_by_content": [(workarounds.SEARCH_PLUGIN, "self.entries.append(entry)", "self.entries += [entry]")],
    "glossary_words_in_search": [(workarounds.SEARCH_PLUGIN, "jieba.load_userdict(path)", "jieba.add_words(path)")],
    "search_excludes_whole_elements": [(workarounds.SEARCH_PLUGIN, "self.skip.remove(el)", "self.skip.discard(el)")],
    "query_keeps_whole_words": [
        (
            "assets/javascripts/workers/search.*.min.js",
            "o<t.length;o++)t.slice(s,o)in ",
            "o<t.length;o++)t.substring(s,o)in ",
        )
    ],
    "alternates_left_to_crawlers": [
        ("assets/javascripts/bundle.*.min.js", 'M("link[rel=alternate]")', 'M("link[rel=alternate][hreflang]")')
    ],
    "code_buttons_not_a_landmark": [
        ("assets/javascripts/bundle.*.min.js", '("nav",{class:"md-code__nav"})', '("nav",{class:"md-code__buttons"})')
    ],
}


@pytest.mark.parametrize(
    "workaround, pattern, old, new", [(name, *edit_) for name, edits in GONE.items() for edit_ in edits]
)
def test_a_target_gone_from_material_fails_naming_the_workaround_and_the_target(
    material_copy, workaround, pattern, old, new
):
    workarounds.check_targets(material_copy)  # the untouched copy passes
    edit(material_copy, pattern, old, new)
    with pytest.raises(TargetMissing, match=rf"Material workaround {workaround} \(scripts/material_workarounds.py\)"):
        workarounds.check_targets(material_copy)


def test_every_workaround_has_a_guard_test():
    assert set(GONE) == set(workarounds.WORKAROUNDS)


def stylesheets(root, name, css):
    folder = root / "assets" / "stylesheets"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(css)
    return folder / name


def test_the_palette_rule_that_restyles_every_page_load_is_dropped_and_nothing_else(tmp_path):
    css = (
        "[data-md-color-scheme=slate]{--md-hue:232}"
        "[data-md-color-switching] *,[data-md-color-switching] :after{transition-duration:0s!important}"
        ".md-header{color:red}"
    )
    stylesheets(tmp_path / "material", "palette.0123abcd.min.css", css)
    built = stylesheets(tmp_path / "site", "palette.0123abcd.min.css", css)
    workarounds.keep_page_loads_from_restyling_twice(tmp_path / "site", tmp_path / "material")
    assert built.read_text() == "[data-md-color-scheme=slate]{--md-hue:232}.md-header{color:red}"


def test_materials_rules_for_bare_tables_reach_the_wrapped_ones_once(tmp_path):
    css = ".md-typeset table:not([class]){font-size:.64rem}@media print{.md-typeset table:not([class]){display:table}}"
    stylesheets(tmp_path / "material", "main.0123abcd.min.css", css)
    built = stylesheets(tmp_path / "site", "main.0123abcd.min.css", css)
    rewritten = (
        ".md-typeset table:is(:not([class]),.data-table){font-size:.64rem}"
        "@media print{.md-typeset table:is(:not([class]),.data-table){display:table}}"
    )
    for _ in range(2):  # mkdocs serve rebuilds into the same directory
        workarounds.style_wrapped_tables_as_material_does(tmp_path / "site", tmp_path / "material")
        assert built.read_text() == rewritten


def test_the_first_paint_waits_for_the_parser_to_reach_materials_configuration():
    page = (
        '<head><meta charset="utf-8"><link rel="stylesheet" href="main.css"><script>x()</script></head>'
        '<body><table></table><script id="__config" type="application/json">{}</script></body>'
    )
    held = workarounds.first_paint_once_parsed(page)
    assert held == page.replace(
        '<link rel="stylesheet"', '<link rel="expect" href="#__config" blocking="render"><link rel="stylesheet"', 1
    )
    with pytest.raises(TargetMissing, match="first_paint_once_parsed"):
        workarounds.first_paint_once_parsed(page.replace('id="__config"', 'id="settings"'))


def test_each_markdown_table_is_built_in_materials_scrolling_wrapper_which_takes_the_focus():
    page = "<p>a</p>\n<table>\n<tr><td>1</td></tr>\n</table>\n<p>b</p>\n<table>\n<tr><td>2</td></tr>\n</table>"
    wrapper = (
        '<div class="md-typeset__scrollwrap" tabindex="0"><div class="md-typeset__table"><table class="data-table">'
    )
    assert workarounds.tables_in_scroll_wrappers(page) == (
        f"<p>a</p>\n{wrapper}\n<tr><td>1</td></tr>\n</table></div></div>\n<p>b</p>\n"
        f"{wrapper}\n<tr><td>2</td></tr>\n</table></div></div>"
    )


def test_every_code_block_can_take_the_keyboard_focus():
    page = '<div class="highlight"><pre><span></span><code>x = 1\n</code></pre></div><p><code>inline</code></p>'
    assert workarounds.code_reachable_by_keyboard(page) == (
        '<div class="highlight"><pre><span></span><code tabindex="0">x = '
        "1\n</code></pre></div><p><code>inline</code></p>"
    )
    with pytest.raises(TargetMissing, match="code_reachable_by_keyboard"):  # the code markup changed
        workarounds.code_reachable_by_keyboard('<div class="highlight"><pre><code>x = 1\n</code></pre></div>')


def test_the_heads_language_alternates_are_dropped_and_their_absence_fails():
    alternates = [{"lang": "en", "link": "./"}, {"lang": "zh", "link": "zh/"}]
    head = (
        '<head><link rel="canonical" href="x">\n  <link rel="alternate" href="./" hreflang="en">\n'
        '  <link rel="alternate" href="zh/" hreflang="zh"></head>'
    )
    assert workarounds.drop_head_alternates(head, alternates) == '<head><link rel="canonical" href="x"></head>'
    with pytest.raises(TargetMissing, match="drop_head_alternates"):
        workarounds.drop_head_alternates('<head><link rel="canonical" href="x"></head>', alternates)


def build(tree, site, **env):
    """`mkdocs build --strict` of ``tree`` into ``site``, with no PYTHONPATH from outside unless given."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
        cwd=tree,
        capture_output=True,
        text=True,
        env={**environment, "NO_MKDOCS_2_WARNING": "1", **env},
    )


@pytest.mark.site
def test_make_site_fails_naming_the_workaround_when_materials_palette_stylesheet_changed(tmp_path):
    """The real build against a Material whose palette.*.css lost the rule the workaround drops: it stops, naming
    the workaround and the edited file (the copy on PYTHONPATH is the Material the build uses)."""
    package = tmp_path / "material"
    shutil.copytree(os.path.dirname(material.__file__), package, ignore=shutil.ignore_patterns("__pycache__"))
    edit(package / "templates", "assets/stylesheets/palette.*.min.css", "[data-md-color-switching]", "[data-md-x]")
    result = build(REPO, tmp_path / "site", PYTHONPATH=str(tmp_path))
    assert result.returncode != 0
    assert re.search(
        r"Material workaround keep_page_loads_from_restyling_twice .*the rule on "
        rf"\[data-md-color-switching\] is not in {re.escape(str(package))}/templates/assets/stylesheets/"
        r"palette\.\w+\.min\.css",
        result.stdout + result.stderr,
    ), result.stderr[-3000:]


def repository_copy(target):
    """The working tree's files (tracked, and untracked but not ignored) copied to ``target``, links kept."""
    listed = git(REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for name in filter(None, listed):
        source, copy = REPO / name, target / name
        if not source.is_symlink() and not source.exists():
            continue  # deleted in the working tree
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            copy.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, copy)


@pytest.mark.site
def test_without_the_workarounds_hook_and_partial_the_site_builds_and_renders(tmp_path):
    """Delete the workarounds' line from mkdocs.yml and overrides/partials/early_script.html: both editions still
    build strictly and every chapter renders, with Material's own markup and stylesheets (slower, not broken)."""
    tree, site = tmp_path / "tree", tmp_path / "site"
    repository_copy(tree)
    config = (tree / "mkdocs.yml").read_text(encoding="utf-8")
    (line,) = [line for line in config.splitlines(keepends=True) if "scripts/hooks/material_workarounds.py" in line]
    (tree / "mkdocs.yml").write_text(config.replace(line, ""), encoding="utf-8")
    (tree / "overrides" / "partials" / "early_script.html").unlink()
    result = build(tree, site)
    assert result.returncode == 0, result.stderr[-3000:]
    chapters = [path.stem for path in nonempty_glob(tree / "docs", "*.md")]
    for edition in (site, site / "zh"):
        for stem in chapters:
            page = edition / ("index.html" if stem == "index" else f"{stem}/index.html")
            soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
            assert soup.find("article").get_text(strip=True), page
            assert not soup.select("table.data-table") and not soup.select("code[tabindex]"), page
            assert soup.select("head link[rel=alternate][hreflang]"), page  # Material's head, left as it is
            assert "document.head.appendChild = " not in str(soup.head), page
        (palette,) = nonempty_glob(edition / "assets" / "stylesheets", "palette.*.min.css")
        assert "[data-md-color-switching]" in palette.read_text(encoding="utf-8")
    masks = BeautifulSoup((site / "masks" / "index.html").read_text(encoding="utf-8"), "html.parser")
    assert masks.select("article table") and masks.select(".katex")  # tables and math still there


def test_search_entries_come_from_the_cache_only_for_the_same_page(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from material.plugins.search.plugin import SearchIndex

    from scripts import build_cache

    monkeypatch.setattr(build_cache, "CACHE", tmp_path)
    calls = []

    class Index(SearchIndex):
        def add_entry_from_context(self, page):
            calls.append(page.url)
            super().add_entry_from_context(page)

    material_search.search_entries_by_content(Index)
    config = {"lang": ["en"], "separator": r"[\s\-]+", "pipeline": [], "fields": {}}
    heading = SimpleNamespace(id="scale", url="#scale", title="Scale", children=[])
    page = SimpleNamespace(
        content='<h1 id="t">T</h1><p>one</p><h2 id="scale">Scale</h2><p>two words</p>',
        url="softmax/",
        title="T",
        meta={},
        toc=[heading],
    )
    expected = SearchIndex(**config)
    expected.add_entry_from_context(page)
    first, again = Index(**config), Index(**config)
    first.add_entry_from_context(page)
    again.add_entry_from_context(page)
    assert first.entries == again.entries == expected.entries and len(expected.entries) == 2
    assert calls == ["softmax/"]  # the second index read the stored entries
    changed = SimpleNamespace(**{**vars(page), "content": page.content.replace("two", "three")})
    Index(**config).add_entry_from_context(changed)
    assert calls == ["softmax/", "softmax/"]


def test_a_formula_is_left_out_of_the_index_whole_even_with_spans_inside_it():
    """Material's parser ends an exclusion at the first inner closing tag of the same name: the rest of a rendered
    formula (here its letters d and k) went into the title. The index keeps the hidden readable text instead."""
    from material.plugins.search.plugin import Parser

    class Unpatched(Parser):
        pass

    class Patched(Parser):
        pass

    heading = (
        '<h1 id="t">缩放点积注意力与 <span class="arithmatex" data-search-exclude><span class="katex">'
        '<span class="katex-mathml"><math><mi>d</mi></math></span><span class="katex-html">d<br><svg><path/>'
        "</svg><span>k</span></span></span></span><span hidden>√d_k</span></h1><p>after <em>it</em></p>"
    )

    def parsed(parser_class):
        parser = parser_class()
        parser.feed(heading)
        parser.close()
        return ["".join(section.title) for section in parser.data], ["".join(section.text) for section in parser.data]

    material_search.search_excludes_whole_elements(Patched)
    material_search.search_excludes_whole_elements(Patched)  # each build's on_config: patched once
    assert parsed(Unpatched) == (["缩放点积注意力与 dk√d_k"], ["<p>after it</p>"])
    assert parsed(Patched) == (["缩放点积注意力与 √d_k"], ["<p>after it</p>"])


QUERY_SEGMENTER = """function fe(t,e){let r=new Set,n=new Uint16Array(t.length);for(let s=0;s<t.length;s++)\
for(let o=s+1;o<t.length;o++)t.slice(s,o)in e&&(n[s]=o-s);let i=[0];\
for(let s=i.length;s>0;){let o=i[--s];for(let u=1;u<n[o];u++)\
n[o+u]>n[o]-u&&(r.add(t.slice(o,o+u)),i[s++]=o+u);let a=o+n[o];n[a]&&a<t.length-1&&(i[s++]=a),r.add(t.slice(o,a))}\
return r.has("")?new Set([t]):r}"""


@pytest.mark.skipif(not shutil.which("node"), reason="node is not installed")
@pytest.mark.parametrize(
    "query, words", [("层归一化", ["层归一化"]), ("位置编码", ["位置编码"]), ("层归一化梯度", ["层归一化", "梯度"])]
)
def test_a_chinese_query_keeps_the_word_it_ends_with(tmp_path, query, words):
    """Material's query segmenter (copied from its worker) against an index holding the words and their parts:
    it drops the word that ends the query; the rewritten one keeps it."""
    for folder in ("material", "site"):
        workers = tmp_path / folder / "assets" / "javascripts" / "workers"
        workers.mkdir(parents=True)
        (workers / "search.0123abcd.min.js").write_text(QUERY_SEGMENTER)
    workarounds.query_keeps_whole_words(tmp_path / "site", tmp_path / "material")
    index = dict.fromkeys(["层", "归一化", "层归一化", "位置", "编码", "位置编码", "梯度"], {})

    def segmented(folder):
        script = (tmp_path / folder / "assets/javascripts/workers/search.0123abcd.min.js").read_text()
        run = f"{script};console.log(JSON.stringify([...fe({query!r},{json.dumps(index)})]))"
        return json.loads(subprocess.run(["node", "-e", run], capture_output=True, text=True, check=True).stdout)

    assert segmented("material") != words
    assert segmented("site") == words


def test_materials_script_leaves_hreflang_alternates_alone_and_holds_code_buttons_in_a_div_and_nothing_else(tmp_path):
    bundle = (
        'a();e.pipe(b(()=>M("link[rel=alternate]")),m(r=>new URL(r.href)));M("link[rel=canonical]");'
        'function Pn(){return x("nav",{class:"md-code__nav"})}function Qn(){return x("nav",{class:"md-tabs"})}'
    )
    for folder in ("material", "site"):
        scripts = tmp_path / folder / "assets" / "javascripts"
        scripts.mkdir(parents=True)
        (scripts / "bundle.0123abcd.min.js").write_text(bundle)
    for _ in range(2):  # mkdocs serve rebuilds into the same directory
        workarounds.rewrite_bundle(tmp_path / "site", tmp_path / "material")
        assert (tmp_path / "site/assets/javascripts/bundle.0123abcd.min.js").read_text() == (
            'a();e.pipe(b(()=>M("link[rel=alternate]:not([hreflang])")),m(r=>new URL(r.href)));'
            'M("link[rel=canonical]");'
            'function Pn(){return x("div",{class:"md-code__nav"})}function Qn(){return x("nav",{class:"md-tabs"})}'
        )


def test_the_search_plugin_loads_the_glossary_dictionary_and_keys_its_entries_by_it(tmp_path):
    import jieba
    from mkdocs.config.defaults import MkDocsConfig

    config = MkDocsConfig()
    config.load_dict({"site_name": "x", "theme": {"name": "material", "language": "zh"}, "plugins": ["search"]})
    config.validate()
    config.plugins.run_event("config", config)
    dictionary = tmp_path / "words.txt"
    dictionary.write_text("等变\n")
    assert list(jieba.cut("置换等变")) != ["置换", "等变"]
    material_search.glossary_words_in_search(config, dictionary)
    assert list(jieba.cut("置换等变")) == ["置换", "等变"]
    (search,) = config.plugins.values()
    assert search.search_index.config["jieba_dict_user"] == str(dictionary)
    assert material_search._dictionaries(search.search_index.config) == [b"\xe7\xad\x89\xe5\x8f\x98\n"]
