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
# # The whole layer on a batch
#
# The runnable companion of the chapter *The whole layer on a batch*: every snippet of the chapter, in reading order. The first cells load the site's helper modules (`attention.py`, `plotting.py`, `publish.py`, `running_example.py`) from their text, so this notebook runs anywhere with NumPy and matplotlib. The web page hides those cells; the downloaded notebook has them.

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
# ## The whole self-attention layer, on a padded batch of sentences.
#
# *From `snippets/layer_batch.py`.*
#
# Three sentences of different lengths are padded to one length and pushed
# through every stage: token ids -> embeddings (x sqrt(d_model)) -> + sinusoidal
# positions -> Q/K/V -> split heads -> scores -> scale -> mask (padding + causal)
# -> softmax -> weighted sum -> merge heads -> W_o. We print the shape after every
# stage, check that padded keys get exactly zero weight, and check that each
# sentence's output equals running that sentence alone, without padding.

# %%
import matplotlib.pyplot as plt
import numpy as np

from attention import (
    causal_mask,
    merge_heads,
    multi_head_attention,
    padding_mask,
    sinusoidal_positions,
    softmax,
    split_heads,
)
from plotting import weights_heatmap
from publish import table, value
from running_example import D_MODEL, projection_weights, tokenize

SENTENCES = ["The cat sat on the mat.", "A dog ran.", "Dogs chase the cat."]
PAD = "<pad>"
d_model, h = D_MODEL, 2  # d_head = d_model / h = 4

sentences = [tokenize(s) for s in SENTENCES]
vocab = {PAD: 0} | {w: i + 1 for i, w in enumerate(sorted({t.lower() for s in sentences for t in s}))}
rng = np.random.default_rng(0)
embedding = rng.normal(scale=1 / np.sqrt(d_model), size=(len(vocab), d_model))  # (vocab, d_model)
w_q, w_k, w_v = projection_weights()  # each (d_model, h * d_head)
w_o = np.random.default_rng(2).normal(scale=1 / np.sqrt(d_model), size=(d_model, d_model))  # (h * d_head, d_model)


def attention_layer(batch, causal=True, pad_mask=True):
    """Run the layer on a list of token lists; return every intermediate array by stage name."""
    lengths = np.array([len(tokens) for tokens in batch])  # (B,)
    L = lengths.max()
    padded = [[t.lower() for t in tokens] + [PAD] * (L - len(tokens)) for tokens in batch]  # B lists of L tokens
    ids = np.array([[vocab[t] for t in tokens] for tokens in padded])  # (B, L)
    s = {"ids": ids}
    s["embedded"] = embedding[ids] * np.sqrt(d_model)  # (B, L, d_model)
    s["positions"] = sinusoidal_positions(L, d_model)  # (L, d_model)
    s["x"] = s["embedded"] + s["positions"]  # (B, L, d_model): positions broadcast over the batch
    s["q_all"] = s["x"] @ w_q  # (B, L, h * d_head): every head's queries side by side
    s["k_all"] = s["x"] @ w_k  # (B, L, h * d_head)
    s["v_all"] = s["x"] @ w_v  # (B, L, h * d_head)
    s["q"] = split_heads(s["q_all"], h)  # (B, h, L, d_head)
    s["k"] = split_heads(s["k_all"], h)  # (B, h, L, d_head)
    s["v"] = split_heads(s["v_all"], h)  # (B, h, L, d_head)
    s["scores"] = s["q"] @ np.swapaxes(s["k"], -1, -2)  # (B, h, L, L)
    s["scaled"] = s["scores"] / np.sqrt(s["q"].shape[-1])  # (B, h, L, L)
    s["mask"] = np.ones((len(batch), L, L), dtype=bool)  # (B, L, L): start from "every key visible"
    if pad_mask:
        s["mask"] &= padding_mask(lengths, L)  # (B, 1, L): no query may look at a padding key
    if causal:
        s["mask"] &= causal_mask(L)  # (L, L): no query may look at a later key
    s["masked"] = np.where(s["mask"][:, None], s["scaled"], -np.inf)  # (B, h, L, L): one mask, all heads
    s["weights"] = softmax(s["masked"], axis=-1)  # (B, h, L, L)
    s["heads"] = s["weights"] @ s["v"]  # (B, h, L, d_head)
    s["merged"] = merge_heads(s["heads"])  # (B, L, h * d_head)
    s["output"] = s["merged"] @ w_o  # (B, L, d_model)
    return s, lengths


s, lengths = attention_layer(sentences)  # padding mask and causal mask
B, L = s["ids"].shape
is_pad = np.arange(L)[None, :] >= lengths[:, None]  # (B, L): True at padding positions
pad_key = np.broadcast_to(is_pad[:, None, None, :], s["weights"].shape)  # (B, h, L, L): the key is padding
on_pad_keys = s["weights"][pad_key]  # every weight that lands on a padding key
alone = [attention_layer([tokens])[0]["output"][0] for tokens in sentences]  # (n, d_model) each, no padding
alone_error = max(np.max(np.abs(s["output"][b, :n] - alone[b])) for b, n in enumerate(lengths))

print("batch (padded):")
for tokens in sentences:
    print("  ", tokens + [PAD] * (L - len(tokens)))
