"""The snippet pipeline on a small temporary project: caching, failures, atomicity, checks, determinism."""

import subprocess
import sys
from pathlib import Path

import pytest

from scripts.pipeline.build import build
from scripts.pipeline.check import check
from scripts.pipeline.notebooks import notebook_script
from scripts.pipeline.project import Project

REPO = Path(__file__).resolve().parents[1]

ALPHA = '''"""Alpha: uses the core module, publishes a value and a table, draws a figure."""
import matplotlib.pyplot as plt
import numpy as np
from lib.attention import softmax
from lib.publish import table, value

weights = softmax(np.array([1.0, 2.0, 3.0]))
print("weights", np.round(weights, 3))
value("top", weights.max(), "{:.3f}")
table("small", ["name", "x"], [["a", 1.5], ["b", 2.25]])
fig, ax = plt.subplots(num="bars")
ax.bar(range(3), weights)
plt.show()
'''

BETA = '''"""Beta: no local imports."""
print("beta says", 6 * 7)
'''


@pytest.fixture
def project(tmp_path):
    (tmp_path / "snippets" / "lib").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    for module in ("__init__.py", "attention.py", "publish.py"):
        (tmp_path / "snippets" / "lib" / module).write_text((REPO / "snippets" / "lib" / module).read_text())
    (tmp_path / "snippets" / "alpha.py").write_text(ALPHA)
    (tmp_path / "snippets" / "beta.py").write_text(BETA)
    return Project(tmp_path)


def snapshot(project):
    return {p.relative_to(project.root).as_posix(): p.read_bytes() for p in sorted(project.generated.rglob("*")) if p.is_file()}


def ran(output):
    """Snippet names the build reported running."""
    return sorted(line.split()[1] for line in output.splitlines() if line.startswith("["))


def test_cold_build_writes_every_output_with_provenance(project, capsys):
    assert build(project) == 0
    assert ran(capsys.readouterr().out) == ["alpha", "beta"]
    alpha = project.generated / "alpha"
    assert sorted(p.name for p in alpha.iterdir()) == [
        "bars.svg", "manifest.json", "stdout.txt", "table-small.md", "values.json",
    ]
    assert "beta says 42" in (project.generated / "beta" / "stdout.txt").read_text()
    assert "| a | 1.5 |" in (alpha / "table-small.md").read_text()
    manifest = (alpha / "manifest.json").read_text()
    for needed in ('"snippet": "snippets/alpha.py"', '"numpy"', '"matplotlib"', "snippets/lib/attention.py", '"key"'):
        assert needed in manifest


@pytest.mark.claim("A no-change rebuild reruns nothing; editing the core module reruns exactly the snippets that import it")
def test_no_change_reruns_nothing_and_edits_rerun_exactly_the_dependents(project, capsys):
    build(project)
    capsys.readouterr()
    assert build(project) == 0
    assert ran(capsys.readouterr().out) == []

    core = project.snippets / "lib" / "attention.py"
    core.write_text(core.read_text() + "\n# a comment changes the key\n")
    build(project)
    assert ran(capsys.readouterr().out) == ["alpha"]  # beta imports nothing local

    beta = project.snippets / "beta.py"
    beta.write_text(beta.read_text().replace("6 * 7", "6 * 8"))
    build(project)
    assert ran(capsys.readouterr().out) == ["beta"]
    assert "beta says 48" in (project.generated / "beta" / "stdout.txt").read_text()


@pytest.mark.claim("`make check` names each stale snippet and the command that fixes it")
def test_check_names_the_stale_snippet_and_the_fix(project, capsys):
    build(project)
    assert check(project) == 0
    beta = project.snippets / "beta.py"
    beta.write_text(beta.read_text() + "print('more')\n")
    capsys.readouterr()
    assert check(project) == 1
    err = capsys.readouterr().err
    assert "stale: beta (snippets/beta.py)" in err and "make outputs" in err
    assert "alpha" not in err


def test_check_catches_hand_edited_and_orphaned_outputs(project, capsys):
    build(project)
    (project.generated / "alpha" / "stdout.txt").write_text("typed by hand\n")
    (project.generated / "gone").mkdir()
    capsys.readouterr()
    assert check(project) == 1
    err = capsys.readouterr().err
    assert "alpha" in err and "edited" in err
    assert "orphan: docs/generated/gone" in err


@pytest.mark.claim("A failing snippet is reported with file, line and exception, and its previous outputs stay untouched")
def test_failing_snippet_reports_file_line_and_keeps_previous_outputs(project, capsys):
    build(project)
    before = snapshot(project)
    alpha = project.snippets / "alpha.py"
    lines = alpha.read_text().splitlines()
    lines.insert(7, "weights = weights.reshape(2, 2)")  # becomes line 8
    alpha.write_text("\n".join(lines) + "\n")
    beta = project.snippets / "beta.py"
    beta.write_text(beta.read_text() + "print('beta still runs')\n")
    capsys.readouterr()
    assert build(project) == 1
    out, err = capsys.readouterr()
    assert f"{alpha}:8: ValueError: cannot reshape array of size 3 into shape (2,2)" in err
    assert "1 snippet(s) failed: alpha" in err
    after = snapshot(project)
    assert {k: v for k, v in after.items() if "/alpha/" in k} == {k: v for k, v in before.items() if "/alpha/" in k}
    assert "beta still runs" in (project.generated / "beta" / "stdout.txt").read_text()
    assert not list(project.scratch.glob("alpha-*")), "no half-written staging folder is left behind"


def test_an_error_inside_a_local_module_points_at_the_module_line(project, capsys):
    core = project.snippets / "lib" / "attention.py"
    core.write_text(core.read_text().replace('    x = np.asarray(x, dtype=np.float64)\n    peak', '    x = np.asarray(x, dtype=np.float64)\n    1 / 0\n    peak', 1))
    assert build(project) == 1
    err = capsys.readouterr().err
    assert f"{core}:" in err and "ZeroDivisionError: division by zero" in err


def test_a_crashing_process_cannot_take_the_build_down(project, capsys):
    (project.snippets / "gamma.py").write_text('"""Dies hard."""\nimport os\nos._exit(3)\n')
    assert build(project) == 1
    captured = capsys.readouterr()
    assert "worker exited with status 3" in captured.err
    assert (project.generated / "alpha" / "manifest.json").exists()


@pytest.mark.claim("Two full rebuilds produce byte-identical outputs")
def test_two_full_rebuilds_are_byte_identical(project):
    build(project)
    first = snapshot(project)
    build(project, force=True)
    assert snapshot(project) == first


def test_full_check_reruns_and_compares_bytes(project, capsys):
    build(project)
    assert check(project, full=True) == 0
    assert "byte for byte" in capsys.readouterr().out


def test_notebooks_follow_the_chapters_and_run_as_plain_scripts(project, tmp_path):
    (project.docs / "chapter.md").write_text('# A chapter\n\n```python\n--8<-- "snippets/alpha.py"\n```\n')
    build(project)
    assert check(project) == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    notebook_py = elsewhere / "chapter.py"
    notebook_py.write_text(notebook_script(project.notebooks / "chapter.ipynb"))
    result = subprocess.run(
        [sys.executable, str(notebook_py)], cwd=elsewhere, capture_output=True, text=True, env={"MPLBACKEND": "Agg", "PATH": ""}
    )
    assert result.returncode == 0, result.stderr
    assert "top = 0.665" in result.stdout
    (project.docs / "chapter.md").write_text('# A chapter\n\n```python\n--8<-- "snippets/beta.py"\n```\n')
    assert check(project) == 1
