"""The verification ledger is bound to its commit: test outcomes are recorded with the commit, whether the tree was
clean and whether the whole suite ran, and the ledger shows statuses only from a complete run of the commit it is
built from. Each state is set up in a temporary git project with a small test file of its own."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scripts import chapter_markdown
from scripts.ledger import PARTIAL, REQUIRE, RESULTS, claim_markers, claims_table, quoted_values, values_table
from scripts.pipeline.build import plan
from scripts.pipeline.check import freshness
from scripts.pipeline.project import Project
from support import IDENTITY, REPO, english_words, git

DEMO = """import pytest


@pytest.mark.claim("One plus one is two", zh="一加一等于二")
def test_adds():
    assert 1 + 1 == 2


@pytest.mark.claim("Two times three is six")
@pytest.mark.parametrize("a, b", [(2, 3), (3, 2)])
def test_multiplies(a, b):
    assert a * b == 6


def test_unclaimed():
    pass
"""
CLAIMS = ("tests/test_demo.py::test_adds", "tests/test_demo.py::test_multiplies")


def commit_all(project, message):
    git(project, "add", "-A")
    git(project, *IDENTITY, "commit", "-q", "-m", message)
    return git(project, "rev-parse", "HEAD")


@pytest.fixture
def project(tmp_path):
    """A git project with the real conftest.py, scripts/ and pyproject.toml, and one small claim-backed test file."""
    root = tmp_path / "project"
    (root / "tests").mkdir(parents=True)
    shutil.copy(REPO / "tests" / "conftest.py", root / "tests")
    shutil.copy(REPO / "pyproject.toml", root)
    shutil.copy(REPO / ".gitignore", root)
    shutil.copytree(REPO / "scripts", root / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "tests" / "test_demo.py").write_text(DEMO)
    git(root, "init", "-q")
    commit_all(root, "demo")
    return root


def pytest_in(project, *args):
    """Run pytest in the demo project, as its own run even when this test runs in a pytest-xdist worker."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_XDIST_")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
    )


def record(project, relative):
    path = project / relative
    return json.loads(path.read_text()) if path.exists() else None


def write_record(project, commit, clean=True, complete=True, outcomes=None):
    run = {
        "commit": commit,
        "clean": clean,
        "complete": complete,
        "started": "2026-11-30 12:00 UTC",
        "outcomes": outcomes
        if outcomes is not None
        else {f"{CLAIMS[0]}": "passed", f"{CLAIMS[1]}[2-3]": "passed", f"{CLAIMS[1]}[3-2]": "passed"},
    }
    (project / ".cache").mkdir(exist_ok=True)
    (project / RESULTS).write_text(json.dumps(run))


def ledger(project, language="en"):
    return claims_table(Project(root=project), language=language)


ADMONITION = re.compile(r"^\?\?\?\+? \w+ ", re.MULTILINE)  # "??? note", "???+ failure": Markdown, not words


def numbers(text):
    return sorted(re.findall(r"\d+", text))


def assert_no_status(text):
    for mark in ("✅", "❌", "⏭", "not run"):
        assert mark not in text
    assert "One plus one is two" in text  # the claims are still listed, without a status


@pytest.mark.claim(
    "The ledger shows test statuses only from a complete test run of the commit it is built from",
    zh="台账只显示构建它的那个提交的完整测试运行所得的状态",
)
def test_a_complete_run_of_this_commit_gives_every_claim_its_status(project):
    result = pytest_in(project)
    assert result.returncode == 0, result.stdout
    run = record(project, RESULTS)
    assert run["complete"] and run["clean"] and run["commit"] == git(project, "rev-parse", "HEAD")
    assert record(project, PARTIAL) is None
    text = ledger(project)
    assert f"Statuses from the complete test run of commit `{run['commit'][:10]}`" in text
    assert "✅ verified: One plus one is two" in text and "✅ verified: Two times three is six" in text
    assert "not run" not in text and "no outcome" not in text


