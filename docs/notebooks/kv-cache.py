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
# # Generating text: the KV cache
#
# The runnable companion of the chapter *Generating text: the KV cache*: every snippet of the chapter, in reading order. The first cells load the site's helper modules (`attention.py`, `plotting.py`, `publish.py`, `running_example.py`, `kv_decoder.py`) from their text, so this notebook runs anywhere with NumPy and matplotlib. The web page hides those cells; the downloaded notebook has them.

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

# %% tags=["module-source"]
load_module("kv_decoder", r'''"""One multi-head causal attention layer, run one token at a time, with and without a KV cache.

A decoder generates a sequence one position at a time. At step t it has a new
input row x_t and needs the layer's output for that row. Without a cache it
reruns the layer on the whole prefix x_1..x_t and keeps the last row. With a
cache it keeps the keys and values of earlier positions, computes q, k, v for
x_t only, and attends from that one query to every cached key.
"""

import numpy as np

from attention import causal_mask, merge_heads, multi_head_attention, scaled_dot_product_attention, split_heads


# --8<-- [start:cache]
class KVCache:
    """Keys and values of the positions seen so far, preallocated for max_len positions."""

    def __init__(self, n_heads, d_head, max_len, dtype=np.float64):
        self.k = np.zeros((n_heads, max_len, d_head), dtype=dtype)  # (h, max_len, d_head)
        self.v = np.zeros((n_heads, max_len, d_head), dtype=dtype)  # (h, max_len, d_head)
        self.length = 0

    def append(self, k_t, v_t):
        """Store one position's keys and values, each (h, 1, d_head)."""
        self.k[:, self.length] = k_t[:, 0]
        self.v[:, self.length] = v_t[:, 0]
        self.length += 1

    @property
    def nbytes(self):
        return self.k.nbytes + self.v.nbytes
# --8<-- [end:cache]


# --8<-- [start:steps]
def step_with_cache(x_t, cache, w_q, w_k, w_v, w_o, n_heads):
    """Output row for the newest position x_t (1, d_model); q, k, v only for that row."""
    q_t = split_heads(x_t @ w_q, n_heads)  # (h, 1, d_head)
    k_t = split_heads(x_t @ w_k, n_heads)  # (h, 1, d_head)
    v_t = split_heads(x_t @ w_v, n_heads)  # (h, 1, d_head)
    cache.append(k_t, v_t)
    k = cache.k[:, : cache.length]  # (h, t, d_head): all positions so far, the new one included
    v = cache.v[:, : cache.length]  # (h, t, d_head)
    heads, weights = scaled_dot_product_attention(q_t, k, v)  # (h, 1, d_head), (h, 1, t); no mask
    return merge_heads(heads) @ w_o, weights  # (1, d_model), (h, 1, t)


def step_without_cache(prefix, w_q, w_k, w_v, w_o, n_heads):
    """Output row for the last position of prefix (t, d_model): rerun the whole causal layer."""
    mask = causal_mask(prefix.shape[0])  # (t, t)
    output, weights = multi_head_attention(prefix, w_q, w_k, w_v, w_o, n_heads, mask)  # (t, d), (h, t, t)
    return output[-1:], weights[:, -1:]  # (1, d_model), (h, 1, t)
# --8<-- [end:steps]


# --8<-- [start:count]
def macs_with_cache(t, d_model):
    """Multiply-adds of step t with a cache: 4 projections of one row, then 1 query against t keys."""
    projections = 4 * d_model * d_model  # x_t @ w_q, w_k, w_v and heads @ w_o: (1, d) @ (d, d)
    attention = 2 * t * d_model  # scores (h, 1, t) and weighted sum (h, 1, d_head), all heads
    return projections + attention


def macs_without_cache(t, d_model):
    """Multiply-adds of step t without a cache: the whole layer on t rows."""
    projections = 4 * t * d_model * d_model  # (t, d) @ (d, d), four times
    attention = 2 * t * t * d_model  # scores (h, t, t) and weighted sum (h, t, d_head), all heads
    return projections + attention
# --8<-- [end:count]
''')

