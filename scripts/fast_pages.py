"""What keeps pages light on a phone: plain functions over a page's HTML and over the built site, whatever the
theme or the generator (scripts/hooks/page_weight.py calls them). Material's own markup, stylesheets and scripts
are scripts/material_workarounds.py's.

- Math is rendered to KaTeX HTML (and MathML) at build time: chapters' arithmatex output and the ``$...$`` of
  notebook Markdown cells; a formula KaTeX cannot parse is an error naming the page. No KaTeX JavaScript.
- A page with math preloads the KaTeX fonts its formulas use, and each font keeps only the glyphs the site's
  formulas draw (collected in a MathFonts as the pages are rendered).
- Figures get their width and height from the SVG file; every figure after a page's first loads lazily, and so
  does the first when it lies in the blocks the browser may skip (site.css).
- Notebook pages keep only the JupyterLab CSS rules whose selectors name classes they have; their code cells take
  the keyboard focus (they may scroll sideways).
- The page's scripts are deferred: they run in order once the page is parsed.
- The search index gets prose only (no code, program output, rendered math or notebook page), written as UTF-8.
"""

import functools
import html
import io
import json
import posixpath
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pykatex
import tinycss2
from fontTools import subset
from fontTools.ttLib import TTFont

from scripts.build_cache import cached
from scripts.pipeline.project import REPO

