"""The built site: every page there, nothing loaded from outside, figures described, values inlined."""

import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fontTools.ttLib import TTFont

from scripts.ledger import claim_tests, quoted_values
from scripts.pipeline.notebooks import chapter_snippets
from scripts.pipeline.project import Project, git
from scripts.pipeline.published import values
from support import CLAIMS, NAV, REPO, nonempty_glob

pytestmark = pytest.mark.site
PROJECT = Project()
OUTSIDE = re.compile(r"^(https?:)?//")


CHAPTERS = [p.stem for p in nonempty_glob(PROJECT.docs, "*.md")]


@functools.cache
def parsed(path):
    """A built page's parsed HTML, parsed once for all the tests here (about 0.2 s per page: most tests read every
    page, and the site does not change during a run). The tests only read it."""
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


@pytest.fixture(scope="module", autouse=True)
def _forget_parsed_pages():
    """The parsed pages weigh about 400 MB: let them go once this module's tests are done."""
    yield
    parsed.cache_clear()


def page_html(site, stem):
    return parsed(site / ("index.html" if stem == "index" else f"{stem}/index.html"))


def test_every_chapter_is_in_the_nav_and_built(built_site):
    assert sorted(Path(p).stem for p in NAV) == CHAPTERS
    for stem in CHAPTERS:
        assert page_html(built_site, stem).find("article") is not None


@pytest.mark.claim(
    "No page loads a script, stylesheet, font or image from outside the site",
    zh="没有页面从站点之外加载脚本、样式表、字体或图片",
)
def test_nothing_is_loaded_from_outside_the_site(built_site):
    offenders = []
    for html in nonempty_glob(built_site, "**/*.html"):
        soup = parsed(html)
        for tag, attribute in (
            ("script", "src"),
            ("img", "src"),
            ("iframe", "src"),
            ("source", "src"),
            ("link", "href"),
        ):
            for element in soup.find_all(tag):
                url = element.get(attribute, "")
                is_navigation_link = tag == "link" and element.get("rel") in (["canonical"], ["alternate"])
                if OUTSIDE.match(url) and not is_navigation_link:
                    offenders.append(f"{html.relative_to(built_site)}: <{tag} {attribute}={url}>")
    for css in nonempty_glob(built_site, "**/*.css"):
        offenders += [f"{css.name}: {u}" for u in re.findall(r"url\(['\"]?((?:https?:)?//[^)'\"]+)", css.read_text())]
    assert offenders == []


def test_every_page_of_both_editions_defers_materials_bundle_and_then_site_js(built_site):
    pages = nonempty_glob(built_site, "**/index.html")
    assert len(pages) >= 2 * len(CHAPTERS)
    for path in pages:
        scripts = parsed(path).select("script[src]")
        names = [script["src"].rsplit("/", 1)[-1] for script in scripts]
        assert [name.split(".")[0] for name in names] == ["bundle", "site"], f"{path}: {names}"
        assert all(script.has_attr("defer") for script in scripts), f"{path.relative_to(built_site)}: {scripts}"


@pytest.mark.claim("Every figure in a chapter has alt text and a caption", zh="章节中的每张图都有替代文本和图注")
def test_every_chapter_figure_has_alt_text_and_a_caption(built_site):
    figures = {}
    for site, stem in [(site, stem) for site in (built_site, built_site / "zh") for stem in CHAPTERS]:
        for img in page_html(site, stem).select("article img"):
            figures[site] = figures.get(site, 0) + 1
            assert img.get("alt", "").strip(), f"{stem}: image {img.get('src')} has no alt text"
            figure = img.find_parent("figure")
            assert figure is not None and figure.find("figcaption"), f"{stem}: image {img.get('src')} has no caption"
            assert figure.find("figcaption").get_text(strip=True)
    assert len(figures) == 2 and min(figures.values()) > 0, figures  # both editions' figures were checked


