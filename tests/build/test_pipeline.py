"""The snippet pipeline on a small temporary project: caching, failures, atomicity, checks, determinism."""

import json
import os
import re
import subprocess
import sys
import time

import pytest

from scripts import chapter_markdown
from scripts.pipeline import keys, notebooks as notebooks_module, runner
from scripts.pipeline.build import build
from scripts.pipeline.check import check
from scripts.pipeline.notebooks import notebook_script
from scripts.pipeline.project import Project
from scripts.pipeline.published import shown_text
from scripts.pipeline.store import write_atomic
from support import IDENTITY, REPO, git, nonempty_glob

ALPHA = '''"""Alpha: uses the core module, publishes a value and a table, draws a figure."""
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import softmax
from lib.publish import table, value

print("setting up")
# --8<-- [start:weights]
weights = softmax(np.array([1.0, 2.0, 3.0]))
print("weights", np.round(weights, 3))
# --8<-- [start:top]
value("top", weights.max(), "{:.3f}")
# --8<-- [end:top]
# --8<-- [end:weights]
table("small", ["name", "x"], [["a", 1.5], ["b", 2.25]], zh=(["名称", "x"], [["a", 1.5], ["b", 2.25]]))
fig, ax = plt.subplots(num="bars")
ax.bar(range(3), weights)
ax.set_xlabel("key (attended to)")  # an entry of the shared catalog: the Chinese twin is drawn with Noto Sans SC
plt.show()
'''

BETA = '''"""Beta: no local imports."""
print("beta says", 6 * 7)
'''


@pytest.fixture
def project(tmp_path):
    (tmp_path / "snippets" / "lib").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "chapter.md").write_text("# A chapter\n")
    (tmp_path / "snippets" / "chapter").mkdir()
    for module in ("__init__.py", "attention.py", "publish.py", "plotting.py", "zh.py", "zh.toml", "zh.latin.toml"):
        (tmp_path / "snippets" / "lib" / module).write_text((REPO / "snippets" / "lib" / module).read_text())
    (tmp_path / "snippets" / "chapter" / "alpha.py").write_text(ALPHA)
    (tmp_path / "snippets" / "chapter" / "beta.py").write_text(BETA)
    return Project(tmp_path)


def snapshot(project):
    files = (p for p in nonempty_glob(project.generated, "**/*") if p.is_file())
    return {p.relative_to(project.root).as_posix(): p.read_bytes() for p in files}


def ran(output):
    """Snippet names the build reported running."""
    return sorted(line.split()[1] for line in output.splitlines() if line.startswith("["))


def test_cold_build_writes_every_output_with_provenance(project, capsys):
    assert build(project) == 0
    assert ran(capsys.readouterr().out) == ["chapter/alpha", "chapter/beta"]
    alpha = project.generated / "chapter" / "alpha"
    assert sorted(p.name for p in alpha.iterdir()) == [
        "bars.svg",
        "bars.zh.svg",
        "manifest.json",
        "output-top.txt",
        "output-weights.txt",
        "run.json",
        "stdout.txt",
        "table-small.json",
        "table-small.zh.json",
        "values.json",
    ]
    assert "beta says 42" in (project.generated / "chapter" / "beta" / "stdout.txt").read_text()
    assert json.loads((alpha / "table-small.json").read_text()) == {
        "header": ["name", "x"],
        "rows": [["a", "1.5"], ["b", "2.25"]],
    }
    assert json.loads((alpha / "table-small.zh.json").read_text()) == {
        "header": ["名称", "x"],
        "rows": [["a", "1.5"], ["b", "2.25"]],
    }
    assert json.loads((alpha / "run.json").read_text())["figures"] == ["bars"]
    manifest = (alpha / "manifest.json").read_text()
    for needed in (
        '"snippet": "snippets/chapter/alpha.py"',
        '"numpy"',
        '"matplotlib"',
        "snippets/lib/attention.py",
        '"key"',
    ):
        assert needed in manifest


