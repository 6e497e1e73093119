"""The verification ledger: what the site claims, what backs each claim, and its status at this commit.

Two kinds of backing, both found in the code, never listed by hand:
- tests marked ``@pytest.mark.claim("...")`` (found by reading tests/**/test_*.py); their status comes from the record
  that tests/conftest.py writes, and only from a complete run (the whole suite, nothing selected away) of the
  very commit the page is built from, with no uncommitted change on either side. Anything else leaves the
  claims without a status and says why in one sentence;
- values that chapters quote as ``{{ chapter.what.value }}``; their status says whether the snippet's committed
  outputs match its current sources (the same cache key ``make check`` uses). The keys are computed once for the
  sources as they are (``snippet_freshness``) and kept in .cache/, so the two editions' builds and every rebuild of
  `mkdocs serve` that changed nothing reuse them instead of computing them again.

Each claim names the test that backs it (``tests/<file>.py::<function>``) so a reader can judge the pairing; with
``repo_blob`` (mkdocs.yml's ``extra.repo_blob``, as in scripts/provenance.py) the name links that test's source
line. Both lists are grouped (claims by test file, values by chapter) into collapsed blocks; a group with a
failure opens by itself.
"""

import ast
import fcntl
import hashlib
import json
import logging
import os
import re
from collections import Counter, defaultdict

from scripts.pipeline.build import plan
from scripts.pipeline.notebooks import chapter_title
from scripts.pipeline.project import git
from scripts.pipeline.keys import builder_version, library_versions
from scripts.pipeline.published import values
from scripts.pipeline.references import read_page

RESULTS = ".cache/test-results.json"  # the last complete run; only tests/conftest.py writes it
PARTIAL = ".cache/test-results-partial.json"  # the run in progress, or the last run that was not complete
FRESHNESS = ".cache/ledger-freshness.json"  # each snippet's status, with the fingerprint of what it was computed from
REQUIRE = "LEDGER_REQUIRE_STATUSES"  # set by `make publish`: a ledger without statuses is a build warning
log = logging.getLogger("mkdocs.ledger")
STATUS = {"passed": "✅ verified", "failed": "❌ failed", "skipped": "⏭ skipped", None: "❔ no outcome recorded"}


def working_tree(root):
    """(commit, clean) of the git checkout at ``root``: HEAD's hash, and whether ``git status --porcelain`` lists
    nothing (ignored paths such as .cache/ and site/ do not count). (None, False) outside a git checkout."""

    head = git(root, "rev-parse", "HEAD")
    if head.returncode != 0:
        return None, False
    status = git(root, "status", "--porcelain")
    return head.stdout.strip(), status.returncode == 0 and status.stdout.strip() == ""


def _claim_text(decorator):
    """The text of a ``pytest.mark.claim("...")`` decorator, or None."""
    if not (isinstance(decorator, ast.Call) and decorator.args and isinstance(decorator.args[0], ast.Constant)):
        return None
    name = ast.unparse(decorator.func)
    return decorator.args[0].value if name in ("pytest.mark.claim", "mark.claim") else None


def claim_markers(tests_dir):
    """[(claim, test id, line of the test's ``def``)] for every test function that carries a claim marker."""
    found = []
    for path in sorted(tests_dir.rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))  # a broken test file fails loudly
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                for decorator in node.decorator_list:
                    text = _claim_text(decorator)
                    if text:
                        found.append((text, f"{path.relative_to(tests_dir.parent).as_posix()}::{node.name}", node.lineno))
    return found


def claim_tests(tests_dir):
    """[(claim, test id)] for every test function that carries a claim marker."""
    return [(claim, test_id) for claim, test_id, _ in claim_markers(tests_dir)]


def claim_status(test_id, outcomes):
    """'passed', 'failed' or 'skipped' for a test (all of its parametrized cases, or the module or class that
    was skipped as a whole), or None when the run recorded nothing for it."""
    recorded = [
        outcome
        for node, outcome in outcomes.items()
        if node == test_id or node.startswith(test_id + "[") or test_id.startswith(node + "::")
    ]
    for worst in ("failed", "skipped", "passed"):
        if worst in recorded:
            return worst
    return None


