"""The exercises (docs/assets/javascripts/exercises/, scripts/exercises.py) in a real browser, both editions: for
every exercise the right answer is accepted, each usual mistake gets its own feedback and a random wrong answer the
hint; the page's check and the notebook's (lib.exercises, run from the notebook's own cell) give the same verdict on
the same replies; the answer box is labelled, works from the keyboard and announces politely; without JavaScript
the question, hint and solution show; the module loads only near the screen and fits its byte budget."""

import contextlib
import gzip
import io
import json
import random

import pytest

from lib.exercises import check, places
from scripts.exercises import check_data, exercises
from scripts.words import words
from support import DOCS, DOCS_ZH, PROJECT, REPO, nonempty_glob, require_chromium

pytestmark = pytest.mark.site
require_chromium()
ASSETS = REPO / "docs" / "assets" / "javascripts" / "exercises"
EDITIONS = {"en": (DOCS, ""), "zh": (DOCS_ZH, "zh/")}
NOTEBOOKS = {"en": DOCS / "notebooks", "zh": DOCS_ZH / "notebooks"}


def chapters_with_exercises(language):
    folder, _ = EDITIONS[language]
    found = {}
    for page in nonempty_glob(folder, "*.md"):
        blocks = exercises(page.read_text(encoding="utf-8"))
        if blocks:
            found[page.stem] = blocks
    return found


CASES = [
    pytest.param(language, stem, block, id=f"{language}-{block.reference}")
    for language in EDITIONS
    for stem, blocks in chapters_with_exercises(language).items()
    for block in blocks
]
PAGES = [  # chapters with a notebook (a page that includes no snippet has none: its exercises are on the page only)
    (language, stem)
    for language in EDITIONS
    for stem in chapters_with_exercises(language)
    if (NOTEBOOKS[language] / f"{stem}.ipynb").exists()
]


def as_typed(result, answer, text):
    """A result as a reader would type it: a number to the decimals asked, a shape, words separated by commas."""
    if isinstance(result, float) or (isinstance(result, int) and isinstance(answer, float)):
        return f"{result:.{places(text)}f}"
    if isinstance(result, list) and all(isinstance(n, int) for n in result):
        return str(tuple(result))
    return ", ".join(result) if isinstance(result, list) else str(result)


def decimals_of(data):
    return places(data["text"]) if isinstance(data["answer"], float) else 0


def a_wrong_reply(data, rng):
    """A reply that is neither the answer nor any usual mistake (by lib.exercises.check)."""
    answer = data["answer"]
    for _ in range(1000):
        if isinstance(answer, float):
            reply = f"{answer + rng.choice([-1, 1]) * rng.uniform(0.1, 5) * (abs(answer) + 1):.{decimals_of(data)}f}"
        elif isinstance(answer, int):
            reply = str(answer + rng.choice([-1, 1]) * rng.randint(1, 50))
        elif isinstance(answer, list) and all(isinstance(n, int) for n in answer):
            reply = str(tuple(n + rng.randint(1, 9) for n in answer))
        else:
            reply = ", ".join([*answer, "xyz"]) if isinstance(answer, list) else answer + "xyz"
        if check(reply, answer, data["mistakes"], decimals_of(data))[0] == "wrong":
            return reply
    raise AssertionError(f"no wrong reply found for {data}")


def replies(data, rng):
    """[(reply, verdict, mistake)]: the answer, each mistake's result, one random wrong reply."""
    typed = [(as_typed(data["answer"], data["answer"], data["text"]), "right", "")]
    typed += [(as_typed(v, data["answer"], data["text"]), "mistake", m) for m, v in data["mistakes"].items()]
    return [*typed, (a_wrong_reply(data, rng), "wrong", "")]


def text_of(locator):
    """An element's text, spaces collapsed (hidden or not: the feedback blocks are hidden until shown)."""
    return " ".join(locator.text_content().split())


def open_exercise(page, base_url, language, stem, block):
    page.goto(f"{base_url}{EDITIONS[language][1]}{stem}/", wait_until="load")
    element = page.locator(f'[data-exercise="{block.reference}"]')
    element.scroll_into_view_if_needed()
    page.wait_for_function(
        "(ref) => document.querySelector(`[data-exercise='${ref}']`)?.dataset.ready === 'true'", arg=block.reference
    )
    return element


@pytest.mark.claim(
    "Every exercise accepts its answer, names each usual mistake with its own feedback and answers any other reply "
    "with its hint, in both editions",
    zh="每道练习都接受正确答案，对每种常见错误给出各自的反馈，对其他答案给出提示，中英文两版都是如此",
)
@pytest.mark.parametrize(("language", "stem", "block"), CASES)
def test_each_reply_gets_its_verdict(page, base_url, language, stem, block):
    data = check_data(block, PROJECT)
    labels = words(language, "exercises")
    element = open_exercise(page, base_url, language, stem, block)
    box, result = element.get_by_label(labels["answer"], exact=True), element.locator(".exercise-result")
    for reply, verdict, mistake in replies(data, random.Random(block.reference)):
        box.fill(reply)
        box.press("Enter")  # submits the form: the keyboard's way
        assert (result.get_attribute("data-verdict"), result.get_attribute("data-feedback")) == (verdict, mistake), (
            reply
        )
        shown = text_of(result)
        if verdict == "right":
            assert shown == labels["right"]
        elif verdict == "mistake":
            assert shown == text_of(element.locator(f'.exercise-mistake[data-mistake="{mistake}"]')) and shown
        else:
            assert shown == " ".join((labels["wrong"] + element.locator(".exercise-hint").text_content()).split())
    assert result.get_attribute("role") == "status"  # announced politely (role status: aria-live polite)


