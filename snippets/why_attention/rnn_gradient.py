"""How much does the last state feel an early word? A tanh RNN vs one attention layer.

A recurrent layer computes h_t = tanh(W h_{t-1} + U x_t). The gradient of the
last state h_T with respect to an early input x_t is a product of T - t
Jacobians, one per step, so it shrinks (or blows up) geometrically with the
distance. One self-attention layer reads x_t directly: its output at the last
position depends on x_t through one weighted sum, whatever the distance.
We measure the norm of both Jacobians on random, untrained weights.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import scaled_dot_product_attention_backward
from lib.plotting import COLORS
from lib.publish import table, value
from lib.running_example import projection_weights

L, d, n_draws = 50, 16, 20  # sequence length, width, random networks per curve


# --8<-- [start:rnn]
def rnn_jacobian_norms(w, u, x):
    """Norm of d h_T / d x_t for every t, by the chain rule; index = T - t."""
    h, states = np.zeros(len(w)), []
    for x_t in x:  # forward pass, one step at a time
        h = np.tanh(w @ h + u @ x_t)  # (d,)
        states.append(h)
    norms = []
    jac = np.diag(1 - states[-1] ** 2)  # (d, d): d h_T / d (pre-activation T)
    for t in range(len(x) - 1, -1, -1):  # walk back from the last step
        norms.append(np.linalg.norm(jac @ u, ord=2))  # spectral norm
        if t > 0:  # one more factor of the chain: W, then tanh' at t - 1
            jac = jac @ w @ np.diag(1 - states[t - 1] ** 2)
    return np.array(norms)  # (L,)
# --8<-- [end:rnn]


# --8<-- [start:attention]
def attention_jacobian_norms(x, w_q, w_k, w_v):
    """Norm of d out_T / d x_t for every t, by backpropagation; index = T - t."""
    n, width = x.shape
    # one backward pass per coordinate c of the last output: a batch of width
    q, k, v = (np.broadcast_to(x @ w, (width, n, width)) for w in (w_q, w_k, w_v))
    seed = np.zeros((width, n, width))  # (d, n, d): d out_T[c] / d out
    seed[np.arange(width), -1, np.arange(width)] = 1.0
    d_q, d_k, d_v = scaled_dot_product_attention_backward(seed, q, k, v)
    jac = d_q @ w_q.T + d_k @ w_k.T + d_v @ w_v.T  # (d, n, d): [c, t, :]
    jac = np.swapaxes(jac, 0, 1)  # (n, d, d): one Jacobian per position t
    norms = np.linalg.norm(jac, ord=2, axis=(1, 2))  # (n,)
    return norms[::-1]  # index = distance T - t
# --8<-- [end:attention]


rng = np.random.default_rng(0)
gains = (1.0, 1.5, 3.0)  # W entries ~ N(0, gain^2 / d)
rnn = {g: [] for g in gains}
att = []
for draw in range(n_draws):
    x = rng.normal(size=(L, d))  # (L, d) random inputs
    u = rng.normal(scale=1 / np.sqrt(d), size=(d, d))
    w_base = rng.normal(scale=1 / np.sqrt(d), size=(d, d))
    for g in gains:
        rnn[g].append(rnn_jacobian_norms(g * w_base, u, x))
    w_q, w_k, w_v = projection_weights(d, d, seed=100 + draw)
    att.append(attention_jacobian_norms(x, w_q, w_k, w_v))

# geometric mean over the random draws: the typical size on a log scale
typical = {g: np.exp(np.mean(np.log(rnn[g]), axis=0)) for g in gains}
att_typical = np.exp(np.mean(np.log(att), axis=0))
distance = np.arange(L)

shown = [1, 4, 10, 20, 49]
table(
    "norms",
    ["distance T − t", *[f"RNN, gain {g}" for g in gains], "attention"],
    [[t, *[typical[g][t] for g in gains], att_typical[t]] for t in shown],
    fmt="{:.2e}",
)
value("length", L)
value("width", d)
value("draws", n_draws)
value("rnn_d1", typical[1.0][1], "{:.2f}")
value("rnn_d4", typical[1.0][4], "{:.2f}")
value("rnn_d20", typical[1.0][20], "{:.1e}")
value("rnn_d49", typical[1.0][49], "{:.0e}")
slope = np.polyfit(distance[5:], np.log(typical[1.0][5:]), 1)[0]
value("rnn_rate", np.exp(slope), "{:.2f}")  # factor per extra step
value("rnn_gain3_d49", typical[3.0][49], "{:.1f}")
far = att_typical[1:]  # every earlier position
value("att_min", far.min(), "{:.3f}")
value("att_max", far.max(), "{:.3f}")
trend = np.polyfit(distance[1:], np.log(far), 1)[0]  # log-linear fit over distances 1 .. L-1
value("att_trend", np.exp(trend * (L - 2)), "{:.2f}")  # fitted change from distance 1 to L-1
value("rnn_trend", np.exp(slope * (L - 2)), "{:.0e}")  # the same for the gain-1 RNN
# same-distance crossing: the first distance from which on the gain-1 RNN stays below attention
not_below = distance[1:][typical[1.0][1:] >= far]  # distances where the RNN passes at least as much
crossing = int(not_below[-1]) + 1 if len(not_below) else 1
value("crossing", crossing)
value("rnn_at_crossing", typical[1.0][crossing], "{:.4f}")
value("att_at_crossing", att_typical[crossing], "{:.4f}")
value("rnn_before_crossing", typical[1.0][crossing - 1], "{:.4f}")
value("att_before_crossing", att_typical[crossing - 1], "{:.4f}")

fig, ax = plt.subplots(num="gradient-vs-distance", figsize=(6.4, 4.2))
for g, colour in zip(gains, (COLORS[3], COLORS[1], COLORS[4])):
    label = rf"tanh RNN, gain {g}: $\Vert\partial h_T / \partial x_t\Vert$"
    ax.plot(distance, typical[g], color=colour, label=label)
label = r"one self-attention layer: $\Vert\partial o_T / \partial x_t\Vert$"
ax.plot(distance[1:], far, color=COLORS[0], lw=2.5, label=label)
ax.set_yscale("log")
ax.set_xlabel("distance T − t (positions between the early word and the last)")
ax.set_ylabel("Jacobian norm (log scale)")
ax.set_title(f"Gradient reaching an early word (L = {L}, d = {d}, {n_draws} draws)")
ax.legend(frameon=False, fontsize=8.5, loc="lower left")
plt.show()
