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
# # Debugging attention
#
# The runnable companion of the chapter *Debugging attention*: every snippet of the chapter, in reading order. The first cells load the site's helper modules (`attention.py`, `debug_tools.py`, `publish.py`, `running_example.py`, `plotting.py`) from their text, so this notebook runs anywhere with NumPy and matplotlib. The web page hides those cells; the downloaded notebook has them.

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
load_module("debug_tools", r'''"""Diagnostics for attention bugs: small functions to paste next to your code.

Each function answers one question with a number. Is the softmax saturated?
Does a query put weight on padding? Does a position see the future? Does the
analytic gradient match finite differences?
"""

import numpy as np


def naive_softmax(scores):
    """Softmax without the max subtraction (what seed 000's code does)."""
    e = np.exp(scores)
    return e / e.sum(axis=-1, keepdims=True)


def capture_error(fn):
    """Run fn(); return "ExceptionType: message" if it raises, else None."""
    try:
        fn()
    except Exception as error:  # we want the message, whatever the type
        return f"{type(error).__name__}: {str(error).strip()}"
    return None


def shape_report(**arrays):
    """"name (shape), ...": the first thing to print on a shape error."""
    return ", ".join(f"{name} {np.shape(a)}" for name, a in arrays.items())


def weight_stats(weights):
    """(mean top weight per row, mean row entropy in nats)."""
    weights = np.asarray(weights)
    safe = np.where(weights > 0, weights, 1.0)  # 0 log 0 counts as 0
    entropy = -np.sum(weights * np.log(safe), axis=-1)
    return float(weights.max(axis=-1).mean()), float(entropy.mean())


def padding_weight(weights, lengths):
    """Largest total weight a real query puts on padding keys (0 = none).

    weights (B, L, L); lengths (B,) number of real tokens per sequence.
    """
    weights = np.asarray(weights)
    n = weights.shape[-1]
    is_pad = np.arange(n)[None, :] >= np.asarray(lengths)[:, None]  # (B, L)
    on_pad = np.sum(weights * is_pad[:, None, :], axis=-1)  # (B, L)
    return float(np.max(np.where(is_pad, 0.0, on_pad)))  # real queries only


def future_leak(attend, x, seed=0):
    """Largest change of output[:t+1] when every input after t is replaced.

    attend(x) -> output maps (L, d) to (L, d_v). A causal layer gives 0.
    """
    rng = np.random.default_rng(seed)
    x = np.asarray(x, dtype=np.float64)
    base = attend(x)
    leak = 0.0
    for t in range(x.shape[0] - 1):
        changed = x.copy()
        future = changed[t + 1 :]
        changed[t + 1 :] = rng.normal(size=future.shape)  # new future tokens
        moved = np.abs(attend(changed)[: t + 1] - base[: t + 1])  # the past
        leak = max(leak, float(moved.max()))
    return leak


def numeric_gradient(f, x, eps=1e-6):
    """Central finite differences of a scalar function f at x."""
    x = np.asarray(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = eps
        grad[index] = (f(x + step) - f(x - step)) / (2 * eps)
    return grad


def relative_error(a, b):
    """max |a - b| / max(|a|, |b|): 1e-9 or less when a gradient is right."""
    a, b = np.asarray(a), np.asarray(b)
    scale = max(np.max(np.abs(a)), np.max(np.abs(b)), 1e-300)
    return float(np.max(np.abs(a - b)) / scale)
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
# ## Shape errors: which line raises "operands could not be broadcast together".
#
# *From `snippets/debug_shapes.py`.*
#
# Seed 000 hard-codes a 6 x 6 causal mask. Our running sentence has 7 tokens, so
# the seed's code fails at the mask, not at Q, K or V. We capture each error
# message, show which diagnostic finds it, fix it, and then show a head-split bug
# that raises nothing at all.

# %%
import numpy as np

from attention import causal_mask, scaled_dot_product_attention
from debug_tools import capture_error, naive_softmax, shape_report
from publish import value
from running_example import SENTENCE, embed, tokenize

rng = np.random.default_rng(0)
tokens = tokenize(SENTENCE)  # 7 tokens
d_model, n_heads = 128, 2  # seed 000's sizes
d_head = d_model // n_heads  # 64
x = embed(tokens, d_model)  # (7, 128)
w_q, w_k, w_v = (rng.normal(scale=d_model**-0.5, size=(d_model, d_model)) for _ in range(3))


def head0(x, w):
    """Project, split into heads, keep head 0 (seed 000's section 4.1)."""
    L = x.shape[0]
    return (x @ w).reshape(L, n_heads, d_head).transpose(1, 0, 2)[0]  # (L, 64)


def seed_style_attention(x, w_q, w_k, w_v):
    """Seed 000's head 0, with its hard-coded mask."""
    q, k, v = head0(x, w_q), head0(x, w_k), head0(x, w_v)  # each (L, 64)
    print("seed's check  ->", shape_report(Q=q, K=k, V=v))
    scores = q @ k.T / np.sqrt(d_head)  # (L, L)
    mask = np.triu(np.ones((6, 6)), k=1)  # (6, 6): for 6-word sentences
    print("better check  ->", shape_report(scores=scores, mask=mask))
    scores = scores - 1e9 * mask  # raises unless L == 6
    return naive_softmax(scores) @ v


seed_error = capture_error(lambda: seed_style_attention(x, w_q, w_k, w_v))
print(seed_error)
value("seed_broadcast_error", seed_error)

q, k, v = x @ w_q[:, :d_head], x @ w_k, x @ w_v  # q (7, 64), k (7, 128)
errors = {
    "naive q @ k.T": capture_error(lambda: q @ k.T),
    "core attention": capture_error(
        lambda: scaled_dot_product_attention(q, k, v)
    ),
    "batched matmul": capture_error(
        lambda: np.ones((2, 7, 64)) @ np.ones((3, 64, 7))
    ),
    "core, 6x6 mask": capture_error(  # the scores are (7, 7)
        lambda: scaled_dot_product_attention(x, x, x, mask=causal_mask(6))
    ),
    "bad reshape": capture_error(lambda: (x @ w_q).reshape(7, n_heads, 32)),
}
for where, message in errors.items():
    print(f"{where:15s} {message}")
value("naive_matmul_error", errors["naive q @ k.T"])
value("core_qk_error", errors["core attention"])
value("batch_broadcast_error", errors["batched matmul"])
value("core_mask_error", errors["core, 6x6 mask"])
value("reshape_error", errors["bad reshape"])


def fixed_attention(x, w_q, w_k, w_v):
    """The same head, with the mask built from the sentence's length."""
    q, k, v = head0(x, w_q), head0(x, w_k), head0(x, w_v)  # each (L, 64)
    mask = causal_mask(x.shape[0])  # (L, L)
    output, _ = scaled_dot_product_attention(q, k, v, mask)  # (L, 64)
    return output


for n_words in (5, 6, 7):
    output = fixed_attention(x[:n_words], w_q, w_k, w_v)
    print(f"{n_words} tokens -> output {output.shape}")
first = slice(0, d_head)  # head 0's weight columns
reference, _ = scaled_dot_product_attention(
    x @ w_q[:, first], x @ w_k[:, first], x @ w_v[:, first], mask=causal_mask(7)
)
fixed_error = np.max(np.abs(fixed_attention(x, w_q, w_k, w_v) - reference))
value("fixed_max_error", fixed_error, "{:.1e}")

L = len(tokens)
projected = x @ w_q  # (L, d_model)
right = projected.reshape(L, n_heads, d_head).transpose(1, 0, 2)  # (h, L, d)
wrong = projected.reshape(n_heads, L, d_head)  # (h, L, d), rows scrambled
per_head = np.stack(  # head h uses columns h*d_head ... (h+1)*d_head of W_q
    [x @ w_q[:, h * d_head : (h + 1) * d_head] for h in range(n_heads)]
)  # (h, L, d_head)
print("right split vs per-head:", np.max(np.abs(right - per_head)))
print("wrong split vs per-head:", np.max(np.abs(wrong - per_head)).round(3))
value("right_split_error", np.max(np.abs(right - per_head)), "{:.1e}")
value("wrong_split_error", np.max(np.abs(wrong - per_head)), "{:.2f}")
value("n_tokens", L)

# %% [markdown]
# ## One-hot rows and uniform rows: one bug (the scale of W_q, W_k), two directions.
#
# *From `snippets/debug_saturation.py`.*
#
# Seed 000 draws W_q and W_k with standard deviation 1 and divides by sqrt(d_k):
# its rows come out one-hot. Seed 003 draws them with standard deviation 0.01:
# its rows come out uniform, a "dead head". A standard deviation of
# 1/sqrt(d_model) keeps the scaled scores near unit variance. Same sentence, same
# embeddings; only the scale changes.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import attention_scores, sinusoidal_positions, softmax
from debug_tools import weight_stats
from plotting import weights_heatmap
from publish import table, value
from running_example import SENTENCE, embed, tokenize

tokens = tokenize(SENTENCE)  # 7 tokens
L = len(tokens)
d_model, d_k = 128, 64  # seed 000's sizes: one head of two
x = embed(tokens, d_model) + sinusoidal_positions(L, d_model)  # (7, 128)
value("d_model", d_model)
value("n_rows", L)

inits = {
    "std 1 (seed 000)": 1.0,
    "std 1/sqrt(d_model)": d_model**-0.5,
    "std 0.01 (seed 003)": 0.01,
}
rows, all_weights = [], {}
for name, std in inits.items():
    rng = np.random.default_rng(1)  # the same directions for every scale
    w_q = rng.normal(scale=std, size=(d_model, d_k))  # (128, 64)
    w_k = rng.normal(scale=std, size=(d_model, d_k))  # (128, 64)
    scores = attention_scores(x @ w_q, x @ w_k)  # (7, 7), over sqrt(d_k)
    weights = softmax(scores)  # (7, 7)
    top, entropy = weight_stats(weights)
    # the diagnostic: print these two numbers for any attention layer
    std = scores.std()
    print(f"{name:20s} scaled-score std {std:9.4f}   top weight {top:.3f}")
    rows.append([name, std, top, entropy, weights.min(), weights.max()])
    all_weights[name] = weights

seed000 = all_weights["std 1 (seed 000)"]
value("std1_score_std", rows[0][1], "{:.0f}")
value("std1_row_max", rows[0][2], "{:.3f}")
value("one_hot_threshold", 0.99)
value("std1_rows_above_099", int(np.sum(seed000.max(axis=-1) > 0.99)))
value("std1_factor", d_model * 1.0**2, "{:.0f}")  # d_model * sigma_W^2
value("fixed_score_std", rows[1][1], "{:.2f}")
value("fixed_row_max", rows[1][2], "{:.2f}")
value("small_score_std", rows[2][1], "{:.3f}")
value("small_min_weight", rows[2][4], "{:.3f}")
value("small_max_weight", rows[2][5], "{:.3f}")
value("uniform_weight", 1 / L, "{:.3f}")
value("max_entropy", np.log(L), "{:.2f}")
value("small_entropy", rows[2][3], "{:.3f}")

# Seed 000's table: divide by sqrt(d_k), the head width, not sqrt(d_model).
rng = np.random.default_rng(1)
w_q, w_k = rng.normal(size=(2, d_model, d_k))  # std 1 again, each (128, 64)
raw = (x @ w_q) @ (x @ w_k).T  # (7, 7)
for name, divisor in (("sqrt(d_k)", d_k**0.5),
                      ("sqrt(d_model)", d_model**0.5)):
    top, _ = weight_stats(softmax(raw / divisor))
    print(f"std 1, divide by {name:13s}: mean top weight {top:.3f}")
value("dmodel_divisor_row_max", top, "{:.3f}")
header = ["W_q, W_k init", "scaled-score std", "mean top weight",
          "mean entropy (nats)", "min weight", "max weight"]
table("scales", header, rows)

fig, axes = plt.subplots(1, 3, num="three-inits", figsize=(9.5, 3.7), layout="constrained")
for ax, (name, weights) in zip(axes, all_weights.items()):
    image = weights_heatmap(ax, weights, tokens, tokens, annotate=False, title=f"W_q, W_k: {name}")
fig.colorbar(image, ax=axes, label="weight", shrink=0.8)
plt.show()

# %% [markdown]
# ## NaN from exp overflow: the real warning, the diagnostic, two fixes compared.
#
# *From `snippets/debug_nan.py`.*
#
# Without the 1/sqrt(d_k) scale and with seed 000's standard-deviation-1 weights,
# the scores reach the thousands. exp overflows above about 709.78 in float64, the
# naive softmax divides inf by inf, and rows turn into NaN. Seed 000's table
# suggests np.clip(scores, -50, 50); subtracting each row's maximum is exact.

# %%
import warnings

import numpy as np

from attention import sinusoidal_positions, softmax, softmax_backward
from debug_tools import naive_softmax
from publish import table, value
from running_example import SENTENCE, embed, tokenize

np.set_printoptions(precision=3)
tokens = tokenize(SENTENCE)  # 7 tokens
L, d_model, d_k = len(tokens), 128, 64
x = embed(tokens, d_model) + sinusoidal_positions(L, d_model)  # (7, 128)
rng = np.random.default_rng(1)
w_q, w_k = rng.normal(size=(2, d_model, d_k))  # std 1, as in seed 000
scores = (x @ w_q) @ (x @ w_k).T  # (7, 7): the 1/sqrt(d_k) forgotten

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    weights = naive_softmax(scores)  # (7, 7)
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
nan_rows = int(np.sum(np.isnan(weights).any(axis=-1)))
print(f"rows containing NaN: {nan_rows} of {L}")

# the diagnostic: exp(s) overflows once s > log(largest float64)
limit = np.log(np.finfo(np.float64).max)
print(f"max score {scores.max():.1f}  vs overflow limit {limit:.2f}")
messages = [f"{w.category.__name__}: {w.message}" for w in caught]
value("overflow_warnings", "; ".join(messages))
value("nan_rows", nan_rows)
value("n_queries", L)
value("max_score", scores.max(), "{:.0f}")
value("exp_limit", limit, "{:.2f}")

exact = softmax(scores)  # subtracts the row max: exp never sees s > 0
clipped = naive_softmax(np.clip(scores, -50, 50))  # seed 000's protection
print("NaN left: max subtraction", np.isnan(exact).any(),
      "| clipping", np.isnan(clipped).any())
print(f"largest weight error, clipping: {np.abs(clipped - exact).max():.3f}")
tied = int(np.sum(np.sum(np.clip(scores, -50, 50) == 50, axis=-1) > 1))
print("rows where clipping ties several keys at 50:", tied)

# A clipped score no longer moves the output: its gradient is exactly 0.
upstream = np.random.default_rng(2).normal(size=scores.shape)  # any dL/dw
d_scores = softmax_backward(upstream, clipped) * (np.abs(scores) < 50)
print(f"scores with zero gradient, clipping: {np.mean(d_scores == 0):.0%}")
value("clip_weight_error", np.abs(clipped - exact).max(), "{:.2f}")
value("clip_tied_rows", tied)
value("clip_zero_grad_share", np.mean(d_scores == 0), "{:.0%}")

row = np.array([120.0, 80.0, 60.0, 0.0])
print("exact  :", softmax(row))
print("clipped:", naive_softmax(np.clip(row, -50, 50)))
value("row_exact_top", softmax(row)[0], "{:.6f}")
value("row_clipped_top", naive_softmax(np.clip(row, -50, 50))[0], "{:.3f}")

healthy = scores / np.sqrt(d_k) / 100  # small scores: no overflow anywhere
print("naive vs stable on small scores:",
      np.abs(naive_softmax(healthy) - softmax(healthy)).max())
value("shift_error", np.abs(naive_softmax(healthy) - softmax(healthy)).max(), "{:.1e}")
table(
    "row",
    ["scores [120, 80, 60, 0]", "weight 1", "weight 2", "weight 3", "weight 4"],
    [
        ["subtract the max (exact)", *softmax(row)],
        ["clip to [-50, 50]", *naive_softmax(np.clip(row, -50, 50))],
    ],
    fmt="{:.2g}",
)

# %% [markdown]
# ## NaN from a row with every key masked, and how three mask styles handle it.
#
# *From `snippets/debug_masked_rows.py`.*
#
# Left padding plus a causal mask leaves the first query with no key it may see:
# its only visible key is padding. Masking with -inf and the naive softmax gives
# 0/0 = NaN; masking with -1e9 gives a silent uniform row over keys that should be
# invisible; the core module returns zeros for such a row.

# %%
import warnings

import numpy as np

from attention import causal_mask, scaled_dot_product_attention, softmax
from debug_tools import naive_softmax
from publish import table, value

rng = np.random.default_rng(3)
tokens = ["[PAD]", "[PAD]", "The", "cat", "sat"]  # left-padded to length 5
L, d = len(tokens), 8
q, k, v = rng.normal(size=(3, L, d))  # each (5, 8)

is_real = np.array([t != "[PAD]" for t in tokens])  # (5,)
allowed = causal_mask(L) & is_real[None, :]  # (5, 5): real, not future
print("keys visible to each query:", allowed.sum(axis=-1))
scores = q @ k.T / np.sqrt(d)  # (5, 5)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    w_inf = naive_softmax(np.where(allowed, scores, -np.inf))  # (5, 5)
w_big = softmax(np.where(allowed, scores, -1e9))  # (5, 5)
_, w_core = scaled_dot_product_attention(q, k, v, mask=allowed)  # (5, 5)

for name, w in (("-inf, naive", w_inf), ("-1e9", w_big), ("core", w_core)):
    print(f"{name:12s} row 0: {np.array2string(w[0], precision=3)}")
print("warnings:", "; ".join(str(c.message) for c in caught))
value("visible_keys_row0", int(allowed[0].sum()))
value("inf_nan_rows", int(np.isnan(w_inf).any(axis=-1).sum()))
value("big_row0_weight", w_big[0, 0], "{:.2f}")
value("core_row0_sum", w_core[0].sum(), "{:.1f}")
value("masked_rows_warning", str(caught[0].message))

# the diagnostic: count the keys each query may see, before the softmax
blind = np.flatnonzero(allowed.sum(axis=-1) == 0)
print("queries that see no key:", [f"{tokens[i]}@{i}" for i in blind])
value("blind_queries", len(blind))
value("big_row0_future_weight", w_big[0, is_real].sum(), "{:.1f}")  # on future tokens


def verdict(w):
    return "correct" if np.allclose(w[2:], w_core[2:]) else "wrong"


table(
    "styles",
    ["masked score", "row 0 (no visible key)", "rows with visible keys"],
    [
        ["-inf, naive softmax", "NaN" if np.isnan(w_inf[0]).all() else "?", verdict(w_inf)],
        ["-1e9", f"uniform {w_big[0, 0]:.2f} over invisible keys", verdict(w_big)],
        ["core module (-inf, guarded)", f"all zeros, sum {w_core[0].sum():.0f}", "correct"],
    ],
)

# %% [markdown]
# ## Gradients through a mask, a finite-difference check, a penalty that cannot work.
#
# *From `snippets/debug_gradients.py`.*
#
# Seed 000 blames a NaN on "forgetting .detach() before masking". A mask is a
# constant: the gradient reaching a masked score is exactly 0, and no NaN appears.
# We check the core's backward pass against finite differences, then show that an
# L1 penalty on attention weights has zero gradient, because every row sums to 1.

# %%
import numpy as np

from attention import (
    causal_mask,
    scaled_dot_product_attention,
    scaled_dot_product_attention_backward,
    softmax,
    softmax_backward,
)
from debug_tools import numeric_gradient, relative_error
from publish import value

rng = np.random.default_rng(4)
L, d = 7, 8
q, k, v = rng.normal(size=(3, L, d))  # each (7, 8)
g = rng.normal(size=(L, d))  # dLoss/d(output) for the loss sum(output * g)
mask = causal_mask(L)  # (7, 7)

output, weights = scaled_dot_product_attention(q, k, v, mask)
d_weights = g @ v.T  # (7, 7)
d_scores = softmax_backward(d_weights, weights)  # (7, 7): reaches each score
print(f"max |gradient| on a masked score : {np.abs(d_scores[~mask]).max()}")
print(f"max |gradient| on a visible score: {np.abs(d_scores[mask]).max():.3}")
dq, dk, dv = scaled_dot_product_attention_backward(g, q, k, v, mask)
print("any NaN in dq, dk, dv:", any(np.isnan(a).any() for a in (dq, dk, dv)))
value("masked_grad_max", np.abs(d_scores[~mask]).max(), "{:.1f}")
value("visible_grad_max", np.abs(d_scores[mask]).max(), "{:.2f}")
value("dq_norm", np.linalg.norm(dq), "{:.2f}")
value("dk_norm", np.linalg.norm(dk), "{:.2f}")


def loss(q_, k_, v_):
    return np.sum(scaled_dot_product_attention(q_, k_, v_, mask)[0] * g)


errors = {
    "dq": relative_error(dq, numeric_gradient(lambda a: loss(a, k, v), q)),
    "dk": relative_error(dk, numeric_gradient(lambda a: loss(q, a, v), k)),
    "dv": relative_error(dv, numeric_gradient(lambda a: loss(q, k, a), v)),
}
for name, error in errors.items():
    print(f"gradcheck {name}: relative error {error:.1e}")
value("gradcheck_worst", max(errors.values()), "{:.0e}")

scores = rng.normal(size=(L, L))  # (7, 7) logits of one head


def l1_penalty(s):
    return np.abs(softmax(s)).sum()  # = number of rows, whatever s is


def entropy_penalty(s):
    w = softmax(s)
    return -np.sum(w * np.log(w))


print("L1 norm of each row:", np.abs(softmax(scores)).sum(axis=-1))
l1_grad = np.abs(numeric_gradient(l1_penalty, scores)).max()
entropy_grad = np.abs(numeric_gradient(entropy_penalty, scores)).max()
print(f"max |d L1 / d scores|      {l1_grad:.1e}")
print(f"max |d entropy / d scores| {entropy_grad:.2f}")

# 200 steps of gradient descent on the logits, analytic gradients
gradients = {
    "L1": lambda w: softmax_backward(np.sign(w), w),  # d|w|/dw = sign(w)
    "entropy": lambda w: softmax_backward(-(np.log(w) + 1), w),
}
tops = {}
for name, gradient in gradients.items():
    s = scores.copy()
    for _ in range(200):
        s -= 0.5 * gradient(softmax(s))
    tops[name] = softmax(s).max(-1).mean()
    before = softmax(scores).max(-1).mean()
    print(f"{name:8s}: mean top weight {before:.3f} -> {tops[name]:.3f}")
value("l1_grad_max", l1_grad, "{:.0e}")
value("entropy_grad_max", entropy_grad, "{:.2f}")
value("top_before", softmax(scores).max(-1).mean(), "{:.3f}")
value("top_after_l1", tops["L1"], "{:.3f}")
value("top_after_entropy", tops["entropy"], "{:.3f}")

# %% [markdown]
# ## A model that attends to padding: the symptom, a diagnostic, the padding mask.
#
# *From `snippets/debug_padding.py`.*
#
# Batching pads the short sentence with [PAD] tokens. Without a padding mask, its
# real tokens spend weight on those pads, so their outputs depend on how much
# padding the batch happened to need. Zero vectors for [PAD] do not help: a zero
# key still gets score 0, and exp(0) = 1 is not 0.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import padding_mask, scaled_dot_product_attention
from debug_tools import padding_weight
from plotting import weights_heatmap
from publish import value
from running_example import build_vocab, embedding_table, projection_weights, tokenize

sentences = ["The cat sat on the mat.", "The cat sat."]
token_lists = [tokenize(s) for s in sentences]  # 7 and 4 tokens
vocab = build_vocab([t for tokens in token_lists for t in tokens])
table = embedding_table(len(vocab))  # (vocab, 8)
w_q, w_k, w_v = projection_weights()  # each (8, 8)


def batch(token_lists, n):
    """Stack sentences into (B, n, d_model), padding with zero vectors."""
    x = np.zeros((len(token_lists), n, table.shape[1]))  # (B, n, 8)
    for b, tokens in enumerate(token_lists):
        x[b, : len(tokens)] = table[[vocab[t.lower()] for t in tokens]]
    return x


def attend(x, mask=None):
    """Single-head self-attention: (B, n, 8) -> output (B, n, 8), weights (B, n, n)."""
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask)


lengths = np.array([len(t) for t in token_lists])  # [7, 4]
x = batch(token_lists, 7)  # (2, 7, 8)
alone, _ = attend(batch(token_lists[1:], 4))  # "The cat sat." with no padding
results = {}
for name, mask in (("no_mask", None),
                   ("padding_mask", padding_mask(lengths, 7))):
    output, weights = attend(x, mask)
    drift = np.abs(output[1, :4] - alone[0]).max()  # sentence 2's real tokens
    results[name] = (padding_weight(weights, lengths), drift)
    print(f"{name:13s} weight on [PAD] {results[name][0]:.3f}   "
          f"output change vs unpadded {drift:.1e}")
for name, (pad_weight, drift) in results.items():
    value(f"{name}_pad_weight", pad_weight, "{:.3f}")
    value(f"{name}_drift", drift, "{:.1e}")

# the diagnostic: a real token must not care how much padding the batch needed
masks = {
    "no_mask": lambda n: None,
    "padding_mask": lambda n: padding_mask(lengths, n),
}
changes = {}
for name, make_mask in masks.items():
    outs = [  # "The cat sat." padded to 7, then to 10
        attend(batch(token_lists, n), make_mask(n))[0][1, :4] for n in (7, 10)
    ]
    changes[name] = np.abs(outs[0] - outs[1]).max()
    print(f"{name:13s} pad to 7 vs pad to 10: max change {changes[name]:.1e}")
for name, change in changes.items():
    value(f"{name}_invariance", change, "{:.1e}")

labels = token_lists[1] + ["[PAD]"] * 3
panels = (("no padding mask", None), ("with padding_mask", padding_mask(lengths, 7)))
fig, axes = plt.subplots(1, 2, num="padding", figsize=(8.5, 4.3), layout="constrained")
for ax, (title, mask) in zip(axes, panels):
    weights = attend(x, mask)[1][1]  # (7, 7) for "The cat sat." + 3 pads
    image = weights_heatmap(ax, weights, labels, labels, title=f'"The cat sat.", {title}')
fig.colorbar(image, ax=axes, label="weight", shrink=0.8)
plt.show()

# %% [markdown]
# ## A causal mask that leaks: three plausible bugs, one test that catches them all.
#
# *From `snippets/debug_leak.py`.*
#
# The test: replace every token after position t with random vectors and measure
# how much the outputs at positions 0..t move. A decoder that cannot see the
# future moves them by exactly 0. The bugs: no mask, an off-by-one diagonal, and
# seed 000's "1 = blocked" mask handed to an API where True means "may attend".

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import causal_mask, scaled_dot_product_attention, softmax
from debug_tools import future_leak
from plotting import weights_heatmap
from publish import table, value
from running_example import SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)  # 7 tokens
L = len(tokens)
x = embed(tokens)  # (7, 8)
w_q, w_k, w_v = projection_weights()  # each (8, 8)
ones = np.ones((L, L))

masks = {
    "causal_mask(L)": causal_mask(L),  # True on and below the diagonal
    "no mask": ones.astype(bool),
    "np.tril(k=1), off by one": np.tril(ones, k=1).astype(bool),  # sees t + 1
    "np.triu(k=1) inverted": np.triu(ones, k=1).astype(bool),  # 1 = blocked
}
leaks = {}
for name, mask in masks.items():
    def attend(x_):
        q, k, v = x_ @ w_q, x_ @ w_k, x_ @ w_v  # each (L, 8)
        return scaled_dot_product_attention(q, k, v, mask)[0]  # (L, 8)
    leaks[name] = future_leak(attend, x)
    print(f"{name:26s} future leak {leaks[name]:.3f}")
value("leak_causal", leaks["causal_mask(L)"], "{:.1f}")
value("leak_none", leaks["no mask"], "{:.2f}")
value("leak_off_by_one", leaks["np.tril(k=1), off by one"], "{:.2f}")
value("leak_inverted", leaks["np.triu(k=1) inverted"], "{:.2f}")

q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (7, 8)
scores = q @ k.T / np.sqrt(q.shape[-1])  # (7, 7)
blocked = np.triu(ones, k=1)  # seed 000's mask: 1 = blocked
after = softmax(scores) - 1e9 * blocked  # mask applied AFTER the softmax
print(f"smallest weight {after.min():.3g}, row sums {after.sum(-1)[:3]}")
zeroed = softmax(scores) * (1 - blocked)  # or: multiply by 0/1 afterwards
print("multiply after softmax, row sums:", zeroed.sum(axis=-1).round(3))
value("after_min_weight", after.min(), "{:.0e}")
value("after_row0_sum", after.sum(axis=-1)[0], "{:.0e}")
value("zeroed_row0_sum", zeroed.sum(axis=-1)[0], "{:.3f}")
table(
    "leaks",
    ["mask", "largest change of a past output when the future changes"],
    [[name, leak] for name, leak in leaks.items()],
    fmt="{:.3g}",
)

shown = ["causal_mask(L)", "np.tril(k=1), off by one", "np.triu(k=1) inverted"]
fig, axes = plt.subplots(1, 3, num="masks", figsize=(9.5, 3.7), layout="constrained")
for ax, name in zip(axes, shown):
    _, weights = scaled_dot_product_attention(q, k, v, masks[name])  # (7, 7)
    image = weights_heatmap(ax, weights, tokens, tokens, annotate=False, title=name)
fig.colorbar(image, ax=axes, label="weight", shrink=0.8)
plt.show()

# %% [markdown]
# ## 'Over-attends to the first word': a baseline, and a fix that does nothing.
#
# *From `snippets/debug_first_token.py`.*
#
# Seed 000 blames heavy attention on "The" on a positional encoding that is too
# large, and normalises it with pos_enc / np.max(np.abs(pos_enc)). Sinusoidal
# encodings already peak at exactly 1, so that line changes nothing. Under a
# causal mask the first key gets a large share of the weight even when every query
# spreads its weight evenly: query i sees i + 1 keys, and key 0 is always one.

# %%
import numpy as np

from attention import causal_mask, scaled_dot_product_attention, sinusoidal_positions
from publish import table, value
from running_example import SENTENCE, embed, tokenize

tokens = tokenize(SENTENCE)  # 7 tokens
L, d_model, d_k = len(tokens), 128, 64

for n in (L, 512):
    pos_enc = sinusoidal_positions(n, d_model)  # (n, 128)
    normalised = pos_enc / np.max(np.abs(pos_enc))  # seed 000's fix
    print(f"{n:3d} positions: max |PE| = {np.max(np.abs(pos_enc))}, "
          f"change = {np.max(np.abs(normalised - pos_enc))}, "
          f"std(PE) = {pos_enc.std():.3f}")
x = embed(tokens, d_model)  # (7, 128) word vectors, entries N(0, 1)
print(f"std(X) = {x.std():.3f}")
value("pe_max", np.max(np.abs(pos_enc)), "{:.1f}")
value("pe_fix_change", np.max(np.abs(normalised - pos_enc)), "{:.1f}")
value("pe_std_short", sinusoidal_positions(L, d_model).std(), "{:.2f}")
value("pe_std_long", pos_enc.std(), "{:.2f}")
value("n_long", n)
value("x_std", x.std(), "{:.2f}")


def random_head(seed):
    """W_q, W_k, W_v of one untrained head, std 1/sqrt(d_model)."""
    rng = np.random.default_rng(seed)
    return rng.normal(scale=d_model**-0.5, size=(3, d_model, d_k))


# the diagnostic: compare the weight on key 0 with an evenly spread row
even = causal_mask(L) / causal_mask(L).sum(axis=-1, keepdims=True)  # 1/(i+1)
x_pe = x + sinusoidal_positions(L, d_model)  # (7, 128)
rows = []
for name, mask, baseline in (("causal", causal_mask(L), even[:, 0].mean()),
                             ("no mask", None, 1 / L)):
    on_the = []
    for seed in range(200):  # 200 untrained heads
        q, k, v = x_pe @ random_head(seed)  # each (7, 64)
        _, weights = scaled_dot_product_attention(q, k, v, mask)  # (7, 7)
        on_the.append(weights[:, 0].mean())  # average weight on "The"
    rows.append([name, baseline, np.mean(on_the)])
    print(f"{name:8s} weight on 'The': baseline {baseline:.3f}, "
          f"random heads {np.mean(on_the):.3f}")
value("causal_baseline", rows[0][1], "{:.3f}")
value("causal_measured", rows[0][2], "{:.3f}")
value("bidir_baseline", rows[1][1], "{:.3f}")
value("bidir_measured", rows[1][2], "{:.3f}")

pe = sinusoidal_positions(L, d_model)  # (7, 128)
w = random_head(0)  # (3, 128, 64): W_q, W_k, W_v
mask = causal_mask(L)
_, before = scaled_dot_product_attention(*((x + pe) @ w), mask)
fixed_pe = pe / np.abs(pe).max()  # seed 000's normalisation
_, after = scaled_dot_product_attention(*((x + fixed_pe) @ w), mask)
print("largest weight change:", np.abs(after - before).max())
value("weights_change", np.abs(after - before).max(), "{:.1f}")
header = ["mask", "even-spread baseline", "mean weight on 'The' (200 random heads)"]
table("first", header, rows, fmt="{:.3f}")

# %% [markdown]
# ## Positional encodings after fine-tuning: what the "cold start" tip's fix really does.
#
# *From `snippets/debug_positions.py`.*
#
# Seed 000's third tip: a model pre-trained with 512 positions, fine-tuned on
# 128-token sentences, "overfits the first 128 encodings"; the fix is to "map the
# 512-dim encoding to 128 dims, then interpolate back to 512". Two measurements:
# which rows of a learned position table get any gradient, and what the
# down-and-up resampling does to sinusoidal encodings.

# %%
import numpy as np

from attention import scaled_dot_product_attention_backward, sinusoidal_positions
from publish import value

rng = np.random.default_rng(8)
n_table, n_used, d_model = 512, 128, 64

table = rng.normal(scale=0.02, size=(n_table, d_model))  # learned positions
x = rng.normal(size=(n_used, d_model)) + table[:n_used]  # a 128-token input
w_q, w_k, w_v = rng.normal(scale=d_model**-0.5, size=(3, d_model, d_model))
g = rng.normal(size=(n_used, d_model))  # dLoss/d(output)
dq, dk, dv = scaled_dot_product_attention_backward(g, x @ w_q, x @ w_k, x @ w_v)
dx = dq @ w_q.T + dk @ w_k.T + dv @ w_v.T  # (128, 64)
d_table = np.zeros_like(table)  # (512, 64)
d_table[:n_used] = dx  # only the rows the input used
norms = np.linalg.norm(d_table, axis=-1)  # (512,)
print(f"rows 0-{n_used - 1}: gradient norm >= {norms[:n_used].min():.3f}")
print(f"rows {n_used}-{n_table - 1}: gradient norm = {norms[n_used:].max()}")
value("used_rows", n_used)
value("table_rows", n_table)
value("unused_grad", norms[n_used:].max(), "{:.1f}")

pe = sinusoidal_positions(n_table, d_model)  # (512, 64): positions x dimensions
positions = np.arange(n_table)
coarse_at = np.linspace(0, n_table - 1, n_used)  # 128 sample positions
coarse = np.stack([np.interp(coarse_at, positions, pe[:, j])
                   for j in range(d_model)], axis=1)  # (128, 64)
back = np.stack([np.interp(positions, coarse_at, coarse[:, j])
                 for j in range(d_model)], axis=1)  # (512, 64)
error = np.abs(back - pe).max(axis=0)  # (64,) per dimension
for j in (0, 1, 32, 62, 63):
    period = 2 * np.pi * 10000 ** (2 * (j // 2) / d_model)
    print(f"dimension {j:2d} (period {period:8.1f}): max change {error[j]:.1e}")
value("resample_error_fast", error[:2].max(), "{:.2f}")
value("resample_error_slow", error[-2:].max(), "{:.0e}")
value("resample_dims_broken", int(np.sum(error > 0.5)))
value("pe_width", d_model)

# %% [markdown]
# ## What seed 000's W_o check measures: the scale of the output projection.
#
# *From `snippets/debug_heads.py`.*
#
# Its table blames "multi-head worse than single-head" on W_o and suggests
# print(np.mean(np.abs(W_o))) and an init of randn * 0.02. Whether multi-head is
# worse is a training question. What we can measure here: mean |W_o|, and how
# much each initial scale of W_o shrinks or grows the layer's output.

# %%
import numpy as np

from attention import multi_head_attention, sinusoidal_positions
from publish import table, value
from running_example import SENTENCE, embed, tokenize

tokens = tokenize(SENTENCE)  # 7 tokens
L, d_model, n_heads = len(tokens), 128, 2
x = embed(tokens, d_model) + sinusoidal_positions(L, d_model)  # (7, 128)
rng = np.random.default_rng(5)
w_q, w_k, w_v = rng.normal(scale=d_model**-0.5, size=(3, d_model, d_model))
eye = np.eye(d_model)  # W_o = I: the output is just the concatenated heads

heads, _ = multi_head_attention(x, w_q, w_k, w_v, eye, n_heads)  # (7, 128)
inits = {
    "randn * 0.02 (seed 000)": 0.02,
    "std 1/sqrt(d_model)": d_model**-0.5,
    "randn (std 1)": 1.0,
}
rows = []
for name, std in inits.items():
    w_o = np.random.default_rng(6).normal(scale=std, size=(d_model, d_model))
    output, _ = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads)
    gain = output.std() / heads.std()  # how W_o rescales the heads
    mean_abs = np.mean(np.abs(w_o))  # seed 000's check
    print(f"{name:24s} mean |W_o| {mean_abs:.4f}   gain {gain:.2f}")
    rows.append([name, mean_abs, gain])
header = ["W_o init", "mean abs(W_o)", "output std / concatenated-heads std"]
table("wo", header, rows, fmt="{:.3g}")
value("wo_small_mean_abs", rows[0][1], "{:.3f}")
value("wo_small_gain", rows[0][2], "{:.2f}")
value("wo_unit_gain", rows[1][2], "{:.2f}")
value("wo_big_gain", rows[2][2], "{:.1f}")

# %% [markdown]
# ## Diagnostics for attention bugs: small functions to paste next to your code.
#
# *From `snippets/debug_tools.py`.*
#
# Each function answers one question with a number. Is the softmax saturated?
# Does a query put weight on padding? Does a position see the future? Does the
# analytic gradient match finite differences?

# %%
import numpy as np


def naive_softmax(scores):
    """Softmax without the max subtraction (what seed 000's code does)."""
    e = np.exp(scores)
    return e / e.sum(axis=-1, keepdims=True)


def capture_error(fn):
    """Run fn(); return "ExceptionType: message" if it raises, else None."""
    try:
        fn()
    except Exception as error:  # we want the message, whatever the type
        return f"{type(error).__name__}: {str(error).strip()}"
    return None


def shape_report(**arrays):
    """"name (shape), ...": the first thing to print on a shape error."""
    return ", ".join(f"{name} {np.shape(a)}" for name, a in arrays.items())


def weight_stats(weights):
    """(mean top weight per row, mean row entropy in nats)."""
    weights = np.asarray(weights)
    safe = np.where(weights > 0, weights, 1.0)  # 0 log 0 counts as 0
    entropy = -np.sum(weights * np.log(safe), axis=-1)
    return float(weights.max(axis=-1).mean()), float(entropy.mean())


def padding_weight(weights, lengths):
    """Largest total weight a real query puts on padding keys (0 = none).

    weights (B, L, L); lengths (B,) number of real tokens per sequence.
    """
    weights = np.asarray(weights)
    n = weights.shape[-1]
    is_pad = np.arange(n)[None, :] >= np.asarray(lengths)[:, None]  # (B, L)
    on_pad = np.sum(weights * is_pad[:, None, :], axis=-1)  # (B, L)
    return float(np.max(np.where(is_pad, 0.0, on_pad)))  # real queries only


def future_leak(attend, x, seed=0):
    """Largest change of output[:t+1] when every input after t is replaced.

    attend(x) -> output maps (L, d) to (L, d_v). A causal layer gives 0.
    """
    rng = np.random.default_rng(seed)
    x = np.asarray(x, dtype=np.float64)
    base = attend(x)
    leak = 0.0
    for t in range(x.shape[0] - 1):
        changed = x.copy()
        future = changed[t + 1 :]
        changed[t + 1 :] = rng.normal(size=future.shape)  # new future tokens
        moved = np.abs(attend(changed)[: t + 1] - base[: t + 1])  # the past
        leak = max(leak, float(moved.max()))
    return leak


def numeric_gradient(f, x, eps=1e-6):
    """Central finite differences of a scalar function f at x."""
    x = np.asarray(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = eps
        grad[index] = (f(x + step) - f(x - step)) / (2 * eps)
    return grad


def relative_error(a, b):
    """max |a - b| / max(|a|, |b|): 1e-9 or less when a gradient is right."""
    a, b = np.asarray(a), np.asarray(b)
    scale = max(np.max(np.abs(a)), np.max(np.abs(b)), 1e-300)
    return float(np.max(np.abs(a - b)) / scale)
