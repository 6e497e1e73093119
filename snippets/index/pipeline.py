"""A map of the self-attention layer, chapter by chapter, in the order of the menu.

We push "The cat sat on the mat." through the layer with the core module and
record the array each forward-pass chapter adds, in the order the menu teaches
them: one head of width d_k = d_model = 8 (as in the scaled dot-product chapter),
then a causal mask, then two heads. The map drawn below and the table of the
home page come from the same list, so the shapes on them are those of real arrays.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import attention_scores, causal_mask, merge_heads, sinusoidal_positions, softmax, split_heads
from lib.plotting import COLORS
from lib.publish import table
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

h = 2  # heads, from the multi-head chapter on
tokens = tokenize(SENTENCE)  # L tokens
embedded = embed(tokens)  # (L, d_model)
L, d_model = embedded.shape
x = embedded + sinusoidal_positions(L, d_model)  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # each (d_model, d_k), d_k = d_model: one head
w_o = np.random.default_rng(2).normal(scale=1 / np.sqrt(d_model), size=(d_model, d_model))
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (L, d_k)
scaled = attention_scores(q, k)  # (L, L): q k^T / sqrt(d_k)
row = softmax(scaled[1])  # (L,): the softmax chapter's row, the query "cat"
masked = np.where(causal_mask(L), scaled, -np.inf)  # (L, L)
weights = softmax(masked)  # (L, L)
output = weights @ v  # (L, d_v)
q_heads, k_heads, v_heads = (split_heads(a, h) for a in (q, k, v))  # each (h, L, d_head)
head_weights = softmax(np.where(causal_mask(L), attention_scores(q_heads, k_heads), -np.inf))  # (h, L, L)
heads = head_weights @ v_heads  # (h, L, d_head)
merged = merge_heads(heads)  # (L, h * d_head)
mixed = merged @ w_o  # (L, d_model)

# (step, what the chapter adds, array, chapter title, chapter file, part of the layer), in menu order
stages = [
    ("tokens", "split the text into words and punctuation", np.array(tokens),
     "From tokens to vectors", "tokens-to-vectors.md", 0),
    ("embeddings", "look up one vector per token", embedded, "From tokens to vectors", "tokens-to-vectors.md", 0),
    ("+ positions", "add sinusoidal position codes", x, "Positional encoding", "positional-encoding.md", 0),
    ("Q, K, V", "three learned projections", q, "Queries, keys and values", "queries-keys-values.md", 1),
    ("softmax", "one row of scores becomes weights", row, "Softmax", "softmax.md", 1),
    ("scaled scores", "every query against every key, / sqrt(d_k)", scaled, "Scaled dot-product attention",
     "scaled-dot-product.md", 1),
    ("mask", "hide future keys, before the softmax", masked, "Masks", "masks.md", 1),
    ("weighted sum", "weights @ v: mix the value rows", output, "The weighted sum", "weighted-sum.md", 1),
    ("split heads", "cut q, k, v's features into h heads", q_heads, "Multi-head attention", "multi-head.md", 2),
    ("merge heads", "attend per head, concatenate", merged, "Multi-head attention", "multi-head.md", 2),
    ("W_o", "mix the heads into the output", mixed, "Multi-head attention", "multi-head.md", 2),
]

table(
    "stages",
    ["#", "step", "what it adds", "shape", "chapter"],
    [[str(n), name, what, str(a.shape), f"[{title}]({page})"] for n, (name, what, a, title, page, _) in
     enumerate(stages, start=1)],
)

# The map: a snake of boxes, four per row, in the order of the menu.
parts = ["input", "attention", "heads"]
fills = ["#dcebf7", "#fbe6c8", "#d3efe4"]  # light tints of the site's blue, orange and green
edges = [COLORS[0], COLORS[1], COLORS[2]]
SHORT = {"Scaled dot-product attention": "Scaled dot-product", "Queries, keys and values": "Queries, keys, values"}
per_row, box_w, box_h, gap_x, gap_y = 4, 2.7, 1.25, 0.55, 0.75
fig, ax = plt.subplots(num="pipeline", figsize=(8.6, 4.4))
centres = []
for n, (name, what, a, title, page, part) in enumerate(stages):
    row, col = divmod(n, per_row)
    col = col if row % 2 == 0 else per_row - 1 - col  # odd rows run right to left
    cx, cy = col * (box_w + gap_x), -row * (box_h + gap_y)
    centres.append((cx, cy))
    corner = (cx - box_w / 2, cy - box_h / 2)
    ax.add_patch(FancyBboxPatch(corner, box_w, box_h, boxstyle="round,pad=0.02,rounding_size=0.12",
                                facecolor=fills[part], edgecolor=edges[part], linewidth=1.5))
    label = name.replace("W_o", "$W_o$").replace("Q, K, V", "$Q, K, V$")
    ax.text(cx, cy + 0.36, f"{n + 1}. {label}", ha="center", va="center", fontsize=10, fontweight="bold")
    ax.text(cx, cy + 0.02, str(a.shape), ha="center", va="center", fontsize=9.5, family="monospace")
    short = SHORT.get(title, title)
    ax.text(cx, cy - 0.33, short, ha="center", va="center", fontsize=8, style="italic", color="0.2")
for (x0, y0), (x1, y1) in zip(centres, centres[1:]):
    if y0 == y1:  # same row: from one side to the other
        step = np.sign(x1 - x0) * box_w / 2
        start, end = (x0 + step, y0), (x1 - step, y1)
    else:  # next row: straight down
        start, end = (x0, y0 - box_h / 2), (x1, y1 + box_h / 2)
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=14, color="0.3", linewidth=1.3,
                                 shrinkA=2, shrinkB=2))
handles = [Patch(facecolor=f, edgecolor=e, label=p) for p, f, e in zip(parts, fills, edges)]
ax.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False, fontsize=9,
          title=f'"{SENTENCE}"  L = {L}, d_model = d_k = {d_model}; from step 9 on, h = {h} heads', title_fontsize=9)
ax.set_xlim(-box_w / 2 - 0.1, (per_row - 1) * (box_w + gap_x) + box_w / 2 + 0.1)
n_rows = -(-len(stages) // per_row)
ax.set_ylim(-(n_rows - 1) * (box_h + gap_y) - box_h / 2 - 0.1, box_h / 2 + 0.1)
ax.set_aspect("equal")
ax.axis("off")
plt.show()
