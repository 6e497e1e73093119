"""What makes pages fast on a phone, applied to each page's HTML at build time.

- Math is rendered to KaTeX HTML (and MathML for screen readers) by pykatex, so pages ship KaTeX's CSS and fonts
  but none of its JavaScript: the arithmatex output of chapters (``\\(...\\)``, ``\\[...\\]``) and the ``$...$``
  math in notebook Markdown cells. A formula KaTeX cannot parse is an error naming the page.
- Figures get their width and height (from the SVG file) so the page does not jump while they load; every figure
  after a page's first loads lazily.
- The search index gets prose only: code blocks and program output, rendered math and whole notebook pages (they
  repeat their chapter's code) are left out; it is written as UTF-8, not as ASCII escapes.
"""

import functools
import html
import json
import posixpath
import re
import xml.etree.ElementTree as ET

import pykatex

INLINE_MATH = re.compile(r'<span class="arithmatex">\\\((.*?)\\\)</span>', re.DOTALL)
DISPLAY_MATH = re.compile(r'<div class="arithmatex">\\\[(.*?)\\\]</div>', re.DOTALL)
NOTEBOOK_MARKDOWN = re.compile(r'(<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown.*?)(?=<div class="jp-Cell|\Z)', re.DOTALL)
DOLLAR_MATH = re.compile(r"\$\$(.+?)\$\$|\$([^$<>\n]+?)\$", re.DOTALL)
MATHJAX_LOADER = re.compile(r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->", re.DOTALL)
IMAGE = re.compile(r"<img ([^>]*?)/?>")
SRC = re.compile(r'\bsrc="([^"]+)"')
CODE_BLOCK = '<div class="highlight">'
SVG_LENGTH = re.compile(r"^([\d.]+)(pt|px)?$")
PX_PER = {"pt": 4 / 3, "px": 1.0, None: 1.0}


class MathError(ValueError):
    pass


@functools.lru_cache(maxsize=None)
def katex(tex, display):
    """KaTeX's HTML for one formula, or MathError saying which formula failed and why."""
    try:
        return pykatex.renderToString(tex, displayMode=display, throwOnError=True)
    except pykatex.ParseError as error:
        raise MathError(f"KaTeX cannot render {tex!r}: {error}") from None


def render_math(page_html):
    """Chapter pages: replace arithmatex's TeX (``generic: true`` output) with rendered KaTeX."""
    page_html = DISPLAY_MATH.sub(
        lambda m: f'<div class="arithmatex" data-search-exclude>{katex(html.unescape(m.group(1)).strip(), True)}</div>',
        page_html,
    )
    return INLINE_MATH.sub(
        lambda m: f'<span class="arithmatex" data-search-exclude>{katex(html.unescape(m.group(1)).strip(), False)}</span>',
        page_html,
    )


def render_notebook_math(page_html):
    """Notebook pages: render ``$...$`` and ``$$...$$`` in Markdown cells; drop the MathJax loader they carry."""

    def cell(match):
        return DOLLAR_MATH.sub(
            lambda m: katex(html.unescape(m.group(1) or m.group(2)).strip(), m.group(1) is not None), match.group(1)
        )

    return NOTEBOOK_MARKDOWN.sub(cell, MATHJAX_LOADER.sub("", page_html))


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


def size_images(page_html, page_url, files):
    """Give every SVG figure its width and height; every image after the first loads lazily."""
    count = 0

    def image(match):
        nonlocal count
        attributes = match.group(1).rstrip()
        count += 1
        src = SRC.search(attributes)
        if src and src.group(1).endswith(".svg") and " width=" not in f" {attributes}":
            file = files.get_file_from_path(posixpath.normpath(posixpath.join(posixpath.dirname(page_url), src.group(1))))
            if file is None:
                raise FileNotFoundError(f"figure {src.group(1)} is not in the site")
            width, height = svg_size(file.abs_src_path)
            attributes += f' width="{width}" height="{height}"'
        if count > 1 and "loading=" not in attributes:
            attributes += ' loading="lazy"'
        return f"<img {attributes} decoding=\"async\" />"

    return IMAGE.sub(image, page_html)


def leave_out_of_search(page_html):
    """Code blocks and program output are not prose: keep them out of the search index."""
    return page_html.replace(CODE_BLOCK, '<div class="highlight" data-search-exclude>')


def compact_search_index(site_dir):
    """Rewrite search/search_index.json with characters as UTF-8 instead of ``\\uXXXX`` escapes: a Chinese
    character then takes 3 bytes instead of 6 (the search worker parses both the same way)."""
    path = posixpath.join(site_dir, "search", "search_index.json")
    with open(path, encoding="utf-8") as stream:
        index = json.load(stream)
    with open(path, "w", encoding="utf-8") as stream:
        json.dump(index, stream, ensure_ascii=False, separators=(",", ":"))