@pytest.mark.claim(
    "Each section of a snippet keeps what it printed, in an output file of its own",
    zh="代码片段的每一节都把自己打印的内容保存在单独的输出文件中",
)
def test_each_section_keeps_what_it_printed(project):
    build(project)
    alpha = project.generated / "chapter" / "alpha"
    assert (alpha / "stdout.txt").read_text().startswith("setting up\nweights [0.09  0.245 0.665]\ntop = 0.665\nname")
    assert (alpha / "output-weights.txt").read_text() == "weights [0.09  0.245 0.665]\ntop = 0.665\n"
    assert (alpha / "output-top.txt").read_text() == "top = 0.665\n"


@pytest.mark.claim(
    "A chapter includes a section's output, never a line range of a snippet's printout",
    zh="章节引入的是某一节的输出，从不引入代码片段打印结果中的某个行范围",
)
def test_no_chapter_includes_a_stdout_line_range():
    for chapter in nonempty_glob(REPO / "docs", "*.md"):
        assert ".txt:" not in "".join(line for line in chapter.read_text().splitlines() if "--8<--" in line), (
            chapter.name
        )


@pytest.mark.claim(
    "A no-change rebuild reruns nothing; editing the core module reruns exactly the snippets that import it",
    zh="没有改动时重新构建不会重跑任何东西；编辑核心模块时，恰好重跑导入它的那些代码片段",
)
def test_no_change_reruns_nothing_and_edits_rerun_exactly_the_dependents(project, capsys):
    build(project)
    capsys.readouterr()
    assert build(project) == 0
    assert ran(capsys.readouterr().out) == []

    core = project.snippets / "lib" / "attention.py"
    core.write_text(core.read_text() + "\n# a comment changes the key\n")
    build(project)
    assert ran(capsys.readouterr().out) == ["chapter/alpha"]  # beta imports nothing local

    beta = project.snippets / "chapter" / "beta.py"
    beta.write_text(beta.read_text().replace("6 * 7", "6 * 8"))
    build(project)
    assert ran(capsys.readouterr().out) == ["chapter/beta"]
    assert "beta says 48" in (project.generated / "chapter" / "beta" / "stdout.txt").read_text()


ARITHMETIC = '''"""Arithmetic: the BLAS kernels and NumPy SIMD level this snippet runs with."""
import os
from numpy._core._multiarray_umath import __cpu_features__
print(os.environ.get("OPENBLAS_CORETYPE"), __cpu_features__.get("X86_V4", False))
'''


@pytest.mark.skipif("OPENBLAS_CORETYPE" not in runner.ARITHMETIC_ENV, reason="the kernels are pinned on x86-64 only")
def test_snippets_run_with_the_same_arithmetic_whatever_the_machine_would_pick(project, monkeypatch):
    """OpenBLAS and NumPy choose kernels by CPU, and the last digits of the outputs with them: the build pins both."""
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Zen")
    monkeypatch.delenv("NPY_DISABLE_CPU_FEATURES", raising=False)
    (project.snippets / "chapter" / "arithmetic.py").write_text(ARITHMETIC)
    assert build(project, ["chapter/arithmetic"]) == 0
    assert (project.generated / "chapter" / "arithmetic" / "stdout.txt").read_text() == "Haswell False\n"


def test_the_environment_snippets_run_in_is_part_of_their_key(monkeypatch):
    pinned = keys.builder_version()
    monkeypatch.setitem(runner.SNIPPET_ENV, "OPENBLAS_CORETYPE", "SkylakeX")
    assert keys.builder_version() != pinned


@pytest.mark.claim(
    "`make check` names each stale snippet and the command that fixes it",
    zh="`make check` 会指出每个过期的代码片段以及修复它的命令",
)
def test_check_names_the_stale_snippet_and_the_fix(project, capsys):
    build(project)
    assert check(project) == 0
    beta = project.snippets / "chapter" / "beta.py"
    beta.write_text(beta.read_text() + "print('more')\n")
    capsys.readouterr()
    assert check(project) == 1
    err = capsys.readouterr().err
    assert "stale: chapter/beta (snippets/chapter/beta.py)" in err and "make outputs" in err
    assert "alpha" not in err
    alpha = project.snippets / "chapter" / "alpha.py"
    alpha.write_text(alpha.read_text() + "# edited\n")
    assert check(project) == 1  # two stale snippets: both named
    err = capsys.readouterr().err
    assert (
        "stale: chapter/alpha (snippets/chapter/alpha.py)" in err
        and "stale: chapter/beta (snippets/chapter/beta.py)" in err
    )


