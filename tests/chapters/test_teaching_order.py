"""Teaching order and notation: read the menu top to bottom and meet nothing undefined.

A chapter may link a later chapter only in a sentence that says so ("you will see ... later", "the next
chapter", ...), and may use an idea that a later chapter teaches (W_Q, a causal mask, heads, the backward pass)
only after such an announcement. Every width symbol on the site, and every symbol in a shape table, is one of the
notation page's symbols, and the notation page quotes its sizes from the snippets instead of typing them.
"""

import re

import pytest

from scripts.pipeline.published import table
from scripts.pipeline.references import VALUE, read_page, without_references
from support import NAV, REPO, nonempty_glob

DOCS = REPO / "docs"
OVERVIEWS = ("index.md", "notation.md")  # maps of the whole site: they link every chapter by design
CHAPTERS = [page for page in NAV if page not in OVERVIEWS]
ANNOUNCING = ("you will see", "later", "next chapter", "next:", "come back to", "comes back to")
LINK = re.compile(r"\]\(([a-z0-9-]+\.md)(?:#[a-z0-9-]+)?\)")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"(\[*$`])")
# An idea, how a page spells it, and the chapter that teaches it.
IDEAS = {
    "the projections W_Q, W_K, W_V": (
        re.compile(r"W_\{?[QKVqkv]\}?(?![A-Za-z])|W\^\{?[QKV]"),
        "queries-keys-values.md",
    ),
    "the causal mask": (re.compile(r"causal mask", re.IGNORECASE), "masks.md"),
    "heads": (re.compile(r"\bheads?\b|d_\{?\\text\{head\}|d_head"), "multi-head.md"),
    "the backward pass": (re.compile(r"backward pass", re.IGNORECASE), "backward.md"),
    "the KV cache": (re.compile(r"\bKV[ -]cache", re.IGNORECASE), "kv-cache.md"),
}


def sentences(page):
    """The page's prose, sentence by sentence: code blocks, includes, headings and figures left out."""
    return prose_sentences((DOCS / page).read_text(encoding="utf-8"))


def prose_sentences(text):
    text = re.sub(r"^(\s*)(```|~~~).*?^\1\2\s*$", "", text, flags=re.MULTILINE | re.DOTALL)
    blocks = []
    for block in re.split(r"\n\s*\n|\n(?=\s*(?:[-*]|\d+\.) )", text):
        block = " ".join(line.strip() for line in block.splitlines())
        if block and not block.startswith(("#", "--8<--", "![", "///", "|")):
            blocks.append(block)
    return [s for block in blocks for s in SENTENCE_END.split(block)]


def announces(sentence):
    return any(phrase in sentence.lower() for phrase in ANNOUNCING)


def forward_problems(nav):
    """(page, target, sentence) for every link to a later chapter that no announcing sentence introduced."""
    chapters = [page for page in nav if page not in OVERVIEWS]
    problems = []
    for i, page in enumerate(chapters):
        later = set(chapters[i + 1 :])
        announced = set()
        for sentence in sentences(page):
            targets = [t for t in LINK.findall(sentence) if t in later]
            if announces(sentence):
                announced.update(targets)
            problems += [(page, t, sentence) for t in targets if t not in announced]
    return problems


def idea_problems(nav):
    """(page, idea, sentence) for every use of an idea before its chapter, with no announcement before or at it."""
    chapters = [page for page in nav if page not in OVERVIEWS]
    problems = []
    for i, page in enumerate(chapters):
        for idea, (pattern, home) in IDEAS.items():
            if home not in chapters[i + 1 :]:
                continue
            for sentence in sentences(page):
                if home in LINK.findall(sentence) and announces(sentence):
                    break  # announced: later uses on this page are fine
                if pattern.search(sentence):
                    problems.append((page, idea, sentence))
                    break
    return problems


def test_the_menu_lists_every_chapter_once():
    assert len(NAV) == len(set(NAV))
    assert {p.name for p in nonempty_glob(DOCS, "*.md")} == set(NAV)


@pytest.mark.claim(
    "Read in menu order, every link to a later chapter is announced as one",
    zh="按菜单顺序阅读时，每个指向后续章节的链接都注明了它指向后面的章节",
)
def test_links_to_later_chapters_are_announced():
    assert forward_problems(NAV) == []


@pytest.mark.claim(
    "No chapter uses W_Q, a causal mask, heads or the backward pass before their chapter, unannounced",
    zh="没有哪一章会在讲解 W_Q、因果掩码、头或反向传播的章节之前不加说明地使用它们",
)
def test_ideas_come_after_the_chapter_that_teaches_them():
    assert idea_problems(NAV) == []


