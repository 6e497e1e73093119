"""Claims about shapes and heads, measured with seed 000's sizes: L = 6, d_model = 128, h = 2."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import softmax
from lib.publish import value

rng = np.random.default_rng(128)
L, D_MODEL, H = 6, 128, 2
D_K = D_MODEL // H  # 64

x = rng.normal(size=(L, D_MODEL))  # (L, d_model)
w_q, w_k = rng.normal(scale=D_MODEL**-0.5, size=(2, D_MODEL, D_MODEL))  # fused, (d_model, h * d_k) each
q_fused = x @ w_q  # (L, d_model)
q = q_fused.reshape(L, H, D_K).transpose(1, 0, 2)  # (h, L, d_k)
value("split_shapes", f"{q_fused.shape} -> {q_fused.reshape(L, H, D_K).shape} -> {q.shape}")

k = (x @ w_k).reshape(L, H, D_K).transpose(1, 0, 2)  # (h, L, d_k)
scores = q @ k.transpose(0, 2, 1) / np.sqrt(D_K)  # (h, L, L)
value("axis1_row_sum_error", np.abs(softmax(scores, axis=1).sum(-1) - 1).max(), "{:.2f}")
value("axis_last_row_sum_error", np.abs(softmax(scores, axis=-1).sum(-1) - 1).max(), "{:.0e}")

heads = np.concatenate([q[0], q[1]], axis=1)  # (L, h * d_k)
w_o = rng.normal(scale=D_MODEL**-0.5, size=(D_MODEL, D_MODEL))  # (h * d_k, d_model)
value("concat_shape", f"{heads.shape} @ {w_o.shape} -> {(heads @ w_o).shape}")
value("add_width", (x + x).shape[-1])
value("concat_width", np.concatenate([x, x], axis=-1).shape[-1])
