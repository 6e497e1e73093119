"""The translation catalogs: each chapter's ``snippets/<chapter>/zh.toml`` and the shared ``snippets/lib/zh.toml``
are inputs of exactly the snippets they can change, every entry is text its chapter shows, and a bad catalog fails
naming the file."""

import html
import json
import re

import pytest

from lib import zh
from scripts.pipeline.build import build
from scripts.pipeline.check import check
from scripts.pipeline.discover import find_snippets
from scripts.pipeline.project import Project
from support import REPO, nonempty_glob

SNIPPET = '''"""{name}: a table with text of its chapter's catalog."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.publish import table

table("words", ["{text}"], [["1"]])
'''
CATALOGS = {"one": '"first text" = "第一段文本"\n', "two": '"second text" = "第二段文本"\n'}


@pytest.fixture
def project(tmp_path):
    """Two chapters, each with its catalog: one/a and one/b show the first's text, two/c the second's."""
    (tmp_path / "snippets" / "lib").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    for module in ("__init__.py", "publish.py", "plotting.py", "zh.py", "zh.toml", "zh.latin.toml"):
        (tmp_path / "snippets" / "lib" / module).write_text((REPO / "snippets" / "lib" / module).read_text())
    for chapter, catalog in CATALOGS.items():
        (tmp_path / "docs" / f"{chapter}.md").write_text(f"# {chapter}\n")
        (tmp_path / "snippets" / chapter).mkdir()
        (tmp_path / "snippets" / chapter / "zh.toml").write_text(catalog, encoding="utf-8")
    for name, text in (("one/a", "first text"), ("one/b", "first text"), ("two/c", "second text")):
        (tmp_path / "snippets" / f"{name}.py").write_text(SNIPPET.format(name=name, text=text))
    return Project(tmp_path)


def ran(output):
    return sorted(line.split()[1] for line in output.splitlines() if line.startswith("["))


@pytest.mark.claim(
    "Adding one translation to one chapter's catalog makes only that chapter's snippets stale, and "
    "`make check` names them",
    zh="往某一章的译文文件里加一条译文，只有这一章的代码片段会过期，`make check` 会逐一指出它们",
)
def test_one_chapters_translation_makes_only_its_snippets_stale(project, capsys):
    assert find_snippets(project) == ["one/a", "one/b", "two/c"]  # a catalog beside the snippets is not one
    assert build(project) == 0
    assert json.loads((project.generated / "two" / "c" / "table-words.zh.json").read_text())["header"] == ["第二段文本"]
    catalog = project.snippets / "one" / "zh.toml"
    catalog.write_text(catalog.read_text(encoding="utf-8") + '"a new text" = "新文本"\n', encoding="utf-8")
    capsys.readouterr()
    assert check(project) == 1
    err = capsys.readouterr().err
    assert "stale: one/a (snippets/one/a.py)" in err and "stale: one/b (snippets/one/b.py)" in err
    assert "two/c" not in err
    assert build(project) == 0
    assert ran(capsys.readouterr().out) == ["one/a", "one/b"]


def test_a_missing_translation_names_the_text_and_the_catalog():
    with pytest.raises(zh.MissingTranslation) as error:
        zh.Translations("softmax").translate_all(["an untranslated label", "key (attended to)", "another one"])
    assert str(error.value) == (
        "no Chinese for 'an untranslated label', 'another one': add \"English\" = \"中文\" to "
        "snippets/softmax/zh.toml (or to snippets/lib/zh.toml if other chapters show the text too)"
    )


@pytest.fixture
def catalogs(tmp_path, monkeypatch):
    """lib.zh reading its catalogs from an empty snippets/ folder in ``tmp_path``."""
    (tmp_path / "snippets" / "lib").mkdir(parents=True)
    (tmp_path / "snippets" / "one").mkdir()
    monkeypatch.setattr(zh, "SNIPPETS", tmp_path / "snippets")
    monkeypatch.setattr(zh, "SHARED", tmp_path / "snippets" / "lib" / "zh.toml")
    return tmp_path / "snippets"


