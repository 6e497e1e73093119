"""Notebook pages exported by one shared nbconvert exporter of each kind, not one per notebook, and the notebooks and
plain-script twins served for download.

``use_shared_exporters`` points mkdocs-jupyter at ``notebook_html`` and ``notebook_markdown``: its own conversions
of ``.ipynb`` files, with one exporter per set of options (mkdocs-jupyter makes, and Jinja compiles, new ones for
every page) and the attributes its exporter adds after re-parsing each page added to the rendered HTML directly.
tests/build/test_notebook_export.py checks every page is the same document as the plugin's own export; a version
guard stops the build on a mkdocs-jupyter other than the one this reproduces. Headings and their table-of-contents
links get ids from all their letters (``heading_id``; the plugin kept ASCII only, so a Chinese heading's was ""). The
anchors a notebook's headings carry for JupyterLab (scripts/pipeline/notebook_anchors.py) are dropped before either
export (``WithoutAnchors``): the page gives its headings those ids, once, and its table of contents shows no anchor.
``keep_cache_of_pages_not_rebuilt`` keeps the plugin's page cache through a dirty rebuild (``make serve``).

The site serves each notebook for download (``notebooks/<stem>/<stem>.ipynb``, copied by mkdocs-jupyter's
``include_source``) with a plain-script twin beside it (``<stem>.py``, ``write_scripts``, made from that copy). A
notebook links the other pages of its edition relatively (``](../../masks/#id)``): right on its page on the site,
but nowhere beside a downloaded file. ``absolute_links_in_downloads`` stops the build on such a link to a page the
built site lacks, naming the notebook and the link, and, when the site has an address (``site_url``, the edition's:
scripts/addresses.py; ``mkdocs serve`` gives its own), rewrites each one in the copy the site serves to that page's
address, so a downloaded notebook and its script link the published pages from anywhere. Without an address the
copies stay as committed, relative: the build does not know where such a site will be read (an offline folder, a
preview, any path), so it has no address to write, and the relative links still work on the site's notebook pages.
The committed notebooks (docs/notebooks/) are never changed, and the notebook pages keep their relative links.
"""

import functools
import json
import re
from importlib.metadata import version
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import markdown
from markdown.extensions.toc import TocExtension
from mkdocs.exceptions import Abort
from mkdocs_jupyter import convert, nbconvert2, plugin
from mkdocs_jupyter.config import settings
from mkdocs_jupyter.preprocessors import SubCell
from nbconvert.exporters.html import HTMLExporter
from nbconvert.exporters.markdown import MarkdownExporter
from nbconvert.exporters.templateexporter import TemplateExporter, default_filters
from nbconvert.filters.strings import _convert_header_id
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
from nbconvert.preprocessors import Preprocessor

from scripts.build_cache import cached
from scripts.pipeline.notebook_anchors import heading_slug, without_anchors
from scripts.pipeline.notebooks import notebook_script

WRITTEN_FOR = "0.26."  # the mkdocs-jupyter versions whose nb2html and nb2md these reproduce
HTML_TEMPLATE, MARKDOWN_TEMPLATE = "mkdocs_html/notebook.html.j2", "mkdocs_md/md-no-codecell.md.j2"
IMAGE_WITHOUT_ALT = re.compile(r"<img(?![^>]*\balt=)([^>]*)>")
FOCUSABLE_DIV = re.compile(r'<div class="([^"]*\b(?:jp-Cell-inputWrapper|jp-OutputArea-output)\b[^"]*)"([^>]*)>')
HEADING = re.compile(r"^#{1,6} (.+?)[ \t]*$", re.MULTILINE)
MISSING_ALT = "No description has been provided for this image"  # the text nbconvert gives an image without one
# The words the template gives each code cell's copy button: its name, and the notice it shows once it has copied.
COPY_BUTTON_NAME = re.compile(r'(<clipboard-copy [^>]*aria-label=")Copy to Clipboard(")')
COPIED_NOTICE = re.compile(r'(<span class="notice" hidden>)Copied!(</span>)')
# A notebook's link to another page of its edition, relative to its page notebooks/<stem>/ (the Markdown
# scripts/pipeline/notebook_markdown.py writes for a link to a chapter): its target.
SITE_RELATIVE_LINK = re.compile(r"\]\((\.\./\.\./[^)\s]*)\)")


