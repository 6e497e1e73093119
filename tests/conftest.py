"""Record each test's outcome for the verification ledger; run the site tests last; build the site once per
test run, for every pytest-xdist worker. (pyproject.toml's pythonpath makes the build, the snippets' library and
tests/support.py importable.)"""

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
from datetime import UTC, datetime

import pytest
from hypothesis import settings

from scripts.ledger import PARTIAL, RESULTS, working_tree
from scripts.pipeline.project import REPO

# At least 1000 examples per property in `make test` and CI; `make test-fast` sets HYPOTHESIS_PROFILE=fast.
settings.register_profile("site", max_examples=1000, deadline=None)
settings.register_profile("fast", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "site"))


# The verification ledger (docs/ledger.md) shows claim tests' outcomes from the last complete run of the commit the
# site is built from. Outcomes go to the partial record as they come; a run that ends having run the whole suite
# (no paths or ids, no -k/-m/--lf/--deselect/--ignore, nothing deselected, every collected test reported) moves
# it to the complete record. A partial run never replaces a complete one. Under pytest-xdist only the controller
# records: test reports and failed or skipped collections reach its hooks from every worker, each worker tells it
# the tests it collected (pytest_xdist_node_collection_finished) and why its run was narrowed (workeroutput).
_record = {"outcomes": {}}
_narrowed = []  # why this run is not the whole suite
_collected = set()


def _save(relative):
    path = REPO / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_record, indent=1, sort_keys=True))


def _worker(config):
    """A pytest-xdist worker (it runs tests; the controller keeps the record)."""
    return hasattr(config, "workerinput")


def _recording(config):
    return not config.option.collectonly and not _worker(config)


def _narrow(reason):
    if reason not in _narrowed:  # each worker reports the same deselection
        _narrowed.append(reason)


def pytest_sessionstart(session):
    config = session.config
    if not _recording(config):
        return
    commit, clean = working_tree(REPO)
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    _record.update(commit=commit, clean=clean, started=started, complete=False)
    if config.args_source != pytest.Config.ArgsSource.TESTPATHS:
        _narrow(f"paths or test ids given: {' '.join(config.args)}")
    for option, flag in (
        ("keyword", "-k"),
        ("markexpr", "-m"),
        ("lf", "--lf"),
        ("deselect", "--deselect"),
        ("ignore", "--ignore"),
        ("ignore_glob", "--ignore-glob"),
    ):
        if getattr(config.option, option, None):
            _narrow(flag)
    _save(PARTIAL)


def pytest_deselected(items):
    if items:
        _narrow(f"{len(items)} tests deselected")


def pytest_collectreport(report):
    if report.failed:
        _narrow(f"collection error in {report.nodeid}")
    elif report.skipped:  # a module skipped as a whole: its tests are never collected
        _record["outcomes"][report.nodeid] = "skipped"


def pytest_collection_finish(session):
    _collected.update(item.nodeid for item in session.items)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    _collected.update(ids)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    for reason in getattr(node, "workeroutput", {}).get("narrowed", []):
        _narrow(reason)


def pytest_runtest_logreport(report):
    if "started" not in _record:  # not recording (a pytest-xdist worker, or --collect-only)
        return
    outcomes = _record["outcomes"]
    if (report.when == "call" or report.outcome != "passed") and outcomes.get(report.nodeid) != "failed":
        outcomes[report.nodeid] = report.outcome
        _save(PARTIAL)


def pytest_sessionfinish(session):
    if _worker(session.config):
        session.config.workeroutput["narrowed"] = _narrowed  # to the controller's pytest_testnodedown
    if not _recording(session.config):
        return
    unreported = _collected - _record["outcomes"].keys()
    if unreported:
        _narrow(f"{len(unreported)} collected tests did not run")
    _record.update(
        complete=not _narrowed, narrowed=_narrowed, finished=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    )
    if _record["complete"]:
        _save(RESULTS)
        (REPO / PARTIAL).unlink(missing_ok=True)
    else:
        _save(PARTIAL)


def pytest_collection_modifyitems(items):
    """Site and browser tests build the site, ledger included: run them after everything else."""
    items.sort(key=lambda item: item.get_closest_marker("site") is not None)


@pytest.fixture(scope="session")
def built_site(request, tmp_path_factory):
    """The whole site, built once per test run with `mkdocs build --strict` (ledger included). Under pytest-xdist
    the first worker that needs it builds it in the run's temporary folder, which holds every worker's own, while
    the others wait on the lock; all then read the same site (and the same failure, if the build failed)."""
    shared = tmp_path_factory.getbasetemp()
    if _worker(request.config):
        shared = shared.parent
    site, log = shared / "site", shared / "site-build.log"
    with open(shared / "site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not log.exists():
            result = subprocess.run(
                [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                cwd=REPO,
                capture_output=True,
                text=True,
                env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
            )
            log.write_text(f"{result.returncode}\n{result.stdout}\n{result.stderr}")
    returncode, output = log.read_text().split("\n", 1)
    assert returncode == "0", f"mkdocs build --strict failed:\n{output}"
    return site


@pytest.fixture
def small_site(tmp_path):
    """A copy of the project whose site builds in seconds, for tests that serve or deploy it: the Makefile, both
    editions' configuration without their nav (it lists every chapter), the theme, the build, the snippets' library
    and the tests (the ledger lists their claims); in each edition a home page and the ledger (its link to the
    corrections page made plain text), and no chapter."""
    root = tmp_path / "project"
    for name in (
        ".gitignore",
        "Makefile",
        "overrides",
        "scripts",
        "snippets/lib",
        "tests",
        "docs/assets",
        "docs/ledger.md",
        "docs-zh/ledger.md",
    ):
        source, target = REPO / name, root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, target)
    for config in ("mkdocs.yml", "mkdocs.zh.yml"):
        (root / config).write_text(re.sub(r"^nav:\n(?:[ -].*\n)*", "", (REPO / config).read_text(), flags=re.M))
    for ledger in (root / "docs" / "ledger.md", root / "docs-zh" / "ledger.md"):  # no corrections page here
        ledger.write_text(re.sub(r"\[([^\]]+)\]\(corrections\.md\)", r"\1", ledger.read_text(encoding="utf-8")))
    for folder in ("docs/generated", "docs/notebooks", "docs-zh/notebooks"):
        (root / folder).mkdir()
    for link in ("assets", "generated"):  # the Chinese edition quotes the English outputs
        (root / "docs-zh" / link).symlink_to(os.readlink(REPO / "docs-zh" / link))
    (root / "docs" / "index.md").write_text("# Home\n")
    (root / "docs-zh" / "index.md").write_text("# 首页 {#home}\n")
    return root
