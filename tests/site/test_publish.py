"""Publishing: the CI workflow runs only Makefile targets and publishes only after the tests; the two lock files
agree; mike deploys versions into a gh-pages branch with `latest` on the newest release."""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement

from scripts.ledger import RESULTS, claim_tests
from support import IDENTITY, REPO, git

WORKFLOW = REPO / ".github" / "workflows" / "publish.yml"
MAKE = re.compile(r"(?:^|[\s;&|(])make\s+([A-Za-z][\w.-]*)")


def makefile_targets():
    """{target: its ## help text} for every rule in the Makefile (variable assignments excluded)."""
    targets = {}
    for line in (REPO / "Makefile").read_text().splitlines():
        match = re.match(r"^([A-Za-z][\w.-]*)\s*:(?!=)([^#]*)(?:##\s*(.*))?$", line)
        if match and "=" not in match.group(2):
            targets.setdefault(match.group(1), match.group(3))
    return targets


def workflow():
    with WORKFLOW.open() as f:
        flow = yaml.safe_load(f)
    flow["on"] = flow.pop(True, flow.get("on"))  # YAML 1.1 reads the key `on` as true
    return flow


def make_commands(job):
    return [target for step in job["steps"] for target in MAKE.findall(step.get("run", ""))]


def readme_setup_commands():
    """The commands of the README's first code block: the two a reader runs."""
    block = re.search(r"```bash\n(.*?)```", (REPO / "README.md").read_text(), re.S).group(1)
    return [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]


def test_makefile_targets_are_parsed():
    targets = makefile_targets()
    assert {"serve", "test", "site", "deploy", "publish", "lock"} <= targets.keys()
    assert "PYTHON" not in targets and "VENV" not in targets


def test_the_workflow_runs_only_makefile_targets():
    flow = workflow()
    commands = {job: make_commands(spec) for job, spec in flow["jobs"].items()}
    assert all(commands.values()), f"a job runs no make target: {commands}"
    unknown = {target for targets in commands.values() for target in targets} - makefile_targets().keys()
    assert unknown == set(), f"the workflow runs make targets the Makefile does not have: {unknown}"


def test_the_workflow_tests_with_the_readme_command_and_publishes_only_after_from_main_or_a_tag():
    assert readme_setup_commands() == ["make serve", "make test"]
    flow = workflow()
    test_job = next(name for name, job in flow["jobs"].items() if "test" in make_commands(job))
    publish_job = next(name for name, job in flow["jobs"].items() if "publish" in make_commands(job))
    assert test_job != publish_job
    needs = flow["jobs"][publish_job]["needs"]
    assert test_job in ([needs] if isinstance(needs, str) else needs)
    assert flow["on"]["push"]["branches"] == ["main"] and flow["on"]["push"]["tags"] == ["v*"]
    condition = flow["jobs"][publish_job]["if"]
    assert "github.event_name == 'push'" in condition
    assert "refs/heads/main" in condition and "refs/tags/v" in condition
    assert flow["jobs"][publish_job]["permissions"] == {"contents": "write"}
    assert flow["permissions"] == {"contents": "read"}  # only the publish job may push


def test_every_documented_make_target_is_in_the_readme_table():
    table = (REPO / "README.md").read_text()
    documented = {target for target, help_text in makefile_targets().items() if help_text}
    missing = {target for target in documented if f"`make {target}" not in table}
    assert missing == set()


PIN = re.compile(r"([A-Za-z0-9_.-]+)==([A-Za-z0-9_.+!-]+)((?: +--hash=sha256:[0-9a-f]{64})+)")


def lock_entries(text):
    """Each requirement of a lock on one line (its hash lines joined to it), comments left out."""
    lines = text.replace("\\\n", " ").splitlines()
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


def pins(name):
    entries = lock_entries((REPO / name).read_text())
    assert all(PIN.fullmatch(entry) for entry in entries), f"{name}: not every package pinned exactly with its hashes"
    return {
        Requirement(entry.split()[0]).name.lower().replace("_", "-"): entry.split()[0].split("==")[1]
        for entry in entries
    }


def test_the_two_locks_agree_and_only_the_test_lock_has_the_test_tools():
    project = __import__("tomllib").loads((REPO / "pyproject.toml").read_text())["project"]
    site, full = pins("requirements.lock"), pins("requirements-test.lock")
    assert {name: full.get(name) for name in site} == site, "requirements.lock pins a version the test lock does not"
    for spec in project["dependencies"]:
        requirement = Requirement(spec)
        name = requirement.name.lower()
        assert name in site and requirement.specifier.contains(site[name]), (
            f"requirements.lock: {spec} -> {site.get(name)}"
        )
    for spec in project["optional-dependencies"]["test"]:
        requirement = Requirement(spec)
        name = requirement.name.lower()
        assert name in full and requirement.specifier.contains(full[name]), f"requirements-test.lock: {spec}"
    assert {"pytest", "hypothesis", "playwright", "axe-playwright-python"}.isdisjoint(site), (
        "test tools in the site lock"
    )
    assert "mike" in site  # `make publish` runs it


