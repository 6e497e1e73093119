"""Rerun the snippets whose cache key changed, one per CPU at a time, publish their outputs and notebooks, and report.

``plan`` says, for every snippet, its would-be manifest and why it is stale; ``check`` and the ledger read it too.
"""

import os
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import runner, store
from .discover import LayoutError, find_snippets, import_graph
from .keys import builder_version, library_versions, snippet_inputs, snippet_key


@dataclass
class Plan:
    name: str
    manifest: dict
    stale: list = field(default_factory=list)


def plan(project, names=None):
    """A Plan per snippet: its would-be manifest and why it is stale (empty when fresh)."""
    try:
        graph = import_graph(project)
    except LayoutError as error:
        raise SystemExit(str(error)) from None
    snippets = find_snippets(project)
    unknown = sorted(set(names or []) - set(snippets))
    if unknown:
        raise SystemExit(f"unknown snippet(s): {', '.join(unknown)}; snippets are: {', '.join(snippets)}")
    versions, builder = library_versions(), builder_version()
    plans = []
    for name in names or snippets:
        inputs = snippet_inputs(project, name, graph)
        manifest = {
            "snippet": f"snippets/{name}.py",
            "key": snippet_key(inputs, versions, builder),
            "inputs": inputs,
            "versions": versions,
            "builder": builder,
        }
        plans.append(Plan(name, manifest, store.problems(project.generated / name, manifest["key"])))
    return plans


def orphans(project, snippets):
    """Output folders whose snippet no longer exists: a <chapter>/<what> folder, or a whole folder of no chapter."""
    if not project.generated.is_dir():
        return []
    chapters = {name.split("/")[0] for name in snippets}
    found = []
    for folder in sorted(p for p in project.generated.iterdir() if p.is_dir()):
        if folder.name not in chapters:
            found.append(folder.name)
        else:
            found += [
                f"{folder.name}/{p.name}" for p in sorted(folder.iterdir()) if f"{folder.name}/{p.name}" not in snippets
            ]
    return found


def default_jobs():
    """Snippets run at once: one per CPU this process may use."""
    return len(os.sched_getaffinity(0))


def execute(project, plans, jobs=None):
    """Run the given plans in parallel; publish each success; return {name: Outcome}."""
    results = {}
    store.clean_scratch(project)
    startup = runner.start_server()

    def one(p):
        staged = Path(store.stage_dir(project, p.name))
        outcome = runner.run_snippet(project.snippets / f"{p.name}.py", staged, p.manifest["snippet"])
        if outcome.error is None:
            store.publish(project, p.name, staged, p.manifest)
        else:
            shutil.rmtree(staged, ignore_errors=True)
        results[p.name] = outcome
        status = "ok" if outcome.error is None else "FAILED"
        print(f"[{len(results)}/{len(plans)}] {p.name:<40} {outcome.seconds:6.2f} s  {status}", flush=True)

    with ThreadPoolExecutor(max_workers=jobs or default_jobs()) as pool:
        list(pool.map(one, plans))
    if results:
        code = sum(o.code_seconds for o in results.values())
        overhead = sum(o.seconds - o.code_seconds for o in results.values() if o.code_seconds)
        print(
            f"process time: {startup + overhead:.2f} s starting processes "
            f"({startup:.2f} s once to import NumPy and matplotlib, {overhead:.2f} s forking {len(results)} "
            f"snippets), {code:.2f} s running snippet code"
        )
    return results


def report(results):
    """sphinx-gallery-style timing table, slowest first, then each failure in full."""
    if results:
        print("\nExecution times")
        for name, outcome in sorted(results.items(), key=lambda item: -item[1].seconds):
            print(f"  {outcome.seconds:7.2f} s  {name}{'  FAILED' if outcome.error else ''}")
    failures = {name: outcome.error for name, outcome in results.items() if outcome.error}
    for name, error in sorted(failures.items()):
        print(f"\nsnippet {name} failed; its previous outputs are left untouched:\n{error}", file=sys.stderr)
    return failures


def build(project, names=None, force=False, jobs=None):
    """Regenerate stale outputs (all named ones with force), then, if every snippet ran, the notebooks. Returns an
    exit status."""
    from .notebooks import write_notebooks

    start = time.perf_counter()
    plans = plan(project, names)
    todo = [p for p in plans if force or p.stale]
    print(f"{len(plans)} snippets: {len(plans) - len(todo)} up to date, {len(todo)} to run", flush=True)
    failures = report(execute(project, todo, jobs))
    if names is None:
        for name in orphans(project, {p.name for p in plans}):
            shutil.rmtree(project.generated / name)
            print(f"removed outputs of deleted snippet {name}")
    if failures:  # a page may quote what a failed snippet never wrote: its notebook waits for a clean run
        print(
            f"{len(failures)} snippet(s) failed: {', '.join(sorted(failures))}; notebooks not rewritten",
            file=sys.stderr,
        )
        return 1
    for path in write_notebooks(project):
        print(f"{'wrote' if path.exists() else 'removed'} {project.relative(path)}")
    print(f"outputs step took {time.perf_counter() - start:.2f} s")
    return 0
