"""The one reader of what a page uses (scripts/pipeline/references.py), and the rule that nothing else spells
the reference syntax."""

import ast

import markdown
from bs4 import BeautifulSoup

from scripts.pipeline.references import (
    read_page,
    sections,
    substitute_figures,
    substitute_tables,
    substitute_values,
    without_references,
)
from support import REPO, nonempty_glob

PAGE = """# A chapter

```python title="snippets/masks/kinds.py"
--8<-- "snippets/masks/kinds.py:masks"
```

```python
--8<-- "snippets/lib/attention.py:softmax"
```

```text title="Output"
--8<-- "docs/generated/masks/kinds/output-masks.txt"
```

--8<-- "docs/generated/softmax/definition/table-properties.md"

![Weights of the causal mask](generated/masks/kinds/weights.svg)

The padding weight is {{ masks.kinds.pad_weight }}, and {{ softmax.definition.row_sum }} is the row sum;
{{ masks.kinds.pad_weight }} again.
"""


def test_read_page_finds_every_kind_of_use_in_order():
    uses = read_page(PAGE)
    assert uses.code == ["masks/kinds"]
    assert uses.library == ["attention"]
    assert uses.outputs == [("masks/kinds", "output-masks.txt"), ("softmax/definition", "table-properties.md")]
    assert uses.tables == [("softmax/definition", "properties")]
    assert [(f.alt, f.path, f.snippet, f.name) for f in uses.figures] == [
        ("Weights of the causal mask", "generated/masks/kinds/weights.svg", "masks/kinds", "weights")
    ]
    assert uses.values == [("masks/kinds", "pad_weight"), ("softmax/definition", "row_sum")]
    assert uses.snippets == ["masks/kinds", "softmax/definition"]
    assert "snippets/lib/attention.py:softmax" in uses.includes


def test_library_code_is_never_taken_for_a_snippet():
    assert read_page('--8<-- "snippets/lib/attention.py"\n').code == []


def test_substitutions_replace_exactly_the_references():
    quoted = substitute_values(PAGE, lambda snippet, name, written: f"<{snippet}:{name}>")
    assert "<masks/kinds:pad_weight>" in quoted and "<softmax/definition:row_sum>" in quoted and "{{" not in quoted
    tabled = substitute_tables(PAGE, lambda snippet, name: f"TABLE {snippet} {name}")
    assert "TABLE softmax/definition properties" in tabled and "table-properties.md" not in tabled
    kept = substitute_tables(PAGE, lambda snippet, name: None)
    assert kept == PAGE
    shown = substitute_figures(PAGE, lambda figure: f"{figure.name}.zh.svg")
    assert "![Weights of the causal mask](generated/masks/kinds/weights.zh.svg)" in shown
    assert shown.replace("weights.zh.svg", "weights.svg") == PAGE
    assert "--8<--" not in without_references(PAGE) and "{{" not in without_references(PAGE)


def test_a_value_shows_as_written_in_prose_alt_text_code_and_math():
    """A token like <pad> in a value is text, not an HTML tag, wherever the value stands: the page rendered by
    Markdown shows it (the oracle is Markdown's own output, read back as text)."""
    page = (
        "source {{ a.b.tokens }} here\n\n![over {{ a.b.tokens }}](x.svg)\n\n`{{ a.b.tokens }}`\n\n"
        "```text\n{{ a.b.tokens }}\n```\n\n$x {{ a.b.less }} y$"
    )
    texts = {"tokens": "the dog . <pad> <pad>", "less": "<"}
    substituted = substitute_values(page, lambda snippet, name, written: texts[name], escape_html=True)
    soup = BeautifulSoup(markdown.markdown(substituted, extensions=["fenced_code"]), "html.parser")
    assert soup.p.get_text() == "source the dog . <pad> <pad> here"
    assert soup.img["alt"] == "over the dog . <pad> <pad>"
    assert [code.get_text().strip() for code in soup.find_all("code")] == ["the dog . <pad> <pad>"] * 2
    assert substituted.endswith("$x < y$")  # math goes to KaTeX as written


def test_sections_read_python_and_markdown_markers_nested():
    python = "a\n# --8<-- [start:outer]\nb\n# --8<-- [start:inner]\nc\n# --8<-- [end:inner]\n# --8<-- [end:outer]\n"
    assert sections(python) == {"inner": "c\n", "outer": "b\n# --8<-- [start:inner]\nc\n# --8<-- [end:inner]\n"}
    markdown = "<!-- --8<-- [start:machine] -->\nCPU x\n<!-- --8<-- [end:machine] -->\n"
    assert sections(markdown) == {"machine": "CPU x\n"}


SYNTAX = ("8<--", "{{", "\\{\\{")  # an include line, a section marker, a value reference


def patterns_spelling_the_syntax(path):
    """(line, pattern) of every regular expression in ``path`` that spells a reference, include or section marker."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and any(s in node.args[0].value for s in SYNTAX)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def test_the_reference_syntax_is_defined_once():
    """grep finds one definition of the syntax in scripts/ and snippets/lib/, and none in tests/."""
    files = [
        *nonempty_glob(REPO / "scripts", "**/*.py"),
        *nonempty_glob(REPO / "snippets" / "lib", "*.py"),
        *nonempty_glob(REPO / "tests", "**/*.py"),
    ]
    owner = REPO / "scripts" / "pipeline" / "references.py"
    assert patterns_spelling_the_syntax(owner), "the reader itself defines the syntax"
    elsewhere = {
        path.relative_to(REPO).as_posix(): found
        for path in files
        if path != owner
        for found in [patterns_spelling_the_syntax(path)]
        if found
    }
    assert not elsewhere, elsewhere
