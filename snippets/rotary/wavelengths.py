"""The base and the wavelengths of rotary pairs, against the sinusoidal encoding.

Pair i turns by base^(-2i/d) radians per position, so it comes back to where it
started after 2 pi * base^(2i/d) positions: the frequencies of the sinusoidal
encoding (Vaswani et al. 2017, section 3.5) with d_model replaced by the head
width. The angles are the same numbers; what differs is where they act (added to
the embeddings there, rotating q and k here). A larger base stretches the slow
pairs: Llama 2 uses base 10000 (theta=10000.0 in precompute_freqs_cis, model.py of
meta-llama/llama) with a 4096-token context (Touvron et al. 2023, Table 1: 4k);
Llama 3 8B uses 500000 with 8192 (rope_theta and max_position_embeddings in
meta-llama/Meta-Llama-3-8B's config.json).
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import rope_angles, sinusoidal_positions
from lib.plotting import COLORS
from lib.publish import table, value

# --8<-- [start:same]
d_head, n_positions = 128, 4096
angles = rope_angles(np.arange(n_positions), d_head)  # (P, d_head / 2): m * 10000^(-2i/d)
pe = sinusoidal_positions(n_positions, d_head)  # (P, d_head): sin and cos of the same arguments?
same_as_sinusoidal = np.max(np.abs(pe[:, 0::2] - np.sin(angles)))
# --8<-- [end:same]
value("same_as_sinusoidal", same_as_sinusoidal, "{:.1e}")
value("d_head", d_head)

# (model, head width, base, context): the sources are in the docstring
models = [("Llama 2", 128, 10000.0, 4096), ("Llama 3 8B", 128, 500000.0, 8192)]
# --8<-- [start:wavelength]
rows = []
for name, d, base, context in models:
    wavelength = 2 * np.pi * base ** (np.arange(0, d, 2) / d)  # (d / 2,) positions per full turn
    unturned = int(np.sum(wavelength > context))  # pairs that never complete a turn inside the context
    rows.append([name, f"{base:,.0f}", f"{context:,}", wavelength[0], wavelength[-1], unturned, d // 2])
# --8<-- [end:wavelength]
table("bases", ["model", "base", "context", "shortest wavelength", "longest wavelength",
                "pairs with a wavelength longer than the context", "pairs"], rows, fmt="{:,.4g}")
value("longest_10000", rows[0][4], "{:,.0f}")
value("longest_500000", rows[1][4], "{:,.0f}")
value("unturned_llama2", rows[0][5])
value("unturned_llama3", rows[1][5])
value("pairs", d_head // 2)

fig, ax = plt.subplots(num="wavelengths", figsize=(6.8, 4.2))
pair = np.arange(d_head // 2)
for base, colour in ((10000.0, COLORS[0]), (500000.0, COLORS[3])):
    ax.plot(pair, 2 * np.pi * base ** (2 * pair / d_head), color=colour, label=f"base {base:,.0f}")
for name, _, _, context in models:
    ax.axhline(context, color="grey", linestyle=":", linewidth=1)
    ax.text(1, context * 1.25, f"context of {name}: {context:,}", color="grey", fontsize=8)
ax.set_yscale("log")
ax.set_xlabel(f"pair i (of {d_head // 2}, d_head = {d_head})")
ax.set_ylabel("wavelength in positions (log scale)")
ax.set_title("Positions per full turn of each rotary pair")
ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(0, 0.85))
plt.show()
