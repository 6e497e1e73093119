"""Chinese typography on docs-zh/: a copywriting linter made for CJK text (autocorrect-py, its default rules:
spacing between CJK and Latin, full-width punctuation) and this project's own rules, which it does not check (the
rule as README.md's "Chinese typography" writes it): “” for every quote in Chinese text, tokens included; lists of
numbers joined with 、; no Python booleans or list literals in running text (是/否, or the value as code); a space
between Chinese and inline code; no italics on Chinese text, captions upright, no line break that renders as a space
between full-width characters, decreases as fractions ("只有 1/2.9", not "小了 N 倍"), no half-width brackets beside
Chinese, and code blocks titled in Chinese (输出) or by a file path. The values a page quotes are checked as it
shows them (their Chinese form where the snippet gives one)."""

import re

import autocorrect_py
import pytest

from scripts.pipeline.published import shown_text, values
from scripts.pipeline.references import INCLUDE_MARK, VALUE, substitute_values
from support import DOCS_ZH, REPO, nonempty_glob

PAGES = [pytest.param(page, id=page.name) for page in nonempty_glob(DOCS_ZH, "*.md")]

CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
FULL_PUNCT = "\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65“”‘’…—"
FULL = CJK + FULL_PUNCT

FENCE = re.compile(r"^([ \t]*)(```|~~~)[^\n]*\n.*?^\1\2[ \t]*$", re.DOTALL | re.MULTILINE)
MATH_BLOCK = re.compile(r"^[ \t]*\$\$.*?\$\$[ \t]*$", re.DOTALL | re.MULTILINE)
INLINE = re.compile(r"`[^`\n]*`|\$[^$\n]+\$|\]\([^)\n]*\)|\{#[^}\n]*\}|<[^>\n]*>|<!--.*?-->", re.DOTALL)
BLOCK_START = re.compile(rf"\s*(?:$|[-*+] |\d+\. |#|\||```|~~~|!\[|<|{INCLUDE_MARK}|\$\$|///|:::|>|!!!|\?\?\?|===)")


def lines_outside_code(markdown):
    """(line number, text) of every line outside fenced code and display math, those blocks blanked."""
    blanked = FENCE.sub(lambda m: "\n" * m.group().count("\n"), markdown)
    blanked = MATH_BLOCK.sub(lambda m: "\n" * m.group().count("\n"), blanked)
    return list(enumerate(blanked.split("\n"), start=1))


def prose(line):
    """A line's words: inline code, inline math, link targets, heading ids and HTML removed."""
    return INLINE.sub(" ", line)


SYNTAX_TITLE = re.compile(r"^\s*(?:\?\?\?\+?|!!!|===)\s")  # admonition and tab titles are Markdown syntax in "…"


def straight_quotes_in_chinese(text):
    """Pairs of ASCII double quotes, taken in order along a line of Chinese text (tokens quoted in English too)."""
    parts = text.split('"') if not SYNTAX_TITLE.match(text) and re.search(f"[{CJK}]", text) else []
    closed = parts[1 : len(parts) - 1 : 2] if len(parts) % 2 else parts[1 : len(parts) - 2 : 2]
    return [f'"{inside}"' for inside in closed]


def in_chinese_text(pattern):
    """The matches of ``pattern`` in a line of Chinese text."""
    return lambda text: pattern.finditer(text) if re.search(f"[{CJK}]", text) else ()


NUMBER_LIST = re.compile(r"(?<![\w(])\d[\d.]*, +\d(?![^()]*\))")  # 310, 430, 600; not a tuple, N(0, 1) or (7, 7)
BOOLEAN = re.compile(r"(?<![\w.])(?:True|False)(?![\w.])")
LIST_LITERAL = re.compile(r"\[[\d., '-]*\d[\d., '-]*\]")  # [1], [0, 1]; a link's [text] has its target removed
CODE_SPAN = re.compile(r"`[^`\n]+`")


def code_without_space(line):
    """Inline code touching a Chinese character on either side."""
    return (
        span
        for span in CODE_SPAN.finditer(line)
        if re.match(f"[{CJK}]", line[span.start() - 1 : span.start()] or " ")
        or re.match(f"[{CJK}]", line[span.end() : span.end() + 1] or " ")
    )


ITALIC = re.compile(rf"(?<![*_A-Za-z0-9])([*_])(?![*_\s])[^*_\n]*[{CJK}][^*_\n]*(?<![\s*_])\1(?![*_A-Za-z0-9])")
DECREASE = re.compile(
    r"(?:小|少|低|慢|短|减少|降低|缩小|下降|减小)了?\s*(?:[\d.,]+|[一二三四五六七八九十百千万两]+|"
    + VALUE.pattern
    + r")\s*倍"
)
# A bracketed aside, not a function's argument list (O(N), abs(W_o), N(0, 1) are notation and keep theirs).
ASIDE = re.compile(r"(?<![A-Za-z0-9_.)\]])\s*\(([^()\n]*)\)\s*")
FULL_CHAR = re.compile(f"[{FULL}]")


def half_width_asides(text):
    """Half-width (…) asides beside Chinese text or around it: Chinese brackets them （…）."""
    for match in ASIDE.finditer(text):
        before, after = text[: match.start()].rstrip()[-1:], text[match.end() :][:1]
        if FULL_CHAR.match(before or " ") or FULL_CHAR.match(after or " ") or re.search(f"[{CJK}]", match.group(1)):
            yield match


