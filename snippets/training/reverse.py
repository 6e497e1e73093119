"""Reversing a sequence needs positions: the same model with and without positional encoding.

The input is 8 random digits; the query at position i must output the digit at position 7 - i, so
it must attend to the key at position 7 - i whatever the digits are. Content cannot say where 7 - i
is. We train the tiny model twice, identical except for the sinusoidal positional encoding, and
compare the loss, the accuracy and the attention accuracy (largest weight on position 7 - i).
"""

import sys
from math import comb, factorial, prod
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.plotting import COLORS, weights_heatmap
from lib.publish import value
from lib.tiny_model import evaluate, init_params, reverse_batch, train

LENGTH, N_SYMBOLS, D_MODEL, D_K, BATCH, STEPS, SEED = 8, 10, 16, 16, 64, 300, 0
CHECKPOINTS = [0, 40, 70, STEPS]
eval_batch = reverse_batch(np.random.default_rng(1000), 1000, LENGTH, N_SYMBOLS)

runs = {}
for positions in (True, False):
    history, snapshots = [], {}

    def record(step, params):
        loss, accuracy, attention_accuracy, weights = evaluate(params, eval_batch, positions=positions)
        history.append((step, loss, accuracy, attention_accuracy))
        if step in CHECKPOINTS:
            snapshots[step] = weights.mean(axis=0)  # (L, L): mean over the 1000 sequences

    # --8<-- [start:ablation]
    params = init_params(N_SYMBOLS, D_MODEL, D_K, seed=SEED)  # the same start for both runs
    train(params, lambda rng: reverse_batch(rng, BATCH, LENGTH, N_SYMBOLS), STEPS,
          np.random.default_rng(SEED), lr=1e-2, weight_decay=1.0, positions=positions,
          every=10, callback=record)
    # --8<-- [end:ablation]
    runs[positions] = (np.array(history), snapshots)

# The best any position-blind model can do: the output at i may depend on x_i and on the multiset
# of digits, not on where they are. The answer is then one of the other 7 digits, each placement
# equally likely, so the best guess is their most frequent digit: accuracy E[max count] / 7.
others = LENGTH - 1


def compositions(n, parts):
    """Every way to write n as an ordered sum of `parts` non-negative integers."""
    if parts == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in compositions(n - first, parts - 1):
            yield (first, *rest)


expected_max = sum(
    max(c) * factorial(others) / prod(factorial(x) for x in c) / N_SYMBOLS**others
    for c in compositions(others, N_SYMBOLS)
)  # exact multinomial expectation
position_blind_best = expected_max / others

print("              loss  accuracy  attention accuracy")
for positions, label in ((True, "with PE"), (False, "no PE")):
    _, loss, accuracy, attention_accuracy = runs[positions][0][-1]
    print(f"{label:10s}  {loss:6.3f}  {accuracy:8.3f}  {attention_accuracy:18.3f}")
print(f"best accuracy of any position-blind model: {position_blind_best:.3f} (chance: {1 / N_SYMBOLS:.3f})")

value("steps", STEPS)
value("final_accuracy_pe", runs[True][0][-1, 2], "{:.3f}")
value("final_attention_accuracy_pe", runs[True][0][-1, 3], "{:.3f}")
value("final_accuracy_no_pe", runs[False][0][-1, 2], "{:.3f}")
value("final_attention_accuracy_no_pe", runs[False][0][-1, 3], "{:.3f}")
value("position_blind_best", position_blind_best, "{:.3f}")
value("chance_accuracy", 1 / N_SYMBOLS, "{:.1f}")
value("attention_chance", 1 / LENGTH, "{:.3f}")
value("step_attention_above_95_pe", int(runs[True][0][np.argmax(runs[True][0][:, 3] >= 0.95), 0]))
value("compositions", comb(others + N_SYMBOLS - 1, N_SYMBOLS - 1))
value("n_eval", len(eval_batch[0]))
mean_no_pe = runs[False][1][STEPS]  # (L, L) mean weights without positions
value("self_weight_no_pe", np.mean(np.diag(mean_no_pe)), "{:.3f}")
value("other_weight_no_pe", (mean_no_pe.sum() - np.trace(mean_no_pe)) / (LENGTH * (LENGTH - 1)), "{:.3f}")
value("self_weight_max_no_pe", np.diag(mean_no_pe).max(), "{:.3f}")  # the largest weight a position gives itself
# the smallest weight a position gives another
value("other_weight_min_no_pe", mean_no_pe[~np.eye(LENGTH, dtype=bool)].min(), "{:.3f}")
value("target_weight_pe", np.mean(np.diag(runs[True][1][STEPS][:, ::-1])), "{:.2f}")
final_pe = runs[True][1][STEPS]  # (LENGTH, LENGTH) mean weights with positional encoding at the end
target = LENGTH - 1 - np.arange(LENGTH)  # each query's right key
beside = np.abs(np.arange(LENGTH)[None, :] - target[:, None]) == 1  # (LENGTH, LENGTH): the right key's neighbours
# the share of the weight off the right key that its neighbours get (1 would be "the neighbours get the rest")
value("neighbour_share_pe", final_pe[beside].sum() / (LENGTH - np.trace(final_pe[:, ::-1])), "{:.2f}")


