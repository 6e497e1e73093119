"""Seed 0: watch an induction head form, then take it apart.

Trains the chapter's three models for seed 0 (two layers, one layer, two layers on a fixed period) and draws
the two-layer model's training: per head, the previous-token score of layer 0 and the induction score of
layer 1, the loss on the repeated tokens and on the rest, and attention maps of both layers on one evaluation
sequence before, during and after the jump. seed_1.py and seed_2.py run the same models with other seeds.
"""
# Build time limit: 120 s

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.induction import CONFIG, evaluation_batch, seed_runs, seed_tables, seed_values, top_heads
from lib.plotting import COLORS, weights_heatmap
from lib.publish import table, value

# --8<-- [start:run]
result = seed_runs(seed=0)  # about 10 s per model on an idle CPU
runs, ablation = seed_tables(result)
# --8<-- [end:run]
table("runs", *runs, fmt="{:.2f}")
table("ablation", *ablation, fmt="{:.2f}")
for name, (x, fmt) in seed_values(result).items():
    value(name, x, fmt)

history, jump = result["two_layer"]["history"], result["two_layer"]["jump"]
steps = np.array([h["step"] for h in history])  # (n_measured,)
previous = np.array([h["scores"][0][0] for h in history])  # (n_measured, h): layer 0
induction = np.array([h["scores"][1][1] for h in history])  # (n_measured, h): layer 1
best_previous = previous[:, top_heads(result)[0]]  # (n_measured,): the layer-0 head that ends highest
best_induction = induction[:, jump["head"]]  # (n_measured,): the layer-1 head that ends highest
made = (best_previous - best_previous[0]) / (best_previous[-1] - best_previous[0])  # share of its rise made so far
moves = int(np.argmax(made >= 0.1))  # the first measurement where the previous-token score has made a tenth
value("previous_moves", int(steps[moves]))
value("induction_share_when_previous_moves",
      (best_induction[moves] - best_induction[0]) / (best_induction[-1] - best_induction[0]), "{:.2f}")
other_loss = np.array([h["other_loss"] for h in history])  # (n_measured,)
value("other_loss_start", other_loss[0], "{:.2f}")
value("other_loss_min", other_loss.min(), "{:.2f}")
# --8<-- [start:progress]
print("step  loss on repeats  repeat accuracy  layer-0 previous-token  layer-1 induction")
for h in history[::5]:
    print(f"{h['step']:4d}  {h['repeat_loss']:15.2f}  {h['repeat_accuracy']:15.2f}  "
          f"{np.array2string(h['scores'][0][0], precision=2):>22}  "
          f"{np.array2string(h['scores'][1][1], precision=2):>17}")
# --8<-- [end:progress]

# ---------------------------------------------------------------- the curves
fig, axes = plt.subplots(1, 2, figsize=(10, 3.4), num="curves", layout="constrained")
for head in range(CONFIG["n_heads"]):
    axes[0].plot(steps, previous[:, head], color=COLORS[head], label=f"layer 0, head {head}: previous-token")
    axes[0].plot(steps, induction[:, head], color=COLORS[head + 2], linestyle="--",
                 label=f"layer 1, head {head}: induction")
axes[0].set_ylabel("score (mean attention weight)")
axes[0].set_ylim(0, 1)
axes[1].plot(steps, [h["repeat_loss"] for h in history], color=COLORS[3], label="loss on repeated tokens")
axes[1].plot(steps, [h["other_loss"] for h in history], color=COLORS[7], label="loss on the rest")
axes[1].axhline(np.log(CONFIG["vocab_size"]), color="grey", linewidth=0.8, linestyle=":")
axes[1].set_ylabel("cross-entropy loss")
for ax in axes:
    ax.axvspan(jump["start"], jump["end"], color="grey", alpha=0.2, linewidth=0)
    ax.set_xlabel("training step")
    ax.legend(frameon=False, fontsize=8)
plt.show()

# ---------------------------------------------------------------- attention maps at three checkpoints
tokens, repeat, earlier = evaluation_batch(CONFIG)
names = [chr(ord("A") + t) for t in tokens[0]]  # token ids 0..23 drawn as letters A..X
checkpoints = {"before": max(jump["start"] - 100, 0), "during": (jump["start"] + jump["end"]) // 2,
               "after": int(steps[-1])}
checkpoints["during"] -= checkpoints["during"] % CONFIG["every"]
by_step = {h["step"]: h for h in history}
previous_head, induction_head = top_heads(result)[0], jump["head"]
j = np.flatnonzero(earlier[0] >= 0)  # the repeated tokens of this sequence
targets = (j - 1, earlier[0, j])  # (query, key) pairs an induction head attends along

fig, axes = plt.subplots(2, 3, figsize=(10.5, 7.2), num="maps", layout="constrained")
described = []
for column, (moment, step) in enumerate(checkpoints.items()):
    layer0 = by_step[step]["first_example"][0][previous_head]  # (L, L)
    layer1 = by_step[step]["first_example"][1][induction_head]  # (L, L)
    weights_heatmap(axes[0, column], layer0, names, names, annotate=False,
                    title=f"{moment}, step {step}: layer 0, head {previous_head}")
    image = weights_heatmap(axes[1, column], layer1, names, names, annotate=False,
                            title=f"{moment}, step {step}: layer 1, head {induction_head}")
    axes[1, column].scatter(targets[1], targets[0], marker="s", s=30, facecolors="none", edgecolors=COLORS[3])
    on_previous = np.mean(layer0[np.arange(1, len(names)), np.arange(len(names) - 1)])
    on_targets = np.mean(layer1[targets])
    described.append((moment, step, on_previous, on_targets))
for ax in axes.flat:
    ax.tick_params(labelsize=6)
fig.colorbar(image, ax=axes, shrink=0.6, label="attention weight")
plt.show()

value("checkpoint_steps", ", ".join(str(step) for step in checkpoints.values()),
      zh="、".join(str(step) for step in list(checkpoints.values())[:-1]) + f" 和 {checkpoints['after']}")
value("n_marked", len(j))
value("maps_description", " ".join(
    f"{moment.capitalize()} (step {step}), the layer-0 head gives the previous token a mean weight of {p:.2f} and "
    f"the layer-1 head gives the {len(j)} marked cells a mean weight of {t:.2f}." for moment, step, p, t in described))
value("maps_description_zh", "".join(
    f"{ {'before': '跳变前', 'during': '跳变中', 'after': '跳变后'}[moment]}（第 {step} 步），"
    f"第 0 层的头给前一个词元的平均权重是 {p:.2f}，"
    f"第 1 层的头给 {len(j)} 个标出的格子的平均权重是 {t:.2f}。" for moment, step, p, t in described))
