"""The verification ledger: what the site claims, what backs each claim, and its status in this build.

Two kinds of backing, both found in the code, never listed by hand:
- tests marked ``@pytest.mark.claim("...")`` (found by reading tests/*.py); their status comes from the
  results file that tests/conftest.py writes during the last ``pytest`` run;
- values that chapters quote as ``{{ snippet.value }}``; their status says whether the snippet's committed
  outputs match its current sources (the same cache key ``make check`` uses).
"""

import ast
import json
from collections import Counter

from scripts.pipeline.build import plan
from scripts.pipeline.published import references, values

RESULTS = ".cache/test-results.json"
STATUS = {"passed": "✅ verified", "failed": "❌ failed", "skipped": "⏭ skipped"}


def _claim_text(decorator):
    """The text of a ``pytest.mark.claim("...")`` decorator, or None."""
    if not (isinstance(decorator, ast.Call) and decorator.args and isinstance(decorator.args[0], ast.Constant)):
        return None
    name = ast.unparse(decorator.func)
    return decorator.args[0].value if name in ("pytest.mark.claim", "mark.claim") else None


def test_claims(tests_dir):
    """[(claim, test id)] for every test function that carries a claim marker."""
    found = []
    for path in sorted(tests_dir.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))  # a broken test file fails loudly
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                for decorator in node.decorator_list:
                    text = _claim_text(decorator)
                    if text:
                        found.append((text, f"tests/{path.name}::{node.name}"))
    return found


def test_status(test_id, results):
    """Outcome of a test (all of its parametrized cases) in the last run, or 'not run'."""
    outcomes = [outcome for node, outcome in results.items() if node == test_id or node.startswith(test_id + "[")]
    if not outcomes:
        return "not run in this build"
    for worst in ("failed", "skipped"):
        if worst in outcomes:
            return STATUS[worst]
    return STATUS["passed"]


def quoted_values(project):
    """[(page, snippet, value name)] for every value a chapter quotes."""
    quotes = []
    for page in sorted(project.docs.glob("*.md")):
        for snippet, name in references(page.read_text(encoding="utf-8")):
            quotes.append((page.name, snippet, name))
    return quotes


def _escape(text):
    return text.replace("|", r"\|").replace("{{", "{ {")


def claims_table(project):
    path = project.root / RESULTS
    run = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"started": None, "outcomes": {}}
    results = run["outcomes"]
    when = f"the test run started {run['started']}" if run["started"] else "no test run yet on this machine"
    claims = [(claim, test_id, test_status(test_id, results)) for claim, test_id in test_claims(project.root / "tests")]
    tally = Counter(status for _, _, status in claims)
    summary = ", ".join(f"{count} {status}" for status, count in sorted(tally.items()))
    rows = [f"{len(claims)} claims; statuses from {when}: {summary}.\n", "| claim | backed by | status |", "| :--- | :--- | :--- |"]
    rows += [f"| {_escape(claim)} | `{test_id}` | {status} |" for claim, test_id, status in claims]
    return "\n".join(rows) + "\n"


def values_table(project):
    fresh = {p.name: not p.stale for p in plan(project)}
    quotes = quoted_values(project)
    rows = [f"{len(quotes)} quoted values.\n", "| page | quotes | from | status |", "| :--- | :--- | :--- | :--- |"]
    for page, snippet, name in quotes:
        published = values(snippet, project)
        if name not in published or snippet not in fresh:
            status = "❌ missing"
        else:
            status = "✅ matches its sources" if fresh[snippet] else "❌ stale"
        text = _escape(published[name]["text"]) if name in published else "—"
        rows.append(f"| [{page}]({page}) | `{snippet}.{name}` = {text} | `snippets/{snippet}.py` | {status} |")
    return "\n".join(rows) + "\n"

