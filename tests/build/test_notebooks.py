"""Every chapter notebook runs top to bottom in a fresh kernel, far from the repository, and prints what the build
recorded in it. The site never executes notebooks; this test is the proof that they run."""

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import nbformat
import pytest

from scripts.pipeline.project import Project
from scripts.pipeline.runner import ARITHMETIC_ENV

NOTEBOOKS = sorted(Project().notebooks.glob("*.ipynb"))

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
    """Run a copy of ``notebook`` in ``folder`` in a fresh kernel; return (committed, executed) notebooks or an error."""
    copy = folder / notebook.name
    committed = nbformat.read(notebook, as_version=4)
    runnable = nbformat.read(notebook, as_version=4)
    runnable.cells.append(nbformat.v4.new_code_cell(ISOLATION_CHECK))
    nbformat.write(runnable, copy)
    env = {**os.environ, **ARITHMETIC_ENV, "PYTHONPATH": ""}  # the arithmetic of the run that wrote the outputs
    result = subprocess.run([sys.executable, "-c", EXECUTE, str(copy)], cwd=folder, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        return committed, None, result.stderr[-3000:]
    return committed, nbformat.read(copy, as_version=4), None


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """Every notebook executed once, in parallel (one per CPU), each in its own empty folder."""
    folders = [tmp_path_factory.mktemp(path.stem) for path in NOTEBOOKS]
    with ThreadPoolExecutor(max_workers=len(os.sched_getaffinity(0))) as pool:
        results = list(pool.map(execute_alone, NOTEBOOKS, folders))
    yield dict(zip((path.stem for path in NOTEBOOKS), results))
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


def test_there_is_a_notebook_per_chapter_with_snippets():
    assert len(NOTEBOOKS) >= 15


@pytest.mark.kernel
@pytest.mark.claim("Every chapter notebook runs top to bottom in a fresh kernel, in an empty folder without the repository's code, and prints what the build recorded")
@pytest.mark.parametrize("stem", [path.stem for path in NOTEBOOKS])
def test_notebook_runs_alone_and_prints_what_the_page_shows(executed, stem):
    committed, ran, error = executed[stem]
    assert error is None, f"docs/notebooks/{stem}.ipynb failed in a fresh kernel:\n{error}"
    code = [cell for cell in committed.cells if cell.cell_type == "code"]
    ran_code = [cell for cell in ran.cells if cell.cell_type == "code"]
    for before, after in zip(code, ran_code):
        assert same_printout(streams(after), streams(before)), (
            f"{stem}: a cell printed something else than the build recorded:\n{streams(after)}\n---\n{streams(before)}"
        )
    assert streams(ran_code[-1]).strip() == "[] []", "the notebook imported the repository's code"
