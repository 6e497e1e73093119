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
# # Multi-head attention
#
# The runnable companion of the chapter *Multi-head attention*: every snippet of the chapter, in reading order. The first cells load the site's helper modules (`attention.py`, `plotting.py`, `publish.py`, `running_example.py`) from their text, so this notebook runs anywhere with NumPy and matplotlib. The web page hides those cells; the downloaded notebook has them.

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
# ## Splitting into heads: why the transpose is needed.
#
# *From `snippets/mha_split_merge.py`.*
#
# Each head must see every position, with a slice of the features. The correct
# split reshapes (L, d_model) -> (L, h, d_head) and then moves the head axis to
# the front: (h, L, d_head). Reshaping straight to (h, L, d_head) gives the same
# shape but cuts the *sequence* into h chunks instead. We tag every row with its
# position to see where the numbers land, and measure what the wrong split does
# to multi-head attention: which output rows change when one input word changes.

# %%
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap

from attention import causal_mask, merge_heads, multi_head_attention, scaled_dot_product_attention, split_heads
from plotting import COLORS
from publish import table, value
from running_example import SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)  # 7 tokens
x = embed(tokens)  # (L, d_model)
L, d_model = x.shape
h = 2  # heads
d_head = d_model // h  # 4
w_q, w_k, w_v = projection_weights()  # each (d_model, d_model): all heads' projections side by side
w_o = np.random.default_rng(2).normal(scale=1 / np.sqrt(d_model), size=(d_model, d_model))  # (h * d_head, d_model)
q = x @ w_q  # (L, d_model)

right = q.reshape(L, h, d_head).transpose(1, 0, 2)  # (L, h, d_head) -> (h, L, d_head)
wrong = q.reshape(h, L, d_head)  # (h, L, d_head): same shape, different numbers

print("shapes: right", right.shape, " wrong", wrong.shape)
value("split_matches_core", bool(np.array_equal(right, split_heads(q, h))))
value("round_trip_error", np.max(np.abs(merge_heads(split_heads(q, h)) - q)), "{:.1f}")

# Tag every feature with the position it came from, then split the tags both ways.
tags = np.repeat(np.arange(L)[:, None], d_model, axis=1)  # (L, d_model): tags[i, c] = i
right_tags = tags.reshape(L, h, d_head).transpose(1, 0, 2)  # (h, L, d_head)
wrong_tags = tags.reshape(h, L, d_head)  # (h, L, d_head)
for name, t in (("right", right_tags), ("wrong", wrong_tags)):
    for head in range(h):
        print(f"{name} split, head {head}: row i holds position", [sorted(set(r)) for r in t[head].tolist()])
misplaced = int(np.sum(np.any(wrong_tags != np.arange(L)[None, :, None], axis=-1)))  # rows holding another position
value("wrong_rows_misplaced", f"{misplaced} of {h * L}")
value("right_rows_misplaced", int(np.sum(np.any(right_tags != np.arange(L)[None, :, None], axis=-1))))
value("wrong_head0_positions", ", ".join(tokens[p] for p in sorted(set(wrong_tags[0].ravel().tolist()))))
value("wrong_head1_positions", ", ".join(tokens[p] for p in sorted(set(wrong_tags[1].ravel().tolist()))))


# What it does to attention: change one word, see which output rows move (causal mask).
def wrong_mha(x, mask):
    """Multi-head attention with both transposes left out (split and merge by plain reshape)."""
    q, k, v = ((x @ w).reshape(h, L, d_head) for w in (w_q, w_k, w_v))  # (h, L, d_head) each, scrambled
    heads, _ = scaled_dot_product_attention(q, k, v, mask)  # (h, L, d_head)
    return heads.reshape(L, d_model) @ w_o  # (L, d_model)


def right_mha(x, mask):
    return multi_head_attention(x, w_q, w_k, w_v, w_o, h, mask)[0]  # (L, d_model)


