"""The shared notebook exporters (scripts/notebook_export.py) give mkdocs-jupyter's own pages: for every notebook
of both editions, the same document as mkdocs-jupyter's nb2html (same elements, attributes and text), the same
table-of-contents Markdown as its nb2md, except that a heading whose chapter names its id has that id (so a Chinese
notebook's headings have its English twin's) and that no heading carries the anchor the notebook gives it for
JupyterLab; every in-page link of a notebook lands on the one element of its page with that id, a heading, and no
anchor shows in its table of contents; headings in Chinese get ids their table-of-contents links point at; and the
guard stops a build on another mkdocs-jupyter."""

import json
import re
from collections import Counter

import pytest
import yaml
from bs4 import BeautifulSoup
from mkdocs.exceptions import Abort
from mkdocs_jupyter import convert, plugin

from scripts import notebook_export
from support import REPO, in_page_links, nonempty_glob

NOTEBOOKS = nonempty_glob(REPO / "docs" / "notebooks", "*.ipynb") + nonempty_glob(
    REPO / "docs-zh" / "notebooks", "*.ipynb"
)
ORIGINAL_HTML, ORIGINAL_MARKDOWN = notebook_export._original["nb2html"], notebook_export._original["nb2md"]


def plugin_options():
    """The nb2html arguments mkdocs-jupyter passes with the site's configuration (mkdocs.yml)."""
    config = yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    (jupyter,) = [p["mkdocs-jupyter"] for p in config["plugins"] if isinstance(p, dict) and "mkdocs-jupyter" in p]
    assert jupyter["execute"] == "false" and jupyter["no_prompt"] == "true"
    return dict(
        execute=False,
        kernel_name=jupyter["kernel_name"],
        theme="",
        allow_errors=False,
        show_input=True,
        no_input=False,
        no_prompt=True,
        remove_tag_config=jupyter["remove_tag_config"],
        highlight_extra_classes="",
        include_requirejs=False,
        custom_mathjax_url="",
    )


def document(page):
    """A page as its elements in order (name and attributes, class lists as sets) and its text."""
    soup = BeautifulSoup(page, "html.parser")
    elements = [
        (e.name, {k: set(v) if isinstance(v, list) else v for k, v in e.attrs.items()}) for e in soup.find_all(True)
    ]
    return elements, soup.get_text()


def test_the_options_are_the_plugins():
    assert plugin_options()["remove_tag_config"] == {"remove_input_tags": ["module-source"]}


def chapter_ids(notebook):
    """{a heading's text: the id its chapter gives it}, from the notebook's metadata."""
    return json.loads(notebook.read_text(encoding="utf-8"))["metadata"].get("heading_ids", {})


def with_chapter_ids(page, ids):
    """mkdocs-jupyter's page with each heading the chapter names an id for (found by its text) given that id, and
    without the anchors the notebook's headings carry for JupyterLab."""
    soup = BeautifulSoup(page, "html.parser")
    for heading in soup.select("h1, h2, h3, h4, h5, h6"):
        for anchor in heading.select("a[id]"):
            anchor.decompose()
        text = heading.get_text().removesuffix("¶").strip()
        given = next((i for written, i in ids.items() if written.replace("`", "") == text), None)
        if given:
            for link in soup.select(f'a[href="#{heading["id"]}"]'):
                link["href"] = f"#{given}"
            heading["id"] = given
    return str(soup)


@pytest.fixture
def shared_exporters(monkeypatch):
    """mkdocs-jupyter pointed at the shared exporters, with their heading ids, as the build does (undone after)."""
    for name in ("nb2html", "nb2md", "slugify"):
        monkeypatch.setattr(convert, name, getattr(convert, name))
    monkeypatch.setattr(plugin, "_get_markdown_toc", plugin._get_markdown_toc)
    notebook_export.use_shared_exporters()


def flat(tokens):
    """A table of contents' entries, nested ones after their parent."""
    return [entry for token in tokens for entry in (token, *flat(token["children"]))]


@pytest.mark.site  # exports every notebook twice: left out of make test-fast
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[n.relative_to(REPO).as_posix() for n in NOTEBOOKS])
def test_each_notebook_page_is_the_plugins_own_document_with_its_chapters_heading_ids_once(notebook, shared_exporters):
    options, ids = plugin_options(), chapter_ids(notebook)
    ours, theirs = notebook_export.notebook_html(notebook, **options), ORIGINAL_HTML(str(notebook), **options)
    page = BeautifulSoup(ours, "html.parser")
    page_ids = Counter(element["id"] for element in page.find_all(id=True))
    assert [name for name, count in page_ids.items() if count > 1] == [], "ids given twice"
    for target in set(in_page_links(notebook)):
        assert page_ids[target] == 1 and page.find(id=target).name in ("h1", "h2", "h3", "h4", "h5", "h6"), target
    contents = flat(notebook_export._markdown_toc(notebook_export.notebook_markdown(notebook), 6))
    assert [entry["name"] for entry in contents if "<a" in entry["html"] or "<a" in entry["name"]] == []
    assert document(ours) == document(with_chapter_ids(theirs, ids))
    theirs = re.sub(r'^(#{1,6} )<a id="[^"]*"></a>', r"\1", ORIGINAL_MARKDOWN(str(notebook)), flags=re.MULTILINE)
    for written, given in ids.items():  # its Markdown has no inline code (its table of contents shows none)
        shown = re.escape(re.sub(r"`[^`]*`", "", written).strip())
        theirs = re.sub(rf"^(#{{1,6}} {shown})[ \t]*$", rf"\1 {{#{given}}}", theirs, flags=re.MULTILINE)
    assert notebook_export.notebook_markdown(notebook) == theirs


def test_focusable_adds_what_nbconvert_adds_and_only_that():
    page = (
        '<div class="jp-Cell-inputWrapper">a</div><div class="jp-OutputArea-output x" id="o">b</div>'
        '<div class="jp-OutputArea-output" tabindex="0">c</div><div class="jp-Cell">d</div>'
        '<img src="x.svg"><img alt="kept" src="y.svg">'
    )
    assert notebook_export.focusable(page) == (
        '<div class="jp-Cell-inputWrapper" tabindex="0">a</div>'
        '<div class="jp-OutputArea-output x" id="o" tabindex="0">b</div>'
        '<div class="jp-OutputArea-output" tabindex="0">c</div><div class="jp-Cell">d</div>'
        f'<img alt="{notebook_export.MISSING_ALT}" src="x.svg"><img alt="kept" src="y.svg">'
    )


def test_another_mkdocs_jupyter_stops_the_build_naming_the_check(monkeypatch):
    monkeypatch.setattr(notebook_export, "version", lambda name: "0.27.0")
    with pytest.raises(Abort, match="0.27.0 is installed: check tests/build/test_notebook_export.py"):
        notebook_export.use_shared_exporters()


def test_chinese_headings_get_ids_their_table_of_contents_links(shared_exporters):
    chinese = REPO / "docs-zh" / "notebooks" / "masks.ipynb"
    page = BeautifulSoup(notebook_export.notebook_html(chinese, **plugin_options()), "html.parser")
    ids = [h["id"] for h in page.select("h1, h2, h3")]
    tokens, title = plugin._get_nb_toc_tokens(chinese, 6)
    assert title == "掩码" and len(ids) > 5 and "" not in ids and len(set(ids)) == len(ids)
    assert [entry["id"] for entry in flat(tokens)] == ids
    assert notebook_export.heading_id("What breaks the symmetry") == "what-breaks-the-symmetry"
