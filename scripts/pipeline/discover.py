"""Find the snippets and the library modules each one imports.

The rule is the folder: every ``snippets/*.py`` is a snippet the build runs;
every ``snippets/lib/*.py`` is library code that snippets import. A snippet
(or a library module) that imports a snippet is an error.
"""

import ast
from graphlib import TopologicalSorter

LIBRARY = "lib"


class ImportsSnippet(Exception):
    """A file imports a snippet; the message names both files and where shared code goes."""


def library_modules(project):
    """{module name: path} of every library module (``lib/__init__.py`` is ``lib``)."""
    folder = project.snippets / LIBRARY
    modules = {}
    for path in sorted(folder.glob("*.py")):
        modules[LIBRARY if path.stem == "__init__" else f"{LIBRARY}.{path.stem}"] = path
    return modules


def snippet_paths(project):
    """{snippet name: path} of every runnable snippet."""
    return {path.stem: path for path in sorted(project.snippets.glob("*.py"))}


def _imported_names(tree):
    """Every dotted module name an AST imports (``from lib import x`` gives ``lib`` and ``lib.x``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def local_imports(path, project, modules, snippets):
    """The library modules ``path`` imports directly; raises ImportsSnippet if it imports a snippet."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = set()
    for name in _imported_names(tree):
        top = name.split(".")[0]
        if top in snippets and snippets[top] != path:
            raise ImportsSnippet(
                f"{project.relative(path)} imports {project.relative(snippets[top])}, which is a snippet. "
                f"A snippet never imports another snippet: move the shared code into snippets/{LIBRARY}/ "
                f"and import it from there (from {LIBRARY}.<module> import ...)."
            )
        if top == LIBRARY:
            found.add(LIBRARY)
            if name in modules:
                found.add(name)
    return found


def import_graph(project):
    """{node: set of library modules it imports} for every snippet (by name) and library module (dotted)."""
    modules, snippets = library_modules(project), snippet_paths(project)
    files = {**modules, **snippets}
    return {node: local_imports(path, project, modules, snippets) for node, path in files.items()}


def find_snippets(project):
    """Names of the runnable snippets, sorted."""
    return sorted(snippet_paths(project))


def dependencies(node, graph):
    """The library modules ``node`` needs, directly or not, dependencies first (``lib`` itself included)."""
    needed, todo = set(), [node]
    while todo:
        for module in graph[todo.pop()]:
            if module not in needed:
                needed.add(module)
                todo.append(module)
    if needed:
        needed.add(LIBRARY)
    order = TopologicalSorter({m: sorted(graph.get(m, ())) for m in sorted(needed)}).static_order()
    return [m for m in order if m in needed]


def module_path(project, module):
    """The file of a library module given by its dotted name."""
    return library_modules(project)[module]
