"""What a rebuild under ``mkdocs serve --dirty`` (``make serve``) redoes after a saved edit, and nothing more.

MkDocs' dirty rebuild renders again only the pages whose source is newer than their built file. This module adds
what MkDocs cannot see: the snippets are rerun (``python -m scripts.pipeline build``, which reruns only the stale
ones) only when a file under snippets/ changed (a
snippet, a library module or a translation catalog); a page whose outputs changed is marked for rendering again in both
editions; the Chinese edition is rebuilt only when something other than an English page (``docs/*.md``) changed.
MkDocs' warning that a dirty build is being performed is logged as information (under ``strict`` it would stop
the build): a page title edited shows in the other pages' menus only after a full build.
"""

import logging
import os
import subprocess
import sys
from pathlib import Path

from scripts.pipeline.references import read_page

WATCHED = ("docs", "docs-zh", "snippets", "overrides", "scripts", "mkdocs.yml", "mkdocs.zh.yml")
SKIPPED = {"__pycache__", ".cache"}
DIRTY_BUILD_WARNING = "A 'dirty' build is being performed"
log = logging.getLogger("mkdocs.hooks.serve")


class DirtyBuildIsInformation(logging.Filter):
    """MkDocs' warning that a dirty build is being performed, logged as information instead."""

    def filter(self, record):
        if record.getMessage().startswith(DIRTY_BUILD_WARNING):
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


def files(root):
    """{path relative to ``root``: modification time} of the files a build reads (links to folders not followed,
    so docs-zh's links to docs/ are read once, as docs/)."""
    found = {}
    for top in WATCHED:
        start = Path(root, top)
        if start.is_file():
            found[top] = start.stat().st_mtime_ns
        for folder, subfolders, names in os.walk(start):
            subfolders[:] = [name for name in subfolders if name not in SKIPPED]
            for name in names:
                path = Path(folder, name)
                found[path.relative_to(root).as_posix()] = path.lstat().st_mtime_ns
    return found


def changed(before, after):
    """The paths added, removed or modified between two ``files`` listings."""
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}


class Edits:
    """The files a build reads under ``root``, as of the last look."""

    def __init__(self, root):
        self.root, self.files = root, None

    def since_last_look(self):
        """The paths changed since the last look (None at the first: everything, as far as a build knows)."""
        now = files(self.root)
        edited = None if self.files is None else changed(self.files, now)
        self.files = now
        return edited


def english_pages_only(paths):
    """Whether every changed path is an English page (which the Chinese edition does not read)."""
    return all(path.startswith("docs/") and path.count("/") == 1 and path.endswith(".md") for path in paths)


def snippets_changed(paths):
    return any(path.startswith("snippets/") for path in paths)


def rerun_snippets(paths):
    """The snippets whose published outputs changed: <chapter>/<what> of every changed docs/generated/ path."""
    return {
        "/".join(path.split("/")[2:4]) for path in paths if path.startswith("docs/generated/") and path.count("/") >= 4
    }


def age_pages_showing(snippets, docs_dir, site_dir):
    """Mark for rendering again every built page (of the edition in ``docs_dir``, built into ``site_dir``) whose
    source uses one of ``snippets``: MkDocs' dirty build renders a page whose built file is older than its source."""
    if not snippets:
        return
    for source in Path(docs_dir).glob("*.md"):
        if snippets & set(read_page(source.read_text(encoding="utf-8")).snippets):
            built = Path(site_dir, "index.html" if source.stem == "index" else f"{source.stem}/index.html")
            if built.exists():
                os.utime(built, ns=(0, 0))


def rerun_stale_snippets(edits, editions):
    """Rerun the stale snippets (in their own process, like `make outputs`) at the first build and whenever a
    snippet changed since the last look of ``edits``; a failing or timed-out snippet is a warning, and serving goes
    on. After an edit, every page that shows outputs which changed is aged in ``editions`` ([(docs_dir,
    site_dir)]: the built editions a dirty build renders again, or none)."""
    edited = edits.since_last_look()
    if edited is not None and not snippets_changed(edited):
        return
    if subprocess.run([sys.executable, "-m", "scripts.pipeline", "build"], cwd=edits.root, check=False).returncode != 0:
        log.warning("some snippets failed; their pages show the previous outputs (see the messages above)")
    outputs = edits.since_last_look()
    if edited is not None:
        for docs_dir, site_dir in editions:
            age_pages_showing(rerun_snippets(outputs), docs_dir, site_dir)
