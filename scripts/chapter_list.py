"""The chapters as the menu lists them, with each page's title and summary read from the page itself.

A page's title is its front matter's ``title`` or else its first heading, as MkDocs takes it; its summary is
the front matter's ``summary``. The menu (``nav`` in mkdocs.yml) lists files only, so a chapter's title is typed
once per language, in its page: the Chinese edition inherits the English menu and translates its section labels
(``extra.nav_labels`` in mkdocs.zh.yml). The home pages' chapter lists and the links of the claims tables are
written from the same titles.
"""

import re
from pathlib import Path

from mkdocs.utils.meta import get_data

CHAPTER_LIST = "<!-- chapters -->"
HEADING = re.compile(r"^# (?P<title>.+?)(?:\s*\{[^}]*\})?\s*$", re.MULTILINE)  # "# Title {#anchor}"
ARROW_LINK = re.compile(r"\[→\]\((?P<page>[\w-]+\.md)(?P<anchor>#[\w-]+)?\)")  # "[→](page.md#anchor)"
SEPARATOR = {"en": ": ", "zh": "："}


def page_meta(path):
    """The front matter of the page at ``path`` and its first heading's text ("" where it has none)."""
    body, meta = get_data(Path(path).read_text(encoding="utf-8"))
    heading = HEADING.search(body)
    return meta, heading["title"] if heading else ""


def page_title(path):
    meta, heading = page_meta(path)
    title = meta.get("title", heading)
    if not title:
        raise ValueError(f"{path}: no title (give the page a first heading '# ...' or a front matter 'title:')")
    return title


def translate_nav(nav, labels):
    """mkdocs.yml's menu with every section label (and titled entry such as Home) translated by ``labels``;
    a label missing from ``labels`` is an error naming it."""

    def label(text):
        if text not in labels:
            raise ValueError(f"menu label {text!r} has no translation: add it to extra.nav_labels in mkdocs.zh.yml")
        return labels[text]

    translated = []
    for entry in nav:
        if isinstance(entry, dict):
            ((key, value),) = entry.items()
            translated.append({label(key): translate_nav(value, labels) if isinstance(value, list) else value})
        else:
            translated.append(entry)
    return translated


def nav_sections(nav):
    """(section label or None, [page file, ...]) in menu order; pages outside any section come first as None."""
    loose = [entry for entry in nav if isinstance(entry, str)]
    sections = [next(iter(entry.items())) for entry in nav if isinstance(entry, dict)]
    yield None, loose
    for name, value in sections:
        if isinstance(value, list):
            yield name, [entry for entry in value if isinstance(entry, str)]


def chapter_list(nav, docs_dir, language):
    """The home page's list of every chapter: loose pages as lines, then each section's pages as a bulleted list,
    each a link with its title and summary. A listed page without a summary is an error naming it."""
    if not nav:
        raise ValueError(f"{Path(docs_dir) / 'index.md'} lists the chapters ({CHAPTER_LIST}), but there is no nav")
    separator, blocks = SEPARATOR[language], []
    for section, pages in nav_sections(nav):
        lines = []
        for page in pages:
            if page == "index.md":
                continue
            meta, _ = page_meta(Path(docs_dir) / page)
            if "summary" not in meta:
                raise ValueError(f"{Path(docs_dir) / page}: no 'summary:' in its front matter (the home page lists it)")
            lines.append(f"[{page_title(Path(docs_dir) / page)}]({page}){separator}{meta['summary']}")
        if section is None:
            blocks += lines
        elif lines:
            blocks += [f"**{section}**", "\n".join(f"- {line}" for line in lines)]
    return "\n\n".join(blocks)


def titled_links(markdown, docs_dir):
    """Every ``[→](page.md)`` link given its page's title: ``[→ Title](page.md)``."""
    return ARROW_LINK.sub(
        lambda m: f"[→ {page_title(Path(docs_dir) / m['page'])}]({m['page']}{m['anchor'] or ''})", markdown
    )
