"""Chinese for the text snippets show readers: table headers and cells, figure titles, axis labels, tick labels,
legends and annotations.

A snippet writes its text in English only; when the site's build writes the Chinese twin of a table or figure, it
asks ``Translations(chapter).translate(text)`` for the Chinese of each text. Text that needs no translation comes
back as it is: numbers, math (``$...$``), code (`` `...` ``), identifiers (``d_k``, ``W_q``), the names in
``KEEP`` and the examples' tokens. Anything else must have an entry in a catalog, or ``translate`` raises
``MissingTranslation`` naming the text and the catalog to add it to.

The entries are data, not code: one TOML catalog per chapter, ``snippets/<chapter>/zh.toml``, with the text of that
chapter's snippets, and the shared one, ``snippets/lib/zh.toml`` (beside this module), with text several chapters
show (lib.plotting's heatmap among it). Each line is an entry, ``"English" = "中文"``; an English text is in one
catalog only. In an entry, ``{}`` stands for a number, so one entry covers text a snippet builds with an f-string:
``"head {}"`` translates ``"head 1"`` and ``"head 2"``. A text of several lines is translated line by line unless
it has an entry of its own. The terms follow docs-zh/glossary.yml.
"""

import re
import tomllib
from pathlib import Path

SNIPPETS = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).with_suffix(".toml")  # snippets/lib/zh.toml
CATALOG = "zh.toml"  # a chapter's catalog, in its snippet folder

# Words that stay as written in Chinese technical text (library, model and function names, units, citations): the
# project's one list, which the tests of Chinese pages read too.
LATIN = Path(__file__).with_suffix(".latin.toml")  # snippets/lib/zh.latin.toml
KEEP = {word for group in tomllib.loads(LATIN.read_text(encoding="utf-8"))["words"].values() for word in group}

# The tokens the examples feed their models, shown as the model sees them: the running example's sentence
# (lib.running_example.SENTENCE), the trained model's vocabulary (lib.tiny_model.REFERENCE_VOCAB) and the batch
# chapter's two other sentences ("A dog ran.", "Dogs chase the cat."). Written out, so that lib.zh imports nothing
# (every snippet's outputs depend on it); tests/build/test_pipeline.py checks the list against those modules.
TOKENS = {
    "the", "cat", "sat", "on", "mat", "<pad>", "nobody", "dog", "fox", "owl", "hen", "pig", "cow", "rat", "rug",
    "box", "bed", "log", "hat", "cup", "sofa", "slept", "lay", "stood", "hid", "under", "near", "by", "behind", "a",
    "old", "was", "were", "and", ".", "hungry", "one", "dogs", "ran", "chase",
}

NUMBER = re.compile(r"(?<![\w.])[-+−]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w])")
MATH = re.compile(r"\$[^$]*\$")
CODE = re.compile(r"`[^`]*`")
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]*)\)\Z")  # a Markdown link: only its text is translated
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def english_words(text):
    """The words of ``text`` a Chinese reader should not see in English (identifiers, kept names and tokens are
    not among them)."""
    bare = CODE.sub(" ", MATH.sub(" ", text))
    words = (w for w in WORD.findall(bare) if len(w) > 1 and not re.search(r"[_0-9]", w))
    return [w for w in words if w not in KEEP and w.lower() not in TOKENS]


def _with_numbers(template, numbers):
    parts = template.split("{}")
    if len(parts) != len(numbers) + 1:
        raise ValueError(f"the Chinese {template!r} has {len(parts) - 1} places for numbers, "
                         f"the English {len(numbers)}")
    return "".join(part + number for part, number in zip(parts, [*numbers, ""]))


def _shown(path):
    """A catalog's path as the fix names it: relative to the repository."""
    return path.relative_to(SNIPPETS.parent).as_posix()


def read_catalog(path):
    """{English: Chinese} of one catalog ({} if it does not exist); ValueError naming the file for a bad entry."""
    if not path.exists():
        return {}
    try:
        entries = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{_shown(path)} is not valid TOML: {error}") from None
    bad = [english for english, chinese in entries.items() if not isinstance(chinese, str)]
    if bad:
        raise ValueError(f"{_shown(path)}: {', '.join(map(repr, bad))} must each be one line \"English\" = \"中文\" "
                         "(quote the English: a dot outside quotes starts a table)")
    return entries


class MissingTranslation(KeyError):
    """English text that has no entry in the catalogs; ``texts`` lists every such text found, ``fix`` says where
    their entries go."""

    def __init__(self, texts, fix):
        self.texts, self.fix = list(texts), fix
        super().__init__(self.texts)

    def __str__(self):
        return f"no Chinese for {', '.join(repr(t) for t in self.texts)}: {self.fix}"


class Translations:
    """The Chinese of one chapter's text: its catalog (``snippets/<chapter>/zh.toml``) and the shared one."""

    Missing = MissingTranslation  # what translate raises, for a caller that holds only a Translations

    def __init__(self, chapter):
        self.catalog = SNIPPETS / chapter / CATALOG
        shared, own = read_catalog(SHARED), read_catalog(self.catalog)
        twice = [english for english in own if english in shared]
        if twice:
            raise ValueError(f"{_shown(self.catalog)} repeats {', '.join(map(repr, twice))} of {_shown(SHARED)}: "
                             "keep each text in one catalog")
        self.chinese = shared | own
        self.fix = (f'add "English" = "中文" to {_shown(self.catalog)} '
                    f"(or to {_shown(SHARED)} if other chapters show the text too)")

    def translate(self, text):
        """The Chinese of ``text``; ``MissingTranslation`` if it needs one and the catalogs have none."""
        if text in self.chinese:
            return self.chinese[text]
        if "\n" in text:  # a label of several lines: each line on its own
            return "\n".join(self.translate(line) for line in text.split("\n"))
        link = LINK.match(text)
        if link:
            return f"[{self.translate(link.group(1))}]({link.group(2)})"
        numbers = NUMBER.findall(text)
        template = NUMBER.sub("{}", text)
        if numbers and template in self.chinese:
            return _with_numbers(self.chinese[template], numbers)
        if not english_words(text):
            return text
        raise MissingTranslation([text], self.fix)

    def translate_all(self, texts):
        """[Chinese of each text]; ``MissingTranslation`` lists every text that has none (not only the first)."""
        translated, missing = [], []
        for text in texts:
            try:
                translated.append(self.translate(text))
            except MissingTranslation as error:
                missing += error.texts
        if missing:
            raise MissingTranslation(dict.fromkeys(missing), self.fix)
        return translated
