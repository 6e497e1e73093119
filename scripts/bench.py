"""Wall-clock benchmarks: naive vs tiled attention, and multi_head_attention vs the matrix products inside it.

    python -m scripts.bench                  # full run, writes docs/measured/
    python -m scripts.bench --quick --out D  # tiny sizes, a few repeats (the test suite uses this)
    python -m scripts.bench --render         # rewrite both Markdown files from bench.json, measuring nothing
    OPENBLAS_NUM_THREADS=2 python -m scripts.bench   # let BLAS use 2 threads (default: 1)

Timings depend on the machine, so they are not part of the byte-checked build. It writes docs/measured/bench.json
(raw medians, settings, machine, date, load average at start and end), bench.md and bench.zh.md (the tables each
edition's Benchmarks page includes, saying on which machine and date they were measured). Every time is the
median of several repeats of a timed batch of calls, divided by the batch size; BLAS runs on one thread unless a
*_NUM_THREADS variable says otherwise, so a time measures the code rather than the scheduler.
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
if "numpy" not in sys.modules and not any(name in os.environ for name in THREAD_VARIABLES):
    os.environ.update({name: "1" for name in THREAD_VARIABLES})  # read by the BLAS when numpy loads it

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_info  # noqa: E402

from scripts.pipeline.project import REPO, Project  # noqa: E402
from scripts.words import words  # noqa: E402

sys.path.insert(0, str(Project().snippets))

from lib.attention import merge_heads, multi_head_attention, scaled_dot_product_attention, split_heads  # noqa: E402
from lib.online_tiles import tiled_attention  # noqa: E402

FULL = {
    "tiling": {"lengths": [256, 512, 1024, 2048], "d": 64, "tiles": [64, 256]},
    "mha": {"lengths": [64, 256, 1024], "d_model": 256, "n_heads": 8},
    "repeats": 11,
    "min_batch_seconds": 0.05,
}
QUICK = {
    "tiling": {"lengths": [32, 64], "d": 16, "tiles": [16]},
    "mha": {"lengths": [16, 32], "d_model": 32, "n_heads": 4},
    "repeats": 3,
    "min_batch_seconds": 0.002,
}


def median_seconds(fn, repeats, min_batch_seconds):
    """Median time of one call of fn(): batches of calls long enough to time, the median over repeats."""
    fn()  # warm up: first-call costs (page faults, BLAS thread start) are not what we measure
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= min_batch_seconds or number >= 1 << 16:
            break
        number *= 2
    times = [elapsed / number]
    for _ in range(repeats - 1):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return statistics.median(times), number


def bench_tiling(settings, repeats, min_batch):
    rng = np.random.default_rng(0)
    rows = []
    for n in settings["lengths"]:
        q, k, v = rng.normal(size=(3, n, settings["d"]))  # each (L, d)
        reference, _ = scaled_dot_product_attention(q, k, v)
        naive, number = median_seconds(lambda: scaled_dot_product_attention(q, k, v), repeats, min_batch)
        print(f"  tiling L={n}", flush=True)
        row = {"L": n, "naive_s": naive, "naive_calls_per_batch": number, "tiled": []}
        for tile in settings["tiles"]:
            error = float(np.max(np.abs(tiled_attention(q, k, v, tile) - reference)))
            if error > 1e-10:
                raise AssertionError(f"tiled attention disagrees with the core at L={n}, tile={tile}: {error:.2e}")
            seconds, number = median_seconds(lambda: tiled_attention(q, k, v, tile), repeats, min_batch)
            row["tiled"].append(
                {"tile": tile, "seconds": seconds, "calls_per_batch": number, "ratio_to_naive": seconds / naive}
            )
        rows.append(row)
    return rows


def bench_mha(settings, repeats, min_batch):
    """multi_head_attention against the same six matrix products on ready-made operands of the same shapes."""
    rng = np.random.default_rng(1)
    d, h = settings["d_model"], settings["n_heads"]
    rows = []
    for n in settings["lengths"]:
        x = rng.normal(size=(n, d))  # (L, d_model)
        w_q, w_k, w_v, w_o = rng.normal(scale=d**-0.5, size=(4, d, d))  # each (d_model, d_model)
        q_h, k_h, v_h = (split_heads(x @ w, h).copy() for w in (w_q, w_k, w_v))  # each (h, L, d_head), contiguous
        k_t = np.swapaxes(k_h, -1, -2).copy()  # (h, d_head, L)
        _, weights = scaled_dot_product_attention(q_h, k_h, v_h)  # (h, L, L)
        merged = merge_heads(weights @ v_h)  # (L, d_model)

        def matmuls_only():
            x @ w_q, x @ w_k, x @ w_v  # three (L, d) @ (d, d)
            q_h @ k_t  # (h, L, d_head) @ (h, d_head, L)
            weights @ v_h  # (h, L, L) @ (h, L, d_head)
            merged @ w_o  # (L, d) @ (d, d)

        print(f"  multi_head_attention L={n}", flush=True)
        full, n_full = median_seconds(lambda: multi_head_attention(x, w_q, w_k, w_v, w_o, h), repeats, min_batch)
        products, n_products = median_seconds(matmuls_only, repeats, min_batch)
        rows.append(
            {
                "L": n,
                "multi_head_attention_s": full,
                "matmuls_s": products,
                "ratio": full / products,
                "calls_per_batch": [n_full, n_products],
                "multiply_adds": 4 * n * d * d + 2 * n * n * d,
            }
        )
    return rows


def machine():
    """CPU model, core count, Python, NumPy and BLAS as this process sees them."""
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        cpu = platform.processor() or "unknown"
    config = np.show_config(mode="dicts")
    blas = config.get("Build Dependencies", {}).get("blas", {})
    info = {
        "cpu": cpu,
        "logical_cpus": os.cpu_count(),
        "usable_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "blas": {key: blas.get(key) for key in ("name", "version", "openblas configuration") if blas.get(key)},
        "thread_env": {key: os.environ[key] for key in sorted(os.environ) if key.endswith("_NUM_THREADS")},
        "load_average_start": [round(x, 2) for x in os.getloadavg()],
        "threadpools": [
            {key: pool.get(key) for key in ("internal_api", "version", "num_threads", "threading_layer")}
            for pool in threadpool_info()
        ],
    }
    return info


MARKDOWN = {"en": "bench.md", "zh": "bench.zh.md"}


def blas_text(info, language="en"):
    blas = info["blas"]
    named = " ".join(str(blas[key]) for key in ("name", "version") if key in blas)
    return named or words(language, "bench")["unknown_blas"]


def threads_text(info, language="en"):
    value = info["thread_env"].get("OPENBLAS_NUM_THREADS") or info["thread_env"].get("OMP_NUM_THREADS")
    threads = words(language, "bench")["threads"]
    return threads["default"] if value is None else threads["one"] if value == "1" else threads["n"].format(n=value)


def machine_line(result, language="en"):
    """Where, when and how the timings were measured, in ``language``."""
    info, when = result["machine"], result["date"]
    return words(language, "bench")["machine"].format(
        date=when[:10],
        time=when[11:16],
        cpu=info["cpu"],
        usable=info["usable_cpus"],
        logical=info["logical_cpus"],
        platform=info["platform"],
        python=info["python"],
        numpy=info["numpy"],
        blas=blas_text(info, language),
        threads=threads_text(info, language),
        load_start=info["load_average_start"][0],
        load_end=info["load_average_end"][0],
        repeats=result["settings"]["repeats"],
    )


def markdown(result, language="en"):
    """bench.md (or, for "zh", bench.zh.md): three sections the Benchmarks page includes one by one."""
    headers = words(language, "bench")
    tiles = result["settings"]["tiling"]["tiles"]
    naive_column, tiled_column, ratio_column = headers["tiling_header"][1:]
    tiling_header = [
        headers["tiling_header"][0].format(d=result["settings"]["tiling"]["d"]),
        naive_column,
        *(tiled_column.format(t=t) for t in tiles),
        *(ratio_column.format(t=t) for t in tiles),
    ]
    lines = [
        "<!-- Written by `python -m scripts.bench` (make bench). Measured, not verified by the build. -->",
        "<!-- --8<-- [start:machine] -->",
        machine_line(result, language),
        "<!-- --8<-- [end:machine] -->",
        "",
        "<!-- --8<-- [start:tiling] -->",
        "| " + " | ".join(tiling_header) + " |",
        "|" + " ---: |" * (2 + 2 * len(tiles)),
    ]
    for row in result["tiling"]:
        times = " | ".join(f"{t['seconds'] * 1e3:.3g}" for t in row["tiled"])
        ratios = " | ".join(f"**{t['ratio_to_naive']:.2f}**" for t in row["tiled"])
        lines.append(f"| {row['L']} | {row['naive_s'] * 1e3:.3g} | {times} | {ratios} |")
    mha_header = [headers["mha_header"][0].format(**result["settings"]["mha"]), *headers["mha_header"][1:]]
    lines += [
        "<!-- --8<-- [end:tiling] -->",
        "",
        "<!-- --8<-- [start:mha] -->",
        "| " + " | ".join(mha_header) + " |",
        "| ---: | ---: | ---: | ---: |",
    ]
    for row in result["mha"]:
        lines.append(
            f"| {row['L']} | {row['multi_head_attention_s'] * 1e3:.3g} | {row['matmuls_s'] * 1e3:.3g} | "
            f"**{row['ratio']:.2f}** |"
        )
    lines.append("<!-- --8<-- [end:mha] -->")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m scripts.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes and few repeats (seconds, for tests)")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "measured", help="output folder")
    parser.add_argument(
        "--render",
        action="store_true",
        help="rewrite the Markdown files from the folder's bench.json, measuring nothing",
    )
    args = parser.parse_args(argv)
    if args.render:
        write_markdown(json.loads((args.out / "bench.json").read_text(encoding="utf-8")), args.out)
        return 0
    settings = QUICK if args.quick else FULL
    start = time.perf_counter()
    repeats, min_batch = settings["repeats"], settings["min_batch_seconds"]
    result = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "quick": args.quick,
        "machine": machine(),
        "settings": settings,
        "tiling": bench_tiling(settings["tiling"], repeats, min_batch),
        "mha": bench_mha(settings["mha"], repeats, min_batch),
    }
    result["total_seconds"] = time.perf_counter() - start
    result["machine"]["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(markdown(result))
    write_markdown(result, args.out)
    print(f"wrote {args.out / 'bench.json'} in {result['total_seconds']:.1f} s")
    return 0


def write_markdown(result, out):
    """bench.md and bench.zh.md in ``out``, from one result."""
    for language, name in MARKDOWN.items():
        (out / name).write_text(markdown(result, language), encoding="utf-8")
        print(f"wrote {out / name}")


if __name__ == "__main__":
    sys.exit(main())
