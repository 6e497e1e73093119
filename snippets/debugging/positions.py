"""Positional encodings after fine-tuning: what the "cold start" tip's fix really does.

Seed 000's third tip: a model pre-trained with 512 positions, fine-tuned on
128-token sentences, "overfits the first 128 encodings"; the fix is to "map the
512-dim encoding to 128 dims, then interpolate back to 512". Three measurements:
which rows of a learned position table get any gradient through the lookup, what
the site's Adam does to the rows without gradient (weight decay shrinks them),
and what the down-and-up resampling does to sinusoidal encodings.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import scaled_dot_product_attention_backward, sinusoidal_positions
from lib.publish import value
from lib.tiny_model import Adam

rng = np.random.default_rng(8)
n_table, n_used, d_model = 512, 128, 64

# --8<-- [start:grad]
table = rng.normal(scale=0.02, size=(n_table, d_model))  # learned positions
lookup = np.eye(n_table)[:n_used]  # (128, 512): one-hot rows, position i reads row i of the table
x = rng.normal(size=(n_used, d_model)) + lookup @ table  # a 128-token input
w_q, w_k, w_v = rng.normal(scale=d_model**-0.5, size=(3, d_model, d_model))
g = rng.normal(size=(n_used, d_model))  # dLoss/d(output)
dq, dk, dv = scaled_dot_product_attention_backward(g, x @ w_q, x @ w_k, x @ w_v)
dx = dq @ w_q.T + dk @ w_k.T + dv @ w_v.T  # (128, 64)
d_table = lookup.T @ dx  # (512, 64): the gradient through the lookup
norms = np.linalg.norm(d_table, axis=-1)  # (512,)
print(f"rows 0-{n_used - 1}: gradient norm >= {norms[:n_used].min():.3f}")
print(f"rows {n_used}-{n_table - 1}: gradient norm = {norms[n_used:].max()}")
# --8<-- [end:grad]
value("used_rows", n_used)
value("table_rows", n_table)
value("unused_grad", norms[n_used:].max(), "{:.1f}")

# --8<-- [start:decay]
steps, lr, weight_decay = 100, 1e-2, 1.0  # the site's training defaults (lib.tiny_model.train)


def unused_rows_after(weight_decay):
    """The unused rows after `steps` of the site's Adam, every step with the gradient above."""
    params = {"table": table.copy()}
    optimiser = Adam(params, lr=lr, weight_decay=weight_decay)
    for _ in range(steps):
        optimiser.step(params, {"table": d_table})
    return params["table"][n_used:]  # (384, 64)


kept = np.linalg.norm(unused_rows_after(weight_decay)) / np.linalg.norm(table[n_used:])
change = np.abs(unused_rows_after(0.0) - table[n_used:]).max()
print(f"after {steps} steps, weight decay {weight_decay:g}: unused rows at {kept:.2f} of their size")
print(f"after {steps} steps, no weight decay: unused rows changed by {change}")
# --8<-- [end:decay]
value("adam_steps", steps)
value("adam_lr", lr, "{:g}")
value("adam_weight_decay", weight_decay, "{:g}")
value("unused_kept_decay", kept, "{:.2f}")
value("unused_change_no_decay", change, "{:.1f}")

# --8<-- [start:resample]
pe = sinusoidal_positions(n_table, d_model)  # (512, 64): positions x dimensions
positions = np.arange(n_table)
coarse_at = np.linspace(0, n_table - 1, n_used)  # 128 sample positions
coarse = np.stack([np.interp(coarse_at, positions, pe[:, j])
                   for j in range(d_model)], axis=1)  # (128, 64)
back = np.stack([np.interp(positions, coarse_at, coarse[:, j])
                 for j in range(d_model)], axis=1)  # (512, 64)
error = np.abs(back - pe).max(axis=0)  # (64,) per dimension
for j in (0, 1, 32, 62, 63):
    period = 2 * np.pi * 10000 ** (2 * (j // 2) / d_model)
    print(f"dimension {j:2d} (period {period:8.1f}): max change {error[j]:.1e}")
# --8<-- [end:resample]
value("resample_error_fast", error[:2].max(), "{:.2f}")
value("resample_error_slow", error[-2:].max(), "{:.0e}")
value("resample_dims_broken", int(np.sum(error > 0.5)))
value("pe_width", d_model)
