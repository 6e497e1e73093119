"""What a dirty rebuild under `make serve` redoes (scripts/serve_rebuilds.py): the changes it sees, when the other
edition or the snippets are left alone, and which built pages it marks for rendering again."""

import logging
import os
import subprocess

from scripts import serve_rebuilds


def test_changes_are_the_files_added_removed_or_modified(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("a")
    (tmp_path / "docs" / "b.md").write_text("b")
    before = serve_rebuilds.files(tmp_path)
    os.utime(tmp_path / "docs" / "a.md", ns=(1, 1))
    (tmp_path / "docs" / "b.md").unlink()
    (tmp_path / "docs" / "c.md").write_text("c")
    assert serve_rebuilds.changed(before, serve_rebuilds.files(tmp_path)) == {"docs/a.md", "docs/b.md", "docs/c.md"}


def test_links_to_folders_are_not_followed(tmp_path):
    (tmp_path / "docs" / "generated").mkdir(parents=True)
    (tmp_path / "docs" / "generated" / "x.svg").write_text("<svg/>")
    (tmp_path / "docs-zh").mkdir()
    (tmp_path / "docs-zh" / "generated").symlink_to(tmp_path / "docs" / "generated")
    assert set(serve_rebuilds.files(tmp_path)) == {"docs/generated/x.svg"}  # read once, as docs/


def test_only_edits_to_english_pages_leave_the_chinese_edition_alone():
    assert serve_rebuilds.english_pages_only({"docs/softmax.md", "docs/masks.md"})
    for other in (
        "docs-zh/softmax.md",
        "docs/generated/softmax/definition/stdout.txt",
        "docs/notebooks/softmax.ipynb",
        "docs/assets/stylesheets/site.css",
        "mkdocs.yml",
        "scripts/fast_pages.py",
    ):
        assert not serve_rebuilds.english_pages_only({"docs/softmax.md", other}), other


def test_snippets_rerun_only_when_one_changed():
    assert serve_rebuilds.snippets_changed({"docs/softmax.md", "snippets/softmax/definition.py"})
    assert serve_rebuilds.snippets_changed({"snippets/lib/attention.py"})
    assert serve_rebuilds.snippets_changed({"snippets/softmax/zh.toml"})  # a catalog: the pipeline reruns its chapter
    assert not serve_rebuilds.snippets_changed({"docs/softmax.md", "docs/generated/softmax/definition/stdout.txt"})


def test_the_pages_showing_a_rerun_snippets_outputs_are_marked_in_their_edition(tmp_path):
    outputs = {
        "docs/generated/softmax/definition/stdout.txt",
        "docs/generated/softmax/definition/values.json",
        "docs/notebooks/softmax.ipynb",
    }
    assert serve_rebuilds.rerun_snippets(outputs) == {"softmax/definition"}
    docs, site = tmp_path / "docs", tmp_path / "site"
    docs.mkdir()
    (docs / "softmax.md").write_text('# Softmax\n\n--8<-- "docs/generated/softmax/definition/stdout.txt"\n')
    (docs / "masks.md").write_text("# Masks\n\nThe sum is {{ softmax.definition.total }}.\n")
    (docs / "index.md").write_text("# Home\n")
    for page in ("softmax/index.html", "masks/index.html", "index.html"):
        (site / page).parent.mkdir(parents=True, exist_ok=True)
        (site / page).write_text("built")
    serve_rebuilds.age_pages_showing({"softmax/definition"}, docs, site)
    aged = {
        page
        for page in ("softmax/index.html", "masks/index.html", "index.html")
        if (site / page).stat().st_mtime_ns == 0
    }
    assert aged == {"softmax/index.html", "masks/index.html"}


def test_the_dirty_build_notice_is_information_and_other_warnings_stay_warnings():
    notice = logging.LogRecord(
        "mkdocs.commands.build",
        logging.WARNING,
        "",
        0,
        "A 'dirty' build is being performed, this will likely lead to inaccurate navigation",
        None,
        None,
    )
    other = logging.LogRecord("mkdocs.commands.build", logging.WARNING, "", 0, "a broken link", None, None)
    only = serve_rebuilds.DirtyBuildIsInformation()
    assert only.filter(notice) and notice.levelno == logging.INFO
    assert only.filter(other) and other.levelno == logging.WARNING


def test_each_look_at_the_edits_sees_what_changed_since_the_last_one(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("a")
    edits = serve_rebuilds.Edits(tmp_path)
    assert edits.since_last_look() is None  # the first build: everything
    os.utime(tmp_path / "docs" / "a.md", ns=(1, 1))
    assert edits.since_last_look() == {"docs/a.md"}
    assert edits.since_last_look() == set()


def test_the_snippets_rerun_at_the_first_build_and_after_a_snippet_edit_only(tmp_path, monkeypatch):
    docs, site = tmp_path / "docs", tmp_path / "site"
    snippet = tmp_path / "snippets" / "softmax" / "definition.py"
    output = docs / "generated" / "softmax" / "definition" / "stdout.txt"
    for path in (snippet, output, site / "softmax" / "index.html"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("0")
    (docs / "softmax.md").write_text('# Softmax\n\n--8<-- "docs/generated/softmax/definition/stdout.txt"\n')
    runs = []

    def pipeline(command, **options):  # the pipeline's build rewrites the snippet's output
        runs.append(command[-1])
        os.utime(output, ns=(len(runs), len(runs)))
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(serve_rebuilds.subprocess, "run", pipeline)
    edits, built = serve_rebuilds.Edits(tmp_path), site / "softmax" / "index.html"
    serve_rebuilds.rerun_stale_snippets(edits, [(docs, site)])
    assert runs == ["build"] and built.stat().st_mtime_ns != 0  # the first build renders every page anyway
    os.utime(docs / "softmax.md", ns=(5, 5))
    serve_rebuilds.rerun_stale_snippets(edits, [(docs, site)])
    assert runs == ["build"]  # a page edited: no snippet to rerun
    os.utime(snippet, ns=(5, 5))
    serve_rebuilds.rerun_stale_snippets(edits, [(docs, site)])
    assert runs == ["build", "build"] and built.stat().st_mtime_ns == 0  # its page renders again