@pytest.mark.claim(
    "The manifest covers the Chinese twins: check catches a hand-edited Chinese figure or table, and an "
    "edit of the shared translations makes every snippet stale",
    zh="清单涵盖中文对应版本：检查能发现手工改动过的中文图表，而修改共用译文会使所有代码片段过期",
)
def test_check_covers_the_chinese_twins(project, capsys):
    build(project)
    alpha = project.generated / "chapter" / "alpha"
    assert {"bars.zh.svg", "table-small.zh.json"} <= set(json.loads((alpha / "manifest.json").read_text())["files"])
    (alpha / "bars.zh.svg").write_text((alpha / "bars.zh.svg").read_text().replace("键", "建"))
    capsys.readouterr()
    assert check(project) == 1
    assert "chapter/alpha" in capsys.readouterr().err
    build(project, force=True)
    shared = project.snippets / "lib" / "zh.toml"
    shared.write_text(shared.read_text() + '"a new entry" = "新条目"  # changes every snippet\'s key\n')
    assert check(project) == 1
    err = capsys.readouterr().err
    assert "stale: chapter/alpha" in err and "stale: chapter/beta" in err  # beta draws nothing, but is keyed on it


def test_check_catches_hand_edited_and_orphaned_outputs(project, capsys):
    build(project)
    (project.generated / "chapter" / "alpha" / "stdout.txt").write_text("typed by hand\n")
    (project.generated / "gone").mkdir()
    (project.generated / "chapter" / "renamed").mkdir()
    capsys.readouterr()
    assert check(project) == 1
    err = capsys.readouterr().err
    assert "alpha" in err and "edited" in err
    assert "orphan: docs/generated/gone has no snippet" in err
    assert "orphan: docs/generated/chapter/renamed has no snippet" in err


@pytest.mark.claim(
    "A failing snippet is reported with file, line and exception, and its previous outputs stay untouched",
    zh="失败的代码片段会连同文件、行号和异常一起报告，其先前的输出保持不变",
)
def test_failing_snippet_reports_file_line_and_keeps_previous_outputs(project, capsys, monkeypatch):
    build(project)
    before = snapshot(project)
    alpha = project.snippets / "chapter" / "alpha.py"
    lines = alpha.read_text().splitlines()
    lines.insert(14, "weights = weights.reshape(2, 2)")  # becomes line 15, after weights = softmax(...)
    alpha.write_text("\n".join(lines) + "\n")
    beta = project.snippets / "chapter" / "beta.py"
    beta.write_text(beta.read_text() + "print('beta still runs')\n")
    capsys.readouterr()
    notebooks_written = []
    monkeypatch.setattr(notebooks_module, "write_notebooks", lambda project: notebooks_written.append(project) or [])
    assert build(project) == 1
    out, err = capsys.readouterr()
    assert f"{alpha}:15: ValueError: cannot reshape array of size 3 into shape (2,2)" in err
    assert "1 snippet(s) failed: chapter/alpha; notebooks not rewritten" in err
    assert notebooks_written == [], "a page may quote a value the failed snippet never wrote"
    after = snapshot(project)
    assert {k: v for k, v in after.items() if "/alpha/" in k} == {k: v for k, v in before.items() if "/alpha/" in k}
    assert "beta still runs" in (project.generated / "chapter" / "beta" / "stdout.txt").read_text()
    assert not list(project.scratch.glob("*-chapter-alpha-*")), "no half-written staging folder is left behind"


def test_an_error_inside_a_local_module_points_at_the_module_line(project, capsys):
    core = project.snippets / "lib" / "attention.py"
    core.write_text(
        core.read_text().replace(
            "    x = np.asarray(x, dtype=np.float64)\n", "    x = np.asarray(x, dtype=np.float64)\n    1 / 0\n", 1
        )
    )
    assert build(project) == 1
    err = capsys.readouterr().err
    assert f"{core}:" in err and "ZeroDivisionError: division by zero" in err


def test_a_crashing_process_cannot_take_the_build_down(project, capsys):
    (project.snippets / "chapter" / "gamma.py").write_text('"""Dies hard."""\nimport os\nos._exit(3)\n')
    assert build(project) == 1
    captured = capsys.readouterr()
    assert "snippets/chapter/gamma.py: the snippet's process exited with status 3" in captured.err
    assert (project.generated / "chapter" / "alpha" / "manifest.json").exists()


