"""The interface words of the generated pages, one file per language: ``scripts/words/<language>.toml``.

``words(language, section)`` is the table of one section (``ledger``, ``provenance``, ``notebook``, ``bench``,
``explorables``, ``theme``) in that language. Every language file holds the same keys as ``en.toml`` with the same
``{placeholders}``; the first call checks all of them and raises ``WordsError`` naming the file and the key that
differs, so a word missing in one language fails the build instead of showing another language's. A table of
``one``/``other`` templates is a plural: ``plural(entry, n)`` picks the form (a language with one form gives
``other`` alone).
"""

import functools
import string
import tomllib
from pathlib import Path

FOLDER = Path(__file__).parent
REFERENCE = "en"  # the language whose file lists every key
PLURAL_FORMS = {"one", "other"}


class WordsError(ValueError):
    """A language file that lacks a key of the reference file, has one it lacks, or fills in other placeholders."""


def placeholders(text):
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _entries(table, prefix=""):
    """{dotted key: text or list of texts} of a parsed file; a plural table counts as one entry."""
    for key, entry in table.items():
        if isinstance(entry, dict) and not (entry.keys() <= PLURAL_FORMS):
            yield from _entries(entry, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", entry


def _texts(entry):
    return list(entry.values()) if isinstance(entry, dict) else entry if isinstance(entry, list) else [entry]


def check(reference, other, path):
    """Raise ``WordsError`` naming ``path`` and the key where ``other`` does not match ``reference``."""
    expected, found = dict(_entries(reference)), dict(_entries(other))
    for key in expected.keys() - found.keys():
        raise WordsError(f"{path} has no {key!r}: add its words ({REFERENCE}.toml has {expected[key]!r})")
    for key in found.keys() - expected.keys():
        raise WordsError(f"{path} has {key!r}, which {REFERENCE}.toml does not: remove it or add it there")
    for key, entry in found.items():
        if isinstance(entry, dict) and "other" not in entry:
            raise WordsError(f"{path}: the plural {key!r} has no 'other' form")
        wanted = set().union(*map(placeholders, _texts(expected[key])))
        given = set().union(*map(placeholders, _texts(entry)))
        if wanted != given:
            raise WordsError(f"{path}: {key!r} fills in {sorted(given)}, {REFERENCE}.toml {sorted(wanted)}")


@functools.cache
def _all(folder=FOLDER):
    files = {path.stem: path for path in sorted(folder.glob("*.toml"))}
    loaded = {language: tomllib.loads(path.read_text(encoding="utf-8")) for language, path in files.items()}
    for language, table in loaded.items():
        check(loaded[REFERENCE], table, files[language])
    return loaded


def words(language, section):
    """The words of ``section`` in ``language``."""
    loaded = _all()
    if language not in loaded:
        raise WordsError(f"no interface words for language {language!r}: add {FOLDER / language}.toml")
    return loaded[language][section]


def plural(entry, count):
    """A plural's template for ``count`` with ``{n}`` filled in."""
    return entry["one" if count == 1 and "one" in entry else "other"].format(n=count)
