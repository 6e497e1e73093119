"""Every chapter notebook runs top to bottom in a fresh kernel, far from the repository, and prints what the build
recorded in it. The site never executes notebooks; this test is the proof that they run. The Chinese notebooks
(docs-zh/notebooks) have the English ones' code cells and outputs, so one of them runs here; their Markdown cells
are the Chinese chapters' prose, cut where each snippet's code is first included, and the check names a Chinese
notebook that is stale or missing."""

import html
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor

import markdown
import nbformat
import pytest
from bs4 import BeautifulSoup
from mkdocs.utils.meta import get_data

from scripts.exercises import exercises, without_exercises
from scripts.pipeline.check import check
from scripts.pipeline.notebook_markdown import chapter_cells, notebook_wording
from scripts.pipeline.notebooks import chapter_snippets, notebook_folder, stale_notebooks, write_notebooks
from scripts.pipeline.project import REPO, Project
from scripts.pipeline.published import figure_file, shown_text, table_file, values
from scripts.pipeline.references import CODE, INCLUDE_MARK, VALUE, sections, snippet_of
from scripts.pipeline.runner import ARITHMETIC_ENV
from scripts.words import words
from support import in_page_links, nonempty_glob

PROJECT = Project()
NOTEBOOKS = nonempty_glob(PROJECT.notebooks, "*.ipynb")
CHINESE = nonempty_glob(notebook_folder(PROJECT, "zh"), "*.ipynb")
# Their code cells are the English ones (test_chinese_notebooks_have_the_english_code_and_outputs): one runs.
CHINESE_RUN = min(CHINESE, key=lambda path: path.stat().st_size)
RUNS = {**{path.stem: path for path in NOTEBOOKS}, f"zh/{CHINESE_RUN.stem}": CHINESE_RUN}
EDITIONS = {"en": REPO / "docs", "zh": REPO / "docs-zh"}

# Appended to each notebook: the repository's code must not have been imported; `lib` is the notebook's own.
ISOLATION_CHECK = """import sys
print(sorted(name for name in sys.modules if name.split(".")[0] == "scripts"), sys.modules["lib"].__path__)"""

EXECUTE = """import sys, nbformat
from nbclient import NotebookClient
notebook = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(notebook, timeout=300, kernel_name="python3").execute()
nbformat.write(notebook, sys.argv[1])"""


def streams(cell):
    return "".join(o["text"] for o in cell["outputs"] if o["output_type"] == "stream" and o["name"] == "stdout")


def shown_markdown(cell):
    """What a cell displayed as Markdown (an exercise's verdict: lib.exercises.show)."""
    return [
        o["data"]["text/markdown"]
        for o in cell["outputs"]
        if o["output_type"] == "display_data" and "text/markdown" in o["data"]
    ]


def same_printout(ran, recorded):
    """Equal word for word, except that whole numbers (tracemalloc byte and KiB counts) may differ by under 1 %:
    a kernel allocates a little more than the build's bare process."""
    ran_words, recorded_words = ran.split(), recorded.split()
    if len(ran_words) != len(recorded_words):
        return False
    for a, b in zip(ran_words, recorded_words):
        if a != b and not (a.isdigit() and b.isdigit() and abs(int(a) - int(b)) < 0.01 * max(int(a), int(b))):
            return False
    return True


def execute_alone(notebook, folder):
    """Run a copy of ``notebook`` in ``folder`` in a fresh kernel; return (committed, executed) notebooks or an
    error."""
    copy = folder / notebook.name
    committed = nbformat.read(notebook, as_version=4)
    runnable = nbformat.read(notebook, as_version=4)
    runnable.cells.append(nbformat.v4.new_code_cell(ISOLATION_CHECK))
    nbformat.write(runnable, copy)
    env = {**os.environ, **ARITHMETIC_ENV, "PYTHONPATH": ""}  # the arithmetic of the run that wrote the outputs
    result = subprocess.run(
        [sys.executable, "-c", EXECUTE, str(copy)], cwd=folder, capture_output=True, text=True, env=env
    )
    if result.returncode != 0:
        return committed, None, result.stderr[-3000:]
    return committed, nbformat.read(copy, as_version=4), None


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """Every English notebook and one Chinese one executed once, in parallel (one per CPU), each in its own empty
    folder."""
    folders = [tmp_path_factory.mktemp(path.stem) for path in RUNS.values()]
    with ThreadPoolExecutor(max_workers=len(os.sched_getaffinity(0))) as pool:
        results = list(pool.map(execute_alone, RUNS.values(), folders))
    yield dict(zip(RUNS, results))
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


