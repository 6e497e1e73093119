"""What the search index reads beyond a page's prose: the glossary's terms as whole words, and math in headings as
readable text.

- ``write_dictionary`` makes a jieba user dictionary of every term of docs-zh/glossary.yml (under .cache/, at each
  build), so the search plugin keeps the project's compound terms whole (层归一化, not 层 and 归一化);
  scripts/material_search.py hands it to the plugin.
- ``searchable_heading_math`` puts beside each formula of a heading a readable text of it (``\\sqrt{d_k}`` ->
  √d_k), hidden from readers and screen readers, so search results show the heading whole: rendered math is
  kept out of the index.
"""

import html
import re
from pathlib import Path

import yaml
from backrefs import bre

from scripts.pipeline.project import REPO
from scripts.pipeline.store import write_atomic

GLOSSARY = REPO / "docs-zh" / "glossary.yml"
DICTIONARY = REPO / ".cache" / "search" / "glossary-words.txt"
HAN = bre.compile(r"\p{script: Han}+", bre.UNICODE)  # what the search plugin hands jieba, as it defines it
HEADING = re.compile(r"(<h([1-6])\b[^>]*>)(.*?)(</h\2>)", re.DOTALL)
HEADING_MATH = re.compile(r'<span class="arithmatex">\\\((.*?)\\\)</span>', re.DOTALL)

SYMBOLS = {
    r"\cdot": "·",
    r"\times": "×",
    r"\top": "ᵀ",
    r"\infty": "∞",
    r"\sum": "∑",
    r"\partial": "∂",
    r"\in": "∈",
    r"\approx": "≈",
    r"\le": "≤",
    r"\ge": "≥",
    r"\ne": "≠",
    r"\to": "→",
    r"\odot": "⊙",
    r"\ell": "ℓ",
    r"\alpha": "α",
    r"\beta": "β",
    r"\gamma": "γ",
    r"\delta": "δ",
    r"\epsilon": "ε",
    r"\lambda": "λ",
    r"\mu": "μ",
    r"\pi": "π",
    r"\sigma": "σ",
    r"\tau": "τ",
    r"\omega": "ω",
    r"\Sigma": "Σ",
}
FONT_OR_TEXT = re.compile(r"\\(?:text|mathrm|mathbf|mathit|mathcal|mathbb|operatorname)\{([^{}]*)\}")
SQRT = re.compile(r"\\sqrt\{([^{}]*)\}")
FRAC = re.compile(r"\\frac\{([^{}]*)\}\{([^{}]*)\}")
SCRIPT = re.compile(r"([_^])\{([^{}]*)\}")
COMMAND = re.compile(r"\\[A-Za-z]+")


def glossary_words(glossary=GLOSSARY):
    """The words jieba must keep whole: each run of Chinese characters in a ``zh`` term of the glossary (the plugin
    hands jieba only such runs: "KV 缓存" reaches it as 缓存), two characters or more (one is never cut). A tree
    without a glossary (the tests' small copies of the project) has none."""
    if not glossary.exists():
        return []
    terms = [entry["zh"] for entry in yaml.safe_load(glossary.read_text(encoding="utf-8"))]
    return sorted({run for term in terms for run in HAN.findall(term) if len(run) > 1})


def write_dictionary(glossary=GLOSSARY, path=DICTIONARY):
    """A jieba user dictionary (one word a line: jieba gives each the frequency that keeps it whole) of the
    glossary's words; written whole, so the edition building beside this one never reads half of it."""
    path = Path(path)
    write_atomic(path, "".join(f"{word}\n" for word in glossary_words(glossary)))
    return path


def readable_math(tex):
    """A formula as plain text a search result can show: ``\\sqrt{d_k}`` -> ``√d_k``, ``d_{\\text{model}}`` ->
    ``d_model``, ``\\frac{a}{b}`` -> ``a/b``."""
    previous = None
    while previous != tex:  # innermost groups first
        previous = tex
        tex = FONT_OR_TEXT.sub(r"\1", tex)
        tex = SQRT.sub(lambda m: "√" + (m.group(1) if re.fullmatch(r"\w+", m.group(1)) else f"({m.group(1)})"), tex)
        tex = FRAC.sub(r"\1/\2", tex)
        tex = SCRIPT.sub(r"\1\2", tex)
    tex = COMMAND.sub(lambda m: SYMBOLS.get(m.group(0), ""), tex)
    return " ".join(tex.replace("{", "").replace("}", "").split())


def searchable_heading_math(page_html):
    """Beside each formula in a heading (arithmatex's ``\\(...\\)``, before it is rendered), its readable text in
    a ``hidden`` span: the search index takes it as part of the heading's title; nobody sees or hears it."""

    def heading(match):
        start, _, content, end = match.groups()
        content = HEADING_MATH.sub(
            lambda m: f"{m.group(0)}<span hidden>{html.escape(readable_math(html.unescape(m.group(1))), False)}</span>",
            content,
        )
        return start + content + end

    return HEADING.sub(heading, page_html)
