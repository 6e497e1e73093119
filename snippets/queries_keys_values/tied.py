"""Tie W_q = W_k on the running sentence: the score matrix becomes symmetric.

With one shared matrix W, the score of query i against key j is
(x_i W) . (x_j W), which is the same number as the score of j against i. The
weights are still not symmetric, because softmax normalises each row on its own.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import attention_scores, softmax
from lib.publish import value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

np.set_printoptions(precision=2, suppress=True)

tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # each (d_model, d_k)

# --8<-- [start:tie]
scores_untied = attention_scores(x @ w_q, x @ w_k)  # (L, L)
scores_tied = attention_scores(x @ w_q, x @ w_q)  # (L, L): W_k replaced by W_q
# --8<-- [end:tie]
weights_tied = softmax(scores_tied)  # (L, L)

print("tied scores:\n", scores_tied)
value("untied_asymmetry", np.max(np.abs(scores_untied - scores_untied.T)), "{:.2f}")
value("tied_asymmetry", np.max(np.abs(scores_tied - scores_tied.T)), "{:.1f}")
value("tied_weights_asymmetry", np.max(np.abs(weights_tied - weights_tied.T)), "{:.2f}")
value("tied_min_self_score", np.min(np.diag(scores_tied)), "{:.2f}")
value("untied_min_self_score", np.min(np.diag(scores_untied)), "{:.2f}")


def self_is_top(scores):
    """How many rows have their own key among the highest scores (ties count)."""
    return int(np.sum(np.diag(scores) >= scores.max(axis=1)))


value("untied_self_top_rows", self_is_top(scores_untied))
value("tied_self_top_rows", self_is_top(scores_tied))
value("n_tokens", len(tokens))

fig, axes = plt.subplots(1, 2, num="scores", figsize=(7.8, 3.8), layout="constrained")
limit = np.max(np.abs([scores_untied, scores_tied]))
for ax, scores, title in zip(axes, [scores_untied, scores_tied], ["separate $W_q$, $W_k$", "tied: $W_k = W_q$"]):
    image = ax.imshow(scores, cmap="RdBu_r", vmin=-limit, vmax=limit)
    ax.set_xticks(range(len(tokens)), tokens, rotation=45, ha="right")
    ax.set_yticks(range(len(tokens)), tokens)
    ax.set_xlabel("key (attended to)")
    ax.set_ylabel("query (attending)")
    ax.set_title(title)
    ax.spines[:].set_visible(False)
    for i, j in np.ndindex(scores.shape):
        colour = "white" if abs(scores[i, j]) > 0.6 * limit else "black"
        # + 0.0: no "-0.0"
        ax.text(j, i, f"{round(scores[i, j], 1) + 0.0:.1f}", ha="center", va="center", fontsize=7.5, color=colour)
fig.colorbar(image, ax=axes, label=r"scaled score $q_i \cdot k_j / \sqrt{d_k}$", shrink=0.85)
plt.show()
