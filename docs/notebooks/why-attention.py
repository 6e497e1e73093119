# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Why attention
#
# The runnable companion of the chapter *Why attention*: every snippet of the chapter, in reading order. The first cells load the site's helper modules (`attention.py`, `plotting.py`, `publish.py`, `running_example.py`) from their text, so this notebook runs anywhere with NumPy and matplotlib. The web page hides those cells; the downloaded notebook has them.

# %%
import sys
import types


def load_module(name, source):
    """Make `import name` work for a module given as text."""
    module = types.ModuleType(name)
    exec(compile(source, f"{name}.py", "exec"), module.__dict__)
    sys.modules[name] = module


# %% tags=["module-source"]
load_module("attention", r'''"""Self-attention in NumPy, written to read like the math.

Every snippet on the site imports this module instead of re-implementing it.
All arrays are float64. Masks are boolean and follow the convention of the
boolean ``attn_mask`` of PyTorch's ``scaled_dot_product_attention``:
**True means "may attend"**, False means "masked out".

Shapes use these letters: B batch, h heads, L (Lq, Lk) sequence lengths,
d_model model width, d_k key/query width, d_v value width, d_head = d_model / h.
"""

import numpy as np


def softmax(x, axis=-1):
    """Numerically stable softmax along ``axis``.

    Subtracting the maximum keeps ``exp`` from overflowing, so logits up to
    +-1e300 stay finite. ``-inf`` entries get weight 0, and a slice that is all
    ``-inf`` (every key masked) gives zeros instead of NaN.
    """
    x = np.asarray(x, dtype=np.float64)
    peak = np.max(x, axis=axis, keepdims=True)
    finite_peak = np.where(np.isfinite(peak), peak, 0.0)  # all -inf: keep exp(-inf) = 0
    with np.errstate(over="ignore", invalid="ignore"):  # -1e308 - 1e308 = -inf: exp gives 0
        e = np.exp(x - finite_peak)
    e = np.where(np.isposinf(peak), np.isposinf(x), e)  # +inf logits share all the weight
    total = np.sum(e, axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def _check_mask(mask, shape):
    """Validate a boolean mask that must broadcast to ``shape`` without growing it."""
    mask = np.asarray(mask)
    if mask.dtype != np.bool_:
        raise ValueError(
            f"mask must be boolean (True = may attend), got dtype {mask.dtype} "
            f"with shape {mask.shape}"
        )
    try:
        grown = np.broadcast_shapes(mask.shape, shape)
    except ValueError:
        grown = None
    if grown != tuple(shape):
        raise ValueError(f"mask of shape {mask.shape} does not broadcast to the scores' shape {tuple(shape)}")
    return mask


def _check_qkv(q, k, v):
    if q.ndim < 2 or k.ndim < 2 or v.ndim < 2:
        raise ValueError(
            f"q, k, v need at least 2 dimensions (..., L, d); got q {q.shape}, k {k.shape}, v {v.shape}"
        )
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must share the last dimension d_k; got q {q.shape}, k {k.shape}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"k and v must have the same number of positions Lk; got k {k.shape}, v {v.shape}")
    try:
        np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ValueError(
            f"batch dimensions of q {q.shape}, k {k.shape}, v {v.shape} do not broadcast"
        ) from None


def attention_scores(q, k):
    """Scaled scores q k^T / sqrt(d_k): (..., Lq, d_k), (..., Lk, d_k) -> (..., Lq, Lk)."""
    d_k = q.shape[-1]
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)  # (..., Lq, Lk)


def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(q k^T / sqrt(d_k)) v, with an optional boolean mask (True = may attend).

    q (..., Lq, d_k), k (..., Lk, d_k), v (..., Lk, d_v) -> output (..., Lq, d_v),
    weights (..., Lq, Lk). A query whose keys are all masked gets zero weights and
    a zero output row.
    """
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    _check_qkv(q, k, v)
    scores = attention_scores(q, k)  # (..., Lq, Lk)
    if mask is not None:
        mask = _check_mask(mask, scores.shape)
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)  # (..., Lq, Lk), rows sum to 1 (or 0)
    output = weights @ v  # (..., Lq, d_v)
    return output, weights


def _unbroadcast(grad, shape):
    """Sum ``grad`` over the axes that broadcasting added or stretched to reach it from ``shape``."""
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


def softmax_backward(d_weights, weights):
    """Vector-Jacobian product of softmax along the last axis.

    For y = softmax(s), dL/ds = y * (dL/dy - sum(dL/dy * y)).
    """
    return weights * (d_weights - np.sum(d_weights * weights, axis=-1, keepdims=True))


def scaled_dot_product_attention_backward(d_output, q, k, v, mask=None):
    """Gradients (dq, dk, dv) of a loss through ``scaled_dot_product_attention``.

    ``d_output`` is dLoss/d(output), shape (..., Lq, d_v). Same shapes and mask
    convention as the forward pass; each gradient has the shape of its input.
    """
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    _, weights = scaled_dot_product_attention(q, k, v, mask)  # (..., Lq, Lk)
    d_output = np.asarray(d_output, dtype=np.float64)
    expected = np.broadcast_shapes(weights.shape[:-2], v.shape[:-2]) + weights.shape[-2:-1] + v.shape[-1:]
    if d_output.shape != expected:
        raise ValueError(f"d_output has shape {d_output.shape}, the output has shape {expected}")
    d_v = np.swapaxes(weights, -1, -2) @ d_output  # (..., Lk, d_v): path through the weighted sum
    d_weights = d_output @ np.swapaxes(v, -1, -2)  # (..., Lq, Lk)
    d_scores = softmax_backward(d_weights, weights) / np.sqrt(q.shape[-1])  # masked entries stay 0
    d_q = d_scores @ k  # (..., Lq, d_k): path through the weights
    d_k = np.swapaxes(d_scores, -1, -2) @ q  # (..., Lk, d_k)
    return _unbroadcast(d_q, q.shape), _unbroadcast(d_k, k.shape), _unbroadcast(d_v, v.shape)


def causal_mask(n):
    """(n, n) boolean mask, True on and below the diagonal: position i may attend to j <= i."""
    if int(n) != n or n < 1:
        raise ValueError(f"causal_mask needs a positive whole number of positions, got {n!r}")
    return np.tril(np.ones((int(n), int(n)), dtype=bool))


def padding_mask(lengths, n):
    """(B, 1, n) boolean mask, False for key positions >= lengths[b] (padding)."""
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or not np.issubdtype(lengths.dtype, np.integer):
        raise ValueError(f"lengths must be a 1-D array of integers, got shape {lengths.shape}, dtype {lengths.dtype}")
    if np.any(lengths < 0) or np.any(lengths > n):
        raise ValueError(f"every length must lie in [0, {n}], got {lengths.tolist()}")
    positions = np.arange(n)  # (n,)
    return (positions[None, :] < lengths[:, None])[:, None, :]  # (B, 1, n)


def sinusoidal_positions(n_positions, d_model):
    """Sinusoidal encodings of "Attention Is All You Need", section 3.5.

    PE[p, 2i] = sin(p / 10000^(2i / d_model)), PE[p, 2i+1] = cos(p / 10000^(2i / d_model)).
    """
    if d_model % 2:
        raise ValueError(f"d_model must be even to pair sines with cosines, got {d_model}")
    positions = np.arange(n_positions)[:, None]  # (P, 1)
    two_i = np.arange(0, d_model, 2)[None, :]  # (1, d_model / 2)
    angles = positions / 10000.0 ** (two_i / d_model)  # (P, d_model / 2)
    pe = np.empty((n_positions, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe


def split_heads(x, n_heads):
    """(..., L, d_model) -> (..., n_heads, L, d_model // n_heads)."""
    x = np.asarray(x)
    if x.ndim < 2:
        raise ValueError(f"split_heads needs (..., L, d_model), got shape {x.shape}")
    *batch, length, d_model = x.shape
    if n_heads < 1 or d_model % n_heads:
        raise ValueError(f"d_model = {d_model} (x of shape {x.shape}) is not divisible by n_heads = {n_heads}")
    d_head = d_model // n_heads
    x = x.reshape(*batch, length, n_heads, d_head)  # (..., L, h, d_head)
    return np.swapaxes(x, -2, -3)  # (..., h, L, d_head)


def merge_heads(x):
    """(..., n_heads, L, d_head) -> (..., L, n_heads * d_head); the inverse of split_heads."""
    x = np.asarray(x)
    if x.ndim < 3:
        raise ValueError(f"merge_heads needs (..., n_heads, L, d_head), got shape {x.shape}")
    *batch, n_heads, length, d_head = x.shape
    x = np.swapaxes(x, -2, -3)  # (..., L, h, d_head)
    return x.reshape(*batch, length, n_heads * d_head)  # (..., L, d_model)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, mask=None):
    """Multi-head self-attention: heads attend separately, then W_o mixes them.

    x (..., L, d_model); w_q, w_k, w_v, w_o (d_model, d_model), applied as x @ w.
    mask: boolean, broadcastable to (..., L, L), shared by every head.
    Returns output (..., L, d_model) and weights (..., n_heads, L, L).
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim < 2:
        raise ValueError(f"x must be (..., L, d_model), got shape {x.shape}")
    *batch, length, d_model = x.shape
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v), ("w_o", w_o)):
        if np.shape(w) != (d_model, d_model):
            raise ValueError(f"{name} must be ({d_model}, {d_model}) for x of shape {x.shape}, got {np.shape(w)}")
    if n_heads < 1 or d_model % n_heads:
        raise ValueError(f"d_model = {d_model} (x of shape {x.shape}) is not divisible by n_heads = {n_heads}")
    if mask is not None:
        scores_shape = (*batch, length, length)
        mask = np.broadcast_to(_check_mask(mask, scores_shape), scores_shape)
        mask = mask[..., None, :, :]  # (..., 1, L, L): the same mask for every head
    q = split_heads(x @ w_q, n_heads)  # (..., h, L, d_head)
    k = split_heads(x @ w_k, n_heads)  # (..., h, L, d_head)
    v = split_heads(x @ w_v, n_heads)  # (..., h, L, d_head)
    heads, weights = scaled_dot_product_attention(q, k, v, mask)  # (..., h, L, d_head), (..., h, L, L)
    output = merge_heads(heads) @ w_o  # (..., L, d_model)
    return output, weights
''')