@pytest.mark.claim(
    "A snippet that runs past its time limit is killed and reported; its previous outputs stay untouched",
    zh="运行超过时间限制的代码片段会被终止并报告；其先前的输出保持不变",
)
def test_a_hanging_snippet_times_out_with_its_name(project, capsys):
    build(project)
    before = snapshot(project)
    beta = project.snippets / "chapter" / "beta.py"
    beta.write_text("# Build time limit: 2 s\nimport time\nprint('waiting')\nwhile True:\n    time.sleep(1)\n")
    start = time.perf_counter()
    assert build(project) == 1
    assert time.perf_counter() - start < 30  # the limit is 2 s; the build does not hang
    assert "snippets/chapter/beta.py: timed out after 2 s" in capsys.readouterr().err
    assert snapshot(project) == before
    assert not list(project.scratch.glob("*-chapter-beta-*"))


def test_a_snippet_that_imports_a_snippet_fails_naming_both(project):
    build(project)
    before = snapshot(project)
    (project.snippets / "chapter" / "gamma.py").write_text(
        '"""Reuses alpha."""\nfrom chapter.alpha import weights\nprint(weights)\n'
    )
    with pytest.raises(SystemExit) as failure:
        build(project)
    message = str(failure.value)
    assert "snippets/chapter/gamma.py imports snippets/chapter/alpha.py" in message and "snippets/lib/" in message
    assert snapshot(project) == before
    assert (project.generated / "chapter" / "alpha").is_dir(), (
        "the imported snippet is still a snippet, its outputs stay"
    )


def test_a_snippet_outside_a_chapter_folder_fails_naming_it(project):
    (project.snippets / "loose.py").write_text('"""Loose."""\nprint(1)\n')
    with pytest.raises(
        SystemExit,
        match=r"snippets/loose\.py is not in a chapter folder: a snippet lives at snippets/<chapter>/<what>\.py",
    ):
        build(project)


def test_a_snippet_folder_without_its_page_fails_naming_both(project):
    (project.snippets / "no_such_page").mkdir()
    (project.snippets / "no_such_page" / "x.py").write_text('"""X."""\nprint(1)\n')
    with pytest.raises(SystemExit, match=r"snippets/no_such_page/ has no page of that name.*docs/no-such-page\.md"):
        build(project)


def test_a_snippet_that_cannot_run_alone_fails_naming_the_line_it_needs(project):
    alpha = project.snippets / "chapter" / "alpha.py"
    alpha.write_text(alpha.read_text().replace("sys.path.insert(0, str(Path(__file__).resolve().parents[1]))", "pass"))
    with pytest.raises(
        SystemExit, match=r"snippets/chapter/alpha\.py imports lib but cannot run alone.*sys\.path\.insert"
    ):
        build(project)


def test_staging_folders_of_a_killed_build_are_cleaned_up(project):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    abandoned = project.scratch / f"{dead.stdout.strip()}-alpha-x1y2"
    abandoned.mkdir(parents=True)
    (abandoned / "stdout.txt").write_text("half")
    build(project)
    assert not abandoned.exists()


def test_the_build_reports_process_start_versus_snippet_time(project, capsys):
    build(project, force=True)
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("process time:"))
    assert "s starting processes" in line and "s running snippet code" in line


@pytest.mark.claim(
    "Two full rebuilds produce byte-identical outputs, the Chinese figures and tables included",
    zh="两次完整重建产生逐字节相同的输出，中文图表也不例外",
)
def test_two_full_rebuilds_are_byte_identical(project):
    build(project)
    first = snapshot(project)
    assert {"docs/generated/chapter/alpha/bars.zh.svg", "docs/generated/chapter/alpha/table-small.zh.json"} <= set(
        first
    )
    build(project, force=True)
    assert snapshot(project) == first


UNTRANSLATED = '''"""Untranslated: a figure and a table with English that no catalog has Chinese for."""
import sys
from pathlib import Path

import matplotlib.pyplot as plt
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.publish import table

table("sizes", ["width of nothing", "d_k"], [["every word here", 8], ["cat", 4]])
fig, ax = plt.subplots(num="lonely")
ax.set_title("A title nobody translated, 3 times")
ax.set_xticks([0, 1], ["key (attended to)", "some tick"])
plt.show()
'''