# %% [markdown]
# ## One multi-head causal attention layer, run one token at a time, with and without a KV cache.
#
# *From `snippets/kv_decoder.py`.*
#
# A decoder generates a sequence one position at a time. At step t it has a new
# input row x_t and needs the layer's output for that row. Without a cache it
# reruns the layer on the whole prefix x_1..x_t and keeps the last row. With a
# cache it keeps the keys and values of earlier positions, computes q, k, v for
# x_t only, and attends from that one query to every cached key.

# %%
import numpy as np

from attention import causal_mask, merge_heads, multi_head_attention, scaled_dot_product_attention, split_heads


class KVCache:
    """Keys and values of the positions seen so far, preallocated for max_len positions."""

    def __init__(self, n_heads, d_head, max_len, dtype=np.float64):
        self.k = np.zeros((n_heads, max_len, d_head), dtype=dtype)  # (h, max_len, d_head)
        self.v = np.zeros((n_heads, max_len, d_head), dtype=dtype)  # (h, max_len, d_head)
        self.length = 0

    def append(self, k_t, v_t):
        """Store one position's keys and values, each (h, 1, d_head)."""
        self.k[:, self.length] = k_t[:, 0]
        self.v[:, self.length] = v_t[:, 0]
        self.length += 1

    @property
    def nbytes(self):
        return self.k.nbytes + self.v.nbytes


def step_with_cache(x_t, cache, w_q, w_k, w_v, w_o, n_heads):
    """Output row for the newest position x_t (1, d_model); q, k, v only for that row."""
    q_t = split_heads(x_t @ w_q, n_heads)  # (h, 1, d_head)
    k_t = split_heads(x_t @ w_k, n_heads)  # (h, 1, d_head)
    v_t = split_heads(x_t @ w_v, n_heads)  # (h, 1, d_head)
    cache.append(k_t, v_t)
    k = cache.k[:, : cache.length]  # (h, t, d_head): all positions so far, the new one included
    v = cache.v[:, : cache.length]  # (h, t, d_head)
    heads, weights = scaled_dot_product_attention(q_t, k, v)  # (h, 1, d_head), (h, 1, t); no mask
    return merge_heads(heads) @ w_o, weights  # (1, d_model), (h, 1, t)


def step_without_cache(prefix, w_q, w_k, w_v, w_o, n_heads):
    """Output row for the last position of prefix (t, d_model): rerun the whole causal layer."""
    mask = causal_mask(prefix.shape[0])  # (t, t)
    output, weights = multi_head_attention(prefix, w_q, w_k, w_v, w_o, n_heads, mask)  # (t, d), (h, t, t)
    return output[-1:], weights[:, -1:]  # (1, d_model), (h, 1, t)


def macs_with_cache(t, d_model):
    """Multiply-adds of step t with a cache: 4 projections of one row, then 1 query against t keys."""
    projections = 4 * d_model * d_model  # x_t @ w_q, w_k, w_v and heads @ w_o: (1, d) @ (d, d)
    attention = 2 * t * d_model  # scores (h, 1, t) and weighted sum (h, 1, d_head), all heads
    return projections + attention


def macs_without_cache(t, d_model):
    """Multiply-adds of step t without a cache: the whole layer on t rows."""
    projections = 4 * t * d_model * d_model  # (t, d) @ (d, d), four times
    attention = 2 * t * t * d_model  # scores (h, t, t) and weighted sum (h, t, d_head), all heads
    return projections + attention


# %% [markdown]
# ## Generate tokens one at a time, with and without a KV cache, and compare with full causal attention.
#
# *From `snippets/kv_generate.py`.*
#
# A toy decoder: one causal multi-head attention layer with untrained (random)
# weights, tied input and output embeddings over the running example's six
# words, greedy choice of the next word. The words it picks mean nothing (nothing
# was trained); what matters is that the cached loop, the loop that recomputes
# everything, and one call of full causal attention on the finished sequence
# agree.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import causal_mask, multi_head_attention, sinusoidal_positions
from kv_decoder import KVCache, step_with_cache, step_without_cache
from plotting import weights_heatmap
from publish import value
from running_example import D_MODEL, SENTENCE, build_vocab, embedding_table, tokenize

np.set_printoptions(precision=3, suppress=True)

