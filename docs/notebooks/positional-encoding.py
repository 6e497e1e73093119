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
# # Positional encoding
#
# The runnable companion of the chapter *Positional encoding*: every snippet of the chapter, in reading order. The first cells load the site's helper modules (`attention.py`, `plotting.py`, `publish.py`, `running_example.py`) from their text, so this notebook runs anywhere with NumPy and matplotlib. The web page hides those cells; the downloaded notebook has them.

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
# ## The sinusoidal positional encoding, computed two ways and drawn as a heatmap.
#
# *From `snippets/pe_heatmap.py`.*
#
# Each position p gets a vector of d_model numbers: pairs of dimensions (2i, 2i+1)
# hold sin and cos of p times a frequency that falls with i. We compute it with a
# double loop straight from the formula, compare with the core module, draw the
# first 64 positions at d_model = 128, and add the encodings of the running
# sentence to its embeddings: "The" (position 0) and "the" (position 4) share an
# embedding but no longer share an input vector.

# %%
import math

import matplotlib.pyplot as plt
import numpy as np

import plotting  # noqa: F401  (the site's figure style)
from attention import sinusoidal_positions
from publish import value
from running_example import D_MODEL, SENTENCE, embed, tokenize

np.set_printoptions(precision=3, suppress=True)


def pe_loop(n_positions, d_model):
    """PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(p / 10000^(2i/d))."""
    pe = np.zeros((n_positions, d_model))
    for p in range(n_positions):
        for i in range(d_model // 2):
            angle = p / 10000 ** (2 * i / d_model)
            pe[p, 2 * i] = math.sin(angle)
            pe[p, 2 * i + 1] = math.cos(angle)
    return pe


n_positions, d_big = 64, 128
pe = sinusoidal_positions(n_positions, d_big)  # (64, 128)
value("loop_max_error", np.max(np.abs(pe - pe_loop(n_positions, d_big))), "{:.1e}")
value("heat_positions", n_positions)
value("heat_d_model", d_big)

tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model): "The" and "the" share a row
pe_small = sinusoidal_positions(len(tokens), D_MODEL)  # (L, d_model)
x_in = x + pe_small  # (L, d_model): what the first layer sees
print("PE for the running sentence, one row per position:\n", pe_small)
i_the, i_the2 = tokens.index("The"), tokens.index("the")
emb_gap = np.max(np.abs(x[i_the] - x[i_the2]))
value("the_embedding_difference", emb_gap, "{:g}")
value("the_input_difference", np.linalg.norm(x_in[i_the] - x_in[i_the2]), "{:.3f}")
pe_gap = np.linalg.norm(pe_small[i_the] - pe_small[i_the2])
value("the_pe_difference", pe_gap, "{:.3f}")

fig, ax = plt.subplots(num="pe-heatmap", figsize=(7.0, 4.2))
image = ax.imshow(pe, cmap="PuOr", vmin=-1, vmax=1, aspect="auto")
ax.set_xlabel("dimension (pairs 2i, 2i+1: sin, cos)")
ax.set_ylabel("position p")
ax.set_title(f"Sinusoidal positional encoding, d_model = {d_big}")
ax.spines[:].set_visible(False)
fig.colorbar(image, ax=ax, label="PE[p, dimension]")

fig, ax = plt.subplots(num="pe-sentence", figsize=(5.0, 3.4))
image = ax.imshow(pe_small, cmap="PuOr", vmin=-1, vmax=1)
ax.set_yticks(range(len(tokens)), [f"{p}: {t}" for p, t in enumerate(tokens)])
ax.set_xticks(range(D_MODEL))
ax.set_xlabel("dimension")
ax.set_ylabel("position: token")
ax.set_title(f"PE for the running sentence, d_model = {D_MODEL}")
ax.spines[:].set_visible(False)
for p, dim in np.ndindex(pe_small.shape):
    entry = pe_small[p, dim]
    colour = "white" if abs(entry) > 0.6 else "black"  # readable on both ends
    ax.text(dim, p, f"{entry:.2f}", ha="center", va="center", fontsize=7,
            color=colour)
fig.colorbar(image, ax=ax, label="PE value")
plt.show()

# %% [markdown]
# ## Which dimensions of the positional encoding vary fast, and which slowly?
#
# *From `snippets/pe_wavelengths.py`.*
#
# Pair i (dimensions 2i and 2i+1) turns at the angular frequency
# w_i = 1 / 10000^(2i / d_model) radians per position, so its wavelength is
# 2 pi / w_i positions. Small i means a short wavelength: a fast-changing
# dimension. We compute the wavelengths, measure the periods from the encoding
# itself, and measure how much each dimension changes from one position to the next.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import sinusoidal_positions
from plotting import COLORS
from publish import table, value
from running_example import D_MODEL

