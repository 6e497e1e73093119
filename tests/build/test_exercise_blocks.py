"""The exercises as the build reads them (scripts/exercises.py): in both editions every exercise block parses, its
answer and usual mistakes are values its chapter's exercises snippet published, with one feedback per mistake; the
two editions ask the same exercises; a solution quotes its answer instead of typing it; and what is missing or does
not match is a warning (the strict build fails on it), shown here on a planted project."""

import json

import pytest

from scripts.exercises import check_data, exercises, with_check_data
from scripts.pipeline.project import Project
from support import DOCS, DOCS_ZH, PROJECT, nonempty_glob

PAGES = nonempty_glob(DOCS, "*.md")


def blocks(folder, stem):
    page = folder / f"{stem}.md"
    return exercises(page.read_text(encoding="utf-8")) if page.exists() else []


@pytest.mark.parametrize("stem", [page.stem for page in PAGES])
def test_both_editions_ask_the_same_exercises_with_published_answers(stem):
    english, chinese = blocks(DOCS, stem), blocks(DOCS_ZH, stem)
    assert [(b.reference, sorted(b.feedback)) for b in chinese] == [(b.reference, sorted(b.feedback)) for b in english]
    for block in english + chinese:
        data = check_data(block, PROJECT)  # raises when the answer is not published or the feedback differs
        assert block.snippet == f"{stem.replace('-', '_')}/exercises", "a chapter's exercises come from its snippet"
        assert block.question and block.hint and block.solution and all(block.feedback.values())
        assert "{{ " + block.reference + " }}" in block.solution, f"{block.reference}: the solution types its answer"
        assert data["mistakes"], f"{block.reference} names no usual mistake"


def test_chapters_with_exercises_have_at_least_three():
    for page in PAGES:
        count = len(blocks(DOCS, page.stem))
        assert count == 0 or count >= 3, f"{page.name} has {count} exercises"


BLOCK = """<div class="exercise" data-exercise="ch.exercises.top" markdown>

**Exercise 1.** What is it?

<div class="exercise-hint" markdown>

**Hint.** Look.

</div>

<div class="exercise-mistake" data-mistake="{mistake}" markdown>

Not that.

</div>

<details class="exercise-solution" markdown>
<summary>Solution</summary>

It is {{{{ ch.exercises.top }}}}.

</details>

</div>
"""


def planted(tmp_path, published):
    folder = tmp_path / "docs" / "generated" / "ch" / "exercises"
    folder.mkdir(parents=True)
    (folder / "values.json").write_text(json.dumps(published), encoding="utf-8")
    return Project(root=tmp_path)


def test_the_page_gets_the_answer_and_mistakes_as_data(tmp_path):
    project = planted(tmp_path, {"top": {"value": 0.4162, "text": "0.42"}, "top__sum": {"value": 0.5, "text": "0.50"}})
    problems = []
    page = with_check_data(BLOCK.format(mistake="sum"), project, {"answer": "A"}, problems.append)
    assert problems == []
    assert 'data-check="{&quot;answer&quot;: 0.4162, &quot;text&quot;: &quot;0.42&quot;, &quot;mistakes&quot;: ' in page
    assert "{&quot;sum&quot;: 0.5}}" in page and 'data-words="{&quot;answer&quot;: &quot;A&quot;}"' in page
    assert '<div class="exercise-mistake" data-search-exclude data-mistake="sum" markdown>' in page  # shown as verdict
    assert '<details class="exercise-solution" data-search-exclude markdown>' in page  # shown when asked for


@pytest.mark.parametrize(
    ("published", "mistake", "problem"),
    [
        ({}, "sum", "publishes no answer 'top'"),  # the answer typed into the page, or a renamed value
        ({"top": {"value": 0.4, "text": "0.40"}}, "sum", "one feedback per published mistake"),
        (
            {"top": {"value": 0.4, "text": "0.40"}, "top__sum": {"value": 0.5, "text": "0.50"}},
            "other",
            "feedback for ['other'], but snippets/ch/exercises.py publishes the mistakes ['sum']",
        ),
    ],
)
def test_a_missing_answer_or_unmatched_feedback_is_a_warning(tmp_path, published, mistake, problem):
    problems = []
    page = BLOCK.format(mistake=mistake)
    assert with_check_data(page, planted(tmp_path, published), {}, problems.append) == page
    assert len(problems) == 1 and problem in problems[0]


def test_a_block_without_hint_is_a_warning(tmp_path):
    problems = []
    page = BLOCK.format(mistake="sum").replace('class="exercise-hint"', 'class="note"')
    assert with_check_data(page, planted(tmp_path, {}), {}, problems.append) == page
    assert problems == ["exercise ch.exercises.top needs an exercise-hint block and a solution"]