vocab = build_vocab(tokenize(SENTENCE))  # {".": 0, "cat": 1, "mat": 2, "on": 3, "sat": 4, "the": 5}
words = sorted(vocab, key=vocab.get)
table = embedding_table(len(vocab))  # (V, d_model), also used as the output layer
n_heads, max_len = 2, 12
rng = np.random.default_rng(6)
w_q, w_k, w_v, w_o = rng.normal(scale=1 / np.sqrt(D_MODEL), size=(4, D_MODEL, D_MODEL))  # each (d_model, d_model)
positions = sinusoidal_positions(max_len, D_MODEL)  # (max_len, d_model)
prompt = ["the", "cat"]


def embed_at(word, t):
    return table[vocab[word]] + positions[t]  # (d_model,)


def generate(use_cache):
    tokens = list(prompt)
    x = np.stack([embed_at(w, t) for t, w in enumerate(tokens)])  # (len(prompt), d_model)
    cache = KVCache(n_heads, D_MODEL // n_heads, max_len)
    outputs, weights = [], []
    for t in range(max_len):
        if use_cache:
            out_t, w_t = step_with_cache(x[t : t + 1], cache, w_q, w_k, w_v, w_o, n_heads)  # (1, d)
        else:
            out_t, w_t = step_without_cache(x[: t + 1], w_q, w_k, w_v, w_o, n_heads)  # (1, d)
        outputs.append(out_t[0])
        weights.append(w_t[:, 0])  # (h, t + 1)
        if t + 1 == len(tokens) and len(tokens) < max_len:  # past the prompt: choose the next word
            logits = out_t[0] @ table.T  # (V,)
            tokens.append(words[int(np.argmax(logits))])
            x = np.vstack([x, embed_at(tokens[-1], t + 1)])  # (t + 2, d_model)
    return tokens, x, np.stack(outputs), weights, cache


tokens, x, out_cached, w_cached, cache = generate(use_cache=True)
tokens_recomputed, _, out_recomputed, _, _ = generate(use_cache=False)
out_full, w_full = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, mask=causal_mask(len(tokens)))  # (L, d_model)

print("generated (cache):    ", " ".join(tokens))
print("generated (no cache): ", " ".join(tokens_recomputed))
print("cache keys:", cache.k.shape, "filled:", cache.length)
value("same_tokens", tokens == tokens_recomputed)
value("max_error_vs_full", np.max(np.abs(out_cached - out_full)), "{:.1e}")
value("max_error_vs_recompute", np.max(np.abs(out_cached - out_recomputed)), "{:.1e}")
steps_as_rows = np.zeros((n_heads, max_len, max_len))  # (h, L, L): step t's weights in row t
for t, w_t in enumerate(w_cached):
    steps_as_rows[:, t, : t + 1] = w_t
value("max_weight_error", np.max(np.abs(steps_as_rows - w_full)), "{:.1e}")
value("n_tokens", len(tokens))
value("n_heads", n_heads)
value("vocab_size", len(vocab))
value("prompt", " ".join(prompt))
value("generated", " ".join(tokens))

fig, axes = plt.subplots(1, 2, num="weights", figsize=(10, 4.6), layout="constrained")
weights_heatmap(axes[0], steps_as_rows[0], tokens, tokens, title="head 1, one row per cached step")
weights_heatmap(axes[1], w_full[0], tokens, tokens, title="head 1, full causal attention")
fig.colorbar(axes[1].images[0], ax=axes, label="weight", shrink=0.8)
plt.show()

# %% [markdown]
# ## Multiply-adds per generated token, with and without a KV cache, counted from the shapes.
#
# *From `snippets/kv_cost.py`.*
#
# Each matrix product (m, n) @ (n, p) costs m * n * p multiply-adds. Adding these
# up for one attention layer gives the cost of step t (t positions so far) in
# kv_decoder.py's two step functions; the test suite checks these formulas by
# counting the multiply-adds of every matrix product the steps actually run.

# %%
import matplotlib.pyplot as plt
import numpy as np

from kv_decoder import macs_with_cache, macs_without_cache
from plotting import COLORS
from publish import table, value