np.set_printoptions(precision=3, suppress=True)

d_model = 512  # the paper's base model
two_i = np.arange(0, d_model, 2)  # (d_model / 2,): first dimension of each pair
omega = 1 / 10000 ** (two_i / d_model)  # (d_model / 2,): radians per position
wavelength = 2 * np.pi / omega  # (d_model / 2,): positions per full turn

value("d_model", d_model)
value("shortest", wavelength[0], "{:.3f}")
value("longest", wavelength[-1], "{:,.0f}")
value("paper_upper", 10000 * 2 * np.pi, "{:,.0f}")
value("ratio_step", wavelength[1] / wavelength[0], "{:.4f}")


def measured_period(column):
    """Mean gap between the positions where a sine column turns positive."""
    ups = np.flatnonzero((column[:-1] < 0) & (column[1:] >= 0))
    return np.diff(ups).mean() if len(ups) > 1 else np.nan


pe = sinusoidal_positions(4096, d_model)  # (P, d_model)
step_change = np.abs(np.diff(pe, axis=0)).mean(axis=0)  # (d_model,)

rows = []
for dim in (0, 2, 16, 64, 128, 256, 510):
    period = measured_period(pe[:, dim])
    seen = np.isfinite(period)
    shown = f"{period:.4g}" if seen else f"over {len(pe):,} (not seen)"
    rows.append([dim, wavelength[dim // 2], shown, step_change[dim]])
table(
    "periods",
    ["dimension 2i", "wavelength 2π/ω (positions)", "measured period (positions)",
     "mean |change| per position"],
    rows,
)
value("period_dim0_measured", measured_period(pe[:, 0]), "{:.3f}")
value("change_dim0", step_change[0], "{:.3f}")
value("change_dim510", step_change[510], "{:.1e}")

# The same for the running example's d_model = 8
small = sinusoidal_positions(7, D_MODEL)  # (L, 8)
change_small = np.abs(np.diff(small, axis=0)).mean(axis=0)  # (8,)
print("running example, mean |change| per position, by dimension:")
print(change_small)
value("small_change_dim0", change_small[0], "{:.3f}")
value("small_change_dim6", change_small[6], "{:.1e}")

fig, (ax0, ax1) = plt.subplots(1, 2, num="wavelengths", figsize=(10.0, 3.9))
ax0.plot(two_i, wavelength, color=COLORS[0])
bounds = ((2 * np.pi, "2π", 1.3), (10000 * 2 * np.pi, "10000 · 2π", 0.45))
for level, text, shift in bounds:
    ax0.axhline(level, color="grey", ls=":", lw=1)
    ax0.text(d_model * 0.6, level * shift, text, color="grey")
ax0.set_yscale("log")
ax0.set_xlabel("dimension 2i (first member of each sin/cos pair)")
ax0.set_ylabel("wavelength in positions (log scale)")
ax0.set_title(f"Wavelength of each pair, d_model = {d_model}")
positions = np.arange(0, 61)
for dim, colour in zip((0, 64, 128, 256), COLORS):
    ax1.plot(positions, pe[positions, dim], color=colour, label=f"dimension {dim}")
ax1.set_ylim(-1.15, 1.6)
ax1.set_xlabel("position p")
ax1.set_ylabel("PE[p, dimension]")
ax1.set_title("Low dimensions turn fast, high ones barely move")
ax1.legend(frameon=False, fontsize=8, loc="upper center", ncol=2)
plt.show()

# %% [markdown]
# ## Relative positions in the encoding: one rotation, and dot products of p - q.
#
# *From `snippets/pe_relative.py`.*
#
# For each pair (sin(w p), cos(w p)), moving k positions ahead is a rotation by the
# angle w k, whatever p is. Stacking the 2x2 rotations gives one fixed matrix M_k
# with PE(p + k) = M_k PE(p) for every p: the linear map the paper mentions.
# A consequence: PE(p) . PE(q) = sum_i cos(w_i (p - q)) depends on p - q only.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import sinusoidal_positions
from plotting import COLORS
from publish import value

np.set_printoptions(precision=3, suppress=True)

d_model, n_positions = 16, 64
pe = sinusoidal_positions(n_positions, d_model)  # (P, d_model)
omega = 1 / 10000 ** (np.arange(0, d_model, 2) / d_model)  # (d_model / 2,)


def shift_matrix(k):
    """Block-diagonal M_k: a 2x2 rotation by omega_i * k for every pair i."""
    m = np.zeros((d_model, d_model))
    for i, w in enumerate(omega):
        c, s = np.cos(w * k), np.sin(w * k)
        # sin(a+b) = sin a cos b + cos a sin b
        # cos(a+b) = cos a cos b - sin a sin b
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, s], [-s, c]]
    return m


errors = []
for k in range(1, 33):
    m_k = shift_matrix(k)  # one matrix for every position p
    predicted = pe[: n_positions - k] @ m_k.T  # (P - k, d_model): M_k PE(p)
    errors.append(np.max(np.abs(predicted - pe[k:])))  # against PE(p + k)
value("rotation_max_error", max(errors), "{:.1e}")
value("rotation_offsets", "1 to 32")
m_5 = shift_matrix(5)
orthogonal = np.max(np.abs(m_5.T @ m_5 - np.eye(d_model)))
value("rotation_orthogonal_error", orthogonal, "{:.1e}")
print("M_5, top-left 4x4 corner (two rotation blocks):")
print(m_5[:4, :4])

dots = pe @ pe.T  # (P, P): PE(p) . PE(q)
positions = np.arange(n_positions)
offset = positions[:, None] - positions[None, :]  # (P, P): p - q
offsets = np.arange(-(n_positions - 1), n_positions)  # every possible p - q
spread = max(np.ptp(dots[offset == o]) for o in offsets)  # same offset, same dot
formula = np.cos(np.outer(offsets, omega)).sum(-1)  # sum_i cos(omega_i (p - q))
value("dot_spread", spread, "{:.1e}")
formula_error = np.max(np.abs(dots - formula[offset + n_positions - 1]))
value("dot_formula_error", formula_error, "{:.1e}")
value("norm_squared", dots[0, 0], "{:.1f}")
value("pe_d_model", d_model)
value("pe_positions", n_positions)
by_offset = dots[:, 0]  # (P,): PE(o) . PE(0) for offsets o = 0, 1, ...
step = np.diff(by_offset)  # (P - 1,)
valley = int(np.argmax(step > 0))  # first offset after which the dot grows again
peak = valley + 1 + int(np.argmax(step[valley + 1 :] < 0))  # where it falls again
value("valley_offset", valley)
value("valley_dot", by_offset[valley], "{:.2f}")
value("peak_offset", peak)
value("peak_dot", by_offset[peak], "{:.2f}")

fig, (ax0, ax1) = plt.subplots(
    1, 2, num="dot-products", figsize=(10.0, 4.0), width_ratios=[1, 1.4]
)
image = ax0.imshow(dots, cmap="cividis")
ax0.set_xlabel("position q")
ax0.set_ylabel("position p")
ax0.set_title("PE(p) · PE(q)")
ax0.spines[:].set_visible(False)
fig.colorbar(image, ax=ax0, label="dot product", shrink=0.85)
ax1.plot(offset.ravel(), dots.ravel(), "o", ms=3, alpha=0.25, color=COLORS[0],
         label="every pair (p, q)")
ax1.plot(offsets, formula, color=COLORS[3], lw=1,
         label=r"$\sum_i \cos(\omega_i (p - q))$")
ax1.set_xlabel("offset p − q")
ax1.set_ylabel("PE(p) · PE(q)")
ax1.set_title(f"All {n_positions * n_positions} pairs (p, q) against p − q")
ax1.legend(frameon=False, fontsize=8, loc="lower center")
plt.show()

# %% [markdown]
# ## Adding the encoding vs concatenating it: what the first projection sees.
#
# *From `snippets/pe_add_vs_concat.py`.*
#
# Attention never uses its input directly; it first multiplies by W_q, W_k, W_v.
# Concatenating [x, PE] and projecting with a (2 d_model, d_k) matrix equals
# x @ W_top + PE @ W_bottom: two separate projections, added. Adding x + PE is the
# special case W_top = W_bottom, at half the parameters and the same width.
# Either way the scores split into four terms: content-content, content-position,
# position-content and position-position.

# %%
import matplotlib.pyplot as plt
import numpy as np

import plotting  # noqa: F401  (the site's figure style)
from attention import attention_scores, sinusoidal_positions
from publish import table, value
from running_example import D_MODEL, SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
pe = sinusoidal_positions(len(tokens), D_MODEL)  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # (d_model, d_k) each

rng = np.random.default_rng(3)
w_wide = rng.normal(scale=(2 * D_MODEL) ** -0.5, size=(2 * D_MODEL, D_MODEL))
x_cat = np.concatenate([x, pe], axis=-1)  # (L, 2 d_model)
q_concat = x_cat @ w_wide  # (L, d_k)
q_split = x @ w_wide[:D_MODEL] + pe @ w_wide[D_MODEL:]  # two projections, added
q_tied = x_cat @ np.vstack([w_q, w_q])  # W_top = W_bottom = W_q
q_added = (x + pe) @ w_q  # (L, d_k)
value("concat_split_error", np.max(np.abs(q_concat - q_split)), "{:.1e}")
value("tied_add_error", np.max(np.abs(q_tied - q_added)), "{:.1e}")

scores = attention_scores((x + pe) @ w_q, (x + pe) @ w_k)  # (L, L)
terms = {
    "content → content": attention_scores(x @ w_q, x @ w_k),
    "content → position": attention_scores(x @ w_q, pe @ w_k),
    "position → content": attention_scores(pe @ w_q, x @ w_k),
    "position → position": attention_scores(pe @ w_q, pe @ w_k),
}
four_term_error = np.max(np.abs(scores - sum(terms.values())))
value("four_term_error", four_term_error, "{:.1e}")
for name, term in terms.items():
    print(f"{name:20s} mean |term| = {np.abs(term).mean():.3f}")


def n_params(d_in):
    """Entries of W_q, W_k and W_v, each of shape (d_in, d_k)."""
    return 3 * d_in * D_MODEL


table(
    "cost",
    ["input to the projections", "width", "parameters in W_q, W_k, W_v"],
    [["x + PE (added)", D_MODEL, n_params(D_MODEL)],
     ["[x, PE] (concatenated)", 2 * D_MODEL, n_params(2 * D_MODEL)]],
)

fig, axes = plt.subplots(2, 2, num="score-terms", figsize=(7.8, 7.2), layout="constrained")
limit = max(np.abs(t).max() for t in terms.values())
for number, (ax, (name, term)) in enumerate(zip(axes.ravel(), terms.items())):
    image = ax.imshow(term, cmap="PuOr", vmin=-limit, vmax=limit)
    ax.set_xticks(range(len(tokens)), tokens, rotation=45, ha="right")
    ax.set_yticks(range(len(tokens)), tokens)
    ax.set_title(name)
    ax.set_xlabel("key")
    if number % 2 == 0:  # left column only
        ax.set_ylabel("query")
    ax.spines[:].set_visible(False)
fig.colorbar(image, ax=axes, label="term of the scaled score", shrink=0.7)
plt.show()

# %% [markdown]
# ## How big are the encodings next to the embeddings? And what do real models add?
#
# *From `snippets/pe_scale.py`.*
#
# Every (sin, cos) pair has sin^2 + cos^2 = 1, so each encoding has norm
# sqrt(d_model / 2) at every position and no entry exceeds 1. We measure that,
# check a popular "fix" (divide the encoding by its largest entry), and build the
# input of the first layer the way three models do it: the original Transformer
# (embeddings times sqrt(d_model) plus sinusoids, then dropout), BERT (token +
# segment + learned position embeddings, then LayerNorm) and GPT-2 (token + learned
# position embeddings, nothing else). Tables are random, at their initial scale.

# %%
import numpy as np

from attention import sinusoidal_positions
from publish import table, value
from running_example import D_MODEL, SENTENCE, embed, tokenize

np.set_printoptions(precision=3, suppress=True)


def norm(a):
    """One Euclidean norm per row."""
    return np.linalg.norm(a, axis=-1)


tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, 8): N(0, 1) entries
pe = sinusoidal_positions(len(tokens), D_MODEL)  # (L, 8)
print("running example, row norms by position")
print("  embedding x:             ", norm(x))
print("  embedding x * sqrt(d):   ", norm(x * np.sqrt(D_MODEL)))
print("  positional encoding PE:  ", norm(pe))
value("pe_norm", norm(pe).mean(), "{:.3f}")
value("pe_norm_spread", np.ptp(norm(pe)), "{:.1e}")
value("x_norm_mean", norm(x).mean(), "{:.2f}")
value("x_scaled_norm_mean", norm(x * np.sqrt(D_MODEL)).mean(), "{:.2f}")

