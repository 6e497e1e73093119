"""Adding a chapter, as README's "Adding a chapter" says: in a scratch copy of the project, a chapter with one
snippet, one figure, one table, one claim and both editions is added by writing four files and editing two, and
the built site shows it in both menus, both home pages and the claims page's links, with its title typed once per
language (in its pages' headings)."""

import re
import shutil
import subprocess
import sys

import pytest

from support import REPO, git

pytestmark = pytest.mark.site

TITLE = {"en": "Demo chapter", "zh": "示例章节"}
NEW_FILES = {
    "snippets/demo_chapter/weights.py": '''"""One softmax row: a value, a table and a figure."""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import softmax
from lib.publish import table, value

# --8<-- [start:row]
scores = np.array([2.0, 1.0, 0.1])  # (3,)
weights = softmax(scores)  # (3,)
# --8<-- [end:row]

print(weights)
value("top_weight", weights[0], "{:.3f}")
table("row", ["position", "weight"], [[str(i), f"{w:.3f}"] for i, w in enumerate(weights)])
fig, ax = plt.subplots(num="row", figsize=(3, 2))
ax.bar(range(3), weights)
ax.set_xlabel("position")
ax.set_ylabel("weight")
ax.set_title("A demo row")
''',
    "snippets/demo_chapter/zh.toml": '"A demo row" = "示例行"\n"position" = "位置"\n',
    "docs/demo-chapter.md": """---
summary: 'a chapter added by a test.'
---

# Demo chapter

The largest weight is {{ demo_chapter.weights.top_weight }}.

```python title="snippets/demo_chapter/weights.py"
--8<-- "snippets/demo_chapter/weights.py:row"
```

--8<-- "docs/generated/demo_chapter/weights/table-row.md"

![A bar chart of three softmax weights, largest first.](generated/demo_chapter/weights/row.svg)
/// caption
The demo row.
///
""",
    "docs-zh/demo-chapter.md": """---
summary: '由测试添加的一章。'
---

# 示例章节

最大的权重是 {{ demo_chapter.weights.top_weight }}。

```python title="snippets/demo_chapter/weights.py"
--8<-- "snippets/demo_chapter/weights.py:row"
```

--8<-- "docs/generated/demo_chapter/weights/table-row.md"

![三个 softmax 权重的柱状图，最大的在最前。](generated/demo_chapter/weights/row.svg)
/// caption
示例行。
///
""",
}
EDITS = {  # file: (a line it has, the same line with the new chapter's lines after it)
    "mkdocs.yml": ("      - cross-attention.md\n", "      - cross-attention.md\n      - demo-chapter.md\n"),
    "snippets/claims/claims.toml": (
        "\n[[claims]]\n",
        """
[[claims]]
id = 'G-DEMO'
source = 'common'
topic = 'scaling'
verdict = 'holds'
see = 'demo-chapter.md'
claim = 'A demo claim.'
claim_zh = '一个示例论断。'
evidence = 'The largest weight is {{ demo_chapter.weights.top_weight }}.'
evidence_zh = '最大的权重是 {{ demo_chapter.weights.top_weight }}。'

[[claims]]
""",
    ),
}


@pytest.fixture(scope="module")
def site_with_a_new_chapter(tmp_path_factory):
    copy = tmp_path_factory.mktemp("project")
    for name in git(REPO, "ls-files", "--cached", "--others", "--exclude-standard").splitlines():
        source = REPO / name
        if source.is_file() and not source.is_symlink():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
        elif source.is_symlink():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            (copy / name).symlink_to(source.readlink())
    for name, text in NEW_FILES.items():
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        (copy / name).write_text(text, encoding="utf-8")
    for name, (line, replacement) in EDITS.items():
        text = (copy / name).read_text(encoding="utf-8")
        assert line in text, f"{name} no longer has {line!r}: update this test and README's 'Adding a chapter'"
        (copy / name).write_text(text.replace(line, replacement, 1), encoding="utf-8")
    for command in (
        [sys.executable, "-m", "scripts.pipeline", "build"],
        [sys.executable, "-m", "mkdocs", "build", "--strict"],
    ):
        result = subprocess.run(command, cwd=copy, capture_output=True, text=True)
        assert result.returncode == 0, (
            f"{' '.join(command[2:])} failed:\n{result.stdout[-3000:]}{result.stderr[-3000:]}"
        )
    return copy / "site"


@pytest.mark.parametrize("language, folder", [("en", ""), ("zh", "zh/")])
def test_the_new_chapter_is_in_the_menu_the_home_page_and_the_claims_links(site_with_a_new_chapter, language, folder):
    site, title = site_with_a_new_chapter / folder, TITLE[language]
    chapter = (site / "demo-chapter" / "index.html").read_text(encoding="utf-8")
    assert re.search(rf"<h1[^>]*>{title}", chapter) and "0.659" in chapter
    assert "demo_chapter/weights/row" + (".zh" if language == "zh" else "") + ".svg" in chapter
    home = (site / "index.html").read_text(encoding="utf-8")
    menu_links = re.findall(rf'href="demo-chapter/"[^>]*>\s*(?:<span[^>]*>)?\s*{title}\s*<', home)
    assert menu_links, "the menu does not list the new chapter under its title"
    assert re.search(rf'<li><a href="demo-chapter/">{title}</a>', home), "the home page's chapter list misses it"
    claims = (site / "claims" / "index.html").read_text(encoding="utf-8")
    assert re.search(rf'<a href="\.\./demo-chapter/">→ {title}</a>', claims), "the claims table's link misses it"
