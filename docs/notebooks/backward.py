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
# # The backward pass
#
# The runnable companion of the chapter *The backward pass*: every snippet of the chapter, in reading order. The first cells load the site's helper modules (`attention.py`, `publish.py`, `plotting.py`, `running_example.py`) from their text, so this notebook runs anywhere with NumPy and matplotlib. The web page hides those cells; the downloaded notebook has them.

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
# ## The gradient of softmax as a vector-Jacobian product, checked three ways.
#
# *From `snippets/backward_softmax.py`.*
#
# For y = softmax(s), the Jacobian is J = diag(y) - y y^T. Backpropagation never builds J: it only
# needs J^T dy, which collapses to y * (dy - <dy, y>), O(n) work instead of O(n^2). This snippet
# builds J anyway for one row of 5 scores, compares the shortcut (the core's softmax_backward) with
# the full product and with central finite differences, and shows that J's rows sum to 0.

# %%
import numpy as np

from attention import softmax, softmax_backward
from publish import value

np.set_printoptions(precision=3, suppress=True)
rng = np.random.default_rng(0)

s = rng.normal(size=5)  # one query's scores
y = softmax(s)  # (5,) its weights
grad_y = rng.normal(size=5)  # dLoss/dy, arriving from the layer above
jacobian = np.diag(y) - np.outer(y, y)  # (5, 5): J[i, j] = dy_i / ds_j
grad_s_full = jacobian.T @ grad_y  # the textbook product: builds an n x n matrix
grad_s = softmax_backward(grad_y, y)  # y * (grad_y - <grad_y, y>): no matrix at all

# Central finite differences of the scalar loss L(s) = <grad_y, softmax(s)>, whose gradient is grad_s.
h = 1e-6
loss = lambda scores: grad_y @ softmax(scores)  # noqa: E731
grad_s_numerical = np.array([(loss(s + h * e) - loss(s - h * e)) / (2 * h) for e in np.eye(5)])

print("weights y      :", y)
print("Jacobian J:\n", jacobian)
print(f"largest |row sum| of J: {np.abs(jacobian.sum(axis=1)).max():.1e}")
print("J^T grad_y     :", grad_s_full)
print("softmax_backward:", grad_s)
print("finite diff.   :", grad_s_numerical)
value("max_diff_full", np.max(np.abs(grad_s - grad_s_full)), "{:.1e}")
value(
    "rel_error_fd",
    np.linalg.norm(grad_s - grad_s_numerical) / np.linalg.norm(grad_s_numerical),
    "{:.1e}",
)
value("max_row_sum", np.abs(jacobian.sum(axis=1)).max(), "{:.1e}")
value("sum_grad_s", abs(grad_s.sum()), "{:.1e}")

# %% [markdown]
# ## The two paths of the gradient, on "The cat sat on the mat."
#
# *From `snippets/backward_paths.py`.*
#
# Let the loss look only at the output of "cat" (row 1): L = <g, output_cat> for a random vector g.
# Backpropagation splits at the weighted sum output = weights @ v:
#   path 1, to V, straight through the weighted sum: dv_j = w_cat,j * g;
#   path 2, to Q and K, through the weights: dweights = g v^T, then the softmax VJP, then the scores.
# We run the chain rule step by step, compare each result with the core's backward pass, and plot
# what each key receives on each path.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import scaled_dot_product_attention, scaled_dot_product_attention_backward, softmax_backward
from plotting import COLORS
from publish import value
from running_example import SENTENCE, embed, projection_weights, tokenize

np.set_printoptions(precision=3, suppress=True)

tokens = tokenize(SENTENCE)  # 7 tokens
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # each (d_model, d_k)
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (L, d_k)
d_k = q.shape[-1]
output, weights = scaled_dot_product_attention(q, k, v)  # (L, d_v), (L, L)
grad_output = np.zeros_like(output)  # (L, d_v)
grad_output[1] = np.random.default_rng(2).normal(size=output.shape[1])  # only "cat"'s output matters

