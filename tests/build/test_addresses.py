"""Addresses (scripts/addresses.py): with SITE_URL, as `make deploy` builds a version, each edition's sitemap.xml
lists every page of it under the version's address, every page has a canonical link and hreflang links to its
twins, and the notebooks it serves for download (.ipynb and .py) link the other pages by their addresses on the same
edition (scripts/notebook_export.py); without it, a build makes no absolute address at all and serves the notebooks
as committed."""

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from bs4 import BeautifulSoup
from mkdocs.exceptions import Abort

from scripts import addresses, notebook_export
from scripts.pipeline.notebooks import notebook_script
from support import IDENTITY, REPO, git, nonempty_glob

ROOTS_EN = [{"name": "English", "link": "./", "lang": "en"}, {"name": "中文", "link": "zh/", "lang": "zh"}]
ROOTS_ZH = [{"name": "English", "link": "../", "lang": "en"}, {"name": "中文", "link": "./", "lang": "zh"}]
SITE = "https://example.org/attention/"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
EDITIONS = {"": "docs", "zh/": "docs-zh"}  # each edition's folder in the site: its pages' folder
# Notebooks whose downloads a small site serves: links to other chapters in Markdown cells, in an exercise's code and
# in the hint it showed (kv-heads), and in-page links (online-softmax).
DOWNLOADED = ("kv-heads", "online-softmax")
RELATIVE, IN_PAGE = re.compile(r"\]\((\.\./\.\./[^)\s]*)\)"), re.compile(r"\]\(#[^)\s]*\)")


def test_a_page_names_itself_and_its_twin_by_address_with_english_as_the_default():
    twins = {"en": f"{SITE}dev/masks/", "zh": f"{SITE}dev/zh/masks/", "x-default": f"{SITE}dev/masks/"}
    assert addresses.twins(f"{SITE}dev/", ROOTS_EN, "masks/") == twins
    assert addresses.twins(f"{SITE}dev/zh/", ROOTS_ZH, "masks/") == twins
    assert addresses.twins(f"{SITE}dev/zh/", ROOTS_ZH, "")["en"] == f"{SITE}dev/"
    assert addresses.twins(None, ROOTS_EN, "masks/") == {}


def test_the_hreflang_links_follow_the_canonical_one_and_only_with_an_address():
    head = '<head><link rel="canonical" href="https://example.org/masks/">\n<title>x</title></head>'
    assert addresses.head_links(head, "", ROOTS_EN, "masks/") == head
    linked = addresses.head_links(head, "https://example.org/", ROOTS_EN, "masks/")
    assert linked == (
        '<head><link rel="canonical" href="https://example.org/masks/">'
        '\n  <link rel="alternate" hreflang="en" href="https://example.org/masks/">'
        '\n  <link rel="alternate" hreflang="zh" href="https://example.org/zh/masks/">'
        '\n  <link rel="alternate" hreflang="x-default" href="https://example.org/masks/">'
        "\n<title>x</title></head>"
    )
    with pytest.raises(ValueError, match="masks/: the site has an address but the page has no canonical link"):
        addresses.head_links("<head></head>", "https://example.org/", ROOTS_EN, "masks/")


def test_the_chinese_edition_lives_at_the_english_address_zh_which_the_english_build_hands_on(monkeypatch):
    monkeypatch.setenv(addresses.ENVIRONMENT, SITE)
    english = SimpleNamespace(site_url=f"{SITE}dev", theme={"language": "en"})  # as mike's plugin leaves it
    addresses.edition_address(english)
    assert english.site_url == f"{SITE}dev/" and os.environ[addresses.ENVIRONMENT] == f"{SITE}dev/"
    chinese = SimpleNamespace(site_url=os.environ[addresses.ENVIRONMENT], theme={"language": "zh"})
    addresses.edition_address(chinese)
    assert chinese.site_url == f"{SITE}dev/zh/"
    offline = SimpleNamespace(site_url=None, theme={"language": "zh"})
    addresses.edition_address(offline)
    assert offline.site_url is None