def test_there_is_a_notebook_per_chapter_with_snippets_in_each_edition():
    assert len(NOTEBOOKS) >= 15
    assert [path.name for path in CHINESE] == [path.name for path in NOTEBOOKS]
    assert not notebook_folder(PROJECT, "zh").is_symlink()


@pytest.mark.kernel
@pytest.mark.claim(
    "Every chapter notebook runs top to bottom in a fresh kernel, in an empty folder without the repository's code, "
    "and prints what the build recorded",
    zh="每一章的笔记本都能在全新的内核中、在不含仓库代码的空文件夹里从头到尾运行，并打印出构建所记录的内容",
)
@pytest.mark.parametrize("stem", list(RUNS))
def test_notebook_runs_alone_and_prints_what_the_page_shows(executed, stem):
    committed, ran, error = executed[stem]
    assert error is None, f"{PROJECT.relative(RUNS[stem])} failed in a fresh kernel:\n{error}"
    code = [cell for cell in committed.cells if cell.cell_type == "code"]
    ran_code = [cell for cell in ran.cells if cell.cell_type == "code"]
    for before, after in zip(code, ran_code):
        assert same_printout(streams(after), streams(before)), (
            f"{stem}: a cell printed something else than the build recorded:\n{streams(after)}\n---\n{streams(before)}"
        )
        assert shown_markdown(after) == shown_markdown(before), f"{stem}: an exercise's check showed something else"
    assert streams(ran_code[-1]).strip() == "[] []", "the notebook imported the repository's code"


def code_cells(notebook):
    """The code cells before the exercises (their cells carry the edition's words: compared apart)."""
    cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    first = next((n for n, cell in enumerate(cells) if "EXERCISES = " in cell.source), len(cells))
    return cells[:first]


def exercise_data(notebook):
    """{exercise: (answer, its text, mistakes)} the notebook's exercise cell checks replies against."""
    cell = next((cell for cell in notebook.cells if "EXERCISES = " in cell.source), None)
    if cell is None:
        return {}
    scope = {}
    exec(cell.source.partition("EXERCISES = ")[2].partition("\n\n\n")[0].join(["data = ", ""]), scope)
    return {name: (e["answer"], e["text"], e["mistakes"]) for name, e in scope["data"].items()}


@pytest.mark.parametrize("chinese", CHINESE, ids=[path.stem for path in CHINESE])
def test_chinese_notebooks_have_the_english_code_and_outputs(chinese):
    """The same code cells; the same outputs, except each figure the snippet also drew in Chinese, which is that
    drawing (<label>.zh.svg)."""
    english = nbformat.read(PROJECT.notebooks / chinese.name, as_version=4)
    translated = nbformat.read(chinese, as_version=4)
    assert [c.source for c in code_cells(translated)] == [c.source for c in code_cells(english)]
    assert exercise_data(translated) == exercise_data(english), f"{chinese.stem}: the exercises' answers differ"
    snippets = iter(chapter_snippets((EDITIONS["en"] / f"{chinese.stem}.md").read_text(encoding="utf-8")))
    for before, ours, theirs in zip([None, *code_cells(english)], code_cells(translated), code_cells(english)):
        snippet = next(snippets) if before is not None and before.source == "fresh_start()" else None
        assert len(ours.outputs) == len(theirs.outputs), chinese.stem
        for output, original in zip(ours.outputs, theirs.outputs):
            if output.output_type != "display_data":
                assert output == original, chinese.stem
                continue
            label = output.data["text/plain"].removeprefix("<Figure ").removesuffix(">")
            drawn = PROJECT.generated / snippet / figure_file(label, "zh")
            expected = drawn.read_text(encoding="utf-8") if drawn.exists() else original.data["image/svg+xml"]
            assert output.data["image/svg+xml"] == expected, f"{chinese.stem}: figure {label} of {snippet}"


