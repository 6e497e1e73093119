"""Splitting into heads: why the transpose is needed.

Each head must see every position, with a slice of the features. The correct
split reshapes (L, d_model) -> (L, h, d_head) and then moves the head axis to
the front: (h, L, d_head). Reshaping straight to (h, L, d_head) gives the same
shape but cuts the *sequence* into h chunks instead. We tag every row with its
position to see where the numbers land, and measure what the wrong split does
to multi-head attention: which output rows change when one input word changes.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, merge_heads, multi_head_attention, scaled_dot_product_attention, split_heads
from lib.plotting import COLORS
from lib.publish import table, value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)  # 7 tokens
x = embed(tokens)  # (L, d_model)
L, d_model = x.shape
h = 2  # heads
d_head = d_model // h  # 4
w_q, w_k, w_v = projection_weights()  # each (d_model, d_model): all heads' projections side by side
w_o = np.random.default_rng(2).normal(scale=1 / np.sqrt(d_model), size=(d_model, d_model))  # (h * d_head, d_model)
q = x @ w_q  # (L, d_model)

# --8<-- [start:split]
right = q.reshape(L, h, d_head).transpose(1, 0, 2)  # (L, h, d_head) -> (h, L, d_head)
wrong = q.reshape(h, L, d_head)  # (h, L, d_head): same shape, different numbers
# --8<-- [end:split]

print("shapes: right", right.shape, " wrong", wrong.shape)
matches_core = bool(np.array_equal(right, split_heads(q, h)))
value("split_matches_core", matches_core, zh="完全相同" if matches_core else "不同")
value("round_trip_error", np.max(np.abs(merge_heads(split_heads(q, h)) - q)), "{:.1f}")

# Tag every feature with the position it came from, then split the tags both ways.
tags = np.repeat(np.arange(L)[:, None], d_model, axis=1)  # (L, d_model): tags[i, c] = i
right_tags = tags.reshape(L, h, d_head).transpose(1, 0, 2)  # (h, L, d_head)
wrong_tags = tags.reshape(h, L, d_head)  # (h, L, d_head)
for name, t in (("right", right_tags), ("wrong", wrong_tags)):
    for head in range(h):
        print(f"{name} split, head {head}: row i holds position", [sorted(set(r)) for r in t[head].tolist()])
misplaced = int(np.sum(np.any(wrong_tags != np.arange(L)[None, :, None], axis=-1)))  # rows holding another position
value("wrong_rows_misplaced", misplaced)
value("head_rows", h * L)
value("right_rows_misplaced", int(np.sum(np.any(right_tags != np.arange(L)[None, :, None], axis=-1))))
for head in range(2):
    words = [tokens[p] for p in sorted(set(wrong_tags[head].ravel().tolist()))]
    zh_words = ["句号" if word == "." else word for word in words]  # Chinese lists join with 、 and name the full stop
    value(f"wrong_head{head}_positions", ", ".join(words), zh="、".join(zh_words))


# What it does to attention: change one word, see which output rows move (causal mask).
def wrong_mha(x, mask):
    """Multi-head attention with both transposes left out (split and merge by plain reshape)."""
    q, k, v = ((x @ w).reshape(h, L, d_head) for w in (w_q, w_k, w_v))  # (h, L, d_head) each, scrambled
    heads, _ = scaled_dot_product_attention(q, k, v, mask)  # (h, L, d_head)
    return heads.reshape(L, d_model) @ w_o  # (L, d_model)


def right_mha(x, mask):
    return multi_head_attention(x, w_q, w_k, w_v, w_o, h, mask)[0]  # (L, d_model)


def rows_that_move(mha, position, mask):
    """Output rows that change when the embedding at ``position`` changes."""
    nudged = x.copy()
    nudged[position] += 1.0
    change = np.max(np.abs(mha(nudged, mask) - mha(x, mask)), axis=-1)  # (L,)
    return [tokens[i] for i in np.flatnonzero(change > 1e-12)]


mask = causal_mask(L)  # (L, L)
rows = []
for position, token in enumerate(tokens):
    rows.append([f"{token} (position {position})", " ".join(rows_that_move(right_mha, position, mask)),
                 " ".join(rows_that_move(wrong_mha, position, mask))])
table("who_moves", ["word changed", "output rows that change: with transpose", "without transpose"], rows)
value("wrong_first_word_reach", len(rows_that_move(wrong_mha, 0, mask)))
value("right_first_word_reach", len(rows_that_move(right_mha, 0, mask)))
value("wrong_vs_right_max_difference", np.max(np.abs(wrong_mha(x, mask) - right_mha(x, mask))), "{:.2f}")

# Figure: which position's numbers each head's rows hold, for both splits.
position_colours = ListedColormap(COLORS[:L])  # one colour per position (Okabe-Ito)
features = np.repeat(np.arange(d_model)[None, :], L, axis=0)  # (L, d_model): features[i, c] = c
split_features = {"right": features.reshape(L, h, d_head).transpose(1, 0, 2), "wrong": features.reshape(h, L, d_head)}
fig, axes = plt.subplots(2, h, num="split", figsize=(6.4, 6.2), sharey=True)
for r, (name, t, f) in enumerate(
    (("reshape + transpose (right)", right_tags, split_features["right"]),
     ("reshape only (wrong)", wrong_tags, split_features["wrong"]))
):
    for head in range(h):
        ax = axes[r, head]
        ax.imshow(t[head], cmap=position_colours, vmin=-0.5, vmax=L - 0.5, aspect="auto")
        for i, c in np.ndindex(t[head].shape):
            colour = "white" if t[head][i, c] in (0, 3) else "black"  # white text on the two darkest colours
            ax.text(c, i, f"{tokens[t[head][i, c]]}\nq[{f[head][i, c]}]", ha="center", va="center", fontsize=7,
                    color=colour, linespacing=1.0)
        ax.set_title(f"{name}\nhead {head}", fontsize=9)
        ax.set_xticks(range(d_head), range(d_head), fontsize=8)
        ax.set_xlabel("column within the head", fontsize=8)
        ax.set_yticks(range(L), tokens)
        ax.spines[:].set_visible(False)
    axes[r, 0].set_ylabel("query slot of the head")
fig.suptitle("Whose numbers sit in each head's rows? (cell: source word, source feature)", fontsize=10)
fig.tight_layout()
plt.show()
