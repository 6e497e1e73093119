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
# # The weighted sum, and one word's view
#
# The runnable companion of the chapter *The weighted sum, and one word's view*: every snippet of the chapter, in reading order. The first cells load the site's helper modules (`attention.py`, `plotting.py`, `publish.py`, `running_example.py`) from their text, so this notebook runs anywhere with NumPy and matplotlib. The web page hides those cells; the downloaded notebook has them.

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
# ## One word's view: the real row of attention weights for "cat".
#
# *From `snippets/weighted_cat_row.py`.*
#
# Single-head causal self-attention on "The cat sat on the mat." (no positional
# encoding yet, untrained random projections). We print the whole weight matrix,
# then the row of the query "cat", and set it next to the row a popular tutorial
# prints for the same sentence. Under a causal mask, "cat" (position 1) may only
# look at "The" and at itself: every later key gets weight exactly 0.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import causal_mask, scaled_dot_product_attention
from plotting import COLORS
from publish import table, value
from running_example import SENTENCE, embed, projection_weights, tokenize

np.set_printoptions(precision=3, suppress=True)

tokens = tokenize(SENTENCE)  # ["The", "cat", "sat", "on", "the", "mat", "."]
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # each (d_model, d_k)
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (L, d_k)
mask = causal_mask(len(tokens))  # (L, L), True on and below the diagonal
output, weights = scaled_dot_product_attention(q, k, v, mask)  # (L, d_v), (L, L)

cat = tokens.index("cat")  # query position 1
row = weights[cat]  # (L,): how "cat" splits its attention over the keys

print("weights (rows = queries, columns = keys):")
print(weights)
print()
print('row of "cat":', row)
value("cat_w_the", row[0], "{:.3f}")
value("cat_w_cat", row[1], "{:.3f}")
value("cat_w_mat", row[tokens.index("mat")], "{:.1f}")
value("cat_row_sum", row.sum(), "{:.3f}")
value("cat_top_key", tokens[int(np.argmax(row))])
value("cat_n_visible", int(mask[cat].sum()))
value("cat_n_zero", int(np.sum(row == 0.0)))
value("the_w_the", weights[0, 0], "{:.1f}")

# The row that seed 000 prints for "cat" (its sentence has no "." token).
claimed = [0.02, 0.45, 0.08, 0.15, 0.03, 0.27]
claimed_row = np.array(claimed + [np.nan])  # (L,): nothing claimed for "."
value("claimed_n_future", int(np.sum(np.array(claimed)[2:] > 0)))
value("claimed_future_mass", float(np.sum(claimed[2:])), "{:.2f}")
table(
    "cat_row",
    ["key", "visible to cat?", "tutorial claims", "our code"],
    [
        [t, "yes" if mask[cat, j] else "no (future)", "—" if np.isnan(c) else f"{c:.2f}", f"{w:.3f}"]
        for j, (t, c, w) in enumerate(zip(tokens, claimed_row, row))
    ],
)

fig, ax = plt.subplots(num="cat-row", figsize=(6.4, 3.6))
positions = np.arange(len(tokens))  # (L,)
future = ~mask[cat]  # (L,): keys "cat" cannot see
ax.axvspan(positions[future][0] - 0.5, positions[-1] + 0.5, color="0.92", zorder=0)
ax.text(positions[future].mean(), 0.9, "future keys: masked, weight 0", ha="center", color="0.25")
ax.bar(positions - 0.2, row, width=0.4, color=COLORS[0], label="our code (real row)")
ax.bar(
    positions[:-1] + 0.2, claimed, width=0.4, facecolor="none", edgecolor=COLORS[3], hatch="///",
    label="tutorial's claimed row",
)
for p, w in zip(positions, row):
    ax.text(p - 0.2, w + 0.015, f"{w:.2f}", ha="center", va="bottom", fontsize=8, color=COLORS[0])
ax.set_xticks(positions, tokens)
ax.set_xlim(-0.6, len(tokens) - 0.4)
ax.set_ylim(0, 1)
ax.set_xlabel("key (attended to)")
ax.set_ylabel('weight from query "cat"')
ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
plt.show()

# %% [markdown]
# ## What an untrained row of weights can and cannot tell you.
#
# *From `snippets/weighted_random_draws.py`.*
#
# Our projections W_q, W_k are random draws, not trained. To see how much of the
# "cat" row is a fact about language and how much is a fact about one draw, we
# redraw W_q and W_k 1000 times (same embeddings, same causal mask) and record
# how "cat" splits its weight. We also check that W_v never changes the weights.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import causal_mask, scaled_dot_product_attention
from plotting import COLORS
from publish import value
from running_example import SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)  # 7 tokens
x = embed(tokens)  # (L, d_model)
d_model = x.shape[1]
cat, mat = tokens.index("cat"), tokens.index("mat")
mask = causal_mask(len(tokens))  # (L, L)

rng = np.random.default_rng(2024)
n_draws = 1000
self_weight = np.empty(n_draws)  # weight "cat" puts on itself, causal mask
top_is_mat = np.empty(n_draws, dtype=bool)  # is "mat" cat's top key without any mask?
for n in range(n_draws):
    w_q, w_k = rng.normal(scale=1 / np.sqrt(d_model), size=(2, d_model, d_model))  # fresh random projections
    q, k = x @ w_q, x @ w_k  # (L, d_k) each
    _, causal = scaled_dot_product_attention(q, k, k, mask)  # (L, L); v does not affect the weights
    _, unmasked = scaled_dot_product_attention(q, k, k)  # (L, L), every key visible
    self_weight[n] = causal[cat, cat]
    top_is_mat[n] = np.argmax(unmasked[cat]) == mat

