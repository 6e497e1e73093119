"""Rotary positions make a score depend on the offset m - n only, and what the dot products do with distance.

apply_rope rotates pair i of a query or key at position m by the angle
m * base^(-2i/d). Rotating q by m and k by n leaves q_m . k_n a function of
m - n: we measure it over offsets up to a hundred thousand positions. Then we
look at what actual dot products do as the offset grows, against the bound of
RoFormer (Su et al. 2021, section 3.4.3), and check that shifting every position
by the same amount leaves attention unchanged (the values are never rotated).
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import apply_rope, causal_mask, rope_angles, scaled_dot_product_attention
from lib.plotting import COLORS
from lib.publish import table, value

rng = np.random.default_rng(0)
d_k = 64
q, k = rng.normal(size=(2, 1, d_k))  # one query and one key, each (1, d_k)


def score(m, n):
    """q rotated to position m, dotted with k rotated to position n."""
    return (apply_rope(q, [m]) @ apply_rope(k, [n]).T).item()


# --8<-- [start:relative]
starts = [0, 1, 1_000, 50_000, 1_000_000]  # where the pair of positions begins
offsets = [0, 1, 7, 100, 4_096, 100_000]  # m - n
rows = []
for offset in offsets:
    scores = np.array([score(start + offset, start) for start in starts])  # (len(starts),)
    rows.append([offset, scores[0], np.max(np.abs(scores - scores[0]))])
# --8<-- [end:relative]
table("relative", ["offset m − n", "q_m · k_n at n = 0", "largest change over n"], rows, fmt="{:.3g}")
spread = max(row[2] for row in rows)
value("max_spread", spread, "{:.1e}")
value("score_scale", float(np.linalg.norm(q) * np.linalg.norm(k)), "{:.1f}")
value("largest_position", starts[-1] + offsets[-1], "{:,}")
value("largest_offset", offsets[-1], "{:,}")

# What the dot products do as the offset grows: random pairs (q, k), and a key equal to its query.
# --8<-- [start:decay]
distance = np.unique(np.r_[0, np.geomspace(1, 4096, 160).round()])  # (D,) offsets m - n, 0 to 4096
draws = 500
qs, ks = rng.normal(size=(2, draws, 1, d_k))  # (draws, 1, d_k) each
rotated_q = apply_rope(np.broadcast_to(qs, (draws, len(distance), d_k)), distance)  # (draws, D, d_k): q at m
random_scores = np.einsum("smd,snd->sm", rotated_q, ks)  # (draws, D): q_m . k_0 for independent q, k
same_scores = np.einsum("smd,snd->sm", rotated_q, qs)  # (draws, D): q_m . q_0, the key equal to the query
mean_abs_random = np.abs(random_scores).mean(axis=0)  # (D,)
mean_same = same_scores.mean(axis=0)  # (D,)
# RoFormer's bound (section 3.4.3): |score| <= max_i |h_i - h_(i+1)| * sum_j |S_j|, S_j = sum_(k<j) e^(i m theta_k)
angles = rope_angles(distance, d_k)  # (D, d_k / 2)
partial_sums = np.abs(np.cumsum(np.exp(1j * angles), axis=1))  # (D, d_k / 2): |S_1| ... |S_(d/2)|
bound = partial_sums.mean(axis=1)  # (D,): (1 / (d/2)) sum_j |S_j|, the paper's plotted quantity
# --8<-- [end:decay]
far = distance >= 512  # (D,)
value("draws", draws, "{:,}")
value("random_near", mean_abs_random[0], "{:.2f}")
value("random_far", mean_abs_random[far].mean(), "{:.2f}")
value("same_near", mean_same[0], "{:.1f}")
value("same_far", mean_same[far].mean(), "{:.2f}")
value("same_far_abs_max", np.abs(mean_same[far]).max(), "{:.2f}")
value("bound_near", bound[0], "{:.1f}")
value("bound_far", bound[far].mean(), "{:.2f}")
value("random_far_ratio", mean_abs_random[far].mean() / mean_abs_random[0], "{:.2f}")

# --8<-- [start:shift]
L = 6
x_q, x_k, v = rng.normal(size=(3, L, d_k))  # (L, d_k) each
positions = np.arange(L)  # (L,)
outputs = []
for shift in (0, 1_000):
    q_rot = apply_rope(x_q, positions + shift)  # (L, d_k)
    k_rot = apply_rope(x_k, positions + shift)  # (L, d_k)
    out, _ = scaled_dot_product_attention(q_rot, k_rot, v, causal_mask(L))  # v is not rotated: (L, d_k)
    outputs.append(out)
# --8<-- [end:shift]
value("shift_change", np.max(np.abs(outputs[1] - outputs[0])), "{:.1e}")

# Which scores fall on average: a key correlated with its query; and one query, with all its weight in the
# fastest pair, whose key equals it: its score is cos(m - n) and does not fall.
correlation = value("correlation", 0.5, "{:.1f}")
noise = rng.normal(size=(draws, 1, d_k))  # (draws, 1, d_k)
correlated_keys = correlation * qs + np.sqrt(1 - correlation**2) * noise  # (draws, 1, d_k)
mean_correlated = np.einsum("smd,snd->sm", rotated_q, correlated_keys).mean(axis=0)  # (D,)
value("correlated_near", mean_correlated[0], "{:.1f}")
value("correlated_far", mean_correlated[far].mean(), "{:.2f}")
one_pair = np.zeros(d_k)  # (d_k,)
one_pair[0] = 1.0
one_pair_scores = apply_rope(np.broadcast_to(one_pair, (len(distance), d_k)), distance) @ one_pair  # (D,)
value("one_pair_far_max", np.abs(one_pair_scores[far]).max(), "{:.2f}")

fig, ax = plt.subplots(num="decay", figsize=(7.2, 4.2))
ax.plot(distance, bound, color="grey", linestyle=":", label="RoFormer's bound: mean |S_j|")
ax.plot(distance, mean_same, color=COLORS[3], label="key equal to the query: mean q_m · q_0")
ax.plot(distance, mean_abs_random, color=COLORS[0], label="independent q and k: mean |q_m · k_0|")
ax.axhline(0, color="black", linewidth=0.5)
ax.set_xscale("symlog", linthresh=10)
ax.set_xlim(0, distance[-1])
ax.set_xlabel("offset m − n (positions)")
ax.set_ylabel(f"dot product, d_k = {d_k}")
ax.set_title(f"Dot products of rotated vectors by offset, {draws:,} random draws")
ax.legend(frameon=False, fontsize=8)
plt.show()
