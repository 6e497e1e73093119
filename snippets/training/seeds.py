"""Is the result a lucky seed? The reference task on five seeds, with and without weight decay.

Each run is the chapter's main run with another seed (other initial weights, other training
sentences), once with the weight decay of 1.0 used throughout the chapter and once without. For each
run: the final attention accuracy, and the animals the head never learned to find (attention accuracy
below 0.5 on the sentences with that animal), with the mean weight it gives them.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.publish import table, value
from lib.tiny_model import ANIMALS, REFERENCE_VOCAB, evaluate, init_params, reference_batch, train

D_MODEL, D_K, BATCH, STEPS, SEEDS = 16, 16, 64, 600, (0, 1, 2, 3, 4)
eval_batch = reference_batch(np.random.default_rng(1000), 1000)
tokens, _, _, _, answer_pos = eval_batch
has_animal = answer_pos[:, 0] >= 0  # (1000,)
animal_of = tokens[np.arange(len(tokens)), answer_pos[:, 0]]  # (1000,) the word at the target

rows, finals, lost_weights = [], {}, []
# --8<-- [start:seeds]
for seed in SEEDS:
    row = [seed]
    for weight_decay in (1.0, 0.0):
        params = init_params(len(REFERENCE_VOCAB), D_MODEL, D_K, seed=seed)
        train(params, lambda rng: reference_batch(rng, BATCH), STEPS, np.random.default_rng(seed),
              lr=1e-2, weight_decay=weight_decay)
        _, accuracy, attention_accuracy, weights = evaluate(params, eval_batch)
        hit = np.argmax(weights[:, 0], axis=-1) == answer_pos[:, 0]  # (1000,)
        on_answer = weights[np.arange(len(tokens)), 0, answer_pos[:, 0]]  # (1000,) weight on the animal
        lost = []
        for a in ANIMALS:
            its = has_animal & (animal_of == REFERENCE_VOCAB.index(a))  # sentences with this animal
            if np.mean(hit[its]) < 0.5:
                lost.append(f"{a} (mean weight {np.mean(on_answer[its]):.3f})")
                lost_weights.append(np.mean(on_answer[its]))
        finals[seed, weight_decay] = attention_accuracy
        row += [attention_accuracy, ", ".join(lost) or "none"]
    rows.append(row)
# --8<-- [end:seeds]

table(
    "seeds",
    ["seed", "decay 1.0: attention accuracy", "animals not found",
     "no decay: attention accuracy", "animals not found (no decay)"],
    rows,
    fmt="{:.3f}",
)
with_decay = np.array([finals[s, 1.0] for s in SEEDS])
without = np.array([finals[s, 0.0] for s in SEEDS])
value("n_seeds", len(SEEDS))
value("min_with_decay", with_decay.min(), "{:.3f}")
value("min_without_decay", without.min(), "{:.3f}")
value("stalled_without_decay", int(np.sum(without < 0.95)))
value("stalled_with_decay", int(np.sum(with_decay < 0.95)))
value("max_weight_on_lost", max(lost_weights, default=np.nan), "{:.3f}")