def committed_notebook(edition_folder, stem):
    return REPO / EDITIONS[edition_folder] / "notebooks" / f"{stem}.ipynb"


def with_notebooks(repo):
    """Give a small copy of the project the ``DOWNLOADED`` notebooks of both editions, and in each edition a page
    for every chapter they link."""
    for edition_folder, docs in EDITIONS.items():
        for stem in DOWNLOADED:
            notebook = committed_notebook(edition_folder, stem)
            shutil.copy(notebook, repo / docs / "notebooks" / notebook.name)
            for target in RELATIVE.findall(notebook.read_text(encoding="utf-8")):
                chapter = target.removeprefix("../../").split("/")[0]
                (repo / docs / f"{chapter}.md").write_text(f"# {chapter}\n", encoding="utf-8")


def assert_downloads_link_by_address(site, base):
    """Each notebook of DOWNLOADED the edition in folder ``site`` serves, and its .py twin, links every other chapter
    by its address under the edition's (``base``), as often as the committed notebook links it relatively, each a
    page the edition has; its in-page links are the committed ones and the notebook is valid."""
    edition_folder = base.removeprefix(f"{SITE}dev/")
    for stem in DOWNLOADED:
        committed = committed_notebook(edition_folder, stem)
        served = site / "notebooks" / stem / f"{stem}.ipynb"
        nbformat.validate(nbformat.reads(served.read_text(encoding="utf-8"), as_version=4))
        for download, original in ((served, committed.read_text(encoding="utf-8")), (served.with_suffix(".py"), None)):
            text, original = download.read_text(encoding="utf-8"), original or notebook_script(committed)
            assert "](../../" not in text, download
            linked = re.findall(rf"\]\(({re.escape(SITE)}[^)\s]*)\)", text)
            assert len(linked) == len(RELATIVE.findall(original)) > 0, download
            assert IN_PAGE.findall(text) == IN_PAGE.findall(original), download
            for link in linked:
                page = link.removeprefix(base).split("#")[0]
                assert link.startswith(base) and not page.startswith("zh/"), f"{download}: {link}"
                assert (site / page / "index.html").is_file(), f"{download}: {link}"


def assert_downloads_as_committed(site, edition_folder):
    """Each notebook the edition in folder ``site`` serves is the committed one, byte for byte, and its .py twin
    the committed notebook's."""
    for served in nonempty_glob(site, "notebooks/*/*.ipynb"):
        committed = committed_notebook(edition_folder, served.stem)
        assert served.read_bytes() == committed.read_bytes(), served
        assert served.with_suffix(".py").read_text(encoding="utf-8") == notebook_script(committed), served


