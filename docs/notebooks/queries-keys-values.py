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
# # Queries, keys and values
#
# The runnable companion of the chapter *Queries, keys and values*: every snippet of the chapter, in reading order. The first cells load the site's helper modules (`attention.py`, `publish.py`, `running_example.py`, `plotting.py`) from their text, so this notebook runs anywhere with NumPy and matplotlib. The web page hides those cells; the downloaded notebook has them.

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
# ## Three projections of one input: queries, keys and values for "The cat sat on the mat."
#
# *From `snippets/qkv_projections.py`.*
#
# Every token's vector x_i is multiplied by three learned matrices. The query
# q_i = x_i W_q asks, the key k_j = x_j W_k is what q_i is compared with, and the
# value v_j = x_j W_v is what gets mixed into the output. The weights depend only
# on W_q and W_k; W_v changes the output but never the weights.

# %%
import numpy as np

from attention import scaled_dot_product_attention
from publish import table, value
from running_example import SENTENCE, embed, projection_weights, tokenize

np.set_printoptions(precision=3, suppress=True)

tokens = tokenize(SENTENCE)  # 7 tokens
x = embed(tokens)  # (L, d_model) = (7, 8)
w_q, w_k, w_v = projection_weights()  # each (d_model, d_k) = (8, 8)
q = x @ w_q  # (L, d_k): what each token looks for
k = x @ w_k  # (L, d_k): what each token offers to be matched on
v = x @ w_v  # (L, d_v): what each token hands over once matched

print("tokens:", tokens)
table(
    "shapes",
    ["tensor", "shape", "role"],
    [
        ["x", str(x.shape), "one row per token"],
        ["W_q, W_k, W_v", str(w_q.shape), "learned, one matrix per role"],
        ["q = x W_q", str(q.shape), "queries"],
        ["k = x W_k", str(k.shape), "keys"],
        ["v = x W_v", str(v.shape), "values"],
    ],
)

output, weights = scaled_dot_product_attention(q, k, v)  # (L, d_v), (L, L)
w_v_other = np.random.default_rng(7).normal(scale=1 / np.sqrt(x.shape[1]), size=w_v.shape)  # (d_model, d_v)
output_other, weights_other = scaled_dot_product_attention(q, k, x @ w_v_other)
print("\nswap W_v for another matrix:")
value("weights_change_new_wv", np.max(np.abs(weights_other - weights)), "{:.1f}")
value("output_change_new_wv", np.max(np.abs(output_other - output)), "{:.2f}")

# "The" and "the" share one embedding row (the vocabulary is lower-cased) and nothing else
# tells them apart yet, so they get the same query, key and value.
print("\nq of 'The':", q[0])
print("q of 'the':", q[4])
value("the_the_q_difference", np.max(np.abs(q[0] - q[4])), "{:.1f}")

# %% [markdown]
# ## Tie W_q = W_k on the running sentence: the score matrix becomes symmetric.
#
# *From `snippets/qkv_tied.py`.*
#
# With one shared matrix W, the score of query i against key j is
# (x_i W) . (x_j W), which is the same number as the score of j against i. The
# weights are still not symmetric, because softmax normalises each row on its own.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import attention_scores, softmax
from publish import value
from running_example import SENTENCE, embed, projection_weights, tokenize

np.set_printoptions(precision=2, suppress=True)

tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # each (d_model, d_k)

scores_untied = attention_scores(x @ w_q, x @ w_k)  # (L, L)
scores_tied = attention_scores(x @ w_q, x @ w_q)  # (L, L): W_k replaced by W_q
weights_tied = softmax(scores_tied)  # (L, L)

print("tied scores:\n", scores_tied)
value("untied_asymmetry", np.max(np.abs(scores_untied - scores_untied.T)), "{:.2f}")
value("tied_asymmetry", np.max(np.abs(scores_tied - scores_tied.T)), "{:.1f}")
value("tied_weights_asymmetry", np.max(np.abs(weights_tied - weights_tied.T)), "{:.2f}")
value("tied_min_self_score", np.min(np.diag(scores_tied)), "{:.2f}")
value("untied_min_self_score", np.min(np.diag(scores_untied)), "{:.2f}")


def self_is_top(scores):
    """How many rows have their own key among the highest scores (ties count)."""
    return int(np.sum(np.diag(scores) >= scores.max(axis=1)))


value("untied_self_top_rows", self_is_top(scores_untied))
value("tied_self_top_rows", self_is_top(scores_tied))
value("n_tokens", len(tokens))

