"""The browser tests' fixtures (test_browser.py, test_explorables.py, test_explorable_core.py,
test_search_and_switch.py): the built site served over HTTP, headless Chromium, and a fresh tab that records its
requests, errors and missing files. A module that uses them first calls support.require_chromium()."""

import functools
import threading
from http.server import ThreadingHTTPServer

import pytest
from playwright.sync_api import sync_playwright

from support import CHROMIUM, QuietHandler

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def base_url(built_site):
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(built_site)))
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
