"""Read what the build committed under docs/generated, and run a snippet in-process, for tests."""

import contextlib
import functools
import io
import json
import runpy
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GENERATED = REPO / "docs" / "generated"


def published(snippet):
    """{name: value} of a snippet's committed values.json."""
    values = json.loads((GENERATED / snippet / "values.json").read_text(encoding="utf-8"))
    return {name: entry["value"] for name, entry in values.items()}


def published_table(snippet, name):
    """A committed Markdown table (table-<name>.md) as a list of {column: cell text} rows."""
    lines = (GENERATED / snippet / f"table-{name}.md").read_text(encoding="utf-8").splitlines()
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    return [dict(zip(header, (cell.strip() for cell in line.strip("|").split("|")))) for line in lines[2:]]


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
