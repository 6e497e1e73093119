"""The sinusoidal positional encoding, computed two ways and drawn as a heatmap.

Each position p gets a vector of d_model numbers: pairs of dimensions (2i, 2i+1)
hold sin and cos of p times a frequency that falls with i. We compute it with a
double loop straight from the formula, compare with the core module, draw the
first 64 positions at d_model = 128, and add the encodings of the running
sentence to its embeddings: "The" (position 0) and "the" (position 4) share an
embedding but no longer share an input vector.
"""

import math
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib import plotting  # noqa: F401  (the site's figure style)
from lib.attention import sinusoidal_positions
from lib.publish import value
from lib.running_example import D_MODEL, SENTENCE, embed, tokenize

np.set_printoptions(precision=3, suppress=True)


# --8<-- [start:formula]
def pe_loop(n_positions, d_model):
    """PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(p / 10000^(2i/d))."""
    pe = np.zeros((n_positions, d_model))
    for p in range(n_positions):
        for i in range(d_model // 2):
            angle = p / 10000 ** (2 * i / d_model)
            pe[p, 2 * i] = math.sin(angle)
            pe[p, 2 * i + 1] = math.cos(angle)
    return pe
# --8<-- [end:formula]


n_positions, d_big = 64, 128
pe = sinusoidal_positions(n_positions, d_big)  # (64, 128)
value("loop_max_error", np.max(np.abs(pe - pe_loop(n_positions, d_big))), "{:.1e}")
value("heat_positions", n_positions)
value("heat_d_model", d_big)
column_range = pe.max(axis=0) - pe.min(axis=0)  # (128,): how far each column moves down the 64 positions
value("right_half_first", d_big // 2)  # the right half's first column, a sine column
value("right_half_sine_range", column_range[d_big // 2], "{:.2f}")
still = value("still_threshold", 0.1)
value("still_from", np.flatnonzero(column_range >= still)[-1] + 1)  # every column from here on moves less

# --8<-- [start:add]
tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model): "The" and "the" share a row
pe_small = sinusoidal_positions(len(tokens), D_MODEL)  # (L, d_model)
x_in = x + pe_small  # (L, d_model): what the first layer sees
# --8<-- [end:add]
print("PE for the running sentence, one row per position:\n", pe_small)
i_the, i_the2 = tokens.index("The"), tokens.index("the")
emb_gap = np.max(np.abs(x[i_the] - x[i_the2]))
value("the_embedding_difference", emb_gap, "{:g}")
value("the_input_difference", np.linalg.norm(x_in[i_the] - x_in[i_the2]), "{:.3f}")
pe_gap = np.linalg.norm(pe_small[i_the] - pe_small[i_the2])
value("the_pe_difference", pe_gap, "{:.3f}")

fig, ax = plt.subplots(num="pe-heatmap", figsize=(7.0, 4.2))
image = ax.imshow(pe, cmap="PuOr", vmin=-1, vmax=1, aspect="auto")
ax.set_xlabel("dimension (pairs 2i, 2i+1: sin, cos)")
ax.set_ylabel("position p")
ax.set_title(f"Sinusoidal positional encoding, d_model = {d_big}")
ax.spines[:].set_visible(False)
fig.colorbar(image, ax=ax, label="PE[p, dimension]")

fig, ax = plt.subplots(num="pe-sentence", figsize=(5.0, 3.4))
image = ax.imshow(pe_small, cmap="PuOr", vmin=-1, vmax=1)
ax.set_yticks(range(len(tokens)), [f"{p}: {t}" for p, t in enumerate(tokens)])
ax.set_xticks(range(D_MODEL))
ax.set_xlabel("dimension")
ax.set_ylabel("position: token")
ax.set_title(f"PE for the running sentence, d_model = {D_MODEL}")
ax.spines[:].set_visible(False)
for p, dim in np.ndindex(pe_small.shape):
    entry = pe_small[p, dim]
    colour = "white" if abs(entry) > 0.6 else "black"  # readable on both ends
    ax.text(dim, p, f"{entry:.2f}", ha="center", va="center", fontsize=7,
            color=colour)
fig.colorbar(image, ax=ax, label="PE value")
plt.show()
