"""Learning to attend: train one attention head to find the animal in a sentence.

Every sentence has one animal, at a position that changes with the sentence's template, among
objects, verbs and prepositions that change too ("the cat sat on the mat . the hungry one" -> cat).
One sentence in five has no animal; the answer is then "nobody". The last word, "one", is the query.
We train the tiny model (embeddings + sinusoidal positions -> one head -> output projection) with
the hand-written backward pass and Adam, and watch three things: the loss, the accuracy, and the
attention accuracy: the share of sentences whose largest weight lands on the animal.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.plotting import COLORS
from lib.publish import value
from lib.tiny_model import OBJECTS, REFERENCE_VOCAB, TEMPLATES, evaluate, init_params, reference_batch, train, words

np.set_printoptions(precision=3, suppress=True)

# --8<-- [start:setup]
D_MODEL, D_K, BATCH, STEPS, SEED = 16, 16, 64, 600, 0
LR, WEIGHT_DECAY = 1e-2, 1.0
eval_batch = reference_batch(np.random.default_rng(1000), 1000)  # fixed sentences to measure on
params = init_params(len(REFERENCE_VOCAB), D_MODEL, D_K, seed=SEED)
# --8<-- [end:setup]
CHECKPOINTS = [0, 15, 35, 45, STEPS]  # steps whose weights we draw
tokens, _, _, targets, answer_pos = eval_batch
has_animal = answer_pos[:, 0] >= 0  # (1000,)
first_of_each = {}  # the first evaluation sentence of each animal
for i in np.flatnonzero(has_animal):
    first_of_each.setdefault(int(targets[i, 0]), i)
EXAMPLES = [*sorted(first_of_each.values())[:5], np.flatnonzero(~has_animal)[0]]  # five animals, one "nobody"

history, snapshots = [], {}


def record(step, params):
    loss, accuracy, attention_accuracy, weights = evaluate(params, eval_batch)
    history.append((step, loss, accuracy, attention_accuracy))
    if step in CHECKPOINTS:
        snapshots[step] = weights[EXAMPLES, 0]  # (n_examples, L)


# --8<-- [start:train]
train(params, lambda rng: reference_batch(rng, BATCH), STEPS, np.random.default_rng(SEED),
      lr=LR, weight_decay=WEIGHT_DECAY, every=5, callback=record)
# --8<-- [end:train]

steps, losses, accuracies, attention_accuracies = (np.array(column) for column in zip(*history))
print("step   loss  accuracy  attention accuracy")
for step, loss, accuracy, attention_accuracy in history[:13:2] + history[24::24]:
    print(f"{step:4d}  {loss:5.3f}  {accuracy:8.3f}  {attention_accuracy:18.3f}")

value("steps", STEPS)
value("d_model", D_MODEL)
value("d_k", D_K)
value("batch", BATCH)
value("lr", LR, "{:g}")
value("weight_decay", WEIGHT_DECAY, "{:g}")
value("vocab_size", len(REFERENCE_VOCAB))
value("n_templates", len(TEMPLATES))
value("n_animal_positions", len(set(answer_pos[has_animal, 0].tolist())))
value("n_parameters", sum(p.size for p in params.values()))
value("n_eval", len(tokens))
value("start_loss", losses[0], "{:.2f}")
value("chance_loss", np.log(len(REFERENCE_VOCAB)), "{:.2f}")
value("final_loss", losses[-1], "{:.3f}")
value("final_accuracy", accuracies[-1], "{:.3f}")
value("final_attention_accuracy", attention_accuracies[-1], "{:.3f}")
value("start_attention_accuracy", attention_accuracies[0], "{:.3f}")
value("step_attention_above_95", int(steps[np.argmax(attention_accuracies >= 0.95)]))
value("attention_min_after_95", attention_accuracies[np.argmax(attention_accuracies >= 0.95):].min(), "{:.3f}")
value("step_attention_at_1", int(steps[np.flatnonzero(attention_accuracies < 1)[-1] + 1]))  # 1.000 from here on
dip = int(np.argmin(np.where(steps <= 30, attention_accuracies, np.inf)))  # the early low point
value("dip_step", int(steps[dip]))
value("dip_attention_accuracy", attention_accuracies[dip], "{:.3f}")
value("accuracy_at_dip", accuracies[dip], "{:.3f}")
value("nobody_share", np.mean(~has_animal), "{:.3f}")

# Where does "one" look when there is no animal?
_, _, _, weights = evaluate(params, eval_batch)
nobody = ~has_animal
looked_at = tokens[nobody, np.argmax(weights[nobody, 0], axis=-1)]  # (n_nobody,) word ids
names, counts = np.unique([REFERENCE_VOCAB[t] for t in looked_at], return_counts=True)
top3 = np.argsort(-counts)[:3]
print("no animal: the largest weight lands most often on", ", ".join(f"{names[i]} ({counts[i]})" for i in top3))
value("nobody_sentences", int(nobody.sum()))
value("nobody_on_object", np.mean(np.isin(looked_at, [REFERENCE_VOCAB.index(o) for o in OBJECTS])), "{:.2f}")

# The checkpoint figure described from its own numbers (the page quotes this in the figure's alt text).
example_answers = [REFERENCE_VOCAB[t] for t in targets[EXAMPLES, 0]]


def describe_checkpoint(step):
    """One sentence: the weight each animal gets, and where the sentence without an animal looks."""
    weights = snapshots[step]  # (n_examples, L)
    on_animal = [f"{answer} {weights[row, answer_pos[i, 0]]:.2f}"
                 for row, (i, answer) in enumerate(zip(EXAMPLES, example_answers)) if answer_pos[i, 0] >= 0]
    row = len(EXAMPLES) - 1  # the sentence without an animal
    top = int(np.argmax(weights[row]))
    return (f"At step {step} the animals get {', '.join(on_animal)}; the sentence without an animal puts its largest "
            f"weight, {weights[row, top]:.2f}, on \"{REFERENCE_VOCAB[tokens[EXAMPLES[row], top]]}\", and the "
            f"largest weight of a row ranges from {weights.max(axis=-1).min():.2f} to "
            f"{weights.max(axis=-1).max():.2f}.")


def describe_checkpoint_zh(step):
    """The same sentence in Chinese, from the same numbers (the Chinese page quotes it)."""
    weights = snapshots[step]  # (n_examples, L)
    on_animal = [f"{answer} {weights[row, answer_pos[i, 0]]:.2f}"
                 for row, (i, answer) in enumerate(zip(EXAMPLES, example_answers)) if answer_pos[i, 0] >= 0]
    row = len(EXAMPLES) - 1
    top = int(np.argmax(weights[row]))
    return (f"第 {step} 步：动物得到 {'、'.join(on_animal)}；没有动物的句子把最大权重 {weights[row, top]:.2f} 放在"
            f"“{REFERENCE_VOCAB[tokens[EXAMPLES[row], top]]}”上；各行最大权重在 {weights.max(axis=-1).min():.2f} 到 "
            f"{weights.max(axis=-1).max():.2f} 之间。")


value("checkpoint_description", " ".join(describe_checkpoint(step) for step in CHECKPOINTS))
value("checkpoint_description_zh", "".join(describe_checkpoint_zh(step) for step in CHECKPOINTS))
value("checkpoint_steps", ", ".join(str(step) for step in CHECKPOINTS[:-1]) + f" and {CHECKPOINTS[-1]}")
value("checkpoint_steps_zh", "、".join(str(step) for step in CHECKPOINTS[:-1]) + f" 和 {CHECKPOINTS[-1]}")

# ---------------------------------------------------------------- figures
fig, axes = plt.subplots(1, 3, figsize=(10, 3.0), num="curves", layout="constrained")
axes[0].plot(steps, losses, color=COLORS[0])
axes[0].set_ylabel("cross-entropy loss")
axes[0].set_yscale("log")
axes[1].plot(steps, accuracies, color=COLORS[1])
axes[1].set_ylabel("accuracy (answer right)")
axes[2].plot(steps, attention_accuracies, color=COLORS[2])
axes[2].set_ylabel("attention accuracy")
for ax in axes[1:]:
    ax.set_ylim(0, 1.02)
    ax.axhline(0.95, color="grey", linewidth=0.8, linestyle=":")
for ax in axes:
    ax.set_xlabel("training step")
    for step in CHECKPOINTS[1:-1]:
        ax.axvline(step, color="grey", linewidth=0.6, alpha=0.5)

example_words = [words(tokens[i]) for i in EXAMPLES]
length = max(len(w) for w in example_words)
fig, axes = plt.subplots(len(CHECKPOINTS), 1, figsize=(8.2, 1.55 * len(CHECKPOINTS) + 0.6), num="checkpoints",
                         layout="constrained", sharex=True)
for ax, step in zip(axes, CHECKPOINTS):
    grid = np.full((len(EXAMPLES), length), np.nan)  # (n_examples, L): NaN = no word (padding)
    for row, w in enumerate(example_words):
        grid[row, : len(w)] = snapshots[step][row, : len(w)]
    image = ax.imshow(grid, cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto")
    for row, w in enumerate(example_words):
        for col, word in enumerate(w):
            colour = "black" if grid[row, col] > 0.6 else "white"
            ax.text(col, row, word, ha="center", va="center", fontsize=7, color=colour)
    answers = [REFERENCE_VOCAB[t] for t in targets[EXAMPLES, 0]]
    ax.set_yticks(range(len(EXAMPLES)), [f"-> {a}" for a in answers], fontsize=8)
    ax.set_title(f"step {step}", fontsize=9, loc="left")
    ax.spines[:].set_visible(False)
    ax.tick_params(length=0)
axes[-1].set_xticks(range(length))
axes[-1].set_xlabel("position in the sentence (cell text = word, colour = weight of the query \"one\")")
fig.supylabel("sentence -> right answer", fontsize=9)
fig.colorbar(image, ax=axes, label="attention weight", shrink=0.6)
plt.show()
