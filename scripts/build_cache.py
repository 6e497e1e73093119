"""Results of the build's slow pure functions, kept across builds in .cache/build/ under the digest of what they
are computed from: their inputs, the installed libraries that compute them and the build's code (scripts/).

An unchanged input is computed once (also for the other edition, which builds at the same time in its own
process) and a changed one is never served a stale result. Entries are written whole (to a temporary file, then
renamed), so a reader never sees half of one. ``make clean`` removes .cache/.
"""

import functools
import hashlib
import pickle
from importlib.metadata import version
from pathlib import Path

from scripts.pipeline.project import REPO
from scripts.pipeline.store import write_atomic

CACHE = REPO / ".cache" / "build"
LIBRARIES = ("pykatex", "tinycss2", "fonttools", "mkdocs-material", "jieba", "jupytext")


@functools.cache
def _salt():
    """The installed versions of the libraries that compute cached results, and the build's code (scripts/): a
    change to either starts afresh."""
    code = b"".join(path.read_bytes() for path in sorted(Path(__file__).parent.rglob("*.py")))
    return hashlib.sha256(repr([version(name) for name in LIBRARIES]).encode() + code).hexdigest()


def cached(kind, key, compute):
    """``compute()``, or its stored result for ``key`` (any picklable value: the inputs of the result)."""
    digest = hashlib.sha256(pickle.dumps((_salt(), key), protocol=5)).hexdigest()
    path = CACHE / kind / digest[:2] / digest
    try:
        return pickle.loads(path.read_bytes())
    except (FileNotFoundError, EOFError, pickle.UnpicklingError):
        pass
    result = compute()
    write_atomic(path, pickle.dumps(result, protocol=5))
    return result
