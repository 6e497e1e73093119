"""Claims about positional encodings, measured with seed 000's sizes (d_model = 128).

Permutation results, the encoding's peak value and the resampling "fix" are
published by the Order matters, Debugging and Positional encoding chapters, and
RoPE's decay by the Rotary chapter; this snippet measures the rest.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import sinusoidal_positions
from lib.claims_seeds import seed000_heads
from lib.publish import value

D_MODEL = 128  # seed 000's width

positions = sinusoidal_positions(64, D_MODEL)  # (64, d_model)
value("pe_repeat_error", np.abs(sinusoidal_positions(64, D_MODEL) - positions).max(), "{:.1f}")
far_position = value("far_position", 100_000, "{:,}")
far = sinusoidal_positions(far_position + 1, 8)[-1]  # (8,)
value("pe_far_max", np.abs(far).max(), "{:.2f}")

# ||P_i - P_j|| depends only on i - j, but does not grow steadily with it.
distances = np.linalg.norm(positions[:, None] - positions[None, :], axis=-1)  # (64, 64)
spread = max(np.ptp(np.diagonal(distances, offset)) for offset in range(1, 40))
value("pe_distance_spread", spread, "{:.0e}")
value("pe_distance_not_monotone", int(np.sum(np.diff(distances[0, :40]) < 0)))

# Seed 000's double loop against the core's vectorised formula.
seed_loop = np.zeros((6, D_MODEL))
for i in range(6):
    for j in range(0, D_MODEL, 2):
        seed_loop[i, j] = np.sin(i / (10000 ** (j / D_MODEL)))
        seed_loop[i, j + 1] = np.cos(i / (10000 ** (j / D_MODEL)))
value("pe_formula_error", np.abs(seed_loop - sinusoidal_positions(6, D_MODEL)).max(), "{:.0e}")
value("period_dim0", 2 * np.pi, "{:.2f}")
value("period_last", 2 * np.pi * 10000 ** ((D_MODEL - 2) / D_MODEL), "{:,.0f}")

# Scales in seed 000's recipe: word vectors N(0, 1) against the encodings.
x_with_positions, *_ = seed000_heads(6, np.random.default_rng(42))  # (6, d_model)
value("seed000_x_std", (x_with_positions - sinusoidal_positions(6, D_MODEL)).std(), "{:.2f}")
value("pe6_std", sinusoidal_positions(6, D_MODEL).std(), "{:.2f}")
value("pe_long_std", sinusoidal_positions(4096, D_MODEL).std(), "{:.2f}")