print("lengths:", lengths.tolist())
print("mask of sentence 2 (True = may attend):")
print(s["mask"][1].astype(int))

value("batch_size", B)
value("d_model", d_model)
value("n_heads", h)
value("padded_length", L)
value("lengths", ", ".join(str(n) for n in lengths))
value("n_pad_weights", on_pad_keys.size)
value("max_pad_weight", np.max(on_pad_keys), "{:.1f}")
value("alone_max_error", alone_error, "{:.1e}")
reference, _ = multi_head_attention(s["x"], w_q, w_k, w_v, w_o, h, s["mask"])
value("core_max_error", np.max(np.abs(s["output"] - reference)), "{:.1e}")
row_sums = s["weights"].sum(axis=-1)  # (B, h, L)
real_queries = np.broadcast_to(~is_pad[:, None, :], row_sums.shape)  # (B, h, L): rows of real tokens
value("real_row_sums_max_error", np.max(np.abs(row_sums[real_queries] - 1)), "{:.1e}")

# Which mask does what? Rerun with each mask switched off; compare real rows with each sentence run alone.
ablation = []
for causal in (True, False):
    alone_runs = [attention_layer([tokens], causal=causal)[0]["output"][0] for tokens in sentences]  # (n, d_model)
    for pad_mask in (True, False):
        run, _ = attention_layer(sentences, causal=causal, pad_mask=pad_mask)
        w = run["weights"]  # (B, h, L, L)
        real_query = np.broadcast_to(~is_pad[:, None, :, None], w.shape)  # (B, h, L, L): the query is a real token
        error = max(np.max(np.abs(run["output"][b, :n] - alone_runs[b])) for b, n in enumerate(lengths))
        ablation.append([
            {(True, True): "padding + causal (this page)", (True, False): "causal only",
             (False, True): "padding only (encoder)", (False, False): "none (encoder)"}[causal, pad_mask],
            f"{np.max(w[pad_key & real_query]):.3f}",
            f"{np.max(w[pad_key & ~real_query]):.3f}",
            f"{error:.1e}",
        ])
table("mask_ablation", ["mask", "largest pad-key weight, real queries", "same, pad queries",
                        "batched vs alone, real rows"], ablation)
value("encoder_no_pad_mask_leak", float(ablation[3][1]), "{:.3f}")
value("encoder_no_pad_mask_error", float(ablation[3][3]), "{:.1e}")
value("encoder_pad_mask_error", float(ablation[2][3]), "{:.1e}")
value("causal_only_error", float(ablation[1][3]), "{:.1e}")
value("causal_only_pad_query_leak", float(ablation[1][2]), "{:.3f}")

shape_rows = [  # (stage, array, axes, chapter)
    ("tokens to ids", "ids", "(B, L)", "tokens-to-vectors.md"),
    ("embed, x sqrt(d_model)", "embedded", "(B, L, d_model)", "tokens-to-vectors.md"),
    ("sinusoidal positions", "positions", "(L, d_model)", "positional-encoding.md"),
    ("add positions", "x", "(B, L, d_model)", "positional-encoding.md"),
    ("project to q, k, v", "q_all", "(B, L, h * d_head)", "queries-keys-values.md"),
    ("split into heads", "q", "(B, h, L, d_head)", "multi-head.md"),
    ("scores q k^T", "scores", "(B, h, L, L)", "scaled-dot-product.md"),
    ("scale by 1/sqrt(d_head)", "scaled", "(B, h, L, L)", "scaled-dot-product.md"),
    ("padding & causal mask", "mask", "(B, L, L)", "masks.md"),
    ("apply the mask (-inf)", "masked", "(B, h, L, L)", "masks.md"),
    ("softmax over keys", "weights", "(B, h, L, L)", "softmax.md"),
    ("weighted sum of values", "heads", "(B, h, L, d_head)", "weighted-sum.md"),
    ("merge heads", "merged", "(B, L, h * d_head)", "multi-head.md"),
    ("mix heads with W_o", "output", "(B, L, d_model)", "multi-head.md"),
]
also = {"q_all": ", k_all, v_all", "q": ", k, v"}  # arrays that share a row
table("shapes", ["stage (links to its chapter)", "array", "axes", "shape"],
      [[f"[{stage}]({page})", name + also.get(name, ""), axes, str(s[name].shape)]
       for stage, name, axes, page in shape_rows])

# Figure: every sentence x every head, all rows (padding queries included) and all keys.
fig, axes = plt.subplots(B, h, num="batch-weights", figsize=(7.6, 10.6), gridspec_kw={"hspace": 0.45, "wspace": 0.08})
for b, tokens in enumerate(sentences):
    padded = tokens + [PAD] * (L - len(tokens))
    for i in range(h):
        ax = axes[b, i]
        weights_heatmap(ax, s["weights"][b, i], padded, padded, title=f"sentence {b + 1}, head {i}")
        if b < B - 1:
            ax.set_xlabel("")
        if i > 0:
            ax.set_ylabel("")
            ax.tick_params(labelleft=False)
fig.colorbar(axes[0, 0].images[0], ax=axes, shrink=0.4, label="weight (fixed 0-1 scale)")
plt.show()
