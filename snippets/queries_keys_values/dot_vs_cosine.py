"""Dot product is not cosine similarity: the key's length changes which key wins.

q . k = |q| |k| cos(theta). Within one query's row |q| is a common factor, so it
cannot change which key scores highest (it only sharpens or flattens the softmax).
The key's length |k| can: a long key at a wider angle beats a short key that
points the same way as the query. We show a two-dimensional counterexample, then
measure how often the two rankings disagree on the running sentence and on
many random sentences.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import softmax
from lib.plotting import COLORS
from lib.publish import table, value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize


def cosine(a, b):
    """Cosine similarity of every row of a with every row of b: (Lq, d), (Lk, d) -> (Lq, Lk)."""
    a_unit = a / np.linalg.norm(a, axis=-1, keepdims=True)  # (..., Lq, d)
    b_unit = b / np.linalg.norm(b, axis=-1, keepdims=True)  # (..., Lk, d)
    return a_unit @ np.swapaxes(b_unit, -1, -2)  # (..., Lq, Lk)


# --8<-- [start:counterexample]
q = np.array([1.0, 0.0])
keys = np.array([[0.9, 0.3], [2.0, 2.0]])  # (2, d): key A points almost like q; key B is long
dots = keys @ q  # (2,)
cosines = cosine(q[None, :], keys)[0]  # (2,)
# --8<-- [end:counterexample]
print("dot products   A, B:", dots)
print("cosines        A, B:", cosines.round(3))
value("a_dot", dots[0], "{:.2f}")
value("b_dot", dots[1], "{:.2f}")
value("a_cos", cosines[0], "{:.3f}")
value("b_cos", cosines[1], "{:.3f}")

# Doubling the query doubles every dot product, leaves every cosine alone, and sharpens softmax.
value("weight_b_q", softmax(keys @ q)[1], "{:.2f}")
value("weight_b_2q", softmax(keys @ (2 * q))[1], "{:.2f}")
value("cos_change_2q", np.max(np.abs(cosine(2 * q[None, :], keys) - cosine(q[None, :], keys))), "{:.1f}")

# The running sentence: the best key of each query, by dot product and by cosine.
tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
w_q, w_k, _ = projection_weights()
q_run, k_run = x @ w_q, x @ w_k  # each (L, d_k)
by_dot = np.argmax(q_run @ k_run.T, axis=-1)  # (L,)
by_cos = np.argmax(cosine(q_run, k_run), axis=-1)  # (L,)
key_length = np.linalg.norm(k_run, axis=-1)  # (L,)
table(
    "running",
    ["query", "best key by q.k", "its length", "best key by cosine", "its length"],
    [[tokens[i], tokens[by_dot[i]], key_length[by_dot[i]], tokens[by_cos[i]], key_length[by_cos[i]]]
     for i in range(len(tokens))],
    fmt="{:.2f}",
)
value("running_disagree", int(np.sum(by_dot != by_cos)))

# Many random sentences, built like the running example.
rng = np.random.default_rng(5)
n_sentences, length, d_model = 2000, 7, 8
# --8<-- [start:rate]
x = rng.normal(size=(n_sentences, length, d_model))  # (N, L, d_model)
w_q = rng.normal(scale=1 / np.sqrt(d_model), size=(n_sentences, d_model, d_model))  # (N, d_model, d_k)
w_k = rng.normal(scale=1 / np.sqrt(d_model), size=(n_sentences, d_model, d_model))  # (N, d_model, d_k)
q_all, k_all = x @ w_q, x @ w_k  # each (N, L, d_k)
best_by_dot = np.argmax(q_all @ np.swapaxes(k_all, -1, -2), axis=-1)  # (N, L)
best_by_cos = np.argmax(cosine(q_all, k_all), axis=-1)  # (N, L)
disagree = np.mean(best_by_dot != best_by_cos)
# --8<-- [end:rate]
value("n_rows_random", n_sentences * length)
value("disagree_rate", disagree, "{:.1%}")

fig, ax = plt.subplots(num="counterexample", figsize=(5.2, 3.6))
for vector, name, colour in [(q, "query q", COLORS[7]), (keys[0], "key A", COLORS[0]), (keys[1], "key B", COLORS[3])]:
    ax.annotate("", xy=vector, xytext=(0, 0), arrowprops={"arrowstyle": "-|>", "color": colour, "linewidth": 2})
ax.text(1.02, -0.12, "query q", color=COLORS[7])
ax.text(0.92, 0.33, f"key A\nq·k = {dots[0]:.2f}\ncos = {cosines[0]:.2f}", color=COLORS[0], va="bottom")
ax.text(2.05, 1.75, f"key B\nq·k = {dots[1]:.2f}\ncos = {cosines[1]:.2f}", color=COLORS[3], va="top")
ax.set_xlim(-0.1, 2.9)
ax.set_ylim(-0.3, 2.2)
ax.set_aspect("equal")
ax.set_title("q·k picks key B, cosine picks key A")
ax.set_xlabel("dimension 1")
ax.set_ylabel("dimension 2")
plt.show()
