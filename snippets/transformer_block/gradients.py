"""Gradients at initialisation in a stack of post-norm and of pre-norm blocks.

A stack of N blocks with freshly drawn weights, a random input and a random
linear read-out as the loss, loss = sum(output * g). The hand-written backward
pass of block_layers.py (checked against finite differences in the test suite)
gives dLoss/dx_l at the input of every block l and every weight gradient. Each
number is the geometric mean over 10 random draws of weights, input and g.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.block_layers import BLOCKS, init_params, stack_gradients
from lib.plotting import COLORS
from lib.publish import table, value

L, d_model, n_heads, d_ff, n_draws = 16, 32, 4, 128, 10
KINDS = ["post-norm", "pre-norm"]
COLOUR = {"post-norm": COLORS[3], "pre-norm": COLORS[0]}


# --8<-- [start:measure]
def measure(kind, n_layers, seed):
    """Norms of dLoss/dx_l at each block's input, and of the last block's dLoss/dW_2."""
    rng = np.random.default_rng(seed)
    layers = [init_params(rng, d_model, d_ff) for _ in range(n_layers)]
    x = rng.normal(size=(L, d_model))  # (L, d_model)
    g = rng.normal(size=(L, d_model))  # dLoss/d(output) of loss = sum(output * g)
    _, d_inputs, weight_grads = stack_gradients(x, layers, n_heads, g, kind)
    grad_x = [np.linalg.norm(d_x) for d_x in d_inputs]  # one per block, input side first
    grad_w2_last = np.linalg.norm(weight_grads[-1]["w_2"])
    return grad_x, grad_w2_last
# --8<-- [end:measure]


def residual_rms(kind, n_layers, seed):
    """Root-mean-square of the input of each block (the residual stream)."""
    rng = np.random.default_rng(seed)
    layers = [init_params(rng, d_model, d_ff) for _ in range(n_layers)]
    x = rng.normal(size=(L, d_model))
    rms = []
    for p in layers:
        rms.append(np.sqrt(np.mean(x**2)))
        x, _ = BLOCKS[kind][0](x, p, n_heads)
    return rms


def geometric_mean(values, axis=0):
    return np.exp(np.mean(np.log(values), axis=axis))


n_layers = 12
grad_x = {kind: geometric_mean([measure(kind, n_layers, s)[0] for s in range(n_draws)]) for kind in KINDS}  # (N,)
rms = {kind: np.mean([residual_rms(kind, n_layers, s) for s in range(n_draws)], axis=0) for kind in KINDS}  # (N,)
depths = [2, 4, 8, 16, 32]
grad_w2 = {kind: [geometric_mean([measure(kind, n, s)[1] for s in range(n_draws)]) for n in depths] for kind in KINDS}

layers_shown = [0, 3, 7, 11]
table(
    "per_block",
    ["block l", "post-norm: ‖dL/dx_l‖", "pre-norm: ‖dL/dx_l‖", "post-norm: RMS of x_l", "pre-norm: RMS of x_l"],
    [[layer + 1, grad_x["post-norm"][layer], grad_x["pre-norm"][layer], rms["post-norm"][layer], rms["pre-norm"][layer]]
     for layer in layers_shown],
    fmt="{:.2f}",
)
table(
    "last_block",
    ["blocks N", "post-norm: ‖dL/dW_2‖ of block N", "pre-norm: ‖dL/dW_2‖ of block N", "pre-norm × √N"],
    [[n, a, b, b * np.sqrt(n)] for n, a, b in zip(depths, grad_w2["post-norm"], grad_w2["pre-norm"])],
    fmt="{:.1f}",
)
value("n_layers", n_layers)
value("length", L)
value("d_model", d_model)
value("n_heads", n_heads)
value("d_ff", d_ff)
value("depth_min", depths[0])
value("depth_max", depths[-1])
value("n_draws", n_draws)
for kind, short in [("post-norm", "post"), ("pre-norm", "pre")]:
    value(f"{short}_first_over_last", grad_x[kind][0] / grad_x[kind][-1], "{:.2f}")
    value(f"{short}_w2_change", grad_w2[kind][-1] / grad_w2[kind][0], "{:.2f}")
    value(f"{short}_spread", max(grad_x[kind]) / min(grad_x[kind]), "{:.2f}")  # largest / smallest block
    value(f"{short}_monotone", bool(np.all(np.diff(grad_x[kind]) < 0)))  # falls from every block to the next
value("pre_rms_last", rms["pre-norm"][-1], "{:.1f}")
value("depth_ratio", depths[-1] // depths[0])
value("inverse_sqrt_depth_ratio", 1 / np.sqrt(depths[-1] / depths[0]), "{:.2f}")

fig, (ax1, ax2) = plt.subplots(1, 2, num="gradients", figsize=(10, 4.2), layout="constrained")
blocks = np.arange(1, n_layers + 1)
for kind in KINDS:
    ax1.plot(blocks, grad_x[kind], "o-", color=COLOUR[kind], label=kind)
    ax2.loglog(depths, grad_w2[kind], "o-", color=COLOUR[kind], label=kind)
reference = grad_w2["pre-norm"][0] * np.sqrt(depths[0] / np.array(depths))  # (5,): 1/sqrt(N) through the first point
ax2.loglog(depths, reference, ":", color=COLORS[7], label="∝ 1/√N")
ax1.set_ylim(bottom=0)
ax1.set_xticks(blocks)
ax1.set_xlabel("block l (1 = nearest the input)")
ax1.set_ylabel("‖dLoss/dx_l‖ at the block's input")
ax1.set_title(f"Gradient at each block, N = {n_layers} blocks")
ax2.set_xticks(depths, [str(n) for n in depths])
ax2.minorticks_off()
ax2.set_yticks([25, 50, 100, 200], ["25", "50", "100", "200"])
ax2.set_xlabel("number of blocks N")
ax2.set_ylabel("‖dLoss/dW_2‖ of the last block")
ax2.set_title("Last block's weight gradient vs depth")
for ax in (ax1, ax2):
    ax.legend(frameon=False)
plt.show()