d_model = 64
t = np.arange(1, 1025)  # step t attends over t positions
with_cache = macs_with_cache(t, d_model)  # (T,)
without_cache = macs_without_cache(t, d_model)  # (T,)
attention_only = 2 * t * d_model  # (T,): the part of a cached step that grows with t

value("d_model", d_model)
value("n_steps", int(t[-1]))
value("ratio_is_t", bool(np.all(without_cache == t * with_cache)))
value("crossover_t", int(t[np.argmax(attention_only >= 4 * d_model**2)]))
value("total_with_cache", int(with_cache.sum()), "{:,}")
value("total_without_cache", int(without_cache.sum()), "{:,}")
value("total_ratio", without_cache.sum() / with_cache.sum(), "{:.0f}")
shown = [1, 16, 128, 1024]
table(
    "per_step",
    ["step t", "with cache", "without cache", "without / with"],
    [[s, int(with_cache[s - 1]), int(without_cache[s - 1]), int(without_cache[s - 1] // with_cache[s - 1])]
     for s in shown],
)

fig, ax = plt.subplots(num="macs", figsize=(6.4, 4.2))
ax.loglog(t, without_cache, color=COLORS[3], label="without cache: the whole layer on t rows")
ax.loglog(t, with_cache, color=COLORS[0], label="with cache: one new row")
ax.loglog(t, attention_only, color=COLORS[0], linestyle="--", label="with cache, attention part only (2 t d)")
ax.set_xlabel("step t (positions in the context)")
ax.set_ylabel("multiply-adds in step t")
ax.set_title(f"One attention layer, d_model = {d_model}")
ax.legend(frameon=False)
plt.show()

# %% [markdown]
# ## How many bytes the KV cache holds: the formula and the arrays' measured nbytes.
#
# *From `snippets/kv_memory.py`.*
#
# Each layer stores a key and a value vector of d_model numbers for every
# position, so a cache for L positions holds 2 * n_layers * L * d_model numbers.

# %%
import numpy as np

from kv_decoder import KVCache
from publish import table, value


def human(n_bytes):
    """896 -> "896 B", 131072 -> "128 KiB"."""
    for unit in ["B", "KiB", "MiB", "GiB"]:
        if n_bytes < 1024 or unit == "GiB":
            return f"{n_bytes:.4g} {unit}"
        n_bytes /= 1024


def formula_bytes(n_layers, length, d_model, itemsize):
    return 2 * n_layers * length * d_model * itemsize  # keys and values, every layer, every position


def measured_bytes(n_layers, length, d_model, n_heads, dtype):
    caches = [KVCache(n_heads, d_model // n_heads, length, dtype) for _ in range(n_layers)]  # per layer
    return sum(cache.nbytes for cache in caches)


value("bytes_per_token_per_layer", formula_bytes(1, 1, 8, 8))
# (n_layers, L, d_model, n_heads, dtype): the running example, then a model of GPT-2 small's shape
# (Radford et al. 2019, "Language Models are Unsupervised Multitask Learners": Table 2 gives
# 12 layers and d_model 768 for the smallest model; section 2.3 gives the context of 1024 tokens).
gpt2_small = (12, 1024, 768, 12)  # layers, context, d_model, heads
configs = [
    (1, 7, 8, 2, np.float64),
    (1, 1024, 8, 2, np.float64),
    (*gpt2_small, np.float64),
    (*gpt2_small, np.float16),
]
rows = []
for n_layers, length, d_model, n_heads, dtype in configs:
    itemsize = np.dtype(dtype).itemsize
    formula = formula_bytes(n_layers, length, d_model, itemsize)
    measured = measured_bytes(n_layers, length, d_model, n_heads, dtype)
    assert formula == measured
    rows.append([n_layers, length, d_model, np.dtype(dtype).name, formula, measured, human(measured)])
table("memory", ["layers", "positions L", "d_model", "dtype", "formula (bytes)", "measured nbytes", "size"], rows)
value("gpt2_layers", gpt2_small[0])
value("gpt2_positions", gpt2_small[1])
value("gpt2_d_model", gpt2_small[2])
value("gpt2_float64", rows[2][-1])
value("gpt2_float16", rows[3][-1])
