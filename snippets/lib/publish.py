"""Named values and tables that a snippet shares with the site's prose.

A snippet calls ``value("name", x)`` or ``table("name", header, rows)``. Run
alone, both just print. The site's build reads ``VALUES`` and ``TABLES`` after
the snippet ends: chapters quote a value as ``{{ snippet_name.value_name }}``
and include a table as a real Markdown table.
"""

import re

VALUES = {}
TABLES = {}

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


def _check_name(name):
    if not _NAME.match(name):
        raise ValueError(f"name {name!r} must be lower_snake_case (letters, digits, _)")


def _plain(x):
    """NumPy scalars and arrays -> plain Python numbers and lists (JSON-ready)."""
    return x.tolist() if hasattr(x, "tolist") else x


def value(name, x, fmt="{}"):
    """Publish ``x`` under ``name``; prose shows it formatted with ``fmt``. Returns ``x``.

    Publishing a name again replaces it, so a notebook cell can be run twice.
    """
    _check_name(name)
    text = fmt.format(x)
    VALUES[name] = {"value": _plain(x), "text": text}
    print(f"{name} = {text}")
    return x


def _cell(x, fmt):
    return fmt.format(x) if isinstance(x, float) or hasattr(x, "dtype") else str(x)


def table(name, header, rows, fmt="{:.4g}"):
    """Publish a table: ``header`` is a list of column titles, ``rows`` a list of lists.

    Numbers are formatted with ``fmt``; anything else is shown with ``str``.
    """
    _check_name(name)
    header = [str(h) for h in header]
    cells = [[_cell(x, fmt) for x in row] for row in rows]
    for row in cells:
        if len(row) != len(header):
            raise ValueError(f"table {name!r}: row {row} has {len(row)} cells, the header has {len(header)}")
    TABLES[name] = {"header": header, "rows": cells}
    widths = [max(len(r[i]) for r in [header, *cells]) for i in range(len(header))]
    for row in [header, ["-" * w for w in widths], *cells]:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths)))