def test_the_old_menu_order_fails_both_checks():
    """The menu before the reorder: positions and order before Q/K/V, scores and masks. The checks must catch it."""
    old = NAV.copy()
    old.remove("order-matters.md")
    old.insert(old.index("positional-encoding.md") + 1, "order-matters.md")
    assert ("order-matters.md", "masks.md") in {(page, target) for page, target, _ in forward_problems(old)}
    assert ("order-matters.md", "the projections W_Q, W_K, W_V") in {(p, idea) for p, idea, _ in idea_problems(old)}


def test_the_checks_read_sentences_not_pages():
    """An announcement counts for its own sentence, not for its neighbours; code and includes are not prose."""
    text = (
        "You will see softmax later. Scores use [masks](masks.md).\n\n"
        '```python\nx = 1  # [code](softmax.md)\n```\n\n--8<-- "snippets/a.py"\n\n'
        "- A bullet, later in [Softmax](softmax.md).\n- Another one."
    )
    found = prose_sentences(text)
    assert found == [
        "You will see softmax later.",
        "Scores use [masks](masks.md).",
        "- A bullet, later in [Softmax](softmax.md).",
        "- Another one.",
    ]
    assert [announces(s) for s in found] == [True, False, True, False]


# --- notation ---------------------------------------------------------------------------------------------------

NOTATION = (DOCS / "notation.md").read_text(encoding="utf-8")
WIDTH = re.compile(r"d_(?:\{\\text\{(\w+)\}\}|\\text\{(\w+)\}|\{(\w+)\}|([a-z])(?![a-z]))")
MATH = re.compile(r"\$\$(.+?)\$\$|\$([^$]+?)\$", re.DOTALL)  # inline math may run over a line break


def widths(text):
    """Every d_<name> written in the math of a Markdown text, as 'd_model', 'd_k', ..."""
    found = set()
    for display, inline in MATH.findall(text):
        for groups in WIDTH.findall(display or inline):
            found.add("d_" + next(g for g in groups if g))
    return found


def table_rows(text, heading):
    """The rows (lists of cells) of the first Markdown table after a heading."""
    section = text.split(f"## {heading}\n", 1)[1].lstrip("\n").split("\n\n", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]


SIZE_ROWS = table_rows(NOTATION, "Sizes")
SYMBOLS = {widths(row[0]).pop() if widths(row[0]) else row[0].strip("$") for row in SIZE_ROWS}


def test_the_notation_table_defines_the_papers_symbols():
    assert SYMBOLS == {"L", "L_q", "L_k", "B", "V", "d_model", "d_k", "d_v", "h", "d_head", "d_ff", "d_c", "d_h"}


@pytest.mark.claim(
    "Every width symbol d_... on the site is one of the notation table's symbols",
    zh="网站上的每个宽度符号 d_... 都是符号表中的符号",
)
@pytest.mark.parametrize("page", NAV)
def test_every_width_symbol_is_in_the_notation_table(page):
    used = widths((DOCS / page).read_text(encoding="utf-8"))
    assert used <= SYMBOLS, f"{page} uses {sorted(used - SYMBOLS)}, which docs/notation.md does not define"


def test_the_width_reader_finds_every_spelling():
    assert widths(r"$d_{\text{model}}$, $d_\text{head}$ and $\sqrt{d_k}$, $$d_{v} + d_{\text{ff}}$$") == {
        "d_model",
        "d_head",
        "d_k",
        "d_v",
        "d_ff",
    }
    assert widths("d_k outside math, $x_d$") == set()
    assert widths("bytes: $(d_c +\n  d_h^R) \\times 2$") == {"d_c", "d_h"}  # inline math over a line break


RUNNING_SENTENCE_SNIPPETS = {"tokens_to_vectors.embed", "scaled_dot_product.steps", "multi_head.heads"}


def test_a_size_not_of_the_running_sentence_names_its_chapter():
    """Notation's last column gives the running sentence's sizes where it has them, else those of the chapter or model
    the row names: a row quoting another snippet's value (or none) links the chapter it comes from."""
    for symbol, meaning, example in SIZE_ROWS:
        quoted = {f"{chapter}.{what}" for chapter, what, _ in VALUE.findall(example)}
        if not quoted or not quoted <= RUNNING_SENTENCE_SNIPPETS:
            assert re.search(r"\]\([a-z-]+\.md\)", meaning + example) or symbol in ("$L_k$", "$d_v$", "$d_h^R$"), symbol
    assert "where it has them, otherwise of the chapter or model the row names" in " ".join(NOTATION.split())


