"""QK-norm on the same task and seeds: the largest score over training, the weights' entropy, and the sink.

Ordinary attention and attention whose queries and keys are RMS-normalised per head (with a learned gain, as in
Qwen3) are trained from the same seeds. Measured on the fixed batch every 50 steps: the largest |score| any query
gives any key it may see, and the mean entropy of the "nothing to read" queries' weights in the head that ends with
the most weight on the first token; at the end, the weight they put on the first token in that head.
"""
# Build time limit: 180 s

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.plotting import COLORS
from lib.publish import table, value
from lib.sink_model import sink_head, train

SEEDS = (0, 1, 2)

# --8<-- [start:train]
histories = {(variant, seed): train(variant, seed)[1] for variant in ("softmax", "qk-norm") for seed in SEEDS}
for (variant, seed), history in histories.items():
    end = history[-1]
    print(f"{variant:8s} seed {seed}: largest score {history[0]['max_logit']:5.1f} at step 0, "
          f"{end['max_logit']:5.1f} at step {end['step']}; entropy {end['entropy'][sink_head(history)]:.2f} nats; "
          f"first token {end['first'][1, sink_head(history)]:.2f}")
# --8<-- [end:train]
rows = []
for (variant, seed), history in histories.items():
    end = history[-1]
    rows.append([variant, seed, history[0]["max_logit"], end["max_logit"], end["entropy"][sink_head(history)],
                 end["first"][1, sink_head(history)], end["accuracy"][1], end["accuracy"][2]])
    key = f"{variant.replace('-', '_')}_seed_{seed}"
    value(f"{key}_max_logit", end["max_logit"], "{:.1f}")
    value(f"{key}_max_logit_start", history[0]["max_logit"], "{:.1f}")
    value(f"{key}_entropy", end["entropy"][sink_head(history)], "{:.2f}")
    value(f"{key}_first", end["first"][1, sink_head(history)], "{:.2f}")
table("qk_norm", ["variant", "seed", "largest score, step 0", "largest score, end", "entropy, nothing to read",
                  "first token, nothing to read", "accuracy, nothing to read", "accuracy, reading"], rows,
      fmt="{:.2f}")
for variant in ("softmax", "qk-norm"):
    mine = np.array([r[2:8] for r in rows if r[0] == variant])
    key = variant.replace("-", "_")
    value(f"{key}_max_logit_min", mine[:, 1].min(), "{:.1f}")
    value(f"{key}_max_logit_max", mine[:, 1].max(), "{:.1f}")
    value(f"{key}_first_min", mine[:, 3].min(), "{:.2f}")
    value(f"{key}_first_max", mine[:, 3].max(), "{:.2f}")
    value(f"{key}_entropy_min", mine[:, 2].min(), "{:.2f}")
    value(f"{key}_entropy_max", mine[:, 2].max(), "{:.2f}")

fig, axes = plt.subplots(1, 2, figsize=(10, 3.4), num="growth", layout="constrained")
for (variant, seed), history in histories.items():
    steps = [h["step"] for h in history]
    style = dict(color=COLORS[0 if variant == "softmax" else 3], alpha=1.0 if seed == 0 else 0.5,
                 label=f"{variant}, seed {seed}")
    axes[0].plot(steps, [h["max_logit"] for h in history], **style)
    axes[1].plot(steps, [h["entropy"][sink_head(history)] for h in history], **style)
axes[0].set_ylabel("largest |score|")
axes[1].set_ylabel("entropy of the sink head's weights (nats)")
for ax in axes:
    ax.set_xlabel("training step")
axes[1].legend(fontsize=8)
