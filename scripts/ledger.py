"""The verification ledger: what the site claims, what backs each claim, and its status at this commit.

- Claims: tests marked ``@pytest.mark.claim("...")``, found by reading tests/**/test_*.py. Their statuses come only
  from the record tests/conftest.py writes of a complete run (the whole suite) of the very commit the page is built
  from, with no uncommitted change on either side; otherwise no claim shows a status and one sentence says why.
  Each claim names its test (``tests/<file>.py::<function>``), linked to its line under ``extra.repo_blob``.
- Values: what chapters quote as ``{{ chapter.what.value }}``; a snippet's status is the pipeline's answer to
  whether its committed outputs match its sources (``scripts.pipeline.check.freshness``, as `make check`).

Both lists are grouped (claims by test file, values by chapter) into collapsed blocks; a group with a problem
opens by itself. Both editions show the same lists and counts, each in its language (``WORDS``); the Chinese page
shows a claim's ``zh="..."`` text, and a marker without one is a warning (the strict build fails).
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

RESULTS = ".cache/test-results.json"  # the last complete run; only tests/conftest.py writes it
PARTIAL = ".cache/test-results-partial.json"  # the run in progress, or the last run that was not complete
REQUIRE = "LEDGER_REQUIRE_STATUSES"  # set by `make publish`: a ledger without statuses is a build warning
log = logging.getLogger("mkdocs.ledger")
STATUS = {"passed": "✅ verified", "failed": "❌ failed", "skipped": "⏭ skipped", None: "❔ no outcome recorded"}
# What the ledger says, in each edition's language; every count and commit is filled in from the same data.
WORDS = {
    "en": {
        "status": STATUS,
        "count": lambda count, label: f"{count} {label}",
        "list": ", ",
        "no_git": "This page was not built from a git checkout, so no test run can be tied to it and no claim shows a "
                  "status.",
        "no_run": "No complete test run is recorded where this page was built, so the claims show no status; "
                  "`make test` runs the whole suite and records one.",
        "other_commit": "The statuses are missing: the last complete test run was of commit `{run}`, and its "
                        "outcomes do not belong to this page's commit `{commit}`.",
        "run_dirty": "The statuses are missing: the last complete test run of commit `{commit}` ran with "
                     "uncommitted changes, so its outcomes belong to no commit.",
        "page_dirty": "The statuses are missing: this page was built from commit `{commit}` with uncommitted "
                      "changes, which its test run did not see.",
        "from_run": "Statuses from the complete test run of commit `{commit}`, started {started}",
        "tallied": "{sentence}: {tally}",
        "claims_head": lambda claims, files, sentence: f"{claims} claims in {files} test files. {sentence.rstrip('.')}.",
        "file_title": lambda test_file, count: f"{test_file}: {_plural(count, 'claim')}",
        "all_verified": ", all verified",
        "title_tally": ", {tally}",
        "backed_by": "{claim} — backed by {test}",
        "missing": "❌ missing ",
        "fresh": "✅ matches its sources",
        "stale": "❌ stale (`make outputs` reruns it)",
        "snippet_item": "`snippets/{snippet}.py` {status}",
        "shown": ": {shown}",
        "chapter_title": lambda heading, page, values, snippets: f"{heading} ({page}): {_plural(values, 'value')} "
                                                                 f"from {_plural(snippets, 'snippet')}",
        "with_problems": ", {bad} with a problem",
        "all_match": ", all match their sources",
        "open_chapter": "[Open the chapter]({page})",
        "problems": lambda count: f"{_plural(count, 'snippet')} with a problem",
        "no_problem": "every one matches its snippet's sources",
        "values_head": lambda quotes, pages, verdict: f"{quotes} quoted values on {pages} pages; {verdict}.",
    },
    "zh": {
        "status": {"passed": "✅ 已验证", "failed": "❌ 失败", "skipped": "⏭ 已跳过", None: "❔ 未记录结果"},
        "count": lambda count, label: f"{count} 个{label}",
        "list": "，",
        "no_git": "本页不是从 git 检出构建的，因此任何一次测试运行都无法与它对应，所有论断都不显示状态。",
        "no_run": "构建本页的地方没有记录完整的测试运行，因此论断不显示状态；`make test` 会运行整个测试套件并记录一次。",
        "other_commit": "状态缺失：最近一次完整的测试运行针对的是提交 `{run}`，它的结果不属于本页的提交 `{commit}`。",
        "run_dirty": "状态缺失：提交 `{commit}` 最近一次完整的测试运行带有未提交的改动，因此它的结果不属于任何提交。",
        "page_dirty": "状态缺失：本页构建自提交 `{commit}`，但带有未提交的改动，它的测试运行没有见过这些改动。",
        "from_run": "状态来自提交 `{commit}` 的完整测试运行，开始于 {started}",
        "tallied": "{sentence}：{tally}",
        "claims_head": lambda claims, files, sentence: f"{claims} 条论断，分布在 {files} 个测试文件中。"
                                                       f"{sentence.rstrip('。')}。",
        "file_title": lambda test_file, count: f"{test_file}：{count} 条论断",
        "all_verified": "，全部已验证",
        "title_tally": "，{tally}",
        "backed_by": "{claim}——由 {test} 支撑",
        "missing": "❌ 缺少 ",
        "fresh": "✅ 与源码一致",
        "stale": "❌ 已过期（`make outputs` 会重新运行它）",
        "snippet_item": "`snippets/{snippet}.py` {status}",
        "shown": "：{shown}",
        "chapter_title": lambda heading, page, values, snippets: f"{heading}（{page}）：来自 {snippets} 个代码片段的 "
                                                                 f"{values} 个值",
        "with_problems": "，{bad} 个有问题",
        "all_match": "，全部与源码一致",
        "open_chapter": "[打开本章]({page})",
        "problems": lambda count: f"{count} 个代码片段有问题",
        "no_problem": "每一个都与其代码片段的源码一致",
        "values_head": lambda quotes, pages, verdict: f"{pages} 个页面共引用 {quotes} 个值；{verdict}。",
    },
}
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
    words = WORDS[language]
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


def _plural(count, noun):
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _tally(statuses, language="en"):
    """'3 verified, 1 failed' (in ``language``) for a list of statuses."""
    words = WORDS[language]
    counts = Counter(statuses)
    labels = {s: text.split(" ", 1)[1] for s, text in words["status"].items()}
    return words["list"].join(words["count"](counts[s], labels[s]) for s in STATUS if counts[s])


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
        log.warning(f"ledger: the claim marker of {test_id} has no Chinese wording: give it zh=\"...\"")
    return claim_zh or claim


def claims_table(project, repo_blob=None, language="en"):
    """The claims section of the ledger in ``language``: one sentence about the test run, then one block per test
    file, each claim followed by the test that backs it (linked to its source under ``repo_blob`` when given)."""
    words = WORDS[language]
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
    lines = [words["claims_head"](len(claims), len(by_file), sentence), ""]
    for test_file, rows in by_file.items():
        title = words["file_title"](test_file.removeprefix("tests/"), len(rows))
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
        status_text = words["status"]
        lines += _group(marker, title, [f"{status_text[status]}: {item}" for status, item in zip(statuses, items)])
    return "\n".join(lines) + "\n"


def _value_text(entry, language):
    """A published value as the page in ``language`` quotes it: a text value's Chinese, where the snippet gave one."""
    return entry.get("zh", entry["text"]) if language == "zh" else entry["text"]


def values_table(project, language="en"):
    """The quoted-values section of the ledger in ``language``: one block per chapter, one line per snippet it
    quotes from."""
    words = WORDS[language]
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
            shown = " · ".join(f"`{name}` = {_escape(_value_text(published[name], language))}"
                               for name in names if name in published)
            item = words["snippet_item"].format(snippet=snippet, status=status)
            items.append(item + (words["shown"].format(shown=shown) if shown else ""))
        problems += bad
        count = sum(len(names) for names in snippets.values())
        page_text = (project.root / DOCS[language] / page).read_text(encoding="utf-8")
        heading = re.sub(r"\s*\{#[\w-]+\}$", "", chapter_title(page_text, page.removesuffix(".md")))  # no {#id}
        title = words["chapter_title"](heading, page, count, len(snippets))
        title += words["with_problems"].format(bad=bad) if bad else words["all_match"]
        opened = words["open_chapter"].format(page=page)
        lines += _group("???+ failure" if bad else "??? success", title, [opened, *items])
    verdict = words["problems"](problems) if problems else words["no_problem"]
    return "\n".join([words["values_head"](len(quotes), len(by_page), verdict), "", *lines]) + "\n"
