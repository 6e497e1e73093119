"""The built site in a real browser (headless Chromium), both editions: math renders, nothing outside is
requested, figures load, dark mode and search (Chinese included) work, downloads are served."""

import io
import re
from pathlib import Path

import mkdocs_jupyter
import pytest
from axe_playwright_python.sync_playwright import Axe
from PIL import Image, ImageChops

from support import REPO, nonempty_glob, require_chromium, visit

pytestmark = pytest.mark.site
require_chromium()
JUPYTER_CSS = [
    Path(mkdocs_jupyter.__file__).parent / "templates" / "mkdocs_html" / "assets" / name
    for name in ("index.css", "theme-light.css")
]  # what mkdocs-jupyter inlines into every notebook page
CHAPTERS = [p.stem for p in nonempty_glob(REPO / "docs", "*.md")]


@pytest.mark.claim(
    "Pages show math rendered at build time, with the vendored KaTeX fonts, and request nothing from outside the site",
    zh="页面显示构建时渲染好的数学公式，使用随站点附带的 KaTeX 字体，且不向站点之外请求任何资源",
)
@pytest.mark.parametrize(
    "path",
    [
        "",
        "scaled-dot-product/",
        "notebooks/scaled-dot-product/",
        "zh/",
        "zh/scaled-dot-product/",
        "zh/notebooks/scaled-dot-product/",
    ],
)
def test_math_renders_and_every_request_stays_on_the_site(page, base_url, path):
    visit(page, base_url, path)
    outside = [url for url in page.requests if not url.startswith(base_url) and not url.startswith("data:")]
    assert outside == []
    assert page.errors == [] and page.missing == []
    if path.endswith("scaled-dot-product/") and "notebooks" not in path:
        assert page.locator(".katex").count() > 0, "no formula was rendered by KaTeX"
        assert page.locator(".katex-error").count() == 0
        assert page.evaluate("document.fonts.check('16px KaTeX_Main')"), "KaTeX's font did not load"


def test_chapter_figures_load(page, base_url):
    visit(page, base_url, "scaled-dot-product/")
    images = page.locator("article figure img")
    assert images.count() > 0
    for image in images.all():  # figures below the first load lazily: scroll to each, as a reader would
        image.scroll_into_view_if_needed()
        image.evaluate("(img) => img.decode()")  # resolves once the image has loaded and decoded; throws if it cannot
    widths = images.evaluate_all("(imgs) => imgs.map((img) => img.complete ? img.naturalWidth : 0)")
    assert all(width > 0 for width in widths), widths


def test_dark_mode_toggle_switches_the_scheme(page, base_url):
    visit(page, base_url, "scaled-dot-product/")
    before = page.get_attribute("body", "data-md-color-scheme")
    page.locator("form[data-md-component=palette] label:visible").first.click()
    after = page.get_attribute("body", "data-md-color-scheme")
    assert {before, after} == {"default", "slate"}


def test_the_pages_color_scheme_follows_the_palette_without_a_meta_that_restyles_every_load(page, base_url):
    """Material's script adds and sets a <meta name="color-scheme"> at every load, restyling the whole page twice;
    the site keeps it out, and the root element (the page's own scroll bars) still takes the palette's scheme."""
    visit(page, base_url, "scaled-dot-product/")
    assert page.locator("meta[name=color-scheme]").count() == 0
    root_scheme = "getComputedStyle(document.documentElement).colorScheme"
    schemes = {page.get_attribute("body", "data-md-color-scheme"): page.evaluate(root_scheme)}
    page.locator("form[data-md-component=palette] label:visible").first.click()
    schemes[page.get_attribute("body", "data-md-color-scheme")] = page.evaluate(root_scheme)
    assert schemes == {"default": "normal", "slate": "dark"}


def test_search_finds_a_chapter(page, base_url):
    visit(page, base_url, "")
    page.locator("input.md-search__input").click()
    page.keyboard.type("softmax", delay=50)  # Material searches on key events, not on a programmatic fill
    page.wait_for_selector(".md-search-result__item", timeout=30_000)
    assert page.locator(".md-search-result__item").count() > 0


@pytest.mark.parametrize("path, opens_search", [("masks/", "click"), ("zh/masks/", "press")])
def test_the_search_index_is_requested_only_once_the_reader_opens_search(page, base_url, path, opens_search):
    visit(page, base_url, path)
    page.wait_for_timeout(500)
    assert not [url for url in page.requests if url.endswith("/search_index.json")], (
        "requested before search was opened"
    )
    with page.expect_request(lambda request: request.url.endswith("/search_index.json"), timeout=10_000):
        if opens_search == "click":
            page.locator("input.md-search__input").click()
        else:
            page.keyboard.press("/")  # Material's shortcut: focuses the search box
    page.keyboard.type("softmax", delay=50)
    page.wait_for_selector(".md-search-result__item", timeout=30_000)


