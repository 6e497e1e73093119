"""Find the snippets and the library modules each one imports.

The rule is the folder: every ``snippets/<chapter>/<what>.py`` is a snippet the build runs, named
``<chapter>/<what>``, where ``<chapter>`` is the file stem of the page that teaches it with hyphens as
underscores; every ``snippets/lib/*.py`` is library code that snippets import. A snippet folder without a page of
its name, a snippet outside a chapter folder, a snippet without the line that lets it run alone, and a file that
imports a snippet are errors that name the file.
"""

import ast
from graphlib import TopologicalSorter

from .references import chapter_folder

LIBRARY = "lib"
# Run alone (python snippets/masks/kinds.py), Python puts snippets/masks/ on the path; this line, before the first
# ``from lib`` import, adds snippets/ so the library imports. Notebooks drop it (they load the library from text).
BOOTSTRAP = "sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports"
BOOTSTRAP_IMPORTS = ("import sys", "from pathlib import Path")


class LayoutError(Exception):
    """A snippet breaks the layout rules; the message names the file and the fix."""


class ImportsSnippet(LayoutError):
    """A file imports a snippet; the message names both files and where shared code goes."""


def library_modules(project):
    """{module name: path} of every library module (``lib/__init__.py`` is ``lib``)."""
    folder = project.snippets / LIBRARY
    modules = {}
    for path in sorted(folder.glob("*.py")):
        modules[LIBRARY if path.stem == "__init__" else f"{LIBRARY}.{path.stem}"] = path
    return modules


def snippet_paths(project):
    """{snippet name: path} of every runnable snippet; LayoutError for a file or folder out of place."""
    loose = sorted(project.snippets.glob("*.py"))
    if loose:
        raise LayoutError(
            f"{project.relative(loose[0])} is not in a chapter folder: a snippet lives at "
            "snippets/<chapter>/<what>.py, <chapter> being its page's file stem with hyphens as underscores"
        )
    pages = {chapter_folder(page.stem) for page in project.docs.glob("*.md")}
    found = {}
    for folder in sorted(p for p in project.snippets.iterdir() if p.is_dir() and p.name != LIBRARY):
        paths = sorted(folder.glob("*.py"))
        if paths and folder.name not in pages:
            raise LayoutError(
                f"snippets/{folder.name}/ has no page of that name: a snippet folder is named after the page that "
                f"teaches it (docs/{folder.name.replace('_', '-')}.md); rename the folder or add the page"
            )
        found.update((f"{folder.name}/{path.stem}", path) for path in paths)
    return found


def check_bootstrap(path, project):
    """LayoutError unless a snippet that imports ``lib`` carries BOOTSTRAP before its first ``from lib`` line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    first_lib = next((n for n, line in enumerate(lines) if line.startswith(("from lib", "import lib"))), None)
    if first_lib is not None and BOOTSTRAP not in lines[:first_lib]:
        raise LayoutError(
            f"{project.relative(path)} imports lib but cannot run alone: put these lines before its first "
            f"`from lib` import: {'; '.join(BOOTSTRAP_IMPORTS)}; {BOOTSTRAP}"
        )


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
    chapters = {name.split("/")[0] for name in snippets}
    found = set()
    for name in _imported_names(tree):
        top = name.split(".")[0]
        if top in chapters:
            imported = snippets.get("/".join(name.split(".")[:2]))
            raise ImportsSnippet(
                f"{project.relative(path)} imports {project.relative(imported) if imported else f'snippets/{top}/'}, "
                "which is a snippet. "
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
    for path in snippets.values():
        check_bootstrap(path, project)
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
