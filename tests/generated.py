"""Read what the build committed under docs/generated (through the build's one reader), and run a snippet
in-process, for tests."""

import contextlib
import functools
import io
import runpy
from pathlib import Path

from scripts.pipeline import published as _published

REPO = Path(__file__).resolve().parents[1]
GENERATED = REPO / "docs" / "generated"


def published(snippet):
    """{name: value} of a snippet's committed values."""
    return {name: entry["value"] for name, entry in _published.values(snippet).items()}


def published_table(snippet, name):
    """A committed table as a list of {column: cell text} rows (read from its JSON, never its Markdown)."""
    return _published.table_records(snippet, name)


def section_output(snippet, section):
    """What section ``section`` of a snippet printed in the committed run."""
    return (GENERATED / snippet / f"output-{section}.txt").read_text(encoding="utf-8")


@functools.cache
def run_snippet(name):
    """Run snippets/<name>.py once, quietly, and return its namespace (functions included).

    Its published values and tables are kept out of publish.VALUES / TABLES, plt.show does nothing, its printout
    is swallowed and its figures are closed.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lib import publish

    publish.VALUES.clear()
    publish.TABLES.clear()
    show, plt.show = plt.show, lambda *args, **kwargs: None
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            namespace = runpy.run_path(str(REPO / "snippets" / f"{name}.py"), run_name="__main__")
    finally:
        plt.show = show
        plt.close("all")
        publish.VALUES.clear()
        publish.TABLES.clear()
    return namespace