fig, axes = plt.subplots(1, 2, num="scores", figsize=(7.8, 3.8), layout="constrained")
limit = np.max(np.abs([scores_untied, scores_tied]))
for ax, scores, title in zip(axes, [scores_untied, scores_tied], ["separate $W_q$, $W_k$", "tied: $W_k = W_q$"]):
    image = ax.imshow(scores, cmap="RdBu_r", vmin=-limit, vmax=limit)
    ax.set_xticks(range(len(tokens)), tokens, rotation=45, ha="right")
    ax.set_yticks(range(len(tokens)), tokens)
    ax.set_xlabel("key (attended to)")
    ax.set_ylabel("query (attending)")
    ax.set_title(title)
    ax.spines[:].set_visible(False)
    for i, j in np.ndindex(scores.shape):
        colour = "white" if abs(scores[i, j]) > 0.6 * limit else "black"
        ax.text(j, i, f"{round(scores[i, j], 1) + 0.0:.1f}", ha="center", va="center", fontsize=7.5, color=colour)  # + 0.0: no "-0.0"
fig.colorbar(image, ax=axes, label=r"scaled score $q_i \cdot k_j / \sqrt{d_k}$", shrink=0.85)
plt.show()

# %% [markdown]
# ## How often is a token's best-matching key its own? Tied vs separate W_q, W_k, over many random sentences.
#
# *From `snippets/qkv_self_match.py`.*
#
# Each trial draws a random "sentence" of L = 7 token vectors (entries N(0, 1))
# and random projections (entries N(0, 1/d_model)), exactly like the running
# example but with fresh numbers. For every query row we ask: is the largest
# score on the diagonal? With separate W_q and W_k the answer is "yes" about
# 1/L of the time, as chance predicts. With W_k = W_q the self-score
# |x_i W|^2 is a squared length, and a squared length beats the other dot
# products almost always, more so as d_model grows.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import attention_scores, softmax
from plotting import COLORS
from publish import table, value

rng = np.random.default_rng(2024)
n_sentences, length = 2000, 7
widths = [2, 8, 32, 64]



def one_sentence(rng, d_model):
    """Self-match and self-weight of every row, separate and tied, for one random sentence."""
    x = rng.normal(size=(length, d_model))  # (L, d_model)
    w_q = rng.normal(scale=1 / np.sqrt(d_model), size=(d_model, d_model))  # (d_model, d_k)
    w_k = rng.normal(scale=1 / np.sqrt(d_model), size=(d_model, d_model))  # (d_model, d_k)
    q, k = x @ w_q, x @ w_k  # each (L, d_k)
    result = {}
    for name, keys in [("separate", k), ("tied", q)]:  # tied: the keys are made with W_q too
        scores = attention_scores(q, keys)  # (L, L)
        result[name] = (np.argmax(scores, axis=-1) == np.arange(length), np.diag(softmax(scores)))
    return result


rows = []
rate = {}
for d_model in widths:
    trials = [one_sentence(rng, d_model) for _ in range(n_sentences)]
    rate[d_model] = {name: np.mean([t[name][0] for t in trials]) for name in ("separate", "tied")}
    self_weight = {name: np.mean([t[name][1] for t in trials]) for name in ("separate", "tied")}
    rows.append(
        [
            d_model,
            f"{rate[d_model]['separate']:.1%}",
            f"{rate[d_model]['tied']:.1%}",
            f"{self_weight['separate']:.2f}",
            f"{self_weight['tied']:.2f}",
        ]
    )

table(
    "self_match",
    ["d_model = d_k", "self is best key, separate", "self is best key, tied", "mean self weight, separate",
     "mean self weight, tied"],
    rows,
)
value("n_sentences", n_sentences)
value("n_rows", n_sentences * length)
value("chance", 1 / length, "{:.1%}")
value("separate_rate_d8", rate[8]["separate"], "{:.1%}")
value("tied_rate_d8", rate[8]["tied"], "{:.1%}")
value("tied_rate_d2", rate[2]["tied"], "{:.1%}")
value("tied_rate_d64", rate[64]["tied"], "{:.1%}")
value("tied_misses_d64", int(round((1 - rate[64]["tied"]) * n_sentences * length)))

fig, ax = plt.subplots(num="self-match", figsize=(6.4, 3.6))
positions = np.arange(len(widths))
for offset, name, colour in [(-0.18, "separate", COLORS[0]), (0.18, "tied", COLORS[1])]:
    label = "separate $W_q$, $W_k$" if name == "separate" else "tied $W_k = W_q$"
    ax.bar(positions + offset, [rate[d][name] for d in widths], width=0.36, color=colour, label=label)
ax.axhline(1 / length, color="black", linestyle="--", linewidth=1, label=f"chance, 1/L = 1/{length}")
ax.set_xticks(positions, [str(d) for d in widths])
ax.set_xlabel("d_model = d_k")
ax.set_ylabel("rows whose best key is itself")
ax.set_ylim(0, 1)
ax.yaxis.set_major_formatter(plt.matplotlib.ticker.PercentFormatter(1.0))
ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
plt.show()

