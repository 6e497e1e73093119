"""The Chinese edition stays in sync with the English one: same pages, same quoted values, same includes and
figures, and the glossary's terms. (Its built pages are checked in test_site.py and test_browser.py.)"""

import html
import json
import re
import tomllib

import pytest
import yaml

from scripts.chapter_list import translate_nav
from scripts.ledger import claim_markers
from scripts.pipeline.references import read_page, without_references
from scripts.words import FOLDER as WORDS
from support import LATIN_IN_CHINESE, REPO, mkdocs_config, nav_pages, nonempty_glob

ENGLISH, CHINESE = REPO / "docs", REPO / "docs-zh"
PAGES = [p.name for p in nonempty_glob(ENGLISH, "*.md")]
GLOSSARY = yaml.safe_load((CHINESE / "glossary.yml").read_text(encoding="utf-8"))

NOT_PROSE = re.compile(
    r"```.*?```|`[^`\n]*`|\$\$.*?\$\$|\$[^$\n]*\$|<!--.*?-->|\]\([^)]*\)|\{#[^}\n]*\}", re.DOTALL | re.MULTILINE
)


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
    assert chinese == PAGES, (
        f"missing in docs-zh/: {sorted(set(PAGES) - set(chinese))}; extra: {sorted(set(chinese) - set(PAGES))}"
    )


@pytest.mark.claim(
    "Every Chinese page quotes the same values, includes and figures as its English twin",
    zh="每个中文页面引用的值、引入的内容和图都与对应的英文页面相同",
)
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
        findings += [
            f"writes {alternative!r} {chinese.count(alternative)}x; the glossary says {term['zh']!r}"
            for alternative in term.get("avoid", [])
            if alternative in chinese
        ]
        if term.get("required", True) and mentions(english, term["en"]) and term["zh"] not in chinese:
            findings.append(f"the English page says {term['en']!r}, this page never {term['zh']!r}")
    assert not findings, f"docs-zh/{page}:\n" + "\n".join(findings)


def test_the_glossary_is_one_term_per_english_word():
    english = [term["en"].lower() for term in GLOSSARY]
    assert len(english) == len(set(english))
    for term in GLOSSARY:
        assert term["zh"] not in term.get("avoid", []), term


def test_the_chinese_menu_translates_every_label_of_the_english_one_and_no_other():
    """The Chinese edition inherits mkdocs.yml's menu (its pages' titles are their own) and translates its labels."""
    english, chinese = mkdocs_config("mkdocs.yml"), mkdocs_config("mkdocs.zh.yml")
    assert "nav" not in chinese
    labels = chinese["extra"]["nav_labels"]
    translated = translate_nav(english["nav"], labels)
    assert list(nav_pages(translated)) == list(nav_pages(english["nav"]))
    used = {key for entry in english["nav"] if isinstance(entry, dict) for key in entry}
    assert set(labels) == used, "a label in extra.nav_labels that the menu does not have"
    assert all(label.strip() and label not in labels for label in labels.values())


# ------------------------------------------------------------------ the glossary on generated Chinese text
GENERATED = REPO / "docs/generated"


def _strings(data):
    """Every string in a parsed JSON or TOML document."""
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        yield from (s for value in data.values() for s in _strings(value))
    elif isinstance(data, list):
        yield from (s for value in data for s in _strings(value))