def notebook_verdicts(language, stem, battery):
    """{exercise name: [printed text per reply]} from running the notebook's own exercise cells."""
    notebook = json.loads((NOTEBOOKS[language] / f"{stem}.ipynb").read_text(encoding="utf-8"))
    data_cell = next(c for c in notebook["cells"] if "EXERCISES = " in "".join(c["source"]))
    scope = {}
    exec("".join(data_cell["source"]), scope)
    printed = {}
    for name, replies_ in battery.items():
        printed[name] = []
        for reply in replies_:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                scope["check_exercise"](name, reply)
            printed[name].append(out.getvalue().rstrip("\n"))
    return scope["EXERCISES"], printed


def battery(data, rng):
    """Replies near every edge: the answer and each mistake as typed, a wrong reply, the edges of the tolerance,
    full-width digits, other separators, empty and unreadable text."""
    typed = [reply for reply, _, _ in replies(data, rng)]
    more = ["", "   ", "abc", "1_0", "inf", "(", ","]
    answer = data["answer"]
    if isinstance(answer, float):
        half = 0.5 * 10 ** -decimals_of(data)
        more += [repr(answer + half * 0.999), repr(answer - half * 0.999), repr(answer + half * 1.001)]
        more += [t.replace(".", "．").translate(str.maketrans("0123456789", "０１２３４５６７８９")) for t in typed[:1]]
        more += [t.replace(".", ",") for t in typed[:1]]
    elif isinstance(answer, int):
        more += [f"{answer:,}", f"{answer + 1000:,}"]  # commas between thousands
    elif isinstance(answer, list) and all(isinstance(n, int) for n in answer):
        more += [t.replace(", ", " × ") for t in typed] + [t.replace(", ", "、") for t in typed]
    elif isinstance(answer, list):
        more += [str(answer), "、".join(f"“{w}”" for w in answer), ", ".join(answer).lower(), ", ".join(answer[::-1])]
    else:
        more += [answer.upper(), f"“{answer}”"]
    return typed + more


@pytest.mark.parametrize(("language", "stem"), PAGES, ids=[f"{lang}-{stem}" for lang, stem in PAGES])
def test_the_page_and_the_notebook_judge_every_reply_alike(page, base_url, language, stem):
    blocks = chapters_with_exercises(language)[stem]
    rng = random.Random(stem)
    tried = {block.name: battery(check_data(block, PROJECT), rng) for block in blocks}
    page.goto(f"{base_url}{EDITIONS[language][1]}{stem}/", wait_until="load")
    module = f"{base_url}assets/javascripts/exercises/exercises.js"
    on_page = page.evaluate(
        """async ([module, cases]) => {
            const { check } = await import(module);
            return Object.fromEntries(cases.map(([ref, replies]) => {
                const data = JSON.parse(document.querySelector(`[data-exercise='${ref}']`).dataset.check);
                return [ref, replies.map((reply) => check(reply, data))];
            }));
        }""",
        [module, [[block.reference, tried[block.name]] for block in blocks]],
    )
    records, printed = notebook_verdicts(language, stem, tried)
    labels = words(language, "exercises")
    for block in blocks:
        record = records[block.name]
        for reply, (verdict, mistake), text in zip(tried[block.name], on_page[block.reference], printed[block.name]):
            python = check(reply, record["answer"], record["mistakes"], decimals_of(record))
            assert (verdict, mistake) == python, (block.reference, reply)
            expected = {"right": labels["right"], "wrong": f"{labels['wrong']}\n{record['hint']}"}.get(verdict)
            assert text == (expected or record["feedback"][mistake]), (block.reference, reply)


def test_the_answer_box_works_from_the_keyboard_and_passes_axe(browser, base_url):
    from axe_playwright_python.sync_playwright import Axe

    language, stem, block = CASES[0].values
    for scheme in ["light", "dark"]:
        context = browser.new_context(color_scheme=scheme)
        page = context.new_page()
        element = open_exercise(page, base_url, language, stem, block)
        element.get_by_label(words(language, "exercises")["answer"], exact=True).focus()
        page.keyboard.type("nonsense")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.type") == "submit"
        page.keyboard.press("Enter")
        assert element.locator(".exercise-result").get_attribute("data-verdict") == "wrong"
        page.add_style_tag(content="*, *::before, *::after { transition: none !important; }")
        violations = Axe().run(page, context=f"[data-exercise='{block.reference}']").response["violations"]
        assert [(v["id"], [n["target"] for n in v["nodes"]]) for v in violations] == [], scheme
        context.close()


def test_without_javascript_the_question_hint_and_solution_show(browser, base_url):
    language, stem, block = CASES[0].values
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{base_url}{EDITIONS[language][1]}{stem}/")
    element = page.locator(f'[data-exercise="{block.reference}"]')
    assert element.locator(".exercise-hint").is_visible() and element.locator("details summary").is_visible()
    assert not element.locator(".exercise-mistake").first.is_visible() and element.locator("form").count() == 0
    context.close()


def test_the_module_loads_only_near_the_screen(page, base_url):
    language, stem, block = CASES[0].values
    page.goto(f"{base_url}{EDITIONS[language][1]}{stem}/", wait_until="load")
    page.wait_for_timeout(300)
    assert not [url for url in page.requests if "/exercises/" in url]
    open_exercise(page, base_url, language, stem, block)
    assert [url for url in page.requests if url.endswith("exercises.js")]
    assert all(url.startswith(base_url) for url in page.requests)  # nothing sent anywhere else


def test_exercises_fit_the_byte_budget():
    """All the exercises' JavaScript and CSS, gzipped: at most 15 KB (the issue's budget)."""
    files = [ASSETS / "exercises.js", ASSETS / "exercises.css"]
    size = sum(len(gzip.compress(path.read_bytes(), 9)) for path in files)
    assert size <= 15_000, size
