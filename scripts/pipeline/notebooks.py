"""One notebook per chapter and edition, generated from the snippets the chapter includes and their committed outputs.

docs/<chapter>.md gets docs/notebooks/<chapter>.ipynb, and docs-zh/<chapter>.md docs-zh/notebooks/<chapter>.ipynb:
the same code cells, with the edition's prose as the Markdown cells between them (notebook_markdown.py), each heading
an in-page link targets carrying that id as an anchor JupyterLab keeps (notebook_anchors.py). Each
snippet's cell carries the outputs of the run that wrote docs/generated/ (what it printed, then its figures in
the order drawn, the Chinese twins in the Chinese notebook), so the site renders notebooks without executing
them. The first cells load the library modules from their text, so a downloaded notebook runs anywhere with NumPy
and matplotlib and writes no files; library modules the chapter shows are visible cells, the others hidden.
``notebook_script`` gives the same cells as a plain script (jupytext's percent format). A hidden cell
after them carries the data files the library reads (every ``*.toml`` of the chapter's snippet folders but the
translation catalog) as ``lib.data_files``.
"""

import ast
import re

import jupytext
import nbformat
from mkdocs.utils.meta import get_data

from ..exercises import CHECKER_MODULE, exercises, notebook_cells, without_exercises
from ..words import words
from .discover import BOOTSTRAP, BOOTSTRAP_IMPORTS, LIBRARY, dependencies, import_graph, module_path
from .notebook_anchors import anchor_link_targets
from .notebook_markdown import chapter_cells, chapter_title, heading_ids, introduction, rendered_prose
from .published import figure_file, printed, run_record
from .references import read_page, without_section_markers
from .runner import LIMIT_LINE
from .store import write_atomic

CATALOG = (
    "zh.toml"  # a chapter's figure and table translations (snippets/lib/zh.py): the build reads them, snippets never
)

LANGUAGES = ("en", "zh")  # the editions: docs/ and docs-zh/
MODULE_TAG = "module-source"  # the site's notebook pages hide these cells (mkdocs.yml: remove_tag_config)

LOADER = '''import sys
import types

import numpy as np

_numpy_printing = np.get_printoptions()


def fresh_start():
    """On the site's build every snippet runs in a new process: give each one NumPy's default printing."""
    np.set_printoptions(**_numpy_printing)


def load_module(name, source):
    """Make `import name` work for a module of the package `lib` given as text."""
    module = types.ModuleType(name)
    if name == "lib":
        module.__path__ = []  # a package: `from lib import x` finds the modules loaded below
    sys.modules[name] = module
    exec(compile(source, name.replace(".", "/") + ".py", "exec"), module.__dict__)
    if "." in name:
        setattr(sys.modules["lib"], name.split(".")[1], module)'''


def chapter_snippets(markdown):
    """Snippet names a chapter includes, in order of first appearance."""
    return read_page(markdown).code


def without_bootstrap(code):
    """A snippet's code without the lines that let it run alone (notebooks load the library from text)."""
    code = "".join(line for line in code.splitlines(keepends=True) if line.rstrip("\n") != BOOTSTRAP)
    imports = "\n".join(BOOTSTRAP_IMPORTS) + "\n\n"
    unused = all(len(re.findall(rf"\b{name}\b", code)) == 1 for name in ("sys", "Path"))
    return code.replace(imports, "", 1) if unused else code


def snippet_code(source):
    """A snippet's code without its docstring (the chapter's prose introduces it) and include-section markers."""
    tree = ast.parse(source)
    first = tree.body[0] if tree.body else None
    if ast.get_docstring(tree) and isinstance(first, ast.Expr):
        lines = source.splitlines(keepends=True)
        source = "".join(lines[first.end_lineno :])
    return without_bootstrap(LIMIT_LINE.sub("", without_section_markers(source))).strip() + "\n"


def raw_string(path, text):
    """``text`` as a raw triple-quoted Python string; ValueError naming ``path`` if it cannot be one."""
    if "'''" in text or text.rstrip().endswith("\\"):
        raise ValueError(f"{path} cannot be embedded in a notebook: it contains ''' or ends with \\")
    return f"r'''{text}'''"


def module_cell(name, source):
    return f'load_module("{name}", {raw_string(f"snippets/{name}.py", source)})'


def data_files(project, names):
    """{path under snippets/: text} of the data files the snippets ``names`` may read through the library (every
    ``*.toml`` in their folders but the translation catalog, which only the build reads: lib.claims reads
    claims/claims.toml)."""
    folders = dict.fromkeys((project.snippets / name).parent for name in names)
    paths = [path for folder in folders for path in sorted(folder.glob("*.toml")) if path.name != CATALOG]
    return {path.relative_to(project.snippets).as_posix(): path.read_text(encoding="utf-8") for path in paths}


def data_cell(files):
    """The cell that hands the library the data files' text as ``lib.data_files`` (a notebook has no files)."""
    entries = "".join(f"    {path!r}: {raw_string(f'snippets/{path}', text)},\n" for path, text in files.items())
    return 'sys.modules["lib"].data_files = {\n' + entries + "}"


def snippet_outputs(project, name, language="en"):
    """The outputs of the committed run of snippet ``name`` (``<chapter>/<what>``), as notebook outputs in the order
    they appeared; each figure in ``language`` where the snippet drew that twin."""
    folder = project.generated / name
    outputs = []
    text = printed(name, project=project)
    if text:
        outputs.append(nbformat.v4.new_output("stream", name="stdout", text=text))
    for figure in run_record(name, project)["figures"]:
        drawn = folder / figure_file(figure, language)
        svg = (drawn if drawn.exists() else folder / figure_file(figure)).read_text(encoding="utf-8")
        outputs.append(
            nbformat.v4.new_output("display_data", data={"image/svg+xml": svg, "text/plain": f"<Figure {figure}>"})
        )
    return outputs