# %% tags=["module-source"]
load_module("plotting", r'''"""The site's look for figures: one style, and one heatmap for attention weights.

Weights live in [0, 1], so every weights heatmap uses the same fixed colour scale
(vmin=0, vmax=1) and the colour-blind-safe sequential colormap viridis.
"""

import matplotlib.pyplot as plt
import numpy as np

# Okabe-Ito: a palette that stays distinct under the common colour-vision deficiencies.
COLORS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]

plt.rcParams.update(
    {
        "figure.figsize": (6.4, 4.0),
        "figure.facecolor": "white",
        "axes.facecolor": "white",
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": False,
        "axes.prop_cycle": plt.cycler(color=COLORS),
        "font.size": 10,
        "image.cmap": "viridis",
        "savefig.bbox": "tight",
    }
)


def weights_heatmap(ax, weights, queries, keys, annotate=True, title=None):
    """Draw attention weights (rows = queries, columns = keys) on a fixed 0-1 scale."""
    weights = np.asarray(weights)
    if weights.shape != (len(queries), len(keys)):
        raise ValueError(f"weights {weights.shape} do not match {len(queries)} queries x {len(keys)} keys")
    image = ax.imshow(weights, cmap="viridis", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(keys)), keys, rotation=45, ha="right")
    ax.set_yticks(range(len(queries)), queries)
    ax.set_xlabel("key (attended to)")
    ax.set_ylabel("query (attending)")
    ax.spines[:].set_visible(False)
    if title:
        ax.set_title(title)
    if annotate:
        for i, j in np.ndindex(weights.shape):
            colour = "black" if weights[i, j] > 0.6 else "white"  # readable on viridis' light and dark ends
            ax.text(j, i, f"{weights[i, j]:.2f}", ha="center", va="center", fontsize=7, color=colour)
    return image
''')

