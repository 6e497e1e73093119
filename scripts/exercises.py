"""A chapter's exercises (README "Exercises"): the blocks its page writes, the data the build gives each one, and
what its notebook shows of them.

A page ends with its exercises, each written in both editions as::

    <div class="exercise" data-exercise="<chapter>.exercises.<name>" markdown>
    The question.
    <div class="exercise-hint" markdown> The hint. </div>
    <div class="exercise-mistake" data-mistake="<mistake>" markdown> Its feedback. </div>   (one per mistake)
    <details class="exercise-solution" markdown><summary>Solution</summary> The worked solution. </details>
    </div>

The answer and each usual mistake's result are the values snippets/<chapter>/exercises.py published with
``lib.exercises.exercise``: ``<name>`` and ``<name>__<mistake>``. The build writes them into the element as JSON
(``data-check``) with the edition's interface words (``data-words``), which ``exercises.js`` reads; the feedback
blocks and the solutions stay out of the search index (they show only as a verdict, or when asked for). A missing
answer, a feedback for a mistake the snippet does not publish or a published mistake without feedback is a
warning, so the strict build fails.
"""

import html
import json
import pprint
import re
from dataclasses import dataclass

from scripts.pipeline.published import values
from scripts.pipeline.references import snippet_of

EXERCISE = re.compile(  # (chapter, what, name, the block's inside)
    r'^<div class="exercise" data-exercise="([a-z0-9_]+)\.([a-z0-9_]+)\.([a-z0-9_]+)" markdown>[ \t]*\n'
    r"(.*?^</details>)[ \t]*\n\s*^</div>[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
HINT = re.compile(r'^<div class="exercise-hint" markdown>[ \t]*\n(.*?)^</div>[ \t]*$', re.MULTILINE | re.DOTALL)
MISTAKE = re.compile(
    r'^<div class="exercise-mistake" data-mistake="([a-z0-9_]+)" markdown>[ \t]*\n(.*?)^</div>[ \t]*$',
    re.MULTILINE | re.DOTALL,
)
SOLUTION = re.compile(
    r'^<details class="exercise-solution" markdown>[ \t]*\n<summary>(.*?)</summary>[ \t]*\n(.*?)^</details>',
    re.MULTILINE | re.DOTALL,
)
MISTAKE_SEPARATOR = "__"  # lib.exercises: the value <name>__<mistake> is a mistake's result


@dataclass(frozen=True)
class Exercise:
    """One exercise block of a page, its parts as Markdown."""

    snippet: str  # <chapter>/<what> that publishes its answer
    name: str
    question: str
    hint: str
    feedback: dict  # {mistake: its feedback}
    summary: str  # the solution's <summary> text
    solution: str
    span: tuple  # where the block is in the page's Markdown

    @property
    def reference(self):
        return f"{self.snippet.replace('/', '.')}.{self.name}"


def exercises(markdown):
    """Every exercise block of a page's Markdown, in order; ValueError naming one that lacks a hint or solution."""
    found = []
    for match in EXERCISE.finditer(markdown):
        chapter, what, name, inside = match.groups()
        hint, solution = HINT.search(inside), SOLUTION.search(inside)
        if not hint or not solution:
            raise ValueError(f"exercise {chapter}.{what}.{name} needs an exercise-hint block and a solution")
        question = inside[: min(hint.start(), *(m.start() for m in MISTAKE.finditer(inside)))]
        found.append(
            Exercise(
                snippet=snippet_of(chapter, what),
                name=name,
                question=question.strip(),
                hint=hint.group(1).strip(),
                feedback={m.group(1): m.group(2).strip() for m in MISTAKE.finditer(inside)},
                summary=solution.group(1).strip(),
                solution=solution.group(2).strip(),
                span=match.span(),
            )
        )
    return found


def check_data(exercise, project):
    """What the page and the notebook check a reply against: {"answer", "text" (the answer as published, whose
    decimals are the ones asked), "mistakes": {mistake: its result}}. KeyError when the snippet did not publish
    the answer; ValueError when the feedback and the published mistakes differ."""
    published = values(exercise.snippet, project)
    if exercise.name not in published:
        raise KeyError(f"snippets/{exercise.snippet}.py publishes no answer {exercise.name!r}")
    prefix = exercise.name + MISTAKE_SEPARATOR
    mistakes = {key[len(prefix) :]: record["value"] for key, record in published.items() if key.startswith(prefix)}
    if set(mistakes) != set(exercise.feedback):
        raise ValueError(
            f"exercise {exercise.reference}: feedback for {sorted(exercise.feedback)}, but snippets/"
            f"{exercise.snippet}.py publishes the mistakes {sorted(mistakes)}: one feedback per published mistake"
        )
    answer = published[exercise.name]
    return {"answer": answer["value"], "text": answer["text"], "mistakes": mistakes}


def with_check_data(markdown, project, labels, warn):
    """The page with each exercise element carrying its ``data-check`` and ``data-words`` (``labels``: the
    edition's [exercises] words); ``warn(message)`` for each exercise whose data cannot be given."""
    try:
        found = exercises(markdown)
    except ValueError as error:
        warn(str(error))
        return markdown
    pieces, start = [], 0
    for exercise in found:
        try:
            data = check_data(exercise, project)
        except (KeyError, ValueError) as error:
            warn(str(error.args[0]))
            continue
        opening = f'data-exercise="{exercise.reference}"'
        attributes = (
            f'{opening} data-check="{html.escape(json.dumps(data, ensure_ascii=False))}" '
            f'data-words="{html.escape(json.dumps(labels, ensure_ascii=False))}"'
        )
        begin, end = exercise.span
        block = markdown[begin:end].replace(opening, attributes, 1)
        # the feedback shows only as a verdict, the solution only when asked for: search leaves both out
        block = block.replace('<div class="exercise-mistake" ', '<div class="exercise-mistake" data-search-exclude ')
        block = block.replace(
            '<details class="exercise-solution" ', '<details class="exercise-solution" data-search-exclude '
        )
        pieces += [markdown[start:begin], block]
        start = end
    return "".join(pieces) + markdown[start:]


def without_exercises(markdown):
    """The page's Markdown with its exercise blocks taken out (its notebook gives them cells of their own)."""
    return EXERCISE.sub("", markdown)


CHECKER_MODULE = "lib.exercises"  # the library module a notebook loads to check replies


def notebook_cells(found, project, render, labels):
    """A notebook's cells for a page's exercises (``render``: a piece of the page's Markdown as the notebook's):
    the data its check reads (one cell, which the site's notebook page hides), then per exercise its question, hint
    and solution (a Markdown cell) and a code cell that checks the reader's reply, with what it shows as given
    (the reply None: the hint, as Markdown). Returns (data cell source, [(Markdown cell source, code cell source,
    what it shows)])."""
    data = {}
    for exercise in found:
        record = check_data(exercise, project)
        record["feedback"] = {mistake: render(text) for mistake, text in exercise.feedback.items()}
        record["hint"] = render(exercise.hint)
        data[exercise.name] = record
    data_cell = (
        f"from {CHECKER_MODULE} import feedback, show\n\n"
        f"EXERCISES = {pprint.pformat(data, width=100, sort_dicts=False)}\n\n\n"
        "def check_exercise(name, reply):\n"
        f"    show(feedback(reply, EXERCISES[name], {labels['right']!r}, {labels['wrong']!r}))"
    )
    cells = [
        (
            "\n\n".join(
                [
                    render(exercise.question),
                    render(exercise.hint),
                    f"<details>\n<summary>{exercise.summary}</summary>\n\n{render(exercise.solution)}\n\n</details>",
                ]
            ),
            f"# {labels['cell']}\ncheck_exercise({exercise.name!r}, None)",
            f"{labels['wrong']}\n{data[exercise.name]['hint']}",
        )
        for exercise in found
    ]
    return data_cell, cells