def test_an_address_with_a_search_query_shows_its_results(page, base_url):
    visit(page, base_url, "masks/?q=softmax")  # Material opens search with the query; the index must follow
    page.wait_for_selector(".md-search-result__item", timeout=30_000)


# Every change to <html>'s class or data-js-focus-visible, recorded with whether <body> existed when it was made
# (the observer watches the document: <html> does not exist yet when an init script runs).
RECORD_ROOT_CHANGES = """
window.rootChanges = [];
new MutationObserver((records) => {
  for (const record of records) {
    const now = record.target.getAttribute(record.attributeName);
    if (record.target === document.documentElement && record.oldValue !== now)
      rootChanges.push({ attribute: record.attributeName, to: now, body: !!document.body });
  }
}).observe(document, { subtree: true, attributes: true, attributeOldValue: true,
                       attributeFilter: ["class", "data-js-focus-visible"] });
"""


def test_html_is_marked_scripted_before_the_body_is_parsed(page, base_url):
    """A change to <html>'s class restyles every element below it: made after the body is parsed (as Material's
    bundle would), it costs a whole-page style pass at every load."""
    page.add_init_script(RECORD_ROOT_CHANGES)
    visit(page, base_url, "kv-cache/")
    changes = page.evaluate("rootChanges")
    assert changes and not [change for change in changes if change["body"]], changes
    assert set(page.evaluate("[...document.documentElement.classList]")) >= {"js", "js-focus-visible"}


@pytest.mark.parametrize("path, name", [("", "Search"), ("zh/", "搜索")])
def test_the_search_dialog_is_named_in_the_pages_language(page, base_url, path, name):
    visit(page, base_url, path)
    assert page.get_by_role("dialog", name=name, exact=True).count() == 1


@pytest.mark.claim(
    "Chinese search finds a word inside Chinese sentences and lands on the chapter that teaches it",
    zh="中文搜索能找到中文句子中的词，并跳转到讲解它的章节",
)
@pytest.mark.parametrize("word, chapter", [("掩码", "masks"), ("位置编码", "positional-encoding")])
def test_chinese_search_finds_a_word_inside_sentences(page, base_url, word, chapter):
    visit(page, base_url, "zh/")
    page.locator("input.md-search__input").click()
    page.keyboard.insert_text(word)  # as an input method commits Chinese text: no key events for the characters
    page.keyboard.press("End")  # Material searches on key events
    first = page.locator(".md-search-result__item > .md-search-result__link").first
    first.wait_for(timeout=30_000)
    first.click()
    page.wait_for_load_state("networkidle")
    assert page.url.split("#")[0].split("?")[0].endswith(f"/zh/{chapter}/"), page.url


@pytest.mark.parametrize(
    "path",
    [
        "scaled-dot-product/",
        "notebooks/scaled-dot-product/",
        "zh/scaled-dot-product/",
        "zh/notebooks/scaled-dot-product/",
    ],
)
def test_notebook_downloads_are_served(page, base_url, path):
    visit(page, base_url, path)
    links = page.locator("a[download]").all()
    assert len(links) == 2
    for link in links:
        response = page.request.get(link.evaluate("(a) => a.href"))
        assert response.status == 200 and len(response.body()) > 100


def test_code_blocks_get_their_copy_button_when_they_scroll_into_view(page, base_url):
    visit(page, base_url, "scaled-dot-product/")
    last = page.locator("article pre").last
    assert last.locator("button[data-md-type=copy]").count() == 0  # far below the screen: not set up at load
    last.scroll_into_view_if_needed()
    last.locator("button[data-md-type=copy]").wait_for(timeout=10_000)


# The sum of every layout shift so far (buffered entries arrive in one callback; none at all means no shift).
LAYOUT_SHIFTS = """() => new Promise((resolve) => {
  const shifts = [];
  const name = (node) => node
    ? node.nodeName + (node.className ? '.' + String(node.className).split(' ').join('.') : '')
    : '?';
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      shifts.push([entry.value, Math.round(entry.startTime), entry.sources.map((s) => name(s.node))]);
    }
  }).observe({type: "layout-shift", buffered: true});
  setTimeout(() => resolve(shifts), 500);
})"""