def test_a_partial_run_never_replaces_the_complete_record(project):
    assert pytest_in(project).returncode == 0
    complete = record(project, RESULTS)
    for narrowing in (
        ["-k", "adds"],
        ["-m", "not claim"],
        ["tests/test_demo.py::test_adds"],
        ["tests"],
        ["--deselect", "tests/test_demo.py::test_unclaimed"],
    ):
        assert pytest_in(project, *narrowing).returncode == 0, narrowing
        assert record(project, RESULTS) == complete, narrowing
        partial = record(project, PARTIAL)
        assert partial["complete"] is False and partial["narrowed"], narrowing


# A conftest at the demo project's root, loaded by every process of a run: logs which process (the controller or an
# xdist worker) runs each test and writes each record file.
PROCESS_LOG = """import os
import pathlib

_write_text = pathlib.Path.write_text


def note(*words):
    with open({log!r}, "a") as log:
        log.write(" ".join([os.environ.get("PYTEST_XDIST_WORKER", "controller"), *words]) + "\\n")


def write_text(self, *args, **kwargs):
    if self.parent.name == ".cache":
        note("writes", self.name)
    return _write_text(self, *args, **kwargs)


pathlib.Path.write_text = write_text


def pytest_runtest_call(item):
    note("runs", item.nodeid)
"""


def test_a_parallel_run_is_recorded_once_by_the_controller(project, tmp_path):
    """With pytest-xdist (`-n 2`) the workers run the tests and only the controller writes the record, once, with
    every worker's outcomes; a narrowed parallel run is partial, with the deselection its workers made."""
    log = tmp_path / "processes.log"
    (project / "conftest.py").write_text(PROCESS_LOG.format(log=str(log)))
    commit = commit_all(project, "log who runs the tests and writes the record")
    result = pytest_in(project, "-n", "2")
    assert result.returncode == 0, result.stdout
    run = record(project, RESULTS)
    assert run["complete"] and run["clean"] and run["commit"] == commit and run["narrowed"] == []
    assert run["outcomes"] == {
        f"{CLAIMS[0]}": "passed",
        f"{CLAIMS[1]}[2-3]": "passed",
        f"{CLAIMS[1]}[3-2]": "passed",
        "tests/test_demo.py::test_unclaimed": "passed",
    }
    assert record(project, PARTIAL) is None
    events = [line.split(" ", 2) for line in log.read_text().splitlines()]
    runners = [who for who, what, _ in events if what == "runs"]
    writers = [(who, name) for who, what, name in events if what == "writes"]
    assert len(runners) == 4 and set(runners) <= {"gw0", "gw1"}, events
    assert writers.count(("controller", Path(RESULTS).name)) == 1
    assert {who for who, _ in writers} == {"controller"}, writers  # no worker writes either record file
    assert pytest_in(project, "-n", "2", "-k", "adds").returncode == 0
    assert record(project, PARTIAL)["narrowed"] == ["-k", "3 tests deselected"]  # as a serial run says it
    assert record(project, RESULTS) == run


def test_a_run_stopped_early_is_partial(project):
    (project / "tests" / "test_demo.py").write_text(DEMO.replace("== 2", "== 3"))
    commit_all(project, "break a claim")
    result = pytest_in(project, "-x")
    assert result.returncode == 1
    assert record(project, RESULTS) is None
    assert record(project, PARTIAL)["narrowed"] == ["3 collected tests did not run"]
    assert "No complete test run is recorded" in ledger(project)


def test_a_complete_run_with_a_failure_opens_its_group_and_says_failed(project):
    (project / "tests" / "test_demo.py").write_text(DEMO.replace("== 2", "== 3"))
    commit_all(project, "break a claim")
    assert pytest_in(project).returncode == 1
    text = ledger(project)
    assert '???+ failure "test_demo.py: 2 claims, 1 verified, 1 failed"' in text
    assert "❌ failed: One plus one is two" in text


def test_without_a_record_the_ledger_says_so_once(project):
    text = ledger(project)
    assert text.count("No complete test run is recorded") == 1
    assert_no_status(text)


