"""Named values and tables that a snippet shares with the site's prose.

A snippet calls ``value("name", x)`` or ``table("name", header, rows)``. Run
alone, both just print. The site's build reads ``VALUES`` and ``TABLES`` after
the snippet ends: a page quotes a value of snippets/<chapter>/<what>.py as
``{{ <chapter>.<what>.<name> }}`` and includes a table as a real Markdown table.

The Chinese edition shows the same tables with their text translated by
``lib.zh`` cell by cell. A table whose text is built with numbers may give its
Chinese instead (``zh=(header_zh, rows_zh)``), and a value that is text may give
its Chinese (``zh="..."``), which Chinese pages quote.
"""

import re

VALUES = {}
TABLES = {}
TABLES_ZH = {}  # the Chinese a snippet gave for a table (the others are translated by lib.zh)

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


def _check_name(name):
    if not _NAME.match(name):
        raise ValueError(f"name {name!r} must be lower_snake_case (letters, digits, _)")


def _plain(x):
    """NumPy scalars and arrays -> plain Python numbers and lists (JSON-ready)."""
    return x.tolist() if hasattr(x, "tolist") else x


def value(name, x, fmt="{}", zh=None):
    """Publish ``x`` under ``name``; prose shows it formatted with ``fmt`` (Chinese prose shows ``zh`` if given).
    Returns ``x``.

    Publishing a name again replaces it, so a notebook cell can be run twice.
    """
    _check_name(name)
    text = fmt.format(x)
    VALUES[name] = {"value": _plain(x), "text": text, **({"zh": zh} if zh is not None else {})}
    print(f"{name} = {text}")
    return x


def _cell(x, fmt):
    return fmt.format(x) if isinstance(x, float) or hasattr(x, "dtype") else str(x)


def _cells(name, header, rows, fmt):
    header = [str(h) for h in header]
    for column, title in enumerate(header, 1):
        if not title.strip():
            raise ValueError(f"table {name!r}: column {column} has no title (a screen reader reads it with each cell)")
    cells = [[_cell(x, fmt) for x in row] for row in rows]
    for row in cells:
        if len(row) != len(header):
            raise ValueError(f"table {name!r}: row {row} has {len(row)} cells, the header has {len(header)}")
    return {"header": header, "rows": cells}


def table(name, header, rows, fmt="{:.4g}", zh=None):
    """Publish a table: ``header`` is a list of column titles, ``rows`` a list of lists.

    Numbers are formatted with ``fmt``; anything else is shown with ``str``. ``zh``, if given, is the table's
    Chinese as ``(header_zh, rows_zh)``, shaped like ``(header, rows)``.
    """
    _check_name(name)
    TABLES[name] = _cells(name, header, rows, fmt)
    header, cells = TABLES[name]["header"], TABLES[name]["rows"]
    TABLES_ZH.pop(name, None)
    if zh is not None:
        chinese = _cells(name, *zh, fmt)
        if len(chinese["rows"]) != len(cells) or len(chinese["header"]) != len(header):
            raise ValueError(
                f"table {name!r}: its Chinese is not shaped like it ({len(header)} columns, {len(cells)} rows)"
            )
        TABLES_ZH[name] = chinese
    widths = [max(len(r[i]) for r in [header, *cells]) for i in range(len(header))]
    for row in [header, ["-" * w for w in widths], *cells]:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths)))
