"""`make lighthouse`'s server compresses as a static host would, the script audits every chapter and notebook, and
its Chromium draws Chinese with a real font."""

import functools
import gzip
import os
import threading
import urllib.request
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from scripts import lighthouse
from support import nonempty_glob


@pytest.fixture
def server(tmp_path):
    (tmp_path / "page").mkdir()
    (tmp_path / "page" / "index.html").write_text("<p>" + "attention " * 500 + "</p>")
    (tmp_path / "figure.png").write_bytes(b"\x89PNG not really")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(lighthouse.GzipHandler, directory=str(tmp_path)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}/"
    httpd.shutdown()


def get(url, encoding):
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept-Encoding": encoding})) as response:
        return response.headers.get("Content-Encoding"), response.read()


def test_text_is_served_gzipped_to_clients_that_accept_it_and_plain_to_others(server):
    encoding, body = get(server + "page/", "gzip, deflate")
    assert encoding == "gzip" and gzip.decompress(body).decode().count("attention") == 500
    assert len(body) < 200
    encoding, body = get(server + "page/", "identity")
    assert encoding is None and body.decode().count("attention") == 500
    assert get(server + "figure.png", "gzip") == (None, b"\x89PNG not really")  # already compressed formats


def test_every_chapter_and_notebook_page_is_audited_against_its_target(tmp_path):
    chapters = [p.stem for p in nonempty_glob(lighthouse.ROOT / "docs", "*.md")]
    notebooks = [p.stem for p in nonempty_glob(lighthouse.ROOT / "docs" / "notebooks", "*.ipynb")]
    for edition in ("", "zh/"):
        for path in [f"{c}/" for c in chapters if c != "index"] + [f"notebooks/{n}/" for n in notebooks] + [""]:
            (tmp_path / edition / path).mkdir(parents=True, exist_ok=True)
            (tmp_path / edition / path / "index.html").write_text("<p>page</p>")
    pages = dict(lighthouse.pages(tmp_path))
    assert len(pages) == 2 * (len(chapters) + len(notebooks))
    assert pages[""] == pages["softmax/"] == pages["zh/softmax/"] == "chapter"
    assert pages["notebooks/softmax/"] == pages["zh/notebooks/softmax/"] == "notebook"
    (tmp_path / "softmax" / "index.html").unlink()
    with pytest.raises(SystemExit, match="lacks softmax/"):
        lighthouse.pages(tmp_path)


def test_several_runs_are_judged_by_their_median():
    runs = [
        {"performance": 88, "accessibility": 100},
        {"performance": 97, "accessibility": 100},
        {"performance": 93, "accessibility": 100},
    ]
    assert lighthouse.median_scores(runs) == {"performance": 93, "accessibility": 100}
    assert lighthouse.median_scores(runs[:2]) == {"performance": 88, "accessibility": 100}  # the lower middle


@pytest.mark.skipif(not Path(lighthouse.CHROME).exists(), reason="needs Chromium (apt-get install chromium)")
def test_the_audited_chromium_draws_chinese_with_the_projects_font_not_missing_glyph_boxes(tmp_path):
    from playwright.sync_api import sync_playwright

    fonts = lighthouse.font_config(tmp_path)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=lighthouse.CHROME, args=["--no-sandbox"], env={**os.environ, "FONTCONFIG_FILE": str(fonts)}
        )
        page = chromium.new_page()
        page.set_content('<html lang="zh"><body><p id="text">缩放点积注意力</p></body></html>')
        cdp = page.context.new_cdp_session(page)
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument")["root"]["nodeId"]
        text = cdp.send("DOM.querySelector", {"nodeId": root, "selector": "#text"})["nodeId"]
        used = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": text})["fonts"]
        chromium.close()
    assert [(font["familyName"], font["glyphCount"]) for font in used] == [("Noto Sans SC", 7)]
