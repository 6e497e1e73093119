"""The Chinese pages quote the two seed tutorials in their own words, never an English paraphrase of them.

The convention (docs-zh/, one way everywhere): a tutorial is named 种子教程 000 or 种子教程 003, and a passage
quoted from it is a “…” that follows that name in the same paragraph. Each such passage must occur in the seed's
text, compared without spaces, punctuation and Latin case (the seed files lost most of their punctuation). A
sentence that mentions a tutorial without naming it (一篇教程, 源教程, seed 000) must not quote at all, since
nothing could check the quote: that is how a back-translated paraphrase would slip in.

The seeds are not part of the repository: they are read from ../shared/seeds next to it, or from the folder
named by SEEDS_DIR; where neither exists the tests skip and say so.
"""

import re

import pytest

from scripts.pipeline.references import INCLUDE
from support import DOCS_ZH, SEEDS, nonempty_glob

PAGES = nonempty_glob(DOCS_ZH, "*.md")

NAMED = re.compile(r"种子教程\s*(000|003)")
UNNAMED = re.compile(r"教程|\bseed\s*0\d\d\b", re.IGNORECASE)
QUOTE = re.compile(r"“([^“”]*)”")
CHINESE = re.compile(r"[\u4e00-\u9fff]")
STRAIGHT = re.compile(r"\"[^\"\n]*[A-Za-z\u4e00-\u9fff][^\"\n]*\"")
SENTENCE_END = re.compile(r"[。！？]")
NOT_PROSE = re.compile(
    r"^[ \t]*(```|~~~)(?s:.*?)^[ \t]*\1[^\n]*$|<!--(?s:.*?)-->|\]\([^)\n]*\)|" + INCLUDE.pattern + r"[^\n]*$",
    re.MULTILINE,
)


def comparable(text):
    """Only the words: no spaces, punctuation, symbols or markup, Latin letters in one case."""
    return re.sub(r"[\W_]+", "", text).casefold()


def seed_texts():
    if not SEEDS.is_dir():
        pytest.skip(
            f"the seed tutorials are not here ({SEEDS}); set SEEDS_DIR to the folder with 000_*.txt and 003_*.txt"
        )
    texts = {}
    for number in ("000", "003"):
        texts[number] = comparable(nonempty_glob(SEEDS, f"{number}_*.txt")[0].read_text(encoding="utf-8"))
    return texts


def paragraphs(markdown):
    """The page's prose paragraphs and table rows, each on one line (code blocks, includes, comments and link
    targets removed)."""
    blocks = NOT_PROSE.sub(lambda m: "\n\n" if m.group().startswith(("`", "~", " ", "-", "<")) else " ", markdown)
    for block in re.split(r"\n\s*\n", blocks):
        rows = block.split("\n") if block.lstrip().startswith("|") else [block]  # a table: each row on its own
        for row in rows:
            text = " ".join(row.split())
            if text:
                yield text


def sentences(paragraph):
    """(sentence, [(quoted text, tutorial number or None)]) for each sentence of a paragraph. A quote belongs to
    the tutorial last named before it in the paragraph, else to the one the rest of its sentence names (a table
    row: “…” | 种子教程 000). Sentence ends inside a quote do not end the sentence."""
    named, start, depth, opened = None, 0, 0, 0
    quotes = []
    for match in re.finditer(r"种子教程\s*(?:000|003)|“|”|[。！？]", paragraph):
        token = match.group()
        if token == "“":
            depth += 1
            opened = match.end() if depth == 1 else opened
        elif token == "”":
            depth = max(depth - 1, 0)
            if depth == 0:
                quotes.append([paragraph[opened : match.start()], named])
        elif token.startswith("种子教程"):
            if depth == 0:
                named = NAMED.match(token).group(1)
                for quote in quotes:
                    quote[1] = quote[1] or named
        elif depth == 0:
            yield paragraph[start : match.end()], [tuple(quote) for quote in quotes]
            start, quotes = match.end(), []
    if paragraph[start:].strip():
        yield paragraph[start:], [tuple(quote) for quote in quotes]


def tutorial_quotes(markdown):
    """Every passage the page quotes from a named tutorial: (tutorial number, quoted text). A quote that holds a
    value reference quotes this site's output (a token of the running example), and one with no Chinese in it an
    English source (a paper), not the Chinese tutorials."""
    for paragraph in paragraphs(markdown):
        for _, quotes in sentences(paragraph):
            for text, named in quotes:
                if named and "{{" not in text and CHINESE.search(text):
                    yield named, text


def unchecked_quotes(markdown):
    """Sentences that mention a tutorial without naming it and still quote something."""
    for paragraph in paragraphs(markdown):
        for sentence, quotes in sentences(paragraph):
            if UNNAMED.search(NAMED.sub("", sentence)) and not NAMED.search(sentence):
                if quotes or STRAIGHT.search(sentence):
                    yield sentence.strip()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_quoted_passage_is_in_the_tutorial(page):
    seeds = seed_texts()
    missing = [
        f"种子教程 {number}: “{text}”"
        for number, text in tutorial_quotes(page.read_text(encoding="utf-8"))
        if comparable(text) not in seeds[number]
    ]
    assert not missing, (
        f"docs-zh/{page.name} quotes words the tutorial does not contain (quote its own Chinese):\n"
        + "\n".join(missing)
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_tutorial_is_named_where_it_is_quoted(page):
    loose = list(unchecked_quotes(page.read_text(encoding="utf-8")))
    assert not loose, (
        f"docs-zh/{page.name}: these sentences quote a tutorial they do not name as 种子教程 000/003, "
        "so the quote cannot be checked:\n" + "\n".join(loose)
    )


def test_the_pages_quote_the_tutorials():
    """The checks above see the quotes at all: the Chinese pages quote both tutorials, dozens of times."""
    found = [number for page in PAGES for number, _ in tutorial_quotes(page.read_text(encoding="utf-8"))]
    assert found.count("000") >= 30 and found.count("003") >= 10, (found.count("000"), found.count("003"))


def test_the_checks_catch_a_paraphrase_and_a_loose_quote():
    seeds = seed_texts()
    exact = "种子教程 000 说：“若先 Softmax 再减 mask，数值已饱和，减法无效”。"
    paraphrase = "种子教程 000 说，先做 softmax 再减掩码“无效，因为这些值已经饱和”。"
    [(number, text)] = tutorial_quotes(exact)
    assert comparable(text) in seeds[number]
    [(number, text)] = tutorial_quotes(paraphrase)
    assert comparable(text) not in seeds[number]
    assert list(unchecked_quotes('一篇教程说 "ineffective, because the values are already saturated"。'))
    assert list(unchecked_quotes("我们参考的一篇教程说“无效”。"))
    assert not list(unchecked_quotes(exact))
    [(number, text)] = tutorial_quotes("| 不缩放时权重“几乎全是 `[0.999, 0.0001, ...]`” | 种子教程 000 §2.3 |")
    assert number == "000" and comparable(text) in seeds[number]
