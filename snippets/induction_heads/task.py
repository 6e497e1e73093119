"""The task: random tokens in which a segment repeats, so that the second copy is predictable only in context.

Draws a few training sequences and the evaluation batch, shows one sequence with its repeated tokens marked,
and counts how the evaluation batch splits into repeated tokens and the rest.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.induction import CONFIG, evaluation_batch, init_params, repeat_batch
from lib.publish import value

# --8<-- [start:example]
tokens, repeat = repeat_batch(np.random.default_rng(3), batch_size=1, seq_len=24, vocab_size=24)
letters = [chr(ord("A") + t) for t in tokens[0]]  # token ids 0..23 drawn as letters A..X
print(" ".join(letters))
print(" ".join("^" if r else " " for r in repeat[0]), " ^ = predictable from the earlier copy")
# --8<-- [end:example]

tokens, repeat, _ = evaluation_batch(CONFIG)
params = init_params(CONFIG["vocab_size"], CONFIG["seq_len"], CONFIG["d_model"], n_layers=2, seed=0)
for name, x in CONFIG.items():
    value(name, x, "{:g}")
value("n_parameters", sum(p.size for p in params.values()), "{:,}")
value("n_eval", len(tokens))
value("repeat_share", repeat[:, 1:].mean(), "{:.2f}")
value("chance_loss", np.log(CONFIG["vocab_size"]), "{:.2f}")
value("chance_accuracy", 1 / CONFIG["vocab_size"], "{:.3f}")