def test_every_quoted_value_is_inlined(built_site):
    quotes = quoted_values(PROJECT)
    articles = {page: page_html(built_site, page[:-3]).find("article").get_text() for page in {q[0] for q in quotes}}
    for page, snippet, name in quotes:
        assert "{{" not in articles[page] and "missing value" not in articles[page], page
        assert name in values(snippet)


def test_chapters_with_snippets_link_an_executed_notebook_and_its_downloads(built_site):
    with_snippets = [s for s in CHAPTERS if chapter_snippets((PROJECT.docs / f"{s}.md").read_text())]
    assert with_snippets
    for stem in with_snippets:
        notebook = page_html(built_site, f"notebooks/{stem}")
        assert notebook.select(".jp-OutputArea-output"), f"notebook {stem} shows no executed output"
        assert (built_site / "notebooks" / stem / f"{stem}.ipynb").exists()
        assert (built_site / "notebooks" / stem / f"{stem}.py").exists()
        links = {a["href"] for a in page_html(built_site, stem).select("article a[href]")}
        assert {f"../notebooks/{stem}/", f"../notebooks/{stem}/{stem}.ipynb", f"../notebooks/{stem}/{stem}.py"} <= links
        downloads = {a["href"] for a in notebook.select("p.notebook-downloads a")}
        assert downloads == {f"{stem}.ipynb", f"{stem}.py"}  # relative to the notebook page, beside the files


