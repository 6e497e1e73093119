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
# # Softmax
#
# The runnable companion of the chapter *Softmax*: every snippet of the chapter, in reading order. The first cells load the site's helper modules (`attention.py`, `publish.py`, `running_example.py`, `plotting.py`) from their text, so this notebook runs anywhere with NumPy and matplotlib. The web page hides those cells; the downloaded notebook has them.

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
# ## Softmax turns one row of scores into weights: positive, summing to 1, order kept.
#
# *From `snippets/softmax_definition.py`.*
#
# softmax(z)_j = exp(z_j) / sum_m exp(z_m). We apply it to the scaled scores of
# the query "cat" in the running sentence, then check the properties the rest of
# the site relies on: every weight is positive, the row sums to 1, the largest
# score gets the largest weight, and adding the same constant to every score
# changes nothing.

# %%
import numpy as np

from attention import attention_scores, softmax
from publish import table, value
from running_example import SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
w_q, w_k, _ = projection_weights()
scores = attention_scores(x @ w_q, x @ w_k)  # (L, L)

z = scores[1]  # (L,): the scores of the query "cat" against every key
weights = np.exp(z) / np.sum(np.exp(z))  # (L,): the definition, term by term

table("cat_row", ["key", "score z_j", "exp(z_j)", "weight"], [[t, z[j], np.exp(z[j]), weights[j]] for j, t in enumerate(tokens)],
      fmt="{:.3f}")
value("row_sum", np.sum(weights), "{:.3f}")
value("min_weight", np.min(weights), "{:.3f}")
value("top_key", tokens[int(np.argmax(weights))])
value("top_weight", np.max(weights), "{:.3f}")
value("same_order", bool(np.all(np.argsort(z, kind="stable") == np.argsort(weights, kind="stable"))))
shifted = softmax(z + 1000.0)  # the same scores, all 1000 larger
value("shift_change", np.max(np.abs(shifted - weights)), "{:.1e}")
value("core_change", np.max(np.abs(softmax(z) - weights)), "{:.1e}")

# %% [markdown]
# ## Temperature: softmax(z / T) slides from "all weight on the top key" to "uniform".
#
# *From `snippets/softmax_temperature.py`.*
#
# Dividing the scores by a temperature T before softmax keeps their order but
# changes how decisive the weights are. Small T magnifies every gap between scores,
# so the top key takes almost everything; large T shrinks the gaps, so the weights
# approach 1/L. Scaling by 1/sqrt(d_k) in attention is exactly a temperature of
# sqrt(d_k) applied to the raw dot products.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import attention_scores, softmax
from plotting import COLORS
from publish import table, value
from running_example import SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
w_q, w_k, _ = projection_weights()
z = attention_scores(x @ w_q, x @ w_k)[1]  # (L,): the query "cat"

temperatures = np.logspace(-2, 2, 161)  # 0.01 ... 100
weights = softmax(z[None, :] / temperatures[:, None])  # (n_T, L): one row per temperature


def entropy_bits(p):
    """Shannon entropy of each row in bits; 0 * log 0 counts as 0."""
    logs = np.log2(np.where(p > 0, p, 1.0))
    return -np.sum(p * logs, axis=-1)


rows = []
for t in [0.01, 0.1, 1.0, 10.0, 100.0]:
    p = softmax(z / t)
    rows.append([f"{t:g}", tokens[int(np.argmax(p))], f"{np.max(p):.3f}", f"{entropy_bits(p):.2f}"])
table("temperatures", ["T", "top key", "its weight", "entropy (bits)"], rows)
value("temperature_top_key", tokens[int(np.argmax(z))])
value("top_weight_t001", np.max(softmax(z / 0.01)), "{:.3f}")
value("top_weight_t1", np.max(softmax(z)), "{:.3f}")
value("top_weight_t100", np.max(softmax(z / 100)), "{:.3f}")
value("uniform", 1 / len(tokens), "{:.3f}")
value("max_entropy", np.log2(len(tokens)), "{:.2f}")

