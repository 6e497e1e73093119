"""MkDocs hooks for the chapters: their values and tables inlined, notebook links and provenance footer
appended, the ledger filled in (scripts/chapter_markdown.py); formulas in headings given a text search can show
(scripts/search_text.py); the snippets the footers link served with the site (scripts/provenance.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # MkDocs loads hooks by path: make `scripts` importable

from scripts import chapter_markdown, editions, provenance, search_text
from scripts.pipeline.project import REPO, Project


def on_page_markdown(markdown, page, config, files):
    if not page.file.src_path.endswith(".md"):  # notebooks quote their own outputs
        return markdown
    return chapter_markdown.chapter(
        markdown,
        Project(),
        page.file.src_path,
        page.url.count("/"),
        editions.edition(config),
        config["extra"].get("repo_blob"),
        config["nav"],
        config["docs_dir"],
    )


def on_page_content(html, page, config, files):
    return html if page.file.src_path.endswith(".ipynb") else search_text.searchable_heading_math(html)


def on_post_build(config):
    if not config["extra"].get("repo_blob"):  # else the footers link the repository
        provenance.copy_snippets(REPO, config["site_dir"])
