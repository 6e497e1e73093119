"""The one reader of what snippets publish under docs/generated/<chapter>/<what>/, and the one place that names
the files there.

The MkDocs hooks, the ledger, the notebooks and the tests all read values, tables and run records through these
functions; the worker writes the files under these names. What a page quotes is read by ``references``.
"""

import json
import re

from scripts.words import words

from .project import Project

STDOUT = "stdout.txt"  # everything the snippet printed
VALUES = "values.json"  # {name: {"value": ..., "text": ..., "zh": Chinese text, if the snippet gave one}}
RUN = "run.json"  # {"figures": names in the order they were created}
MANIFEST = "manifest.json"  # provenance: key, inputs, versions, builder, sha256 of every other file


def _language_suffix(language):
    """ "" for English, ".zh" for Chinese: the Chinese twin of every table and figure sits beside the English one."""
    if language not in ("en", "zh"):
        raise ValueError(f"unknown language {language!r}: the editions are 'en' and 'zh'")
    return "" if language == "en" else f".{language}"


def table_file(name, language="en"):
    """A published table, as data: {"header": [...], "rows": [[cell text, ...], ...]}; its Chinese twin has the
    same numbers with the text in Chinese."""
    return f"table-{name}{_language_suffix(language)}.json"


def section_file(section):
    """What the statements inside section ``section`` printed."""
    return f"output-{section}.txt"


def figure_file(label, language="en"):
    """A figure, by its matplotlib label; its Chinese twin is the same figure object with its text translated."""
    return f"{label}{_language_suffix(language)}.svg"


def _read_json(path, default):
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else default


def values(snippet, project=Project()):
    """{name: {"value": ..., "text": ..., "zh": ...}} that ``snippet`` published ({} if none; "zh" only where the
    snippet gave the Chinese of a text value)."""
    return _read_json(project.generated / snippet / VALUES, {})


NUMBER = r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?"
NUMBERS = re.compile(rf"\[?({NUMBER}(?:, {NUMBER})+)\]?")  # 310, 430, 600 or [1, 2, 3]


def shown_text(published, language="en"):
    """A published value (``values(snippet)[name]``) as a page in ``language`` writes it: the snippet's Chinese form
    where it gave one; else a boolean, and a list of numbers, in the language's words (scripts/words/ [values]:
    Chinese writes 是/否 and joins numbers with 、); else its text."""
    if language == "zh" and "zh" in published:
        return published["zh"]
    said = words(language, "values")
    if isinstance(published["value"], bool):
        return said["true"] if published["value"] else said["false"]
    numbers = NUMBERS.fullmatch(published["text"])
    if numbers and isinstance(published["value"], str | list):
        return numbers.group(1).replace(", ", said["list"]) if language != "en" else published["text"]
    return published["text"]


def value(snippet, name, project=Project()):
    """The raw value (number, list, string) that ``snippet`` published as ``name``; KeyError if missing."""
    published = values(snippet, project)
    if name not in published:
        raise KeyError(f"snippets/{snippet}.py publishes no value {name!r} (it has: {', '.join(sorted(published))})")
    return published[name]["value"]


def table(snippet, name, project=Project(), language="en"):
    """A published table as {"header": [...], "rows": [[cell text, ...], ...]}, in ``language``."""
    path = project.generated / snippet / table_file(name, language)
    if not path.exists():
        raise KeyError(f"snippets/{snippet}.py publishes no table {name!r} ({project.relative(path)} is missing)")
    return _read_json(path, None)


def table_records(snippet, name, project=Project()):
    """A published table as a list of {column title: cell text} rows."""
    published = table(snippet, name, project)
    return [dict(zip(published["header"], row)) for row in published["rows"]]


def run_record(snippet, project=Project()):
    """{"figures": names in creation order} of the snippet's last run."""
    return _read_json(project.generated / snippet / RUN, {"figures": []})


def printed(snippet, section=None, project=Project()):
    """What the snippet printed in its committed run (all of it, or one section's); "" if nothing."""
    path = project.generated / snippet / (section_file(section) if section else STDOUT)
    return path.read_text(encoding="utf-8") if path.exists() else ""
