"""The verification ledger: what the site claims, what backs each claim, and its status at this commit.

- Claims: tests marked ``@pytest.mark.claim("...")``, found by reading tests/**/test_*.py. Their statuses come only
  from the record tests/conftest.py writes of a complete run (the whole suite) of the very commit the page is built
  from, with no uncommitted change on either side; otherwise no claim shows a status and one sentence says why.
  Each claim names its test (``tests/<file>.py::<function>``), linked to its line under ``extra.repo_blob``.
- Values: what chapters quote as ``{{ chapter.what.value }}``; a snippet's status is the pipeline's answer to
  whether its committed outputs match its sources (``scripts.pipeline.check.freshness``, as `make check`).

Both lists are grouped (claims by test file, values by chapter) into collapsed blocks; a group with a problem
opens by itself. Both editions show the same lists and counts, each in its language (``scripts/words/``); the
Chinese page shows a claim's ``zh="..."`` text, and a marker without one is a warning (the strict build fails).
"""

import ast
import json
import logging
import os
import re
from collections import Counter, defaultdict

from scripts.pipeline.check import freshness
from scripts.pipeline.notebook_markdown import chapter_title
from scripts.pipeline.project import git
from scripts.pipeline.published import values
from scripts.pipeline.references import read_page
from scripts.words import plural, words as words_in

RESULTS = ".cache/test-results.json"  # the last complete run; only tests/conftest.py writes it
PARTIAL = ".cache/test-results-partial.json"  # the run in progress, or the last run that was not complete
REQUIRE = "LEDGER_REQUIRE_STATUSES"  # set by `make publish`: a ledger without statuses is a build warning
log = logging.getLogger("mkdocs.ledger")
STATUSES = ("passed", "failed", "skipped", None)  # in the order a tally lists them
DOCS = {"en": "docs", "zh": "docs-zh"}  # where each edition's pages are, for the chapter titles


def working_tree(root):
    """(commit, clean) of the git checkout at ``root``: HEAD's hash, and whether ``git status --porcelain`` lists
    nothing (ignored paths such as .cache/ and site/ do not count). (None, False) outside a git checkout."""

    head = git(root, "rev-parse", "HEAD")
    if head.returncode != 0:
        return None, False
    status = git(root, "status", "--porcelain")
    return head.stdout.strip(), status.returncode == 0 and status.stdout.strip() == ""


def _claim_texts(decorator):
    """(text, Chinese text or None) of a ``pytest.mark.claim("...", zh="...")`` decorator, or None."""
    if not (isinstance(decorator, ast.Call) and decorator.args and isinstance(decorator.args[0], ast.Constant)):
        return None
    if ast.unparse(decorator.func) not in ("pytest.mark.claim", "mark.claim"):
        return None
    zh = next((k.value.value for k in decorator.keywords if k.arg == "zh" and isinstance(k.value, ast.Constant)), None)
    return decorator.args[0].value, zh


def claim_markers(tests_dir):
    """[(claim, its Chinese text or None, test id, line of the test's ``def``)] for every test function that carries
    a claim marker."""
    found = []
    for path in sorted(tests_dir.rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))  # a broken test file fails loudly
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                for decorator in node.decorator_list:
                    texts = _claim_texts(decorator)
                    if texts:
                        test_id = f"{path.relative_to(tests_dir.parent).as_posix()}::{node.name}"
                        found.append((*texts, test_id, node.lineno))
    return found


def claim_tests(tests_dir):
    """[(claim, test id)] for every test function that carries a claim marker."""
    return [(claim, test_id) for claim, _, test_id, _ in claim_markers(tests_dir)]


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


def trusted_outcomes(root, language="en"):
    """(outcomes, sentence): the outcomes of the complete test run of the commit checked out at ``root`` and a
    sentence in ``language`` that says where they come from; or (None, a sentence that says why no status can be
    shown)."""
    words = words_in(language, "ledger")
    commit, clean = working_tree(root)
    path = root / RESULTS
    run = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    if commit is None:
        return None, words["no_git"]
    if not (run.get("complete") and run.get("commit")):
        return None, words["no_run"]
    if run["commit"] != commit:
        return None, words["other_commit"].format(run=_short(run["commit"]), commit=_short(commit))
    if not run.get("clean"):
        return None, words["run_dirty"].format(commit=_short(commit))
    if not clean:
        return None, words["page_dirty"].format(commit=_short(commit))
    return run["outcomes"], words["from_run"].format(commit=_short(commit), started=run["started"])


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


def _tally(statuses, language="en"):
    """'3 verified, 1 failed' (in ``language``) for a list of statuses."""
    words = words_in(language, "ledger")
    counts = Counter(statuses)
    return words["list"].join(
        words["count"].format(count=counts[s], label=_status(words, s).split(" ", 1)[1]) for s in STATUSES if counts[s]
    )


def _status(words, status):
    """A status (passed, failed, skipped or None) as the ledger writes it: its mark and its name."""
    return words["status"][status or "none"]