# %% [markdown]
# ## Dot product is not cosine similarity: the key's length changes which key wins.
#
# *From `snippets/qkv_dot_vs_cosine.py`.*
#
# q . k = |q| |k| cos(theta). Within one query's row |q| is a common factor, so it
# cannot change which key scores highest (it only sharpens or flattens the softmax).
# The key's length |k| can: a long key at a wider angle beats a short key that
# points the same way as the query. We show a two-dimensional counterexample, then
# measure how often the two rankings disagree on the running sentence and on
# many random sentences.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import softmax
from plotting import COLORS
from publish import table, value
from running_example import SENTENCE, embed, projection_weights, tokenize


def cosine(a, b):
    """Cosine similarity of every row of a with every row of b: (Lq, d), (Lk, d) -> (Lq, Lk)."""
    a_unit = a / np.linalg.norm(a, axis=-1, keepdims=True)  # (..., Lq, d)
    b_unit = b / np.linalg.norm(b, axis=-1, keepdims=True)  # (..., Lk, d)
    return a_unit @ np.swapaxes(b_unit, -1, -2)  # (..., Lq, Lk)


q = np.array([1.0, 0.0])
keys = np.array([[0.9, 0.3], [2.0, 2.0]])  # (2, d): key A points almost like q; key B is long
dots = keys @ q  # (2,)
cosines = cosine(q[None, :], keys)[0]  # (2,)
print("dot products   A, B:", dots)
print("cosines        A, B:", cosines.round(3))
value("a_dot", dots[0], "{:.2f}")
value("b_dot", dots[1], "{:.2f}")
value("a_cos", cosines[0], "{:.3f}")
value("b_cos", cosines[1], "{:.3f}")

# Doubling the query doubles every dot product, leaves every cosine alone, and sharpens softmax.
value("weight_b_q", softmax(keys @ q)[1], "{:.2f}")
value("weight_b_2q", softmax(keys @ (2 * q))[1], "{:.2f}")
value("cos_change_2q", np.max(np.abs(cosine(2 * q[None, :], keys) - cosine(q[None, :], keys))), "{:.1f}")

# The running sentence: the best key of each query, by dot product and by cosine.
tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
w_q, w_k, _ = projection_weights()
q_run, k_run = x @ w_q, x @ w_k  # each (L, d_k)
by_dot = np.argmax(q_run @ k_run.T, axis=-1)  # (L,)
by_cos = np.argmax(cosine(q_run, k_run), axis=-1)  # (L,)
key_length = np.linalg.norm(k_run, axis=-1)  # (L,)
table(
    "running",
    ["query", "best key by q.k", "its length", "best key by cosine", "its length"],
    [[tokens[i], tokens[by_dot[i]], key_length[by_dot[i]], tokens[by_cos[i]], key_length[by_cos[i]]]
     for i in range(len(tokens))],
    fmt="{:.2f}",
)
value("running_disagree", int(np.sum(by_dot != by_cos)))

# Many random sentences, built like the running example.
rng = np.random.default_rng(5)
n_sentences, length, d_model = 2000, 7, 8
x = rng.normal(size=(n_sentences, length, d_model))  # (N, L, d_model)
w_q = rng.normal(scale=1 / np.sqrt(d_model), size=(n_sentences, d_model, d_model))  # (N, d_model, d_k)
w_k = rng.normal(scale=1 / np.sqrt(d_model), size=(n_sentences, d_model, d_model))  # (N, d_model, d_k)
q_all, k_all = x @ w_q, x @ w_k  # each (N, L, d_k)
best_by_dot = np.argmax(q_all @ np.swapaxes(k_all, -1, -2), axis=-1)  # (N, L)
best_by_cos = np.argmax(cosine(q_all, k_all), axis=-1)  # (N, L)
disagree = np.mean(best_by_dot != best_by_cos)
value("n_rows_random", n_sentences * length)
value("disagree_rate", disagree, "{:.1%}")

fig, ax = plt.subplots(num="counterexample", figsize=(5.2, 3.6))
for vector, name, colour in [(q, "query q", COLORS[7]), (keys[0], "key A", COLORS[0]), (keys[1], "key B", COLORS[3])]:
    ax.annotate("", xy=vector, xytext=(0, 0), arrowprops={"arrowstyle": "-|>", "color": colour, "linewidth": 2})
ax.text(1.02, -0.12, "query q", color=COLORS[7])
ax.text(0.92, 0.33, f"key A\nq·k = {dots[0]:.2f}\ncos = {cosines[0]:.2f}", color=COLORS[0], va="bottom")
ax.text(2.05, 1.75, f"key B\nq·k = {dots[1]:.2f}\ncos = {cosines[1]:.2f}", color=COLORS[3], va="top")
ax.set_xlim(-0.1, 2.9)
ax.set_ylim(-0.3, 2.2)
ax.set_aspect("equal")
ax.set_title("q·k picks key B, cosine picks key A")
ax.set_xlabel("dimension 1")
ax.set_ylabel("dimension 2")
plt.show()
