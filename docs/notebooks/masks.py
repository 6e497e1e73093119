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
# # Masks
#
# The runnable companion of the chapter *Masks*: every snippet of the chapter, in reading order. The first cells load the site's helper modules (`attention.py`, `plotting.py`, `publish.py`, `running_example.py`) from their text, so this notebook runs anywhere with NumPy and matplotlib. The web page hides those cells; the downloaded notebook has them.

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
# ## Causal, padding, and both: three boolean masks and the weights they produce.
#
# *From `snippets/masks_kinds.py`.*
#
# A mask says which keys each query may attend to (True = may attend, the
# convention of the boolean attn_mask of PyTorch's scaled_dot_product_attention).
# A causal mask lets position i see positions j <= i. A padding mask hides the
# filler tokens that make a short sentence as long as the longest one in a batch.
# A batch of two sentences: the running sentence, and "The cat sat." padded to
# the same 7 positions with zero vectors.

# %%
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

from attention import causal_mask, padding_mask, scaled_dot_product_attention
from plotting import weights_heatmap
from publish import value
from running_example import SENTENCE, embed, projection_weights, tokenize

np.set_printoptions(precision=2, suppress=True)

tokens_a = tokenize(SENTENCE)  # 7 tokens
x_a = embed(tokens_a)  # (7, d_model)
tokens_b = ["The", "cat", "sat", ".", "<pad>", "<pad>", "<pad>"]
x_b = np.vstack([x_a[[0, 1, 2, 6]], np.zeros((3, x_a.shape[1]))])  # (7, d_model): same vectors, zero padding
w_q, w_k, w_v = projection_weights()

x = np.stack([x_a, x_b])  # (B, L, d_model) = (2, 7, 8)
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (B, L, d_k)
causal = causal_mask(7)  # (L, L): True on and below the diagonal
padding = padding_mask([7, 4], 7)  # (B, 1, L): True for the real tokens of each sentence
both = causal & padding  # (B, L, L): broadcasting combines them
_, w_causal = scaled_dot_product_attention(q, k, v, mask=causal)  # (B, L, L)
_, w_padding = scaled_dot_product_attention(q, k, v, mask=padding)  # (B, L, L)
_, w_both = scaled_dot_product_attention(q, k, v, mask=both)  # (B, L, L)
_, w_none = scaled_dot_product_attention(q, k, v)  # (B, L, L)

print("shapes: causal", causal.shape, " padding", padding.shape, " both", both.shape)
print("causal mask as 0/1:\n", causal.astype(int))
print("padding mask of sentence b as 0/1:", padding[1, 0].astype(int))
print('weights of sentence b, no mask (the "<pad>" columns get weight):\n', w_none[1])
print("weights of sentence b, causal + padding:\n", w_both[1])

real = slice(0, 4)  # the real query rows of sentence b
value("pad_weight_no_mask", np.max(w_none[1, real, 4:].sum(axis=-1)), "{:.2f}")
value("pad_weight_masked", np.max(w_padding[1, :, 4:]), "{:.1f}")
value("future_weight_no_mask", np.max(np.triu(w_none[0], k=1).sum(axis=-1)), "{:.2f}")
value("future_weight_causal", np.max(np.triu(w_causal[0], k=1)), "{:.1f}")
value("n_positions", x.shape[1])
value("n_real_b", int(padding[1].sum()))
value("pad_query_weight", w_padding[1, 4, 0], "{:.2f}")
value("same_first_rows", bool(np.allclose(w_both[1, :3], w_causal[0, :3])))