@pytest.mark.parametrize(
    "path",
    ["notation/", "claims/", "debugging/", "weighted-sum/", "zh/notation/", "notebooks/softmax/", "notebooks/claims/"],
)
def test_pages_with_tables_and_math_do_not_jump_while_they_load(browser, base_url, path):
    """Lighthouse's layout-shift measure on a phone-sized screen and its mobile network (150 ms round trips,
    1.6 Mbit/s), where the browser draws a page before all of it has arrived: fonts, table wrappers and blocks
    skipped off screen move nothing much."""
    context = browser.new_context(viewport={"width": 412, "height": 823}, device_scale_factor=1.75, is_mobile=True)
    tab = context.new_page()
    network = context.new_cdp_session(tab)
    network.send("Network.enable")
    network.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 150, "downloadThroughput": 1.6e6 / 8, "uploadThroughput": 750e3 / 8},
    )
    tab.goto(base_url + path, wait_until="networkidle")
    assert tab.evaluate("PerformanceObserver.supportedEntryTypes.includes('layout-shift')")
    shifts = tab.evaluate(LAYOUT_SHIFTS)  # [score, milliseconds after navigation, the elements that moved]
    context.close()
    assert sum(score for score, _, _ in shifts) < 0.01, shifts


SKIPPED_AND_HEADINGS = """() => {
  const skipped = (element) => getComputedStyle(element).contentVisibility !== 'visible';
  const headings = [...document.querySelectorAll('.md-sidebar--secondary .md-nav__link[href^="#"]')]
    .map((link) => document.getElementById(decodeURIComponent(link.hash.slice(1))));
  const inSkipped = headings.filter((heading) => {
    for (let e = heading; e; e = e.parentElement) if (skipped(e)) return true;
    return false;
  });
  return {headings: headings.length, inSkipped: inSkipped.map((heading) => heading.id),
          skipped: [...document.querySelectorAll('.md-content__inner *')].filter(skipped).length};
}"""


@pytest.mark.parametrize(
    "path", ["positional-encoding/", "notebooks/positional-encoding/", "zh/notebooks/full-layer/", "notebooks/claims/"]
)
def test_long_pages_skip_blocks_off_screen_but_never_a_heading(page, base_url, path):
    """Blocks far down a long page are skipped until they come near the screen (content-visibility, site.css), but
    no heading is inside one: Material's table-of-contents spy reads every heading's position on load, and each
    heading inside a skipped block made the browser lay that block out there and then (five full layouts in one
    task on the positional-encoding notebook, Lighthouse's blocking time)."""
    page.goto(base_url + path, wait_until="load")
    found = page.evaluate(SKIPPED_AND_HEADINGS)
    assert found["headings"] >= 3 and found["skipped"] >= 10, found
    assert found["inSkipped"] == []


# KaTeX names its font files <family>-<variant>; the variant gives the weight and style the browser asks for.
FONT_FACES = {"Regular": "400 normal", "Bold": "700 normal", "Italic": "400 italic", "BoldItalic": "700 italic"}


@pytest.mark.parametrize(
    "path",
    [
        "backward/",
        "masks/",
        "order-matters/",
        "scaled-dot-product/",
        "tokens-to-vectors/",
        "zh/weighted-sum/",
        "notebooks/scaled-dot-product/",
    ],
)
def test_pages_preload_exactly_the_math_fonts_the_browser_draws_their_formulas_with(page, base_url, path):
    """A font that arrives after the first layout moves the text (a layout shift); one nobody draws with wastes
    bandwidth on a phone. The browser draws the whole page, off-screen parts included, and names the faces it used."""
    visit(page, base_url, path)
    page.add_style_tag(content="* { content-visibility: visible !important }")
    drawn = page.evaluate("""async () => { document.body.offsetHeight; await document.fonts.ready;
      return [...document.fonts].filter((face) => face.status === 'loaded')
        .map((face) => `${face.family} ${face.weight} ${face.style}`) }""")
    files = page.evaluate(
        "[...document.querySelectorAll('link[rel=preload][as=font]')].map((link) => link.href.split('/').pop())"
    )
    preloaded = [f"{name.split('-')[0]} {FONT_FACES[name.split('-')[1].removesuffix('.woff2')]}" for name in files]
    assert "KaTeX_Main 400 normal" in drawn
    assert sorted(preloaded) == sorted(drawn)


