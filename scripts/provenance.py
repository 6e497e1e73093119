"""The provenance footer of a chapter: where its outputs come from, read from the build's own records.

For every snippet a chapter uses (code, outputs, figures or values) the footer names the commit at which its
committed outputs last changed (``git log`` on ``docs/generated/<snippet>/``), the Python, NumPy and matplotlib
versions in its manifest.json, and links the snippet's file: to ``extra.repo_blob`` of mkdocs.yml when set (a URL
prefix such as ``https://github.com/OWNER/REPO/blob/{commit}``), otherwise to the copy of snippets/ the site
serves (``copy_snippets``). Nothing is loaded from outside the site.
"""

import html
import json
import shutil
from pathlib import Path

from scripts.pipeline.project import git
from scripts.pipeline.published import MANIFEST
from scripts.words import words as words_in

LIBRARIES = (("python", "Python"), ("numpy", "NumPy"), ("matplotlib", "matplotlib"))


def versions(generated, snippet):
    """The library versions a snippet's outputs were computed with, from its manifest."""
    manifest = generated / snippet / MANIFEST
    if not manifest.exists():
        raise FileNotFoundError(f"{manifest} is missing: run `make outputs` to compute snippets/{snippet}.py")
    recorded = json.loads(manifest.read_text(encoding="utf-8"))["versions"]
    return tuple((label, recorded[key]) for key, label in LIBRARIES)


def _git(root, *args):
    result = git(root, *args)
    return result.stdout.strip() if result.returncode == 0 else None


def commit_of(root, paths):
    """(newest commit that changed any of ``paths``, whether they have uncommitted changes); None if unknown."""
    relative = [Path(p).relative_to(root).as_posix() for p in paths]
    commit = _git(root, "log", "-1", "--format=%H", "--", *relative) or None
    changed = bool(_git(root, "status", "--porcelain", "--", *relative))
    return commit, changed


def footer(snippets, generated, root, depth, repo_blob=None, language="en"):
    """The footer's HTML, in ``language``, for a page ``depth`` folders below the site root that uses ``snippets``."""
    words = words_in(language, "provenance")
    commit, changed = commit_of(root, [generated / s for s in snippets])
    by_versions = {}
    for snippet in snippets:
        by_versions.setdefault(versions(generated, snippet), []).append(snippet)
    if commit is None:
        when = words["untracked"]
    else:
        when = words["at"].format(commit=commit[:12]) + (words["changed"] if changed else "")
    stacks = "; ".join(
        words["list"].join(f"{label} {version}" for label, version in stack[:-1])
        + f"{words['and']}{stack[-1][0]} {stack[-1][1]}"
        + (f" ({', '.join(names)})" if len(by_versions) > 1 else "")
        for stack, names in by_versions.items()
    )
    base = (repo_blob.replace("{commit}", commit or "HEAD").rstrip("/") + "/") if repo_blob else "../" * depth
    links = " · ".join(f'<a href="{html.escape(base)}snippets/{name}.py">snippets/{name}.py</a>' for name in snippets)
    return (
        '\n\n<footer class="provenance" data-search-exclude>\n'
        + words["computed"].format(when=when, stacks=stacks)
        + "\n"
        + words["snippets"].format(links=links)
        + "\n</footer>\n"
    )


def copy_snippets(root, site_dir):
    """Serve the snippets (and the library they import) beside the pages that link them."""
    source = Path(root) / "snippets"
    for path in sorted(source.rglob("*.py")):
        target = Path(site_dir) / "snippets" / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