fig, ax = plt.subplots(num="temperature", figsize=(7.0, 3.8))
colours = [COLORS[i] for i in (0, 1, 2, 3, 0, 4, 7)]  # "the" reuses the colour of "The": same score
styles = ["-", "-", "-", "-", (0, (3, 3)), "-", "-"]  # ... and is dashed, so both lines stay visible
for j, token in enumerate(tokens):
    ax.plot(temperatures, weights[:, j], color=colours[j], linestyle=styles[j], linewidth=1.8, label=token)
ax.axhline(1 / len(tokens), color="grey", linewidth=0.8, linestyle=":")
ax.text(110, 1 / len(tokens), "1/7", va="center", color="grey")
ax.axvline(1.0, color="grey", linewidth=0.8)
ax.text(1.05, 0.93, "T = 1", color="grey")
ax.set_xscale("log")
ax.set_ylim(0, 1)
ax.set_xlim(temperatures[0], temperatures[-1])
ax.set_xlabel("temperature T (log scale)")
ax.set_ylabel('weight of each key for query "cat"')
ax.legend(title="key", loc="upper left", bbox_to_anchor=(1.08, 1.0), frameon=False)
plt.show()

# %% [markdown]
# ## Naive softmax overflows; subtracting the maximum first does not.
#
# *From `snippets/softmax_overflow.py`.*
#
# exp(z) exceeds the largest float64 (about 1.8e308) once z passes
# ln(1.8e308) = 709.78. The naive formula exp(z) / sum(exp(z)) then computes
# inf / inf = NaN. Because softmax(z) = softmax(z - c) for any constant c, we may
# subtract the row's maximum first: the largest exponent becomes exp(0) = 1 and
# nothing can overflow. We find the exact float64 logit where the naive form
# breaks, by bisection, and compare both forms on a few rows.

# %%
import numpy as np

from attention import softmax
from publish import table, value


def naive_softmax(z):
    e = np.exp(z)  # overflows to inf once z > 709.78
    return e / np.sum(e, axis=-1, keepdims=True)


def stable_softmax(z):
    e = np.exp(z - np.max(z, axis=-1, keepdims=True))  # every exponent <= 0, so e <= 1
    return e / np.sum(e, axis=-1, keepdims=True)


def breaks(z0):
    """Does naive softmax of the row [z0, 0] contain NaN or inf?"""
    with np.errstate(over="ignore", invalid="ignore"):
        return not np.all(np.isfinite(naive_softmax(np.array([z0, 0.0]))))


good, bad = 700.0, 800.0  # naive softmax of [z0, 0] works at 700 and fails at 800
while np.nextafter(good, bad) != bad:  # stop when no float64 lies between them
    middle = good + (bad - good) / 2
    if breaks(middle):
        bad = middle
    else:
        good = middle
value("largest_safe_logit", good, "{!r}")
value("smallest_breaking_logit", bad, "{!r}")
value("log_float64_max", np.log(np.finfo(np.float64).max), "{:.2f}")
value("float64_max", np.finfo(np.float64).max, "{:.2e}")
with np.errstate(over="ignore", invalid="ignore"):
    print("naive softmax([smallest_breaking_logit, 0]) =", naive_softmax(np.array([bad, 0.0])))
    float32_limit = np.log(np.finfo(np.float32).max)
    value("float32_limit", float32_limit, "{:.2f}")
    value("float32_exp_89", str(np.exp(np.float32(89.0))))  # "inf" (JSON has no infinity)

# Very negative rows fail too: every exp underflows to 0 and the division is 0 / 0.
value("exp_minus_746", np.exp(-746.0), "{}")

