"""Softmax turns one row of scores into weights: positive, summing to 1, order kept.

softmax(z)_j = exp(z_j) / sum_m exp(z_m). We apply it to the scaled scores of
the query "cat" in the running sentence, then check the properties the rest of
the site relies on: every weight is positive, the row sums to 1, the largest
score gets the largest weight, and adding the same constant to every score
changes nothing.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import attention_scores, softmax
from lib.publish import table, value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
w_q, w_k, _ = projection_weights()
scores = attention_scores(x @ w_q, x @ w_k)  # (L, L)

# --8<-- [start:row]
z = scores[1]  # (L,): the scores of the query "cat" against every key
weights = np.exp(z) / np.sum(np.exp(z))  # (L,): the definition, term by term
# --8<-- [end:row]

table("cat_row", ["key", "score z_j", "exp(z_j)", "weight"],
      [[t, z[j], np.exp(z[j]), weights[j]] for j, t in enumerate(tokens)], fmt="{:.3f}")
value("row_sum", np.sum(weights), "{:.3f}")
value("min_weight", np.min(weights), "{:.3f}")
value("top_key", tokens[int(np.argmax(weights))])
value("top_weight", np.max(weights), "{:.3f}")
same_order = bool(np.all(np.argsort(z, kind="stable") == np.argsort(weights, kind="stable")))
value("same_order", same_order, zh="是" if same_order else "否")
# --8<-- [start:shift]
shifted = softmax(z + 1000.0)  # the same scores, all 1000 larger
# --8<-- [end:shift]
value("shift_change", np.max(np.abs(shifted - weights)), "{:.1e}")
value("core_change", np.max(np.abs(softmax(z) - weights)), "{:.1e}")
