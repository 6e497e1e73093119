"""Run one snippet in this process and capture what it produces into a folder.

    python -m scripts.pipeline.worker SNIPPET.py OUT_DIR

Writes stdout.txt, one SVG per open figure (named by the figure's label),
table-<name>.md per published table, values.json, and on failure error.json
(file, line, exception) with exit status 1. The builder runs this in a fresh
process per snippet, so a crash cannot take the build down.
"""

import io
import json
import os
import re
import runpy
import sys
import traceback
from contextlib import redirect_stdout
from pathlib import Path

os.environ["MPLBACKEND"] = "Agg"

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from scripts.pipeline.tables import markdown_table  # noqa: E402

_LABEL = re.compile(r"[a-z0-9][a-z0-9_-]*\Z")


def _failure(exc, snippet):
    """The innermost frame inside snippets/ (the snippet or a module it imports), and the exception."""
    frames = traceback.extract_tb(exc.__traceback__)
    inside = [f for f in frames if Path(f.filename).resolve().parent == snippet.parent] or frames[-1:]
    frame = inside[-1]
    return {
        "file": frame.filename,
        "line": frame.lineno,
        "exception": "".join(traceback.format_exception_only(exc)).strip(),
        "traceback": "".join(traceback.format_exception(exc)),
    }


def _figure_name(figure, number):
    label = figure.get_label()
    if not label:
        return f"figure-{number}"
    if not _LABEL.match(label):
        raise ValueError(f"figure label {label!r} must be lower-case letters, digits, '-' or '_'")
    return label


def save_figures(out):
    plt.rcParams["svg.hashsalt"] = "self-attention-site"  # fixed ids: byte-identical SVG
    for number in plt.get_fignums():
        figure = plt.figure(number)
        figure.savefig(out / f"{_figure_name(figure, number)}.svg", format="svg", metadata={"Date": None})
    plt.close("all")


def save_published(out):
    publish = sys.modules.get("lib.publish")
    values = getattr(publish, "VALUES", {})
    for name, table in getattr(publish, "TABLES", {}).items():
        (out / f"table-{name}.md").write_text(markdown_table(table["header"], table["rows"]), encoding="utf-8")
    if values:
        text = json.dumps(values, indent=2, sort_keys=True, allow_nan=False)
        (out / "values.json").write_text(text + "\n", encoding="utf-8")


def run(snippet, out):
    snippet = Path(snippet).resolve()
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(snippet.parent))
    sys.argv = [str(snippet)]
    plt.show = lambda *args, **kwargs: None  # keep figures open for capture
    captured = io.StringIO()
    try:
        with redirect_stdout(captured):
            runpy.run_path(str(snippet), run_name="__main__")
        save_figures(out)
        save_published(out)
    except (Exception, SystemExit) as exc:  # any failure of the snippet becomes data
        (out / "error.json").write_text(json.dumps(_failure(exc, snippet), indent=2), encoding="utf-8")
        return 1
    (out / "stdout.txt").write_text(captured.getvalue(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1], Path(sys.argv[2])))
