"""Stretching the context: what position interpolation and an NTK-aware base do to the angles seen in training.

A model trained on L positions has seen pair i at the angles 0 ... (L - 1) theta_i.
Run it on L' > L positions and every pair whose angles had not yet come full
circle meets angles it never saw. Position interpolation (Chen et al. 2023,
"Extending Context Window of Large Language Models via Positional Interpolation",
section 2.3) divides every position by s = L' / L. The NTK-aware change of base
(bloc97, 2023, a Reddit post, as reported by Peng et al. 2023, "YaRN", section 3.1,
https://arxiv.org/abs/2309.00071, which writes it b' = b * s^(d / (d - 2))) keeps the fast pairs and
divides the slowest pair's frequency by s.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import rope_angles
from lib.plotting import COLORS
from lib.publish import table, value

d_head, base = 128, 10000.0
trained, target = 4096, 16384  # positions in training, positions wanted
s = target / trained


# --8<-- [start:methods]
def frequencies(method):
    """Radians per position of each pair, (d_head / 2,), as each method runs the model on `target` positions."""
    theta = rope_angles([1.0], d_head, base)[0]  # (d_head / 2,): base^(-2i/d)
    if method == "no change":
        return theta
    if method == "position interpolation":
        return theta / s  # position m is treated as m / s
    if method == "NTK-aware base":
        return rope_angles([1.0], d_head, base * s ** (d_head / (d_head - 2)))[0]
    raise ValueError(f"unknown method {method!r}")


def overshoot(theta_new, theta, length_new, length):
    """(pairs, (d_head / 2,)): how far past its trained angles each pair goes, in steps of one trained position,
    and the pairs that go further than one step. A pair that came full circle in training has seen every angle."""
    seen = (length - 1) * theta  # (d_head / 2,): largest angle of each pair in training
    reached = (length_new - 1) * theta_new  # (d_head / 2,)
    steps = np.where(seen >= 2 * np.pi, 0.0, np.maximum(reached - seen, 0.0) / theta)  # (d_head / 2,)
    return int(np.sum(steps > 1)), steps


# --8<-- [end:methods]


theta = frequencies("no change")
methods = ["no change", "position interpolation", "NTK-aware base"]
rows = []
for method in methods:
    theta_new = frequencies(method)
    count, steps = overshoot(theta_new, theta, target, trained)
    rows.append([method, count, steps.max(), theta_new[0], theta_new[-1] / theta[-1]])
table("methods", ["method", "pairs past their trained angles by over one position", "largest overshoot (positions)",
                  "pair 0: radians per position", "slowest pair: frequency / trained"], rows, fmt="{:.3g}")
for method, row in zip(("none", "pi", "ntk"), rows):
    value(f"unseen_{method}", row[1])
    value(f"beyond_{method}", row[2], "{:.2f}" if row[2] < 1 else "{:,.0f}")  # steps: 0.75, 1,859, 12,288
    value(f"fastest_{method}", row[3], "{:.2f}")
value("trained", trained, "{:,}")
value("target", target, "{:,}")
value("scale", s, "{:g}")
value("d_head", d_head)
value("pairs", d_head // 2)

# The seed tutorial's case: trained on 512 positions, fine-tuned on texts of average length 128.
# --8<-- [start:seed]
seed_count, seed_steps = overshoot(theta, theta, 128, 512)  # positions 0..127 with the trained frequencies
# --8<-- [end:seed]
value("seed_unseen", seed_count)
value("seed_overshoot", seed_steps.max(), "{:g}")

fig, ax = plt.subplots(num="stretch", figsize=(7.0, 4.2))
pair = np.arange(d_head // 2)
for method, colour, style in zip(methods, (COLORS[3], COLORS[0], COLORS[2]), ("-", "--", "-")):
    ax.plot(pair, frequencies(method) / theta, color=colour, linestyle=style, label=method)
ax.axhline((trained - 1) / (target - 1), color="grey", linestyle=":", linewidth=1)
ax.text(1, 0.21, "below: no new angles at the target length", color="grey", fontsize=8)
first_unturned = int(np.argmax((trained - 1) * theta < 2 * np.pi))
ax.axvline(first_unturned - 0.5, color="grey", linestyle=":", linewidth=1)
ax.text(first_unturned + 0.5, 1.1, f"pairs {first_unturned}+: no full turn in {trained:,} positions", color="grey",
        fontsize=8)
ax.set_yscale("log")
ax.set_ylim(0.15, 1.6)
ax.set_xlabel(f"pair i (d_head = {d_head}, base {base:,.0f})")
ax.set_ylabel("frequency / trained frequency (log scale)")
ax.set_title(f"From {trained:,} to {target:,} positions (s = {s:g})")
ax.legend(frameon=False, fontsize=8, loc="center left", bbox_to_anchor=(0, 0.55))
plt.show()