# %% tags=["module-source"]
load_module("publish", r'''"""Named values and tables that a snippet shares with the site's prose.

A snippet calls ``value("name", x)`` or ``table("name", header, rows)``. Run
alone, both just print. The site's build reads ``VALUES`` and ``TABLES`` after
the snippet ends: chapters quote a value as ``{{ snippet_name.value_name }}``
and include a table as a real Markdown table.
"""

import re

VALUES = {}
TABLES = {}

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


def _check_name(name):
    if not _NAME.match(name):
        raise ValueError(f"name {name!r} must be lower_snake_case (letters, digits, _)")


def _plain(x):
    """NumPy scalars and arrays -> plain Python numbers and lists (JSON-ready)."""
    return x.tolist() if hasattr(x, "tolist") else x


def value(name, x, fmt="{}"):
    """Publish ``x`` under ``name``; prose shows it formatted with ``fmt``. Returns ``x``.

    Publishing a name again replaces it, so a notebook cell can be run twice.
    """
    _check_name(name)
    text = fmt.format(x)
    VALUES[name] = {"value": _plain(x), "text": text}
    print(f"{name} = {text}")
    return x


def _cell(x, fmt):
    return fmt.format(x) if isinstance(x, float) or hasattr(x, "dtype") else str(x)


def table(name, header, rows, fmt="{:.4g}"):
    """Publish a table: ``header`` is a list of column titles, ``rows`` a list of lists.

    Numbers are formatted with ``fmt``; anything else is shown with ``str``.
    """
    _check_name(name)
    header = [str(h) for h in header]
    cells = [[_cell(x, fmt) for x in row] for row in rows]
    for row in cells:
        if len(row) != len(header):
            raise ValueError(f"table {name!r}: row {row} has {len(row)} cells, the header has {len(header)}")
    TABLES[name] = {"header": header, "rows": cells}
    widths = [max(len(r[i]) for r in [header, *cells]) for i in range(len(header))]
    for row in [header, ["-" * w for w in widths], *cells]:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths)))
''')

