"""Addresses (scripts/addresses.py): with SITE_URL, as `make deploy` builds a version, each edition's sitemap.xml
lists every page of it under the version's address and every page has a canonical link and hreflang links to its
twins; without it, a build makes no absolute address at all."""

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import pytest
from bs4 import BeautifulSoup

from scripts import addresses
from support import IDENTITY, git, nonempty_glob

ROOTS_EN = [{"name": "English", "link": "./", "lang": "en"}, {"name": "中文", "link": "zh/", "lang": "zh"}]
ROOTS_ZH = [{"name": "English", "link": "../", "lang": "en"}, {"name": "中文", "link": "./", "lang": "zh"}]
SITE = "https://example.org/attention/"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


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
def test_a_deploy_with_site_url_lists_every_page_in_each_sitemap_and_links_each_to_its_twins(small_site, tmp_path):
    """`make deploy SITE_URL=...` of a small copy of the project (both editions), version dev: what mike commits."""
    repo = small_site
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


@pytest.mark.site
def test_without_site_url_a_build_makes_no_absolute_address(built_site):
    """`make site` (no SITE_URL): no canonical or hreflang links and empty sitemaps; the pages link each other
    relatively (the language switch included: tests/site/test_site.py)."""
    for edition in (built_site, built_site / "zh"):
        assert not list(ET.parse(edition / "sitemap.xml").iter(f"{SITEMAP}url"))
        for page in sorted(pages(edition)):
            assert head_addresses(edition / page / "index.html") == ([], {}), page
