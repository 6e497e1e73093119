"""The home page: it links every chapter, its map links every stage to a chapter, and the map's shapes are real."""

import re
from pathlib import Path

import numpy as np
import pytest
from generated import published_table
from site_nav import NAV

from lib.attention import causal_mask, multi_head_attention, sinusoidal_positions
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

REPO = Path(__file__).resolve().parents[1]
HOME = REPO / "docs" / "index.md"
LINK = re.compile(r"\]\(([a-z0-9-]+\.md)(?:#[a-z0-9-]+)?\)")


@pytest.mark.claim("The home page links every chapter of the site")
def test_home_links_every_chapter_in_the_nav():
    linked = set(LINK.findall(HOME.read_text(encoding="utf-8")))
    missing = [page for page in NAV if page != "index.md" and page not in linked]
    assert missing == []
    assert all((REPO / "docs" / page).is_file() for page in linked)


@pytest.mark.claim("Every stage on the home page's map links to the chapter that explains it")
def test_every_stage_links_an_existing_chapter():
    rows = published_table("home_pipeline", "stages")
    assert [int(r["#"]) for r in rows] == list(range(1, len(rows) + 1))
    for row in rows:
        page = LINK.search(row["chapter"]).group(1)
        assert (REPO / "docs" / page).is_file(), page
    pages = {LINK.search(r["chapter"]).group(1) for r in rows}
    for chapter in ("tokens-to-vectors.md", "positional-encoding.md", "queries-keys-values.md", "scaled-dot-product.md",
                    "masks.md", "softmax.md", "weighted-sum.md", "multi-head.md"):
        assert chapter in pages


@pytest.mark.claim("The shapes on the home page's map are those of the running sentence through the core multi-head attention")
def test_map_shapes_match_the_core_module():
    tokens = tokenize(SENTENCE)
    x = embed(tokens) + sinusoidal_positions(len(tokens), 8)
    w_q, w_k, w_v = projection_weights()
    output, weights = multi_head_attention(x, w_q, w_k, w_v, np.eye(8), 2, causal_mask(len(tokens)))
    shapes = {r["stage"]: r["shape"] for r in published_table("home_pipeline", "stages")}
    assert shapes["tokens"] == str((len(tokens),))
    assert shapes["embeddings"] == shapes["+ positions"] == str(x.shape)
    assert shapes["scores"] == shapes["softmax"] == str(weights.shape)
    assert shapes["W_o"] == str(output.shape)
    assert shapes["weighted sum"] == shapes["split heads"] == str((2, len(tokens), 4))


def test_home_says_what_the_site_is_and_how_to_read_it():
    text = HOME.read_text(encoding="utf-8")
    opening = text.split("\n## ", 1)[0]
    assert "verified by the build" in opening and "computed by" in opening
    for way in ("make serve", "python snippets/<name>.py", "Online"):
        assert way in text
    assert "generated/home_pipeline/pipeline.svg" in text and "/// caption" in text
