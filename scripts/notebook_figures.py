"""Notebook pages show their figures as the committed SVG files, described by the chapter's alt text.

A notebook carries each figure inline (so a downloaded notebook is complete), and mkdocs-jupyter renders it as a
base64 ``data:`` image with the alt text "No description has been provided for this image". The same bytes exist
as docs/generated/<chapter>/<what>/<figure>.svg, so the page links that file instead (cached once, loaded lazily)
with the alt text the chapter gives the same figure.
"""

import base64
import hashlib
import html
import re
from pathlib import Path

from scripts.chapter_markdown import inline_values
from scripts.pipeline.references import read_page

DATA_SVG = re.compile(r'<img alt="[^"]*" src="data:image/svg\+xml;base64,([A-Za-z0-9+/=\s]+)"')
FALLBACK_ALT = "Figure drawn by the code cell above"


def _svg_by_digest(generated):
    """{sha256 of an SVG's bytes: its path relative to docs/}."""
    return {
        hashlib.sha256(p.read_bytes()).hexdigest(): f"generated/{p.relative_to(generated).as_posix()}"
        for p in generated.glob("*/*/*.svg")
    }


def chapter_alt_texts(markdown):
    """{figure path relative to docs/: alt text} of the figures a chapter shows."""
    return {figure.path: figure.alt for figure in read_page(markdown).figures}


def language_twins(path):
    """The same figure with labels in the other language: ``name.svg`` <-> ``name-zh.svg`` or ``name.zh.svg``
    (the Chinese twin a snippet draws in the same run, embedded in the Chinese notebooks)."""
    for chinese in ("-zh.svg", ".zh.svg"):
        if path.endswith(chinese):
            return [path.removesuffix(chinese) + ".svg"]
    return [path.removesuffix(".svg") + chinese for chinese in ("-zh.svg", ".zh.svg")]


def link_figures(page_html, generated, alt_texts, prefix="../../"):
    """Replace each inline SVG image that is a committed figure with a link to the file, with the chapter's alt
    text for it (or for its twin in the other language, when the chapter shows only that one: a Chinese chapter
    may show the English file of a figure its notebook embeds in Chinese)."""
    by_digest = _svg_by_digest(generated)

    def replace(match):
        path = by_digest.get(hashlib.sha256(base64.b64decode(match.group(1))).hexdigest())
        if path is None:
            return match.group(0).replace(
                'alt="No description has been provided for this image"', f'alt="{FALLBACK_ALT}"'
            )
        alt = next(filter(None, map(alt_texts.get, [path, *language_twins(path)])), FALLBACK_ALT)
        alt = html.escape(html.unescape(alt))  # Markdown text (a value's <pad> is &lt;pad&gt; there) as an attribute
        return f'<img alt="{alt}" src="{prefix}{path}"'

    return DATA_SVG.sub(replace, page_html)


def chapter_figures(page_html, src_path, docs_dir, project, language="en"):
    """A notebook page's figures (``src_path``: notebooks/<stem>.ipynb) linked to the committed files, described
    by the alt texts of its chapter, the page <stem>.md of ``docs_dir`` (none when there is no such page), with the
    values as the edition in ``language`` writes them."""
    chapter = Path(docs_dir) / f"{Path(src_path).stem}.md"
    markdown = chapter.read_text(encoding="utf-8") if chapter.exists() else ""
    markdown = inline_values(markdown, project, chapter.name, language)
    return link_figures(page_html, project.generated, chapter_alt_texts(markdown))