class WithoutAnchors(Preprocessor):
    """Markdown cells without the anchors their headings carry for JupyterLab (``without_anchors``)."""

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "markdown":
            cell.source = without_anchors(cell.source)
        return cell, resources


class _HTMLExporter(HTMLExporter):
    """nbconvert's HTMLExporter without its BeautifulSoup pass: the alt text and the two tabindex attributes that
    pass adds are added to the rendered HTML (``focusable``)."""

    def from_notebook_node(self, nb, resources=None, **kw):
        resources = self._init_resources(resources)
        self.register_filter("highlight_code", self.filters["highlight_code"])
        self.register_filter(
            "filter_data_type",
            WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata, parent=self, resources=resources),
        )
        page, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        return focusable(page), resources


def focusable(page):
    """What nbconvert's HTMLExporter adds to a rendered notebook: its alt text on each image that has none, and
    ``tabindex="0"`` on each cell's input and each output (they may scroll sideways)."""
    page = IMAGE_WITHOUT_ALT.sub(lambda m: f'<img alt="{MISSING_ALT}"{m.group(1)}>', page)
    return FOCUSABLE_DIV.sub(
        lambda m: (
            f'<div class="{m.group(1)}"{m.group(2)} tabindex="0">' if "tabindex=" not in m.group(2) else m.group(0)
        ),
        page,
    )


def copy_buttons_in(page, words):
    """A rendered notebook page whose code cells' copy buttons speak the edition's language: ``words`` is the
    edition's ``theme`` words (scripts/words/). Stops the build when a copy button is not worded as expected."""
    buttons = page.count("<clipboard-copy")
    page, named = COPY_BUTTON_NAME.subn(rf"\g<1>{words['copy_cell']}\g<2>", page)
    page, notices = COPIED_NOTICE.subn(rf"\g<1>{words['copied']}\g<2>", page)
    if not buttons == named == notices:
        raise Abort(
            f"{buttons} copy buttons, {named} named 'Copy to Clipboard' and {notices} noticing 'Copied!': "
            f"{HTML_TEMPLATE} of mkdocs-jupyter {version('mkdocs-jupyter')} words them otherwise; update "
            "COPY_BUTTON_NAME and COPIED_NOTICE in scripts/notebook_export.py"
        )
    return page


@functools.cache
def _html_exporter(options):
    """One HTML exporter for each set of nb2html options (``options``: their JSON)."""
    o = json.loads(options)
    app = nbconvert2.get_nbconvert_app(
        execute=o["execute"],
        kernel_name=o["kernel_name"],
        start=o["start"],
        end=o["end"],
        allow_errors=o["allow_errors"],
        show_input=o["show_input"],
        no_input=o["no_input"],
        no_prompt=o["no_prompt"],
        remove_tag_config=o["remove_tag_config"],
    )
    default_filters["clean_html"] = lambda element: element.decode() if isinstance(element, bytes) else str(element)
    return _HTMLExporter(
        config=app.config,
        template_file=HTML_TEMPLATE,
        extra_template_paths=[settings.templates_dir],
        preprocessors=[SubCell, WithoutAnchors],
        theme=o["theme"],
        mathjax_url=o["custom_mathjax_url"],
        filters={"highlight_code": nbconvert2.mk_custom_highlight_code(extra_css_classes=o["highlight_extra_classes"])},
    )


@functools.cache
def _markdown_exporter():
    return MarkdownExporter(
        config=nbconvert2.get_nbconvert_app().config,
        template_file=MARKDOWN_TEMPLATE,
        extra_template_paths=[settings.templates_dir],
        preprocessors=[WithoutAnchors],
    )


