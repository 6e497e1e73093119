"""Make the snippets' modules (attention, publish, ...) and the build (scripts.pipeline) importable."""

import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "snippets"), str(REPO)]

# At least 1000 examples per property, in CI and locally alike.
settings.register_profile("site", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "site"))


# The verification ledger (docs/ledger.md) shows each claim test's outcome in the last run: record them as we go.
RESULTS = REPO / ".cache" / "test-results.json"
_results = {}


_started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _save():
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"started": _started, "outcomes": _results}, indent=1, sort_keys=True))


def pytest_sessionstart(session):
    if not session.config.option.collectonly:
        _save()


def pytest_runtest_logreport(report):
    if (report.when == "call" or report.outcome != "passed") and _results.get(report.nodeid) != "failed":
        _results[report.nodeid] = report.outcome
        _save()


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