@pytest.mark.claim(
    "Text with no Chinese fails the build naming the snippet, each figure or table, each English text and the "
    "catalog to add it to",
    zh="没有中文译文的文本会使构建失败，并指出代码片段、每个图或表、每段英文文本以及应写入译文的文件",
)
def test_a_missing_translation_fails_naming_snippet_figure_table_and_text(project, capsys):
    (project.snippets / "chapter" / "untranslated.py").write_text(UNTRANSLATED)
    assert build(project, ["chapter/untranslated"]) == 1
    err = capsys.readouterr().err
    assert "snippet chapter/untranslated failed" in err
    assert "figure 'lonely': 'some tick', 'A title nobody translated, 3 times'" in err
    assert "table 'sizes': 'width of nothing', 'every word here'" in err
    assert "'key (attended to)'" not in err and "'cat'" not in err  # translated, and a token of the running example
    assert 'add "English" = "中文" to snippets/chapter/zh.toml' in err
    assert not (project.generated / "chapter" / "untranslated").exists(), "no outputs with English in place of Chinese"


BOXED = '''"""Boxed: a label whose Chinese has a character no installed font draws."""
import sys
from pathlib import Path

import matplotlib.pyplot as plt
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports

fig, ax = plt.subplots(num="boxed")
ax.set_title("a rare word")
plt.show()
'''


def test_a_table_column_without_a_title_fails_naming_the_table_and_the_column():
    from lib import publish

    with pytest.raises(ValueError, match=r"table 'sizes': column 1 has no title"):
        publish.table("sizes", [" ", "tutorial"], [["d_model", 128]])
    assert "sizes" not in publish.TABLES


@pytest.mark.claim(
    "A Chinese figure that would draw a character as a box fails the build naming the character",
    zh="中文图中若有字符会被画成方框，构建就会失败并指出该字符",
)
def test_a_chinese_figure_that_draws_a_box_fails_naming_the_character(project, capsys):
    catalog = project.snippets / "chapter" / "zh.toml"
    catalog.write_text('"a rare word" = "\\U0002a6a5"  # CJK Extension B: not in Noto Sans SC\n')
    (project.snippets / "chapter" / "boxed.py").write_text(BOXED)
    assert build(project, ["chapter/boxed"]) == 1
    err = capsys.readouterr().err
    assert "boxed.zh.svg draws characters as boxes" in err and "CJK UNIFIED IDEOGRAPH-2A6A5" in err
    assert not (project.generated / "chapter" / "boxed").exists()


UNSEEDED = '''"""Unseeded: a draw no second run repeats, shown in a figure and a table."""
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.publish import table, value

value("what", "one draw", zh="一次抽样")
draw = np.random.default_rng().random()
table("draw", ["d_k", "x"], [[8, draw]], fmt="{:.12f}")
fig, ax = plt.subplots(num="draw")
ax.set_title(f"{draw:.12f}")
ax.set_ylabel("query (attending)")
plt.show()
'''


def svg_texts(path):
    """The texts matplotlib wrote into an SVG (each as a comment before its glyphs)."""
    return re.findall(r"<!-- (.*?) -->", path.read_text(encoding="utf-8"))


@pytest.mark.claim(
    "The Chinese twin of a figure and a table comes from the same run as the English one",
    zh="图和表的中文版本与英文版本来自同一次运行",
)
def test_chinese_twins_come_from_the_same_run(project):
    (project.snippets / "chapter" / "unseeded.py").write_text(UNSEEDED)
    assert build(project, ["chapter/unseeded"]) == 0
    out = project.generated / "chapter" / "unseeded"
    draw = json.loads((out / "table-draw.json").read_text())["rows"][0][1]
    assert json.loads((out / "table-draw.zh.json").read_text())["rows"][0][1] == draw
    assert draw in svg_texts(out / "draw.svg") and draw in svg_texts(out / "draw.zh.svg")
    assert "查询（发出关注）" in svg_texts(out / "draw.zh.svg") and "query (attending)" in svg_texts(out / "draw.svg")
    assert (
        "NotoSansSC-Regular" in (out / "draw.zh.svg").read_text() and "NotoSansSC" not in (out / "draw.svg").read_text()
    )


