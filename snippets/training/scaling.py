"""Drop the 1/sqrt(d_k) at a large d_k: the same reference task, trained with and without the scale.

With d_k = 512, unit-variance queries and keys give raw dot products with a standard deviation of
about sqrt(512) = 23, so without the scale the softmax starts saturated: each query puts almost all
its weight on one arbitrary word, and the gradient reaching W_q and W_k is starved (see the backward
chapter). Everything else is identical: data, initial weights, optimiser, number of steps. Three seeds.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import scaled_dot_product_attention_backward
from lib.plotting import COLORS
from lib.publish import table, value
from lib.tiny_model import (
    REFERENCE_VOCAB,
    cross_entropy,
    evaluate,
    forward,
    init_params,
    reference_batch,
    train,
)

D_MODEL, D_K, BATCH, STEPS, SEEDS = 16, 512, 64, 400, (0, 1, 2)
eval_batch = reference_batch(np.random.default_rng(1000), 500)  # q, k are big at d_k = 512: 500 sentences
tokens, query_pos, mask, targets, _ = eval_batch

curves, rows, start = {}, [], {}
# --8<-- [start:ablation]
for scaled in (True, False):
    for seed in SEEDS:
        params = init_params(len(REFERENCE_VOCAB), D_MODEL, D_K, seed=seed)
        # Step 0: how peaked are the weights, how much gradient reaches each sentence's query?
        logits, weights, cache = forward(params, tokens, query_pos, mask, scaled=scaled)
        grad_logits = cross_entropy(logits, targets)[1] * len(tokens)  # per sentence, not mean
        grad_out = grad_logits @ params["w_o"].T  # (B, 1, d_v)
        grad_q = scaled_dot_product_attention_backward(grad_out, cache["q"], cache["k"], cache["v"], mask)[0]
        per_query = np.linalg.norm(cache["gain"] * grad_q[:, 0], axis=-1)  # (B,): |dLoss_b / dq_b|
        start.setdefault(scaled, []).append((weights[:, 0].max(axis=-1), per_query))

        history = []  # (step, loss, accuracy, attention accuracy) every 25 steps

        def record(step, p):
            history.append((step, *evaluate(p, eval_batch, scaled=scaled)[:3]))

        train(params, lambda rng: reference_batch(rng, BATCH), STEPS, np.random.default_rng(seed),
              lr=1e-2, weight_decay=1.0, scaled=scaled, every=25, callback=record)
        curves[scaled, seed] = np.array(history)  # (n_records, 4)
        rows.append(["scaled" if scaled else "unscaled", seed, *curves[scaled, seed][-1, 1:]])
# --8<-- [end:ablation]

table("final", ["attention", "seed", "loss", "accuracy", "attention accuracy"], rows, fmt="{:.3f}")
top = {s: np.mean([t for t, _ in start[s]]) for s in start}  # mean largest weight at step 0
median_grad = {s: np.median([g for _, g in start[s]]) for s in start}  # median per-sentence |grad q|
tiny = 1e-3 * median_grad[True]
starved = {s: np.mean([g < tiny for _, g in start[s]]) for s in start}  # share of sentences with ~no gradient
final = {s: np.array([curves[s, seed][-1, 3] for seed in SEEDS]) for s in (True, False)}
print(f"step 0, mean largest weight:     scaled {top[True]:.2f}, unscaled {top[False]:.2f}")
print(f"step 0, median |dLoss/dq|:        scaled {median_grad[True]:.3g}, unscaled {median_grad[False]:.3g}")
print(f"step 0, share with |dLoss/dq| < {tiny:.1e}: scaled {starved[True]:.2f}, unscaled {starved[False]:.2f}")

value("d_k", D_K)
value("steps", STEPS)
value("n_seeds", len(SEEDS))
value("start_top_weight_scaled", top[True], "{:.2f}")
value("start_top_weight_unscaled", top[False], "{:.2f}")
value("start_median_grad_scaled", median_grad[True], "{:.2g}")
value("start_median_grad_unscaled", median_grad[False], "{:.2g}")
value("start_starved_scaled", starved[True], "{:.2f}")
value("start_starved_unscaled", starved[False], "{:.2f}")
value("final_attention_scaled_min", final[True].min(), "{:.3f}")
value("final_attention_unscaled_mean", final[False].mean(), "{:.2f}")
value("final_attention_unscaled_min", final[False].min(), "{:.3f}")
value("final_attention_unscaled_max", final[False].max(), "{:.3f}")
value("final_attention_scaled_mean", final[True].mean(), "{:.3f}")
improving, plateaus = 0, []
for seed in SEEDS:
    steps_, attention = curves[False, seed][:, 0], curves[False, seed][:, 3]
    improving += attention[-1] > attention[steps_ == STEPS - 100][0]  # better than 100 steps ago?
    last_change = steps_[1:][np.diff(attention) != 0].max()  # last step at which it moved
    plateaus.append(STEPS - last_change)
value("unscaled_improving", int(improving))
value("unscaled_longest_plateau", int(max(plateaus)))

fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.0), num="curves", layout="constrained", sharex=True)
for scaled, colour, label in ((True, COLORS[0], "scaled, 1/sqrt(d_k)"), (False, COLORS[3], "unscaled")):
    for i, seed in enumerate(SEEDS):
        history = curves[scaled, seed]
        axes[0].plot(history[:, 0], history[:, 1], color=colour, label=label if i == 0 else None, alpha=0.85)
        axes[1].plot(history[:, 0], history[:, 3], color=colour, alpha=0.85)
axes[0].set_yscale("log")
axes[0].set_ylabel("cross-entropy loss")
axes[1].set_ylabel("attention accuracy")
axes[1].set_ylim(0, 1.02)
for ax in axes:
    ax.set_xlabel("training step")
axes[0].legend(frameon=False, fontsize=8, title=f"d_k = {D_K}, one line per seed", title_fontsize=8)
plt.show()
