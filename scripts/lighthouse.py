"""`make lighthouse`: Lighthouse scores of every chapter and notebook page, as a phone reader would see them.

    python -m scripts.lighthouse [--site site] [--runs N] [--report-dir DIR] [page ...]

Serves the built site (default `site/`) on 127.0.0.1 with gzip, as a static host would, runs Lighthouse 12.2.3
(`npx`, default mobile settings) with the installed Chromium on each page, and prints each page's performance and
accessibility scores next to the targets: performance >= 95 on chapter pages, >= 90 on notebook pages,
accessibility 100. Exits 1 when a page misses one. ``--runs N`` judges each page by the median of N audits.
Chromium is given the Chinese font the project installs (Noto Sans SC), as a Chinese reader's phone has one.
A page is named by its path in the site: `scaled-dot-product/`, `notebooks/softmax/`, `` (home).
"""

import argparse
import functools
import gzip
import importlib.resources
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from scripts.pipeline.project import REPO as ROOT, Project

sys.path.insert(0, str(Project().snippets))

from lib.plotting import CJK_FONT  # the font the figures draw Chinese with

LIGHTHOUSE = "lighthouse@12.2.3"
CHROME = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
COMPRESSED = {".html", ".css", ".js", ".json", ".svg", ".txt", ".xml", ".ipynb", ".py", ".map"}
TARGETS = {"chapter": 95, "notebook": 90}  # performance; accessibility must be 100 everywhere


class GzipHandler(SimpleHTTPRequestHandler):
    """Static files; text files gzip-compressed when the client accepts it (Python's own server never compresses)."""

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path = path / "index.html"
        accepts_gzip = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts_gzip and path.is_file() and path.suffix in COMPRESSED):
            return super().send_head()
        body = _gzipped(path, path.stat().st_mtime_ns)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=600")
        self.end_headers()
        if self.command == "GET":
            self.wfile.write(body)
        return None

    def log_message(self, *args):
        pass


@functools.cache
def _gzipped(path, mtime_ns):
    return gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)


def pages(site):
    """Every chapter page and every notebook page the site serves, in both editions, as (path, kind)."""
    chapters = [("" if p.stem == "index" else f"{p.stem}/", "chapter") for p in sorted((ROOT / "docs").glob("*.md"))]
    notebooks = [(f"notebooks/{p.stem}/", "notebook") for p in sorted((ROOT / "docs" / "notebooks").glob("*.ipynb"))]
    english = chapters + notebooks
    every = english + [(f"zh/{path}", kind) for path, kind in english]  # the Chinese edition, page for page
    missing = [path for path, _ in every if not (site / path / "index.html").is_file()]
    if missing:
        sys.exit(f"{site} lacks {', '.join(missing)}: build the site first (make site)")
    return every


def font_config(directory):
    """A fontconfig file (in ``directory``) for Chromium: the system's fonts and the project's Chinese font."""
    package, filename, _ = CJK_FONT
    try:
        font = importlib.resources.files(package) / filename
    except ModuleNotFoundError:
        sys.exit(f"Lighthouse audits the Chinese pages with {filename}: pip install {package.replace('_', '-')}")
    config = Path(directory) / "fonts.conf"
    config.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
        '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n'
        f"  <dir>{Path(str(font)).parent}</dir>\n</fontconfig>\n"
    )
    return config


def audit(url, fonts):
    """Lighthouse's category scores for one URL, in percent; Chromium reads the fontconfig file ``fonts``."""
    command = [
        "npx",
        "--yes",
        LIGHTHOUSE,
        url,
        "--quiet",
        "--output=json",
        "--output-path=stdout",
        "--only-categories=performance,accessibility",
        "--chrome-flags=--headless=new --no-sandbox",
    ]
    environment = {**os.environ, "CHROME_PATH": CHROME, "FONTCONFIG_FILE": str(fonts)}
    result = subprocess.run(command, capture_output=True, text=True, env=environment)
    if result.returncode != 0:
        sys.exit(f"lighthouse failed on {url}:\n{result.stderr[-2000:]}")
    report = json.loads(result.stdout)
    unscored = [name for name, category in report["categories"].items() if category["score"] is None]
    if unscored:  # Lighthouse exits 0 but gives no score when the page failed to load or paint in time
        problem = report.get("runtimeError", {}).get("message", "no runtime error reported")
        sys.exit(f"lighthouse gave {url} no {' or '.join(unscored)} score: {problem}")
    return report, {name: round(100 * category["score"]) for name, category in report["categories"].items()}


def median_scores(runs):
    """Each category's median score over several runs of one page (the lower middle one for an even count)."""
    return {name: statistics.median_low(run[name] for run in runs) for name in runs[0]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, default=ROOT / "site", help="the built site (default: site/)")
    parser.add_argument("--runs", type=int, default=1, help="audit each page this many times; judge the median")
    parser.add_argument("--report-dir", type=Path, help="also save each page's full Lighthouse JSON report here")
    parser.add_argument("page", nargs="*", help="only these pages (paths in the site); default: all")
    args = parser.parse_args(argv)
    if not Path(CHROME).exists():
        sys.exit(f"Lighthouse needs Chromium at {CHROME} (apt-get install chromium, or set CHROME_PATH)")
    selected = [(path, kind) for path, kind in pages(args.site) if not args.page or path in args.page]
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(GzipHandler, directory=str(args.site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    misses = 0
    print(f"{'page':40} {'performance':>11} {'accessibility':>13}")
    scratch = tempfile.TemporaryDirectory()  # holds the fontconfig file while Chromium runs
    fonts = font_config(scratch.name)
    try:
        for path, kind in selected:
            runs = []
            for run in range(1, args.runs + 1):
                report, scores = audit(f"http://127.0.0.1:{server.server_port}/{path}", fonts)
                runs.append(scores)
                if args.report_dir:
                    args.report_dir.mkdir(parents=True, exist_ok=True)
                    name = (path.strip("/").replace("/", "--") or "index") + (f"-{run}" if args.runs > 1 else "")
                    (args.report_dir / f"{name}.json").write_text(json.dumps(report))
            scores = median_scores(runs)
            missed = scores["performance"] < TARGETS[kind] or scores["accessibility"] < 100
            misses += missed
            each = f"  (performance per run: {' '.join(str(r['performance']) for r in runs)})" if args.runs > 1 else ""
            flag = f"  below target (performance >= {TARGETS[kind]}, accessibility 100)" if missed else ""
            print(f"{'/' + path:40} {scores['performance']:>11} {scores['accessibility']:>13}{flag}{each}", flush=True)
    finally:
        server.shutdown()
        scratch.cleanup()
    print(f"{len(selected) - misses} of {len(selected)} pages meet the targets")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