pe_long = sinusoidal_positions(512, 512)  # (P, d_model)
peak = np.max(np.abs(pe_long))  # position 0 holds cos(0) = 1
pe_fixed = pe_long / peak  # the proposed normalisation
value("pe_peak", peak, "{:.1f}")
value("fix_max_change", np.max(np.abs(pe_fixed - pe_long)), "{:g}")
value("pe_rms", np.sqrt(np.mean(pe_long**2)), "{:.4f}")


def layer_norm(a, eps=1e-12):
    """Each row to mean 0, variance 1 (gain 1 and bias 0, their initial values)."""
    centred = a - a.mean(-1, keepdims=True)
    return centred / np.sqrt(a.var(-1, keepdims=True) + eps)


def dropout(a, p, rng, training):
    """Training: zero entries with probability p, scale the rest by 1/(1-p)."""
    return a * (rng.random(a.shape) >= p) / (1 - p) if training else a


def transformer_input(ids, emb, d_model, rng, training=False, p_drop=0.1):
    """Attention Is All You Need, sections 3.4, 3.5 and 5.4."""
    tok = emb[ids] * np.sqrt(d_model)  # (L, d_model): scaled embeddings
    pos = sinusoidal_positions(len(ids), d_model)  # (L, d_model): fixed
    return tok, pos, dropout(tok + pos, p_drop, rng, training)  # no LayerNorm


