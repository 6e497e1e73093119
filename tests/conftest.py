"""Record each test's outcome for the verification ledger; run the site tests last; build the site once per
session. (pyproject.toml's pythonpath makes the build, the snippets' library and tests/support.py importable.)"""

import json
import os
import subprocess
import sys
from datetime import datetime, timezone

import pytest
from hypothesis import settings

from scripts.ledger import PARTIAL, RESULTS, working_tree
from scripts.pipeline.project import REPO

# At least 1000 examples per property, in CI and locally alike.
settings.register_profile("site", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "site"))


# The verification ledger (docs/ledger.md) shows claim tests' outcomes from the last complete run of the commit the
# site is built from. Outcomes go to the partial record as they come; a run that ends having run the whole suite
# (no paths or ids, no -k/-m/--lf/--deselect/--ignore, nothing deselected, every collected test reported) moves
# it to the complete record. A partial run never replaces a complete one.
_record = {"outcomes": {}}
_narrowed = []  # why this run is not the whole suite
_collected = set()


def _save(relative):
    path = REPO / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_record, indent=1, sort_keys=True))


def _recording(config):
    return not config.option.collectonly


def pytest_sessionstart(session):
    config = session.config
    if not _recording(config):
        return
    commit, clean = working_tree(REPO)
    started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    _record.update(commit=commit, clean=clean, started=started, complete=False)
    if config.args_source != pytest.Config.ArgsSource.TESTPATHS:
        _narrowed.append(f"paths or test ids given: {' '.join(config.args)}")
    for option, flag in (("keyword", "-k"), ("markexpr", "-m"), ("lf", "--lf"), ("deselect", "--deselect"),
                         ("ignore", "--ignore"), ("ignore_glob", "--ignore-glob")):
        if getattr(config.option, option, None):
            _narrowed.append(flag)
    _save(PARTIAL)


def pytest_deselected(items):
    if items:
        _narrowed.append(f"{len(items)} tests deselected")


def pytest_collectreport(report):
    if report.failed:
        _narrowed.append(f"collection error in {report.nodeid}")
    elif report.skipped:  # a module skipped as a whole: its tests are never collected
        _record["outcomes"][report.nodeid] = "skipped"


def pytest_collection_finish(session):
    _collected.update(item.nodeid for item in session.items)


def pytest_runtest_logreport(report):
    outcomes = _record["outcomes"]
    if (report.when == "call" or report.outcome != "passed") and outcomes.get(report.nodeid) != "failed":
        outcomes[report.nodeid] = report.outcome
        _save(PARTIAL)


def pytest_sessionfinish(session):
    if not _recording(session.config):
        return
    unreported = _collected - _record["outcomes"].keys()
    if unreported:
        _narrowed.append(f"{len(unreported)} collected tests did not run")
    _record.update(complete=not _narrowed, narrowed=_narrowed,
                   finished=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    if _record["complete"]:
        _save(RESULTS)
        (REPO / PARTIAL).unlink(missing_ok=True)
    else:
        _save(PARTIAL)


def pytest_collection_modifyitems(items):
    """Site and browser tests build the site, ledger included: run them after everything else."""
    items.sort(key=lambda item: item.get_closest_marker("site") is not None)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The whole site, built once per test session with `mkdocs build --strict` (ledger included)."""
    site = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}"
    return site