rows = []
examples = {
    "[1, 2, 3]": [1.0, 2.0, 3.0],
    "[1001, 1002, 1003]": [1001.0, 1002.0, 1003.0],
    "[710, 0, 0]": [710.0, 0.0, 0.0],
    "[-1000, -1001, -1002]": [-1000.0, -1001.0, -1002.0],
    "[1e300, 0, -1e300]": [1e300, 0.0, -1e300],
}
with np.errstate(over="ignore", invalid="ignore"):
    for label, z in examples.items():
        z = np.array(z)
        rows.append([label, str(naive_softmax(z).round(2)), str(stable_softmax(z).round(2)), str(softmax(z).round(2))])
table("compare", ["logits z", "naive", "subtract max", "core"], rows)

# %% [markdown]
# ## The Jacobian of softmax: J = diag(p) - p p^T, checked against finite differences.
#
# *From `snippets/softmax_jacobian.py`.*
#
# For p = softmax(z), dp_i / dz_j = p_i (delta_ij - p_j). In matrix form that is
# J = diag(p) - p p^T: symmetric, every row summing to 0 (adding a constant to z
# changes nothing). We print J for three logits, compare it with central finite
# differences, check the core's softmax_backward (which multiplies by J without
# building it), and watch J shrink as the weights saturate.

# %%
import numpy as np

from attention import softmax, softmax_backward
from publish import table, value

np.set_printoptions(precision=4, suppress=True)

z = np.array([2.0, 1.0, 0.1])
p = softmax(z)  # (3,)
jacobian = np.diag(p) - np.outer(p, p)  # (3, 3): J[i, j] = dp_i / dz_j
print("p =", p)
print("J = diag(p) - p p^T =\n", jacobian)

h = 1e-6
numeric = np.empty((3, 3))
for j in range(3):
    step = np.zeros(3)
    step[j] = h
    numeric[:, j] = (softmax(z + step) - softmax(z - step)) / (2 * h)  # column j: dp / dz_j
print("finite differences =\n", numeric)
value("fd_max_error", np.max(np.abs(numeric - jacobian)), "{:.1e}")
value("row_sum_max", np.max(np.abs(jacobian.sum(axis=1))), "{:.1g}")
value("asymmetry", np.max(np.abs(jacobian - jacobian.T)), "{:.1g}")

# softmax_backward(g, p) returns g^T J without forming J: O(L) work instead of O(L^2).
g = np.array([0.3, -1.2, 0.5])  # an upstream gradient dLoss/dp
value("vjp_error", np.max(np.abs(softmax_backward(g, p) - g @ jacobian)), "{:.1g}")

# Saturation: multiply the logits by a growing factor; the Jacobian's entries collapse towards 0.
rows = []
for factor in [1, 3, 10, 30, 100]:
    p_s = softmax(factor * z)
    j_s = np.diag(p_s) - np.outer(p_s, p_s)
    rows.append([f"{factor}", f"{p_s.max():.6f}", f"{np.max(np.abs(j_s)):.1e}"])
table("saturation", ["logits multiplied by", "largest weight", "largest |J| entry"], rows)
value("max_j_factor1", np.max(np.abs(jacobian)), "{:.3f}")
p_100 = softmax(100 * z)
value("max_j_factor100", np.max(np.abs(np.diag(p_100) - np.outer(p_100, p_100))), "{:.1e}")

# %% [markdown]
# ## Clipping scores to [-50, 50] stops the NaN but changes the answer and kills the gradient.
#
# *From `snippets/softmax_clip.py`.*
#
# A troubleshooting table in one of our source tutorials suggests
# np.clip(scores, -50, 50) before softmax as a NaN fix. We compare it with
# subtracting the maximum on a row whose scores are too large for the naive
# formula, then compare the gradients that reach the scores. Subtracting the max
# is exact; clipping throws away every gap between scores above 50.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import softmax, softmax_backward
from plotting import COLORS
from publish import table, value

np.set_printoptions(precision=3, suppress=False)

scores = np.array([900.0, 860.0, 840.0, 0.0])  # (Lk,): large, as unscaled scores can be
with np.errstate(over="ignore", invalid="ignore"):
    naive = np.exp(scores) / np.sum(np.exp(scores))  # exp(900) = inf -> NaN
