"""Multiply-adds per generated token, with and without a KV cache, counted from the shapes.

Each matrix product (m, n) @ (n, p) costs m * n * p multiply-adds. Adding these
up for one attention layer gives the cost of step t (t positions so far) in
kv_decoder.py's two step functions; the test suite checks these formulas by
counting the multiply-adds of every matrix product the steps actually run.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.kv_decoder import macs_with_cache, macs_without_cache
from lib.plotting import COLORS
from lib.publish import table, value

# --8<-- [start:count]
d_model = 64
t = np.arange(1, 1025)  # step t attends over t positions
with_cache = macs_with_cache(t, d_model)  # (T,)
without_cache = macs_without_cache(t, d_model)  # (T,)
attention_only = 2 * t * d_model  # (T,): the part of a cached step that grows with t
# --8<-- [end:count]

value("d_model", d_model)
value("n_steps", int(t[-1]))
ratio_is_t = bool(np.all(without_cache == t * with_cache))
value("ratio_is_t", ratio_is_t, zh="是" if ratio_is_t else "否")
value("crossover_t", int(t[np.argmax(attention_only >= 4 * d_model**2)]))
value("total_with_cache", int(with_cache.sum()), "{:,}")
value("total_without_cache", int(without_cache.sum()), "{:,}")
value("total_ratio", without_cache.sum() / with_cache.sum(), "{:.0f}")
shown = [1, 16, 128, 1024]
table(
    "per_step",
    ["step t", "with cache", "without cache", "without / with"],
    [[s, int(with_cache[s - 1]), int(without_cache[s - 1]), int(without_cache[s - 1] // with_cache[s - 1])]
     for s in shown],
)

fig, ax = plt.subplots(num="macs", figsize=(6.4, 4.2))
ax.loglog(t, without_cache, color=COLORS[3], label="without cache: the whole layer on t rows")
ax.loglog(t, with_cache, color=COLORS[0], label="with cache: one new row")
ax.loglog(t, attention_only, color=COLORS[0], linestyle="--", label="with cache, attention part only (2 t d)")
ax.set_xlabel("step t (positions in the context)")
ax.set_ylabel("multiply-adds in step t")
ax.set_title(f"One attention layer, d_model = {d_model}")
ax.legend(frameon=False)
plt.show()
