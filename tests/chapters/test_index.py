"""The home page: it links every chapter, its map links every stage to a chapter, and the map's shapes are real."""

import re

import numpy as np
import pytest

from lib.attention import causal_mask, multi_head_attention, scaled_dot_product_attention, sinusoidal_positions
from lib.running_example import SENTENCE, embed, projection_weights, tokenize
from scripts.chapter_list import CHAPTER_LIST, chapter_list, page_title, translate_nav
from scripts.pipeline.references import VALUE
from support import NAV, REPO, mkdocs_config, nonempty_glob, published_table

HOME = REPO / "docs" / "index.md"
NUMBER_WORDS = {10: "ten", 11: "eleven", 12: "twelve", 13: "thirteen"}
LINK = re.compile(r"\]\(([a-z0-9-]+\.md)(?:#[a-z0-9-]+)?\)")


@pytest.mark.claim(
    "The home page links every chapter of the site, with its title and summary",
    zh="首页链接到网站的每一章，并附上章节标题和简介",
)
@pytest.mark.parametrize(
    "docs, labels", [("docs", {}), ("docs-zh", mkdocs_config("mkdocs.zh.yml")["extra"]["nav_labels"])]
)
def test_home_links_every_chapter_in_the_nav(docs, labels):
    assert CHAPTER_LIST in (REPO / docs / "index.md").read_text(encoding="utf-8")
    nav = translate_nav(mkdocs_config()["nav"], labels) if labels else mkdocs_config()["nav"]
    listed = chapter_list(nav, REPO / docs, "zh" if labels else "en")
    assert [m.group(1) for m in LINK.finditer(listed)] == [page for page in NAV if page != "index.md"]
    for page in NAV[1:]:
        assert f"[{page_title(REPO / docs / page)}]({page})" in listed
    assert all(f"**{label}**" in listed for label in labels.values() if label != labels["Home"])


@pytest.mark.claim(
    "Every step on the home page's map links to the chapter that explains it",
    zh="首页路线图上的每一步都链接到讲解它的章节",
)
def test_every_stage_links_an_existing_chapter():
    rows = published_table("index/pipeline", "stages")
    assert [int(r["#"]) for r in rows] == list(range(1, len(rows) + 1))
    for row in rows:
        page = LINK.search(row["chapter"]).group(1)
        assert (REPO / "docs" / page).is_file(), page
    pages = {LINK.search(r["chapter"]).group(1) for r in rows}
    for chapter in (
        "tokens-to-vectors.md",
        "positional-encoding.md",
        "queries-keys-values.md",
        "scaled-dot-product.md",
        "masks.md",
        "softmax.md",
        "weighted-sum.md",
        "multi-head.md",
    ):
        assert chapter in pages
    teaches = {
        "tokens": "tokens-to-vectors.md",
        "embeddings": "tokens-to-vectors.md",
        "+ positions": "positional-encoding.md",
        "Q, K, V": "queries-keys-values.md",
        "softmax": "softmax.md",
        "scaled scores": "scaled-dot-product.md",
        "mask": "masks.md",
        "weighted sum": "weighted-sum.md",
        "split heads": "multi-head.md",
        "merge heads": "multi-head.md",
        "W_o": "multi-head.md",
    }
    assert {r["step"]: LINK.search(r["chapter"]).group(1) for r in rows} == teaches


@pytest.mark.claim("The home page's map follows the order of the menu", zh="首页路线图遵循菜单的顺序")
def test_map_steps_follow_the_menu():
    chapters = [LINK.search(r["chapter"]).group(1) for r in published_table("index/pipeline", "stages")]
    positions = [NAV.index(page) for page in chapters]
    assert positions == sorted(positions), chapters


def test_the_figure_text_names_the_map_steps_in_order():
    """The alt text lists the steps as the table does, with the right count."""
    steps = [r["step"] for r in published_table("index/pipeline", "stages")]
    alt = re.search(r"!\[(.*?)\]\(generated/index/pipeline/pipeline.svg\)", HOME.read_text(encoding="utf-8")).group(1)
    assert f"A flow chart of {NUMBER_WORDS[len(steps)]} boxes" in alt
    listed = alt.split("order of the menu: ", 1)[1].split(". ", 1)[0].split(", ")
    assert listed == [s.replace("+ ", "plus ").replace("Q, K, V", "Q K V") for s in steps]


