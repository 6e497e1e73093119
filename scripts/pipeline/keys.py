"""Cache keys: one hash over everything that can change a snippet's outputs.

The key covers the snippet's text, every local module it imports (directly or
not), the versions of Python, NumPy and matplotlib, and the source of the
builder stages that shape the files (worker; published and references for their names and sections) and the environment
snippets run in (runner.SNIPPET_ENV), so a change to any of them reruns
exactly the snippets it can affect. The worker translates every snippet's
tables and figures with lib.zh and draws them with lib.plotting's Chinese font,
so both are inputs of every snippet (and, with them, what they import).

Data files are inputs too: every ``*.toml`` in the snippet's own chapter folder
(its translation catalog, for one), never another chapter's, and a library
module's data beside it (``lib/<module>.toml`` and ``lib/<module>.*.toml``: the
shared catalog ``lib/zh.toml`` and the Latin words ``lib/zh.latin.toml`` for lib.zh)
wherever that module is an input.
"""

import hashlib
import platform
from importlib.metadata import version
from pathlib import Path

from .discover import LIBRARY, dependencies, library_modules
from .runner import SNIPPET_ENV

TRANSLATION_MODULES = ("lib.zh", "lib.plotting")  # what the worker imports to write each snippet's Chinese twins
DATA = ".toml"  # data files: every snippets/<chapter>/*.toml, and lib/<module>[.*].toml beside the module it serves
BUILDER_FILES = [Path(__file__).with_name(name) for name in ("worker.py", "published.py", "references.py", "keys.py")]


def digest(data):
    return hashlib.sha256(data).hexdigest()


def library_versions():
    return {
        "python": ".".join(platform.python_version_tuple()[:2]),
        "numpy": version("numpy"),
        "matplotlib": version("matplotlib"),
    }


def builder_version():
    environment = "".join(f"{name}={value}\n" for name, value in sorted(SNIPPET_ENV.items())).encode()
    return digest(b"".join(path.read_bytes() for path in BUILDER_FILES) + environment)[:16]


def snippet_inputs(project, name, graph):
    """{relative path: sha256} of the snippet, every local module it imports and their data files."""
    modules = library_modules(project)
    needed = set(dependencies(name, graph))
    for module in (m for m in TRANSLATION_MODULES if m in modules):
        needed |= {module, LIBRARY, *dependencies(module, graph)}
    files = [modules[module] for module in needed if module in modules]
    files += [
        data
        for path in list(files)
        for pattern in (f"{path.stem}{DATA}", f"{path.stem}.*{DATA}")
        for data in path.parent.glob(pattern)
    ]
    files.append(project.snippets / f"{name}.py")
    files += (project.snippets / name).parent.glob(f"*{DATA}")
    return {project.relative(path): digest(path.read_bytes()) for path in sorted(files)}


def snippet_key(inputs, versions, builder):
    parts = [f"builder {builder}", *(f"{lib} {v}" for lib, v in sorted(versions.items()))]
    parts += [f"{path} {sha}" for path, sha in sorted(inputs.items())]
    return digest("\n".join(parts).encode())