# Path 1: through the weighted sum, straight to the values.
grad_v = weights.T @ grad_output  # (L, d_v): value j gets sum_i w_ij * g_i
# Path 2: through the weights, the softmax and the scale, to the queries and keys.
grad_weights = grad_output @ v.T  # (L, L): how the loss wants each weight to move
grad_scores = softmax_backward(grad_weights, weights) / np.sqrt(d_k)  # (L, L)
grad_q = grad_scores @ k  # (L, d_k)
grad_k = grad_scores.T @ q  # (L, d_k)

core = scaled_dot_product_attention_backward(grad_output, q, k, v)
max_diff = max(np.max(np.abs(a - b)) for a, b in zip((grad_q, grad_k, grad_v), core))
print("weights of 'cat'         :", weights[1])
print("grad_weights of 'cat'    :", grad_weights[1])
print("grad_scores of 'cat'     :", grad_scores[1])
print("sum of that row          :", f"{grad_scores[1].sum():.1e}")
print("|grad_v_j| / |g|         :", np.linalg.norm(grad_v, axis=1) / np.linalg.norm(grad_output[1]))
print("queries with a gradient  :", [t for t, row in zip(tokens, grad_q) if np.any(row != 0)])
print(f"step by step vs core backward, largest difference: {max_diff:.1e}")

value("max_diff_core", max_diff, "{:.1e}")
value("row_sum", abs(grad_scores[1].sum()), "{:.1e}")
value("v_path_vs_weights", np.max(np.abs(np.linalg.norm(grad_v, axis=1) / np.linalg.norm(grad_output[1]) - weights[1])), "{:.1e}")
value("cat_top_key", tokens[int(np.argmax(weights[1]))])
value("cat_top_weight", weights[1].max(), "{:.2f}")

fig, axes = plt.subplots(1, 3, figsize=(10, 3.0), num="paths", layout="constrained", sharex=True)
positions = np.arange(len(tokens))
axes[0].bar(positions, weights[1], color=COLORS[0])
axes[0].set_ylim(0, 1)
axes[0].set_ylabel("weight of 'cat' on the key")
axes[0].set_title("forward: weights of 'cat'", fontsize=9)
axes[1].bar(positions, np.linalg.norm(grad_v, axis=1), color=COLORS[2])
axes[1].set_ylabel("|dL/dv_j|")
axes[1].set_title("path 1: through the weighted sum to V", fontsize=9)
axes[2].bar(positions, grad_scores[1], color=[COLORS[3] if s < 0 else COLORS[5] for s in grad_scores[1]])
axes[2].axhline(0, color="black", linewidth=0.8)
axes[2].set_ylabel("dL/dscore (cat, j)")
axes[2].set_title("path 2: through the weights to Q and K", fontsize=9)
for ax in axes:
    ax.set_xticks(positions, tokens)
    ax.set_xlabel("key token j")
plt.show()

# %% [markdown]
# ## Check scaled_dot_product_attention_backward against central finite differences, in float64.
#
# *From `snippets/backward_gradcheck.py`.*
#
# Pick a random upstream gradient g and define the scalar loss L = sum(output * g), so that
# dL/d(output) = g. Nudge every entry of q, k and v by +-h, recompute L, and compare the slope
# (L(x + h) - L(x - h)) / 2h with the analytic gradient. Four cases: no mask (with Lq != Lk), a causal
# mask, batch and head dimensions with padding, and a mask with a query row whose keys are all masked.

# %%
import numpy as np

from attention import causal_mask, padding_mask, scaled_dot_product_attention, scaled_dot_product_attention_backward
from publish import table, value

rng = np.random.default_rng(0)


def numerical_gradient(loss, x, h=1e-6):
    """Central differences: one pair of loss evaluations per entry of x (x is changed, then restored)."""
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        original = x[index]
        x[index] = original + h
        up = loss()
        x[index] = original - h
        down = loss()
        x[index] = original
        grad[index] = (up - down) / (2 * h)
    return grad


def relative_error(a, b):
    return np.linalg.norm(a - b) / max(np.linalg.norm(a), np.linalg.norm(b))