@pytest.mark.parametrize("path", ["scaled-dot-product/", "backward/", "zh/masks/"])
def test_formulas_look_the_same_with_the_cut_down_fonts_as_with_katex_own(browser, base_url, path):
    """The build keeps in each KaTeX font only the glyphs the formulas draw: a glyph cut by mistake would be drawn
    from another font. Every formula of the page, drawn once with the served fonts and once with KaTeX's own."""
    originals = REPO / "docs" / "assets" / "katex" / "fonts"
    shots = []
    for own_fonts in (False, True):
        context = browser.new_context(viewport={"width": 800, "height": 900})
        tab = context.new_page()
        if own_fonts:
            tab.route(
                "**/assets/katex/fonts/*.woff2",
                lambda route: route.fulfill(
                    path=originals / route.request.url.rsplit("/", 1)[1], content_type="font/woff2"
                ),
            )
        tab.goto(base_url + path, wait_until="networkidle")
        tab.add_style_tag(content="* { content-visibility: visible !important } .md-clipboard { display: none }")
        tab.evaluate("document.fonts.ready")
        shots.append(Image.open(io.BytesIO(tab.locator("article").screenshot())).convert("L"))
        context.close()
    assert shots[0].size == shots[1].size
    differing = sum(ImageChops.difference(*shots).point(lambda value: 255 if value > 64 else 0).histogram()[255:])
    assert differing < 50, f"{differing} pixels differ"


@pytest.mark.parametrize("path", ["notation/", "scaled-dot-product/"])
def test_tables_built_in_their_scrolling_wrapper_look_as_when_materials_script_wraps_them(page, base_url, path):
    measure = """() => [...document.querySelectorAll('article table')].map((table) => {
      const block = table.closest('.md-typeset__scrollwrap');
      const above = block.previousElementSibling.getBoundingClientRect();
      const below = block.nextElementSibling.getBoundingClientRect();
      const box = table.getBoundingClientRect(), cell = table.querySelector('td').getBoundingClientRect();
      const style = getComputedStyle(table);
      return [box.top - above.bottom, below.top - box.bottom, box.left, box.width, box.height, cell.left, cell.top,
              style.fontSize, style.borderTopWidth, block.tabIndex,
              block.parentElement.closest('.md-typeset__scrollwrap') !== null];
    })"""
    visible = "* { content-visibility: visible !important }"
    visit(page, base_url, path)
    page.add_style_tag(content=visible)
    built = page.evaluate(measure)

    def as_markdown_makes_them(route):  # bare <table>s, for Material's script to wrap after load
        html = route.fetch().text()
        wrapper = (
            '<div class="md-typeset__scrollwrap" tabindex="0"><div class="md-typeset__table"><table class="data-table">'
        )
        assert wrapper in html
        html = re.sub(r"</table></div></div>", "</table>", html.replace(wrapper, "<table>"))
        route.fulfill(body=html, content_type="text/html")

    page.route(base_url + path, as_markdown_makes_them)
    visit(page, base_url, path)
    page.add_style_tag(content=visible)
    page.evaluate(
        "() => document.querySelectorAll('.md-typeset__scrollwrap').forEach((wrap) => { wrap.tabIndex = 0; })"
    )
    assert built and page.evaluate(measure) == built
    assert all(focusable == 0 and not nested for *_, focusable, nested in built)


# Every rule of the original stylesheets whose selector matches an element of the page (dynamic pseudo-classes
# and pseudo-elements removed) must be on the page too: a rule with the same declarations whose selector matches
# at least those elements. Each selector is matched once and the page's rules are looked up by their declarations
# (reading a rule's cssText serializes it: comparing every pair took most of a minute on a notebook page).
RULES_THAT_APPLY_BUT_ARE_MISSING = """(css) => {
  const dynamic = new RegExp('::?(before|after|placeholder|selection|marker|first-line|first-letter|hover|'
    + 'focus-visible|focus-within|focus|active|visited|-webkit-[\\\\w-]+|-moz-[\\\\w-]+|-ms-[\\\\w-]+)', 'g');
  const styleRules = (rules) => [...rules].flatMap(
    (r) => r.selectorText ? [r] : r.cssRules ? styleRules(r.cssRules) : []);
  const matches = new Map();
  const elements = (selector) => {
    if (!matches.has(selector)) {
      let found;
      try { found = new Set(document.querySelectorAll(selector.replace(dynamic, ""))); } catch { found = new Set(); }
      matches.set(selector, found);
    }
    return matches.get(selector);
  };
  const original = new CSSStyleSheet();
  original.replaceSync(css);
  const onPage = new Map();  // declarations: the selectors of the page's rules that have them
  for (const rule of [...document.styleSheets].flatMap((sheet) => styleRules(sheet.cssRules))) {
    const declarations = rule.style.cssText;
    onPage.set(declarations, [...(onPage.get(declarations) || []), rule.selectorText]);
  }
  const applying = styleRules(original.cssRules).filter((rule) => elements(rule.selectorText).size > 0);
  const missing = applying.filter((rule) => {
    const matched = [...elements(rule.selectorText)];
    return !(onPage.get(rule.style.cssText) || []).some((selector) => matched.every((e) => elements(selector).has(e)));
  });
  return {applying: applying.length, missing: missing.map((rule) => rule.selectorText)};
}"""


