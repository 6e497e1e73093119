"""Build-time page work: math rendered by KaTeX, figures sized from their SVG, code kept out of search (the
workarounds of Material's internals: test_material_workarounds.py)."""

import re

import pytest

from scripts import fast_pages


def test_chapter_math_becomes_katex_html_with_mathml_and_leaves_no_tex_behind():
    page = (
        '<p>Scale by <span class="arithmatex">\\(\\sqrt{d_k}\\)</span>, where <span class="arithmatex">\\(a &lt; '
        "b\\)</span>.</p>"
        '<div class="arithmatex">\\[\n\\frac{QK^\\top}{\\sqrt{d_k}}\n\\]</div>'
    )
    html = fast_pages.render_math(page, fast_pages.MathFonts())
    assert html.count('<span class="katex-display">') == 1  # the display formula, around its own .katex
    assert '<div class="arithmatex" tabindex="0"' in html  # it may scroll sideways: reachable by keyboard
    assert html.count('<span class="katex">') == 3
    assert "<msqrt>" in html and "<mo>&lt;</mo>" in html  # MathML for screen readers; &lt; was unescaped first
    assert "\\(" not in html and "\\[" not in html


def test_a_page_draws_the_characters_of_its_formulas_not_their_tex():
    formula = fast_pages.katex("\\beta_{\\mathrm{hop}} \\leq 7", False)
    page = f"<p>prose</p>{formula}<p>after</p>"
    drawn = fast_pages.drawn_characters(page)
    assert {"β", "≤", "7", "h", "o", "p"} <= drawn
    assert "\\" not in drawn and "{" not in drawn  # the TeX in MathML
    assert not {"r", "s", "a", "f"} & drawn  # the prose around the formula
    assert fast_pages.drawn_characters("<p>no math</p>") == set()


def test_the_build_collects_the_characters_of_every_formula_it_renders():
    fonts = fast_pages.MathFonts()
    fast_pages.render_math('<span class="arithmatex">\\(\\beta \\leq 7\\)</span>', fonts)
    fast_pages.render_notebook_math(
        '<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown"><p>$\\gamma$</p></div>', fonts
    )
    assert fonts.drawn == {"β", "≤", "7", "γ"}


def test_a_formula_katex_cannot_parse_is_an_error_that_quotes_it():
    with pytest.raises(fast_pages.MathError, match=r"\\\\frac\{a\}\{"):
        fast_pages.render_math('<span class="arithmatex">\\(\\frac{a}{\\)</span>', fast_pages.MathFonts())


def test_notebook_markdown_math_is_rendered_but_code_cells_are_left_alone():
    page = (
        '<!-- Load mathjax --><script src="mathjax.js"></script><!-- End of mathjax configuration -->'
        '<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown"><h1>and the $\\sqrt{d_k}$</h1></div>'
        '<div class="jp-Cell"><pre>label=r"$x$"</pre></div>'
    )
    html = fast_pages.render_notebook_math(page, fast_pages.MathFonts())
    assert "mathjax" not in html and '<span class="katex">' in html
    assert html.endswith('<div class="jp-Cell"><pre>label=r"$x$"</pre></div>')


@pytest.mark.parametrize(
    "attributes, size",
    [('width="460.8pt" height="345.6pt" viewBox="0 0 460.8 345.6"', (614, 461)), ('viewBox="0 0 300 150"', (300, 150))],
)
def test_svg_size_is_read_in_css_pixels(tmp_path, attributes, size):
    svg = tmp_path / "figure.svg"
    svg.write_text(f'<svg xmlns="http://www.w3.org/2000/svg" {attributes}></svg>')
    assert fast_pages.svg_size(svg) == size


def test_an_svg_without_size_is_an_error_naming_it(tmp_path):
    svg = tmp_path / "figure.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg"></svg>')
    with pytest.raises(ValueError, match="figure.svg"):
        fast_pages.svg_size(svg)


def test_code_blocks_are_marked_for_the_search_index_to_skip():
    assert fast_pages.leave_out_of_search('<div class="highlight"><pre>x</pre></div>') == (
        '<div class="highlight" data-search-exclude><pre>x</pre></div>'
    )