def notebook_html(
    nb_path,
    execute=False,
    kernel_name="",
    theme="light",
    start=0,
    end=None,
    allow_errors=True,
    show_input=True,
    no_input=False,
    no_prompt=False,
    remove_tag_config={},
    highlight_extra_classes="",
    include_requirejs=False,
    custom_mathjax_url="",
):
    """mkdocs-jupyter's nb2html (same arguments, same page) for an ``.ipynb`` file, from a shared exporter."""
    options = dict(
        execute=execute,
        kernel_name=kernel_name,
        theme=theme,
        start=start,
        end=end,
        allow_errors=allow_errors,
        show_input=show_input,
        no_input=no_input,
        no_prompt=no_prompt,
        remove_tag_config=remove_tag_config,
        highlight_extra_classes=highlight_extra_classes,
        custom_mathjax_url=custom_mathjax_url,
    )
    with open(nb_path, encoding="utf-8") as stream:  # the kernel's language names the code cells' lexer
        metadata = json.load(stream)["metadata"]
    nbconvert2.kernel_lang = metadata.get("kernelspec", {}).get("language", "python")
    nbconvert2.cell_id = 0  # each page numbers its code cells from 1
    exporter = _html_exporter(json.dumps(options, sort_keys=True))
    content, resources = exporter.from_filename(
        nb_path, resources={"mkdocs": {"test": "value", "include_requirejs": include_requirejs}}
    )
    content += f"""
        <style>
        {resources["inlining"]["css"]}
        </style>
        """
    if highlight_extra_classes:
        content = content.replace("jp-OutputArea-output", f"jp-OutputArea-output {highlight_extra_classes}")
    for given, chapters in _chapter_heading_ids(metadata).items():
        content = content.replace(f'id="{given}"', f'id="{chapters}"').replace(
            f'href="#{given}"', f'href="#{chapters}"'
        )
    return content


def notebook_markdown(nb_path, start=0, end=None, execute=False, kernel_name=""):
    """mkdocs-jupyter's nb2md (the Markdown its table of contents is read from), from a shared exporter."""
    if (start, end, execute) != (0, None, False):
        return _original["nb2md"](nb_path, start=start, end=end, execute=execute, kernel_name=kernel_name)
    body, _ = _markdown_exporter().from_filename(nb_path)
    with open(nb_path, encoding="utf-8") as stream:
        ids = _chapter_heading_ids(json.load(stream)["metadata"])
    body = HEADING.sub(
        lambda m: f"{m.group()} {{#{ids[heading_id(m.group(1))]}}}" if heading_id(m.group(1)) in ids else m.group(),
        body,
    )  # the table of contents links the ids the page gives (attr_list)
    body = re.sub(r"```.*?```", "", body, flags=re.DOTALL)
    body = re.sub(r"`[^`\n]*`", "", body)
    return re.sub(r"`[^`]*`", lambda m: m.group() if re.search(r"^#{1,6} ", m.group(), re.MULTILINE) else "", body)


_original = {"nb2html": convert.nb2html, "nb2md": convert.nb2md}


def heading_id(text, separator="-"):
    """The id of a notebook heading and the target of its table-of-contents link: the slug of all its letters
    (Chinese ones too), URL-quoted as nbconvert quotes the ids it gives."""
    return _convert_header_id(heading_slug(text, separator))


def _chapter_heading_ids(metadata):
    """{the id ``heading_id`` gives a heading: the id its chapter gives it} for the headings whose chapter names
    their ids (the notebook's ``heading_ids``, scripts/pipeline/notebook_markdown.py): a Chinese notebook's headings
    then have the ids of its English twin's, and the language switch keeps the anchor."""
    return {heading_id(text): given for text, given in metadata.get("heading_ids", {}).items()}


def _markdown_toc(markdown_source, toc_depth):
    """mkdocs-jupyter's table of contents of a notebook (``plugin._get_markdown_toc``), linking ``heading_id`` or
    the chapter's id of a heading (an ``{#id}`` ``notebook_markdown`` added)."""
    md = markdown.Markdown(extensions=["attr_list", TocExtension(toc_depth=toc_depth, slugify=heading_id)])
    md.convert(markdown_source)
    return md.toc_tokens