@pytest.mark.claim(
    "Notebook pages keep every JupyterLab style rule that applies to them and drop most of the rest",
    zh="笔记本页面保留适用于它们的每条 JupyterLab 样式规则，去掉其余的大部分规则",
)
@pytest.mark.parametrize("path", ["notebooks/softmax/", "zh/notebooks/multi-head/"])
def test_notebook_pages_keep_every_style_rule_that_applies_to_them(page, base_url, path):
    visit(page, base_url, path)
    original = "\n".join(css.read_text(encoding="utf-8") for css in JUPYTER_CSS)
    result = page.evaluate(RULES_THAT_APPLY_BUT_ARE_MISSING, original)
    assert result["applying"] > 30 and result["missing"] == []
    inline = page.evaluate(
        "() => [...document.querySelectorAll('style')].reduce((n, s) => n + s.textContent.length, 0)"
    )
    assert inline < len(original) / 3


ACCESSIBILITY_PAGES = ["" if stem == "index" else f"{stem}/" for stem in CHAPTERS]
ACCESSIBILITY_PAGES += [f"notebooks/{p.stem}/" for p in nonempty_glob(REPO / "docs" / "notebooks", "*.ipynb")]
ACCESSIBILITY_PAGES += [f"zh/{path}" for path in ACCESSIBILITY_PAGES]  # the Chinese edition


@pytest.fixture(scope="module")
def scheme_tabs(browser):
    """One tab per colour scheme, opened when first needed and reused by every page checked in it (in each
    pytest-xdist worker): a new browser context per page costs more than axe's run on a small page."""
    tabs = {}

    def tab(scheme):
        if scheme not in tabs:
            tabs[scheme] = browser.new_context(color_scheme=scheme).new_page()
        return tabs[scheme]

    yield tab
    for opened in tabs.values():
        opened.context.close()


@pytest.mark.claim(
    "Every chapter and notebook page passes axe-core with no violation at all, in light and dark mode",
    zh="无论浅色还是深色模式，每个章节页面和笔记本页面都能通过 axe-core 检查，没有任何违规",
)
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", ACCESSIBILITY_PAGES)
def test_pages_have_no_accessibility_violations(scheme_tabs, base_url, path, scheme):
    """One test per page and scheme, so the workers share the pages out. A page is checked once it has loaded
    and its fonts are ready: every resource it needs to draw has arrived then (contrast depends on the fonts), and
    waiting for the network to stay idle for half a second more changed no result of axe on any page."""
    tab = scheme_tabs(scheme)
    tab.goto(base_url + path, wait_until="load")
    tab.evaluate("document.fonts.ready.then(() => true)")
    # Blocks far down a page are laid out only near the screen (content-visibility, site.css): until then they
    # are clipped to a placeholder box, and axe, which finds a text's background by what is drawn at its place,
    # reads the footer's behind a table's link there. Lay every block out, as scrolling to it would.
    tab.add_style_tag(content="* { content-visibility: visible !important; }")
    # On a tab's first page Material draws the light palette, then its script sets the dark one, and the menu
    # links fade to their new colour (a transition of 125 ms): axe, run inside the fade, reads an in-between grey
    # on the dark background (every menu link of one dark page failed so in two fresh-clone runs). Wait for the
    # scheme asked for, then end every transition: a cancelled transition jumps to its end, the colour readers see.
    expected = {"light": "default", "dark": "slate"}[scheme]
    tab.wait_for_function(f"document.body.dataset.mdColorScheme === '{expected}'")
    tab.add_style_tag(content="*, *::before, *::after { transition: none !important; }")
    violations = Axe().run(tab).response["violations"]  # of any impact, minor ones (an empty table header) too
    assert [f"{v['id']} ({v['impact']}) at {[node['target'] for node in v['nodes'][:3]]}" for v in violations] == []
