"""Seed 000's debugging tips on penalties, measured on random scores of 6 keys.

Gradient checks, clipping, padding and the first-token effect are measured in
the debugging chapter; this snippet measures the two attention penalties.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import softmax, softmax_backward
from lib.publish import value

rng = np.random.default_rng(78)
scores = rng.normal(size=(6, 6))  # (L, L)
weights = softmax(scores)  # (L, L)

# An L1 penalty on softmax weights is constant: every row's weights sum to 1.
value("l1_row_norm", np.abs(weights).sum(-1).max(), "{:.1f}")

# A penalty on short-range weight, minimised by gradient descent on the scores.
distance = np.abs(np.arange(6)[:, None] - np.arange(6)[None, :])  # (L, L): |i - j|
short_range = (distance <= 1).astype(float)  # keys at distance 0 or 1
penalised = scores.copy()
for _ in range(100):
    penalised -= 1.0 * softmax_backward(short_range, softmax(penalised))  # gradient of sum(w * short_range)
value("mean_distance_before", np.sum(weights * distance, -1).mean(), "{:.2f}")
value("mean_distance_after", np.sum(softmax(penalised) * distance, -1).mean(), "{:.2f}")
