"""How often is a token's best-matching key its own? Tied vs separate W_q, W_k, over many random sentences.

Each trial draws a random "sentence" of L = 7 token vectors (entries N(0, 1))
and random projections (entries N(0, 1/d_model)), exactly like the running
example but with fresh numbers. For every query row we ask: is the largest
score on the diagonal? With separate W_q and W_k the answer is "yes" about
1/L of the time, as chance predicts. With W_k = W_q the self-score
|x_i W|^2 is a squared length, and a squared length beats the other dot
products almost always, more so as d_model grows.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import attention_scores, softmax
from lib.plotting import COLORS
from lib.publish import table, value

rng = np.random.default_rng(2024)
n_sentences, length = 2000, 7
widths = [2, 8, 32, 64]



# --8<-- [start:trial]
def one_sentence(rng, d_model):
    """Self-match and self-weight of every row, separate and tied, for one random sentence."""
    x = rng.normal(size=(length, d_model))  # (L, d_model)
    w_q = rng.normal(scale=1 / np.sqrt(d_model), size=(d_model, d_model))  # (d_model, d_k)
    w_k = rng.normal(scale=1 / np.sqrt(d_model), size=(d_model, d_model))  # (d_model, d_k)
    q, k = x @ w_q, x @ w_k  # each (L, d_k)
    result = {}
    for name, keys in [("separate", k), ("tied", q)]:  # tied: the keys are made with W_q too
        scores = attention_scores(q, keys)  # (L, L)
        result[name] = (np.argmax(scores, axis=-1) == np.arange(length), np.diag(softmax(scores)))
    return result
# --8<-- [end:trial]


rows = []
rate = {}
weight = {}  # mean self weight per width, separate and tied
for d_model in widths:
    trials = [one_sentence(rng, d_model) for _ in range(n_sentences)]
    rate[d_model] = {name: np.mean([t[name][0] for t in trials]) for name in ("separate", "tied")}
    self_weight = weight[d_model] = {name: np.mean([t[name][1] for t in trials]) for name in ("separate", "tied")}
    rows.append(
        [
            d_model,
            f"{rate[d_model]['separate']:.1%}",
            f"{rate[d_model]['tied']:.1%}",
            f"{self_weight['separate']:.2f}",
            f"{self_weight['tied']:.2f}",
        ]
    )

table(
    "self_match",
    ["d_model = d_k", "self is best key, separate", "self is best key, tied", "mean self weight, separate",
     "mean self weight, tied"],
    rows,
)
value("n_sentences", n_sentences)
value("n_rows", n_sentences * length)
value("chance", 1 / length, "{:.1%}")
value("separate_rate_d8", rate[8]["separate"], "{:.1%}")
value("separate_rate_min", min(r["separate"] for r in rate.values()), "{:.1%}")
value("separate_rate_max", max(r["separate"] for r in rate.values()), "{:.1%}")
value("tied_rate_d8", rate[8]["tied"], "{:.1%}")
value("tied_rate_d2", rate[2]["tied"], "{:.1%}")
value("tied_rate_d64", rate[64]["tied"], "{:.1%}")
value("tied_self_weight_d8", weight[8]["tied"], "{:.2f}")
value("tied_self_weight_d32", weight[32]["tied"], "{:.2f}")
value("tied_misses_d64", int(round((1 - rate[64]["tied"]) * n_sentences * length)))

fig, ax = plt.subplots(num="self-match", figsize=(6.4, 3.6))
positions = np.arange(len(widths))
for offset, name, colour in [(-0.18, "separate", COLORS[0]), (0.18, "tied", COLORS[1])]:
    label = "separate $W_q$, $W_k$" if name == "separate" else "tied $W_k = W_q$"
    ax.bar(positions + offset, [rate[d][name] for d in widths], width=0.36, color=colour, label=label)
ax.axhline(1 / length, color="black", linestyle="--", linewidth=1, label=f"chance, 1/L = 1/{length}")
ax.set_xticks(positions, [str(d) for d in widths])
ax.set_xlabel("d_model = d_k")
ax.set_ylabel("rows whose best key is itself")
ax.set_ylim(0, 1)
ax.yaxis.set_major_formatter(plt.matplotlib.ticker.PercentFormatter(1.0))
ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
plt.show()