def test_a_record_of_another_commit_is_not_shown(project):
    old = git(project, "rev-parse", "HEAD")
    write_record(project, old)
    (project / "tests" / "test_demo.py").write_text(DEMO + "\n# edited\n")
    new = commit_all(project, "edit")
    text = ledger(project)
    assert f"the last complete test run was of commit `{old[:10]}`" in text and f"`{new[:10]}`" in text
    assert_no_status(text)


def test_a_record_of_uncommitted_changes_is_not_shown(project):
    write_record(project, git(project, "rev-parse", "HEAD"), clean=False)
    text = ledger(project)
    assert "ran with uncommitted changes" in text
    assert_no_status(text)


def test_a_page_built_from_uncommitted_changes_shows_no_status(project):
    write_record(project, git(project, "rev-parse", "HEAD"))
    (project / "tests" / "test_demo.py").write_text(DEMO + "\n# edited\n")
    text = ledger(project)
    assert "with uncommitted changes, which its test run did not see" in text
    assert_no_status(text)


def test_an_incomplete_record_is_not_shown(project):
    write_record(project, git(project, "rev-parse", "HEAD"), complete=False)
    assert_no_status(ledger(project))


def test_a_module_skipped_as_a_whole_counts_as_skipped(project):
    (project / "tests" / "test_demo.py").write_text(
        'import pytest\npytest.skip("no browser", allow_module_level=True)\n' + DEMO
    )
    commit_all(project, "skip the module")
    assert pytest_in(project).returncode == 5  # nothing collected, the module skipped
    assert record(project, RESULTS)["outcomes"] == {"tests/test_demo.py": "skipped"}
    text = ledger(project)
    assert "⏭ skipped: One plus one is two" in text and '???+ warning "test_demo.py: 2 claims, 2 skipped"' in text


def test_publishing_requires_the_statuses(project, monkeypatch, caplog):
    """`make publish` sets LEDGER_REQUIRE_STATUSES: a ledger without statuses is then a warning, which fails the
    strict build, so the published site cannot go out without them."""
    monkeypatch.setenv(REQUIRE, "1")
    ledger(project)
    assert [r.levelname for r in caplog.records] == ["WARNING"]
    assert "No complete test run is recorded" in caplog.records[0].getMessage()
    caplog.clear()
    write_record(project, git(project, "rev-parse", "HEAD"))
    ledger(project)
    assert caplog.records == []


def test_each_claim_names_the_test_that_backs_it_and_links_its_source_under_repo_blob(project):
    text = ledger(project)
    assert "One plus one is two — backed by `tests/test_demo.py::test_adds`" in text
    assert "Two times three is six — backed by `tests/test_demo.py::test_multiplies`" in text
    commit = git(project, "rev-parse", "HEAD")
    linked = claims_table(Project(root=project), repo_blob="https://example.org/r/blob/{commit}")
    lines = DEMO.splitlines()
    for claim, name in (("One plus one is two", "test_adds"), ("Two times three is six", "test_multiplies")):
        line = lines.index(next(line for line in lines if line.startswith(f"def {name}("))) + 1
        assert (
            f"{claim} — backed by [`tests/test_demo.py::{name}`](https://example.org/r/blob/{commit}/tests/test_demo.py#L{line})"
            in linked
        )