def generated_chinese(kind):
    """(where, text) of every Chinese text of one kind that the Chinese pages show besides their own prose."""
    if kind == "tables":  # the snippets' Chinese tables (the claims page's rows among them)
        for path in nonempty_glob(GENERATED, "**/table-*.zh.json"):
            yield from ((path.relative_to(REPO).as_posix(), text) for text in _strings(json.loads(path.read_text())))
    elif kind == "figures":  # the texts matplotlib drew into the Chinese figures (a comment before each)
        for path in nonempty_glob(GENERATED, "**/*.zh.svg"):
            yield from (
                (path.relative_to(REPO).as_posix(), html.unescape(text))
                for text in re.findall(r"<!-- (.*?) -->", path.read_text(encoding="utf-8"))
            )
    elif kind == "values":  # a value's Chinese text (alt texts among them), and the values named <name>_zh
        for path in nonempty_glob(GENERATED, "**/values.json"):
            for name, entry in json.loads(path.read_text(encoding="utf-8")).items():
                texts = [entry.get("zh")] + ([entry["text"]] if name.endswith("_zh") else [])
                yield from ((f"{path.relative_to(REPO).as_posix()}: {name}", text) for text in texts if text)
    elif kind == "claim markers":  # the ledger's claims, @pytest.mark.claim(zh=...)
        yield from ((test_id, claim_zh) for _, claim_zh, test_id, _ in claim_markers(REPO / "tests") if claim_zh)
    elif kind == "interface words":  # the ledger's, footers', notebooks', benchmarks' and explorables' words
        chinese = tomllib.loads((WORDS / "zh.toml").read_text(encoding="utf-8"))
        yield from (("scripts/words/zh.toml", text) for text in _strings(chinese))
    elif kind == "benchmarks":
        yield "docs/measured/bench.zh.md", (REPO / "docs/measured/bench.zh.md").read_text(encoding="utf-8")


def avoided_terms(texts):
    """[(where, the text, the term it uses, the glossary's term)] for every "avoid" alternative found in ``texts``
    (in what a reader sees of them: no code, math, value references or link targets)."""
    return [
        (where, text, alternative, term["zh"])
        for where, text in texts
        for term in GLOSSARY
        for alternative in term.get("avoid", [])
        if alternative in prose(text)
    ]


GENERATED_KINDS = ["tables", "figures", "values", "claim markers", "interface words", "benchmarks"]


@pytest.mark.claim(
    "The Chinese tables, figures, values, claims, ledger, benchmark and explorable words use none of "
    "the alternatives the glossary forbids",
    zh="中文的表格、图、值、论断、台账、基准测试和可交互示例用语都不使用术语表禁止的译法",
)
@pytest.mark.parametrize("kind", GENERATED_KINDS)
def test_generated_chinese_text_uses_the_glossary_terms(kind):
    texts = list(generated_chinese(kind))
    assert texts, f"found no Chinese {kind}: the check would pass on anything"
    found = avoided_terms(texts)
    assert not found, f"Chinese {kind} use terms the glossary forbids:\n" + "\n".join(
        f"{where}: {alternative!r} (the glossary says {wanted!r}) in {text!r}"
        for where, text, alternative, wanted in found
    )


def test_the_glossary_check_finds_a_forbidden_term_in_generated_text():
    assert avoided_terms([("a table", "注意力遮罩")]) == [("a table", "注意力遮罩", "遮罩", "掩码")]
    assert avoided_terms([("a figure", "注意力掩码")]) == []


def test_the_latin_words_list_names_each_word_once():
    groups = tomllib.loads((REPO / "snippets/lib/zh.latin.toml").read_text(encoding="utf-8"))["words"]
    words = [word for group in groups.values() for word in group]
    assert len(words) == len(set(words)) == len(LATIN_IN_CHINESE), sorted(w for w in words if words.count(w) > 1)


def test_the_chinese_edition_names_its_palette_switch_and_permalinks_in_chinese():
    """Material's own words follow ``theme.language``; the words the configuration gives it are mkdocs.zh.yml's."""
    from mkdocs.config import load_config

    english, chinese = (load_config(str(REPO / name)) for name in ("mkdocs.yml", "mkdocs.zh.yml"))
    assert chinese.theme["language"] == "zh"
    names = [scheme["toggle"].pop("name") for scheme in chinese.theme["palette"]]
    assert all(re.search("[\u4e00-\u9fff]", name) for name in names), names
    assert chinese.theme["palette"] == [
        {**s, "toggle": {k: v for k, v in s["toggle"].items() if k != "name"}} for s in english.theme["palette"]
    ], "the palettes differ beyond their names"
    assert re.search("[\u4e00-\u9fff]", chinese.mdx_configs["toc"].get("permalink_title", "")), chinese.mdx_configs
    assert chinese.markdown_extensions == english.markdown_extensions
