"""Committed outputs: one folder per snippet under docs/generated/, with a manifest, written atomically.

manifest.json is the provenance of every file in the folder: the snippet, its cache key, the hash of each input,
the library versions, the builder version and the sha256 of each output file. ``check`` reads it; only ``publish``
writes it.
"""

import json
import os
import shutil
import tempfile
from pathlib import Path

from .keys import digest
from .published import MANIFEST


def read_manifest(folder):
    try:
        return json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return None


def output_digests(folder):
    return {p.name: digest(p.read_bytes()) for p in sorted(folder.iterdir()) if p.name != MANIFEST}


def problems(folder, key):
    """Why the outputs in ``folder`` do not match ``key`` (an empty list when they do)."""
    manifest = read_manifest(folder)
    if manifest is None:
        return ["no outputs yet"]
    found = []
    if manifest["key"] != key:
        found.append("its sources or library versions changed since the outputs were made")
    if folder.is_dir() and output_digests(folder) != manifest["files"]:
        found.append("its output files were edited, added or removed by hand")
    return found


def stage_dir(project, name):
    """A new staging folder, named after this process so a later build can tell when it was abandoned."""
    project.scratch.mkdir(parents=True, exist_ok=True)
    return tempfile.mkdtemp(prefix=f"{os.getpid()}-{name.replace('/', '-')}-", dir=project.scratch)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_scratch(project):
    """Delete staging folders left by builds that were killed (their process no longer exists)."""
    if not project.scratch.is_dir():
        return
    for folder in project.scratch.iterdir():
        pid = folder.name.removeprefix("old-").split("-")[0]
        if folder.is_dir() and pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def publish(project, name, staged, manifest):
    """Move a fully written staging folder into docs/generated/<name>, replacing the old one.

    Each file is complete before the folder becomes visible; the old folder is
    moved aside first and deleted only after the new one is in place.
    """
    manifest = {**manifest, "files": output_digests(staged)}
    (staged / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    target = project.generated / name
    target.parent.mkdir(parents=True, exist_ok=True)
    old = None
    if target.exists():
        old = project.scratch / f"old-{os.getpid()}-{name.replace('/', '-')}"
        os.replace(target, old)
    os.replace(staged, target)
    if old is not None:
        shutil.rmtree(old)


def write_atomic(path, data):
    """Write ``data`` (bytes, or text as UTF-8 with its line ends as given) to ``path`` through a temporary file in
    the same folder and a rename: a reader sees the old file or the new one, never part of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