def plain_paragraphs(markdown, edition="en"):
    """(offset, text) of the chapter's paragraphs of plain prose (no include, figure, caption, admonition, code,
    table, heading attribute or link), each with its value references replaced by their text in ``edition``."""
    published = lambda m: shown_text(values(snippet_of(m.group(1), m.group(2)))[m.group(3)], edition)  # noqa: E731
    found, offset, explorable = [], 0, False
    for block in markdown.split("\n\n"):
        stripped = block.strip("\n")
        # an explorable's text (up to its </div>) needs the site's JavaScript: the notebook leaves it out
        explorable = (explorable or stripped.startswith('<div class="explorable"')) and stripped != "</div>"
        if (
            not explorable
            and stripped
            and not re.search(rf"{INCLUDE_MARK}|^[!?]{{3}}|^/// |^\s|^[|#<$`!]|\]\(|\{{#", stripped, re.MULTILINE)
        ):
            found.append((offset, VALUE.sub(published, stripped)))
        offset += len(block) + 2
    return found


@pytest.mark.parametrize("edition", EDITIONS)
def test_markdown_cells_are_the_chapters_prose_in_reading_order(edition):
    """Each plain paragraph of a chapter is in the Markdown cell before the code cell of the first snippet whose
    code the chapter includes after it (after the last one: in the notebook's last cell), and only there; nothing
    of the other edition's prose is in the notebook."""
    checked = 0
    for notebook_path in nonempty_glob(notebook_folder(PROJECT, edition), "*.ipynb"):
        markdown, _ = get_data((EDITIONS[edition] / f"{notebook_path.stem}.md").read_text(encoding="utf-8"))
        asked = len(exercises(markdown))  # each exercise is a Markdown cell of its own, after the last one
        markdown = without_exercises(markdown)
        other, _ = get_data(
            (EDITIONS["zh" if edition == "en" else "en"] / f"{notebook_path.stem}.md").read_text(encoding="utf-8")
        )
        first_includes = {}
        for match in CODE.finditer(markdown):
            first_includes.setdefault(match.group(1), match.start())
        cells = [  # as a reader sees them: a value's < and > are written as entities in the Markdown
            html.unescape(cell.source)
            for cell in nbformat.read(notebook_path, as_version=4).cells
            if cell.cell_type == "markdown"
        ]
        assert len(cells) - asked in (len(first_includes) + 1, len(first_includes) + 2), notebook_path.stem
        cells = cells[: len(cells) - asked]
        paragraphs = [(offset, notebook_wording(text, edition)) for offset, text in plain_paragraphs(markdown, edition)]
        for offset, paragraph in paragraphs:
            index = 1 + sum(start < offset for start in first_includes.values())
            assert index < len(cells) and paragraph in cells[index], (
                f"{notebook_path.stem}: {paragraph[:80]!r} not in cell {index}"
            )
            if sum(paragraph in text for _, text in paragraphs) == 1:  # no other paragraph contains it
                assert sum(paragraph in cell for cell in cells) == 1, (
                    f"{notebook_path.stem}: {paragraph[:80]!r} repeated"
                )
            checked += 1
        for _, paragraph in plain_paragraphs(other):
            assert all(paragraph not in cell for cell in cells), (
                f"{notebook_path.stem}: the other edition's {paragraph[:80]!r}"
            )
        for cell in cells:
            assert not re.search(
                rf"{INCLUDE_MARK}|{VALUE.pattern}|\{{#|^/// |^[!?]{{3}}|data-explorable|explorable\.py",
                cell,
                re.MULTILINE,
            ), f"{notebook_path.stem}: {cell[:200]!r}"
    assert checked > 200