def build_notebook(project, stem, markdown, graph, language="en"):
    """The notebook of chapter ``stem`` (``markdown``: the chapter in ``language``): its prose as Markdown cells
    between its snippets' code cells (scripts/pipeline/notebook_markdown.py); its front matter is the site's."""
    markdown, _ = get_data(markdown)
    title = chapter_title(markdown, stem)
    uses = read_page(markdown)
    names = uses.code
    shown = {f"{LIBRARY}.{module}" for module in uses.library}
    modules = list(dict.fromkeys(m for name in names for m in dependencies(name, graph)))
    found = exercises(markdown)
    if found:  # their checks need the checker
        modules = list(dict.fromkeys([*modules, *dependencies(CHECKER_MODULE, graph), CHECKER_MODULE]))
    prose_before, prose_after = chapter_cells(without_exercises(markdown), project, language, f"{stem}.md")
    data = data_files(project, names)
    files = [project.relative(module_path(project, m)) for m in modules] + [f"snippets/{path}" for path in data]
    cells = [
        nbformat.v4.new_markdown_cell(introduction(title, files, language)),
        nbformat.v4.new_code_cell(LOADER),
    ]
    for module in modules:
        source = module_path(project, module).read_text(encoding="utf-8")
        metadata = {} if module in shown else {"tags": [MODULE_TAG]}
        cells.append(nbformat.v4.new_code_cell(module_cell(module, source), metadata=metadata))
    if data:
        cells.append(nbformat.v4.new_code_cell(data_cell(data), metadata={"tags": [MODULE_TAG]}))
    for name in names:
        code = snippet_code((project.snippets / f"{name}.py").read_text(encoding="utf-8"))
        cells.append(nbformat.v4.new_markdown_cell(prose_before[name]))
        cells.append(nbformat.v4.new_code_cell("fresh_start()", metadata={"tags": [MODULE_TAG]}))
        cells.append(nbformat.v4.new_code_cell(code.rstrip("\n"), outputs=snippet_outputs(project, name, language)))
    if prose_after:
        cells.append(nbformat.v4.new_markdown_cell(prose_after))
    if found:
        data, questions = notebook_cells(
            found,
            project,
            lambda text: rendered_prose(text, project, language, f"{stem}.md"),
            words(language, "exercises"),
        )
        cells.append(nbformat.v4.new_code_cell(data, metadata={"tags": [MODULE_TAG]}))
        for question, check, shown in questions:
            verdict = nbformat.v4.new_output(  # what IPython's display(Markdown(text)) records
                "display_data", data={"text/markdown": shown, "text/plain": "<IPython.core.display.Markdown object>"}
            )
            cells += [nbformat.v4.new_markdown_cell(question), nbformat.v4.new_code_cell(check, outputs=[verdict])]
    ids = heading_ids(markdown)
    anchor_link_targets(cells, ids, project.relative(notebook_folder(project, language) / f"{stem}.ipynb"))
    for number, cell in enumerate(cells):
        cell["id"] = f"cell-{number}"  # fixed ids: byte-identical notebooks
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    }
    if ids:
        notebook.metadata["heading_ids"] = ids
    return notebook


def notebook_folder(project, language):
    """Where an edition's notebooks live: docs/notebooks, and docs-zh/notebooks for the Chinese edition."""
    return project.notebooks if language == "en" else project.root / f"docs-{language}" / "notebooks"


def expected_notebooks(project):
    """{path: text} of every notebook file the chapters of both editions call for (an edition's chapter is
    docs[-zh]/<chapter>.md; the Chinese notebooks exist where the tree has a Chinese edition)."""
    graph = import_graph(project)
    files = {}
    for chapter in sorted(project.docs.glob("*.md")):
        if not chapter_snippets(chapter.read_text(encoding="utf-8")):
            continue
        for language in LANGUAGES:
            folder = notebook_folder(project, language)
            if (folder.parent / chapter.name).exists():
                translated = (folder.parent / chapter.name).read_text(encoding="utf-8")
                notebook = build_notebook(project, chapter.stem, translated, graph, language)
                files[folder / f"{chapter.stem}.ipynb"] = nbformat.writes(notebook) + "\n"
    return files


def notebook_script(path):
    """The notebook at ``path`` as a plain Python script (jupytext's percent format)."""
    return jupytext.writes(jupytext.read(path), fmt="py:percent")


def _existing(project):
    folders = [notebook_folder(project, language) for language in LANGUAGES]
    return {p for folder in folders if folder.is_dir() for p in folder.iterdir() if p.suffix in (".ipynb", ".py")}


def stale_notebooks(project):
    """Notebook files that are missing, differ from what the chapters call for, or have no chapter."""
    expected = expected_notebooks(project)
    stale = [p for p, text in expected.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
    return sorted(stale + sorted(_existing(project) - set(expected)))


def write_notebooks(project):
    """Write the notebooks that changed, delete those without a chapter; return the paths touched."""
    expected = expected_notebooks(project)
    touched = []
    for path, text in expected.items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            write_atomic(path, text)
            touched.append(path)
    for path in sorted(_existing(project) - set(expected)):
        path.unlink()
        touched.append(path)
    return touched
