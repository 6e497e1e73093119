"""Chinese in figures: every Chinese figure (each <label>.zh.svg the build draws) draws every Chinese character
with the CJK font's own glyph (no boxes); the Chinese sentence's heatmap does so in both language versions
(weights.svg and its Chinese twin weights.zh.svg), and both come from one run with the same weights."""

import html
import re

import pytest
from fontTools.ttLib import TTFont

from lib.plotting import CJK_FONT
from support import GENERATED, nonempty_glob, published, run_snippet

FIGURES = GENERATED / "scaled_dot_product/chinese"


def font_path():
    import importlib.resources

    package, filename, _ = CJK_FONT
    return importlib.resources.files(package) / filename


def glyph_ids(svg):
    """{(font, glyph index)} of the glyphs an SVG drawn by matplotlib defines (text as paths)."""
    return {
        (font, int(index, 16)) for font, index in re.findall(r'<path id="([A-Za-z]+(?:-[A-Za-z]+)?)-([0-9a-f]+)"', svg)
    }


@pytest.mark.claim(
    "The Chinese heatmap draws every Chinese character with the CJK font's glyph, none as a missing-glyph box",
    zh="中文热力图用中日韩字体的字形绘制每个汉字，没有一个画成缺字方框",
)
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


CHINESE_FIGURES = nonempty_glob(GENERATED, "*/*/*.zh.svg")
CJK = re.compile(r"[\u2e80-\u9fff\uff00-\uffef]")  # CJK characters and full-width punctuation


def drawn_texts(svg):
    """The texts matplotlib drew (it writes each as a comment before its glyphs)."""
    return [html.unescape(t) for t in re.findall(r"<!-- (.*?) -->", svg)]


def test_the_build_draws_chinese_figures():
    assert nonempty_glob(GENERATED, "scaled_dot_product/*/*.zh.svg")
    english = [p for p in nonempty_glob(GENERATED, "*/*/*.svg") if not p.name.endswith(".zh.svg")]
    assert len(CHINESE_FIGURES) == len(english)


@pytest.mark.claim(
    "Every Chinese figure draws each of its Chinese characters with Noto Sans SC's own glyph",
    zh="每张中文图都用 Noto Sans SC 自身的字形绘制其中的每个汉字",
)
@pytest.mark.parametrize("figure", CHINESE_FIGURES, ids=lambda p: str(p.relative_to(GENERATED)))
def test_every_chinese_figure_draws_its_characters_with_noto_sans_sc(figure):
    font = TTFont(str(font_path()), lazy=True)
    cmap = font.getBestCmap()
    svg = figure.read_text(encoding="utf-8")
    drawn = glyph_ids(svg)
    characters = {c for text in drawn_texts(svg) for c in CJK.findall(text)}
    for character in sorted(characters):
        index = font.getGlyphID(cmap[ord(character)])
        assert ("NotoSansSC-Regular", index) in drawn, f"{figure.name}: {character} is not drawn with Noto Sans SC"
    boxes = [glyph for glyph in drawn if glyph[1] == 0 or glyph[0].startswith("LastResort")]
    assert not boxes, f"{figure.name}: a missing-glyph box is drawn: {boxes}"


def test_both_language_versions_show_the_same_weights():
    weights = run_snippet("scaled_dot_product/chinese")["weights"]
    cells = [f"{w:.2f}" for w in weights.ravel()]
    for figure in ("weights.svg", "weights.zh.svg"):
        svg = (FIGURES / figure).read_text(encoding="utf-8")
        assert svg.count("<!-- ") >= len(cells)  # matplotlib writes each text as a commented path group
        for cell in set(cells):
            assert f"<!-- {cell} -->" in svg, f"{figure}: the cell {cell} is missing"


def test_the_description_names_each_rows_largest_weight():
    weights, tokens = (
        run_snippet("scaled_dot_product/chinese")["weights"],
        run_snippet("scaled_dot_product/chinese")["tokens"],
    )
    for language in ("description", "description_zh"):
        text = published("scaled_dot_product/chinese")[language]
        for row, column in enumerate(weights.argmax(axis=1)):
            assert f"{weights[row, column]:.2f}" in text and tokens[column] in text
