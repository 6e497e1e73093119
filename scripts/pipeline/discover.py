"""Find the snippets and the local modules each one imports.

A file in snippets/ that another file there imports is a module (attention.py,
plotting.py, ...); every other file is a snippet that the build runs.
"""

import ast
from graphlib import TopologicalSorter


def local_imports(path, snippets_dir):
    """Names of the snippets/ modules that ``path`` imports directly."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return {name for name in names if (snippets_dir / f"{name}.py").is_file()}


def import_graph(project):
    """{file stem: set of local module stems it imports} for every .py in snippets/."""
    return {path.stem: local_imports(path, project.snippets) for path in sorted(project.snippets.glob("*.py"))}


def find_snippets(project, graph=None):
    """Stems of the runnable snippets, sorted."""
    graph = graph or import_graph(project)
    modules = set().union(*graph.values()) if graph else set()
    return sorted(name for name in graph if name not in modules)


def dependencies(name, graph):
    """The local modules ``name`` needs, directly or not, dependencies first."""
    needed, todo = set(), [name]
    while todo:
        for module in graph[todo.pop()]:
            if module not in needed:
                needed.add(module)
                todo.append(module)
    order = TopologicalSorter({m: sorted(graph[m]) for m in sorted(needed)}).static_order()  # sorted: same order every run
    return [m for m in order if m in needed]