# %% tags=["module-source"]
load_module("running_example", r'''"""The running example: one sentence, followed through every chapter.

Tokens come from a tiny word-level tokenizer; vectors from a seeded random
embedding table, so every chapter sees the same numbers.
"""

import re

import numpy as np

SENTENCE = "The cat sat on the mat."
D_MODEL = 8


def tokenize(text):
    """Split into words and punctuation: "The cat sat." -> ["The", "cat", "sat", "."]."""
    return re.findall(r"\w+|[^\w\s]", text)


def build_vocab(tokens):
    """Map each distinct lower-cased token to an id, in sorted order."""
    return {word: i for i, word in enumerate(sorted({t.lower() for t in tokens}))}


def embedding_table(vocab_size, d_model=D_MODEL, seed=0):
    """(vocab_size, d_model) table with entries drawn from N(0, 1)."""
    return np.random.default_rng(seed).normal(size=(vocab_size, d_model))


def embed(tokens, d_model=D_MODEL, seed=0):
    """Look up each token's row: (L,) tokens -> (L, d_model) vectors."""
    vocab = build_vocab(tokens)
    table = embedding_table(len(vocab), d_model, seed)
    ids = np.array([vocab[t.lower()] for t in tokens])  # (L,)
    return table[ids]  # (L, d_model)


def projection_weights(d_model=D_MODEL, d_k=D_MODEL, seed=1):
    """W_q, W_k, W_v of shape (d_model, d_k), entries N(0, 1/d_model): unit-variance q, k, v."""
    rng = np.random.default_rng(seed)
    return tuple(rng.normal(scale=1 / np.sqrt(d_model), size=(d_model, d_k)) for _ in range(3))
''')

# %% [markdown]
# ## How many steps separate two words? RNN vs CNN vs self-attention.
#
# *From `snippets/why_path_length.py`.*
#
# A signal from the first word must reach the last word before a model can relate
# the two. We write each layer type as a "reads-from" matrix A (A[t, s] is True
# when output t reads input s directly), start a signal at the first position,
# apply layer after layer, and count the steps until the last position is reached.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import scaled_dot_product_attention
from plotting import COLORS
from publish import table, value
from running_example import SENTENCE, tokenize

tokens = tokenize(SENTENCE)
i_cat, i_mat = tokens.index("cat"), tokens.index("mat")
print("tokens:", tokens)
value("cat_mat_distance", i_mat - i_cat)
value("cat_mat_words_between", i_mat - i_cat - 1)
value("cat_mat_between", " ".join(tokens[i_cat + 1 : i_mat]))


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

# %% [markdown]
# ## How much does the last state feel an early word? A tanh RNN vs one attention layer.
#
# *From `snippets/why_rnn_gradient.py`.*
#
# A recurrent layer computes h_t = tanh(W h_{t-1} + U x_t). The gradient of the
# last state h_T with respect to an early input x_t is a product of T - t
# Jacobians, one per step, so it shrinks (or blows up) geometrically with the
# distance. One self-attention layer reads x_t directly: its output at the last
# position depends on x_t through one weighted sum, whatever the distance.
# We measure the norm of both Jacobians on random, untrained weights.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import scaled_dot_product_attention_backward
from plotting import COLORS
from publish import table, value
from running_example import projection_weights

L, d, n_draws = 50, 16, 20  # sequence length, width, random networks per curve


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
value("crossing", int(np.argmax(typical[1.0] < far.min())))

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