@pytest.mark.parametrize(
    "text, message",
    [
        ('"query" = "查询"\n"query" = "问"\n', r"snippets/one/zh\.toml is not valid TOML: .*"),
        ('"shape" = 3\n', r"snippets/one/zh\.toml: 'shape' must each be one line"),
        ('d_k.value = "值"\n', r"snippets/one/zh\.toml: 'd_k' must each be one line .*quote the English"),
        ('"head {}" = "头 {}"\n"mask" = "掩码"\n', r"snippets/one/zh\.toml repeats 'mask' of snippets/lib/zh\.toml"),
    ],
)
def test_a_bad_catalog_fails_naming_the_file(catalogs, text, message):
    (catalogs / "lib" / "zh.toml").write_text('"mask" = "掩码"\n', encoding="utf-8")
    (catalogs / "one" / "zh.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        zh.Translations("one")


def test_a_chapter_without_a_catalog_has_the_shared_one(catalogs):
    (catalogs / "lib" / "zh.toml").write_text('"mask" = "掩码"\n', encoding="utf-8")
    assert zh.Translations("one").translate("mask") == "掩码"


# ------------------------------------------------------------------ the catalogs of this repository
SNIPPETS, GENERATED = REPO / "snippets", REPO / "docs" / "generated"
CHAPTER_CATALOGS = [path for path in nonempty_glob(SNIPPETS, f"*/{zh.CATALOG}") if path.parent.name != "lib"]
NUMBER = r"[-+−]?\d+(?:\.\d+)?(?:e[-+]?\d+)?"  # what "{}" stands for (lib.zh.NUMBER)


def english_texts(chapter):
    """Every text the English figures and tables of ``chapter`` show, each line and link text on its own too (the
    pieces lib.zh translates one by one): an SVG holds each drawn line in a comment."""
    texts, files = set(), nonempty_glob(GENERATED / chapter, "*/*")
    for svg in (p for p in files if p.suffix == ".svg" and not p.name.endswith(".zh.svg")):
        texts |= {html.unescape(t) for t in re.findall(r"<!-- (.*?) -->", svg.read_text(encoding="utf-8"), re.DOTALL)}
    for path in (
        p for p in files if p.name.startswith("table-") and p.suffix == ".json" and not p.name.endswith(".zh.json")
    ):
        table = json.loads(path.read_text(encoding="utf-8"))
        texts |= {*table["header"], *(cell for row in table["rows"] for cell in row)}
    pieces = {line for text in texts for line in text.split("\n")}
    return texts | pieces | {link.group(1) for piece in pieces if (link := zh.LINK.match(piece))}


def shown_by(entry, texts):
    """Whether every line of a catalog entry is one of ``texts`` ("{}" matching a number)."""
    lines = [re.compile(re.escape(line).replace(re.escape("{}"), NUMBER)) for line in entry.split("\n")]
    return all(any(line.fullmatch(text) for text in texts) for line in lines)


def test_the_catalogs_sit_in_chapter_folders_and_no_text_is_in_two():
    chapters = {name.split("/")[0] for name in find_snippets(Project())}
    assert len(CHAPTER_CATALOGS) > 20 and {p.parent.name for p in CHAPTER_CATALOGS} <= chapters
    seen = {}
    for path in CHAPTER_CATALOGS:
        zh.Translations(path.parent.name)  # reads the catalog and checks it repeats no entry of the shared one
        for english in zh.read_catalog(path):
            seen.setdefault(english, []).append(path.parent.name)
    assert {english: found for english, found in seen.items() if len(found) > 1} == {}  # several: shared


@pytest.mark.parametrize("catalog", CHAPTER_CATALOGS, ids=lambda path: path.parent.name)
def test_every_entry_of_a_chapters_catalog_is_text_the_chapter_shows(catalog):
    texts = english_texts(catalog.parent.name)
    assert [entry for entry in zh.read_catalog(catalog) if not shown_by(entry, texts)] == []


def test_every_entry_of_the_shared_catalog_is_text_two_chapters_show():
    texts = {chapter: english_texts(chapter) for chapter in {name.split("/")[0] for name in find_snippets(Project())}}
    assert [entry for entry in zh.read_catalog(zh.SHARED) if sum(shown_by(entry, t) for t in texts.values()) < 2] == []
