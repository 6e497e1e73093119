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
# # Attention inside a Transformer block
#
# The runnable companion of the chapter *Attention inside a Transformer block*: every snippet of the chapter, in reading order. The first cells load the site's helper modules (`attention.py`, `publish.py`, `running_example.py`, `block_layers.py`, `plotting.py`) from their text, so this notebook runs anywhere with NumPy and matplotlib. The web page hides those cells; the downloaded notebook has them.

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
load_module("block_layers", r'''"""A Transformer block in NumPy, in its two arrangements, with a hand-written backward pass.

Sub-layers: causal multi-head self-attention (the core module's forward and
backward) and a position-wise feed-forward network max(0, x W_1) W_2. Each
forward function returns its output and a cache; each backward function takes
dLoss/d(output) and the cache and returns dLoss/d(input) (and the weight
gradients). LayerNorm has its gain at 1 and its bias at 0, as at initialisation,
so it has no parameters here.

post-norm (the original Transformer): x -> LayerNorm(x + Sublayer(x))
pre-norm (GPT-2 and most models since): x -> x + Sublayer(LayerNorm(x))
"""

import numpy as np

from attention import (
    causal_mask,
    merge_heads,
    multi_head_attention,
    scaled_dot_product_attention,
    scaled_dot_product_attention_backward,
    split_heads,
)

EPS = 1e-5


# --8<-- [start:layer_norm]
def layer_norm(x):
    """Normalise each row to mean 0 and variance 1: (L, d) -> (L, d)."""
    centred = x - x.mean(axis=-1, keepdims=True)  # (L, d)
    std = np.sqrt((centred**2).mean(axis=-1, keepdims=True) + EPS)  # (L, 1)
    y = centred / std
    return y, (y, std)


def layer_norm_backward(d_y, cache):
    """dL/dx = (dL/dy - mean(dL/dy) - y * mean(dL/dy * y)) / std, row by row."""
    y, std = cache
    mean_d_y = d_y.mean(axis=-1, keepdims=True)  # (L, 1)
    mean_d_y_y = (d_y * y).mean(axis=-1, keepdims=True)  # (L, 1)
    return (d_y - mean_d_y - y * mean_d_y_y) / std
# --8<-- [end:layer_norm]


def init_params(rng, d_model, d_ff):
    """One block's weights, each drawn from N(0, 1/fan_in) so activations keep their scale."""
    shapes = {"w_q": (d_model, d_model), "w_k": (d_model, d_model), "w_v": (d_model, d_model),
              "w_o": (d_model, d_model), "w_1": (d_model, d_ff), "w_2": (d_ff, d_model)}  # (fan_in, fan_out)
    return {name: rng.normal(scale=1 / np.sqrt(shape[0]), size=shape) for name, shape in shapes.items()}


# --8<-- [start:sublayers]
def attention(x, p, n_heads):
    """Causal multi-head self-attention, (L, d_model) -> (L, d_model). The cache is x itself."""
    mask = causal_mask(len(x))  # (L, L)
    output, _ = multi_head_attention(x, p["w_q"], p["w_k"], p["w_v"], p["w_o"], n_heads, mask)
    return output, x


def attention_backward(d_out, x, p, n_heads):
    """dL/dx and the weight gradients, from the core's backward pass of scaled dot-product attention."""
    mask = causal_mask(len(x))  # (L, L)
    q, k, v = (split_heads(x @ p[w], n_heads) for w in ("w_q", "w_k", "w_v"))  # each (h, L, d_head)
    heads = merge_heads(scaled_dot_product_attention(q, k, v, mask)[0])  # (L, d_model), before W_o
    d_heads = split_heads(d_out @ p["w_o"].T, n_heads)  # (h, L, d_head)
    d_q, d_k, d_v = scaled_dot_product_attention_backward(d_heads, q, k, v, mask)  # each (h, L, d_head)
    d_q, d_k, d_v = merge_heads(d_q), merge_heads(d_k), merge_heads(d_v)  # each (L, d_model)
    grads = {"w_o": heads.T @ d_out, "w_q": x.T @ d_q, "w_k": x.T @ d_k, "w_v": x.T @ d_v}
    return d_q @ p["w_q"].T + d_k @ p["w_k"].T + d_v @ p["w_v"].T, grads


def feed_forward(x, p):
    """max(0, x W_1) W_2, applied to every position: (L, d_model) -> (L, d_model)."""
    hidden = np.maximum(0.0, x @ p["w_1"])  # (L, d_ff)
    return hidden @ p["w_2"], (x, hidden)


def feed_forward_backward(d_out, cache, p):
    x, hidden = cache
    d_hidden = (d_out @ p["w_2"].T) * (hidden > 0)  # (L, d_ff): ReLU passes gradient where it was open
    return d_hidden @ p["w_1"].T, {"w_2": hidden.T @ d_out, "w_1": x.T @ d_hidden}
# --8<-- [end:sublayers]


# --8<-- [start:post_norm]
def post_norm_block(x, p, n_heads):
    """LayerNorm(x + Sublayer(x))"""
    a, a_cache = attention(x, p, n_heads)
    h, ln1 = layer_norm(x + a)
    f, f_cache = feed_forward(h, p)
    y, ln2 = layer_norm(h + f)
    return y, (a_cache, ln1, f_cache, ln2)
# --8<-- [end:post_norm]


# --8<-- [start:pre_norm]
def pre_norm_block(x, p, n_heads):
    """x + Sublayer(LayerNorm(x))"""
    n1, ln1 = layer_norm(x)
    a, a_cache = attention(n1, p, n_heads)
    h = x + a
    n2, ln2 = layer_norm(h)
    f, f_cache = feed_forward(n2, p)
    return h + f, (ln1, a_cache, ln2, f_cache)
# --8<-- [end:pre_norm]


# --8<-- [start:post_norm_backward]
def post_norm_backward(d_y, cache, p, n_heads):
    a_cache, ln1, f_cache, ln2 = cache
    # d(h + f): through a LayerNorm
    d_sum2 = layer_norm_backward(d_y, ln2)
    d_h, f_grads = feed_forward_backward(
        d_sum2, f_cache, p)
    # d(x + a): through another LayerNorm
    d_sum1 = layer_norm_backward(d_sum2 + d_h, ln1)
    d_x, a_grads = attention_backward(
        d_sum1, a_cache, p, n_heads)
    return d_sum1 + d_x, a_grads | f_grads
# --8<-- [end:post_norm_backward]


# --8<-- [start:pre_norm_backward]
def pre_norm_backward(d_y, cache, p, n_heads):
    ln1, a_cache, ln2, f_cache = cache
    d_n2, f_grads = feed_forward_backward(
        d_y, f_cache, p)
    # the residual path passes d_y on untouched
    d_h = d_y + layer_norm_backward(d_n2, ln2)
    d_n1, a_grads = attention_backward(
        d_h, a_cache, p, n_heads)
    d_x = d_h + layer_norm_backward(d_n1, ln1)
    return d_x, a_grads | f_grads
# --8<-- [end:pre_norm_backward]


BLOCKS = {
    "post-norm": (post_norm_block, post_norm_backward),
    "pre-norm": (pre_norm_block, pre_norm_backward),
}


# --8<-- [start:stack]
def stack_gradients(x, layers, n_heads, d_loss, kind):
    """Run a stack of blocks forward, then backward from dLoss/d(output) = d_loss.

    Returns the output, dLoss/d(input of block l) for l = 1..N, and each block's weight gradients.
    A pre-norm stack ends with one more LayerNorm, as GPT-2 does; a post-norm stack ends with one anyway.
    """
    block, block_backward = BLOCKS[kind]
    caches = []
    for p in layers:
        x, cache = block(x, p, n_heads)
        caches.append(cache)
    if kind == "pre-norm":
        x, final_ln = layer_norm(x)
        d_loss = layer_norm_backward(d_loss, final_ln)
    d_inputs, weight_grads = [], []
    for p, cache in zip(reversed(layers), reversed(caches)):
        d_loss, grads = block_backward(d_loss, cache, p, n_heads)
        d_inputs.append(d_loss)
        weight_grads.append(grads)
    return x, d_inputs[::-1], weight_grads[::-1]
# --8<-- [end:stack]
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
# ## A Transformer block in NumPy, in its two arrangements, with a hand-written backward pass.
#
# *From `snippets/block_layers.py`.*
#
# Sub-layers: causal multi-head self-attention (the core module's forward and
# backward) and a position-wise feed-forward network max(0, x W_1) W_2. Each
# forward function returns its output and a cache; each backward function takes
# dLoss/d(output) and the cache and returns dLoss/d(input) (and the weight
# gradients). LayerNorm has its gain at 1 and its bias at 0, as at initialisation,
# so it has no parameters here.
#
# post-norm (the original Transformer): x -> LayerNorm(x + Sublayer(x))
# pre-norm (GPT-2 and most models since): x -> x + Sublayer(LayerNorm(x))

# %%
import numpy as np

from attention import (
    causal_mask,
    merge_heads,
    multi_head_attention,
    scaled_dot_product_attention,
    scaled_dot_product_attention_backward,
    split_heads,
)

EPS = 1e-5


def layer_norm(x):
    """Normalise each row to mean 0 and variance 1: (L, d) -> (L, d)."""
    centred = x - x.mean(axis=-1, keepdims=True)  # (L, d)
    std = np.sqrt((centred**2).mean(axis=-1, keepdims=True) + EPS)  # (L, 1)
    y = centred / std
    return y, (y, std)


def layer_norm_backward(d_y, cache):
    """dL/dx = (dL/dy - mean(dL/dy) - y * mean(dL/dy * y)) / std, row by row."""
    y, std = cache
    mean_d_y = d_y.mean(axis=-1, keepdims=True)  # (L, 1)
    mean_d_y_y = (d_y * y).mean(axis=-1, keepdims=True)  # (L, 1)
    return (d_y - mean_d_y - y * mean_d_y_y) / std


def init_params(rng, d_model, d_ff):
    """One block's weights, each drawn from N(0, 1/fan_in) so activations keep their scale."""
    shapes = {"w_q": (d_model, d_model), "w_k": (d_model, d_model), "w_v": (d_model, d_model),
              "w_o": (d_model, d_model), "w_1": (d_model, d_ff), "w_2": (d_ff, d_model)}  # (fan_in, fan_out)
    return {name: rng.normal(scale=1 / np.sqrt(shape[0]), size=shape) for name, shape in shapes.items()}


def attention(x, p, n_heads):
    """Causal multi-head self-attention, (L, d_model) -> (L, d_model). The cache is x itself."""
    mask = causal_mask(len(x))  # (L, L)
    output, _ = multi_head_attention(x, p["w_q"], p["w_k"], p["w_v"], p["w_o"], n_heads, mask)
    return output, x


def attention_backward(d_out, x, p, n_heads):
    """dL/dx and the weight gradients, from the core's backward pass of scaled dot-product attention."""
    mask = causal_mask(len(x))  # (L, L)
    q, k, v = (split_heads(x @ p[w], n_heads) for w in ("w_q", "w_k", "w_v"))  # each (h, L, d_head)
    heads = merge_heads(scaled_dot_product_attention(q, k, v, mask)[0])  # (L, d_model), before W_o
    d_heads = split_heads(d_out @ p["w_o"].T, n_heads)  # (h, L, d_head)
    d_q, d_k, d_v = scaled_dot_product_attention_backward(d_heads, q, k, v, mask)  # each (h, L, d_head)
    d_q, d_k, d_v = merge_heads(d_q), merge_heads(d_k), merge_heads(d_v)  # each (L, d_model)
    grads = {"w_o": heads.T @ d_out, "w_q": x.T @ d_q, "w_k": x.T @ d_k, "w_v": x.T @ d_v}
    return d_q @ p["w_q"].T + d_k @ p["w_k"].T + d_v @ p["w_v"].T, grads


def feed_forward(x, p):
    """max(0, x W_1) W_2, applied to every position: (L, d_model) -> (L, d_model)."""
    hidden = np.maximum(0.0, x @ p["w_1"])  # (L, d_ff)
    return hidden @ p["w_2"], (x, hidden)


def feed_forward_backward(d_out, cache, p):
    x, hidden = cache
    d_hidden = (d_out @ p["w_2"].T) * (hidden > 0)  # (L, d_ff): ReLU passes gradient where it was open
    return d_hidden @ p["w_1"].T, {"w_2": hidden.T @ d_out, "w_1": x.T @ d_hidden}


def post_norm_block(x, p, n_heads):
    """LayerNorm(x + Sublayer(x))"""
    a, a_cache = attention(x, p, n_heads)
    h, ln1 = layer_norm(x + a)
    f, f_cache = feed_forward(h, p)
    y, ln2 = layer_norm(h + f)
    return y, (a_cache, ln1, f_cache, ln2)


def pre_norm_block(x, p, n_heads):
    """x + Sublayer(LayerNorm(x))"""
    n1, ln1 = layer_norm(x)
    a, a_cache = attention(n1, p, n_heads)
    h = x + a
    n2, ln2 = layer_norm(h)
    f, f_cache = feed_forward(n2, p)
    return h + f, (ln1, a_cache, ln2, f_cache)


def post_norm_backward(d_y, cache, p, n_heads):
    a_cache, ln1, f_cache, ln2 = cache
    # d(h + f): through a LayerNorm
    d_sum2 = layer_norm_backward(d_y, ln2)
    d_h, f_grads = feed_forward_backward(
        d_sum2, f_cache, p)
    # d(x + a): through another LayerNorm
    d_sum1 = layer_norm_backward(d_sum2 + d_h, ln1)
    d_x, a_grads = attention_backward(
        d_sum1, a_cache, p, n_heads)
    return d_sum1 + d_x, a_grads | f_grads


def pre_norm_backward(d_y, cache, p, n_heads):
    ln1, a_cache, ln2, f_cache = cache
    d_n2, f_grads = feed_forward_backward(
        d_y, f_cache, p)
    # the residual path passes d_y on untouched
    d_h = d_y + layer_norm_backward(d_n2, ln2)
    d_n1, a_grads = attention_backward(
        d_h, a_cache, p, n_heads)
    d_x = d_h + layer_norm_backward(d_n1, ln1)
    return d_x, a_grads | f_grads


BLOCKS = {
    "post-norm": (post_norm_block, post_norm_backward),
    "pre-norm": (pre_norm_block, pre_norm_backward),
}


def stack_gradients(x, layers, n_heads, d_loss, kind):
    """Run a stack of blocks forward, then backward from dLoss/d(output) = d_loss.

    Returns the output, dLoss/d(input of block l) for l = 1..N, and each block's weight gradients.
    A pre-norm stack ends with one more LayerNorm, as GPT-2 does; a post-norm stack ends with one anyway.
    """
    block, block_backward = BLOCKS[kind]
    caches = []
    for p in layers:
        x, cache = block(x, p, n_heads)
        caches.append(cache)
    if kind == "pre-norm":
        x, final_ln = layer_norm(x)
        d_loss = layer_norm_backward(d_loss, final_ln)
    d_inputs, weight_grads = [], []
    for p, cache in zip(reversed(layers), reversed(caches)):
        d_loss, grads = block_backward(d_loss, cache, p, n_heads)
        d_inputs.append(d_loss)
        weight_grads.append(grads)
    return x, d_inputs[::-1], weight_grads[::-1]


# %% [markdown]
# ## Post-norm and pre-norm blocks side by side on "The cat sat on the mat."
#
# *From `snippets/block_compare.py`.*
#
# Both blocks get the same input and the same weights. The post-norm block ends
# with a LayerNorm, so every output row has mean 0 and standard deviation 1; the
# pre-norm block ends with a residual sum, so its rows keep the input's scale.
# Switch the sub-layers off (W_o = 0, W_2 = 0) and the pre-norm block passes its
# input through unchanged, while the post-norm block still normalises it.

# %%
import numpy as np

from block_layers import EPS, init_params, post_norm_block, pre_norm_block
from publish import table, value
from running_example import SENTENCE, embed, tokenize

np.set_printoptions(precision=3, suppress=True)

tokens = tokenize(SENTENCE)
x = 3.0 * embed(tokens)  # (7, d_model): scaled up so the two blocks differ visibly
p = init_params(np.random.default_rng(0), d_model=8, d_ff=32)
y_post, _ = post_norm_block(x, p, n_heads=2)  # (7, 8)
y_pre, _ = pre_norm_block(x, p, n_heads=2)  # (7, 8)

rows = []
for name, y in [("input x", x), ("post-norm output", y_post), ("pre-norm output", y_pre)]:
    stats = np.round(np.concatenate([y.mean(-1)[:3], y.std(-1)[:3]]), 3) + 0.0  # + 0.0 turns -0.0 into 0.0
    rows.append([name, *stats])
header = ["", *[f"mean ({t})" for t in tokens[:3]], *[f"std ({t})" for t in tokens[:3]]]
table("row_stats", header, rows, fmt="{:.3f}")
value("eps", EPS)
value("post_std_error", np.max(np.abs(y_post.std(-1) - 1)), "{:.1e}")

off = p | {"w_o": np.zeros((8, 8)), "w_2": np.zeros((32, 8))}  # both sub-layers now output zeros
y_pre_off, _ = pre_norm_block(x, off, n_heads=2)  # (7, 8)
y_post_off, _ = post_norm_block(x, off, n_heads=2)  # (7, 8)
value("pre_off_error", np.max(np.abs(y_pre_off - x)), "{:.1e}")
value("post_off_change", np.max(np.abs(y_post_off - x)), "{:.2f}")

# %% [markdown]
# ## Gradients at initialisation in a stack of post-norm and of pre-norm blocks.
#
# *From `snippets/block_gradients.py`.*
#
# A stack of N blocks with freshly drawn weights, a random input and a random
# linear read-out as the loss, loss = sum(output * g). The hand-written backward
# pass of block_layers.py (checked against finite differences in the test suite)
# gives dLoss/dx_l at the input of every block l and every weight gradient. Each
# number is the geometric mean over 10 random draws of weights, input and g.

# %%
import matplotlib.pyplot as plt
import numpy as np

from block_layers import BLOCKS, init_params, stack_gradients
from plotting import COLORS
from publish import table, value

L, d_model, n_heads, d_ff, n_draws = 16, 32, 4, 128, 10
KINDS = ["post-norm", "pre-norm"]
COLOUR = {"post-norm": COLORS[3], "pre-norm": COLORS[0]}


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
    [[l + 1, grad_x["post-norm"][l], grad_x["pre-norm"][l], rms["post-norm"][l], rms["pre-norm"][l]]
     for l in layers_shown],
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