def test_lib_zh_leaves_the_examples_tokens_numbers_math_and_identifiers_alone():
    from lib import running_example, tiny_model, zh

    softmax = zh.Translations("softmax")
    tokens = {*running_example.tokenize(running_example.SENTENCE), *tiny_model.REFERENCE_VOCAB, "Dogs", "ran", "chase"}
    assert [t for t in tokens if softmax.translate(t) != t] == []
    for text in (
        "0.665",
        "−1.5e-05",
        "$\\sqrt{d_k}$",
        "`np.tril`",
        "d_k = 8",
        "W_q, W_k",
        "softmax(x)",
        "The cat sat.",
    ):
        assert softmax.translate(text) == text
    assert zh.Translations("multi_head").translate("head 3") == "头 3"
    assert softmax.translate("[Masks](masks.md)") == "[掩码](masks.md)"
    assert softmax.translate("key 1\nscore 860") == "键 1\n分数 860"
    with pytest.raises(zh.MissingTranslation, match="'an untranslated label'"):
        softmax.translate("an untranslated label")


def test_a_chinese_page_writes_booleans_and_lists_of_numbers_in_chinese():
    def entry(value, text, **zh):
        return {"value": value, "text": text, **zh}

    assert [shown_text(entry(True, "True"), language) for language in ("en", "zh")] == ["True", "是"]
    assert shown_text(entry(False, "False"), "zh") == "否"
    assert shown_text(entry("310, 430, 600", "310, 430, 600"), "zh") == "310、430、600"
    assert shown_text(entry([1, 2, 3], "[1, 2, 3]"), "zh") == "1、2、3"
    assert shown_text(entry([1, 2, 3], "[1, 2, 3]"), "en") == "[1, 2, 3]"
    assert shown_text(entry([0.5, 1e-06], "[0.5, 1e-06]"), "zh") == "0.5、1e-06"
    assert shown_text(entry("310, 430, 600", "310, 430, 600", zh="第一"), "zh") == "第一"  # the snippet's own wins
    assert shown_text(entry(1.5, "1.5"), "zh") == "1.5"
    assert shown_text(entry("(6, 128) @ (128, 128)", "(6, 128) @ (128, 128)"), "zh") == "(6, 128) @ (128, 128)"
    assert shown_text(entry([3.7e-106, 1], "[3.7e-106, 1, 0, ...]"), "zh") == "[3.7e-106, 1, 0, ...]"


@pytest.mark.claim(
    "A Chinese page shows the Chinese twins of its tables and figures and the Chinese of text values; "
    "a missing twin is a warning naming it",
    zh="中文页面显示其表格和图的中文版本以及文本值的中文；缺少中文版本时给出指明它的警告",
)
def test_a_chinese_page_shows_the_chinese_twins(project, caplog):
    (project.snippets / "chapter" / "unseeded.py").write_text(UNSEEDED)
    assert build(project) == 0
    page = (
        '--8<-- "docs/generated/chapter/alpha/table-small.md"\n\n![bars](generated/chapter/alpha/bars.svg)\n\n'
        "{{ chapter.unseeded.what }}\n"
    )
    chinese = chapter_markdown.expand_tables(page, project, "page.md", "zh")
    chinese = chapter_markdown.chinese_figures(
        chapter_markdown.inline_values(chinese, project, "page.md", "zh"), project, "page.md"
    )
    assert "| 名称 | x |" in chinese and "](generated/chapter/alpha/bars.zh.svg)" in chinese and "一次抽样" in chinese
    english = chapter_markdown.inline_values(
        chapter_markdown.expand_tables(page, project, "page.md"), project, "page.md"
    )
    assert "| name | x |" in english and "](generated/chapter/alpha/bars.svg)" in english and "one draw" in english
    assert not caplog.records
    (project.generated / "chapter" / "alpha" / "bars.zh.svg").unlink()
    (project.generated / "chapter" / "alpha" / "table-small.zh.json").unlink()
    chapter_markdown.chinese_figures(chapter_markdown.expand_tables(page, project, "page.md", "zh"), project, "page.md")
    warnings = " ".join(record.getMessage() for record in caplog.records)
    assert (
        "page.md: snippets/chapter/alpha.py publishes no table 'small'" in warnings
        and "table-small.zh.json" in warnings
    )
    assert "page.md: snippets/chapter/alpha.py drew no Chinese figure bars.zh.svg" in warnings


