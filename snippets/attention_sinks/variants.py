"""Three ways out, trained on the same task and seeds: a learned sink logit per head, the plus-one softmax and a
sigmoid gate on the heads' output.

For each variant and seed, on the fixed batch: the weight "nothing to read" queries put on the first token, on
the sink (the two variants with one; the gate's table cell is "-") and elsewhere, all in the head that puts the
most on the first token; the accuracy; for the gate, the mean gate value of each kind of query; for the learned
sink, its logits.
"""
# Build time limit: 180 s

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.publish import table, value
from lib.sink_model import sink_head, train

SEEDS = (0, 1, 2)

# --8<-- [start:train]
rows, sink_logits = [], []
for variant in ("sink", "plus one", "gate"):
    for seed in SEEDS:
        params, history = train(variant, seed)  # about 6 s each
        end, head = history[-1], sink_head(history)
        first, sink = end["first"][1, head], end["sink"][1, head]  # nothing-to-read queries, in the sink head
        rows.append([variant, seed, head, first, sink, 1 - first - sink, end["accuracy"][1],
                     end["accuracy"][2], end["gate"][1], end["gate"][2]])
        sink_logits += list(params.get("sink", []))
        extra = f", sink logits {np.round(params['sink'], 2)}" if variant == "sink" else ""
        on_sink = "no sink" if variant == "gate" else f"sink {sink:.2f}"  # the gate's softmax is the plain one
        print(f"{variant:8s} seed {seed}: first token {first:.2f}, {on_sink}, accuracy "
              f"{np.round(end['accuracy'], 2)}{extra}")
# --8<-- [end:train]
header = ["variant", "seed", "head", "first token", "sink", "elsewhere", "accuracy, nothing to read",
          "accuracy, reading", "gate, nothing to read", "gate, reading"]
# The gate has no sink: its "sink" cell is "-" and its "elsewhere" is 1 - first token. The row with a learned sink
# logit is named "learned sink", so that the variant and the column "sink" are not the same word.
cells = [["learned sink" if r[0] == "sink" else r[0], *r[1:4], *(["-", 1 - r[3]] if r[0] == "gate" else r[4:6]),
          *r[6:8], *(r[8:] if r[0] == "gate" else ["-", "-"])] for r in rows]
table("variants", header, cells, fmt="{:.2f}")
for r in rows:
    key = f"{r[0].replace(' ', '_')}_seed_{r[1]}"
    value(f"{key}_first", r[3], "{:.2f}")
    if r[0] != "gate":
        value(f"{key}_sink", r[4], "{:.2f}")
    if r[0] == "gate":
        value(f"{key}_gate_nothing", r[8], "{:.2f}")
        value(f"{key}_gate_reading", r[9], "{:.2f}")
value("sink_logit_max", max(sink_logits), "{:.2f}")
gates = np.array([r[8:] for r in rows if r[0] == "gate"])  # (seeds, 2): nothing to read, reading
value("gate_gap_max", np.abs(gates[:, 0] - gates[:, 1]).max(), "{:.3f}")
value("accuracy_min", np.array([r[6:8] for r in rows]).min(), "{:.3f}")
for variant in ("sink", "plus one", "gate"):
    mine = np.array([r[3:8] for r in rows if r[0] == variant])  # (seeds, 5)
    key = variant.replace(" ", "_")
    value(f"{key}_first_min", mine[:, 0].min(), "{:.2f}")
    value(f"{key}_first_max", mine[:, 0].max(), "{:.2f}")
    if variant != "gate":
        value(f"{key}_sink_max", mine[:, 1].max(), "{:.2f}")
    value(f"{key}_accuracy_min", mine[:, 3:].min(), "{:.2f}")
