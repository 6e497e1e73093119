"""The built site in a real browser (headless Chromium), both editions: math renders, nothing outside is
requested, figures load, dark mode and search (Chinese included) work, downloads are served."""

import functools
import os
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytestmark = pytest.mark.site
CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

if not CHROMIUM.exists():
    if os.environ.get("CI"):
        pytest.fail("CI needs Chromium at /usr/bin/chromium for the browser tests (.ci/run installs it)")
    pytest.skip("Chromium is not installed at /usr/bin/chromium (apt-get install chromium)", allow_module_level=True)

from axe_playwright_python.sync_playwright import Axe  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CHAPTERS = sorted(p.stem for p in (REPO / "docs").glob("*.md"))


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def base_url(built_site):
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(built_site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, base_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.requests, tab.errors, tab.missing = [], [], []
    tab.on("request", lambda request: tab.requests.append(request.url))
    tab.on("response", lambda response: response.status >= 400 and tab.missing.append(response.url))
    tab.on("pageerror", lambda error: tab.errors.append(str(error)))
    yield tab
    context.close()


def visit(page, base_url, path):
    page.goto(base_url + path, wait_until="networkidle")
    return page


@pytest.mark.claim("Pages show math rendered at build time, with the vendored KaTeX fonts, and request nothing from outside the site")
@pytest.mark.parametrize("path", ["", "scaled-dot-product/", "notebooks/scaled-dot-product/", "zh/", "zh/scaled-dot-product/",
                                  "zh/notebooks/scaled-dot-product/"])
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


def test_search_finds_a_chapter(page, base_url):
    visit(page, base_url, "")
    page.locator("input.md-search__input").click()
    page.keyboard.type("softmax", delay=50)  # Material searches on key events, not on a programmatic fill
    page.wait_for_selector(".md-search-result__item", timeout=30_000)
    assert page.locator(".md-search-result__item").count() > 0


@pytest.mark.claim("Chinese search finds a word inside Chinese sentences and lands on the chapter that teaches it")
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


@pytest.mark.parametrize("path", ["scaled-dot-product/", "notebooks/scaled-dot-product/", "zh/scaled-dot-product/",
                                  "zh/notebooks/scaled-dot-product/"])
def test_notebook_downloads_are_served(page, base_url, path):
    visit(page, base_url, path)
    links = page.locator("a[download]").all()
    assert len(links) == 2
    for link in links:
        response = page.request.get(link.evaluate("(a) => a.href"))
        assert response.status == 200 and len(response.body()) > 100


def test_code_blocks_have_a_copy_button(page, base_url):
    visit(page, base_url, "scaled-dot-product/")
    assert page.locator("article pre button[data-md-type=copy]").count() > 0


@pytest.mark.claim("Every chapter and notebook page passes axe-core with no serious or critical violation, in light and dark mode")
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_pages_have_no_serious_accessibility_violations(browser, base_url, scheme):
    context = browser.new_context(color_scheme=scheme)
    tab = context.new_page()
    axe = Axe()
    paths = ["" if stem == "index" else f"{stem}/" for stem in CHAPTERS]
    paths += [f"notebooks/{p.stem}/" for p in sorted((REPO / "docs" / "notebooks").glob("*.ipynb"))]
    paths += [f"zh/{path}" for path in paths]  # the Chinese edition
    found = []
    for path in paths:
        tab.goto(base_url + path, wait_until="networkidle")
        for violation in axe.run(tab).response["violations"]:
            if violation["impact"] in ("serious", "critical"):
                targets = [node["target"] for node in violation["nodes"][:3]]
                found.append(f"/{path} ({scheme}): {violation['id']} at {targets}")
    context.close()
    assert found == []
