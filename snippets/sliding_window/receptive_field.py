"""How far back an output can see through a stack of sliding-window layers, measured by changing one input at a time.

Each layer lets position i read positions i - window + 1 .. i of the layer below. We change input j and record
which outputs i change after 1, 2, ... layers: the set that changes is the receptive field, measured rather than
derived.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import multi_head_attention, sliding_window_mask
from lib.publish import table, value

length, d_model, n_heads, window, n_layers = 16, 8, 2, 3, 4
rng = np.random.default_rng(3)
layers = rng.normal(scale=d_model**-0.5, size=(n_layers, 4, d_model, d_model))  # per layer: W_q, W_k, W_v, W_o
x = rng.normal(size=(length, d_model))  # (L, d_model)
mask = sliding_window_mask(length, window)  # (L, L)


# --8<-- [start:stack]
def stack(x):
    """Every layer's output: a residual stack of sliding-window attention layers, [(L, d_model)] * n_layers."""
    outputs, h = [], x
    for w_q, w_k, w_v, w_o in layers:
        h = h + multi_head_attention(h, w_q, w_k, w_v, w_o, n_heads, mask)[0]  # (L, d_model)
        outputs.append(h)
    return outputs


before = stack(x)
changes = np.zeros((n_layers, length, length), dtype=bool)  # [layer, output i, input j]
for j in range(length):
    nudged = x.copy()
    nudged[j] += 1.0  # change input j only
    for layer, (old, new) in enumerate(zip(before, stack(nudged))):
        changes[layer, :, j] = np.any(old != new, axis=-1)  # (L,): which outputs moved
# --8<-- [end:stack]

reach = [int(max(i - j for i, j in zip(*np.nonzero(c)))) for c in changes]  # farthest input that moved an output
last = length - 1
rows = [[layer + 1, int(changes[layer, last].sum()), reach[layer], (layer + 1) * (window - 1)]
        for layer in range(n_layers)]
table("reach", ["layers", "inputs that change the last output", "farthest input back", "layers x (window - 1)"], rows)
value("window", window)
value("length", length)
value("n_layers", n_layers)
reach_exact = all(r == (i + 1) * (window - 1) for i, r in enumerate(reach))
value("reach_is_layers_times_window_minus_one", reach_exact, zh="是" if reach_exact else "否")
causal = bool(not np.any(np.triu(changes, k=1)))
value("never_a_future_input", causal, zh="是" if causal else "否")
value("last_layer_reach", reach[-1])

fig, axes = plt.subplots(1, n_layers, num="reach", figsize=(12, 3.6), layout="constrained")
for layer, ax in enumerate(axes):
    ax.imshow(changes[layer], cmap="cividis", vmin=0, vmax=1)
    ax.set_title(f"after {layer + 1} layers")
    ax.set_xlabel("input position j")
    ax.set_xticks(range(0, length, 3))
    ax.set_yticks(range(0, length, 3))
axes[0].set_ylabel("output position i")
fig.suptitle(f"Which inputs change an output (yellow), window = {window}")
plt.show()