@pytest.mark.claim(
    "The shapes on the home page's map are those of the running sentence through the core module: "
    "one head of width d_k = d_model, then two heads",
    zh="首页路线图上的形状就是贯穿示例的句子经过核心模块时的形状：先是一个宽度 d_k = d_model 的头，然后是两个头",
)
def test_map_shapes_match_the_core_module():
    tokens = tokenize(SENTENCE)
    x = embed(tokens) + sinusoidal_positions(len(tokens), 8)
    w_q, w_k, w_v = projection_weights()
    output, weights = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, causal_mask(len(tokens)))
    mixed, head_weights = multi_head_attention(x, w_q, w_k, w_v, np.eye(8), 2, causal_mask(len(tokens)))
    shapes = {r["step"]: r["shape"] for r in published_table("index/pipeline", "stages")}
    assert shapes["tokens"] == shapes["softmax"] == str((len(tokens),))
    assert shapes["embeddings"] == shapes["+ positions"] == shapes["Q, K, V"] == str(x.shape)
    assert shapes["scaled scores"] == shapes["mask"] == str(weights.shape)
    assert shapes["weighted sum"] == str(output.shape)
    assert shapes["split heads"] == str((2, len(tokens), 4)) and head_weights.shape == (2, len(tokens), len(tokens))
    assert shapes["merge heads"] == shapes["W_o"] == str(mixed.shape)


def test_home_says_what_the_site_is_and_how_to_read_it():
    text = HOME.read_text(encoding="utf-8")
    opening = text.split("\n## ", 1)[0]
    assert "verified by the build" in opening and "computed by" in opening
    for way in ("make serve", "python snippets/<chapter>/<what>.py", "Online"):
        assert way in text
    assert "generated/index/pipeline/pipeline.svg" in text and "/// caption" in text


QUOTED_TABLE_SOURCE = {"docs": re.compile(r"\bTable \d"), "docs-zh": re.compile(r"表 \d")}
DECIMAL = re.compile(r"(?<![\w.§])\d+\.\d+")  # not a section number (§2.3)
NOT_TYPED = re.compile(rf"{VALUE.pattern}|\$[^$]*\$|`[^`]*`")  # values, math and code in a typed table's cells


def typed_tables(markdown):
    """(the paragraph before it, its body rows) of each Markdown table a page types in (not a generated one)."""
    for match in re.finditer(r"((?:^(?!\|).*\n)+)\n?((?:^\|.*\n)+)", markdown, re.MULTILINE):
        before = match.group(1).strip().split("\n\n")[-1]
        yield before, match.group(2).splitlines()[2:]


@pytest.mark.parametrize("docs", ["docs", "docs-zh"])
def test_tables_of_numbers_typed_in_a_page_are_quotations_naming_the_papers_table(docs):
    """The home page promises that what the site measures is computed, and that numbers quoted from a paper are
    named as quotations: a page's typed-in table of decimal numbers is a paper's (it is introduced by the text that
    names the paper's table), so "every table on the site is computed" would be false and the home page says less."""
    quoted = 0
    for page in nonempty_glob(REPO / docs, "*.md"):
        for before, rows in typed_tables(page.read_text(encoding="utf-8")):
            if any(DECIMAL.search(NOT_TYPED.sub("", row)) for row in rows):
                assert QUOTED_TABLE_SOURCE[docs].search(before), f"{page.name}: a typed table after {before!r}"
                quoted += 1
    assert quoted >= 2
    home = (REPO / docs / "index.md").read_text(encoding="utf-8")
    assert ("table it measures" if docs == "docs" else "站内测得的每个数字") in home
    # Papers are not the only quoted source: Positional encoding quotes BERT's settings from its modeling.py.
    assert "`max_position_embeddings`" in (REPO / docs / "positional-encoding.md").read_text(encoding="utf-8")
    said = " ".join(home.split())
    assert (
        "quotes from a paper, a reference code base or a tutorial are not measured here"
        if docs == "docs"
        else "从论文、参考代码或教程中引用的数字和表格不是本站测得的"
    ) in said