@pytest.mark.parametrize("edition", EDITIONS)
def test_code_shown_again_and_figure_captions_stay_in_the_prose(edition):
    """Every code block of a chapter that is not a snippet's first include (that one is the snippet's code cell) is
    in the notebook's Markdown as the code the page shows, so the sentence introducing it still does; every
    figure's caption is there too, with the figure's label and the snippet that drew it."""
    shown, captions = 0, 0
    for notebook_path in nonempty_glob(notebook_folder(PROJECT, edition), "*.ipynb"):
        markdown, _ = get_data((EDITIONS[edition] / f"{notebook_path.stem}.md").read_text(encoding="utf-8"))
        cells = "\n".join(
            cell.source for cell in nbformat.read(notebook_path, as_version=4).cells if cell.cell_type == "markdown"
        )
        seen = set()
        for fence in re.finditer(r"^([ \t]*)```python[^\n]*\n(.*?)^\1```", markdown, re.MULTILINE | re.DOTALL):
            names = [name for name, _ in CODE.findall(fence.group(2))]
            if names and all(name in seen for name in names) or re.search(r'"snippets/lib/', fence.group(2)):
                for path, section in re.findall(r'"(snippets/[\w/]+\.py)(?::([\w-]+))?"', fence.group(2)):
                    text = (REPO / path).read_text(encoding="utf-8")
                    code = textwrap.dedent(sections(text)[section] if section else text)
                    first_line = next(line for line in code.splitlines() if line.strip() and "--8<--" not in line)
                    assert first_line.strip() in cells, f"{notebook_path.stem}: {path}:{section} not shown"
                    shown += 1
            seen.update(names)
        for label, caption in re.findall(
            r"!\[[^\]]*\]\(generated/[\w/]+/([\w-]+)\.svg\)\n/// caption\n(.*?)\n///", markdown, re.DOTALL
        ):
            assert f"`{label}`" in cells, f"{notebook_path.stem}: figure {label} not named"
            head = " ".join(caption.split("{{")[0].split()[:4])  # the caption's first words, before any value
            assert head in " ".join(cells.split()), f"{notebook_path.stem}: caption of {label}"
            captions += 1
    assert shown > 20 and captions > 40


def jupyterlab_heading_ids(cell):
    """The ids JupyterLab gives in the headings of a Markdown cell: each heading's own (its text with spaces as -,
    @jupyterlab/rendermime's createHeaderId) and the id of each element inside it (its sanitizer keeps it, as the
    data-jupyter-id its handler of in-page links looks up)."""
    soup = BeautifulSoup(markdown.markdown(cell), "html.parser")
    found = set()
    for heading in soup.select("h1, h2, h3, h4, h5, h6"):
        found.add(heading.get_text().replace(" ", "-"))
        found.update(element["id"] for element in heading.select("[id]"))
    return found


@pytest.mark.parametrize("edition", EDITIONS)
def test_every_in_page_link_of_a_notebook_lands_on_a_heading_in_jupyterlab(edition):
    """JupyterLab gives a heading its text as id, not the chapter's (``{#silent-split}``, or the slug of its text):
    each in-page link of a notebook, in its Markdown cells or in the Markdown an exercise's check showed, targets an
    id JupyterLab gives in one of the notebook's headings (the anchor the build gives the heading)."""
    links = 0
    for notebook_path in nonempty_glob(notebook_folder(PROJECT, edition), "*.ipynb"):
        cells = nbformat.read(notebook_path, as_version=4).cells
        given = set().union(*(jupyterlab_heading_ids(c.source) for c in cells if c.cell_type == "markdown"))
        targets = in_page_links(notebook_path)
        missing = sorted(set(targets) - given)
        assert not missing, f"{PROJECT.relative(notebook_path)}: no heading JupyterLab gives the ids {missing}"
        links += len(targets)
    assert links > 50


WEB_PAGE_WORDING = re.compile(r"notebook below|下面的笔记本|`snippets/`")  # a notebook's reader is in the notebook


