"""Causal, padding, and both: three boolean masks and the weights they produce.

A mask says which keys each query may attend to (True = may attend, the
convention of the boolean attn_mask of PyTorch's scaled_dot_product_attention).
A causal mask lets position i see positions j <= i. A padding mask hides the
filler tokens that make a short sentence as long as the longest one in a batch.
A batch of two sentences: the running sentence, and "The cat sat." padded to
the same 7 positions with zero vectors.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, padding_mask, scaled_dot_product_attention
from lib.plotting import weights_heatmap
from lib.publish import value
from lib.running_example import padded_batch, projection_weights

np.set_printoptions(precision=2, suppress=True)

(tokens_a, tokens_b), _, x = padded_batch()  # x (B, L, d_model) = (2, 7, 8): b is "The cat sat." + padding
w_q, w_k, w_v = projection_weights()

# --8<-- [start:masks]
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (B, L, d_k)
causal = causal_mask(7)  # (L, L): True on and below the diagonal
padding = padding_mask([7, 4], 7)  # (B, 1, L): True for the real tokens of each sentence
both = causal & padding  # (B, L, L): broadcasting combines them
_, w_causal = scaled_dot_product_attention(q, k, v, mask=causal)  # (B, L, L)
_, w_padding = scaled_dot_product_attention(q, k, v, mask=padding)  # (B, L, L)
_, w_both = scaled_dot_product_attention(q, k, v, mask=both)  # (B, L, L)
# --8<-- [end:masks]
_, w_none = scaled_dot_product_attention(q, k, v)  # (B, L, L)

print("shapes: causal", causal.shape, " padding", padding.shape, " both", both.shape)
print("causal mask as 0/1:\n", causal.astype(int))
print("padding mask of sentence b as 0/1:", padding[1, 0].astype(int))
print('weights of sentence b, no mask (the "<pad>" columns get weight):\n', w_none[1])
print("weights of sentence b, causal + padding:\n", w_both[1])

real = slice(0, 4)  # the real query rows of sentence b
value("pad_weight_no_mask", np.max(w_none[1, real, 4:].sum(axis=-1)), "{:.2f}")
value("pad_weight_masked", np.max(w_padding[1, :, 4:]), "{:.1f}")
value("future_weight_no_mask", np.max(np.triu(w_none[0], k=1).sum(axis=-1)), "{:.2f}")
value("future_weight_causal", np.max(np.triu(w_causal[0], k=1)), "{:.1f}")
value("n_positions", x.shape[1])
value("n_real_b", int(padding[1].sum()))
value("pad_query_weight", w_padding[1, 4, 0], "{:.2f}")
value("same_first_rows", bool(np.allclose(w_both[1, :3], w_causal[0, :3])))

fig, axes = plt.subplots(1, 3, num="masks", figsize=(8.4, 3.6), layout="constrained")
two_colours = ListedColormap(["#e8e8e8", "#0072B2"])
panels = [
    (causal, tokens_a, "causal (sentence a)"),
    (np.broadcast_to(padding[1], (7, 7)), tokens_b, "padding (sentence b)"),
    (both[1], tokens_b, "causal + padding (b)"),
]
for ax, (mask, tokens, title) in zip(axes, panels):
    ax.imshow(mask, cmap=two_colours, vmin=0, vmax=1)
    ax.set_xticks(range(7), tokens, rotation=45, ha="right")
    ax.set_yticks(range(7), tokens)
    ax.set_xlabel("key (attended to)")
    ax.set_title(title)
    ax.spines[:].set_visible(False)
    ax.set_xticks(np.arange(-0.5, 7), minor=True)
    ax.set_yticks(np.arange(-0.5, 7), minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
axes[0].set_ylabel("query (attending)")
fig.legend(
    handles=[Patch(color="#0072B2", label="True: may attend"), Patch(color="#e8e8e8", label="False: masked")],
    loc="outside lower center", ncols=2, frameon=False,
)
plt.show()


def labelled_weights(ax, weights, mask, tokens, title):
    """Weights heatmap with a label on every allowed cell; masked cells stay blank (they are exactly 0)."""
    weights_heatmap(ax, weights, tokens, tokens, annotate=False, title=title)
    for i, j in zip(*np.nonzero(mask)):
        colour = "black" if weights[i, j] > 0.6 else "white"
        ax.text(j, i, f"{weights[i, j]:.2f}", ha="center", va="center", fontsize=7.5, color=colour)


fig, ax = plt.subplots(num="weights-causal", figsize=(5.4, 4.4), layout="constrained")
labelled_weights(ax, w_causal[0], causal, tokens_a, "causal mask, sentence a")
fig.colorbar(ax.images[0], ax=ax, label="weight (masked cells: exactly 0)", shrink=0.9)
plt.show()

fig, axes = plt.subplots(1, 2, num="weights-padding", figsize=(7.8, 4.0), layout="constrained")
labelled_weights(axes[0], w_padding[1], np.broadcast_to(padding[1], (7, 7)), tokens_b, "padding mask, sentence b")
labelled_weights(axes[1], w_both[1], both[1], tokens_b, "causal + padding, sentence b")
axes[1].set_ylabel("")
fig.colorbar(axes[0].images[0], ax=axes, label="weight (masked cells: exactly 0)", shrink=0.9)
plt.show()