fig, axes = plt.subplots(1, 3, num="masks", figsize=(8.4, 3.6), layout="constrained")
two_colours = ListedColormap(["#e8e8e8", "#0072B2"])
panels = [
    (causal, tokens_a, "causal (sentence a)"),
    (np.broadcast_to(padding[1], (7, 7)), tokens_b, "padding (sentence b)"),
    (both[1], tokens_b, "causal + padding (b)"),
]
for ax, (mask, tokens, title) in zip(axes, panels):
    ax.imshow(mask, cmap=two_colours, vmin=0, vmax=1)
    ax.set_xticks(range(7), tokens, rotation=45, ha="right")
    ax.set_yticks(range(7), tokens)
    ax.set_xlabel("key (attended to)")
    ax.set_title(title)
    ax.spines[:].set_visible(False)
    ax.set_xticks(np.arange(-0.5, 7), minor=True)
    ax.set_yticks(np.arange(-0.5, 7), minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
axes[0].set_ylabel("query (attending)")
fig.legend(
    handles=[Patch(color="#0072B2", label="True: may attend"), Patch(color="#e8e8e8", label="False: masked")],
    loc="outside lower center", ncols=2, frameon=False,
)
plt.show()


def labelled_weights(ax, weights, mask, tokens, title):
    """Weights heatmap with a label on every allowed cell; masked cells stay blank (they are exactly 0)."""
    weights_heatmap(ax, weights, tokens, tokens, annotate=False, title=title)
    for i, j in zip(*np.nonzero(mask)):
        colour = "black" if weights[i, j] > 0.6 else "white"
        ax.text(j, i, f"{weights[i, j]:.2f}", ha="center", va="center", fontsize=7.5, color=colour)


fig, ax = plt.subplots(num="weights-causal", figsize=(5.4, 4.4), layout="constrained")
labelled_weights(ax, w_causal[0], causal, tokens_a, "causal mask, sentence a")
fig.colorbar(ax.images[0], ax=ax, label="weight (masked cells: exactly 0)", shrink=0.9)
plt.show()

fig, axes = plt.subplots(1, 2, num="weights-padding", figsize=(7.8, 4.0), layout="constrained")
labelled_weights(axes[0], w_padding[1], np.broadcast_to(padding[1], (7, 7)), tokens_b, "padding mask, sentence b")
labelled_weights(axes[1], w_both[1], both[1], tokens_b, "causal + padding, sentence b")
axes[1].set_ylabel("")
fig.colorbar(axes[0].images[0], ax=axes, label="weight (masked cells: exactly 0)", shrink=0.9)
plt.show()

# %% [markdown]
# ## Boolean or additive masks: two spellings of one operation, and the trap of what True means.
#
# *From `snippets/masks_additive.py`.*
#
# A boolean mask (True = may attend) and an additive mask (0 where allowed, -inf
# where not, added to the scores) give the same weights. Masks written in the
# opposite convention (1 = blocked, as np.triu(np.ones((L, L)), k=1) builds them)
# must be converted; cast to bool without converting, they silently mean the
# opposite.

# %%
import numpy as np

from attention import attention_scores, causal_mask, scaled_dot_product_attention, softmax
from publish import value
from running_example import SENTENCE, embed, projection_weights, tokenize

np.set_printoptions(precision=3, suppress=True)

tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (L, d_k)
scores = attention_scores(q, k)  # (L, L)
allowed = causal_mask(len(tokens))  # (L, L) boolean, True = may attend

additive = np.where(allowed, 0.0, -np.inf)  # (L, L): 0 = may attend, -inf = masked
w_boolean = scaled_dot_product_attention(q, k, v, mask=allowed)[1]  # (L, L)
w_additive = softmax(scores + additive)  # (L, L)
print("additive mask:\n", additive)
value("bool_vs_additive", np.max(np.abs(w_boolean - w_additive)), "{:.1f}")

# The other convention: 1 = blocked, as in np.triu(np.ones((L, L)), k=1).
blocked = np.triu(np.ones((len(tokens), len(tokens))), k=1)  # (L, L) float, 1 = masked
converted = blocked == 0  # (L, L) boolean, True = may attend
value("converted_equals_causal", bool(np.array_equal(converted, allowed)))
try:
    scaled_dot_product_attention(q, k, v, mask=blocked)
except ValueError as error:
    print("\nfloat mask given to the core ->\n ", error)
# Cast to bool without converting, the blocked mask runs and silently attends to the future only.
w_inverted = scaled_dot_product_attention(q, k, v, mask=blocked.astype(bool))[1]  # (L, L)
value("inverted_future_weight", np.min(np.triu(w_inverted, k=1).sum(axis=-1)[:-1]), "{:.1f}")
value("inverted_last_row_sum", np.sum(w_inverted[-1]), "{:.1f}")

# %% [markdown]
# ## Masking before or after the softmax: which post-softmax variants equal masking first, and which are wrong.
#
# *From `snippets/masks_after_softmax.py`.*
#
# Masking the scores and then taking the softmax is the reference. Taking the
# softmax first, zeroing the masked weights and renormalising each row gives the
# same weights. Zeroing without renormalising, or subtracting 1e9 from the weights,
# does not. We compare the variants on the running sentence with a causal mask.

# %%
import numpy as np

from attention import attention_scores, causal_mask, scaled_dot_product_attention, softmax
from publish import table, value
from running_example import SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (L, d_k)
scores = attention_scores(q, k)  # (L, L)
allowed = causal_mask(len(tokens))  # (L, L) boolean, True = may attend
blocked = (~allowed).astype(float)  # (L, L) float, 1 = masked
w_boolean = scaled_dot_product_attention(q, k, v, mask=allowed)[1]  # (L, L): the reference

p = softmax(scores)  # (L, L): no mask yet
zeroed = np.where(allowed, p, 0.0)  # (L, L): masked weights set to 0 after softmax
variants = {
    "mask the scores, then softmax": w_boolean,
    "softmax, zero, renormalise": zeroed / zeroed.sum(axis=-1, keepdims=True),
    "softmax, zero, no renormalising": zeroed,
    "softmax, then subtract 1e9 * blocked": p - 1e9 * blocked,
}
rows = []
for name, w in variants.items():  # compare every variant with masking first
    sums = w.sum(axis=-1)
    rows.append([name, f"{np.max(np.abs(w - w_boolean)):.1e}", f"{sums.min():.3g} to {sums.max():.3g}",
                 "yes" if np.any(w < 0) else "no"])
table("variants", ["variant", "max |difference| from masking first", "row sums", "negative weights?"], rows)
renormalised = variants["softmax, zero, renormalise"]
value("renormalise_error", np.max(np.abs(renormalised - w_boolean)), "{:.1e}")
value("no_renorm_error", np.max(np.abs(zeroed - w_boolean)), "{:.2f}")
value("no_renorm_min_sum", np.min(zeroed.sum(axis=-1)), "{:.2f}")
value("subtract_after_min", np.min(variants["softmax, then subtract 1e9 * blocked"]), "{:.1e}")

# %% [markdown]
# ## -1e9 or -inf? Both work in float64 while a row keeps one allowed key; they part ways elsewhere.
#
# *From `snippets/masks_large_negative.py`.*
#
# Masked scores can be set to -inf (as "Attention Is All You Need" describes) or to
# a large finite negative number such as -1e9. In float64, with at least one
# allowed key per row, the weights come out identical. Two places differ: float16,
# whose largest number is 65504, turns -1e9 into -inf; and a row whose keys are
# all masked, where each convention produces something different.

# %%
import warnings

import numpy as np

from attention import attention_scores, causal_mask, scaled_dot_product_attention, softmax
from publish import table, value
from running_example import SENTENCE, embed, projection_weights, tokenize

np.set_printoptions(precision=3, suppress=True)

tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (L, d_k)
scores = attention_scores(q, k)  # (L, L)
allowed = causal_mask(len(tokens))  # (L, L); the first row allows exactly one key


def max_subtract_softmax(z):
    """Softmax that subtracts the row max and nothing else (no guard for all -inf rows)."""
    e = np.exp(z - np.max(z, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


w_inf = max_subtract_softmax(np.where(allowed, scores, -np.inf))  # (L, L)
w_1e9 = max_subtract_softmax(np.where(allowed, scores, -1e9))  # (L, L)
value("inf_vs_1e9", np.max(np.abs(w_inf - w_1e9)), "{:.1f}")
value("masked_weight_1e9", np.max(w_1e9[~allowed]), "{:.1f}")
value("first_row_1e9", w_1e9[0, 0], "{:.1f}")

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    minus_1e9_in_float16 = np.float16(-1e9)  # float16 cannot hold it
print("NumPy warns:", caught[0].message)
value("float16_of_minus_1e9", str(minus_1e9_in_float16))  # "-inf" (JSON has no infinity)
value("float16_max", np.finfo(np.float16).max, "{:.0f}")
value("float16_of_minus_1e4", np.float16(-1e4), "{:.0f}")

# A row whose keys are all masked: the query "cat" with every key hidden.
z = scores[1]  # (L,): the scores of "cat"
none = np.zeros(len(tokens), dtype=bool)  # (L,): no key may be attended to
with np.errstate(over="ignore", invalid="ignore"):
    conventions = {
        "fill -inf, exp / sum": np.exp(np.where(none, z, -np.inf)) / np.sum(np.exp(np.where(none, z, -np.inf))),
        "fill -inf, subtract the max": max_subtract_softmax(np.where(none, z, -np.inf)),
        "fill -1e9, subtract the max": max_subtract_softmax(np.where(none, z, -1e9)),
        "add -1e9 (scores - 1e9 * blocked), subtract the max": max_subtract_softmax(z - 1e9 * ~none),
        "add -1e9, exp / sum": np.exp(z - 1e9 * ~none) / np.sum(np.exp(z - 1e9 * ~none)),
        "fill -1e9 in float16, subtract the max": max_subtract_softmax(np.where(none, z, -1e9).astype(np.float16)),
        "our core: boolean mask": scaled_dot_product_attention(q[1:2], k, v, mask=none[None, :])[1][0],
    }
rows = [[name, str(np.asarray(w, dtype=np.float64).round(3)), f"{np.sum(w):.3g}"] for name, w in conventions.items()]
table("fully_masked", ["convention", 'weights of "cat" when every key is masked', "row sum"], rows)

unmasked = softmax(z)
value("add_1e9_vs_unmasked", np.max(np.abs(conventions["add -1e9 (scores - 1e9 * blocked), subtract the max"] - unmasked)),
      "{:.1e}")
value("uniform", 1 / len(tokens), "{:.3f}")
output_core = scaled_dot_product_attention(q[1:2], k, v, mask=none[None, :])[0]  # (1, d_v)
value("core_output_max", np.max(np.abs(output_core)), "{:.1f}")

# %% [markdown]
# ## A leakage test: under a causal mask, changing future tokens must not change earlier outputs.
#
# *From `snippets/masks_leakage.py`.*
#
# For every cut position t we replace all tokens after t with fresh random vectors
# and compare the outputs at positions 0..t before and after. A correct causal
# mask gives a difference of exactly 0.0. A transposed mask, an off-by-one mask
# and no mask at all let the future leak into the past.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import causal_mask, scaled_dot_product_attention
from plotting import COLORS
from publish import table, value
from running_example import SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()
n = len(tokens)


def leakage(mask, x, seed=123):
    """Largest change of outputs 0..t when every token after t is replaced, for each cut t."""
    rng = np.random.default_rng(seed)
    output, _ = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask)  # (L, d_v)
    changes = []
    for t in range(len(x) - 1):
        x_new = x.copy()
        x_new[t + 1 :] = rng.normal(size=x_new[t + 1 :].shape)  # a different future
        output_new, _ = scaled_dot_product_attention(x_new @ w_q, x_new @ w_k, x_new @ w_v, mask)
        changes.append(np.max(np.abs(output_new[: t + 1] - output[: t + 1])))  # the past only
    return np.array(changes)  # (L - 1,)


masks = {
    "causal (correct)": causal_mask(n),
    "transposed": causal_mask(n).T,  # j >= i: the future instead of the past
    "off by one": np.tril(np.ones((n, n), dtype=bool), k=1),  # also sees the next token
    "no mask": None,
}
changes = {name: leakage(mask, x) for name, mask in masks.items()}

table("leakage", ["mask", "max change of an earlier output", f"cuts that leak (of {n - 1})"],
      [[name, f"{c.max():.3g}", f"{int(np.sum(c > 0))}"] for name, c in changes.items()])
value("causal_max_change", changes["causal (correct)"].max(), "{:.1f}")
value("transposed_max_change", changes["transposed"].max(), "{:.2f}")
value("off_by_one_max_change", changes["off by one"].max(), "{:.2f}")
value("no_mask_max_change", changes["no mask"].max(), "{:.2f}")
value("n_cuts", n - 1)

fig, ax = plt.subplots(num="leakage", figsize=(6.6, 3.4))
cuts = np.arange(n - 1)
for offset, (name, colour) in zip([-0.3, -0.1, 0.1, 0.3], zip(changes, [COLORS[0], COLORS[3], COLORS[1], COLORS[4]])):
    ax.bar(cuts + offset, changes[name], width=0.2, color=colour, label=name)
ax.set_xticks(cuts, [f"after\n{tokens[t]!r}" for t in cuts])
ax.set_xlabel("tokens replaced: everything after this one")
ax.set_ylabel("max |change| of earlier outputs")
ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
plt.show()

# %% [markdown]
# ## A mask hard-coded for 6 tokens breaks on any other length; build it from the sentence instead.
#
# *From `snippets/masks_seed_shape.py`.*
#
# One of our source tutorials writes mask = np.triu(np.ones((6, 6)), k=1) inside
# its attention function, so the function works only for 6-token sentences. Its
# own troubleshooting table blames "operands could not be broadcast together" on
# Q/K/V reshaping; here the hard-coded mask alone raises it. We reproduce the error,
# show what our core says for the same mistake, and the fix.

# %%
import numpy as np

from attention import attention_scores, causal_mask, scaled_dot_product_attention
from publish import value
from running_example import SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)[:5]  # ['The', 'cat', 'sat', 'on', 'the']: a 5-token sentence
x = embed(tokens)  # (5, d_model)
w_q, w_k, w_v = projection_weights()
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (5, d_k)
print("tokens:", tokens)

scores = attention_scores(q, k)  # (5, 5)
mask = np.triu(np.ones((6, 6)), k=1)  # (6, 6), hard-coded, 1 = blocked
try:
    scores = scores - 1e9 * mask
except ValueError as error:
    print("seed code ->", str(error).strip())

try:
    scaled_dot_product_attention(q, k, v, mask=causal_mask(6))  # the same mistake, our core
except ValueError as error:
    print("our core  ->", error)

output, weights = scaled_dot_product_attention(q, k, v, mask=causal_mask(len(tokens)))  # (5, d_v), (5, 5)
print("fixed     -> output", output.shape, "weights", weights.shape)
value("n_tokens", len(tokens))