def test_a_missing_value_fails_the_strict_build(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Page\n\nThe answer is {{ index.no_such_snippet.answer }}.\n")
    hook = REPO / "scripts" / "hooks" / "chapter_pages.py"
    (tmp_path / "mkdocs.yml").write_text(f"site_name: t\nhooks:\n  - {hook}\n")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "no value 'answer' published by snippets/index/no_such_snippet.py" in result.stderr


def test_the_ledger_is_light_lists_every_claim_and_never_says_not_run(built_site):
    """Mid-run the ledger may or may not have a complete record of this commit (tests/chapters/test_ledger.py covers
    each case); either way every claim test is listed once, in collapsed groups, on a light page."""
    path = built_site / "ledger" / "index.html"
    claims = claim_tests(REPO / "tests")
    quoted = quoted_values(Project())
    # the page lists the claims and every quoted value: about 45 bytes a value (the exercises' 415 values added 18.5
    # kB) and 400 a claim (175,541 bytes with 309 claims and 1,131 values; 194,069 with 311 and 1,546, 2026-12-05).
    # It grows with what it lists, its weight per entry may not.
    budget = 420 * len(claims) + 50 * len(quoted)
    assert path.stat().st_size < budget, f"the ledger page weighs {path.stat().st_size} bytes (budget {budget})"
    article = page_html(built_site, "ledger").find("article")
    text = article.get_text()
    assert "not run" not in text
    for claim, test_id in claims:  # each claim names the test that backs it, file and function
        assert f"{claim.replace('`', '')} — backed by {test_id}" in text, test_id
    assert len(article.select("details")) >= len({test_id.split("::")[0] for _, test_id in claims})


# Chapters that quote no snippet: the ledger lists tests, the benchmarks page shows timings from `make bench`.
WITHOUT_SNIPPETS = {"ledger"}
VERSIONS = re.compile(r"Python (\S+), NumPy (\S+) and matplotlib (\S+)\.")


def page_dir(site, stem):
    return site if stem == "index" else site / stem


@pytest.mark.claim(
    "Every chapter names the commit and the Python, NumPy and matplotlib versions its outputs were computed with, as "
    "the manifests record them, and links its snippets",
    zh="每一章都按清单的记录注明计算其输出所用的提交以及 Python、NumPy 和 matplotlib 的版本，并链接到它的代码片段",
)
def test_every_chapter_with_snippets_has_a_provenance_footer_true_to_the_manifests(built_site):
    assert WITHOUT_SNIPPETS < set(CHAPTERS)
    for stem in CHAPTERS:
        footer = page_html(built_site, stem).select_one("article footer.provenance")
        if stem in WITHOUT_SNIPPETS:
            assert footer is None, stem
            continue
        assert footer is not None, f"{stem}: no provenance footer"
        links = [a["href"] for a in footer.select("a[href]")]
        names = [href.split("snippets/", 1)[1].removesuffix(".py") for href in links]  # <chapter>/<what>
        page = page_html(built_site, stem)
        shown = {t.get_text(strip=True) for t in page.select("article .highlight .filename")}
        shown = {
            name for name in shown if re.fullmatch(r"snippets/(?!lib/)[a-z0-9_]+/[a-z0-9_]+\.py", name)
        }  # not Output
        shown |= {
            f"snippets/{'/'.join(img['src'].split('/')[-3:-1])}.py"
            for img in page.select("article img[src*='generated/']")
        }
        assert shown <= {f"snippets/{n}.py" for n in names}, f"{stem}: footer misses {shown - set(names)}"
        for href, name in zip(links, names):
            served = (page_dir(built_site, stem) / href).resolve()
            assert served.read_bytes() == (REPO / "snippets" / f"{name}.py").read_bytes(), f"{stem}: {href}"
        text = footer.get_text(" ", strip=True)
        recorded = {
            tuple(
                json.loads((PROJECT.generated / n / "manifest.json").read_text())["versions"][k]
                for k in ("python", "numpy", "matplotlib")
            )
            for n in names
        }
        assert len(recorded) == 1 and VERSIONS.search(text).groups() == recorded.pop(), f"{stem}: {text}"
        commit = footer.select_one("code").get_text()
        outputs = [f"docs/generated/{n}" for n in names]
        assert git(REPO, "cat-file", "-e", f"{commit}^{{commit}}").returncode == 0, f"{stem}: {commit} is no commit"
        if "uncommitted" in text:
            assert git(REPO, "status", "--porcelain", "--", *outputs).stdout.strip(), stem
        else:  # the outputs this page shows are exactly those of the commit it names
            differ = git(REPO, "diff", "--quiet", commit, "--", *outputs).returncode
            assert differ == 0, f"{stem}: outputs differ from {commit}"


@pytest.mark.claim(
    "Math is rendered when the site is built: pages ship KaTeX's CSS and fonts, not its JavaScript",
    zh="数学公式在构建站点时渲染：页面附带 KaTeX 的 CSS 和字体，而不附带它的 JavaScript",
)
def test_math_is_rendered_at_build_time_and_no_page_loads_katex_javascript(built_site):
    for html in nonempty_glob(built_site, "**/*.html"):
        soup = parsed(html)
        scripts = [s.get("src", "") + s.get_text()[:200] for s in soup.find_all("script")]
        assert not [s for s in scripts if "katex" in s.lower() or "mathjax" in s.lower()], html
    for stem in CHAPTERS:
        source = (PROJECT.docs / f"{stem}.md").read_text(encoding="utf-8")
        article = page_html(built_site, stem).find("article")
        if "$" in source:
            assert article.select(".katex .katex-mathml math"), f"{stem}: no rendered formula"
        assert not article.select(".katex-error"), stem
        assert "\\(" not in article.get_text() and "\\[" not in article.get_text(), f"{stem}: raw TeX left"
    notebook = page_html(built_site, "notebooks/scaled-dot-product").select_one(".jp-RenderedMarkdown h1")
    assert notebook.select(".katex") and "$" not in notebook.get_text()


def test_no_stylesheet_restyles_the_page_when_material_marks_a_palette_switch(built_site):
    """Material's script sets and removes <body data-md-color-switching> at every page load; a selector on it
    would make the browser restyle the whole page twice per load."""
    palettes = nonempty_glob(built_site, "**/assets/stylesheets/palette.*.css")
    assert len(palettes) == 2  # one per edition
    for css in nonempty_glob(built_site, "**/*.css"):
        assert "data-md-color-switching" not in css.read_text(encoding="utf-8"), css


def svg_aspect(path):
    view_box = [float(x) for x in re.search(r'viewBox="([^"]+)"', path.read_text(encoding="utf-8")).group(1).split()]
    return view_box[2] / view_box[3]


def first_block_skipped_at_load():
    """From site.css: the position among a chapter's blocks of the first one the browser may skip at load."""
    css = (REPO / "docs" / "assets" / "stylesheets" / "site.css").read_text(encoding="utf-8")
    return int(re.search(r"\.md-content__inner > :nth-child\(n \+ (\d+)\)", css).group(1))


def test_figures_have_their_size_and_all_but_a_first_one_on_the_first_screens_load_lazily(built_site):
    """A page's first figure loads with the page (it may be the largest thing on the first screen), unless it lies in
    a chapter's blocks the browser may skip at load, screens below the first: then it loads lazily like the rest."""
    skipped_from = first_block_skipped_at_load()
    notebooks = [f"notebooks/{p.stem}" for p in nonempty_glob(PROJECT.notebooks, "*.ipynb")]
    assert any(page_html(built_site, stem).select("article img") for stem in notebooks)
    eager_firsts = {True: 0, False: 0}
    for stem in CHAPTERS + [f"zh/{stem}" for stem in CHAPTERS if stem != "index"] + notebooks:
        page = page_html(built_site, stem)
        blocks = page.select_one(".md-content__inner").find_all(recursive=False)
        for position, img in enumerate(page.select("article img")):
            width, height = int(img["width"]), int(img["height"])
            aspect = svg_aspect((page_dir(built_site, stem) / img["src"]).resolve())
            assert abs(width / height - aspect) < 0.01, f"{stem}: {img['src']} is {width}x{height}"
            block = next(parent for parent in img.parents if parent.parent is blocks[0].parent)
            number = next(number for number, each in enumerate(blocks, 1) if each is block)
            far_down = "notebooks/" not in stem and number >= skipped_from
            eager = position == 0 and not far_down
            assert img.get("loading") == (None if eager else "lazy"), f"{stem}: {img['src']}"
            if position == 0:
                eager_firsts[eager] += 1
    assert eager_firsts[True] > 0 and eager_firsts[False] > 0, eager_firsts  # both kinds of page are in the site


@pytest.mark.parametrize("edition", ["", "zh/"])
def test_notebook_figures_carry_their_chapters_alt_text(built_site, edition):
    def alt_texts(stem):
        return {
            (page_dir(built_site, stem) / img["src"]).resolve(): img.get("alt")
            for img in page_html(built_site, stem).select("article img")
            if not img["src"].startswith("data:")
        }

    checked = 0
    for notebook in nonempty_glob(PROJECT.notebooks, "*.ipynb"):
        chapter = alt_texts(edition + notebook.stem)
        for figure, alt in alt_texts(f"{edition}notebooks/{notebook.stem}").items():
            # The notebook shows the English figure; a Chinese chapter shows its Chinese twin (<label>.zh.svg).
            twin = figure.with_name(figure.name.removesuffix(".svg") + ".zh.svg")
            assert alt == chapter.get(figure, chapter.get(twin)), f"notebooks/{notebook.stem}: {figure.name}"
            checked += 1
    assert checked > 10


def test_no_figure_is_heavier_than_300_kb():
    figures = nonempty_glob(PROJECT.generated, "*/*/*.svg")
    sizes = {p.relative_to(PROJECT.generated).as_posix(): p.stat().st_size for p in figures}
    assert {name: size for name, size in sizes.items() if size > 300_000} == {}


@pytest.mark.parametrize("edition", ["", "zh/"])
def test_math_fonts_keep_every_glyph_a_formula_draws_and_little_else(built_site, edition):
    """The browser draws a formula's visible part (.katex-html) with KaTeX's fonts: each font of the edition must
    still hold every character of every formula that the original font holds. The fonts pages preload are cut."""
    root = built_site / edition
    pages = [p for p in nonempty_glob(root, "**/*.html") if edition or not p.relative_to(root).parts[0] == "zh"]
    drawn, preloaded = set(), set()
    for page in pages:
        soup = parsed(page)
        for formula in soup.select(".katex-html"):
            drawn.update(formula.get_text())
        preloaded.update(link["href"].rsplit("/", 1)[1] for link in soup.select("link[rel=preload][as=font]"))
    assert {"∑", "√", "α"} & drawn and "KaTeX_Main-Regular.woff2" in preloaded
    original_size = served_size = 0
    for original in nonempty_glob(REPO / "docs" / "assets" / "katex" / "fonts", "*.woff2"):
        served = root / "assets" / "katex" / "fonts" / original.name
        needed = {code for code in TTFont(original).getBestCmap() if chr(code) in drawn}
        assert needed <= set(TTFont(served).getBestCmap()), original.name
        if original.name in preloaded:
            original_size, served_size = original_size + original.stat().st_size, served_size + served.stat().st_size
    assert served_size < original_size / 2


# What a search index of prose only (no code, no program output) may weigh per page of the edition: the budget grows
# with the site (it was 400 kB for 22 pages, about 18 kB a page), the density may not. The claims page grows with the
# claims inventory, not with the pages: it has a budget per claim (581 bytes a claim in Chinese, 360 in English, with
# 180 claims on 2026-12-05).
SEARCH_BYTES_PER_PAGE = 17_000
SEARCH_BYTES_PER_CLAIM = 700


def search_index_within_budget(index):
    """The index's entries weigh less than the pages' and the claims' budgets: (claims page bytes, the rest)."""
    entries = json.loads(index.read_text(encoding="utf-8"))["docs"]
    weight = lambda entry: len(json.dumps(entry, ensure_ascii=False).encode())  # noqa: E731
    claims_page = sum(weight(e) for e in entries if e["location"].split("#")[0] == "claims/")
    rest = sum(weight(e) for e in entries if e["location"].split("#")[0] != "claims/")
    assert claims_page < SEARCH_BYTES_PER_CLAIM * len(CLAIMS.claims), f"claims page: {claims_page} bytes"
    assert rest < SEARCH_BYTES_PER_PAGE * (len(CHAPTERS) - 1), f"the other pages: {rest} bytes"


@pytest.mark.claim(
    "The search index holds the chapters' prose, not code, program output or notebooks, and weighs under 17 KB per "
    "page (the claims page: under 700 bytes per claim)",
    zh="搜索索引只收录各章的正文，不收录代码、程序输出或笔记本，且每个页面平均不到 17 KB"
    "（“论断核查”页：每条论断不到 700 字节）",
)
def test_the_search_index_holds_prose_and_stays_small(built_site):
    index = built_site / "search" / "search_index.json"
    search_index_within_budget(index)
    entries = json.loads(index.read_text(encoding="utf-8"))["docs"]
    assert not [e["location"] for e in entries if e["location"].startswith("notebooks/")]
    text = " ".join(e["text"] for e in entries)
    assert "import numpy as np" not in text  # code blocks are left out
    assert (
        '--8<-- "docs/generated/scaled_dot_product/steps/stdout.txt"'
        in (PROJECT.docs / "scaled-dot-product.md").read_text()
    )
    assert (
        "weights = softmax(scaled), one row per query:"
        in (PROJECT.generated / "scaled_dot_product/steps/stdout.txt").read_text()
    )
    assert "one row per query:" not in text  # program output is left out
    assert "scaled dot-product attention" in text.lower()


def test_the_ledgers_generated_rows_stay_out_of_search_and_its_prose_stays_in(built_site):
    for edition in ("", "zh/"):
        entries = json.loads((built_site / edition / "search" / "search_index.json").read_text(encoding="utf-8"))[
            "docs"
        ]
        ledger = " ".join(e["text"] for e in entries if e["location"].startswith("ledger/"))
        assert ledger, f"{edition}ledger: no prose in the search index"
        assert "::test_" not in ledger and "snippets/" not in ledger, f"{edition}ledger: its rows are in the index"
        assert "::test_" in (built_site / edition / "ledger" / "index.html").read_text(encoding="utf-8")


# ------------------------------------------------------------------------- the Chinese edition, under /zh/


def heading_ids(soup):
    return [h["id"] for h in soup.find("article").find_all(re.compile(r"^h[1-6]$")) if h.get("id")]


@pytest.mark.claim(
    "Every page has a Chinese twin under /zh/ with lang=zh, and the language switch lands on the same page",
    zh="每个页面在 /zh/ 下都有 lang=zh 的中文对应页面，语言切换会跳转到同一页面",
)
def test_every_page_has_a_chinese_twin_that_the_language_switch_links(built_site):
    chinese_site = built_site / "zh"
    for stem in CHAPTERS + [f"notebooks/{p.stem}" for p in nonempty_glob(PROJECT.notebooks, "*.ipynb")]:
        english, chinese = page_html(built_site, stem), page_html(chinese_site, stem)
        assert english.html["lang"] == "en" and chinese.html["lang"] == "zh", stem
        for soup, folder, other in (
            (english, page_dir(built_site, stem), page_dir(chinese_site, stem)),
            (chinese, page_dir(chinese_site, stem), page_dir(built_site, stem)),
        ):
            switch = {a["hreflang"]: (folder / a["href"]).resolve() for a in soup.select("a.md-select__link[hreflang]")}
            assert set(switch.values()) == {folder.resolve(), other.resolve()}, f"{stem}: {switch}"


def toc_targets(soup):
    return [a["href"] for a in soup.select(".md-sidebar--secondary a.md-nav__link[href^='#']")]


def test_the_twins_headings_have_the_same_anchors(built_site):
    """Chapters and notebooks: the language switch keeps the #anchor, so it must name the same section in both
    editions, and each table-of-contents link must reach its heading."""
    for stem in CHAPTERS + [f"notebooks/{p.stem}" for p in nonempty_glob(PROJECT.notebooks, "*.ipynb")]:
        english, chinese = page_html(built_site, stem), page_html(built_site / "zh", stem)
        assert heading_ids(chinese) == heading_ids(english), f"zh/{stem}: the anchors no longer pair with the English"
        assert toc_targets(chinese) == toc_targets(english), f"zh/{stem}: its table of contents links other anchors"
        assert {href[1:] for href in toc_targets(chinese)} <= set(heading_ids(chinese)), (
            f"zh/{stem}: a link has no heading"
        )


def test_chinese_pages_link_the_same_notebooks_and_their_downloads(built_site):
    for stem in CHAPTERS:
        if not chapter_snippets((PROJECT.docs / f"{stem}.md").read_text()):
            continue
        folder = page_dir(built_site / "zh", stem)
        links = [a["href"] for a in page_html(built_site / "zh", stem).select("article a[href*='notebooks/']")]
        assert len(links) >= 3, f"zh/{stem}: no notebook links"
        for href in links:
            target = (folder / href.split("#")[0]).resolve()
            assert (target / "index.html" if target.is_dir() else target).is_file(), f"zh/{stem}: {href}"


def test_the_chinese_search_index_is_cut_into_words_and_stays_small(built_site):
    index = built_site / "zh" / "search" / "search_index.json"
    search_index_within_budget(index)
    entries = json.loads(index.read_text(encoding="utf-8"))
    assert "\\u200b" in entries["config"]["separator"]  # the regex escape: words end at zero-width spaces
    masks = " ".join(e["text"] for e in entries["docs"] if e["location"].startswith("masks/"))
    assert "\u200b掩码\u200b" in masks, "jieba did not cut 掩码 out of the Chinese sentences"
