"""How many steps separate two words? RNN vs CNN vs self-attention.

A signal from the first word must reach the last word before a model can relate
the two. We write each layer type as a "reads-from" matrix A (A[t, s] is True
when output t reads input s directly), start a signal at the first position,
apply layer after layer, and count the steps until the last position is reached.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import scaled_dot_product_attention
from lib.plotting import COLORS
from lib.publish import table, value
from lib.running_example import SENTENCE, tokenize

tokens = tokenize(SENTENCE)
i_cat, i_mat = tokens.index("cat"), tokens.index("mat")
print("tokens:", tokens)
value("cat_mat_distance", i_mat - i_cat)
value("cat_mat_words_between", i_mat - i_cat - 1)
value("cat_mat_between", " ".join(tokens[i_cat + 1 : i_mat]))


# --8<-- [start:layers]
def recurrent_step(n):
    """h_t = f(h_{t-1}, x_t): position t reads positions t and t - 1."""
    t = np.arange(n)
    return (t[:, None] == t[None, :]) | (t[:, None] == t[None, :] + 1)  # (n, n)


def causal_conv(n, k, dilation=1):
    """Output t reads inputs t, t - dilation, ..., t - (k - 1) * dilation."""
    gap = np.arange(n)[:, None] - np.arange(n)[None, :]  # (n, n): t - s
    return (gap >= 0) & (gap % dilation == 0) & (gap // dilation < k)


def self_attention(n, rng):
    """Output t reads every input s that gets a nonzero softmax weight."""
    x = rng.normal(size=(n, 8))  # (n, d)
    _, weights = scaled_dot_product_attention(x, x, x)  # (n, n)
    return weights > 0


def steps_to_connect(n, layers):
    """Apply layers until the last of n positions depends on the first."""
    reach = np.arange(n) == 0  # (n,): the signal starts at the first word
    for step, a in enumerate(layers, start=1):
        reach = (a.astype(float) @ reach) > 0  # (n,): who depends on word 0
        if reach[-1]:
            return step
    raise ValueError("the stack is too shallow to connect the two ends")
# --8<-- [end:layers]


k = 3
rng = np.random.default_rng(0)


def all_steps(n):
    dilated = (causal_conv(n, k, dilation=min(k**layer, n)) for layer in range(n))
    return {
        "rnn": steps_to_connect(n, [recurrent_step(n)] * n),  # one layer, n steps
        "conv": steps_to_connect(n, [causal_conv(n, k)] * n),
        "dilated": steps_to_connect(n, dilated),  # gaps 1, k, k^2, ...
        "attention": steps_to_connect(n, [self_attention(n, rng)]),
    }


lengths = np.geomspace(2, 512, 16).astype(int)  # sequence lengths to measure
lengths = np.union1d(lengths, [len(tokens), 64])
measured = {n: all_steps(n) for n in lengths}

table(
    "path_steps",
    ["sequence length n", "RNN: recurrent steps", f"CNN, k = {k}: layers",
     f"dilated CNN, k = {k}: layers", "self-attention: layers"],
    [[n, *measured[n].values()] for n in (len(tokens), 64, 512)],
)
value("kernel", k)
value("rnn_512", measured[512]["rnn"])
value("contiguous_512", measured[512]["conv"])
value("dilated_512", measured[512]["dilated"])
value("attention_512", measured[512]["attention"])

fig, ax = plt.subplots(num="path-length", figsize=(6.4, 4.2))
styles = [
    ("rnn", COLORS[3], r"RNN: recurrent steps, $n - 1$"),
    ("conv", COLORS[1], rf"CNN, $k = {k}$: layers, about $n / (k - 1)$"),
    ("dilated", COLORS[2], rf"dilated CNN, $k = {k}$: layers, about $\log_k n$"),
    ("attention", COLORS[0], "self-attention: 1 layer"),
]
for key, colour, label in styles:
    steps = [measured[n][key] for n in lengths]
    ax.plot(lengths, steps, "o-", ms=3, color=colour, label=label)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("sequence length n (path from the first word to the last)")
ax.set_ylabel("steps on the path (log scale)")
ax.set_title("How many steps connect the first and the last word")
ax.legend(frameon=False, fontsize=8.5)
plt.show()