def findings(markdown):
    found = []
    lines = lines_outside_code(markdown)
    for number, line in lines:
        words = prose(line)
        bold_free = words.replace("**", "\x00")
        found += [
            f"{number}: straight quotes in Chinese text (use “”): {quote!r}"
            for quote in straight_quotes_in_chinese(words)
        ]
        for rule, matches in (
            ("italics on Chinese text", ITALIC.finditer(bold_free)),
            ("a decrease as 'N 倍' (write the fraction: 只有 1/N)", DECREASE.finditer(words)),
            ("numbers listed with Latin commas (join them with 、)", in_chinese_text(NUMBER_LIST)(words)),
            ("a Python boolean in running text (是/否, or the value as code)", in_chinese_text(BOOLEAN)(words)),
            ("a list literal in running text (words, or the value as code)", in_chinese_text(LIST_LITERAL)(words)),
            ("no space between Chinese and inline code", code_without_space(line)),
        ):
            found += [f"{number}: {rule}: {match.group()!r}" for match in matches]
        found += [
            f"{number}: a half-width bracket beside Chinese (use （）): {match.group().strip()!r}"
            for match in half_width_asides(words)
        ]
    for (number, line), (_, following) in zip(lines, lines[1:]):
        end = re.sub(r"\]\([^)\n]*\)$", "", line.rstrip()).rstrip(
            " *_]"
        )  # markup renders nothing: what precedes it counts
        if not end or BLOCK_START.match(following) or re.match(rf"\s*(?:#|\||<|///|{INCLUDE_MARK})", line):
            continue
        start = (following.lstrip(" *_[") or " ")[0]
        if re.match(rf"[{FULL_PUNCT}]", end[-1]) or (re.match(rf"[{CJK}]", end[-1]) and re.match(rf"[{FULL}]", start)):
            found.append(
                f"{number}: a line break after {end[-1]!r} inside a paragraph renders as a space: join the lines"
            )
    for match in re.finditer(r'^[ \t]*(?:```|~~~)\w*[^\n]*\btitle="([^"]*)"', markdown, re.MULTILINE):
        title = match.group(1)
        if re.search("[A-Za-z]", title) and not re.search(f"[{CJK}]", title) and not re.search(r"/|\.\w+$", title):
            found.append(
                f"{markdown[: match.start()].count(chr(10)) + 1}: an English code-block title {title!r} (输出, or a "
                f"file path)"
            )
    return found


@pytest.mark.parametrize("page", PAGES)
def test_the_copywriting_linter_finds_nothing(page):
    result = autocorrect_py.lint_for(page.read_text(encoding="utf-8"), page.name)
    assert not result.lines, f"docs-zh/{page.name}:\n" + "\n".join(
        f"{line.line}:{line.col}: {line.old.strip()!r} -> {line.new.strip()!r}" for line in result.lines
    )


def as_shown(markdown):
    """The page with each value it quotes as the Chinese edition shows it (its Chinese form where it has one)."""

    def shown(snippet, name, written):
        published = values(snippet).get(name)
        return written if published is None else shown_text(published, "zh")

    return substitute_values(markdown, shown)


@pytest.mark.parametrize("page", PAGES)
def test_the_project_typography_rules_hold(page):
    found = findings(as_shown(page.read_text(encoding="utf-8")))
    assert not found, f"docs-zh/{page.name} (its values filled in):\n" + "\n".join(found)


def test_the_rules_catch_each_kind_of_mistake():
    bad = {
        "straight quotes": '这叫 "注意力"。',
        "straight quotes around a token": '查询 "cat" 的权重。',
        "numbers listed with Latin commas": "第 310, 430, 600 步",
        "a boolean": "顺序相同（True）。",
        "a list literal": "下标为 [1] 的行。",
        "code without a space": "调用`softmax`之后",
        "italics": "这一行*不*重新归一化。",
        "decrease": "梯度小了 {{ a.b.c }} 倍。",
        "half-width bracket": "这是掩码(mask)。",
        "line break": "第一句，\n第二句。",
        "English title": '```text title="Output"\nx\n```',
    }
    for kind, markdown in bad.items():
        assert findings(markdown), kind
    good = (
        '这叫“注意力”，**加粗**可以，`"代码"` 不算，只有 1/{{ a.b.c }}；大了 128 倍。\n\n```text '
        'title="snippets/a/b.py"\n(代码)\n```\n\n查询“cat”在第 310、430、600 步：`True`，`[1]`，[链接](a.md)。\n\n'
        'English "quotes", 1, 2 and True stay English.'
    )
    assert findings(good) == []
    assert autocorrect_py.lint_for("中文abc测试", "x.md").lines


def test_captions_stand_upright_in_the_chinese_edition():
    stylesheets = nonempty_glob(REPO / "docs" / "assets" / "stylesheets", "*.css")
    css = "\n".join(path.read_text(encoding="utf-8") for path in stylesheets)
    rule = re.search(r":lang\(zh\)[^{]*figcaption[^{]*\{([^}]*)\}", css)
    assert rule and re.search(r"font-style:\s*normal", rule.group(1)), "no :lang(zh) rule sets figcaption upright"