def test_latest_follows_the_newest_release_tag(tmp_path):
    """The deploy commands `make` would run, in a repository without tags and then with two."""
    shutil.copy(REPO / "Makefile", tmp_path)
    git(tmp_path, "init", "-q")
    git(tmp_path, *IDENTITY, "commit", "-q", "--allow-empty", "-m", "start")

    def deploy_command(version):
        result = subprocess.run(
            ["make", "-n", "-o", "install", "deploy", f"VERSION={version}"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
        )
        command = next(line for line in result.stdout.splitlines() if "mike deploy" in line)
        return command.split("/mike ", 1)[1].split()  # after .venv/bin/mike

    assert deploy_command("dev") == ["deploy", "--update-aliases", "dev", "latest"]  # no release yet
    for tag in ("v0.9", "v0.10"):
        git(tmp_path, "tag", tag)
    assert deploy_command("dev") == ["deploy", "--update-aliases", "dev"]
    assert deploy_command("0.10") == ["deploy", "--update-aliases", "0.10", "latest"]  # 0.10 is newer than 0.9
    assert deploy_command("0.9") == ["deploy", "--update-aliases", "0.9"]


@pytest.mark.site
def test_mike_deploys_two_versions_into_gh_pages_with_latest_on_the_newest(small_site):
    """Commit a small copy of the project to a fresh repository and run `make deploy` twice: main as dev, then tag
    v0.1."""
    repo = small_site
    env = {
        **os.environ,
        "NO_MKDOCS_2_WARNING": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, *IDENTITY, "commit", "-q", "-m", "copy")
    # A complete test run of this commit in which every claim passed: the deployed ledger must show it.
    commit = git(repo, "rev-parse", "HEAD")
    outcomes = {test_id: "passed" for _, test_id in claim_tests(repo / "tests")}
    (repo / ".cache").mkdir()
    (repo / RESULTS).write_text(
        json.dumps(
            {"commit": commit, "clean": True, "complete": True, "started": "2026-11-30 12:00 UTC", "outcomes": outcomes}
        )
    )

    def deploy(*version):
        result = subprocess.run(
            ["make", "-o", "install", "deploy", *version, f"BIN={Path(sys.executable).parent}"],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stdout + result.stderr

    deploy()
    git(repo, "tag", "v0.1")
    deploy("VERSION=0.1")

    listing = git(repo, "ls-tree", "--name-only", "gh-pages").split()
    assert {"dev", "0.1", "latest", "versions.json", "index.html"} <= set(listing)
    versions = json.loads(git(repo, "show", "gh-pages:versions.json"))
    assert {v["version"]: v["aliases"] for v in versions} == {"0.1": ["latest"], "dev": []}
    assert 'href="latest/"' in git(repo, "show", "gh-pages:index.html")
    for version in ("dev", "0.1"):
        home = git(repo, "show", f"gh-pages:{version}/index.html")
        config = json.loads(re.search(r'id="__config" type="application/json">(.*?)</script>', home, re.S).group(1))
        assert config["version"]["provider"] == "mike", "the header's version selector is not configured"
        ledger = git(repo, "show", f"gh-pages:{version}/ledger/index.html")
        assert f"Statuses from the complete test run of commit <code>{commit[:10]}</code>" in ledger
        assert "statuses are missing" not in ledger
    assert git(repo, "status", "--porcelain") == ""  # mike commits to gh-pages only; the checkout stays clean


def test_make_serve_installs_the_site_lock_and_make_test_adds_the_rest(tmp_path):
    for name in ("Makefile", "requirements.lock", "requirements-test.lock"):
        shutil.copy(REPO / name, tmp_path)
    venv = tmp_path / "venv"

    def installs(target):
        result = subprocess.run(
            ["make", "-n", f"VENV={venv}", target], cwd=tmp_path, capture_output=True, text=True, check=True
        )
        return re.findall(r"uv pip install .*--require-hashes .*-r ([\w.-]+)", result.stdout)

    assert installs("serve")[:1] == ["requirements.lock"] and "requirements-test.lock" not in installs("serve")
    assert installs("test") == ["requirements.lock", "requirements-test.lock"]
    venv.mkdir()
    later = time.time() + 10  # the stamps are newer than the locks
    (venv / ".installed-site").touch()
    os.utime(venv / ".installed-site", (later, later))
    assert installs("test") == ["requirements-test.lock"]  # `make test` after `make serve`: only the rest
    (venv / ".installed-test").touch()
    os.utime(venv / ".installed-test", (later, later))
    assert installs("test") == [] and installs("serve") == []


def test_an_install_from_a_tampered_lock_fails_naming_the_package(tmp_path):
    """The install checks every file against the lock's hashes: with one package's hashes replaced (as if its wheel
    had been substituted), `make install` into a scratch venv fails, naming the package, and installs nothing."""
    for name in ("Makefile", "requirements.lock"):
        shutil.copy(REPO / name, tmp_path)
    lock = tmp_path / "requirements.lock"
    cycler = next(entry for entry in lock_entries(lock.read_text()) if entry.startswith("cycler=="))
    text = lock.read_text()
    for digest in re.findall(r"--hash=sha256:([0-9a-f]{64})", cycler):
        text = text.replace(digest, "0" * 64)
    lock.write_text(text)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    uv = Path(sys.executable).parent / "uv"  # the one `make install` put beside this interpreter
    result = subprocess.run(
        ["make", "install", f"VENV={venv}", f"UV={uv}"], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "cycler==0.12.1" in result.stderr and "hash" in result.stderr.lower(), result.stderr
    assert not (venv / ".installed-site").exists()
    assert not list(venv.glob("lib/python*/site-packages/numpy"))