def test_a_downloaded_notebook_links_other_chapters_by_address_checked_against_the_site(tmp_path):
    """absolute_links_in_downloads on a site folder: a chapter link of a Markdown cell, of a code cell and of the
    hint it showed made absolute, an in-page link kept; without an address the copy is untouched; a link to a page
    the site does not have stops the build, naming the notebook and the link."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("See [masks](../../masks/#causal) and [below](#below).\n\n## Below"),
        nbformat.v4.new_code_cell(
            "HINT = '[softmax](../../softmax/)'",
            outputs=[nbformat.v4.new_output("display_data", data={"text/markdown": "[softmax](../../softmax/)"})],
        ),
    ]
    served = tmp_path / "site" / "notebooks" / "demo" / "demo.ipynb"
    served.parent.mkdir(parents=True)
    served.write_text(nbformat.writes(notebook) + "\n", encoding="utf-8")
    committed = served.read_bytes()
    for page in ("masks", "softmax"):
        (tmp_path / "site" / page).mkdir()
        (tmp_path / "site" / page / "index.html").write_text("")
    notebook_export.absolute_links_in_downloads(tmp_path / "docs-zh", tmp_path / "site", "")
    assert served.read_bytes() == committed
    notebook_export.absolute_links_in_downloads(tmp_path / "docs-zh", tmp_path / "site", f"{SITE}dev/zh/")
    written = nbformat.reads(served.read_text(encoding="utf-8"), as_version=4)
    nbformat.validate(written)
    markdown, code = written.cells
    assert markdown.source == f"See [masks]({SITE}dev/zh/masks/#causal) and [below](#below).\n\n## Below"
    assert code.source == f"HINT = '[softmax]({SITE}dev/zh/softmax/)'"
    assert code.outputs[0]["data"]["text/markdown"] == f"[softmax]({SITE}dev/zh/softmax/)"
    assert {k: v for k, v in written.items() if k != "cells"} == {k: v for k, v in notebook.items() if k != "cells"}
    served.write_bytes(committed)
    shutil.rmtree(tmp_path / "site" / "softmax")
    message = r"docs-zh/notebooks/demo.ipynb: the link \]\(\.\./\.\./softmax/\) names no page of the built site"
    with pytest.raises(Abort, match=message):
        notebook_export.absolute_links_in_downloads(tmp_path / "docs-zh", tmp_path / "site", f"{SITE}dev/zh/")


def pages(edition):
    """The address of every page of an edition's folder, relative to it (the other edition's folder left out)."""
    found = set()
    for page in nonempty_glob(edition, "**/*.html"):
        relative = page.relative_to(edition).as_posix()
        if relative != "404.html" and not relative.startswith("zh/"):
            found.add(relative.removesuffix("index.html"))
    return found


def head_addresses(page):
    head = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").head
    canonical = [link["href"] for link in head.select("link[rel=canonical]")]
    return canonical, {link["hreflang"]: link["href"] for link in head.select("link[rel=alternate][hreflang]")}


@pytest.mark.site
def test_a_deploy_with_site_url_lists_every_page_links_its_twins_and_addresses_downloads(small_site, tmp_path):
    """`make deploy SITE_URL=...` of a small copy of the project (both editions, with two chapters' notebooks),
    version dev: what mike commits."""
    repo = small_site
    with_notebooks(repo)
    env = {
        **os.environ,
        "NO_MKDOCS_2_WARNING": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    env.pop(addresses.ENVIRONMENT, None)
    for command in (["init", "-q", "-b", "main"], ["add", "-A"], [*IDENTITY, "commit", "-q", "-m", "copy"]):
        git(repo, *command)
    deploy = ["make", "-o", "install", "deploy", f"SITE_URL={SITE}", f"BIN={Path(sys.executable).parent}"]
    result = subprocess.run(deploy, cwd=repo, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    site = tmp_path / "gh-pages"
    git(repo, "worktree", "add", "-q", str(site), "gh-pages")
    english, chinese = site / "dev", site / "dev" / "zh"
    assert pages(english) == pages(chinese) and {"", "ledger/"} <= pages(english)
    for edition, base, other_base, lang in (
        (english, f"{SITE}dev/", f"{SITE}dev/zh/", "en"),
        (chinese, f"{SITE}dev/zh/", f"{SITE}dev/", "zh"),
    ):
        listed = {loc.text for loc in ET.parse(edition / "sitemap.xml").iter(f"{SITEMAP}loc")}
        assert listed == {base + page for page in pages(edition)}
        for page in pages(edition):
            canonical, alternates = head_addresses(edition / page / "index.html")
            twin = (
                {"en": base + page, "zh": other_base + page}
                if lang == "en"
                else {"zh": base + page, "en": other_base + page}
            )
            assert canonical == [base + page], page
            assert alternates == {**twin, "x-default": twin["en"]}, page
        assert_downloads_link_by_address(edition, base)


@pytest.mark.site
def test_without_site_url_a_build_makes_no_absolute_address(built_site):
    """`make site` (no SITE_URL): no canonical or hreflang links and empty sitemaps; the pages link each other
    relatively (the language switch included: tests/site/test_site.py); the notebooks served for download are the
    committed ones, byte for byte, and their .py twins those of the committed notebooks."""
    for edition_folder in EDITIONS:
        edition = built_site / edition_folder
        assert not list(ET.parse(edition / "sitemap.xml").iter(f"{SITEMAP}url"))
        for page in sorted(pages(edition)):
            assert head_addresses(edition / page / "index.html") == ([], {}), page
        assert_downloads_as_committed(edition, edition_folder)
