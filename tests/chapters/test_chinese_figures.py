"""Chinese in figures: the Chinese sentence's heatmap draws every character with the CJK font's own glyph (no
boxes), in both language versions of the figure (weights.svg and its Chinese twin weights.zh.svg), and both come
from one run with the same weights."""

import re

import pytest
from fontTools.ttLib import TTFont
from support import GENERATED, published, run_snippet

from lib.plotting import CJK_FONT

FIGURES = GENERATED / "scaled_dot_product/chinese"


def font_path():
    import importlib.resources

    package, filename, _ = CJK_FONT
    return importlib.resources.files(package) / filename


def glyph_ids(svg):
    """{(font, glyph index)} of the glyphs an SVG drawn by matplotlib defines (text as paths)."""
    return {(font, int(index, 16)) for font, index in re.findall(r'<path id="([A-Za-z]+(?:-[A-Za-z]+)?)-([0-9a-f]+)"', svg)}


@pytest.mark.claim("The Chinese heatmap draws every Chinese character with the CJK font's glyph, none as a missing-glyph box")
@pytest.mark.parametrize("figure", ["weights.svg", "weights.zh.svg"])
def test_every_chinese_character_is_drawn_with_its_own_glyph(figure):
    font = TTFont(str(font_path()), lazy=True)
    cmap = font.getBestCmap()
    svg = (FIGURES / figure).read_text(encoding="utf-8")
    drawn = glyph_ids(svg)
    characters = set("".join(run_snippet("scaled_dot_product/chinese")["tokens"]))
    if figure == "weights.zh.svg":
        characters |= set("注意力权重单头键被关注查询发出") - set("，（）")
    for character in sorted(characters):
        index = font.getGlyphID(cmap[ord(character)])
        assert ("NotoSansSC-Regular", index) in drawn, f"{figure}: {character} is not drawn with Noto Sans SC"
    boxes = [glyph for glyph in drawn if glyph[1] == 0 or glyph[0].startswith("LastResort")]
    assert not boxes, f"{figure}: a missing-glyph box is drawn: {boxes}"


def test_both_language_versions_show_the_same_weights():
    weights = run_snippet("scaled_dot_product/chinese")["weights"]
    cells = [f"{w:.2f}" for w in weights.ravel()]
    for figure in ("weights.svg", "weights.zh.svg"):
        svg = (FIGURES / figure).read_text(encoding="utf-8")
        assert svg.count("<!-- ") >= len(cells)  # matplotlib writes each text as a commented path group
        for cell in set(cells):
            assert f"<!-- {cell} -->" in svg, f"{figure}: the cell {cell} is missing"


def test_the_description_names_each_rows_largest_weight():
    weights, tokens = run_snippet("scaled_dot_product/chinese")["weights"], run_snippet("scaled_dot_product/chinese")["tokens"]
    for language in ("description", "description_zh"):
        text = published("scaled_dot_product/chinese")[language]
        for row, column in enumerate(weights.argmax(axis=1)):
            assert f"{weights[row, column]:.2f}" in text and tokens[column] in text
