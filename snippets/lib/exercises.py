"""Exercises whose answers, and the results of the usual mistakes, come from the build.

A chapter's ``snippets/<chapter>/exercises.py`` calls ``exercise(name, answer, fmt, mistakes)`` once per
exercise. It publishes the answer as the value ``name`` and each mistake's result as the value
``name__<mistake>`` (``lib.publish``), so the page, its notebook and both checks read the same numbers.
``check(reply, answer, mistakes, decimals)`` says whether a reader's reply is the answer, which usual mistake it
is, or neither (the page's ``exercises.js`` decides the same way); ``feedback`` gives a notebook's reader the words
the page would, and ``show`` shows them.

The kind of an answer follows its type:

- a float: a number asked to the decimals of ``fmt`` ("{:.2f}": two); a reply within half a unit of the last
  decimal asked is that number, so 0.415 and 0.42 both match 0.4162 asked to two decimals;
- an int: a whole number, exactly (a number may be written with commas between thousands: 34,560);
- a tuple of ints (or a list, as JSON gives it back): a shape, written "(2, 7, 4)", "2, 7, 4" or "2 × 7 × 4";
- a list of str: words in order (tokens), separated by commas, spaces or Chinese commas, quoted or not; case
  matters ("The" is not "the");
- a str: one word, the key of the option the page lists, in any case (a number as its value: -1e4 or -10000).
"""

import math
import re

from lib.publish import value

_FULL_WIDTH = str.maketrans("０１２３４５６７８９．，－（）×−", "0123456789.,-()x-")
_THOUSANDS = re.compile(r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]*)?")  # 34,560 or 1,024.5
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_SEPARATORS = re.compile(r"[\s,、;]+")
_QUOTES = "'\"“”‘’"


def _kind(answer):
    if isinstance(answer, bool):
        raise TypeError("an answer is a number, a shape, a list of words or a word, not a boolean")
    if isinstance(answer, float):
        return "number"
    if isinstance(answer, int):
        return "whole"
    if isinstance(answer, (tuple, list)) and answer and all(type(n) is int for n in answer):
        return "shape"  # a list too: a tuple read back from the published JSON
    if isinstance(answer, list) and answer and all(isinstance(w, str) and w.strip() for w in answer):
        return "words"
    if isinstance(answer, str) and answer.strip() and not _SEPARATORS.search(answer):
        return "word"
    raise TypeError(
        f"cannot check an answer of {answer!r}: give a float, an int, a tuple of ints, a list of str or one word"
    )


def places(text):
    """The decimals a published number's text shows, which are the decimals asked: "0.42" -> 2, "7" -> 0."""
    return len(text.partition(".")[2])


def _read(reply, kind):
    """The reply as the kind of answer asked for, or None if it cannot be read as one."""
    text = str(reply).translate(_FULL_WIDTH).strip()
    if kind in ("number", "whole"):
        if _THOUSANDS.fullmatch(text):
            text = text.replace(",", "")
        return float(text) if _NUMBER.fullmatch(text) and math.isfinite(float(text)) else None
    if kind == "shape":
        parts = [p for p in re.split(r"[\s,x*、]+", text.strip("()[] ")) if p]
        return tuple(int(p) for p in parts) if parts and all(re.fullmatch("[0-9]+", p) for p in parts) else None
    words = [w.strip(_QUOTES) for w in _SEPARATORS.split(text.strip("[]"))]  # 'the' or “the” as written in prose
    words = [w for w in words if w]
    if kind == "word":
        return words[0] if len(words) == 1 else None
    return words or None


def _option(word):
    """An option as compared: a number by its value (-1e4 is -10000.0), a word in any case (Output is output)."""
    return float(word) if _NUMBER.fullmatch(word) else word.lower()


def _same(read, target, kind, decimals):
    if kind == "number":
        return abs(read - target) <= 0.5 * 10**-decimals + 1e-12
    if kind == "whole":
        return read == target
    if kind == "word":
        return _option(read) == _option(target)
    return read == (tuple(target) if kind == "shape" else target)


def check(reply, answer, mistakes=None, decimals=0):
    """("right", None), ("mistake", its name) or ("wrong", None) for a reader's reply (text or a number) to an
    answer asked to ``decimals`` decimals (numbers only)."""
    kind = _kind(answer)
    read = None if reply is None else _read(reply, kind)  # None: no reply yet (a notebook's cell as given)
    if read is None:
        return "wrong", None
    if _same(read, answer, kind, decimals):
        return "right", None
    for name, result in (mistakes or {}).items():
        if _same(read, result, kind, decimals):
            return "mistake", name
    return "wrong", None


def exercise(name, answer, fmt="{}", mistakes=None):
    """Publish an exercise: its answer as the value ``name``, each usual mistake's result as ``name__<mistake>``
    (same format). Refuses a mistake a reader could not tell from the answer or from another mistake at the
    precision asked: its feedback would be given for the wrong reason. Returns the answer."""
    kind = _kind(answer)
    if kind == "number" and not re.fullmatch(r"\{:\.[1-9]\d*f\}", fmt):
        raise ValueError(
            f"exercise {name!r}: a number's format must be fixed-point with decimals, like '{{:.2f}}', to say how "
            f"many decimals are asked (an int is asked exactly); got {fmt!r}"
        )
    asked = places(fmt.format(answer)) if kind == "number" else 0
    mistakes = mistakes or {}
    shown = {"the answer": answer}
    for mistake, result in mistakes.items():
        if "__" in mistake or not re.fullmatch(r"[a-z][a-z0-9_]*", mistake):
            raise ValueError(f"exercise {name!r}: mistake name {mistake!r} must be lower_snake_case without '__'")
        if _kind(result) != kind:
            raise TypeError(
                f"exercise {name!r}: mistake {mistake!r} gives {result!r}, not the kind of the answer {answer!r}"
            )
        for other, earlier in shown.items():  # each one's shown text, typed back, must match it alone
            if _same(_read(fmt.format(result), kind), earlier, kind, asked) or _same(
                _read(fmt.format(earlier), kind), result, kind, asked
            ):
                raise ValueError(
                    f"exercise {name!r}: mistake {mistake!r} gives {fmt.format(result)}, which "
                    f"{other} ({fmt.format(earlier)}) also matches at the precision asked: a reader "
                    "could not be told which"
                )
        shown[f"mistake {mistake!r}"] = result
    value(name, answer, fmt)
    for mistake, result in mistakes.items():
        value(f"{name}__{mistake}", result, fmt)
    return answer


def feedback(reply, exercise, right, wrong):
    """What a reply earns, as a notebook prints it: ``right``; the feedback the page gives the mistake it makes; or
    ``wrong`` and the hint. ``exercise``: {"answer", "text" (the answer as published), "mistakes", "feedback",
    "hint"}, as the notebook's exercise cell holds it."""
    answer = exercise["answer"]
    decimals = places(exercise["text"]) if _kind(answer) == "number" else 0
    verdict, mistake = check(reply, answer, exercise["mistakes"], decimals)
    if verdict == "right":
        return right
    return exercise["feedback"][mistake] if verdict == "mistake" else f"{wrong}\n{exercise['hint']}"


def show(text):
    """Show a verdict: as Markdown in a Jupyter notebook (its bold and math rendered), printed anywhere else."""
    try:
        get_ipython  # noqa: B018, F821 (a Jupyter kernel defines it)
    except NameError:
        print(text)
        return
    from IPython.display import Markdown, display

    display(Markdown(text))
