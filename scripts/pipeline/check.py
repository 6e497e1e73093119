"""Prove that the committed outputs match the current sources, changing nothing.

``check`` compares each snippet's cache key and output hashes with its manifest, and the notebooks with what the
outputs make of them; with ``full`` it also reruns every snippet into a scratch folder and compares the bytes.
``freshness`` answers the same question per snippet for a reader of the status (the ledger).
"""

import dataclasses
import filecmp
import shutil
import sys

from .build import execute, orphans, plan
from .notebooks import stale_notebooks

FIX = "make outputs"


def rerun_differences(project, plans):
    """Rerun every snippet into scratch; list the files (outputs and notebooks) whose bytes would differ."""
    scratch = project.scratch / "full-check"
    shutil.rmtree(scratch, ignore_errors=True)
    differences = []
    results = execute(dataclasses.replace(project, outputs=scratch), plans)
    for p in plans:
        if results[p.name].error:
            differences.append(f"{p.name}: fails when rerun: {results[p.name].error.splitlines()[0]}")
            continue
        fresh, committed = scratch / p.name, project.generated / p.name
        comparison = filecmp.dircmp(fresh, committed)
        changed = comparison.left_only + comparison.right_only + comparison.diff_files
        changed += [f for f in comparison.common_files if not filecmp.cmp(fresh / f, committed / f, shallow=False)]
        if changed:
            differences.append(f"{p.name}: rerunning gives different {', '.join(sorted(set(changed)))}")
    rerun = dataclasses.replace(project, outputs=scratch)  # the notebooks as the rerun's outputs would make them
    differences += [f"{project.relative(path)}: its outputs differ from the rerun's" for path in stale_notebooks(rerun)]
    shutil.rmtree(scratch, ignore_errors=True)
    return differences


def freshness(project):
    """{snippet: whether its committed outputs match its current sources}, by the cache keys and output hashes
    ``check`` compares."""
    return {p.name: not p.stale for p in plan(project)}


def check(project, full=False):
    plans = plan(project)
    errors = []
    for p in plans:
        for reason in p.stale:
            errors.append(f"stale: {p.name} ({p.manifest['snippet']}): {reason}. Fix: {FIX}")
    for name in orphans(project, {p.name for p in plans}):
        errors.append(f"orphan: docs/generated/{name} has no snippet. Fix: {FIX}")
    for path in stale_notebooks(project):
        errors.append(f"stale: {project.relative(path)} does not match its chapter's snippets. Fix: {FIX}")
    if full and not errors:
        errors += [f"not reproducible: {d}" for d in rerun_differences(project, plans)]
    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        return 1
    print(
        f"check: {len(plans)} snippets and their notebooks match the sources{' (rerun byte for byte)' if full else ''}"
    )
    return 0
