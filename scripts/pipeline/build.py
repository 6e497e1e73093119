"""Rerun the snippets whose cache key changed, two at a time, and report."""

import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import store
from .discover import ImportsSnippet, find_snippets, import_graph
from .keys import builder_version, library_versions, snippet_inputs, snippet_key
from .project import REPO


# Two snippets run at once on two cores: one BLAS thread each (unless the caller says otherwise) avoids
# oversubscription; the outputs are the same bytes either way.
SNIPPET_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@dataclass
class Plan:
    name: str
    manifest: dict
    stale: list = field(default_factory=list)


def plan(project, names=None):
    """A Plan per snippet: its would-be manifest and why it is stale (empty when fresh)."""
    try:
        graph = import_graph(project)
    except ImportsSnippet as error:
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
    """Output folders whose snippet no longer exists."""
    if not project.generated.is_dir():
        return []
    return sorted(p.name for p in project.generated.iterdir() if p.is_dir() and p.name not in snippets)


def run_snippet(project, name, out):
    """Run one snippet through the worker in a fresh process; return (seconds, error or None)."""
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "scripts.pipeline.worker", str(project.snippets / f"{name}.py"), str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**SNIPPET_ENV, **os.environ, "PYTHONDONTWRITEBYTECODE": "1"},  # no __pycache__: `mkdocs serve` watches snippets/
    )
    seconds = time.perf_counter() - start
    error_file = out / "error.json"
    if error_file.exists():
        error = json.loads(error_file.read_text(encoding="utf-8"))
        return seconds, f"{error['file']}:{error['line']}: {error['exception']}\n{error['traceback']}"
    if result.returncode != 0:  # the process died before it could report (segfault, kill, import error)
        return seconds, f"{project.snippets / f'{name}.py'}: worker exited with status {result.returncode}\n{result.stderr}"
    if result.stderr.strip():
        print(f"  {name}: stderr:\n" + "\n".join("    " + line for line in result.stderr.splitlines()))
    return seconds, None


def execute(project, plans, jobs=2):
    """Run the given plans in parallel; publish each success; return {name: (seconds, error)}."""
    results = {}

    def one(p):
        staged = Path(store.stage_dir(project, p.name))
        seconds, error = run_snippet(project, p.name, staged)
        if error is None:
            store.publish(project, p.name, staged, p.manifest)
        else:
            shutil.rmtree(staged, ignore_errors=True)
        results[p.name] = (seconds, error)
        status = "ok" if error is None else "FAILED"
        print(f"[{len(results)}/{len(plans)}] {p.name:<40} {seconds:6.2f} s  {status}", flush=True)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, plans))
    return results


def report(results):
    """sphinx-gallery-style timing table, slowest first, then each failure in full."""
    if results:
        print("\nExecution times")
        for name, (seconds, error) in sorted(results.items(), key=lambda item: -item[1][0]):
            print(f"  {seconds:7.2f} s  {name}{'  FAILED' if error else ''}")
    failures = {name: error for name, (_, error) in results.items() if error}
    for name, error in sorted(failures.items()):
        print(f"\nsnippet {name} failed; its previous outputs are left untouched:\n{error}", file=sys.stderr)
    return failures


def build(project, names=None, force=False, jobs=2):
    """Regenerate stale outputs (all named ones with force) and notebooks. Returns an exit status."""
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
    changed = write_notebooks(project)
    for path in changed:
        print(f"{'wrote' if path.exists() else 'removed'} {project.relative(path)}")
    print(f"outputs step took {time.perf_counter() - start:.2f} s")
    if failures:
        print(f"{len(failures)} snippet(s) failed: {', '.join(sorted(failures))}", file=sys.stderr)
        return 1
    return 0