def bert_input(ids, segments, tok_table, seg_table, pos_table, rng,
               training=False, p_drop=0.1):
    """BERT: three learned tables summed, then LayerNorm, then dropout."""
    tok, pos = tok_table[ids], pos_table[: len(ids)]  # (L, d_model) each
    total = tok + seg_table[segments] + pos  # (L, d_model)
    return tok, pos, dropout(layer_norm(total), p_drop, rng, training)


def gpt2_input(ids, wte, wpe):
    """GPT-2: h = wte[ids] + wpe[positions]; no scaling, no LayerNorm here."""
    tok, pos = wte[ids], wpe[: len(ids)]  # (L, d_model) each
    return tok, pos, tok + pos


def truncated_normal(rng, std, shape):
    """N(0, std^2), redrawing entries beyond two std (as TensorFlow does)."""
    z = rng.normal(size=shape)
    while (outside := np.abs(z) > 2).any():
        z[outside] = rng.normal(size=outside.sum())
    return std * z


rng = np.random.default_rng(7)
vocab, n_ctx = 1000, 512  # stand-ins: only the scale of the rows matters here
ids = rng.integers(vocab, size=64)  # (L,) a 64-token input
value("pipeline_tokens", len(ids))
rows = []

# Transformer base; the TensorFlow Model Garden draws the shared table N(0, 1/d)
d = 512
emb = rng.normal(scale=d**-0.5, size=(vocab, d))
tok, pos, out = transformer_input(ids, emb, d, rng)
rows.append(["Transformer (base)", d, "dropout(E[ids] · √d_model + PE)",
             norm(tok).mean(), norm(pos).mean(), norm(out).mean()])
