"""Run one snippet, section by section, and capture what it produces into a folder.

This code runs inside a child process forked from the build's fork server
(``runner.py``), which has already imported NumPy and matplotlib. The snippet's
top-level statements run in order in one namespace, grouped by the
``# --8<-- [start:name]`` / ``[end:name]`` sections they sit in, and what each
group prints is kept for every section that encloses it. Writes:

- ``stdout.txt``: everything the snippet printed;
- ``output-<section>.txt``: what the statements inside that section printed (when it printed anything);
- ``<label>.svg``: one per open figure, named by its label, and ``<label>.zh.svg``: the same figure object with
  its text translated by ``lib.zh`` (from the catalogs of the snippet's chapter and the shared one) and drawn
  with Noto Sans SC;
- ``table-<name>.json``: each published table, as data (the hooks render it where a page includes it), and
  ``table-<name>.zh.json``: its Chinese (given by the snippet, or translated cell by cell by ``lib.zh``);
- ``values.json``: the published values;
- ``run.json``: the figures in the order they were created.

The file names come from ``published``, the one reader of these files.

A failure is returned as data (file, line, exception), never raised. Text with no Chinese is a failure that
names each figure or table, each English text and the catalog to add it to.
"""

import ast
import builtins
import importlib
import io
import json
import logging
import re
import sys
import time
import traceback
import warnings
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.text import Text
from matplotlib.ticker import Formatter

from scripts.pipeline.published import RUN, STDOUT, VALUES, figure_file, section_file, table_file
from scripts.pipeline.references import SECTION_MARKER

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


class MissingChinese(LookupError):
    """Figures and tables of one snippet with text that lib.zh cannot translate."""


def chinese_modules(snippet):
    """lib.zh's Translations of the snippet's chapter and lib.plotting, from the snippet's snippets/ folder.
    Importing lib.plotting sets the site's style; a snippet that did not import it keeps its own (rc_context
    undoes the import's settings)."""
    with plt.rc_context():
        zh, plotting = importlib.import_module("lib.zh"), importlib.import_module("lib.plotting")
    return zh.Translations(snippet.parent.name), plotting


class ChineseTicks(Formatter):
    """Tick labels in Chinese: what ``inner`` writes, translated (ticks are written afresh at every draw)."""

    def __init__(self, inner, translate_all):
        self.inner, self.translate_all = inner, translate_all

    def set_axis(self, axis):
        super().set_axis(axis)
        self.inner.set_axis(axis)

    def set_locs(self, locs):
        self.inner.set_locs(locs)

    def format_ticks(self, values):
        return self.translate_all([str(label) for label in self.inner.format_ticks(values)])

    def __call__(self, x, pos=None):
        return self.translate_all([str(self.inner(x, pos))])[0]

    def get_offset(self):
        return self.translate_all([self.inner.get_offset()])[0]

    def format_data(self, value):
        return self.inner.format_data(value)

    def format_data_short(self, value):
        return self.inner.format_data_short(value)


CJK = re.compile(r"[\u2e80-\u9fff\uff00-\uffef]")  # CJK characters and full-width punctuation


def fonts_for(text, families):
    """``families`` (DejaVu Sans, then the Chinese font) for a text. A text with $math$ is drawn by mathtext, which
    draws its plain parts with the first family only, so Chinese beside math needs the Chinese font first."""
    return families[::-1] if "$" in text and CJK.search(text) else families


def translate_figure(figure, translate_all, families):
    """Every text of ``figure`` (titles, axis and tick labels, legends, annotations, colour bars) in Chinese,
    drawn with ``families``. Raises MissingTranslation listing each text it cannot translate."""
    texts = [text for text in figure.findobj(Text) if text.get_text()]
    chinese = translate_all([text.get_text() for text in texts])  # all of them first: one error lists every gap
    for text, translated in zip(texts, chinese):
        text.set_text(translated)
    for text in figure.findobj(Text):
        text.set_fontfamily(fonts_for(text.get_text(), families))
    for axes in figure.axes:
        for axis in (axes.xaxis, axes.yaxis):
            axis.set_major_formatter(ChineseTicks(axis.get_major_formatter(), translate_all))
            axis.set_minor_formatter(ChineseTicks(axis.get_minor_formatter(), translate_all))