def _test_link(test_id, line, repo_blob, commit):
    """The test's name as a code span; with ``repo_blob``, a link to the line of its ``def`` at ``commit``."""
    span = f"`{test_id}`"
    if not repo_blob:
        return span
    base = repo_blob.replace("{commit}", commit or "HEAD").rstrip("/")
    return f"[{span}]({base}/{test_id.split('::')[0]}#L{line})"


def _claim_in(language, claim, claim_zh, test_id):
    """The claim as the page in ``language`` shows it: the marker's Chinese text on the Chinese page. A marker
    without one is a warning (so a strict build fails), naming the test; the page then shows its English."""
    if language != "zh":
        return claim
    if not claim_zh:
        log.warning(f'ledger: the claim marker of {test_id} has no Chinese wording: give it zh="..."')
    return claim_zh or claim


def claims_table(project, repo_blob=None, language="en"):
    """The claims section of the ledger in ``language``: one sentence about the test run, then one block per test
    file, each claim followed by the test that backs it (linked to its source under ``repo_blob`` when given)."""
    words = words_in(language, "ledger")
    outcomes, sentence = trusted_outcomes(project.root, language)
    if outcomes is None and os.environ.get(REQUIRE):
        log.warning(f"ledger: {sentence} ({REQUIRE} is set: a published ledger must show every claim's status)")
    claims = claim_markers(project.root / "tests")
    commit = working_tree(project.root)[0] if repo_blob else None
    by_file = defaultdict(list)
    for claim, claim_zh, test_id, line in claims:
        status = claim_status(test_id, outcomes) if outcomes is not None else None
        shown = _claim_in(language, claim, claim_zh, test_id)
        by_file[test_id.split("::")[0]].append((shown, _test_link(test_id, line, repo_blob, commit), status))
    if outcomes is not None:
        tally = _tally((status for rows in by_file.values() for *_, status in rows), language)
        sentence = words["tallied"].format(sentence=sentence, tally=tally)
    lines = [words["claims_head"].format(claims=len(claims), files=len(by_file), sentence=sentence.rstrip(".。")), ""]
    for test_file, rows in by_file.items():
        claims_in_file = plural(words["claims"], len(rows))
        title = words["file_title"].format(test_file=test_file.removeprefix("tests/"), claims=claims_in_file)
        items = [words["backed_by"].format(claim=_escape(claim), test=test) for claim, test, _ in rows]
        if outcomes is None:
            lines += _group("??? note", title, items)
            continue
        statuses = [status for *_, status in rows]
        if set(statuses) == {"passed"}:
            title, marker = title + words["all_verified"], "??? success"
        else:  # open: a failure, or a test that was skipped or has no outcome
            marker = "???+ warning" if set(statuses) <= {"passed", "skipped"} else "???+ failure"
            title += words["title_tally"].format(tally=_tally(statuses, language))
        lines += _group(marker, title, [f"{_status(words, status)}: {item}" for status, item in zip(statuses, items)])
    return "\n".join(lines) + "\n"


def _value_text(entry, language):
    """A published value as the page in ``language`` quotes it: a text value's Chinese, where the snippet gave one."""
    return entry.get("zh", entry["text"]) if language == "zh" else entry["text"]


def values_table(project, language="en"):
    """The quoted-values section of the ledger in ``language``: one block per chapter, one line per snippet it
    quotes from."""
    words = words_in(language, "ledger")
    fresh = freshness(project)
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
                status = words["missing"] + words["list"].join(f"`{name}`" for name in missing or names)
            else:
                status = words["fresh"] if fresh[snippet] else words["stale"]
            bad += status.startswith("❌")
            shown = " · ".join(
                f"`{name}` = {_escape(_value_text(published[name], language))}" for name in names if name in published
            )
            item = words["snippet_item"].format(snippet=snippet, status=status)
            items.append(item + (words["shown"].format(shown=shown) if shown else ""))
        problems += bad
        count = sum(len(names) for names in snippets.values())
        page_text = (project.root / DOCS[language] / page).read_text(encoding="utf-8")
        heading = re.sub(r"\s*\{#[\w-]+\}$", "", chapter_title(page_text, page.removesuffix(".md")))  # no {#id}
        title = words["chapter_title"].format(
            heading=heading,
            page=page,
            values=plural(words["values"], count),
            snippets=plural(words["snippets"], len(snippets)),
        )
        title += words["with_problems"].format(bad=bad) if bad else words["all_match"]
        opened = words["open_chapter"].format(page=page)
        lines += _group("???+ failure" if bad else "??? success", title, [opened, *items])
    verdict = (
        words["problems"].format(snippets=plural(words["snippets"], problems)) if problems else words["no_problem"]
    )
    head = words["values_head"].format(quotes=len(quotes), pages=len(by_page), verdict=verdict)
    return "\n".join([head, "", *lines]) + "\n"
