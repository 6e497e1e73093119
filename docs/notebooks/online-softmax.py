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
# # Attention's memory, and the online softmax
#
# The runnable companion of the chapter *Attention's memory, and the online softmax*: every snippet of the chapter, in reading order. The first cells load the site's helper modules (`attention.py`, `online_tiles.py`, `publish.py`, `running_example.py`, `plotting.py`) from their text, so this notebook runs anywhere with NumPy and matplotlib. The web page hides those cells; the downloaded notebook has them.

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
load_module("online_tiles", r'''"""Softmax and attention in one pass over blocks, keeping only a running max and a running sum.

The online softmax (Milakov and Gimelshein, 2018) reads the scores block by
block. It keeps the largest score seen so far, m, and the sum of exp(score - m)
so far, ℓ (ell in the code). When a block raises the max from m to m', everything summed so far
is rescaled by exp(m - m'). Tiled attention (the idea behind FlashAttention,
Dao et al., 2022) does the same for a whole tile of queries against a tile of
keys, and rescales a running weighted sum of values too, so the (L, L) matrix
of scores never exists at once.
"""

import numpy as np


# --8<-- [start:online_softmax]
def online_softmax(x, block):
    """softmax(x) of a 1-D x, read one block at a time. Returns (softmax, [(m, ell) after each block])."""
    m, ell = -np.inf, 0.0  # running max, running sum of exp(x - m)
    trace = []
    for start in range(0, len(x), block):
        chunk = x[start : start + block]
        m_new = max(m, np.max(chunk))
        ell = ell * np.exp(m - m_new) + np.sum(np.exp(chunk - m_new))  # rescale old sum, add new block
        m = m_new
        trace.append((m, ell))
    return np.exp(x - m) / ell, trace  # a second, cheap pass writes the outputs with the final m and ell
# --8<-- [end:online_softmax]


# --8<-- [start:tiled]
def tiled_attention(q, k, v, tile=64):
    """softmax(q k^T / sqrt(d_k)) v, one (tile x tile) block of scores at a time.

    q (..., Lq, d_k), k (..., Lk, d_k), v (..., Lk, d_v) -> (..., Lq, d_v). No mask.
    """
    lq, d_k = q.shape[-2:]
    output = np.empty(q.shape[:-1] + v.shape[-1:])  # (..., Lq, d_v)
    for i in range(0, lq, tile):
        q_i = q[..., i : i + tile, :]  # (..., Tq, d_k)
        m = np.full(q_i.shape[:-1], -np.inf)  # (..., Tq): running max of each query's scores
        ell = np.zeros(q_i.shape[:-1])  # (..., Tq): running sum of exp(score - m)
        acc = np.zeros(q_i.shape[:-1] + v.shape[-1:])  # (..., Tq, d_v): running sum of exp(score - m) v
        for j in range(0, k.shape[-2], tile):
            k_j, v_j = k[..., j : j + tile, :], v[..., j : j + tile, :]  # (..., Tk, d_k), (..., Tk, d_v)
            scores = q_i @ np.swapaxes(k_j, -1, -2) / np.sqrt(d_k)  # (..., Tq, Tk): the only scores
            m_new = np.maximum(m, scores.max(axis=-1))  # (..., Tq)
            p = np.exp(scores - m_new[..., None])  # (..., Tq, Tk)
            rescale = np.exp(m - m_new)  # (..., Tq): exp(-inf) = 0 on the first tile
            ell = ell * rescale + p.sum(axis=-1)
            acc = acc * rescale[..., None] + p @ v_j  # (..., Tq, d_v)
            m = m_new
        output[..., i : i + tile, :] = acc / ell[..., None]
    return output
# --8<-- [end:tiled]
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

# %% [markdown]
# ## Softmax and attention in one pass over blocks, keeping only a running max and a running sum.
#
# *From `snippets/online_tiles.py`.*
#
# The online softmax (Milakov and Gimelshein, 2018) reads the scores block by
# block. It keeps the largest score seen so far, m, and the sum of exp(score - m)
# so far, ℓ (ell in the code). When a block raises the max from m to m', everything summed so far
# is rescaled by exp(m - m'). Tiled attention (the idea behind FlashAttention,
# Dao et al., 2022) does the same for a whole tile of queries against a tile of
# keys, and rescales a running weighted sum of values too, so the (L, L) matrix
# of scores never exists at once.

# %%
import numpy as np


def online_softmax(x, block):
    """softmax(x) of a 1-D x, read one block at a time. Returns (softmax, [(m, ell) after each block])."""
    m, ell = -np.inf, 0.0  # running max, running sum of exp(x - m)
    trace = []
    for start in range(0, len(x), block):
        chunk = x[start : start + block]
        m_new = max(m, np.max(chunk))
        ell = ell * np.exp(m - m_new) + np.sum(np.exp(chunk - m_new))  # rescale old sum, add new block
        m = m_new
        trace.append((m, ell))
    return np.exp(x - m) / ell, trace  # a second, cheap pass writes the outputs with the final m and ell


def tiled_attention(q, k, v, tile=64):
    """softmax(q k^T / sqrt(d_k)) v, one (tile x tile) block of scores at a time.

    q (..., Lq, d_k), k (..., Lk, d_k), v (..., Lk, d_v) -> (..., Lq, d_v). No mask.
    """
    lq, d_k = q.shape[-2:]
    output = np.empty(q.shape[:-1] + v.shape[-1:])  # (..., Lq, d_v)
    for i in range(0, lq, tile):
        q_i = q[..., i : i + tile, :]  # (..., Tq, d_k)
        m = np.full(q_i.shape[:-1], -np.inf)  # (..., Tq): running max of each query's scores
        ell = np.zeros(q_i.shape[:-1])  # (..., Tq): running sum of exp(score - m)
        acc = np.zeros(q_i.shape[:-1] + v.shape[-1:])  # (..., Tq, d_v): running sum of exp(score - m) v
        for j in range(0, k.shape[-2], tile):
            k_j, v_j = k[..., j : j + tile, :], v[..., j : j + tile, :]  # (..., Tk, d_k), (..., Tk, d_v)
            scores = q_i @ np.swapaxes(k_j, -1, -2) / np.sqrt(d_k)  # (..., Tq, Tk): the only scores
            m_new = np.maximum(m, scores.max(axis=-1))  # (..., Tq)
            p = np.exp(scores - m_new[..., None])  # (..., Tq, Tk)
            rescale = np.exp(m - m_new)  # (..., Tq): exp(-inf) = 0 on the first tile
            ell = ell * rescale + p.sum(axis=-1)
            acc = acc * rescale[..., None] + p @ v_j  # (..., Tq, d_v)
            m = m_new
        output[..., i : i + tile, :] = acc / ell[..., None]
    return output


# %% [markdown]
# ## The online softmax, block by block, and tiled attention checked against the core.
#
# *From `snippets/online_steps.py`.*
#
# First one row of 12 scores, read in blocks of 4: watch the running max m and the
# running sum ℓ change. Then whole attention in tiles, compared with
# scaled_dot_product_attention, on the running sentence and on a longer random
# sequence whose length is not a multiple of the tile.

# %%
import numpy as np

from attention import scaled_dot_product_attention, softmax
from online_tiles import online_softmax, tiled_attention
from publish import table, value
from running_example import SENTENCE, embed, projection_weights, tokenize

np.set_printoptions(precision=3, suppress=True)
rng = np.random.default_rng(0)

x = np.round(rng.normal(scale=2.0, size=12), 2)  # one row of 12 scores
block = 4
weights, trace = online_softmax(x, block)
print("scores:", x)
rows = []
for b, (m, ell) in enumerate(trace):
    chunk = x[block * b : block * (b + 1)]
    rows.append([f"{block * b}-{block * (b + 1) - 1}", f"{chunk.max():.2f}", f"{m:.2f}", f"{ell:.4f}"])
table("trace", ["positions", "block max", "running max m", "running sum ℓ"], rows)
value("n_scores", len(x))
value("block", block)
value("softmax_max_error", np.max(np.abs(weights - softmax(x))), "{:.1e}")
value("final_sum", f"{np.sum(np.exp(x - x.max())):.4f}")

tokens = tokenize(SENTENCE)
x_sentence = embed(tokens)  # (7, d_model)
w_q, w_k, w_v = projection_weights()
q, k, v = x_sentence @ w_q, x_sentence @ w_k, x_sentence @ w_v  # each (7, 8)
reference, _ = scaled_dot_product_attention(q, k, v)  # (7, 8)
sentence_tile = 3
tiled = tiled_attention(q, k, v, sentence_tile)  # tiles of 3, 3 and 1 positions
value("sentence_tile", sentence_tile)
value("sentence_max_error", np.max(np.abs(tiled - reference)), "{:.1e}")

long_length, long_tile = 300, 64
q, k, v = rng.normal(size=(3, 2, long_length, 16))  # (3 tensors, batch 2, L, d 16)
reference, _ = scaled_dot_product_attention(q, k, v)  # (2, L, 16)
value("long_length", long_length)
value("long_tile", long_tile)
value("long_max_error", np.max(np.abs(tiled_attention(q, k, v, long_tile) - reference)), "{:.1e}")

# %% [markdown]
# ## Peak memory of attention versus sequence length: the full (L, L) scores against tiles.
#
# *From `snippets/online_memory.py`.*
#
# tracemalloc records every allocation Python and NumPy make. For each length L we
# measure the peak of the memory allocated while one call runs (the inputs already
# exist): the core scaled_dot_product_attention, which builds (L, L) scores and
# weights, and tiled_attention, which never holds more than one tile of scores.
# Peaks are rounded to KiB.

# %%
import tracemalloc

import matplotlib.pyplot as plt
import numpy as np

from attention import scaled_dot_product_attention
from online_tiles import tiled_attention
from plotting import COLORS
from publish import table, value


def peak_kib(fn, *args):
    """Peak of the memory allocated while fn(*args) runs, in KiB, above what was allocated before."""
    tracemalloc.start()
    before, _ = tracemalloc.get_traced_memory()
    fn(*args)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return round((peak - before) / 1024)


d, tile = 64, 128
lengths = [128, 256, 512, 1024, 2048]
rng = np.random.default_rng(0)
naive, tiled = [], []
for length in lengths:
    q, k, v = rng.normal(size=(3, length, d))  # each (L, d)
    naive.append(peak_kib(scaled_dot_product_attention, q, k, v))
    tiled.append(peak_kib(tiled_attention, q, k, v, tile))

output_kib = [n * d * 8 // 1024 for n in lengths]  # the (L, d) result itself
extra_kib = [b - o for b, o in zip(tiled, output_kib)]  # what tiling needs beyond its result
table(
    "peaks",
    ["L", "full scores (KiB)", "tiled (KiB)", "full / tiled", "one (L, L) array (KiB)", "tiled minus output (KiB)"],
    [[n, a, b, f"{a / b:.1f}", n * n * 8 // 1024, e] for n, a, b, e in zip(lengths, naive, tiled, extra_kib)],
)
slope_naive = np.polyfit(np.log(lengths[-3:]), np.log(naive[-3:]), 1)[0]
value("d", d)
value("tile", tile)
value("l_max", lengths[-1])
value("slope_naive", slope_naive, "{:.2f}")
value("tiled_extra_kib", extra_kib[-1])
value("constant_from", lengths[1])
value("tiled_extra_is_constant", len(set(extra_kib[1:])) == 1)
value("l_min", lengths[0])
value("naive_max_mib", naive[-1] / 1024, "{:.0f}")
value("tiled_max_kib", tiled[-1])
value("naive_arrays", naive[-1] * 1024 / (lengths[-1] ** 2 * 8), "{:.1f}")
value("ratio_at_max", naive[-1] / tiled[-1], "{:.0f}")
value("output_kib", output_kib[-1])

fig, (ax1, ax2) = plt.subplots(1, 2, num="peaks", figsize=(10, 4.2), layout="constrained")
ax1.loglog(lengths, np.array(naive) / 1024, "o-", color=COLORS[3], label="full (L, L) scores: core attention")
ax1.loglog(lengths, np.array(tiled) / 1024, "s-", color=COLORS[0], label=f"tiles of {tile} x {tile}")
ax1.set_xticks(lengths, [str(n) for n in lengths])
ax1.minorticks_off()
ax1.set_ylabel("peak memory during the call (MiB)")
ax1.set_title("Log-log: the full scores grow like L²")
ax2.plot(lengths, tiled, "s-", color=COLORS[0], label=f"tiles of {tile} x {tile}")
ax2.plot(lengths, output_kib, ":", color=COLORS[7], label="the (L, d) output alone")
ax2.set_xlim(0, lengths[-1] * 1.05)
ax2.set_ylim(bottom=0)
ax2.set_ylabel("peak memory during the call (KiB)")
ax2.set_title("Tiled only, linear axes: the output plus a constant")
for ax in (ax1, ax2):
    ax.set_xlabel("sequence length L")
    ax.legend(frameon=False)
fig.suptitle(f"Peak memory of one attention call, d = {d}")
plt.show()