# (page, a use of a letter there that the notation tables give another meaning, the words that name it in Notation)
OTHER_MEANINGS = [
    ("induction-heads.md", r"\\ln V", "[Induction heads](induction-heads.md), in the best loss on uniformly random"),
    ("why-attention.md", r"\$h_t = ", "$h_t$ (a recurrent network's state)"),
    ("why-attention.md", r"\$d = \{\{", "$d$ (that network's width)"),
    ("softmax.md", r"h e_j\)", "$h$ (a finite-difference step)"),
    ("softmax.md", r"\\sum_\{m=1\}", "$m$ (the index of a sum)"),
    ("positional-encoding.md", r"offset \$k\$", "$k$ (an offset between positions)"),
    (
        "backward.md",
        r"\$h = 10\^\{-6\}\$",
        "$h$ (a finite-difference step) in [Softmax](softmax.md) and [Backward](backward.md)",
    ),
    (
        "scaled-dot-product.md",
        r"\\sum_\{m=1\}",
        "[Softmax](softmax.md) and [Scaled dot-product](scaled-dot-product.md)",
    ),
    ("rotary.md", r"depends on \$m - n\$", "a position in [Rotary](rotary.md)"),
    ("online-softmax.md", r"the maximum \$m_j\$", "a running maximum in [Online softmax](online-softmax.md)"),
    ("kv-cache.md", r"model width \$d\$", "$d$ (the model width) in [KV cache](kv-cache.md)"),
    (
        "transformer-block.md",
        r"\$d = d_\\text\{model\}\$",
        "$d$ (the model width) in [KV cache](kv-cache.md), [Transformer block](transformer-block.md)",
    ),
    ("rotary.md", r"\$d = d_\\text\{head\}\$", "a head's width in [Rotary](rotary.md)"),
    ("benchmarks.md", r"head width \$d\$", "the tiling table of [Benchmarks](benchmarks.md)"),
    ("benchmarks.md", r"\$4Ld\^2 \+ 2L\^2d\$", "the multi-head table of [Benchmarks](benchmarks.md)"),
    ("online-softmax.md", r"the tiled peak is the \$\(L, d\)\$", "[Online softmax](online-softmax.md)"),
    ("backward.md", r"\\rVert / \\sqrt\{d\}", "a head's width in [Rotary](rotary.md), [Backward](backward.md)"),
]


@pytest.mark.parametrize("page, use, named", OTHER_MEANINGS, ids=[f"{p}:{n[:12]}" for p, _, n in OTHER_MEANINGS])
def test_notation_names_each_other_meaning_of_its_letters(page, use, named):
    """Notation says every chapter uses its symbols with its meanings, except the letters it lists as given a meaning
    of a page's own: each page that gives a letter of the tables another meaning is listed with it (the list was once
    headed "used on one page only" while $h$, $m$ and $d$ had other meanings on further pages)."""
    assert re.search(use, (DOCS / page).read_text(encoding="utf-8")), f"{page} no longer writes {use!r}"
    assert named in " ".join(NOTATION.split()), f"docs/notation.md does not say that {page} uses {use!r} otherwise"
    assert "Letters used on one page only" not in " ".join(NOTATION.split())


SHAPE_TABLES = [
    p.parent.relative_to(DOCS / "generated").as_posix()
    for p in nonempty_glob(DOCS / "generated", "*/*/table-shapes.json")
]


def test_the_shape_tables_are_found():
    assert len(SHAPE_TABLES) >= 5, SHAPE_TABLES


@pytest.mark.parametrize("snippet", SHAPE_TABLES)
def test_shape_tables_use_only_notation_symbols(snippet):
    """The columns that spell shapes in symbols use the notation table's symbols, and nothing else."""
    published = table(snippet, "shapes")
    header, rows = published["header"], published["rows"]
    symbolic_columns = [i for i, title in enumerate(header) if title in ("axes", "shape in symbols", "meaning")]
    symbolic = set()
    for cells in rows:
        for i in symbolic_columns:
            for shape in re.findall(r"\(([A-Za-z_][A-Za-z_ *,]*)\)", cells[i]):
                symbolic |= {s for s in re.split(r"[ ,*]+", shape) if s}
    assert symbolic or not symbolic_columns, f"{snippet}: no symbol read from {symbolic_columns}"
    assert symbolic <= SYMBOLS, f"{snippet}: {sorted(symbolic - SYMBOLS)}"


def test_the_notation_sizes_are_quoted_from_snippets():
    for symbol, _, example in SIZE_ROWS:
        plain = re.sub(r"\$.*?\$|\(\[.*?\)\)", "", without_references(example))
        assert not re.search(r"\d", plain), f"{symbol}: a size typed by hand in {example!r}"
    assert sum(bool(read_page(example).values) for _, _, example in SIZE_ROWS) >= 6


def test_every_chapter_that_introduces_a_width_links_the_notation():
    for page in ("index.md", "queries-keys-values.md", "multi-head.md", "why-attention.md"):
        assert "](notation.md)" in (DOCS / page).read_text(encoding="utf-8"), page


def test_multi_head_says_which_features_are_sliced():
    """The claims page says "a head looks at its own slice of the input features" does not hold; the multi-head
    page's "cut the feature dimension into h slices" must say that the projected features are cut."""
    page = re.sub(r"\s+", " ", (DOCS / "multi-head.md").read_text(encoding="utf-8"))
    assert "**Which features are sliced.** The *projected* features" in page
    assert "The input $x$ is not cut." in page