def test_unused_css_is_dropped_selector_by_selector():
    page = (
        '<div class="cell output"><p class="note">x</p></div>'
        "<style>.cell .note{color:red}.absent{color:blue}.cell:not(.absent), .absent .cell{margin:0}"
        ".jupyter-wrapper :root{--x:1}:is(.cell, .absent) p{padding:0}"
        "@media (max-width: 10px){.absent{top:0}.output{top:1px}}@media print{.absent{top:0}}"
        "@font-face{font-family:Kept}</style>"
    )
    assert fast_pages.drop_unused_css(page) == (
        '<div class="cell output"><p class="note">x</p></div>'
        "<style>.cell .note{color:red}.cell:not(.absent){margin:0}:is(.cell, .absent) p{padding:0}"
        "@media (max-width: 10px){.output{top:1px}}@font-face{font-family:Kept}</style>"
    )


def test_pages_with_math_preload_the_katex_fonts_their_formulas_use():
    head = '<link rel="stylesheet" href="../assets/katex/katex.min.css">'

    def preloaded(body):
        return re.findall(
            r'<link rel="preload" href="\.\./assets/katex/fonts/([\w-]+)\.woff2" as="font"',
            fast_pages.preload_math_fonts(head + body, fast_pages.MathFonts()),
        )

    assert preloaded('<span class="katex"><span class="mord">2</span></span>') == ["KaTeX_Main-Regular"]
    assert preloaded('<span class="katex"><span class="mord mathnormal">x</span></span>') == [
        "KaTeX_Main-Regular",
        "KaTeX_Math-Italic",
    ]
    big_sum = (
        '<span class="katex"><span class="mop op-symbol large-op">∑</span><span class="mord mathbf">1</span></span>'
    )
    assert sorted(preloaded(big_sum)) == ["KaTeX_Main-Bold", "KaTeX_Main-Regular", "KaTeX_Size2-Regular"]
    assert preloaded('<span class="katex"><span class="delimsizing size1">(</span></span>') == [
        "KaTeX_Main-Regular",
        "KaTeX_Size1-Regular",
    ]
    assert preloaded('<span class="katex"><span class="size1">x</span></span>') == [
        "KaTeX_Main-Regular"
    ]  # no delimiter
    fonts = fast_pages.MathFonts()
    page = fast_pages.preload_math_fonts(head + '<span class="katex">2</span>', fonts)
    assert page.index('rel="preload"') < page.index('rel="stylesheet"')
    assert fonts.preloaded == {"KaTeX_Main-Regular.woff2"}  # noted for the build's font subsetting
    assert fast_pages.preload_math_fonts(head + "<p>no math</p>", fonts) == head + "<p>no math</p>"


def test_external_scripts_are_deferred_in_their_order_and_inline_ones_are_left_alone():
    page = (
        '<script>var early = 1;</script><script id="__config" type="application/json">{}</script>'
        '<script src="../assets/javascripts/bundle.a5f9d56c.min.js"></script>'
        '<script src="../assets/javascripts/site.js"></script>'
    )
    deferred = fast_pages.defer_scripts(page)
    assert re.findall(r"<script[^>]*>", deferred) == [
        "<script>",
        '<script id="__config" type="application/json">',
        '<script src="../assets/javascripts/bundle.a5f9d56c.min.js" defer>',
        '<script src="../assets/javascripts/site.js" defer>',
    ]


def test_the_blocks_the_browser_may_skip_begin_at_a_chapters_thirteenth_top_level_element():
    blocks = [
        '<h1 id="t">T</h1>',
        "<hr>",
        *[f"<p>text\n<em>{n}</em></p>" for n in range(9)],
        "<!-- try it\n  - <p>a</p>\n  -->\n<p>a <br/> b</p>",
        '<figure><img src="a.svg"></figure>',
        "<p>last</p>",
    ]
    page = "\n".join(blocks)
    assert page[fast_pages.skippable_from(page) :].startswith("<figure>")
    first_twelve = "\n".join(blocks[:12])
    assert fast_pages.skippable_from(first_twelve) == len(first_twelve)
