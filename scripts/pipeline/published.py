"""The one reader of what snippets publish under docs/generated/<snippet>/.

The MkDocs hooks, the ledger, the notebooks and the tests all read values, tables and run records through
these functions, and prose refers to a value with the one pattern ``REFERENCE``: ``{{ snippet.value }}``.
"""

import json
import re

from .project import Project

REFERENCE = re.compile(r"\{\{\s*([a-z0-9_]+)\.([a-z0-9_]+)\s*\}\}")


def _read_json(path, default):
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else default


def values(snippet, project=Project()):
    """{name: {"value": ..., "text": ...}} that ``snippet`` published ({} if none)."""
    return _read_json(project.generated / snippet / "values.json", {})


def value(snippet, name, project=Project()):
    """The raw value (number, list, string) that ``snippet`` published as ``name``; KeyError if missing."""
    published = values(snippet, project)
    if name not in published:
        raise KeyError(f"snippets/{snippet}.py publishes no value {name!r} (it has: {', '.join(sorted(published))})")
    return published[name]["value"]


def table(snippet, name, project=Project()):
    """A published table as {"header": [...], "rows": [[cell text, ...], ...]}."""
    path = project.generated / snippet / f"table-{name}.json"
    if not path.exists():
        raise KeyError(f"snippets/{snippet}.py publishes no table {name!r} ({project.relative(path)} is missing)")
    return _read_json(path, None)


def table_records(snippet, name, project=Project()):
    """A published table as a list of {column title: cell text} rows."""
    published = table(snippet, name, project)
    return [dict(zip(published["header"], row)) for row in published["rows"]]


def run_record(snippet, project=Project()):
    """{"figures": names in creation order, "sections": names in order} of the snippet's last run."""
    return _read_json(project.generated / snippet / "run.json", {"figures": [], "sections": []})


def references(markdown):
    """[(snippet, value name)] that a page quotes, in order, each once."""
    return list(dict.fromkeys(REFERENCE.findall(markdown)))
