"""In-page links that land on their heading wherever a chapter's notebook is opened: each heading that an in-page
link ``](#id)`` of the notebook targets carries that id as an anchor at the start of its text,
``### <a id="silent-split"></a>The head split that raises nothing``.

A link targets the id the site's notebook page gives a heading: its chapter's ``{#id}`` (the notebook's
``heading_ids``) or else the slug of its text (``heading_slug``). JupyterLab and Jupyter Notebook 7 give a heading an
id of their own instead (its text with spaces as ``-``); their sanitizer keeps an anchor's ``id`` (as
``data-jupyter-id``, where their handler of in-page links looks). The anchor adds no text, so the heading keeps
Jupyter's id and its place in Jupyter's table of contents. A link whose target no heading of the notebook has stops
the build, naming the notebook and the link. The site's pages give their headings the ids themselves
(scripts/notebook_export.py): ``without_anchors`` is the notebook's Markdown they render, so no id is given twice
and no table of contents shows an anchor.
"""

import re

from markdown.extensions.toc import slugify_unicode

from .notebook_markdown import FENCE

HEADING = re.compile(r"^(#{1,6}[ \t]+)(.+?)[ \t]*$", re.MULTILINE)  # (its marks and space, its text)
IN_PAGE_LINK = re.compile(r"\]\(#([^)\s]+)\)")
HEADING_ANCHOR = re.compile(r'^(#{1,6}[ \t]+)<a id="[^"]*"></a>', re.MULTILINE)


def heading_slug(text, separator="-"):
    """The id of a heading whose chapter names none, on the site's notebook page: the slug of all its letters (the
    page URL-quotes it, scripts/notebook_export.py ``heading_id``; a slug of ASCII letters is unchanged)."""
    return slugify_unicode(text, separator)


def headings(markdown):
    """The headings of a Markdown cell (matches of ``HEADING``), not counting ``#`` lines of its code blocks."""
    code = [fence.span() for fence in FENCE.finditer(markdown)]
    return [m for m in HEADING.finditer(markdown) if not any(start <= m.start() < end for start, end in code)]


def in_page_links(cell):
    """The ids the in-page links of a cell target: a Markdown cell's, or those of the Markdown a code cell showed (an
    exercise's hint)."""
    if cell["cell_type"] == "markdown":
        return IN_PAGE_LINK.findall(cell["source"])
    shown = [output.get("data", {}).get("text/markdown", "") for output in cell.get("outputs", [])]
    return [target for text in shown for target in IN_PAGE_LINK.findall("".join(text))]


def anchor_link_targets(cells, ids, notebook):
    """Give each heading of the notebook's ``cells`` that an in-page link targets its anchor (in place). ``ids``:
    {a heading's text: the id its chapter names}; ``notebook``: the path the error names. ValueError when a link's
    target is no heading's id; the first heading with an id gets the links, as on the site's page."""
    found = {}  # {the id the site's page gives a heading: (its cell, its match)}
    for cell in cells:
        if cell["cell_type"] == "markdown":
            for match in headings(cell["source"]):
                found.setdefault(ids.get(match.group(2), heading_slug(match.group(2))), (cell, match))
    targets = dict.fromkeys(target for cell in cells for target in in_page_links(cell))
    missing = [target for target in targets if target not in found]
    if missing:
        raise ValueError(
            f"{notebook}: in-page links to {', '.join(f'](#{target})' for target in missing)} name no heading of the "
            f"notebook; its headings' ids are {', '.join(sorted(found)) or 'none'}"
        )
    anchors = sorted((found[target] + (target,) for target in targets), key=lambda a: -a[1].start(2))
    for cell, match, target in anchors:  # from the end of each cell, so the matches' offsets still hold
        source = cell["source"]
        cell["source"] = f'{source[: match.start(2)]}<a id="{target}"></a>{source[match.start(2) :]}'


def without_anchors(markdown):
    """A notebook's Markdown without the anchors ``anchor_link_targets`` gave its headings."""
    return HEADING_ANCHOR.sub(r"\1", markdown)
