"""Seed 003's SelfAttention class, run as its example does: batch 2, 5 tokens, d_model 10.

Its weights are initialised as 0.01 * randn, so every score is almost 0 and
every weight almost 1/5: the heat map the seed draws would be flat.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.claims_seeds import SelfAttention
from lib.debug_tools import capture_error
from lib.publish import value

# --8<-- [start:run]
rng = np.random.default_rng(42)
x = rng.standard_normal((2, 5, 10))  # (batch, seq_len, d_model)
layer = SelfAttention(10, rng)
output, weights = layer.forward(x)  # (2, 5, 10), (2, 5, 5)
first = weights[0]  # (5, 5): what the seed's heat map draws
print(f"weights[0] from {first.min():.4f} to {first.max():.4f}")
# --8<-- [end:run]
value("shapes", f"{x.shape}, {output.shape}, {weights.shape}", zh=f"{x.shape}、{output.shape}、{weights.shape}")
value("row_sum", f"{np.sum(weights[0, 0, :]):.3f}")
cell_labels = sorted({f"{w:.2f}" for w in first.ravel()})  # the heat map's cell labels
value("n_labels", len(cell_labels))
value(
    "label_list",
    ", ".join(f'"{label}"' for label in cell_labels),
    zh="、".join(f"“{label}”" for label in cell_labels),
)
value("token_spread", output.std(axis=1).max(), "{:.0e}")  # how much the 5 outputs of a sequence differ
value("error_2d", capture_error(lambda: layer.forward(x[0])))

# Six tokens: the weights sit at 1/6 = 0.1667.
six_tokens = np.random.default_rng(7).normal(size=(1, 6, 10))  # (1, 6, d_model)
weights_6 = SelfAttention(10, np.random.default_rng(6)).forward(six_tokens)[1]  # (1, 6, 6)
value("six_min", weights_6.min(), "{:.3f}")
value("six_max", weights_6.max(), "{:.3f}")