def test_full_check_reruns_and_compares_bytes(project, capsys):
    build(project)
    assert check(project, full=True) == 0
    assert "byte for byte" in capsys.readouterr().out


def test_notebooks_follow_the_chapters_and_run_as_plain_scripts(project, tmp_path):
    (project.docs / "chapter.md").write_text('# A chapter\n\n```python\n--8<-- "snippets/chapter/alpha.py"\n```\n')
    build(project)
    assert check(project) == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    notebook_py = elsewhere / "chapter.py"
    notebook_py.write_text(notebook_script(project.notebooks / "chapter.ipynb"))
    result = subprocess.run(
        [sys.executable, str(notebook_py)],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env={"MPLBACKEND": "Agg", "PATH": ""},
    )
    assert result.returncode == 0, result.stderr
    assert "top = 0.665" in result.stdout
    notebook = json.loads((project.notebooks / "chapter.ipynb").read_text())
    code = [
        cell
        for cell in notebook["cells"]
        if cell["cell_type"] == "code" and "softmax(np.array" in "".join(cell["source"])
    ]
    outputs = code[0]["outputs"]
    assert "".join(outputs[0]["text"]) == (project.generated / "chapter" / "alpha" / "stdout.txt").read_text()
    assert (
        "".join(outputs[1]["data"]["image/svg+xml"])
        == (project.generated / "chapter" / "alpha" / "bars.svg").read_text()
    )
    (project.docs / "chapter.md").write_text('# A chapter\n\n```python\n--8<-- "snippets/chapter/beta.py"\n```\n')
    assert check(project) == 1


def one_snippet_per_chapter():
    """The shortest snippet of each chapter folder (what is checked, the line that lets a snippet run alone, is the
    same in all of them; a long one may train a model for seconds)."""
    snippets = sorted(
        (p for p in nonempty_glob(REPO / "snippets", "*/*.py") if p.parent.name != "lib"),
        key=lambda p: (p.parent.name, -p.stat().st_size, p.name),
    )
    return list({p.parent.name: p for p in snippets}.values())


@pytest.mark.claim(
    "A snippet of every chapter runs alone, with python snippets/<chapter>/<what>.py, from another folder, and "
    "writes no files",
    zh="每一章的代码片段都能用 python snippets/<chapter>/<what>.py 从其他文件夹单独运行，且不写入任何文件",
)
@pytest.mark.parametrize("snippet", one_snippet_per_chapter(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_snippet_runs_alone_from_any_folder(snippet, tmp_path):
    result = subprocess.run(
        [sys.executable, str(snippet)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "MPLBACKEND": "Agg"},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert not list(tmp_path.iterdir()), "a snippet run alone writes no files"


def test_write_atomic_writes_text_and_bytes_whole_and_leaves_nothing_behind_when_it_fails(tmp_path):
    path = tmp_path / "deep" / "out.txt"
    write_atomic(path, "一\r\ntwo\n")  # text as UTF-8, its line ends as given
    assert path.read_bytes() == "一\r\ntwo\n".encode()
    write_atomic(path, b"\x00\xff")
    assert path.read_bytes() == b"\x00\xff"
    with pytest.raises(TypeError):
        write_atomic(path, 42)  # neither text nor bytes: the old file stays, no temporary file is left
    assert path.read_bytes() == b"\x00\xff" and sorted(p.name for p in path.parent.iterdir()) == ["out.txt"]


def test_the_tests_git_runner_names_the_failing_command(tmp_path):
    with pytest.raises(RuntimeError, match=r"git rev-parse HEAD failed in .*: fatal: not a git repository"):
        git(tmp_path, "rev-parse", "HEAD")
    git(tmp_path, "init", "-q")
    git(tmp_path, *IDENTITY, "commit", "-q", "--allow-empty", "-m", "start")
    assert re.fullmatch(r"[0-9a-f]{40}", git(tmp_path, "rev-parse", "HEAD"))