def rows_that_move(mha, position, mask):
    """Output rows that change when the embedding at ``position`` changes."""
    nudged = x.copy()
    nudged[position] += 1.0
    change = np.max(np.abs(mha(nudged, mask) - mha(x, mask)), axis=-1)  # (L,)
    return [tokens[i] for i in np.flatnonzero(change > 1e-12)]


mask = causal_mask(L)  # (L, L)
rows = []
for position, token in enumerate(tokens):
    rows.append([f"{token} (position {position})", " ".join(rows_that_move(right_mha, position, mask)),
                 " ".join(rows_that_move(wrong_mha, position, mask))])
table("who_moves", ["word changed", "output rows that change: with transpose", "without transpose"], rows)
value("wrong_first_word_reach", len(rows_that_move(wrong_mha, 0, mask)))
value("right_first_word_reach", len(rows_that_move(right_mha, 0, mask)))
value("wrong_vs_right_max_difference", np.max(np.abs(wrong_mha(x, mask) - right_mha(x, mask))), "{:.2f}")

# Figure: which position's numbers each head's rows hold, for both splits.
position_colours = ListedColormap(COLORS[:L])  # one colour per position (Okabe-Ito)
features = np.repeat(np.arange(d_model)[None, :], L, axis=0)  # (L, d_model): features[i, c] = c
split_features = {"right": features.reshape(L, h, d_head).transpose(1, 0, 2), "wrong": features.reshape(h, L, d_head)}
fig, axes = plt.subplots(2, h, num="split", figsize=(6.4, 6.2), sharey=True)
for r, (name, t, f) in enumerate(
    (("reshape + transpose (right)", right_tags, split_features["right"]),
     ("reshape only (wrong)", wrong_tags, split_features["wrong"]))
):
    for head in range(h):
        ax = axes[r, head]
        ax.imshow(t[head], cmap=position_colours, vmin=-0.5, vmax=L - 0.5, aspect="auto")
        for i, c in np.ndindex(t[head].shape):
            colour = "white" if t[head][i, c] in (0, 3) else "black"  # white text on the two darkest colours
            ax.text(c, i, f"{tokens[t[head][i, c]]}\nq[{f[head][i, c]}]", ha="center", va="center", fontsize=7,
                    color=colour, linespacing=1.0)
        ax.set_title(f"{name}\nhead {head}", fontsize=9)
        ax.set_xticks(range(d_head), range(d_head), fontsize=8)
        ax.set_xlabel("column within the head", fontsize=8)
        ax.set_yticks(range(L), tokens)
        ax.spines[:].set_visible(False)
    axes[r, 0].set_ylabel("query slot of the head")
fig.suptitle("Whose numbers sit in each head's rows? (cell: source word, source feature)", fontsize=10)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Multi-head attention on "The cat sat on the mat.", one step at a time.
#
# *From `snippets/mha_heads.py`.*
#
# Project once, split the features into h heads, let every head run its own
# scaled dot-product attention (causal mask), concatenate the heads' outputs and
# mix them with W_o. We draw every head's weights side by side on the same 0-1
# scale, and check the step-by-step result against the core module.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import causal_mask, merge_heads, multi_head_attention, scaled_dot_product_attention, split_heads
from plotting import weights_heatmap
from publish import table, value
from running_example import SENTENCE, embed, projection_weights, tokenize

np.set_printoptions(precision=3, suppress=True)

tokens = tokenize(SENTENCE)  # 7 tokens
x = embed(tokens)  # (L, d_model)
L, d_model = x.shape
h = 2  # heads
w_q, w_k, w_v = projection_weights()  # each (d_model, h * d_head)
w_o = np.random.default_rng(2).normal(scale=1 / np.sqrt(d_model), size=(d_model, d_model))  # (h * d_head, d_model)
mask = causal_mask(L)  # (L, L)

