"""One-hot rows and uniform rows: one bug (the scale of W_q, W_k), two directions.

Seed 000 draws W_q and W_k with standard deviation 1 and divides by sqrt(d_k):
its rows come out one-hot. Seed 003 draws them with standard deviation 0.01:
its rows come out uniform, a "dead head". A standard deviation of
1/sqrt(d_model) keeps the scaled scores near unit variance. Same sentence, same
embeddings; only the scale changes.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import attention_scores, sinusoidal_positions, softmax
from lib.debug_tools import weight_stats
from lib.plotting import weights_heatmap
from lib.publish import table, value
from lib.running_example import SENTENCE, embed, tokenize

tokens = tokenize(SENTENCE)  # 7 tokens
L = len(tokens)
d_model, d_k = 128, 64  # seed 000's sizes: one head of two
x = embed(tokens, d_model) + sinusoidal_positions(L, d_model)  # (7, 128)
value("d_model", d_model)
value("n_rows", L)

# --8<-- [start:scales]
inits = {
    "std 1 (seed 000)": 1.0,
    "std 1/sqrt(d_model)": d_model**-0.5,
    "std 0.01 (seed 003)": 0.01,
}
rows, all_weights = [], {}
for name, std in inits.items():
    rng = np.random.default_rng(1)  # the same directions for every scale
    w_q = rng.normal(scale=std, size=(d_model, d_k))  # (128, 64)
    w_k = rng.normal(scale=std, size=(d_model, d_k))  # (128, 64)
    scores = attention_scores(x @ w_q, x @ w_k)  # (7, 7), over sqrt(d_k)
    weights = softmax(scores)  # (7, 7)
    top, entropy = weight_stats(weights)
    # the diagnostic: print these two numbers for any attention layer
    std = scores.std()
    print(f"{name:20s} scaled-score std {std:9.4f}   top weight {top:.3f}")
    rows.append([name, std, top, entropy, weights.min(), weights.max()])
    all_weights[name] = weights
# --8<-- [end:scales]

seed000 = all_weights["std 1 (seed 000)"]
value("std1_score_std", rows[0][1], "{:.0f}")
value("std1_row_max", rows[0][2], "{:.3f}")
value("one_hot_threshold", 0.99)
value("std1_rows_above_099", int(np.sum(seed000.max(axis=-1) > 0.99)))
value("std1_one_hot_keys", len(set(np.argmax(seed000, axis=-1)[seed000.max(axis=-1) > 0.99])))  # keys they pick
value("std1_factor", d_model * 1.0**2, "{:.0f}")  # d_model * sigma_W^2
value("fixed_score_std", rows[1][1], "{:.2f}")
value("fixed_row_max", rows[1][2], "{:.2f}")
value("small_score_std", rows[2][1], "{:.3f}")
value("small_min_weight", rows[2][4], "{:.3f}")
value("small_max_weight", rows[2][5], "{:.3f}")
value("uniform_weight", 1 / L, "{:.3f}")
value("max_entropy", np.log(L), "{:.2f}")
value("small_entropy", rows[2][3], "{:.3f}")

# --8<-- [start:seedfix]
# Seed 000's table: divide by sqrt(d_k), the head width, not sqrt(d_model).
rng = np.random.default_rng(1)
w_q, w_k = rng.normal(size=(2, d_model, d_k))  # std 1 again, each (128, 64)
raw = (x @ w_q) @ (x @ w_k).T  # (7, 7)
for name, divisor in (("sqrt(d_k)", d_k**0.5),
                      ("sqrt(d_model)", d_model**0.5)):
    top, _ = weight_stats(softmax(raw / divisor))
    print(f"std 1, divide by {name:13s}: mean top weight {top:.3f}")
# --8<-- [end:seedfix]
value("dmodel_divisor_row_max", top, "{:.3f}")
header = ["W_q, W_k init", "scaled-score std", "mean top weight",
          "mean entropy (nats)", "min weight", "max weight"]
table("scales", header, rows)

fig, axes = plt.subplots(1, 3, num="three-inits", figsize=(9.5, 3.7), layout="constrained")
for ax, (name, weights) in zip(axes, all_weights.items()):
    image = weights_heatmap(ax, weights, tokens, tokens, annotate=False, title=f"W_q, W_k: {name}")
fig.colorbar(image, ax=axes, label="weight", shrink=0.8)
plt.show()
