"""Peak memory of attention versus sequence length: the full (L, L) scores against tiles.

tracemalloc records every allocation Python and NumPy make. For each length L we
measure the peak of the memory allocated while one call runs (the inputs already
exist): the core scaled_dot_product_attention, which builds (L, L) scores and
weights, and tiled_attention, which never holds more than one tile of scores.
Peaks are rounded to KiB.
"""

import sys
import tracemalloc
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import scaled_dot_product_attention
from lib.online_tiles import tiled_attention
from lib.plotting import COLORS
from lib.publish import table, value


# --8<-- [start:peak]
def peak_kib(fn, *args):
    """Peak of the memory allocated while fn(*args) runs, in KiB, above what was allocated before."""
    tracemalloc.start()
    before, _ = tracemalloc.get_traced_memory()
    fn(*args)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return round((peak - before) / 1024)
# --8<-- [end:peak]


d, tile = 64, 128
lengths = [128, 256, 512, 1024, 2048]
rng = np.random.default_rng(0)
naive, tiled = [], []
for length in lengths:
    q, k, v = rng.normal(size=(3, length, d))  # each (L, d)
    naive.append(peak_kib(scaled_dot_product_attention, q, k, v))
    tiled.append(peak_kib(tiled_attention, q, k, v, tile))

output_kib = [n * d * 8 // 1024 for n in lengths]  # the (L, d) result itself
extra_kib = [b - o for b, o in zip(tiled, output_kib)]  # what tiling needs beyond its result
table(
    "peaks",
    ["L", "full scores (KiB)", "tiled (KiB)", "full / tiled", "one (L, L) array (KiB)", "tiled minus output (KiB)"],
    [[n, a, b, f"{a / b:.1f}", n * n * 8 // 1024, e] for n, a, b, e in zip(lengths, naive, tiled, extra_kib)],
)
slope_naive = np.polyfit(np.log(lengths[-3:]), np.log(naive[-3:]), 1)[0]
value("d", d)
value("tile", tile)
value("l_max", lengths[-1])
value("slope_naive", slope_naive, "{:.2f}")
value("tiled_extra_kib", extra_kib[-1])
value("constant_from", lengths[1])
extra_is_constant = len(set(extra_kib[1:])) == 1
value("tiled_extra_is_constant", extra_is_constant, zh="是" if extra_is_constant else "否")
value("l_min", lengths[0])
value("naive_max_mib", naive[-1] / 1024, "{:.0f}")
value("tiled_max_kib", tiled[-1])
value("naive_arrays", naive[-1] * 1024 / (lengths[-1] ** 2 * 8), "{:.1f}")
value("ratio_at_max", naive[-1] / tiled[-1], "{:.0f}")
value("output_kib", output_kib[-1])

fig, (ax1, ax2) = plt.subplots(1, 2, num="peaks", figsize=(10, 4.2), layout="constrained")
ax1.loglog(lengths, np.array(naive) / 1024, "o-", color=COLORS[3], label="full (L, L) scores: core attention")
ax1.loglog(lengths, np.array(tiled) / 1024, "s-", color=COLORS[0], label=f"tiles of {tile} x {tile}")
ax1.set_xticks(lengths, [str(n) for n in lengths])
ax1.minorticks_off()
ax1.set_ylabel("peak memory during the call (MiB)")
ax1.set_title("Log-log: the full scores grow like L²")
ax2.plot(lengths, tiled, "s-", color=COLORS[0], label=f"tiles of {tile} x {tile}")
ax2.plot(lengths, output_kib, ":", color=COLORS[7], label="the (L, d) output alone")
ax2.set_xlim(0, lengths[-1] * 1.05)
ax2.set_ylim(bottom=0)
ax2.set_ylabel("peak memory during the call (KiB)")
ax2.set_title("Tiled only, linear axes: the output plus a constant")
for ax in (ax1, ax2):
    ax.set_xlabel("sequence length L")
    ax.legend(frameon=False)
fig.suptitle(f"Peak memory of one attention call, d = {d}")
plt.show()