def describe_maps():
    """The checkpoint figure in words, from its own numbers (the page quotes this in the figure's alt text)."""
    anti = [f"{np.mean(np.diag(runs[True][1][step][:, ::-1])):.2f} at step {step}" for step in CHECKPOINTS]
    off = ~np.eye(LENGTH, dtype=bool)
    return (f"With positional encoding the mean weight on the anti-diagonal (query i to key {LENGTH - 1} - i) is "
            f"{', '.join(anti)}, against {1 / LENGTH:.3f} for uniform weights. Without positional encoding at step "
            f"{STEPS} the main diagonal averages {np.mean(np.diag(mean_no_pe)):.3f} and every other cell lies between "
            f"{mean_no_pe[off].min():.3f} and {mean_no_pe[off].max():.3f}.")


def describe_maps_zh():
    """The same description in Chinese, from the same numbers (the Chinese page quotes it)."""
    anti = [f"第 {step} 步为 {np.mean(np.diag(runs[True][1][step][:, ::-1])):.2f}" for step in CHECKPOINTS]
    off = ~np.eye(LENGTH, dtype=bool)
    return (f"带位置编码时，反对角线（查询 i 对键 {LENGTH - 1} - i）上的平均权重：{'、'.join(anti)}；均匀权重为 "
            f"{1 / LENGTH:.3f}。不带位置编码时，第 {STEPS} 步主对角线的平均值为 {np.mean(np.diag(mean_no_pe)):.3f}，"
            f"其余各格都在 {mean_no_pe[off].min():.3f} 到 {mean_no_pe[off].max():.3f} 之间。")


value("checkpoint_description", describe_maps())
value("checkpoint_description_zh", describe_maps_zh())
value("checkpoint_steps", ", ".join(str(step) for step in CHECKPOINTS),
      zh="、".join(str(step) for step in CHECKPOINTS[:-1]) + f" 和 {CHECKPOINTS[-1]}")

# ---------------------------------------------------------------- figures
fig, axes = plt.subplots(1, 3, figsize=(10, 3.0), num="curves", layout="constrained")
for positions, label, colour in ((True, "with positional encoding", COLORS[0]), (False, "without", COLORS[3])):
    history = runs[positions][0]
    for ax, column in zip(axes, (1, 2, 3)):
        ax.plot(history[:, 0], history[:, column], color=colour, label=label)
axes[0].set_ylabel("cross-entropy loss")
axes[1].set_ylabel("accuracy (digit right)")
axes[2].set_ylabel("attention accuracy")
axes[1].axhline(position_blind_best, color="grey", linestyle=":", linewidth=1)
axes[1].annotate("best position-blind", (STEPS, position_blind_best), xytext=(0, 4), textcoords="offset points",
                 ha="right", fontsize=8, color="dimgrey")
for ax in axes[1:]:
    ax.set_ylim(0, 1.02)
for ax in axes:
    ax.set_xlabel("training step")
axes[0].legend(frameon=False, fontsize=8)

positions_labels = [str(i) for i in range(LENGTH)]
panels = [(True, step) for step in CHECKPOINTS] + [(False, STEPS)]
fig, axes = plt.subplots(1, len(panels), figsize=(12, 3.0), num="checkpoints", layout="constrained")
for ax, (positions, step) in zip(axes, panels):
    image = weights_heatmap(ax, runs[positions][1][step], positions_labels, positions_labels, annotate=False,
                            title=f"{'with PE' if positions else 'no PE'}, step {step}")
    ax.set_xlabel("key position")
    ax.set_ylabel("query position" if ax is axes[0] else "")
    ax.title.set_fontsize(9)
    ax.tick_params(axis="x", labelrotation=0)
fig.colorbar(image, ax=axes, label="mean attention weight", shrink=0.8)
plt.show()
