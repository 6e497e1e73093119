"""A sink forming: the one-layer model trained with ordinary softmax attention on three seeds.

On the task, a "?" query with no signal before it has nothing to read, yet its weights must sum to one. Measured
on a fixed batch: how much weight each kind of query puts on the first token (BOS, which carries no information)
at initialisation and after training, per seed; what the first token's value vector adds to the output; and, for
seed 0, the weight over training and one sequence's weights.
"""
# Build time limit: 120 s

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.plotting import COLORS, weights_heatmap
from lib.publish import table, value
from lib.sink_model import CONFIG, evaluation_batch, forward, measure, sink_head, train, vocabulary

SEEDS = (0, 1, 2)
KINDS = ("copying", "nothing to read", "reading")  # the kind codes 0, 1, 2 of sink_batch
evaluation = evaluation_batch()

# --8<-- [start:train]
runs = {seed: train("softmax", seed) for seed in SEEDS}  # (params, history) per seed, about 6 s each
for seed, (params, history) in runs.items():
    head = sink_head(history)
    start, end = history[0], history[-1]
    print(f"seed {seed}, head {head}: weight on the first token, step 0 -> step {end['step']}")
    for kind, name in enumerate(KINDS):
        print(f"  {name:16s} {start['first'][kind, head]:.2f} -> {end['first'][kind, head]:.2f}"
              f"   (accuracy {end['accuracy'][kind]:.2f})")
# --8<-- [end:train]

# --8<-- [start:value]
def value_norms(params, tokens, head):
    """Mean length of what one position's value adds to the residual stream through W_o, for the first token
    and for the others: (first, others)."""
    d_head = CONFIG["d_model"] // CONFIG["n_heads"]
    x = params["embed"][tokens] + params["pos"][: tokens.shape[1]]  # (B, L, d_model)
    block = slice(head * d_head, (head + 1) * d_head)  # this head's features
    added = (x @ params["0.w_v"])[..., block] @ params["0.w_o"][block]  # (B, L, d_model)
    lengths = np.linalg.norm(added, axis=-1)  # (B, L)
    return lengths[:, 0].mean(), lengths[:, 1:].mean()


for seed, (params, history) in runs.items():
    head = sink_head(history)
    first, others = value_norms(params, evaluation[0], head)
    without = measure(params, evaluation, "softmax", CONFIG["n_heads"], first_value=False)
    print(f"seed {seed}, head {head}: what a value adds, first token {first:.2f}, the others {others:.2f} on average;"
          f" accuracy with the first token's value zeroed: {np.round(without['accuracy'], 2)}")
# --8<-- [end:value]

def end_answers(params):
    return measure(params, evaluation, "softmax", CONFIG["n_heads"])["answers"]


rows = []
for seed, (params, history) in runs.items():
    head = sink_head(history)
    start, end = history[0], history[-1]
    first, others = value_norms(params, evaluation[0], head)
    without = measure(params, evaluation, "softmax", CONFIG["n_heads"], first_value=False)
    kinds = evaluation[2]
    changed = (without["answers"] != end_answers(params))[kinds == 1].sum()  # "nothing to read" answers that change
    rows.append([seed, head, start["first"][1, head], end["first"][1, head], end["first"][2, head],
                 end["first"][0, head], end["first"][1, 1 - head], first, others, without["accuracy"][1],
                 without["accuracy"][2], without["accuracy"][0]])
    value(f"seed_{seed}_zeroed_changed", int(changed))
    value(f"seed_{seed}_on_signal", end["on_signal"][head], "{:.2f}")
    for kind, name in enumerate(("copying", "nothing", "reading")):
        value(f"seed_{seed}_first_{name}", end["first"][kind, head], "{:.2f}")
        value(f"seed_{seed}_first_{name}_start", start["first"][kind, head], "{:.2f}")
        value(f"seed_{seed}_accuracy_{name}", end["accuracy"][kind], "{:.2f}")
        value(f"seed_{seed}_zeroed_accuracy_{name}", without["accuracy"][kind], "{:.2f}")
    value(f"seed_{seed}_head", head)
    value(f"seed_{seed}_other_head_nothing", end["first"][1, 1 - head], "{:.2f}")
    value(f"seed_{seed}_value_first", first, "{:.2f}")
    value(f"seed_{seed}_value_others", others, "{:.2f}")
table("seeds", ["seed", "sink head", "nothing to read, step 0", "nothing to read", "reading", "copying",
                "nothing to read, other head", "value length: first token", "value length: others",
                "accuracy, nothing to read, first value zeroed", "accuracy, reading, first value zeroed",
                "accuracy, copying, first value zeroed"], rows,
      fmt="{:.2f}")
finals = np.array([[r[3], r[4]] for r in rows])  # (seeds, 2): nothing to read, reading
value("nothing_min", finals[:, 0].min(), "{:.2f}")
value("count_nothing", int((evaluation[2] == 1).sum()))
value("on_signal_min", min(h[-1]["on_signal"][sink_head(h)] for _, h in runs.values()), "{:.2f}")
value("nothing_max", finals[:, 0].max(), "{:.2f}")
value("reading_max", finals[:, 1].max(), "{:.2f}")
accuracies = np.array([h[-1]["accuracy"] for _, h in runs.values()])  # (seeds, 3)
value("accuracy_min", accuracies.min(), "{:.3f}")
position = np.broadcast_to(np.arange(CONFIG["seq_len"]), evaluation[2].shape)  # (B, L)
value("uniform_nothing", (1 / (position + 1))[evaluation[2] == 1].mean(), "{:.2f}")  # a uniform spread's weight
value("steps", CONFIG["steps"])
value("seq_len", CONFIG["seq_len"])

# ---------------------------------------------------------------- seed 0: over training, and one sequence
params, history = runs[0]
head = sink_head(history)
steps = [h["step"] for h in history]
fig, ax = plt.subplots(figsize=(6.4, 3.4), num="over_training", layout="constrained")
for kind, name in enumerate(KINDS):
    ax.plot(steps, [h["first"][kind, head] for h in history], color=COLORS[kind], label=f"{name} queries")
ax.set_xlabel("training step")
ax.set_ylabel("mean weight on the first token")
ax.set_ylim(0, 1)
ax.set_title(f"seed 0, head {head}")
ax.legend()

tokens = evaluation[0]
signals, query, _ = vocabulary()
no_signal = next(b for b in range(len(tokens)) if not np.isin(tokens[b], signals).any() and (tokens[b] == query).any())
with_signal = next(b for b in range(len(tokens)) if np.isin(tokens[b, 1:4], signals).any()
                   and (tokens[b, 5:] == query).any())


def names(sequence):
    """Token ids as the page names them: BOS, S1..S4, ?, f1.."""
    return ["BOS" if t == 0 else f"S{t}" if t in signals else "?" if t == query else f"f{t - query}"
            for t in sequence]


_, cache = forward(params, tokens[[no_signal, with_signal]], "softmax", CONFIG["n_heads"])
fig, axes = plt.subplots(1, 2, figsize=(11, 5.2), num="weights", layout="constrained")
for ax, b, title in zip(axes, (0, 1), ("no signal: nothing to read", "a signal early on")):
    label = names(tokens[[no_signal, with_signal][b]])
    image = weights_heatmap(ax, cache["weights"][b, head], label, label, annotate=False, title=title)
fig.colorbar(image, ax=axes, shrink=0.8, label="attention weight")
value("example_no_signal_first", cache["weights"][0, head, tokens[no_signal] == query, 0].mean(), "{:.2f}")