q = split_heads(x @ w_q, h)  # (h, L, d_head)
k = split_heads(x @ w_k, h)  # (h, L, d_head)
v = split_heads(x @ w_v, h)  # (h, L, d_head)
heads, weights = scaled_dot_product_attention(q, k, v, mask)  # (h, L, d_head), (h, L, L): one attention per head
concat = merge_heads(heads)  # (L, h * d_head): head 0's features, then head 1's
output = concat @ w_o  # (L, d_model): every output feature mixes all heads

reference, reference_weights = multi_head_attention(x, w_q, w_k, w_v, w_o, h, mask)
value("heads_max_error_vs_core", np.max(np.abs(output - reference)), "{:.1e}")
value("d_model", d_model)
value("n_heads", h)
value("d_head", q.shape[-1])
table(
    "shapes",
    ["step", "array", "shape"],
    [
        ["input", "x", str(x.shape)],
        ["project (all heads at once)", "x @ w_q", str((x @ w_q).shape)],
        ["split heads", "q, k, v", str(q.shape)],
        ["attention, per head", "weights", str(weights.shape)],
        ["weighted sum, per head", "heads", str(heads.shape)],
        ["concatenate", "concat", str(concat.shape)],
        ["mix heads", "concat @ w_o", str(output.shape)],
    ],
)

cat = tokens.index("cat")
print('head 0, row of "cat":', weights[0, cat])
print('head 1, row of "cat":', weights[1, cat])
for i in range(h):
    top = [tokens[j] for j in np.argmax(weights[i], axis=-1)]
    print(f"head {i}, top key of each query:", top)
value("heads_rows_differ", int(np.sum(np.argmax(weights[0], -1) != np.argmax(weights[1], -1))))
value("heads_max_weight_gap", np.max(np.abs(weights[0] - weights[1])), "{:.2f}")

# Without W_o, output feature c comes from one head only; with W_o, each feature depends on all heads.
bump = np.zeros_like(heads)  # (h, L, d_head)
bump[1] = 1.0  # change only head 1
changed_concat = np.abs(merge_heads(heads + bump) - concat).max(axis=0) > 0  # (d_model,)
changed_output = np.abs(merge_heads(heads + bump) @ w_o - output).max(axis=0) > 0  # (d_model,)
value("head1_reaches_concat", f"{int(changed_concat.sum())} of {d_model}")
value("head1_reaches_output", f"{int(changed_output.sum())} of {d_model}")

fig, axes = plt.subplots(1, h, num="heads", figsize=(9.0, 4.2), sharey=True)
for i, ax in enumerate(axes):
    weights_heatmap(ax, weights[i], tokens, tokens, title=f"head {i}")
for ax in axes[1:]:
    ax.set_ylabel("")
fig.colorbar(axes[0].images[0], ax=axes, shrink=0.8, label="weight (fixed 0-1 scale)")
plt.show()

# %% [markdown]
# ## One fused projection or h separate ones: the same multi-head attention.
#
# *From `snippets/mha_fused_vs_separate.py`.*
#
# "Attention Is All You Need" (section 3.2.2) writes multi-head attention with a
# separate (d_model, d_k) projection per head:
#     MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O,
#     head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V).
# Code usually keeps one fused (d_model, h * d_k) matrix and splits its output.
# We build h separate matrices, run the paper's form head by head, glue the same
# matrices side by side into fused ones, run the fused form, and compare. We do it
# at the paper's base sizes and at the sizes of a tutorial that calls the
# per-head (128, 64) matrix a mistake.

# %%
import numpy as np

from attention import causal_mask, multi_head_attention, scaled_dot_product_attention, split_heads
from publish import table, value

rng = np.random.default_rng(7)
L = 7  # positions, as in "The cat sat on the mat."