def _short(commit):
    return commit[:10]


def trusted_outcomes(root):
    """(outcomes, sentence): the outcomes of the complete test run of the commit checked out at ``root`` and a
    sentence that says where they come from; or (None, a sentence that says why no status can be shown)."""
    commit, clean = working_tree(root)
    path = root / RESULTS
    run = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    if commit is None:
        return None, "This page was not built from a git checkout, so no test run can be tied to it and no claim shows a status."
    if not (run.get("complete") and run.get("commit")):
        return None, (
            "No complete test run is recorded where this page was built, so the claims show no status; "
            "`make test` runs the whole suite and records one."
        )
    if run["commit"] != commit:
        return None, (
            f"The statuses are missing: the last complete test run was of commit `{_short(run['commit'])}`, "
            f"and its outcomes do not belong to this page's commit `{_short(commit)}`."
        )
    if not run.get("clean"):
        return None, (
            f"The statuses are missing: the last complete test run of commit `{_short(commit)}` ran with "
            "uncommitted changes, so its outcomes belong to no commit."
        )
    if not clean:
        return None, (
            f"The statuses are missing: this page was built from commit `{_short(commit)}` with uncommitted "
            "changes, which its test run did not see."
        )
    return run["outcomes"], f"Statuses from the complete test run of commit `{_short(commit)}`, started {run['started']}"


def quoted_values(project):
    """[(page, snippet, value name)] for every value a chapter quotes."""
    quotes = []
    for page in sorted(project.docs.glob("*.md")):
        for snippet, name in read_page(page.read_text(encoding="utf-8")).values:
            quotes.append((page.name, snippet, name))
    return quotes


def _escape(text):
    """Text as Markdown shows it literally: no ``{{`` for the value hook, and outside code spans no ``<`` or ``&``
    that would start an HTML tag or entity (``snippets/<chapter>/<what>.py`` would lose its ``<chapter>``)."""
    parts = re.split(r"(`[^`]*`)", text.replace("{{", "{ {"))
    return "".join(part if n % 2 else part.replace("&", "&amp;").replace("<", "&lt;") for n, part in enumerate(parts))


def _group(marker, title, lines):
    """A block (``???`` collapsed, ``???+`` open) of the given admonition type, holding a Markdown list."""
    title = title.replace('"', "'")
    return [f'{marker} "{title}"', "", *(f"    - {line}" for line in lines), ""]


def _plural(count, noun):
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _tally(statuses):
    """'3 verified, 1 failed' for a list of statuses."""
    counts = Counter(statuses)
    return ", ".join(f"{counts[s]} {STATUS[s].split(' ', 1)[1]}" for s in STATUS if counts[s])


def _test_link(test_id, line, repo_blob, commit):
    """The test's name as a code span; with ``repo_blob``, a link to the line of its ``def`` at ``commit``."""
    span = f"`{test_id}`"
    if not repo_blob:
        return span
    base = repo_blob.replace("{commit}", commit or "HEAD").rstrip("/")
    return f"[{span}]({base}/{test_id.split('::')[0]}#L{line})"


def claims_table(project, repo_blob=None):
    """The claims section of the ledger: one sentence about the test run, then one block per test file, each claim
    followed by the test that backs it (linked to its source under ``repo_blob`` when given)."""
    outcomes, sentence = trusted_outcomes(project.root)
    if outcomes is None and os.environ.get(REQUIRE):
        log.warning(f"ledger: {sentence} ({REQUIRE} is set: a published ledger must show every claim's status)")
    claims = claim_markers(project.root / "tests")
    commit = working_tree(project.root)[0] if repo_blob else None
    by_file = defaultdict(list)
    for claim, test_id, line in claims:
        status = claim_status(test_id, outcomes) if outcomes is not None else None
        by_file[test_id.split("::")[0]].append((claim, _test_link(test_id, line, repo_blob, commit), status))
    if outcomes is not None:
        sentence += ": " + _tally(status for rows in by_file.values() for *_, status in rows)
    lines = [f"{len(claims)} claims in {len(by_file)} test files. {sentence.rstrip('.')}.", ""]
    for test_file, rows in by_file.items():
        title = f"{test_file.removeprefix('tests/')}: {_plural(len(rows), 'claim')}"
        items = [f"{_escape(claim)} — backed by {test}" for claim, test, _ in rows]
        if outcomes is None:
            lines += _group("??? note", title, items)
            continue
        statuses = [status for *_, status in rows]
        if set(statuses) == {"passed"}:
            title, marker = title + ", all verified", "??? success"
        else:  # open: a failure, or a test that was skipped or has no outcome
            marker = "???+ warning" if set(statuses) <= {"passed", "skipped"} else "???+ failure"
            title += f", {_tally(statuses)}"
        lines += _group(marker, title, [f"{STATUS[status]}: {item}" for status, item in zip(statuses, items)])
    return "\n".join(lines) + "\n"