def check(q, k, v, mask=None):
    output, _ = scaled_dot_product_attention(q, k, v, mask)
    g = rng.normal(size=output.shape)  # the upstream gradient dL/d(output)

    def loss():  # reads the current q, k, v, which numerical_gradient nudges in place
        return np.sum(scaled_dot_product_attention(q, k, v, mask)[0] * g)

    analytic = scaled_dot_product_attention_backward(g, q, k, v, mask)  # (dq, dk, dv)
    return [relative_error(numerical_gradient(loss, x), grad) for x, grad in zip((q, k, v), analytic)]


def qkv(batch, lq, lk, d_k, d_v):
    q = rng.normal(size=(*batch, lq, d_k))  # (..., Lq, d_k)
    k = rng.normal(size=(*batch, lk, d_k))  # (..., Lk, d_k)
    v = rng.normal(size=(*batch, lk, d_v))  # (..., Lk, d_v)
    return q, k, v


one_row_blind = rng.random((5, 6)) < 0.6  # (Lq, Lk) random mask ...
one_row_blind[2] = False  # ... and query 2 may attend to nothing
cases = [
    ("no mask", "q (5, 4), k (6, 4), v (6, 3)", *qkv((), 5, 6, 4, 3), None),
    ("causal mask", "q, k (6, 4), v (6, 3)", *qkv((), 6, 6, 4, 3), causal_mask(6)),
    (
        "batch 2 x 3 heads, padding + causal",
        "q, k (2, 3, 5, 4), v (2, 3, 5, 3)",
        *qkv((2, 3), 5, 5, 4, 3),
        padding_mask(np.array([5, 3]), 5)[:, None] & causal_mask(5),  # (2, 1, 5, 5)
    ),
    ("random mask, one row fully masked", "q (5, 4), k (6, 4), v (6, 3)", *qkv((), 5, 6, 4, 3), one_row_blind),
]
rows = []
for name, shapes, q, k, v, mask in cases:
    rows.append([name, shapes, *check(q, k, v, mask)])
table("errors", ["case", "shapes", "rel. error dq", "rel. error dk", "rel. error dv"], rows, fmt="{:.1e}")

# The fully masked query: its output is the constant 0, so its gradient must be exactly 0.
q, k, v = qkv((), 5, 6, 4, 3)
dq, _, _ = scaled_dot_product_attention_backward(np.ones((5, 3)), q, k, v, one_row_blind)
value("masked_query_grad", np.max(np.abs(dq[2])), "{:.1f}")

value("max_rel_error", max(max(r[2:]) for r in rows), "{:.1e}")
value("n_entries", sum(x.size for *_, q, k, v, _ in cases for x in (q, k, v)))

# %% [markdown]
# ## A saturated softmax starves Q and K of gradient; dividing by sqrt(d_k) prevents it.
#
# *From `snippets/backward_saturation.py`.*
#
# Random unit-variance q, k, v (8 positions, 500 draws) and a random upstream gradient g. Left: fix
# d_k = 64 and multiply the scores by a factor (the score's standard deviation); the V path keeps its
# gradient while the Q path collapses once the weights turn one-hot. Right: vary d_k with and without
# the 1/sqrt(d_k). "Unscaled" attention is the core's scaled attention fed sqrt(d_k) * q, so its
# gradient with respect to q is sqrt(d_k) times the core's dq. We plot the gradient per query,
# |dL/dq_i| / sqrt(d_k) (the root-mean-square per coordinate): the median and the 10-90 % band.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import scaled_dot_product_attention, scaled_dot_product_attention_backward
from plotting import COLORS
from publish import table, value

rng = np.random.default_rng(0)
L, DRAWS = 8, 500


def gradients(d_k, score_scale):
    """Per-query gradient sizes (RMS per coordinate) for scores = score_scale * q k^T / sqrt(d_k)."""
    q, k, v, g = (rng.normal(size=(DRAWS, L, d_k)) for _ in range(4))  # each (DRAWS, L, d_k)
    dq, dk, dv = scaled_dot_product_attention_backward(g, score_scale * q, k, v)  # scores grow with the scale
    dq = score_scale * dq  # chain rule through q -> score_scale * q
    _, weights = scaled_dot_product_attention(score_scale * q, k, v)  # (DRAWS, L, L)
    rms = lambda grad: np.linalg.norm(grad, axis=-1).ravel() / np.sqrt(d_k)  # noqa: E731
    return rms(dq), rms(dv), weights.max(axis=-1).mean()


