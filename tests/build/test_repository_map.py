"""The map stays true: every repository path written in the README, the pages, the configuration files and the
docstrings and comments of scripts/, snippets/ and tests/ exists in the tree.

A repository path is a run of path characters that starts a word with a top-level folder (snippets/, scripts/,
tests/, docs/, docs-zh/, overrides/, .github/, .ci/) or is one of the top-level files (Makefile, README.md,
pyproject.toml, mkdocs*.yml, requirements*.lock), in backticks or in plain text. Placeholders stand for one path
segment or part of one: ``<chapter>``, ``{name}`` and ``*`` are globbed, and at least one file must match. A table
a page includes as ``docs/generated/<chapter>/<what>/table-<name>.md`` is its data, ``table-<name>.json`` (the hooks
render it). A path after a ``/``, ``.`` or letter (``site/zh/docs/``, ``../docs/assets``, an address) is not one.
"""

import ast
import io
import re
import tokenize

from support import REPO, nonempty_glob

FOLDERS = ("snippets", "scripts", "tests", "docs", "docs-zh", "overrides", ".github", ".ci")
TOP_FILES = r"Makefile|README\.md|pyproject\.toml|mkdocs[\w.-]*\.yml|requirements[\w-]*\.lock"
SEGMENT = r"(?:[A-Za-z0-9_.*-]|<[\w -]+>|\{[\w.:-]*\})"  # a path character, or a placeholder
PATH = re.compile(
    rf"(?<![\w./~-])(?:(?:{'|'.join(map(re.escape, FOLDERS))})/(?:{SEGMENT}|/)*|(?:{TOP_FILES})\b)", re.ASCII
)
PLACEHOLDER = re.compile(r"<[^<>]*>|\{[^{}]*\}")
TABLE_INCLUDE = re.compile(r"^(docs/generated/.+/table-[^/]+)\.md$")

PAGES = ["README.md", *(f"{folder}/*.md" for folder in ("docs", "docs-zh"))]
CONFIGURATION = ["Makefile", "pyproject.toml", "mkdocs*.yml", ".github/workflows/*.yml", ".ci/run"]
CODE = [f"{folder}/**/*.py" for folder in ("scripts", "snippets", "tests")]


def written_paths(text):
    """The repository paths written in a line of text, as written (a sentence's final full stop left out)."""
    return [match.group().rstrip(".") for match in PATH.finditer(text)]


def exists(path):
    """Whether ``path`` (relative to the repository) names something in the tree; a pattern, at least one thing."""
    pattern = TABLE_INCLUDE.sub(r"\1.json", PLACEHOLDER.sub("*", path)).rstrip("/")
    if not any(character in pattern for character in "*?["):
        return (REPO / pattern).exists()
    return any(REPO.glob(pattern))


def statements(body):
    """Every statement of a body, nested ones included (docstrings are the first statement of a body)."""
    for statement in body:
        yield statement
        for field in ("body", "orelse", "finalbody", "handlers"):
            yield from statements(getattr(statement, field, []))


def prose_lines(path):
    """(line number, text) of the docstrings and comments of a Python file."""
    source = path.read_text(encoding="utf-8")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    module = ast.parse(source)
    for node in [module, *statements(module.body)]:
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            if docstring and isinstance(first.value.value, str):
                yield from enumerate(first.value.value.splitlines(), start=first.value.lineno)


def documents():
    """(file relative to the repository, line number, text) of every line the map is read from."""
    for pattern in PAGES + CONFIGURATION:
        for path in nonempty_glob(REPO, pattern):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                yield path.relative_to(REPO).as_posix(), number, line
    for pattern in CODE:
        for path in nonempty_glob(REPO, pattern):
            for number, line in prose_lines(path):
                yield path.relative_to(REPO).as_posix(), number, line


def test_the_path_reader():
    line = (
        "Run `python snippets/<chapter>/<what>.py`; see tests/support.py. The site/zh/docs/ folder, "
        "../docs/assets and https://x.org/scripts/a.py are not paths; Makefile and mkdocs.zh.yml are."
    )
    assert written_paths(line) == ["snippets/<chapter>/<what>.py", "tests/support.py", "Makefile", "mkdocs.zh.yml"]
    assert written_paths("`tests/oracle.py`中的循环，见docs/index.md和Makefile。") == [
        "tests/oracle.py",
        "docs/index.md",
        "Makefile",
    ]
    assert written_paths("{its path relative to docs/}") == ["docs/"]
    assert exists("snippets/<chapter>/<what>.py") and exists("docs/generated/{chapter}/*/values.json")
    assert exists("docs/generated/<chapter>/<what>/table-<name>.md") and exists("tests/support.py")
    assert not exists("tests/oracle.py") and not exists("snippets/sdpa_*.py") and not exists("snippets/<name>.py")


def test_every_path_written_exists():
    missing = [
        f"{where}:{number}: {path}"
        for where, number, line in documents()
        for path in written_paths(line)
        if not exists(path)
    ]
    assert not missing, "paths written in the repository that are not in it:\n" + "\n".join(missing)
