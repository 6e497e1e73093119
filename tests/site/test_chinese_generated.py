"""The built Chinese edition: the tables and figures the build generates are Chinese on every Chinese page.

On each Chinese chapter, every table the page includes is its Chinese twin (table-<name>.zh.json) and every
generated figure it shows is a Chinese twin (<label>.zh.svg), and neither shows English words other than code,
identifiers, model names, units and the examples' tokens. The judge here is independent of snippets/lib/zh.py:
its own word pattern, with the project's one list of what may stay English (snippets/lib/zh.latin.toml).
"""

import html
import re
from collections import defaultdict

import pytest
from bs4 import BeautifulSoup

from lib.running_example import SENTENCE
from lib.tiny_model import REFERENCE_VOCAB
from scripts.pipeline.published import table
from scripts.pipeline.references import read_page
from support import DOCS_ZH, LATIN_IN_CHINESE, LATIN_PHRASES, nonempty_glob

pytestmark = pytest.mark.site

# A title, English quoted as it was written (a passage with no Chinese in it), a name of several words, or a
# repository's or file's path (meta-llama/llama-models).
QUOTED = re.compile(
    rf"《[^》]*》|“[^“”\u4e00-\u9fff]*”|\"[^\"\u4e00-\u9fff]*\"|{LATIN_PHRASES.pattern}|[\w.-]+/[\w./-]+"
)
# The tokens the examples feed their models (data, shown as the model sees them).
TOKENS = {*SENTENCE.lower().rstrip(".").split(), *REFERENCE_VOCAB, "dog", "dogs", "ran", "chase"}
MATH = re.compile(r"\$[^$]*\$")
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
CODE_NEIGHBOUR = set("._\\/|[]()=@^*:")  # a word touching one of these is code or a formula: W_o, np.tril, dL/dv_j


def english_words(text):
    """The English words of ``text`` a Chinese reader should not see."""
    text = QUOTED.sub(" ", MATH.sub(" ", text))
    found = []
    for match in WORD.finditer(text):
        word, before, after = (
            match.group(),
            text[match.start() - 1 : match.start()],
            text[match.end() : match.end() + 1],
        )
        allowed = word in LATIN_IN_CHINESE or word.lower() in TOKENS
        if len(word) < 2 or re.search(r"[0-9_]", word) or allowed:
            continue
        if before in CODE_NEIGHBOUR or after in CODE_NEIGHBOUR:
            continue
        found.append(word)
    return found


def chinese_chapters():
    return [p.stem for p in nonempty_glob(DOCS_ZH, "*.md")]


def article(site, stem):
    page = site / "zh" / ("index.html" if stem == "index" else f"{stem}/index.html")
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    return page, soup.find("article")


def prose_text(element):
    """The text of an element without its code and rendered math (KaTeX writes the TeX source beside it)."""
    element = BeautifulSoup(str(element), "html.parser")
    for hidden in element.select("code, .katex, .arithmatex, annotation"):
        hidden.decompose()
    return element.get_text(" ")


def written_header(cell):
    """A header cell as written in the table's JSON, without its math, code and link targets, spaces dropped."""
    cell = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", re.sub(r"`[^`]*`", "", MATH.sub("", cell)))
    return re.sub(r"\s+", "", cell)


def shown_header(th):
    return re.sub(r"\s+", "", prose_text(th))


def table_leaks(stem, body):
    """English words in the tables the page includes, each table found by its Chinese header."""
    leaks, tables = [], defaultdict(list)  # header -> the page's tables with it, in page order
    for shown in body.select("table"):
        tables[tuple(shown_header(th) for th in shown.select("thead th"))].append(shown)
    for snippet, name in read_page((DOCS_ZH / f"{stem}.md").read_text(encoding="utf-8")).tables:
        header = tuple(written_header(cell) for cell in table(snippet, name, language="zh")["header"])
        shown = tables[header].pop(0) if tables[header] else None  # tables sharing a header: the next one
        if shown is None:
            leaks.append(f"table {snippet}/{name}: its Chinese header {header} is not on the page")
            continue
        words = english_words(prose_text(shown))
        if words:
            leaks.append(f"table {snippet}/{name}: {sorted(set(words))}")
    return leaks


def figure_files(page, body):
    """The generated SVG figures the page shows or links, as files of the built site."""
    sources = [img.get("src", "") for img in body.find_all("img")] + [a.get("href", "") for a in body.find_all("a")]
    return sorted({(page.parent / src).resolve() for src in sources if "generated/" in src and src.endswith(".svg")})


def svg_texts(path):
    """The texts matplotlib drew into an SVG (it writes each as a comment before the glyphs)."""
    return [html.unescape(t) for t in re.findall(r"<!-- (.*?) -->", path.read_text(encoding="utf-8"))]


def figure_leaks(page, body):
    leaks = []
    for svg in figure_files(page, body):
        if not svg.name.endswith(".zh.svg"):
            leaks.append(f"figure {svg.name}: the English figure is shown")
            continue
        words = [w for text in svg_texts(svg) for w in english_words(text)]
        if words:
            leaks.append(f"figure {svg.parent.name}/{svg.name}: {sorted(set(words))}")
    return leaks


def test_the_judge_finds_english_and_spares_code_and_tokens():
    assert english_words("注意力权重（fixed scale）") == ["fixed", "scale"]
    assert english_words("W_q、W_k 初始化，np.tril(k=1)，$\\sqrt{d_k}$，softmax 权重，cat（位置 1）") == []


@pytest.mark.claim(
    "No Chinese chapter shows English words in a generated table or figure (claims, ledger and benchmark pages aside)",
    zh="除论断、台账和基准测试页面外，没有哪个中文章节在生成的表格或图中显示英文单词",
)
def test_chinese_pages_show_generated_tables_and_figures_in_chinese(built_site):
    leaks = {}
    for stem in chinese_chapters():
        page, body = article(built_site, stem)
        found = table_leaks(stem, body) + figure_leaks(page, body)
        if found:
            leaks[stem] = found
    assert not leaks, "English in generated text on Chinese pages:\n" + "\n".join(
        f"{stem}: {leak}" for stem, found in leaks.items() for leak in found
    )


def test_every_chinese_chapter_with_figures_shows_chinese_ones(built_site):
    """The check above is not vacuous: the Chinese chapters show Chinese figures and tables."""
    shown = [svg for stem in chinese_chapters() for svg in figure_files(*article(built_site, stem))]
    assert shown and all(svg.name.endswith(".zh.svg") for svg in shown)
