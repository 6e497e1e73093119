"""The exit stays open: ProperDocs (PyPI `properdocs`, a continuation of MkDocs 1.x) builds this tree, both
editions, as MkDocs does; the two sites differ only in the generator tag."""

import importlib.util
import os
import subprocess
import sys

import pytest

from support import REPO, nonempty_glob

pytestmark = pytest.mark.site

if importlib.util.find_spec("properdocs") is None:  # requirements-test.lock pins it: `make install-test`
    pytest.fail(
        "ProperDocs is not installed: run make install-test (requirements-test.lock pins properdocs)", pytrace=False
    )

GENERATOR_TAG = '<meta name="generator" content="'


def files(site):
    return {path.relative_to(site): path for path in nonempty_glob(site, "**/*") if path.is_file()}


def without_generator_tag(path):
    """The file's bytes, with the generator's name and version in an HTML page's generator tag left out."""
    data = path.read_bytes()
    if path.suffix != ".html":
        return data
    lines = data.decode("utf-8").splitlines(keepends=True)
    return "".join("<generator tag>\n" if line.strip().startswith(GENERATOR_TAG) else line for line in lines).encode()


def test_properdocs_builds_both_editions_as_mkdocs_does_but_for_the_generator_tag(built_site, tmp_path):
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "properdocs", "build", "--strict", "-d", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, f"properdocs build --strict failed:\n{result.stderr[-3000:]}"
    built_by_mkdocs, built_by_properdocs = files(built_site), files(site)
    assert built_by_properdocs.keys() == built_by_mkdocs.keys()
    differing = [
        name
        for name, path in built_by_mkdocs.items()
        if without_generator_tag(path) != without_generator_tag(built_by_properdocs[name])
    ]
    assert differing == []
    for edition in ("", "zh/"):  # each edition names the generator that built it: the Chinese one too
        assert f"{GENERATOR_TAG}mkdocs-ProperDocs " in (site / edition / "index.html").read_text(encoding="utf-8")
        assert f"{GENERATOR_TAG}mkdocs-1." in (built_site / edition / "index.html").read_text(encoding="utf-8")
