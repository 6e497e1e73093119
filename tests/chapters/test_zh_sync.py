"""The Chinese edition stays in sync with the English one: same pages, same quoted values, same includes and
figures, and the glossary's terms. (Its built pages are checked in test_site.py and test_browser.py.)"""

import re

import pytest
import yaml

from scripts.pipeline.references import read_page, without_references
from support import nonempty_glob, REPO

ENGLISH, CHINESE = REPO / "docs", REPO / "docs-zh"
PAGES = [p.name for p in nonempty_glob(ENGLISH, "*.md")]
GLOSSARY = yaml.safe_load((CHINESE / "glossary.yml").read_text(encoding="utf-8"))

NOT_PROSE = re.compile(r"```.*?```|`[^`\n]*`|\$\$.*?\$\$|\$[^$\n]*\$|<!--.*?-->|\]\([^)]*\)|\{#[^}\n]*\}",
                       re.DOTALL | re.MULTILINE)


def read(folder, page):
    return (folder / page).read_text(encoding="utf-8")


def parts(markdown):
    """What a page quotes from the build: value references, include lines, figure files (a Chinese page names the
    same figures, its build shows their Chinese twins; it may quote a value's Chinese twin, <name>_zh, made by the
    same run, and includes the Chinese twin of the measured timings, docs/measured/bench.zh.md)."""
    uses = read_page(markdown)
    return {
        "values": {(snippet, name.removesuffix("_zh")) for snippet, name in uses.values},
        "includes": {include.replace("bench.zh.md", "bench.md") for include in uses.includes},  # timings: bench.py
        "figures": {figure.path for figure in uses.figures},
    }


def mentions(text, term):
    """Whether ``text`` uses ``term`` as a word, singular or plural (query, queries; mask, masks)."""
    plural = rf"{re.escape(term[:-1])}ies" if term.endswith("y") else rf"{re.escape(term)}(?:s|es)"
    return re.search(rf"\b(?:{re.escape(term)}|{plural})\b", text, re.IGNORECASE) is not None


def prose(markdown):
    """The page's own words: no code, math, includes, value references, link targets or heading ids."""
    return NOT_PROSE.sub(" ", without_references(markdown))


def test_every_page_has_a_twin_in_the_other_edition():
    chinese = [p.name for p in nonempty_glob(CHINESE, "*.md")]
    assert chinese == PAGES, f"missing in docs-zh/: {sorted(set(PAGES) - set(chinese))}; extra: {sorted(set(chinese) - set(PAGES))}"


@pytest.mark.claim("Every Chinese page quotes the same values, includes and figures as its English twin",
                   zh="每个中文页面引用的值、引入的内容和图都与对应的英文页面相同")
@pytest.mark.parametrize("page", PAGES)
def test_the_twins_quote_the_same_outputs(page):
    english, chinese = parts(read(ENGLISH, page)), parts(read(CHINESE, page))
    for kind in english:
        assert chinese[kind] == english[kind], (
            f"docs-zh/{page} {kind}: missing {sorted(english[kind] - chinese[kind])}, "
            f"not in English {sorted(chinese[kind] - english[kind])}"
        )


@pytest.mark.parametrize("page", PAGES)
def test_the_chinese_pages_use_the_glossary_terms(page):
    english, chinese = prose(read(ENGLISH, page)), prose(read(CHINESE, page))
    findings = []
    for term in GLOSSARY:
        findings += [f"writes {alternative!r} {chinese.count(alternative)}x; the glossary says {term['zh']!r}"
                     for alternative in term.get("avoid", []) if alternative in chinese]
        if term.get("required", True) and mentions(english, term["en"]) and term["zh"] not in chinese:
            findings.append(f"the English page says {term['en']!r}, this page never {term['zh']!r}")
    assert not findings, f"docs-zh/{page}:\n" + "\n".join(findings)


def test_the_glossary_is_one_term_per_english_word():
    english = [term["en"].lower() for term in GLOSSARY]
    assert len(english) == len(set(english))
    for term in GLOSSARY:
        assert term["zh"] not in term.get("avoid", []), term


def test_the_chinese_nav_lists_the_same_pages_in_the_same_order():
    def files(nav):
        for entry in nav:
            for value in entry.values():
                yield from files(value) if isinstance(value, list) else [value]

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)  # !ENV and friends
    english = yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)["nav"]
    chinese = yaml.load((REPO / "mkdocs.zh.yml").read_text(encoding="utf-8"), Loader=Loader)["nav"]
    assert list(files(chinese)) == list(files(english))
