"""lib.exercises: how a reply is read and judged (the decimals asked, whole numbers, shapes, words, full-width
characters), the feedback a notebook prints, and the exercises it refuses to publish."""

import pytest

from lib import publish
from lib.exercises import check, exercise, feedback, places, show


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("0.42", "right"),
        ("0.416", "right"),
        (" .4162 ", "right"),
        ("０．４２", "right"),  # typed with a Chinese input method
        ("0.421", "right"),  # within half a unit of the second decimal of 0.4162 (up to 0.4212)
        ("0.4213", "wrong"),  # just outside it
        ("0.41", "wrong"),
        ("0.36", "mistake"),
        ("0.3649", "mistake"),
        ("4.2e-1", "right"),
        ("0,42", "wrong"),  # a decimal comma is not read as a point
        ("1,000.42", "wrong"),  # commas between thousands are read: 1000.42
        ("", "wrong"),
        ("abc", "wrong"),
        ("1_0", "wrong"),  # Python's float() would read 10
        ("inf", "wrong"),
        ("1e999", "wrong"),
    ],
)
def test_a_number_is_judged_to_the_decimals_asked(reply, verdict):
    assert check(reply, 0.4162, {"no_scale": 0.3612}, decimals=2)[0] == verdict


def test_a_mistake_is_named():
    assert check("0.36", 0.4162, {"transposed": 0.2, "no_scale": 0.3612}, 2) == ("mistake", "no_scale")


def test_whole_numbers_shapes_and_words():
    assert check("7", 7) == ("right", None) and check("7.4", 7) == ("wrong", None) and check("7.0", 7)[0] == "right"
    assert check("34,560", 34560)[0] == "right" and check("３４，５６０", 34560)[0] == "right"
    assert check("3,4560", 34560)[0] == "wrong" and check("34,56", 3456)[0] == "wrong"
    for reply in ["(2, 7, 4)", "2, 7, 4", "2 × 7 × 4", "[2,7,4]", "2x7x4", "（2，7，4）"]:
        assert check(reply, (2, 7, 4), {"swapped": (2, 4, 7)}) == ("right", None), reply
    assert check("(2, 4, 7)", [2, 7, 4], {"swapped": [2, 4, 7]}) == ("mistake", "swapped")  # as JSON gives it back
    assert check("(2, 7)", (2, 7, 4))[0] == "wrong" and check("(2, 7, 4.5)", (2, 7, 4))[0] == "wrong"
    assert check("The, cat", ["The", "cat"])[0] == "right" and check("The、cat", ["The", "cat"])[0] == "right"
    assert check("cat The", ["The", "cat"])[0] == "wrong"  # order matters
    assert check("['The', 'cat']", ["The", "cat"])[0] == "right"  # a Python list, as a notebook reader passes it
    assert check("“The”、“cat”", ["The", "cat"])[0] == "right"  # quoted as Chinese prose quotes words
    assert check("the, cat", ["The", "cat"])[0] == "wrong"  # tokens: case matters
    assert check("2、7、4", (2, 7, 4))[0] == "right"
    assert check("causal", "causal")[0] == "right" and check("Causal", "causal")[0] == "right"  # an option: any case
    assert check(-1e4, "-1e4")[0] == "right" and check("-10000", "-1e4")[0] == "right"  # a number option: its value
    assert check("-1e9", "-1e4")[0] == "wrong" and check("causal padding", "causal")[0] == "wrong"
    assert check(None, "none", {"causal": "causal"})[0] == "wrong"  # no reply yet, not the option "none"


def test_places_are_the_decimals_of_the_published_text():
    assert [places("0.42"), places("7"), places("-1.500")] == [2, 0, 3]


def test_feedback_gives_the_right_words_the_mistakes_feedback_or_the_hint():
    record = {
        "answer": 0.4162,
        "text": "0.42",
        "mistakes": {"no_scale": 0.3612},
        "feedback": {"no_scale": "No √d_k."},
        "hint": "Divide first.",
    }
    assert feedback("0.42", record, "Right.", "Not yet:") == "Right."
    assert feedback("0.36", record, "Right.", "Not yet:") == "No √d_k."
    assert feedback(None, record, "Right.", "Not yet:") == "Not yet:\nDivide first."


def test_exercise_publishes_the_answer_and_each_mistake_as_values():
    publish.VALUES.clear()
    assert exercise("cat_sat", 0.4162, "{:.2f}", {"no_scale": 0.3612}) == 0.4162
    assert publish.VALUES["cat_sat"]["text"] == "0.42" and publish.VALUES["cat_sat__no_scale"]["text"] == "0.36"
    exercise("shape", (2, 7, 4), mistakes={"swapped": (2, 4, 7)})
    assert publish.VALUES["shape__swapped"]["value"] == (2, 4, 7)


@pytest.mark.parametrize(
    ("answer", "fmt", "mistakes", "message"),
    [
        (0.41, "{:.1f}", {"m": 0.43}, "also matches at the precision asked"),  # 0.4 for both
        (0.41, "{:.2f}", {"m": 0.4149}, "also matches"),  # typed back as 0.41: the answer
        (0.41, "{:.2f}", {"a": 0.2, "b": 0.2049}, "mistake 'a'"),  # two mistakes a reader cannot tell apart
        (0.41, "{:.3g}", {}, "fixed-point"),
        (0.41, "{:.0f}", {}, "fixed-point with decimals"),
        (0.41, "{:.2f}", {"m": 3}, "not the kind"),
        (0.41, "{:.2f}", {"no__scale": 0.2}, "without '__'"),
        (True, "{}", {}, "not a boolean"),
        ("two words", "{}", {}, "cannot check"),
        ((2, 7.0), "{}", {}, "cannot check"),
    ],
)
def test_exercise_refuses_what_a_reader_could_not_be_told_apart_or_checked(answer, fmt, mistakes, message):
    with pytest.raises((ValueError, TypeError), match=message):
        exercise("x", answer, fmt, mistakes)


def test_show_prints_outside_a_notebook(capsys):
    show("**Hint.** Divide first.")
    assert capsys.readouterr().out == "**Hint.** Divide first.\n"
