"""The built site: every page there, nothing loaded from outside, figures described, values inlined."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from site_nav import NAV

from scripts.ledger import claim_tests, quoted_values
from scripts.pipeline.notebooks import chapter_snippets
from scripts.pipeline.project import Project
from scripts.pipeline.published import values

pytestmark = pytest.mark.site
REPO = Path(__file__).resolve().parents[1]
PROJECT = Project()
OUTSIDE = re.compile(r"^(https?:)?//")


CHAPTERS = sorted(p.stem for p in PROJECT.docs.glob("*.md"))


def page_html(site, stem):
    path = site / ("index.html" if stem == "index" else f"{stem}/index.html")
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def test_every_chapter_is_in_the_nav_and_built(built_site):
    assert sorted(Path(p).stem for p in NAV) == CHAPTERS
    for stem in CHAPTERS:
        assert page_html(built_site, stem).find("article") is not None


@pytest.mark.claim("No page loads a script, stylesheet, font or image from outside the site")
def test_nothing_is_loaded_from_outside_the_site(built_site):
    offenders = []
    for html in built_site.rglob("*.html"):
        soup = BeautifulSoup(html.read_text(encoding="utf-8"), "html.parser")
        for tag, attribute in (("script", "src"), ("img", "src"), ("iframe", "src"), ("source", "src"), ("link", "href")):
            for element in soup.find_all(tag):
                url = element.get(attribute, "")
                is_navigation_link = tag == "link" and element.get("rel") in (["canonical"], ["alternate"])
                if OUTSIDE.match(url) and not is_navigation_link:
                    offenders.append(f"{html.relative_to(built_site)}: <{tag} {attribute}={url}>")
    for css in built_site.rglob("*.css"):
        offenders += [f"{css.name}: {u}" for u in re.findall(r"url\(['\"]?((?:https?:)?//[^)'\"]+)", css.read_text())]
    assert offenders == []


@pytest.mark.claim("Every figure in a chapter has alt text and a caption")
def test_every_chapter_figure_has_alt_text_and_a_caption(built_site):
    for stem in CHAPTERS:
        for img in page_html(built_site, stem).select("article img"):
            assert img.get("alt", "").strip(), f"{stem}: image {img.get('src')} has no alt text"
            figure = img.find_parent("figure")
            assert figure is not None and figure.find("figcaption"), f"{stem}: image {img.get('src')} has no caption"
            assert figure.find("figcaption").get_text(strip=True)


def test_every_quoted_value_is_inlined(built_site):
    for page, snippet, name in quoted_values(PROJECT):
        text = page_html(built_site, page[:-3]).find("article").get_text()
        assert "{{" not in text and "missing value" not in text, page
        assert name in values(snippet)


def test_chapters_with_snippets_link_an_executed_notebook_and_its_downloads(built_site):
    with_snippets = [s for s in CHAPTERS if chapter_snippets((PROJECT.docs / f"{s}.md").read_text())]
    assert with_snippets
    for stem in with_snippets:
        notebook = page_html(built_site, f"notebooks/{stem}")
        assert notebook.select(".jp-OutputArea-output"), f"notebook {stem} shows no executed output"
        assert (built_site / "notebooks" / stem / f"{stem}.ipynb").exists()
        assert (built_site / "notebooks" / stem / f"{stem}.py").exists()
        links = {a["href"] for a in page_html(built_site, stem).select("article a[href]")}
        assert {f"../notebooks/{stem}/", f"../notebooks/{stem}/{stem}.ipynb", f"../notebooks/{stem}/{stem}.py"} <= links
        downloads = {a["href"] for a in notebook.select("p.notebook-downloads a")}
        assert downloads == {f"{stem}.ipynb", f"{stem}.py"}  # relative to the notebook page, beside the files


def test_a_missing_value_fails_the_strict_build(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Page\n\nThe answer is {{ no_such_snippet.answer }}.\n")
    (tmp_path / "mkdocs.yml").write_text(f"site_name: t\nhooks:\n  - {REPO / 'scripts' / 'mkdocs_hooks.py'}\n")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "no value 'answer' published by snippets/no_such_snippet.py" in result.stderr


def test_the_ledger_is_light_lists_every_claim_and_never_says_not_run(built_site):
    """Mid-run the ledger may or may not have a complete record of this commit (tests/test_ledger.py covers
    each case); either way every claim test is listed once, in collapsed groups, on a light page."""
    path = built_site / "ledger" / "index.html"
    assert path.stat().st_size < 150_000, f"the ledger page weighs {path.stat().st_size} bytes"
    article = page_html(built_site, "ledger").find("article")
    text = article.get_text()
    assert "not run" not in text
    claims = claim_tests(REPO / "tests")
    for _, test_id in claims:
        assert f"({test_id.split('::')[1]})" in text, test_id
    assert len(article.select("details")) >= len({test_id.split("::")[0] for _, test_id in claims})