@pytest.mark.parametrize("edition", EDITIONS)
def test_notebook_cells_say_nothing_only_the_web_page_can_follow(edition):
    """No Markdown cell of a chapter's notebook sends its reader to "the notebook below" or to run code "from
    `snippets/`" (the notebook's first cells load the site's modules), and every page wording that
    [notebook.page_wording] turns into the notebook's is still written by a chapter (none is dead)."""
    written, checked = set(), 0
    for notebook_path in nonempty_glob(notebook_folder(PROJECT, edition), "*.ipynb"):
        markdown, _ = get_data((EDITIONS[edition] / f"{notebook_path.stem}.md").read_text(encoding="utf-8"))
        written.update(page for page in words(edition, "notebook")["page_wording"]["page"] if page in markdown)
        before, after = chapter_cells(markdown, PROJECT, edition, f"{notebook_path.stem}.md")
        for cell in [*before.values(), after]:
            found = WEB_PAGE_WORDING.search(cell)
            assert not found, f"{edition} notebook {notebook_path.stem}: {cell[max(found.start() - 80, 0) :][:200]!r}"
            checked += 1
    assert checked > 40
    assert written == set(words(edition, "notebook")["page_wording"]["page"]), "page wordings no chapter writes"


@pytest.fixture
def chapter_project(tmp_path):
    """A project with one chapter (softmax) in both editions: the repository's library, the chapter's snippets and
    their committed outputs, the chapter's pages and its committed notebooks."""
    for edition, folder in EDITIONS.items():
        (tmp_path / folder.name / "notebooks").mkdir(parents=True)
        shutil.copy(folder / "softmax.md", tmp_path / folder.name / "softmax.md")
        shutil.copy(notebook_folder(PROJECT, edition) / "softmax.ipynb", tmp_path / folder.name / "notebooks")
    for linked in ("snippets/lib", "snippets/softmax", "docs/generated/softmax"):
        (tmp_path / linked).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / linked).symlink_to(REPO / linked)
    return Project(tmp_path)


def test_the_check_names_a_stale_or_missing_chinese_notebook_and_the_build_rewrites_it(chapter_project, capsys):
    chinese = notebook_folder(chapter_project, "zh") / "softmax.ipynb"
    committed = chinese.read_text(encoding="utf-8")
    assert stale_notebooks(chapter_project) == []
    chapter = chapter_project.root / "docs-zh" / "softmax.md"
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\n新的一段。\n", encoding="utf-8")
    assert stale_notebooks(chapter_project) == [chinese]
    assert check(chapter_project) == 1
    assert (
        "stale: docs-zh/notebooks/softmax.ipynb does not match its chapter's snippets. Fix: make outputs"
        in capsys.readouterr().err
    )
    assert write_notebooks(chapter_project) == [chinese] and "新的一段。" in chinese.read_text(encoding="utf-8")
    chapter.write_text(chapter.read_text(encoding="utf-8").replace("\n新的一段。\n", ""), encoding="utf-8")
    chinese.unlink()
    assert stale_notebooks(chapter_project) == [chinese]
    write_notebooks(chapter_project)
    assert chinese.read_text(encoding="utf-8") == committed


def test_chinese_notebooks_embed_the_chinese_figures_and_tables_where_the_snippet_wrote_them(chapter_project):
    generated = chapter_project.generated / "softmax"
    generated.unlink()
    shutil.copytree(REPO / "docs" / "generated" / "softmax", generated)
    (generated / "temperature" / figure_file("temperature", "zh")).write_text("<svg>温度</svg>", encoding="utf-8")
    (generated / "temperature" / table_file("temperatures", "zh")).write_text(
        json.dumps({"header": ["温度"], "rows": [["低"]]}), encoding="utf-8"
    )
    chinese = notebook_folder(chapter_project, "zh") / "softmax.ipynb"
    assert write_notebooks(chapter_project) == [chinese]  # the English notebook keeps the English ones
    notebook = nbformat.read(chinese, as_version=4)
    figures = [
        o.data["image/svg+xml"] for c in code_cells(notebook) for o in c.outputs if o.output_type == "display_data"
    ]
    assert "<svg>温度</svg>" in figures
    assert any("| 温度 |\n| :--- |\n| 低 |" in cell.source for cell in notebook.cells if cell.cell_type == "markdown")


def test_a_link_to_no_heading_of_the_notebook_stops_the_build_naming_it(chapter_project):
    chapter = chapter_project.root / "docs" / "softmax.md"
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\nSee [nowhere](#nowhere).\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"docs/notebooks/softmax\.ipynb: in-page links to \]\(#nowhere\) name no "):
        write_notebooks(chapter_project)