def separate_heads(x, w_q_list, w_k_list, w_v_list, w_o, mask):
    """The paper's form: one (d_model, d_k) projection per head, then Concat(...) W^O."""
    heads = []
    for w_q_i, w_k_i, w_v_i in zip(w_q_list, w_k_list, w_v_list):
        head_i, _ = scaled_dot_product_attention(x @ w_q_i, x @ w_k_i, x @ w_v_i, mask)  # (L, d_v)
        heads.append(head_i)
    return np.concatenate(heads, axis=-1) @ w_o  # (L, h * d_v) @ (h * d_v, d_model) -> (L, d_model)


rows = []
for label, d_model, h in (("paper, base model", 512, 8), ("tutorial", 128, 2)):
    d_k = d_model // h  # = d_v
    x = rng.normal(size=(L, d_model))  # (L, d_model)
    w_q_list = [rng.normal(scale=d_model**-0.5, size=(d_model, d_k)) for _ in range(h)]  # h x (d_model, d_k)
    w_k_list = [rng.normal(scale=d_model**-0.5, size=(d_model, d_k)) for _ in range(h)]
    w_v_list = [rng.normal(scale=d_model**-0.5, size=(d_model, d_k)) for _ in range(h)]
    w_o = rng.normal(scale=(h * d_k) ** -0.5, size=(h * d_k, d_model))  # (h * d_v, d_model)

    w_q = np.concatenate(w_q_list, axis=1)  # (d_model, h * d_k): the separate matrices side by side
    w_k = np.concatenate(w_k_list, axis=1)  # (d_model, h * d_k)
    w_v = np.concatenate(w_v_list, axis=1)  # (d_model, h * d_v)

    mask = causal_mask(L)  # (L, L)
    paper_form = separate_heads(x, w_q_list, w_k_list, w_v_list, w_o, mask)  # (L, d_model)
    fused_form, _ = multi_head_attention(x, w_q, w_k, w_v, w_o, h, mask)  # (L, d_model)
    error = np.max(np.abs(paper_form - fused_form))

    # The other direction: the columns of a fused matrix ARE per-head matrices.
    sliced = max(
        np.max(np.abs(split_heads(x @ w_q, h)[i] - x @ w_q[:, i * d_k : (i + 1) * d_k])) for i in range(h)
    )
    n_separate = sum(w.size for w in w_q_list)
    rows.append([d_model, h, d_k, f"({d_model}, {d_k})", f"({d_model}, {h * d_k})", n_separate, w_q.size,
                 f"{error:.1e}", f"{sliced:.1e}"])
    key = "paper" if label.startswith("paper") else "tutorial"
    value(f"{key}_d_model", d_model)
    value(f"{key}_h", h)
    value(f"{key}_d_k", d_k)
    value(f"{key}_max_error", error, "{:.1e}")
    value(f"{key}_slice_error", sliced, "{:.1e}")
    value(f"{key}_params_w_q", w_q.size)

# What WOULD lose the heads (tutorial sizes): one (d_model, d_k) matrix reused by every head.
shared = [w_q_list[0]] * h, [w_k_list[0]] * h  # h references to one matrix each
same_weights = [scaled_dot_product_attention(x @ wq, x @ wk, x @ wk, mask)[1] for wq, wk in zip(*shared)]  # (L, L) each
value("shared_heads_difference", max(np.max(np.abs(w - same_weights[0])) for w in same_weights), "{:.1f}")
own_weights = [scaled_dot_product_attention(x @ wq, x @ wk, x @ wk, mask)[1] for wq, wk in zip(w_q_list, w_k_list)]
value("separate_heads_difference", max(np.max(np.abs(w - own_weights[0])) for w in own_weights), "{:.2f}")

quantities = ["d_model", "h (heads)", "d_k = d_v = d_model / h", "one head's W_i^Q", "fused W^Q",
              "parameters: h separate W_i^Q", "parameters: fused W^Q", "max abs difference: separate vs fused output",
              "max abs difference: slice of fused vs x @ W_i^Q"]
table("fused_vs_separate", ["", "paper, base model", "tutorial"], [[q, *r] for q, *r in zip(quantities, *rows)])
