"""`mkdocs serve` on a small copy of the project: it settles instead of rebuilding in a loop, reruns an edited
snippet, and keeps serving while a snippet fails or hangs past its time limit."""

import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from scripts.pipeline.discover import BOOTSTRAP

pytestmark = pytest.mark.site
PROBE = (
    '"""A probe snippet."""\nimport sys\nfrom pathlib import Path\n'
    + BOOTSTRAP.replace("{", "{{").replace("}", "}}")
    + '\nfrom lib.publish import value\nvalue("answer", {answer})\n'
)
HANGING = '"""A probe that never ends."""\n# Build time limit: 2 s\nimport time\nwhile True:\n    time.sleep(1)\n'


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, seconds=90, what="condition"):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except OSError:
        return None, ""


@pytest.fixture
def copy(small_site):
    (small_site / "snippets" / "index").mkdir()
    (small_site / "snippets" / "index" / "serve_probe.py").write_text(PROBE.format(answer=41))
    (small_site / "docs" / "index.md").write_text("# Home\n\nThe answer is {{ index.serve_probe.answer }}.\n")
    (small_site / "docs-zh" / "index.md").write_text("# 首页 {#home}\n\n答案是 {{ index.serve_probe.answer }}。\n")
    return small_site


def test_serve_settles_reruns_edits_and_survives_failing_and_hanging_snippets(copy):
    port = free_port()
    log = copy / "serve.log"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    with open(log, "w") as stream:
        server = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "--no-strict", "--dev-addr", f"127.0.0.1:{port}"],
            cwd=copy,
            stdout=stream,
            stderr=subprocess.STDOUT,
            env=env,
        )
    url = f"http://127.0.0.1:{port}/"
    builds = lambda: log.read_text().count("Documentation built")  # noqa: E731
    try:
        wait_for(lambda: "The answer is 41" in fetch(url)[1], what="the first build with the probe's value")
        time.sleep(8)
        settled = builds()
        time.sleep(8)
        assert builds() == settled, "mkdocs serve keeps rebuilding with no change"

        (copy / "snippets" / "index" / "serve_probe.py").write_text(PROBE.format(answer=42))
        wait_for(lambda: "The answer is 42" in fetch(url)[1], what="the edited snippet's new value")

        (copy / "snippets" / "index" / "serve_probe.py").write_text(PROBE.format(answer="1 / 0"))
        wait_for(lambda: "ZeroDivisionError" in log.read_text(), what="the failure report")
        assert f"{copy / 'snippets' / 'index' / 'serve_probe.py'}:6: ZeroDivisionError" in log.read_text()
        wait_for(lambda: "The answer is 42" in fetch(url)[1], what="the site serving the previous outputs")

        (copy / "snippets" / "index" / "serve_probe.py").write_text(HANGING)
        wait_for(
            lambda: "snippets/index/serve_probe.py: timed out after 2 s" in log.read_text(), what="the timeout report"
        )
        wait_for(lambda: "The answer is 42" in fetch(url)[1], what="the site serving on after a hanging snippet")
        assert server.poll() is None
    finally:
        server.terminate()
        server.wait(timeout=20)