value("n_draws", n_draws)
value("self_weight_mean", self_weight.mean(), "{:.2f}")
value("self_weight_p05", np.percentile(self_weight, 5), "{:.2f}")
value("self_weight_p95", np.percentile(self_weight, 95), "{:.2f}")
value("self_top_percent", 100 * np.mean(self_weight > 0.5), "{:.0f}%")
value("mat_top_percent_unmasked", 100 * top_is_mat.mean(), "{:.0f}%")
value("n_keys", len(tokens))
value("chance_percent_unmasked", 100 / len(tokens), "{:.0f}%")

# W_v changes the output, never the weights: the weights use only q and k.
w_q, w_k, w_v = projection_weights()  # (d_model, d_k) each
other_w_v = np.random.default_rng(99).normal(scale=1 / np.sqrt(d_model), size=w_v.shape)  # (d_model, d_v)
out_a, weights_a = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask)
out_b, weights_b = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ other_w_v, mask)
value("w_v_weights_change", np.max(np.abs(weights_a - weights_b)), "{:.1f}")
value("w_v_output_change", np.max(np.abs(out_a - out_b)), "{:.2f}")

fig, ax = plt.subplots(num="self-weight", figsize=(6.4, 3.6))
ax.hist(self_weight, bins=np.linspace(0, 1, 21), color=COLORS[0], edgecolor="white")
ax.axvline(weights_a[cat, cat], color=COLORS[3], linestyle="--", label="the draw used on this page")
ax.set_xlim(0, 1)
ax.set_xlabel('weight "cat" puts on itself (the rest goes to "The")')
ax.set_ylabel(f"number of draws (of {n_draws})")
ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
plt.show()

# %% [markdown]
# ## The output row of "cat" is a weighted sum of value rows.
#
# *From `snippets/weighted_sum_rows.py`.*
#
# Attention's last step, ``output = weights @ v``, says: the output for query i is
# sum_j weights[i, j] * v[j]. We compute the "cat" row both ways (one matrix
# product, and an explicit loop over the keys), compare every row of the matrix
# product with the loop, and draw the value rows, the weighted rows and their sum.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import causal_mask, scaled_dot_product_attention
from plotting import COLORS
from publish import value
from running_example import SENTENCE, embed, projection_weights, tokenize

np.set_printoptions(precision=3, suppress=True)

tokens = tokenize(SENTENCE)  # 7 tokens
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # each (d_model, d_k)
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (L, d_k)
output, weights = scaled_dot_product_attention(q, k, v, causal_mask(len(tokens)))  # (L, d_v), (L, L)
cat = tokens.index("cat")

by_matrix = weights[cat] @ v  # (d_v,): one row of weights @ v
by_hand = np.zeros(v.shape[1])  # (d_v,)
for j in range(len(tokens)):  # every key, masked ones included (their weight is 0)
    by_hand += weights[cat, j] * v[j]

print('weights of "cat":', weights[cat])
print("v[The]:", v[0])
print("v[cat]:", v[1])
print('output of "cat" (weights @ v):', by_matrix)
print('output of "cat" (explicit sum):', by_hand)
value("cat_sum_max_error", np.max(np.abs(by_matrix - by_hand)), "{:.1e}")

# The same comparison for every query row of the full matrix product.
loop = np.array([sum(weights[i, j] * v[j] for j in range(len(tokens))) for i in range(len(tokens))])  # (L, d_v)
value("all_rows_max_error", np.max(np.abs(output - loop)), "{:.1e}")

# A weighted average stays inside the range of the rows it mixes, column by column.
visible = v[: cat + 1]  # (2, d_v): the value rows "cat" can see
inside = (by_matrix >= visible.min(axis=0) - 1e-12) & (by_matrix <= visible.max(axis=0) + 1e-12)
value("cat_columns_inside", f"{int(inside.sum())} of {inside.size}")
value("the_output_minus_v_the", np.max(np.abs(output[0] - v[0])), "{:.1f}")  # "The" sees only itself

# Figure: for each feature, the output of "cat" lies on the segment between v[The] and v[cat].
features = np.arange(v.shape[1])  # (d_v,)
fig, ax = plt.subplots(num="weighted-sum", figsize=(6.4, 3.8))
ax.vlines(features, np.minimum(v[0], v[1]), np.maximum(v[0], v[1]), color="0.75", linewidth=3, zorder=1)
ax.scatter(features, v[0], marker="s", s=40, color=COLORS[1], zorder=2, label=f"v[The] (weight {weights[cat, 0]:.2f})")
ax.scatter(features, v[1], marker="^", s=45, color=COLORS[2], zorder=2, label=f"v[cat] (weight {weights[cat, 1]:.2f})")
ax.scatter(features, by_matrix, marker="o", s=45, color=COLORS[7], label='output of "cat"', zorder=3)
ax.axhline(0, color="0.6", linewidth=0.8, zorder=0)
ax.set_xticks(features)
ax.set_xlabel("feature (column of v)")
ax.set_ylabel("value")
ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False, fontsize=9)
plt.show()
