"""Turn a multi-head checkpoint into a grouped one by mean-pooling key and value heads, and measure the error.

Ainslie et al. 2023 (section 2.1) convert a multi-head checkpoint by mean-pooling
the key and value projection matrices of the heads in each group, then train
for a few more steps ("uptraining"). Here only the first step, on an untrained
layer: how far the output moves before any training, for each number of groups,
when the heads are independent and when they are near copies of one another.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, grouped_query_attention, merge_heads, multi_head_attention, split_heads
from lib.plotting import COLORS
from lib.publish import table, value

rng = np.random.default_rng(3)
L, d_model, n_heads = 16, 64, 8
d_head = d_model // n_heads
x = rng.normal(size=(L, d_model))  # (L, d_model)
mask = causal_mask(L)  # (L, L)


# --8<-- [start:pool]
def mean_pool(w, n_heads, h_kv):
    """(d_model, h * d_head) projection -> (d_model, h_kv * d_head): average the heads of each group."""
    d_in, d_out = w.shape
    heads = w.reshape(d_in, h_kv, n_heads // h_kv, d_out // n_heads)  # (d_model, h_kv, group, d_head)
    return heads.mean(axis=2).reshape(d_in, -1)  # (d_model, h_kv * d_head)


def grouped_layer(x, w_q, w_k, w_v, w_o, n_heads, h_kv):
    q = split_heads(x @ w_q, n_heads)  # (h, L, d_head)
    k = split_heads(x @ mean_pool(w_k, n_heads, h_kv), h_kv)  # (h_kv, L, d_head)
    v = split_heads(x @ mean_pool(w_v, n_heads, h_kv), h_kv)  # (h_kv, L, d_head)
    heads, _ = grouped_query_attention(q, k, v, mask)  # (h, L, d_head)
    return merge_heads(heads) @ w_o  # (L, d_model)
# --8<-- [end:pool]


def layer_weights(similarity):
    """W_q, W_k, W_v, W_o; each head's W_k and W_v is a shared part plus a head's own part (similarity 0: none)."""
    scale = d_model**-0.5
    w_q, w_o = rng.normal(scale=scale, size=(2, d_model, d_model))  # (d_model, d_model) each
    shared = rng.normal(scale=scale, size=(2, d_model, 1, d_head))  # (2, d_model, 1, d_head)
    own = rng.normal(scale=scale, size=(2, d_model, n_heads, d_head))  # (2, d_model, h, d_head)
    w_k, w_v = (similarity * shared + np.sqrt(1 - similarity**2) * own).reshape(2, d_model, d_model)
    return w_q, w_k, w_v, w_o


groupings = (8, 4, 2, 1)
cases = {"independent heads": 0.0, "near-copies (0.95 shared)": 0.95}
errors = {}
for case, similarity in cases.items():
    weights = layer_weights(similarity)
    full, _ = multi_head_attention(x, *weights, n_heads, mask)  # (L, d_model): the checkpoint as trained
    errors[case] = [np.linalg.norm(grouped_layer(x, *weights, n_heads, h_kv) - full) / np.linalg.norm(full)
                    for h_kv in groupings]
table("errors", ["key/value heads h_kv", *[f"relative output error, {case}" for case in cases]],
      [[h_kv, *[errors[case][i] for case in cases]] for i, h_kv in enumerate(groupings)], fmt="{:.3f}")
independent, copies = errors.values()
value("error_8", independent[0], "{:g}")
value("independent_1", independent[-1], "{:.2f}")
value("independent_2", independent[-2], "{:.2f}")
value("copies_1", copies[-1], "{:.2f}")
value("copies_2", copies[-2], "{:.2f}")
value("n_heads", n_heads)

fig, ax = plt.subplots(num="pooling", figsize=(6.4, 3.8))
for (case, values), colour in zip(errors.items(), (COLORS[3], COLORS[0])):
    ax.plot(groupings, values, marker="o", color=colour, label=case)
ax.set_xscale("log", base=2)
ax.set_xticks(groupings, [str(g) for g in groupings])
ax.invert_xaxis()
ax.set_xlabel(f"key/value heads h_kv (of {n_heads} query heads)")
ax.set_ylabel("relative output error")
ax.set_title("Mean-pooled key and value heads, before any training")
ax.legend(frameon=False)
plt.show()