INLINE_MATH = re.compile(r'<span class="arithmatex">\\\((.*?)\\\)</span>', re.DOTALL)
DISPLAY_MATH = re.compile(r'<div class="arithmatex">\\\[(.*?)\\\]</div>', re.DOTALL)
NOTEBOOK_MARKDOWN = re.compile(
    r'(<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown.*?)(?=<div class="jp-Cell|\Z)', re.DOTALL
)
DOLLAR_MATH = re.compile(r"\$\$(.+?)\$\$|\$([^$<>\n]+?)\$", re.DOTALL)
MATHJAX_LOADER = re.compile(r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->", re.DOTALL)
IMAGE = re.compile(r"<img ([^>]*?)/?>")
SRC = re.compile(r'\bsrc="([^"]+)"')
CODE_BLOCK = '<div class="highlight">'
NOTEBOOK_CODE = '<div class="highlight-ipynb'
NOTEBOOK_MARKDOWN_CODE = '<div class="highlight"><pre>'  # a code block in a notebook's Markdown cell
SVG_LENGTH = re.compile(r"^([\d.]+)(pt|px)?$")
PX_PER = {"pt": 4 / 3, "px": 1.0, None: 1.0}
KATEX_STYLESHEET = re.compile(r'<link rel="stylesheet" href="([^"]*)katex\.min\.css">')
KATEX_CSS = REPO / "docs" / "assets" / "katex" / "katex.min.css"
KATEX_FONTS = REPO / "docs" / "assets" / "katex" / "fonts"  # as KaTeX ships them; the site's copies are cut down
EXTERNAL_SCRIPT = re.compile(r'<script src="([^"]+\.js)"></script>')
STYLE_BLOCK = re.compile(r"(<style[^>]*>)(.*?)(</style>)", re.DOTALL)
CLASS_ATTRIBUTE = re.compile(r'\bclass="([^"]*)"')
VOID_ELEMENTS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
TAG_OR_COMMENT = re.compile(r"<!--.*?-->|<(/?)([a-zA-Z][^\s/>]*)[^>]*>", re.DOTALL)  # group 1 is None for a comment
FIRST_SKIPPED_BLOCK = 13  # site.css: `.md-content__inner > :nth-child(n + 13)` may be skipped until near the screen
ROOT_BELOW_AN_ELEMENT = re.compile(r"\S\s*[\s>+~]\s*:root")  # `.jupyter-wrapper :root`: :root has no ancestor


class MathError(ValueError):
    pass


class _DrawnMath(HTMLParser):
    """Collects the characters of the visible part of KaTeX formulas (``.katex-html``), which the KaTeX fonts draw."""

    def __init__(self):
        super().__init__()
        self.characters, self.depth = set(), 0  # depth: open elements since the innermost .katex-html began

    def handle_starttag(self, tag, attrs):
        if self.depth or "katex-html" in (dict(attrs).get("class") or "").split():
            self.depth += tag not in VOID_ELEMENTS

    def handle_endtag(self, tag):
        self.depth -= bool(self.depth)

    def handle_data(self, data):
        if self.depth:
            self.characters.update(data)


def drawn_characters(page_html):
    """The characters the KaTeX formulas of a page draw (their visible part, not the TeX in their MathML)."""
    start = page_html.find('<span class="katex-html"')
    if start < 0:
        return set()
    drawn = _DrawnMath()
    drawn.feed(page_html[start:])
    return drawn.characters


class MathFonts:
    """What one build's pages use of KaTeX's fonts: the font files they preload and the characters their formulas
    draw, collected as each page is rendered (so the built site is not read again to find them)."""

    def __init__(self):
        self.preloaded, self.drawn = set(), set()

    def formula(self, tex, display):
        """KaTeX's HTML for one formula, its characters noted."""
        self.drawn |= _characters(tex, display)
        return katex(tex, display)


@functools.cache
def katex(tex, display):
    """KaTeX's HTML for one formula, or MathError saying which formula failed and why."""

    def render():
        try:
            return pykatex.renderToString(tex, displayMode=display, throwOnError=True)
        except pykatex.ParseError as error:
            raise MathError(f"KaTeX cannot render {tex!r}: {error}") from None

    return cached("katex", (tex, display), render)


@functools.cache
def _characters(tex, display):
    return frozenset(drawn_characters(katex(tex, display)))


def render_math(page_html, fonts):
    """Chapter pages: replace arithmatex's TeX (``generic: true`` output) with rendered KaTeX. A display formula may
    scroll sideways on a narrow screen, so it is reachable by keyboard."""
    page_html = DISPLAY_MATH.sub(
        lambda m: (
            '<div class="arithmatex" tabindex="0" data-search-exclude>'
            f"{fonts.formula(html.unescape(m.group(1)).strip(), True)}</div>"
        ),
        page_html,
    )
    return INLINE_MATH.sub(
        lambda m: (
            '<span class="arithmatex" data-search-exclude>'
            f"{fonts.formula(html.unescape(m.group(1)).strip(), False)}</span>"
        ),
        page_html,
    )


def render_notebook_math(page_html, fonts):
    """Notebook pages: render ``$...$`` and ``$$...$$`` in Markdown cells; drop the MathJax loader they carry."""

    def cell(match):
        return DOLLAR_MATH.sub(
            lambda m: fonts.formula(html.unescape(m.group(1) or m.group(2)).strip(), m.group(1) is not None),
            match.group(1),
        )

    return NOTEBOOK_MARKDOWN.sub(cell, MATHJAX_LOADER.sub("", page_html))


@functools.cache
def katex_font_rules():
    """[(classes, font file)] for each KaTeX rule that picks a font: an element with all those classes (the last
    compound of the rule's selector that names classes) is drawn in that file's font."""
    rules = tinycss2.parse_stylesheet(KATEX_CSS.read_text(encoding="utf-8"), skip_comments=True, skip_whitespace=True)
    files, picks = {}, []
    for rule in rules:
        declarations = {
            d.lower_name: tinycss2.serialize(d.value).strip()
            for d in tinycss2.parse_declaration_list(rule.content, skip_comments=True, skip_whitespace=True)
            if d.type == "declaration"
        }
        family = re.search(r"KaTeX_\w+", declarations.get("font-family", declarations.get("font", "")))
        if family is None:
            continue
        face = (
            family.group(0),
            "bold" if declarations.get("font-weight") in ("700", "bold") else "normal",
            declarations.get("font-style", "italic" if "italic" in declarations.get("font", "") else "normal"),
        )
        if rule.type == "at-rule":  # @font-face: the woff2 file of this family, weight and style
            files[face] = re.search(r"url\((fonts/[^)]+\.woff2)\)", declarations["src"]).group(1)
        else:
            for selector in tinycss2.serialize(rule.prelude).split(","):
                compounds = [set(re.findall(r"\.([\w-]+)", c)) for c in re.split(r"[\s>+~]+", selector.strip())]
                picks.append((frozenset([c for c in compounds if c][-1]), face))
    return [(classes, files[face]) for classes, face in picks]


def preload_math_fonts(page_html, fonts):
    """Ask for every KaTeX font the page's formulas use, with the stylesheets (and note them in ``fonts``)."""
    elements = {frozenset(value.split()) for value in CLASS_ATTRIBUTE.findall(page_html)}
    files = list(dict.fromkeys(file for classes, file in katex_font_rules() if any(classes <= e for e in elements)))

    def preloads(match):
        fonts.preloaded.update(Path(file).name for file in files)
        return "".join(
            f'<link rel="preload" href="{match.group(1)}{file}" as="font" type="font/woff2" crossorigin>'
            for file in files
        ) + match.group(0)

    return KATEX_STYLESHEET.sub(preloads, page_html, count=1) if files else page_html


def defer_scripts(page_html):
    """Defer each external script (they keep their order, and all run before DOMContentLoaded)."""
    return EXTERNAL_SCRIPT.sub(r'<script src="\1" defer></script>', page_html)


def svg_size(path):
    """(width, height) in CSS pixels of an SVG file, from its width/height attributes or else its viewBox."""
    root = ET.parse(path).getroot()
    sizes = [SVG_LENGTH.match(root.get(name, "")) for name in ("width", "height")]
    if all(sizes):
        return tuple(round(float(m.group(1)) * PX_PER[m.group(2)]) for m in sizes)
    view_box = root.get("viewBox", "").replace(",", " ").split()
    if len(view_box) != 4:
        raise ValueError(f"{path}: an SVG figure needs width and height (pt or px) or a viewBox to be sized")
    return round(float(view_box[2])), round(float(view_box[3]))


def skippable_from(page_html):
    """The offset in a chapter's content where its blocks the browser may skip begin (site.css skips blocks from
    the 13th on until they come near the screen); the end of the content if it has twelve blocks or fewer. Reads
    tags only as far as that block (a page's first blocks are often most of its formulas)."""
    depth, blocks = 0, 0
    for tag in TAG_OR_COMMENT.finditer(page_html):
        if tag.group(1) is None:  # a comment
            continue
        if tag.group(1):
            depth -= bool(depth)
            continue
        if depth == 0:
            blocks += 1
            if blocks == FIRST_SKIPPED_BLOCK:
                return tag.start()
        depth += tag.group(2).lower() not in VOID_ELEMENTS and not tag.group(0).endswith("/>")
    return len(page_html)


def size_images(page_html, page_url, docs_dir, eager_before=None):
    """Give every SVG figure its width and height; every image after the first loads lazily, and the first too
    when it begins at or after the offset ``eager_before``."""
    count = 0
    eager_before = len(page_html) if eager_before is None else eager_before

    def image(match):
        nonlocal count
        attributes = match.group(1).rstrip()
        count += 1
        src = SRC.search(attributes)
        if src and src.group(1).endswith(".svg") and " width=" not in f" {attributes}":
            path = Path(docs_dir, posixpath.normpath(posixpath.join(posixpath.dirname(page_url), src.group(1))))
            if not path.is_file():
                raise FileNotFoundError(f"figure {src.group(1)} is not in the site")
            width, height = svg_size(path)
            attributes += f' width="{width}" height="{height}"'
        if (count > 1 or match.start() >= eager_before) and "loading=" not in attributes:
            attributes += ' loading="lazy"'
        return f'<img {attributes} decoding="async" />'

    return IMAGE.sub(image, page_html)


def drop_unused_css(page_html):
    """Keep, in each inline stylesheet of the page, only the selectors that can match: every class a selector
    names outside :not(), :is() and the like is on some element of the page, and the selector does not look for
    :root below another element. Rules inside @media and @supports are pruned the same way; other at-rules
    (@font-face, @keyframes) are kept whole."""
    classes = {name for match in CLASS_ATTRIBUTE.finditer(page_html) for name in match.group(1).split()}

    def pruned(rules):
        kept = []
        for prelude, body in rules:
            if isinstance(body, tuple):  # @media or @supports
                inner = pruned(body)
                if inner:
                    kept.append(f"{prelude}{{{''.join(inner)}}}")
            elif isinstance(prelude, str):  # any other at-rule, kept whole
                kept.append(prelude + body)
            else:
                matching = [selector for named, selector in prelude if named <= classes]
                if matching:
                    kept.append(f"{','.join(matching)}{{{body}}}")
        return kept

    return STYLE_BLOCK.sub(lambda m: m.group(1) + "".join(pruned(_parsed_css(m.group(2)))) + m.group(3), page_html)


@functools.cache
def _parsed_css(css):
    """A stylesheet as (prelude, body) pairs, parsed once for all the pages that inline it. A style rule's prelude
    is its selectors, each with the classes it requires; @media and @supports have a tuple of rules as body."""
    return cached("css", css, lambda: _parse_css(css))


def _parse_css(css):
    def selectors(prelude):
        current = []
        for token in [*prelude, ","]:
            if token != ",":
                current.append(token)
                continue
            named = frozenset(b.value for a, b in zip(current, current[1:]) if a == "." and b.type == "ident")
            text = tinycss2.serialize(current).strip()
            if not ROOT_BELOW_AN_ELEMENT.search(text):
                yield named, text
            current = []

    def parsed(rules):
        for rule in rules:
            if rule.type == "qualified-rule":
                yield tuple(selectors(rule.prelude)), tinycss2.serialize(rule.content)
            elif rule.type == "at-rule" and rule.lower_at_keyword in ("media", "supports") and rule.content:
                inner = tinycss2.parse_blocks_contents(rule.content, skip_whitespace=True, skip_comments=True)
                yield f"@{rule.at_keyword}{tinycss2.serialize(rule.prelude)}", tuple(parsed(inner))
            elif rule.type == "at-rule":
                yield tinycss2.serialize([rule]), ""

    return tuple(parsed(tinycss2.parse_stylesheet(css, skip_whitespace=True, skip_comments=True)))


def chapter_content(page_html, page_url, docs_dir, fonts):
    """A chapter's content: math rendered, figures sized (a first figure the browser may skip at load loads
    lazily), code kept out of search."""
    page_html = render_math(page_html, fonts)
    return leave_out_of_search(size_images(page_html, page_url, docs_dir, skippable_from(page_html)))


def notebook_content(page_html, page_url, docs_dir, fonts):
    """A notebook page's content: Markdown cells' math rendered, figures sized, code cells and the code blocks of
    Markdown cells focusable (they may scroll sideways)."""
    page_html = page_html.replace(NOTEBOOK_CODE, '<div tabindex="0" class="highlight-ipynb')
    page_html = page_html.replace(NOTEBOOK_MARKDOWN_CODE, '<div class="highlight"><pre tabindex="0">')
    return size_images(render_notebook_math(page_html, fonts), page_url, docs_dir)


def finish_page(page_html, notebook, fonts):
    """The whole page: a notebook page keeps only the CSS rules that can match it; pages with math preload its
    fonts; scripts are deferred."""
    if notebook:
        page_html = drop_unused_css(page_html)
    return defer_scripts(preload_math_fonts(page_html, fonts))


def finish_site(site_dir, fonts):
    """The built site: fonts cut down to the glyphs the formulas draw, the search index written compactly."""
    compact_search_index(site_dir)
    keep_only_the_glyphs_the_formulas_draw(site_dir, fonts)


def leave_out_of_search(page_html):
    """Code blocks and program output are not prose: keep them out of the search index."""
    return page_html.replace(CODE_BLOCK, '<div class="highlight" data-search-exclude>')


def keep_only_the_glyphs_the_formulas_draw(site_dir, fonts):
    """Cut each KaTeX font that the site's pages preload down to the characters their formulas draw (``fonts``:
    the build's MathFonts); the fonts no page asks for are never downloaded and stay as KaTeX ships them."""
    for name in sorted(fonts.preloaded):
        original = (KATEX_FONTS / name).read_bytes()
        cut = cached("font", (original, sorted(fonts.drawn)), lambda: _subset(original, fonts.drawn))
        (Path(site_dir) / "assets" / "katex" / "fonts" / name).write_bytes(cut)


def _subset(font_file, characters):
    """A woff2 font (bytes) cut down to the glyphs of ``characters``, byte for byte the same for the same input."""
    font = TTFont(io.BytesIO(font_file), recalcTimestamp=False)
    subsetter = subset.Subsetter(
        subset.Options(layout_features=["*"], name_IDs=["*"], notdef_outline=True, hinting=False)
    )
    subsetter.populate(unicodes=[code for code in font.getBestCmap() if chr(code) in characters])
    subsetter.subset(font)
    font.flavor = "woff2"
    cut = io.BytesIO()
    font.save(cut)
    return cut.getvalue()


def compact_search_index(site_dir):
    """Rewrite search/search_index.json with characters as UTF-8 instead of ``\\uXXXX`` escapes: a Chinese
    character then takes 3 bytes instead of 6 (the search worker parses both the same way)."""
    path = posixpath.join(site_dir, "search", "search_index.json")
    with open(path, encoding="utf-8") as stream:
        index = json.load(stream)
    with open(path, "w", encoding="utf-8") as stream:
        json.dump(index, stream, ensure_ascii=False, separators=(",", ":"))
