"""Run one snippet, section by section, and capture what it produces into a folder.

This code runs inside a child process forked from the build's fork server
(``runner.py``), which has already imported NumPy and matplotlib. The snippet's
top-level statements run in order in one namespace, grouped by the
``# --8<-- [start:name]`` / ``[end:name]`` sections they sit in, and what each
group prints is kept for every section that encloses it. Writes:

- ``stdout.txt``: everything the snippet printed;
- ``output-<section>.txt``: what the statements inside that section printed (when it printed anything);
- ``<label>.svg``: one per open figure, named by its label;
- ``table-<name>.json``: each published table, as data (the hooks render it where a page includes it);
- ``values.json``: the published values;
- ``run.json``: the figures in the order they were created.

The file names come from ``published``, the one reader of these files.

A failure is returned as data (file, line, exception), never raised.
"""

import ast
import builtins
import io
import json
import re
import sys
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import matplotlib.pyplot as plt

from scripts.pipeline.references import SECTION_MARKER
from scripts.pipeline.published import RUN, STDOUT, VALUES, figure_file, section_file, table_file

_LABEL = re.compile(r"[a-z0-9][a-z0-9_-]*\Z")


def _failure(exc, snippet):
    """The innermost frame inside snippets/ (the snippet or a library module), and the exception."""
    frames = traceback.extract_tb(exc.__traceback__)
    inside = [f for f in frames if snippet.parents[1] in Path(f.filename).resolve().parents] or frames[-1:]
    frame = inside[-1]
    return {
        "file": frame.filename,
        "line": frame.lineno,
        "exception": "".join(traceback.format_exception_only(exc)).strip(),
        "traceback": "".join(traceback.format_exception(exc)),
    }


def open_sections(source):
    """For each line number (1-based), the sections open there, outermost first."""
    stack, by_line = [], {}
    for number, line in enumerate(source.splitlines(), start=1):
        marker = SECTION_MARKER.match(line)
        if marker and marker.group(1) == "start":
            stack.append(marker.group(2))
        elif marker and marker.group(2) in stack:
            stack.remove(marker.group(2))
        by_line[number] = tuple(stack)
    return by_line


def segments(source, filename):
    """[(sections, code object)]: runs of top-level statements that sit in the same sections."""
    tree = ast.parse(source, filename=filename)
    by_line = open_sections(source)
    groups = []
    for statement in tree.body:
        sections = by_line.get(statement.lineno, ())
        if groups and groups[-1][0] == sections:
            groups[-1][1].append(statement)
        else:
            groups.append((sections, [statement]))
    return [(sections, compile(ast.Module(body=body, type_ignores=[]), filename, "exec")) for sections, body in groups]


def _figure_name(figure, number):
    label = figure.get_label()
    if not label:
        return f"figure-{number}"
    if not _LABEL.match(label):
        raise ValueError(f"figure label {label!r} must be lower-case letters, digits, '-' or '_'")
    return label


def save_figures(out):
    """Save every open figure as <label>.svg; return the names in the order the figures were created."""
    plt.rcParams["svg.hashsalt"] = "self-attention-site"  # fixed ids: byte-identical SVG
    names = []
    for number in plt.get_fignums():
        figure = plt.figure(number)
        names.append(_figure_name(figure, number))
        figure.savefig(out / figure_file(names[-1]), format="svg", metadata={"Date": None})
    plt.close("all")
    return names


def save_published(out):
    publish = sys.modules.get("lib.publish")
    for name, table in getattr(publish, "TABLES", {}).items():
        (out / table_file(name)).write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    values = getattr(publish, "VALUES", {})
    if values:
        text = json.dumps(values, indent=2, sort_keys=True, allow_nan=False)
        (out / VALUES).write_text(text + "\n", encoding="utf-8")


def run(snippet, out):
    """Run the snippet at ``snippet`` and write its outputs to ``out``.

    Returns {"code_seconds": time spent in the snippet's own code, "stderr": text, "error": None or a dict}.
    """
    snippet = Path(snippet).resolve()
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(snippet.parents[1]))  # snippets/: `lib` imports
    sys.argv = [str(snippet)]
    sys.dont_write_bytecode = True  # no __pycache__: `mkdocs serve` watches snippets/
    plt.show = lambda *args, **kwargs: None  # keep figures open for capture
    namespace = {"__name__": "__main__", "__file__": str(snippet), "__builtins__": builtins}
    whole, sections, errors = io.StringIO(), {}, io.StringIO()
    start = time.perf_counter()
    try:
        with redirect_stderr(errors):
            for enclosing, code in segments(snippet.read_text(encoding="utf-8"), str(snippet)):
                printed = io.StringIO()
                try:
                    with redirect_stdout(printed):
                        exec(code, namespace)
                finally:
                    whole.write(printed.getvalue())
                    for name in enclosing:
                        sections[name] = sections.get(name, "") + printed.getvalue()
            figures = save_figures(out)
            save_published(out)
    except (Exception, SystemExit) as exc:  # any failure of the snippet becomes data
        return {"code_seconds": time.perf_counter() - start, "stderr": errors.getvalue(), "error": _failure(exc, snippet)}
    (out / STDOUT).write_text(whole.getvalue(), encoding="utf-8")
    for name, text in sections.items():
        if text:
            (out / section_file(name)).write_text(text, encoding="utf-8")
    run_file = {"figures": figures}
    (out / RUN).write_text(json.dumps(run_file, indent=1) + "\n", encoding="utf-8")
    return {"code_seconds": time.perf_counter() - start, "stderr": errors.getvalue(), "error": None}


def child(snippet, out, connection):
    """Entry point of a forked child: run the snippet, send the result to the parent."""
    connection.send(run(snippet, Path(out)))
    connection.close()
