"""Search and the language switch in a real browser (headless Chromium, the fixtures of test_browser.py): a
compound glossary term is searched as one word and lands on the chapter that teaches it, a heading's formula stays
readable in a result's title, and switching language keeps the section the reader is at; with an address, a page
names its twins and still requests nothing from outside the site."""

import functools
import os
import subprocess
import sys
import threading
from http.server import ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest

from support import QuietHandler, require_chromium, visit

pytestmark = pytest.mark.site
require_chromium()
RESULT = ".md-search-result__item"
FIRST_LINK = f"{RESULT} > .md-search-result__link"


def search(page, base_url, path, query):
    visit(page, base_url, path)
    page.locator("input.md-search__input").click()
    page.keyboard.insert_text(query)  # as an input method commits Chinese text: no key events for the characters
    page.keyboard.press("End")  # Material searches on key events
    page.locator(FIRST_LINK).first.wait_for(timeout=30_000)


@pytest.mark.claim(
    "Chinese search finds a compound glossary term as one word and lands on the chapter that teaches it",
    zh="中文搜索把术语表中的复合术语当作一个词找到，并跳转到讲解它的章节",
)
@pytest.mark.parametrize(
    "word, chapter", [("层归一化", "transformer-block"), ("等变", "order-matters"), ("梯度检验", "backward")]
)
def test_a_compound_term_is_searched_whole_and_its_chapter_comes_first(page, base_url, word, chapter):
    search(page, base_url, "zh/", word)
    first = page.locator(FIRST_LINK).first
    assert urlsplit(first.get_attribute("href")).path.endswith(f"/zh/{chapter}/"), first.get_attribute("href")
    marked = set(page.locator(f"{RESULT} mark").all_inner_texts()) - {""}  # Material also marks empty runs
    assert marked == {word}, f"highlighted {marked}, not the whole word"
    first.click()
    page.wait_for_load_state("networkidle")
    assert urlsplit(page.url).path.endswith(f"/zh/{chapter}/"), page.url


@pytest.mark.claim(
    "A search result's title keeps the formula of its heading, as readable text",
    zh="搜索结果的标题保留其标题中的公式，并显示为可读的文本",
)
@pytest.mark.parametrize(
    "path, query, title",
    [
        ("zh/", "缩放点积注意力", "缩放点积注意力与 √d_k"),
        ("", "scaled dot-product", "Scaled dot-product attention and the √d_k"),
    ],
)
def test_a_result_title_keeps_its_math_readable(page, base_url, path, query, title):
    search(page, base_url, path, query)
    titles = [
        " ".join(text.replace("\u200b", "").split())  # the index cuts Chinese words apart with U+200B
        for text in page.locator(f"{RESULT} h1").all_inner_texts()
    ]
    assert title in titles, titles


@pytest.mark.claim(
    "Switching language keeps the section the reader is at (the address's #anchor)",
    zh="切换语言时保留读者所在的小节（网址中的 #锚点）",
)
@pytest.mark.parametrize(
    "path, other", [("masks/", "zh/masks/"), ("zh/masks/", "masks/"), ("zh/notebooks/masks/", "notebooks/masks/")]
)
def test_the_language_switch_keeps_the_anchor(page, base_url, path, other):
    visit(page, base_url, path)
    first, last = page.locator("article h2[id]").evaluate_all("(headings) => [headings[0].id, headings.at(-1).id]")
    visit(page, base_url, f"{path}#{first}")  # an address that comes with an anchor
    page.locator(f'.md-sidebar--secondary a[href="#{last}"]').click()  # then a jump within the page
    page.locator(".md-header__option .md-select").hover()
    language = "zh" if other.startswith("zh/") else "en"
    page.locator(f"a.md-select__link[hreflang={language}]").click()
    page.wait_for_load_state("networkidle")
    assert page.url == f"{base_url}{other}#{last}"
    assert page.locator(f"article h2[id='{last}']").count() == 1, "the other edition has no heading with that id"


@pytest.mark.claim(
    "With a site address, pages name their twins by address and still request nothing from outside",
    zh="设置了站点网址时，页面用网址指明各自的对应语言页面，且仍不向站点之外请求任何资源",
)
def test_with_an_address_pages_request_nothing_outside_the_site(browser, small_site):
    """A small copy of the project built with SITE_URL set, served from here: Material's script, left to itself,
    requests a sitemap.xml beside each hreflang alternate of the page, on the address's host."""
    site, address = small_site / "site", "https://example.org/attention/"
    build = [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)]
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": address}
    result = subprocess.run(build, cwd=small_site, env=environment, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    here = f"http://127.0.0.1:{server.server_port}/"
    context = browser.new_context()
    try:
        for path in ("", "zh/", "ledger/", "zh/ledger/"):
            tab = context.new_page()
            requests = []
            tab.on("request", lambda request: requests.append(request.url))
            tab.goto(here + path, wait_until="networkidle")
            tab.wait_for_timeout(500)
            alternates = tab.locator("head link[rel=alternate][hreflang]").evaluate_all(
                "(links) => Object.fromEntries(links.map((link) => [link.hreflang, link.href]))"
            )
            page_url = path.removeprefix("zh/")
            english = address + page_url
            assert alternates == {"en": english, "zh": f"{address}zh/{page_url}", "x-default": english}
            assert [url for url in requests if not url.startswith(here)] == [], path
            tab.close()
    finally:
        context.close()
        server.shutdown()