value("paper_tok_norm", norm(tok).mean(), "{:.1f}")
value("paper_pos_norm", norm(pos).mean(), "{:.1f}")

# BERT-base; every table truncated normal with std 0.02, as in its modeling.py
d = 768
shapes = ((vocab, d), (2, d), (n_ctx, d))  # tokens, segments, positions
tables = [truncated_normal(rng, 0.02, shape) for shape in shapes]
tok, pos, out = bert_input(ids, np.zeros_like(ids), *tables, rng)
rows.append(["BERT (base)", d, "dropout(LayerNorm(E[ids] + S[segments] + P[:L]))",
             norm(tok).mean(), norm(pos).mean(), norm(out).mean()])
value("bert_out_norm", norm(out).mean(), "{:.1f}")
value("bert_sqrt_d", np.sqrt(d), "{:.1f}")
value("bert_d", d)

# GPT-2 small; wte N(0, 0.02^2) and wpe N(0, 0.01^2), as in its model.py
d = 768
wte = rng.normal(scale=0.02, size=(vocab, d))
wpe = rng.normal(scale=0.01, size=(n_ctx, d))
tok, pos, out = gpt2_input(ids, wte, wpe)
rows.append(["GPT-2 (small)", d, "wte[ids] + wpe[:L]",
             norm(tok).mean(), norm(pos).mean(), norm(out).mean()])
value("gpt2_tok_norm", norm(tok).mean(), "{:.2f}")
value("gpt2_pos_norm", norm(pos).mean(), "{:.2f}")

table(
    "pipelines",
    ["model", "d_model", "input of the first layer", "‖token part‖",
     "‖position part‖", "‖input row‖"],
    rows,
    fmt="{:.3g}",
)
