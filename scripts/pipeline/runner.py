"""Start once, fork many: run each snippet in its own process, forked from a server that imported NumPy
and matplotlib once, and kill it when it passes its time limit.

A snippet sets its own limit with a line such as ``# Build time limit: 120 s``; the default is
``DEFAULT_LIMIT`` seconds.
"""

import multiprocessing
import os
import platform
import re
import time
from dataclasses import dataclass

DEFAULT_LIMIT = 60
LIMIT_LINE = re.compile(r"^# Build time limit: (\d+) s$", re.MULTILINE)

# The arithmetic of every run that writes outputs (the notebook test's kernels use it too):
# - one BLAS thread per snippet: several snippets run at once, and the outputs are the same bytes either way;
# - the same arithmetic on every x86-64 machine. OpenBLAS picks its kernels by CPU (SkylakeX kernels on an Intel
#   chip with AVX-512, Haswell ones on an AMD EPYC with AVX-512) and NumPy its SIMD level, and the last bits of a
#   product change with them: built on one and checked on the other, most snippets printed other digits. Both
#   are pinned to what any x86-64 CPU since 2013 has: OpenBLAS's Haswell kernels (AVX2 + FMA), NumPy's X86_V3.
ARITHMETIC_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
if platform.machine().lower() in ("x86_64", "amd64"):
    ARITHMETIC_ENV |= {"OPENBLAS_CORETYPE": "Haswell", "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"}
SNIPPET_ENV = ARITHMETIC_ENV | {"MPLBACKEND": "Agg"}  # the environment snippets run in (part of their key)
PRELOAD = ["numpy", "matplotlib", "matplotlib.pyplot"]


@dataclass
class Outcome:
    seconds: float  # wall time from asking for a process to having its result
    code_seconds: float  # time spent in the snippet's own code (0 when it never reported)
    error: str | None


def time_limit(source):
    """The snippet's time limit in seconds: its ``# Build time limit: N s`` line, or the default."""
    match = LIMIT_LINE.search(source)
    return int(match.group(1)) if match else DEFAULT_LIMIT


_context = None


def start_server():
    """Start the fork server once per process (it imports PRELOAD); return the seconds that took (0 if running)."""
    global _context
    if _context is not None:
        return 0.0
    start = time.perf_counter()
    os.environ.update(SNIPPET_ENV)  # the server and every snippet inherit these
    _context = multiprocessing.get_context("forkserver")
    _context.set_forkserver_preload(PRELOAD)
    warm = _context.Process(target=os.getpid)  # starts the server; it imports PRELOAD once
    warm.start()
    warm.join()
    return time.perf_counter() - start


def run_snippet(path, out, relative_name):
    """Run the snippet at ``path`` in a forked process, writing outputs to ``out``; return an Outcome."""
    from .worker import child

    limit = time_limit(path.read_text(encoding="utf-8"))
    start_server()
    start = time.perf_counter()
    receive, send = _context.Pipe(duplex=False)
    process = _context.Process(target=child, args=(str(path), str(out), send))
    process.start()
    send.close()
    result = None
    if receive.poll(limit):
        try:
            result = receive.recv()
        except EOFError:  # the process died without reporting (segfault, os._exit, kill)
            pass
    else:
        process.kill()
    process.join()
    receive.close()
    seconds = time.perf_counter() - start
    if result is None and process.exitcode == -9 and seconds >= limit:
        return Outcome(seconds, 0.0, f"{relative_name}: timed out after {limit} s")
    if result is None:
        return Outcome(seconds, 0.0, f"{relative_name}: the snippet's process exited with status {process.exitcode}")
    if result["stderr"].strip():
        print(f"  {relative_name}: stderr:\n" + "\n".join("    " + line for line in result["stderr"].splitlines()))
    error = result["error"]
    if error:
        error = f"{error['file']}:{error['line']}: {error['exception']}\n{error['traceback']}"
    return Outcome(seconds, result["code_seconds"], error)