def save_svg(figure, path):
    figure.savefig(path, format="svg", metadata={"Date": None})  # no date: byte-identical SVG


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def save_chinese_svg(figure, path):
    """Save a Chinese twin; a character drawn as a box (no font has its glyph) is an error naming it. matplotlib
    warns about one in plain text and logs one in mathtext (``matplotlib._mathtext``)."""
    mathtext, records = logging.getLogger("matplotlib._mathtext"), _Records()
    mathtext.addHandler(records)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            save_svg(figure, path)
    finally:
        mathtext.removeHandler(records)
    boxes = [str(w.message) for w in caught if "missing from font" in str(w.message)]
    boxes += [message for message in records.messages if "dummy symbol" in message]
    if boxes:
        path.unlink()
        raise MissingChinese(f"{path.name} draws characters as boxes: {'; '.join(dict.fromkeys(boxes))}")


def save_figures(out, chinese, plotting):
    """Save every open figure as <label>.svg, then translated by ``chinese`` (lib.zh's Translations) as
    <label>.zh.svg; return the names in the order the figures were created and the figures with text that has
    no Chinese."""
    plt.rcParams["svg.hashsalt"] = "self-attention-site"  # fixed ids: byte-identical SVG
    names, missing = [], []
    for number in plt.get_fignums():
        figure = plt.figure(number)
        names.append(_figure_name(figure, number))
        save_svg(figure, out / figure_file(names[-1]))
        with plt.rc_context():
            families = plotting.use_chinese_font()
            if families is None:
                raise MissingChinese("Chinese figures need Noto Sans SC: pip install pylopdf-fonts-zh-cn")
            try:
                translate_figure(figure, chinese.translate_all, families)
            except chinese.Missing as error:
                missing.append(f"figure {names[-1]!r}: {', '.join(repr(t) for t in error.texts)}")
                continue
            save_chinese_svg(figure, out / figure_file(names[-1], "zh"))
    plt.close("all")
    return names, missing


def chinese_table(table, translate_all):
    """The table with every header and cell text translated (one MissingTranslation lists every gap)."""
    cells = translate_all([*table["header"], *(cell for row in table["rows"] for cell in row)])
    width = len(table["header"])
    return {"header": cells[:width], "rows": [cells[i : i + width] for i in range(width, len(cells), width)]}


def write_json(path, data):
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def save_published(out, chinese):
    """Write the published tables (English, and Chinese translated by ``chinese`` unless the snippet gave it) and
    values; return the tables with text that has no Chinese."""
    publish = sys.modules.get("lib.publish")
    missing = []
    for name, table in getattr(publish, "TABLES", {}).items():
        write_json(out / table_file(name), table)
        try:
            translated = publish.TABLES_ZH.get(name) or chinese_table(table, chinese.translate_all)
        except chinese.Missing as error:
            missing.append(f"table {name!r}: {', '.join(repr(t) for t in error.texts)}")
            continue
        write_json(out / table_file(name, "zh"), translated)
    values = getattr(publish, "VALUES", {})
    if values:
        text = json.dumps(values, indent=2, sort_keys=True, allow_nan=False)
        (out / VALUES).write_text(text + "\n", encoding="utf-8")
    return missing


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
            chinese, plotting = chinese_modules(snippet)
            figures, missing = save_figures(out, chinese, plotting)
            missing += save_published(out, chinese)
            if missing:
                raise MissingChinese(f"no Chinese for: {'; '.join(missing)}; {chinese.fix}")
    except (Exception, SystemExit) as exc:  # any failure of the snippet becomes data
        return {
            "code_seconds": time.perf_counter() - start,
            "stderr": errors.getvalue(),
            "error": _failure(exc, snippet),
        }
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