def _for_notebooks(shared, original):
    """``shared`` for .ipynb files; mkdocs-jupyter's own conversion for the .py and .md files it also reads."""

    def convert_file(nb_path, *args, **kwargs):
        return (shared if str(nb_path).endswith(".ipynb") else original)(nb_path, *args, **kwargs)

    return convert_file


def use_shared_exporters():
    """Point mkdocs-jupyter's plugin at the shared exporters (it calls ``convert.nb2html`` and ``convert.nb2md``),
    and give its headings and their table-of-contents links ids from all their letters (``heading_id``)."""
    installed = version("mkdocs-jupyter")
    if not installed.startswith(WRITTEN_FOR):
        raise Abort(
            f"scripts/notebook_export.py reproduces mkdocs-jupyter {WRITTEN_FOR}x's nb2html and nb2md; "
            f"{installed} is installed: check tests/build/test_notebook_export.py passes, then update WRITTEN_FOR"
        )
    convert.nb2html = _for_notebooks(notebook_html, _original["nb2html"])
    convert.nb2md = _for_notebooks(notebook_markdown, _original["nb2md"])
    convert.slugify = heading_slug  # its headings' ids: _convert_header_id(slugify(...))
    plugin._get_markdown_toc = _markdown_toc


def keep_cache_of_pages_not_rebuilt(plugin):
    """A dirty build renders only the changed notebooks; mkdocs-jupyter would then delete the cached pages of all
    the others as unused. Count every cached page as used (called after the plugin's on_pre_build reset them)."""
    plugin._used_cache_paths.update(Path(plugin.config["cache_dir"]).glob("*.json"))


def absolute_links_in_downloads(docs_dir, site_dir, site_url):
    """Check each link to another page of its edition (``SITE_RELATIVE_LINK``) in a notebook the built site
    (``site_dir``) serves for download, in a cell's source or in the Markdown a code cell showed (an exercise's
    hint), and with an address (``site_url``, the edition's) rewrite it in that copy to the page's address. Stops the
    build on a link to a page the site does not have, naming the notebook (of ``docs_dir``) and the link. The copy
    is written as nbformat writes it (JSON, sorted keys, indent 1) with its texts rewritten line by line (a link has
    no line break): only the links' targets change."""
    for notebook in sorted(Path(site_dir).glob("notebooks/*/*.ipynb")):
        page = f"notebooks/{notebook.parent.name}/"  # the notebook's page, relative to the edition's root

        def absolute(match):
            target = urlsplit(urljoin(f"/{page}", match.group(1))).path  # /masks/ for ../../masks/#id
            if not (Path(site_dir) / target.lstrip("/") / ("index.html" if target.endswith("/") else "")).is_file():
                raise Abort(
                    f"{Path(docs_dir).name}/notebooks/{notebook.name}: the link ]({match.group(1)}) names no page "
                    f"of the built site ({target})"
                )
            return f"]({urljoin(urljoin(site_url, page), match.group(1))})" if site_url else match.group(0)

        served = json.loads(notebook.read_text(encoding="utf-8"))
        cells = served["cells"]
        shown = [output["data"] for cell in cells for output in cell.get("outputs", []) if "data" in output]
        for texts, key in [(cell, "source") for cell in cells] + [(data, "text/markdown") for data in shown]:
            if isinstance(text := texts.get(key), list):
                texts[key] = [SITE_RELATIVE_LINK.sub(absolute, line) for line in text]
            elif text is not None:
                texts[key] = SITE_RELATIVE_LINK.sub(absolute, text)
        if site_url:
            notebook.write_text(json.dumps(served, sort_keys=True, indent=1, ensure_ascii=False) + "\n", "utf-8")


def write_scripts(site_dir):
    """Beside each notebook the built site serves (``notebooks/<stem>/<stem>.ipynb``), the same cells as a plain
    script (``<stem>.py``: derived, never committed)."""
    for notebook in sorted(Path(site_dir).glob("notebooks/*/*.ipynb")):
        text = cached("notebook-script", notebook.read_bytes(), functools.partial(notebook_script, notebook))
        notebook.with_suffix(".py").write_text(text, encoding="utf-8")
