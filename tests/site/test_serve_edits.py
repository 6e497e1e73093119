"""`make serve`'s partial rebuilds (`mkdocs serve --dirty`, scripts/serve_rebuilds.py), in a real browser: a
saved edit to one page shows in the open page by itself, only that page is rendered again, and the other edition
is rebuilt only when the edit is its own. The time from save to visible is printed (a figure for the notes, not
a bound: the machines are shared)."""

import os
import subprocess
import sys
import tempfile
import time

import pytest
from playwright.sync_api import sync_playwright
from test_serve import fetch, free_port, wait_for

from support import CHROMIUM, nonempty_glob, require_chromium

pytestmark = pytest.mark.site
require_chromium()


def served_folder(started):
    """The folder `mkdocs serve` builds into (a new mkdocs_* temporary folder)."""
    folders = [p for p in nonempty_glob(tempfile.gettempdir(), "mkdocs_*") if p.stat().st_mtime >= started - 1]
    return max(folders, key=lambda p: p.stat().st_mtime)


def built_times(folder):
    return {p.relative_to(folder).as_posix(): p.stat().st_mtime_ns for p in nonempty_glob(folder, "**/index.html")}


def save_and_watch(tab, source, text):
    """Append ``text`` to ``source`` and wait until the open page shows it; the seconds it took."""
    started = time.monotonic()
    with open(source, "a", encoding="utf-8") as stream:
        stream.write(f"\n{text}\n")
    tab.wait_for_function(
        "text => document.body !== null && document.body.innerText.includes(text)", arg=text, timeout=60_000
    )  # the page reloads meanwhile: there may be no body yet
    return time.monotonic() - started


def test_a_saved_page_shows_by_itself_and_only_its_edition_rebuilds_it(small_site):
    (small_site / "docs" / "notes.md").write_text("# Notes\n\nFirst version.\n")
    (small_site / "docs-zh" / "notes.md").write_text("# 笔记 {#notes}\n\n第一版。\n")
    port, log = free_port(), small_site / "serve.log"
    started = time.time()
    with open(log, "w") as stream:
        server = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "--dirty", "--dev-addr", f"127.0.0.1:{port}"],
            cwd=small_site,
            stdout=stream,
            stderr=subprocess.STDOUT,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        )
    url = f"http://127.0.0.1:{port}/"
    builds = lambda: log.read_text().count("Documentation built")  # noqa: E731
    try:
        wait_for(lambda: "第一版" in fetch(url + "zh/notes/")[1], what="the first build of both editions")
        assert builds() == 2 and "Aborted" not in log.read_text()  # strict: the dirty build's notice is no warning
        folder = served_folder(started)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox"])
            tab = browser.new_page()
            tab.goto(url + "notes/")
            before = built_times(folder)
            seconds = save_and_watch(tab, small_site / "docs" / "notes.md", "Second version.")
            print(f"\nan English edit showed in the open page {seconds:.2f} s after it was saved")
            after = built_times(folder)
            assert {page for page in after if after[page] != before[page]} == {"notes/index.html"}
            assert builds() == 3  # the English edition only

            tab.goto(url + "zh/notes/")
            seconds = save_and_watch(tab, small_site / "docs-zh" / "notes.md", "第二版。")
            print(f"a Chinese edit showed in the open page {seconds:.2f} s after it was saved")
            latest = built_times(folder)
            assert {page for page in latest if latest[page] != after[page]} == {"zh/notes/index.html"}
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
