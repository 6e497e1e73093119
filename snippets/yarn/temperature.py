"""What YaRN's two pieces do to the scores of far-apart tokens, and the temperature applied twice or not at all.

DeepSeek-V3's rotary part (d = 64, base 10000, L = 4096, s = 40; sources in configs.py's docstring), run on s * L
positions. The frequencies: how many pairs meet angles they never saw in training, and how fast pair 0 turns.
The temperature: one query at the last position over every key, random q and k (rotation keeps each score's
spread), with the scores multiplied by 1/t (right), by (1/t)^2 (applied twice) and by 1 (left out).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import softmax
from lib.publish import table, value
from lib.yarn import (
    buggy_temperature_missing,
    buggy_temperature_twice,
    rotate,
    score_multiplier,
    unseen_angle_pairs,
    yarn_frequencies,
)

d, base, context, s = 64, 10000.0, 4096, 40.0
length = int(s * context)  # 163,840 positions

# --8<-- [start:frequencies]
theta = base ** (-np.arange(0, d, 2) / d)  # (d/2,) trained
methods = {"no change": theta, "position interpolation": theta / s, "YaRN": yarn_frequencies(d, base, s, context)}
for name, freq in methods.items():
    print(f"{name:24s} pairs past their trained angles: {unseen_angle_pairs(freq, theta, length, context):2d};"
          f" pair 0 turns {freq[0]:.3f} rad per position")
# --8<-- [end:frequencies]
for key, (name, freq) in zip(("none", "pi", "yarn"), methods.items()):
    value(f"unseen_{key}", unseen_angle_pairs(freq, theta, length, context))
    value(f"fastest_{key}", freq[0], "{:.3f}")
value("length", length, "{:,}")

# --8<-- [start:temperature]
rng = np.random.default_rng(0)
q, k = rng.normal(size=(d,)), rng.normal(size=(length, d))  # one query, every key
positions = np.arange(length)
q_rot = rotate(q[None, :], positions[-1:], methods["YaRN"])[0]  # (d,) the query at the last position
k_rot = rotate(k, positions, methods["YaRN"])  # (N, d)
scores = k_rot @ q_rot / np.sqrt(d)  # (N,): before the temperature


def entropy(w):
    return float(-np.sum(w * np.log(np.where(w > 0, w, 1.0))))


settings = {"1/t (right)": score_multiplier(s), "(1/t)^2 (applied twice)": buggy_temperature_twice(s),
            "1 (left out)": buggy_temperature_missing(s)}
rows = []
for name, factor in settings.items():
    weights = softmax(factor * scores)  # (N,)
    rows.append([name, factor, entropy(weights), weights.max()])
    print(f"scores x {factor:.3f} ({name}): entropy {entropy(weights):.2f} nats, largest weight {weights.max():.4f}")
trained = softmax(scores[-context:])  # the last 4,096 keys only, no temperature: what training saw
print(f"as trained, {context:,} keys: entropy {entropy(trained):.2f} nats, largest weight {trained.max():.4f}")
# --8<-- [end:temperature]
table("temperature", ["scores multiplied by", "factor", "weights' entropy (nats)",
                      "largest weight"], rows, fmt="{:.3g}")
for key, row in zip(("right", "twice", "missing"), rows):
    value(f"factor_{key}", row[1], "{:.3f}")
    value(f"entropy_{key}", row[2], "{:.2f}")
    value(f"largest_{key}", row[3], "{:.4f}")
value("entropy_trained", entropy(trained), "{:.2f}")
value("context", context, "{:,}")
value("uniform_entropy", np.log(length), "{:.2f}")