def _fingerprint(project):
    """A hash of everything ``plan`` reads to decide whether a snippet is fresh: every file under snippets/ and
    under the generated folder (the manifests and the output files they list), the builder's version and the
    library versions. Reading the files is cheap; parsing their imports, as ``plan`` does, is not."""
    h = hashlib.sha256()
    h.update(json.dumps([str(project.generated), builder_version(), library_versions()]).encode())
    for folder in (project.snippets, project.generated):
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            h.update(f"\0{path.relative_to(project.root).as_posix()}\0".encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def snippet_freshness(project):
    """{snippet: whether its committed outputs match its current sources}, by ``make check``'s cache key.

    Computed by ``plan`` once for a given state of the sources and outputs, then read from .cache/ while their
    fingerprint is unchanged: the two editions, built in two processes at once, compute it once between them (a
    lock makes the second wait for the first), and a rebuild that changed nothing computes nothing. Any change to a
    snippet, a library module, an output, the builder or a library version changes the fingerprint, so a status
    is never read from a record of other sources."""
    record = project.root / FRESHNESS
    record.parent.mkdir(parents=True, exist_ok=True)
    with open(record.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        fingerprint = _fingerprint(project)
        try:
            saved = json.loads(record.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            saved = {}
        if saved.get("fingerprint") == fingerprint:
            return saved["fresh"]
        fresh = {p.name: not p.stale for p in plan(project)}
        partial = record.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps({"fingerprint": fingerprint, "fresh": fresh}), encoding="utf-8")
        os.replace(partial, record)
        return fresh


def values_table(project):
    """The quoted-values section of the ledger: one block per chapter, one line per snippet it quotes from."""
    fresh = snippet_freshness(project)
    quotes = quoted_values(project)
    by_page = defaultdict(lambda: defaultdict(list))
    for page, snippet, name in quotes:
        by_page[page][snippet].append(name)
    problems = 0
    lines = []
    for page, snippets in by_page.items():
        items, bad = [], 0
        for snippet, names in snippets.items():
            published = values(snippet, project)
            missing = [name for name in names if name not in published]
            if snippet not in fresh or missing:
                status = "❌ missing " + ", ".join(f"`{name}`" for name in missing or names)
            else:
                status = "✅ matches its sources" if fresh[snippet] else "❌ stale (`make outputs` reruns it)"
            bad += status.startswith("❌")
            shown = " · ".join(f"`{name}` = {_escape(published[name]['text'])}" for name in names if name in published)
            items.append(f"`snippets/{snippet}.py` {status}" + (f": {shown}" if shown else ""))
        problems += bad
        count = sum(len(names) for names in snippets.values())
        heading = chapter_title((project.docs / page).read_text(encoding="utf-8"), page.removesuffix(".md"))
        title = f"{heading} ({page}): {_plural(count, 'value')} from {_plural(len(snippets), 'snippet')}"
        title += f", {bad} with a problem" if bad else ", all match their sources"
        lines += _group("???+ failure" if bad else "??? success", title, [f"[Open the chapter]({page})", *items])
    verdict = f"{_plural(problems, 'snippet')} with a problem" if problems else "every one matches its snippet's sources"
    return "\n".join([f"{len(quotes)} quoted values on {len(by_page)} pages; {verdict}.", "", *lines]) + "\n"