clipped = softmax(np.clip(scores, -50, 50))  # the "fix": [50, 50, 50, 0]
exact = softmax(scores)  # subtract the max: [0, -40, -60, -900]
print("naive:  ", naive)
print("clipped:", clipped)
print("exact:  ", exact)
value("clipped_first", clipped[0], "{:.3f}")
value("exact_first", exact[0], "{:.3f}")
value("exact_second", exact[1], "{:.1e}")
value("tv_distance", 0.5 * np.sum(np.abs(clipped - exact)), "{:.3f}")

# Gradient of a cross-entropy loss that wants key 1 (index 1): loss = -log p_1.
target = 1


def d_loss_d_weights(p):
    """dLoss/dp for loss = -log p[target]: -1 / p[target] at the target, 0 elsewhere."""
    return -np.eye(len(p))[target] / p[target]


grad_exact = softmax_backward(d_loss_d_weights(exact), exact)  # dLoss/dscores = p - onehot
inside = (scores > -50) & (scores < 50)  # clip passes a gradient only where it did not clip
grad_clipped = softmax_backward(d_loss_d_weights(clipped), clipped) * inside + 0.0  # + 0.0 turns -0.0 into 0.0
print("dLoss/dscores, exact:  ", grad_exact)
print("dLoss/dscores, clipped:", grad_clipped)
value("grad_norm_exact", np.linalg.norm(grad_exact), "{:.2f}")
value("grad_norm_clipped", np.linalg.norm(grad_clipped), "{:.1e}")


# Check both gradients with central finite differences of the loss itself.
def loss(s, clip):
    p = softmax(np.clip(s, -50, 50) if clip else s)
    return -np.log(p[target])


h = 1e-4
for name, clip, analytic in [("exact", False, grad_exact), ("clipped", True, grad_clipped)]:
    numeric = np.array([(loss(scores + h * e, clip) - loss(scores - h * e, clip)) / (2 * h) for e in np.eye(4)])
    value(f"fd_error_{name}", np.max(np.abs(numeric - analytic)), "{:.1e}")

# Rows like the scores of unscaled or badly initialised attention: N(0, 120^2) entries, 6 keys.
rng = np.random.default_rng(0)
spread = 120.0  # standard deviation of the scores
many = rng.normal(scale=spread, size=(10_000, 6))  # (N, Lk)
tv = 0.5 * np.sum(np.abs(softmax(np.clip(many, -50, 50)) - softmax(many)), axis=-1)  # (N,)
value("many_rows", many.shape[0])
value("many_std", spread, "{:.0f}")
value("many_mean_tv", np.mean(tv), "{:.2f}")
value("many_share_tv_over_01", np.mean(tv > 0.1), "{:.0%}")
value("many_share_clipped", np.mean(np.abs(many) >= 50), "{:.0%}")
table(
    "summary",
    ["method", "weights", "NaN?", "|dLoss/dscores|"],
    [
        ["naive exp / sum", str(naive.round(3)), "yes", "NaN"],
        ["clip to [-50, 50]", str(clipped.round(3)), "no", f"{np.linalg.norm(grad_clipped):.1e}"],
        ["subtract the max", str(exact.round(3)), "no", f"{np.linalg.norm(grad_exact):.2f}"],
    ],
)

fig, ax = plt.subplots(num="clip", figsize=(6.0, 3.4))
keys = [f"key {j}\nscore {s:g}" for j, s in enumerate(scores)]
positions = np.arange(len(scores))
ax.bar(positions - 0.2, exact, width=0.4, color=COLORS[0], label="subtract the max (exact)")
ax.bar(positions + 0.2, clipped, width=0.4, color=COLORS[1], label="clip to [-50, 50]")
ax.set_xticks(positions, keys)
ax.set_ylim(0, 1)
ax.set_ylabel("softmax weight")
ax.legend(frameon=False, loc="upper right")
plt.show()
