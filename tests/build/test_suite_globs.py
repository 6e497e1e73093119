"""Every glob and parametrisation of the tests matches something: a test over nothing fails instead of passing.

Parametrisations: pyproject.toml sets pytest's ``empty_parameter_set_mark`` to ``fail_at_collect``. Globs: the tests
glob only through ``support.nonempty_glob``, which raises naming the pattern when nothing matches. A raw glob is
allowed only where whether anything matches is the question: under ``assert not`` (``assert not
list(folder.glob(...))``) or as the argument of ``any``.
"""

import ast

from support import REPO, nonempty_glob

GLOBS = {"glob", "rglob", "iglob"}  # Path.glob and Path.rglob; glob.glob and glob.iglob


def raw_globs(source):
    """(line, code) of each glob call in ``source`` outside ``nonempty_glob``, ``assert not ...`` and ``any(...)``."""
    tree = ast.parse(source)
    allowed = set()
    for node in ast.walk(tree):
        exempt = (
            (isinstance(node, ast.FunctionDef) and node.name == "nonempty_glob")
            or (
                isinstance(node, ast.Assert)
                and isinstance(node.test, ast.UnaryOp)
                and isinstance(node.test.op, ast.Not)
            )
            or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "any")
        )
        if exempt:
            allowed |= {id(inner) for inner in ast.walk(node)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and id(node) not in allowed:
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if name in GLOBS:
                found.append((node.lineno, ast.get_source_segment(source, node)))
    return sorted(found)


def test_the_glob_finder_finds_raw_globs_and_nothing_else():
    source = """import glob
def nonempty_glob(folder, pattern):
    return sorted(folder.glob(pattern))
a = sorted(DOCS.glob("*.md"))
b = [p for p in folder.rglob("*.html")]
c = glob.glob("docs/*.md")
assert not list(scratch.glob("*-alpha-*"))
d = nonempty_glob(DOCS, "*.md")
e = any(REPO.glob(pattern))
"""
    assert raw_globs(source) == [(4, 'DOCS.glob("*.md")'), (5, 'folder.rglob("*.html")'), (6, 'glob.glob("docs/*.md")')]


def test_the_tests_glob_only_through_nonempty_glob():
    found = [
        f"{path.relative_to(REPO)}:{line}: {code}"
        for path in nonempty_glob(REPO / "tests", "**/*.py")
        for line, code in raw_globs(path.read_text())
    ]
    assert not found, "globs that may match nothing (use support.nonempty_glob):\n" + "\n".join(found)


def test_an_empty_parametrisation_fails_collection(pytestconfig):
    assert pytestconfig.getini("empty_parameter_set_mark") == "fail_at_collect"