def band(samples):
    return np.percentile(samples, [10, 50, 90])


scales = 10 ** np.linspace(-1, 1.5, 11)  # score standard deviation 0.1 ... 31.6, with 1 in the grid
by_scale = [gradients(64, s) for s in scales]
dims = 2 ** np.arange(1, 11)  # d_k = 2 ... 1024
scaled = [gradients(int(d), 1.0) for d in dims]
unscaled = [gradients(int(d), np.sqrt(d)) for d in dims]  # no division: scores = q k^T

rows = []
for d, s, u in zip(dims, scaled, unscaled):
    rows.append([int(d), band(s[0])[1], s[2], band(u[0])[1], u[2], np.mean(u[0] < 1e-3 * band(s[0])[1])])
table(
    "by_dk",
    ["d_k", "median dq, scaled", "top weight, scaled", "median dq, unscaled", "top weight, unscaled",
     "share starved, unscaled"],
    rows,
    fmt="{:.3g}",
)
last = rows[-1]
value("n_positions", L)
value("n_draws", DRAWS)
value("n_rows", L * DRAWS)
value("dk_max", int(dims[-1]))
value("median_dq_scaled_max", last[1], "{:.2f}")
value("median_dq_unscaled_max", last[3], "{:.1e}")
value("top_weight_scaled_max", last[2], "{:.2f}")
value("top_weight_unscaled_max", last[4], "{:.3f}")
value("starved_unscaled_max", last[5], "{:.2f}")
value("ratio_max", last[1] / last[3], "{:.0f}")
value("p90_dq_unscaled_max", band(unscaled[-1][0])[2], "{:.2f}")
at_1, at_max = by_scale[4], by_scale[-1]  # std 1 (scaled attention) and std 31.6
value("std_max", scales[-1], "{:.1f}")
value("median_dq_std1", band(at_1[0])[1], "{:.2f}")
value("median_dq_std_max", band(at_max[0])[1], "{:.1e}")
value("median_dv_std1", band(at_1[1])[1], "{:.2f}")
value("median_dv_std_max", band(at_max[1])[1], "{:.2f}")
value("crossover_dk", next(r[0] for r in rows if r[3] < r[1]))
value("median_dq_scaled_min_dk", min(r[1] for r in rows), "{:.2f}")
value("median_dq_scaled_max_dk", max(r[1] for r in rows), "{:.2f}")

fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), num="saturation", layout="constrained")
for index, colour, label in ((0, COLORS[3], "dq (path through the weights)"), (1, COLORS[2], "dv (path through the sum)")):
    low, mid, high = np.array([band(r[index]) for r in by_scale]).T
    axes[0].fill_between(scales, low, high, color=colour, alpha=0.2, linewidth=0)
    axes[0].plot(scales, mid, color=colour, label=label)
axes[0].axvline(1.0, color="grey", linestyle=":", linewidth=1)
axes[0].annotate("scaled attention\n(std 1)", (1.0, 1e-6), xytext=(4, 0), textcoords="offset points", fontsize=8,
                 color="dimgrey")
axes[0].set_xlabel("standard deviation of the scores (d_k = 64)")
axes[0].set_title("the Q path dies as the softmax saturates", fontsize=9)
for results, colour, label in ((scaled, COLORS[0], "scaled: q k^T / sqrt(d_k)"), (unscaled, COLORS[3], "unscaled: q k^T")):
    low, mid, high = np.array([band(r[0]) for r in results]).T
    axes[1].fill_between(dims, low, high, color=colour, alpha=0.2, linewidth=0)
    axes[1].plot(dims, mid, color=colour, marker="o", markersize=3, label=label)
axes[1].set_xlabel("d_k")
axes[1].set_title("without the scale, a larger d_k starves dq", fontsize=9)
for ax in axes:
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylabel("gradient per row, RMS per coordinate")
    ax.set_ylim(1e-8, 1e2)
    ax.legend(frameon=False, fontsize=8, loc="lower left")
axes[1].set_xscale("log", base=2)
plt.show()