@pytest.fixture
def copy_of_the_site_sources(tmp_path):
    """The repository's snippets, generated outputs, docs and scripts in a temporary folder."""
    root = tmp_path / "copy"
    for folder in ("snippets", "docs", "scripts"):
        shutil.copytree(REPO / folder, root / folder, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    return Project(root=root)


def test_a_snippets_status_is_make_checks_for_the_sources_as_they_are_now(copy_of_the_site_sources):
    copy = copy_of_the_site_sources
    assert freshness(copy) == {p.name: not p.stale for p in plan(copy)}  # make check's answer, asked of the pipeline
    name = quoted_values(copy)[0][1]
    item = f"`snippets/{name}.py` "
    assert item + "✅ matches its sources" in values_table(copy)
    output = next(p for p in sorted((copy.generated / name).iterdir()) if p.name != "manifest.json")
    for edit in (output, copy.snippets / f"{name}.py"):  # an output edited by hand, then the snippet itself
        original = edit.read_bytes()
        edit.write_bytes(original + b"\n")
        assert item + "❌ stale" in values_table(copy), edit
        edit.write_bytes(original)
        assert item + "✅ matches its sources" in values_table(copy), edit


def test_a_claim_is_shown_as_written_not_read_as_html_or_a_value(project):
    (project / "tests" / "test_markup.py").write_text(
        'import pytest\n\n\n@pytest.mark.claim("python snippets/<chapter>/<what>.py runs & `a<b` holds, {{ x }}")\n'
        "def test_markup():\n    pass\n"
    )
    text = ledger(project)
    assert "python snippets/&lt;chapter>/&lt;what>.py runs &amp; `a<b` holds, { { x }} — backed by" in text


def chinese_ledgers(project):
    """The Chinese claims section in each state a test above sets up: no record, a complete run, a failure."""
    yield ledger(project, "zh")
    assert pytest_in(project).returncode == 0
    yield ledger(project, "zh")
    (project / "tests" / "test_demo.py").write_text(DEMO.replace("== 2", "== 3"))
    commit_all(project, "break a claim")
    assert pytest_in(project).returncode == 1
    yield ledger(project, "zh")


@pytest.mark.claim(
    "The Chinese ledger states the same counts, statuses and commits as the English one, in Chinese",
    zh="中文台账给出的计数、状态和提交与英文台账相同，并且用中文表述",
)
def test_the_chinese_claims_section_says_what_the_english_one_says_in_chinese(project, caplog):
    for chinese in chinese_ledgers(project):
        english = ledger(project)
        assert numbers(chinese) == numbers(english)
        assert chinese.count("✅") == english.count("✅") and chinese.count("❌") == english.count("❌")
        assert "一加一等于二——由 `tests/test_demo.py::test_adds` 支撑" in chinese  # the marker's zh= text
        assert "Two times three is six——由" in chinese  # no zh=: as written, with a warning naming its test
        assert english_words(ADMONITION.sub("", chinese).replace("Two times three is six", "")) == []
    assert "1 个已验证，1 个失败" in chinese  # the last state: a complete run with a failure
    missing = [r.getMessage() for r in caplog.records if "no Chinese wording" in r.getMessage()]
    assert missing and all("tests/test_demo.py::test_multiplies" in m for m in missing)


def test_the_chinese_values_section_states_the_same_counts_in_chinese():
    english, chinese = values_table(Project()), values_table(Project(), language="zh")
    assert numbers(chinese) == numbers(english)
    assert chinese.count("\n") == english.count("\n")
    shown = re.sub(r"`[^`]*` = [^·\n]*", "", ADMONITION.sub("", chinese))  # the values as the snippets print them
    assert english_words(shown) == []
    assert "{#" not in chinese  # chapter titles without their heading ids


def test_each_editions_ledger_page_is_filled_in_its_language():
    for language, folder, words in (("en", "docs", "claims in"), ("zh", "docs-zh", "条论断，分布在")):
        markdown = (REPO / folder / "ledger.md").read_text(encoding="utf-8")
        page = chapter_markdown.chapter(markdown, Project(), "ledger.md", 1, language, None, [], "docs")
        assert words in page and "<!-- ledger:" not in page, language


def test_every_claim_of_the_suite_has_its_chinese_wording():
    """The Chinese ledger shows each claim in Chinese: no marker of this suite may lack its zh= text."""
    claims = claim_markers(REPO / "tests")
    assert len(claims) > 200
    assert [test_id for _, claim_zh, test_id, _ in claims if not claim_zh] == []


def test_the_chinese_figure_box_claim_is_backed_by_the_test_that_draws_a_box():
    """A reader found the box claim on the test of untitled table columns, which checks no figure."""
    backing = {claim: test_id for claim, _, test_id, _ in claim_markers(REPO / "tests")}
    test_id = backing["A Chinese figure that would draw a character as a box fails the build naming the character"]
    assert test_id.endswith("::test_a_chinese_figure_that_draws_a_box_fails_naming_the_character"), test_id
