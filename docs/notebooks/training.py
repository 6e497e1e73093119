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
# # Learning to attend
#
# The runnable companion of the chapter *Learning to attend*: every snippet of the chapter, in reading order. The first cells load the site's helper modules (`attention.py`, `publish.py`, `tiny_model.py`, `plotting.py`) from their text, so this notebook runs anywhere with NumPy and matplotlib. The web page hides those cells; the downloaded notebook has them.

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
load_module("tiny_model", r'''"""A tiny attention model that learns, in pure NumPy: forward pass, hand-written backward pass, Adam.

tokens -> embedding (+ sinusoidal positions) -> one attention head -> output projection -> logits.
The gradients go through the core ``scaled_dot_product_attention_backward`` and the linear layers;
nothing is differentiated automatically. Two synthetic tasks whose right attention target is known
for every example: a reference task (which animal is in the sentence?) and reversing a sequence.
"""

import numpy as np

from attention import (
    padding_mask,
    scaled_dot_product_attention,
    scaled_dot_product_attention_backward,
    sinusoidal_positions,
    softmax,
)

# ---------------------------------------------------------------- the model


def init_params(vocab_size, d_model, d_k, seed):
    """Embeddings N(0, 1); projections N(0, 1/fan_in), so q, k, v start with unit-variance entries."""
    rng = np.random.default_rng(seed)

    def projection(n_in, n_out):
        return rng.normal(scale=1 / np.sqrt(n_in), size=(n_in, n_out))

    return {
        "embed": rng.normal(size=(vocab_size, d_model)),  # (V, d_model)
        "w_q": projection(d_model, d_k),  # (d_model, d_k)
        "w_k": projection(d_model, d_k),  # (d_model, d_k)
        "w_v": projection(d_model, d_model),  # (d_model, d_v), d_v = d_model
        "w_o": projection(d_model, vocab_size),  # (d_v, V)
        "b_o": np.zeros(vocab_size),  # (V,)
    }


# --8<-- [start:forward]
def forward(params, tokens, query_pos, mask=None, positions=True, scaled=True):
    """Logits for the queries at ``query_pos``, and everything the backward pass needs.

    tokens (B, L) ints; query_pos (B, Lq) ints, the positions that ask; mask broadcastable to
    (B, Lq, L), True = may attend. ``positions=False`` drops the positional encoding;
    ``scaled=False`` drops the 1/sqrt(d_k): unscaled attention is scaled attention fed sqrt(d_k) q.
    """
    d_model = params["embed"].shape[1]
    d_k = params["w_q"].shape[1]
    x = params["embed"][tokens]  # (B, L, d_model)
    if positions:
        x = x + sinusoidal_positions(tokens.shape[1], d_model)  # (B, L, d_model)
    x_q = np.take_along_axis(x, query_pos[..., None], axis=1)  # (B, Lq, d_model): the asking rows
    gain = 1.0 if scaled else np.sqrt(d_k)
    q = gain * (x_q @ params["w_q"])  # (B, Lq, d_k)
    k = x @ params["w_k"]  # (B, L, d_k)
    v = x @ params["w_v"]  # (B, L, d_v)
    out, weights = scaled_dot_product_attention(q, k, v, mask)  # (B, Lq, d_v), (B, Lq, L)
    logits = out @ params["w_o"] + params["b_o"]  # (B, Lq, V)
    cache = dict(tokens=tokens, query_pos=query_pos, mask=mask, gain=gain,
                 x=x, x_q=x_q, q=q, k=k, v=v, out=out)
    return logits, weights, cache


def cross_entropy(logits, targets):
    """Mean softmax cross-entropy over every query, and its gradient with respect to the logits."""
    probs = softmax(logits, axis=-1)  # (B, Lq, V)
    picked = np.take_along_axis(probs, targets[..., None], axis=-1)  # (B, Lq, 1): p of the right answer
    loss = -np.mean(np.log(picked))
    grad_logits = probs.copy()
    np.put_along_axis(grad_logits, targets[..., None], picked - 1, axis=-1)  # p - one_hot(target)
    return loss, grad_logits / targets.size  # (B, Lq, V): the mean divides by the number of queries
# --8<-- [end:forward]


def _rows(a):
    """(B, L, d) -> (B * L, d): one row per token, so a weight gradient is one matrix product."""
    return a.reshape(-1, a.shape[-1])


# --8<-- [start:backward]
def backward(params, grad_logits, cache):
    """Gradients of the loss with respect to every parameter: the chain rule, layer by layer, backwards."""
    grads = {}
    x, x_q, out = cache["x"], cache["x_q"], cache["out"]
    grads["w_o"] = _rows(out).T @ _rows(grad_logits)  # (d_v, V): summed over batch and queries
    grads["b_o"] = grad_logits.sum(axis=(0, 1))  # (V,)
    grad_out = grad_logits @ params["w_o"].T  # (B, Lq, d_v)
    grad_q, grad_k, grad_v = scaled_dot_product_attention_backward(
        grad_out, cache["q"], cache["k"], cache["v"], cache["mask"]
    )  # the verified core backward
    grad_q = cache["gain"] * grad_q  # (B, Lq, d_k): q = gain * x_q w_q
    grads["w_q"] = _rows(x_q).T @ _rows(grad_q)  # (d_model, d_k)
    grads["w_k"] = _rows(x).T @ _rows(grad_k)  # (d_model, d_k)
    grads["w_v"] = _rows(x).T @ _rows(grad_v)  # (d_model, d_v)
    grad_x = grad_k @ params["w_k"].T + grad_v @ params["w_v"].T  # (B, L, d_model)
    grad_x_q = grad_q @ params["w_q"].T  # (B, Lq, d_model)
    batch = np.arange(x.shape[0])[:, None]  # (B, 1)
    np.add.at(grad_x, (batch, cache["query_pos"]), grad_x_q)  # the asking rows came from x too
    grads["embed"] = np.zeros_like(params["embed"])  # (V, d_model)
    np.add.at(grads["embed"], cache["tokens"], grad_x)  # every use of a word adds to its row
    return grads  # the positional encoding is fixed: it gets no gradient
# --8<-- [end:backward]


# --8<-- [start:adam]
class Adam:
    """Adam (Kingma and Ba, 2015) with decoupled weight decay (AdamW, Loshchilov and Hutter, 2019).

    Each parameter moves by lr * m_hat / (sqrt(v_hat) + eps), where m_hat and v_hat are running
    means of g and g^2; weight decay then shrinks every parameter by the factor (1 - lr * weight_decay).
    """

    def __init__(self, params, lr=1e-2, weight_decay=0.0, beta1=0.9, beta2=0.999, eps=1e-8):
        self.lr, self.weight_decay, self.beta1, self.beta2, self.eps = lr, weight_decay, beta1, beta2, eps
        self.m = {name: np.zeros_like(p) for name, p in params.items()}
        self.v = {name: np.zeros_like(p) for name, p in params.items()}
        self.t = 0

    def step(self, params, grads):
        self.t += 1
        for name, g in grads.items():
            self.m[name] = self.beta1 * self.m[name] + (1 - self.beta1) * g
            self.v[name] = self.beta2 * self.v[name] + (1 - self.beta2) * g**2
            m_hat = self.m[name] / (1 - self.beta1**self.t)  # bias correction for the zero start
            v_hat = self.v[name] / (1 - self.beta2**self.t)
            params[name] -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
            params[name] -= self.lr * self.weight_decay * params[name]
# --8<-- [end:adam]


# --8<-- [start:train]
def train(params, make_batch, steps, rng, lr=1e-2, weight_decay=1.0, positions=True, scaled=True,
          every=0, callback=None):
    """Adam on a fresh batch per step: forward, loss, backward, update.

    Calls callback(step, params) at step 0 and then every `every` steps, for measurements.
    """
    optimiser = Adam(params, lr=lr, weight_decay=weight_decay)
    for step in range(steps + 1):
        if callback and every and step % every == 0:
            callback(step, params)
        if step == steps:
            return params
        tokens, query_pos, mask, targets, _ = make_batch(rng)
        logits, _, cache = forward(params, tokens, query_pos, mask, positions, scaled)
        _, grad_logits = cross_entropy(logits, targets)
        optimiser.step(params, backward(params, grad_logits, cache))
# --8<-- [end:train]


def evaluate(params, batch, positions=True, scaled=True):
    """Loss, accuracy, attention accuracy and the weights on a fixed batch.

    Attention accuracy is the share of queries with a known target whose largest weight lands on it.
    """
    tokens, query_pos, mask, targets, answer_pos = batch
    logits, weights, _ = forward(params, tokens, query_pos, mask, positions, scaled)
    loss, _ = cross_entropy(logits, targets)
    accuracy = np.mean(np.argmax(logits, axis=-1) == targets)
    known = answer_pos >= 0  # (B, Lq)
    attention_accuracy = np.mean(np.argmax(weights, axis=-1)[known] == answer_pos[known])
    return loss, accuracy, attention_accuracy, weights


# ---------------------------------------------------------------- task 1: who is the hungry one?

ANIMALS = ["cat", "dog", "fox", "owl", "hen", "pig", "cow", "rat"]
OBJECTS = ["mat", "rug", "box", "bed", "log", "hat", "cup", "sofa"]
VERBS = ["sat", "slept", "lay", "stood", "hid"]
PREPS = ["on", "under", "near", "by", "behind"]
TEMPLATES = [  # A animal, O object, V verb, P preposition; the animal sits at 7 different positions
    "the A V P the O . the hungry one",
    "the old A V P the O . the hungry one",
    "P the O the A V . the hungry one",
    "the O and the A V . the hungry one",
    "P the O V the A . the hungry one",
    "the O was P the A . the hungry one",
    "P the O V the old A . the hungry one",
    "a O and a O were P the A . the hungry one",
    "the O and the O were P the old A . the hungry one",
    "the A V . the hungry one",
    "the A V P the O and the O . the hungry one",
    "P a O by the O V a A . the hungry one",
]
PAD = "<pad>"
NOBODY = "nobody"
REFERENCE_VOCAB = [PAD, NOBODY, *ANIMALS, *OBJECTS, *VERBS, *PREPS, "the", "a", "old", "was", "were", "and", ".", "hungry", "one"]
REFERENCE_ID = {word: i for i, word in enumerate(REFERENCE_VOCAB)}
REFERENCE_LENGTH = max(len(t.split()) for t in TEMPLATES)


def _template_codes(template):
    """Word ids for fixed words; negative codes for the slots filled per example."""
    slots = {"A": -1, "V": -4, "P": -5}
    codes, n_objects = [], 0
    for word in template.split():
        if word == "O":
            n_objects += 1
            codes.append(-1 - n_objects)  # -2 first object, -3 second object
        else:
            codes.append(slots.get(word, REFERENCE_ID.get(word)))
    return codes + [REFERENCE_ID[PAD]] * (REFERENCE_LENGTH - len(codes))


TEMPLATE_CODES = np.array([_template_codes(t) for t in TEMPLATES])  # (n_templates, L)
TEMPLATE_LENGTHS = np.array([len(t.split()) for t in TEMPLATES])  # (n_templates,)


def reference_batch(rng, batch_size, p_nobody=0.2):
    """A batch of sentences: tokens (B, L) right-padded, query_pos (B, 1) = the last word "one",
    mask (B, 1, L) hiding the padding, targets (B, 1) = the answer's id, answer_pos (B, 1).

    Each sentence has one animal (the answer) at a position that depends on the template; with
    probability p_nobody a third object takes the animal's place and the answer is "nobody"
    (answer_pos = -1: no attention target).
    """
    template = rng.integers(len(TEMPLATES), size=batch_size)  # (B,)
    codes = TEMPLATE_CODES[template]  # (B, L)
    lengths = TEMPLATE_LENGTHS[template]  # (B,)
    has_animal = rng.random(batch_size) >= p_nobody  # (B,)
    animal = np.array([REFERENCE_ID[a] for a in ANIMALS])[rng.integers(len(ANIMALS), size=batch_size)]  # (B,)
    objects = np.array([REFERENCE_ID[o] for o in OBJECTS])[
        np.argsort(rng.random((batch_size, len(OBJECTS))), axis=1)[:, :3]
    ]  # (B, 3): three different objects per sentence
    verbs = np.array([REFERENCE_ID[v] for v in VERBS])[rng.integers(len(VERBS), size=codes.shape)]  # (B, L)
    preps = np.array([REFERENCE_ID[p] for p in PREPS])[rng.integers(len(PREPS), size=codes.shape)]  # (B, L)
    in_animal_slot = np.where(has_animal, animal, objects[:, 2])[:, None]  # (B, 1)
    tokens = codes.copy()  # (B, L)
    tokens = np.where(codes == -1, in_animal_slot, tokens)
    tokens = np.where(codes == -2, objects[:, :1], tokens)
    tokens = np.where(codes == -3, objects[:, 1:2], tokens)
    tokens = np.where(codes == -4, verbs, tokens)
    tokens = np.where(codes == -5, preps, tokens)
    answer_pos = np.where(has_animal, np.argmax(codes == -1, axis=1), -1)[:, None]  # (B, 1)
    targets = np.where(has_animal, animal, REFERENCE_ID[NOBODY])[:, None]  # (B, 1)
    query_pos = (lengths - 1)[:, None]  # (B, 1): "one" asks
    return tokens, query_pos, padding_mask(lengths, REFERENCE_LENGTH), targets, answer_pos


def words(tokens):
    """Token ids -> words, without the padding."""
    return [REFERENCE_VOCAB[t] for t in tokens if REFERENCE_VOCAB[t] != PAD]


# ---------------------------------------------------------------- task 2: reverse a sequence


def reverse_batch(rng, batch_size, length=8, n_symbols=10):
    """Random digit strings; the query at position i must output the digit at position L - 1 - i.

    Returns tokens (B, L), query_pos (B, L) (every position asks), mask None, targets (B, L),
    answer_pos (B, L) = L - 1 - i, the position each query should attend to.
    """
    tokens = rng.integers(n_symbols, size=(batch_size, length))  # (B, L)
    query_pos = np.broadcast_to(np.arange(length), (batch_size, length))  # (B, L)
    answer_pos = np.broadcast_to(np.arange(length)[::-1], (batch_size, length))  # (B, L)
    targets = np.take_along_axis(tokens, answer_pos, axis=1)  # (B, L): the sequence reversed
    return tokens, query_pos, None, targets, answer_pos
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
# ## A tiny attention model that learns, in pure NumPy: forward pass, hand-written backward pass, Adam.
#
# *From `snippets/tiny_model.py`.*
#
# tokens -> embedding (+ sinusoidal positions) -> one attention head -> output projection -> logits.
# The gradients go through the core ``scaled_dot_product_attention_backward`` and the linear layers;
# nothing is differentiated automatically. Two synthetic tasks whose right attention target is known
# for every example: a reference task (which animal is in the sentence?) and reversing a sequence.

# %%
import numpy as np

from attention import (
    padding_mask,
    scaled_dot_product_attention,
    scaled_dot_product_attention_backward,
    sinusoidal_positions,
    softmax,
)

# ---------------------------------------------------------------- the model


def init_params(vocab_size, d_model, d_k, seed):
    """Embeddings N(0, 1); projections N(0, 1/fan_in), so q, k, v start with unit-variance entries."""
    rng = np.random.default_rng(seed)

    def projection(n_in, n_out):
        return rng.normal(scale=1 / np.sqrt(n_in), size=(n_in, n_out))

    return {
        "embed": rng.normal(size=(vocab_size, d_model)),  # (V, d_model)
        "w_q": projection(d_model, d_k),  # (d_model, d_k)
        "w_k": projection(d_model, d_k),  # (d_model, d_k)
        "w_v": projection(d_model, d_model),  # (d_model, d_v), d_v = d_model
        "w_o": projection(d_model, vocab_size),  # (d_v, V)
        "b_o": np.zeros(vocab_size),  # (V,)
    }


def forward(params, tokens, query_pos, mask=None, positions=True, scaled=True):
    """Logits for the queries at ``query_pos``, and everything the backward pass needs.

    tokens (B, L) ints; query_pos (B, Lq) ints, the positions that ask; mask broadcastable to
    (B, Lq, L), True = may attend. ``positions=False`` drops the positional encoding;
    ``scaled=False`` drops the 1/sqrt(d_k): unscaled attention is scaled attention fed sqrt(d_k) q.
    """
    d_model = params["embed"].shape[1]
    d_k = params["w_q"].shape[1]
    x = params["embed"][tokens]  # (B, L, d_model)
    if positions:
        x = x + sinusoidal_positions(tokens.shape[1], d_model)  # (B, L, d_model)
    x_q = np.take_along_axis(x, query_pos[..., None], axis=1)  # (B, Lq, d_model): the asking rows
    gain = 1.0 if scaled else np.sqrt(d_k)
    q = gain * (x_q @ params["w_q"])  # (B, Lq, d_k)
    k = x @ params["w_k"]  # (B, L, d_k)
    v = x @ params["w_v"]  # (B, L, d_v)
    out, weights = scaled_dot_product_attention(q, k, v, mask)  # (B, Lq, d_v), (B, Lq, L)
    logits = out @ params["w_o"] + params["b_o"]  # (B, Lq, V)
    cache = dict(tokens=tokens, query_pos=query_pos, mask=mask, gain=gain,
                 x=x, x_q=x_q, q=q, k=k, v=v, out=out)
    return logits, weights, cache


def cross_entropy(logits, targets):
    """Mean softmax cross-entropy over every query, and its gradient with respect to the logits."""
    probs = softmax(logits, axis=-1)  # (B, Lq, V)
    picked = np.take_along_axis(probs, targets[..., None], axis=-1)  # (B, Lq, 1): p of the right answer
    loss = -np.mean(np.log(picked))
    grad_logits = probs.copy()
    np.put_along_axis(grad_logits, targets[..., None], picked - 1, axis=-1)  # p - one_hot(target)
    return loss, grad_logits / targets.size  # (B, Lq, V): the mean divides by the number of queries


def _rows(a):
    """(B, L, d) -> (B * L, d): one row per token, so a weight gradient is one matrix product."""
    return a.reshape(-1, a.shape[-1])


def backward(params, grad_logits, cache):
    """Gradients of the loss with respect to every parameter: the chain rule, layer by layer, backwards."""
    grads = {}
    x, x_q, out = cache["x"], cache["x_q"], cache["out"]
    grads["w_o"] = _rows(out).T @ _rows(grad_logits)  # (d_v, V): summed over batch and queries
    grads["b_o"] = grad_logits.sum(axis=(0, 1))  # (V,)
    grad_out = grad_logits @ params["w_o"].T  # (B, Lq, d_v)
    grad_q, grad_k, grad_v = scaled_dot_product_attention_backward(
        grad_out, cache["q"], cache["k"], cache["v"], cache["mask"]
    )  # the verified core backward
    grad_q = cache["gain"] * grad_q  # (B, Lq, d_k): q = gain * x_q w_q
    grads["w_q"] = _rows(x_q).T @ _rows(grad_q)  # (d_model, d_k)
    grads["w_k"] = _rows(x).T @ _rows(grad_k)  # (d_model, d_k)
    grads["w_v"] = _rows(x).T @ _rows(grad_v)  # (d_model, d_v)
    grad_x = grad_k @ params["w_k"].T + grad_v @ params["w_v"].T  # (B, L, d_model)
    grad_x_q = grad_q @ params["w_q"].T  # (B, Lq, d_model)
    batch = np.arange(x.shape[0])[:, None]  # (B, 1)
    np.add.at(grad_x, (batch, cache["query_pos"]), grad_x_q)  # the asking rows came from x too
    grads["embed"] = np.zeros_like(params["embed"])  # (V, d_model)
    np.add.at(grads["embed"], cache["tokens"], grad_x)  # every use of a word adds to its row
    return grads  # the positional encoding is fixed: it gets no gradient


class Adam:
    """Adam (Kingma and Ba, 2015) with decoupled weight decay (AdamW, Loshchilov and Hutter, 2019).

    Each parameter moves by lr * m_hat / (sqrt(v_hat) + eps), where m_hat and v_hat are running
    means of g and g^2; weight decay then shrinks every parameter by the factor (1 - lr * weight_decay).
    """

    def __init__(self, params, lr=1e-2, weight_decay=0.0, beta1=0.9, beta2=0.999, eps=1e-8):
        self.lr, self.weight_decay, self.beta1, self.beta2, self.eps = lr, weight_decay, beta1, beta2, eps
        self.m = {name: np.zeros_like(p) for name, p in params.items()}
        self.v = {name: np.zeros_like(p) for name, p in params.items()}
        self.t = 0

    def step(self, params, grads):
        self.t += 1
        for name, g in grads.items():
            self.m[name] = self.beta1 * self.m[name] + (1 - self.beta1) * g
            self.v[name] = self.beta2 * self.v[name] + (1 - self.beta2) * g**2
            m_hat = self.m[name] / (1 - self.beta1**self.t)  # bias correction for the zero start
            v_hat = self.v[name] / (1 - self.beta2**self.t)
            params[name] -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
            params[name] -= self.lr * self.weight_decay * params[name]


def train(params, make_batch, steps, rng, lr=1e-2, weight_decay=1.0, positions=True, scaled=True,
          every=0, callback=None):
    """Adam on a fresh batch per step: forward, loss, backward, update.

    Calls callback(step, params) at step 0 and then every `every` steps, for measurements.
    """
    optimiser = Adam(params, lr=lr, weight_decay=weight_decay)
    for step in range(steps + 1):
        if callback and every and step % every == 0:
            callback(step, params)
        if step == steps:
            return params
        tokens, query_pos, mask, targets, _ = make_batch(rng)
        logits, _, cache = forward(params, tokens, query_pos, mask, positions, scaled)
        _, grad_logits = cross_entropy(logits, targets)
        optimiser.step(params, backward(params, grad_logits, cache))


def evaluate(params, batch, positions=True, scaled=True):
    """Loss, accuracy, attention accuracy and the weights on a fixed batch.

    Attention accuracy is the share of queries with a known target whose largest weight lands on it.
    """
    tokens, query_pos, mask, targets, answer_pos = batch
    logits, weights, _ = forward(params, tokens, query_pos, mask, positions, scaled)
    loss, _ = cross_entropy(logits, targets)
    accuracy = np.mean(np.argmax(logits, axis=-1) == targets)
    known = answer_pos >= 0  # (B, Lq)
    attention_accuracy = np.mean(np.argmax(weights, axis=-1)[known] == answer_pos[known])
    return loss, accuracy, attention_accuracy, weights


# ---------------------------------------------------------------- task 1: who is the hungry one?

ANIMALS = ["cat", "dog", "fox", "owl", "hen", "pig", "cow", "rat"]
OBJECTS = ["mat", "rug", "box", "bed", "log", "hat", "cup", "sofa"]
VERBS = ["sat", "slept", "lay", "stood", "hid"]
PREPS = ["on", "under", "near", "by", "behind"]
TEMPLATES = [  # A animal, O object, V verb, P preposition; the animal sits at 7 different positions
    "the A V P the O . the hungry one",
    "the old A V P the O . the hungry one",
    "P the O the A V . the hungry one",
    "the O and the A V . the hungry one",
    "P the O V the A . the hungry one",
    "the O was P the A . the hungry one",
    "P the O V the old A . the hungry one",
    "a O and a O were P the A . the hungry one",
    "the O and the O were P the old A . the hungry one",
    "the A V . the hungry one",
    "the A V P the O and the O . the hungry one",
    "P a O by the O V a A . the hungry one",
]
PAD = "<pad>"
NOBODY = "nobody"
REFERENCE_VOCAB = [PAD, NOBODY, *ANIMALS, *OBJECTS, *VERBS, *PREPS, "the", "a", "old", "was", "were", "and", ".", "hungry", "one"]
REFERENCE_ID = {word: i for i, word in enumerate(REFERENCE_VOCAB)}
REFERENCE_LENGTH = max(len(t.split()) for t in TEMPLATES)


def _template_codes(template):
    """Word ids for fixed words; negative codes for the slots filled per example."""
    slots = {"A": -1, "V": -4, "P": -5}
    codes, n_objects = [], 0
    for word in template.split():
        if word == "O":
            n_objects += 1
            codes.append(-1 - n_objects)  # -2 first object, -3 second object
        else:
            codes.append(slots.get(word, REFERENCE_ID.get(word)))
    return codes + [REFERENCE_ID[PAD]] * (REFERENCE_LENGTH - len(codes))


TEMPLATE_CODES = np.array([_template_codes(t) for t in TEMPLATES])  # (n_templates, L)
TEMPLATE_LENGTHS = np.array([len(t.split()) for t in TEMPLATES])  # (n_templates,)


def reference_batch(rng, batch_size, p_nobody=0.2):
    """A batch of sentences: tokens (B, L) right-padded, query_pos (B, 1) = the last word "one",
    mask (B, 1, L) hiding the padding, targets (B, 1) = the answer's id, answer_pos (B, 1).

    Each sentence has one animal (the answer) at a position that depends on the template; with
    probability p_nobody a third object takes the animal's place and the answer is "nobody"
    (answer_pos = -1: no attention target).
    """
    template = rng.integers(len(TEMPLATES), size=batch_size)  # (B,)
    codes = TEMPLATE_CODES[template]  # (B, L)
    lengths = TEMPLATE_LENGTHS[template]  # (B,)
    has_animal = rng.random(batch_size) >= p_nobody  # (B,)
    animal = np.array([REFERENCE_ID[a] for a in ANIMALS])[rng.integers(len(ANIMALS), size=batch_size)]  # (B,)
    objects = np.array([REFERENCE_ID[o] for o in OBJECTS])[
        np.argsort(rng.random((batch_size, len(OBJECTS))), axis=1)[:, :3]
    ]  # (B, 3): three different objects per sentence
    verbs = np.array([REFERENCE_ID[v] for v in VERBS])[rng.integers(len(VERBS), size=codes.shape)]  # (B, L)
    preps = np.array([REFERENCE_ID[p] for p in PREPS])[rng.integers(len(PREPS), size=codes.shape)]  # (B, L)
    in_animal_slot = np.where(has_animal, animal, objects[:, 2])[:, None]  # (B, 1)
    tokens = codes.copy()  # (B, L)
    tokens = np.where(codes == -1, in_animal_slot, tokens)
    tokens = np.where(codes == -2, objects[:, :1], tokens)
    tokens = np.where(codes == -3, objects[:, 1:2], tokens)
    tokens = np.where(codes == -4, verbs, tokens)
    tokens = np.where(codes == -5, preps, tokens)
    answer_pos = np.where(has_animal, np.argmax(codes == -1, axis=1), -1)[:, None]  # (B, 1)
    targets = np.where(has_animal, animal, REFERENCE_ID[NOBODY])[:, None]  # (B, 1)
    query_pos = (lengths - 1)[:, None]  # (B, 1): "one" asks
    return tokens, query_pos, padding_mask(lengths, REFERENCE_LENGTH), targets, answer_pos


def words(tokens):
    """Token ids -> words, without the padding."""
    return [REFERENCE_VOCAB[t] for t in tokens if REFERENCE_VOCAB[t] != PAD]


# ---------------------------------------------------------------- task 2: reverse a sequence


def reverse_batch(rng, batch_size, length=8, n_symbols=10):
    """Random digit strings; the query at position i must output the digit at position L - 1 - i.

    Returns tokens (B, L), query_pos (B, L) (every position asks), mask None, targets (B, L),
    answer_pos (B, L) = L - 1 - i, the position each query should attend to.
    """
    tokens = rng.integers(n_symbols, size=(batch_size, length))  # (B, L)
    query_pos = np.broadcast_to(np.arange(length), (batch_size, length))  # (B, L)
    answer_pos = np.broadcast_to(np.arange(length)[::-1], (batch_size, length))  # (B, L)
    targets = np.take_along_axis(tokens, answer_pos, axis=1)  # (B, L): the sequence reversed
    return tokens, query_pos, None, targets, answer_pos


# %% [markdown]
# ## Check the whole model's gradient, every parameter, against central finite differences.
#
# *From `snippets/train_gradcheck.py`.*
#
# The tiny model's backward pass is written by hand: cross-entropy, output projection, the core
# attention backward, the projections, the embedding table. Nudge every single parameter by +-h,
# recompute the loss, and compare the slope with the hand-written gradient (float64, h = 1e-5).

# %%
import numpy as np

from publish import table, value
from tiny_model import REFERENCE_VOCAB, backward, cross_entropy, forward, init_params, reference_batch, reverse_batch

def loss_and_grads(params, batch, **options):
    tokens, query_pos, mask, targets, _ = batch
    logits, _, cache = forward(params, tokens, query_pos, mask, **options)
    loss, grad_logits = cross_entropy(logits, targets)
    return loss, backward(params, grad_logits, cache)


def relative_error(params, batch, h=1e-5, **options):
    """Per parameter: |numerical - analytic| / max(|numerical|, |analytic|), with array norms."""
    _, grads = loss_and_grads(params, batch, **options)
    worst = {}
    for name, p in params.items():
        numerical = np.zeros_like(p)
        for index in np.ndindex(p.shape):
            original = p[index]
            p[index] = original + h
            up = loss_and_grads(params, batch, **options)[0]
            p[index] = original - h
            down = loss_and_grads(params, batch, **options)[0]
            p[index] = original
            numerical[index] = (up - down) / (2 * h)
        worst[name] = np.linalg.norm(numerical - grads[name]) / max(np.linalg.norm(numerical),
                                                                      np.linalg.norm(grads[name]))
    return worst


rng = np.random.default_rng(0)
cases = [
    ("reference task (padding mask)", reference_batch(rng, 6), len(REFERENCE_VOCAB), {}),
    ("reference task, unscaled", reference_batch(rng, 6), len(REFERENCE_VOCAB), {"scaled": False}),
    ("reverse task (8 queries)", reverse_batch(rng, 4), 10, {}),
    ("reverse task, no positions", reverse_batch(rng, 4), 10, {"positions": False}),
]
rows, all_errors, n_checked = [], [], 0
for label, batch, vocab_size, options in cases:
    params = init_params(vocab_size, d_model=8, d_k=6, seed=1)
    errors = relative_error(params, batch, **options)
    rows.append([label, *errors.values()])
    all_errors += errors.values()
    n_checked += sum(p.size for p in params.values())
table("errors", ["case", *params.keys()], rows, fmt="{:.1e}")
value("max_rel_error", max(all_errors), "{:.1e}")
value("n_checked", n_checked)

# %% [markdown]
# ## Learning to attend: train one attention head to find the animal in a sentence.
#
# *From `snippets/train_reference.py`.*
#
# Every sentence has one animal, at a position that changes with the sentence's template, among
# objects, verbs and prepositions that change too ("the cat sat on the mat . the hungry one" -> cat).
# One sentence in five has no animal; the answer is then "nobody". The last word, "one", is the query.
# We train the tiny model (embeddings + sinusoidal positions -> one head -> output projection) with
# the hand-written backward pass and Adam, and watch three things: the loss, the accuracy, and the
# attention accuracy: the share of sentences whose largest weight lands on the animal.

# %%
import matplotlib.pyplot as plt
import numpy as np

from plotting import COLORS
from publish import value
from tiny_model import OBJECTS, REFERENCE_VOCAB, TEMPLATES, evaluate, init_params, reference_batch, train, words

np.set_printoptions(precision=3, suppress=True)

D_MODEL, D_K, BATCH, STEPS, SEED = 16, 16, 64, 600, 0
LR, WEIGHT_DECAY = 1e-2, 1.0
eval_batch = reference_batch(np.random.default_rng(1000), 1000)  # fixed sentences to measure on
params = init_params(len(REFERENCE_VOCAB), D_MODEL, D_K, seed=SEED)
CHECKPOINTS = [0, 15, 35, 45, STEPS]  # steps whose weights we draw
tokens, _, _, targets, answer_pos = eval_batch
has_animal = answer_pos[:, 0] >= 0  # (1000,)
first_of_each = {}  # the first evaluation sentence of each animal
for i in np.flatnonzero(has_animal):
    first_of_each.setdefault(int(targets[i, 0]), i)
EXAMPLES = [*sorted(first_of_each.values())[:5], np.flatnonzero(~has_animal)[0]]  # five animals, one "nobody"

history, snapshots = [], {}


def record(step, params):
    loss, accuracy, attention_accuracy, weights = evaluate(params, eval_batch)
    history.append((step, loss, accuracy, attention_accuracy))
    if step in CHECKPOINTS:
        snapshots[step] = weights[EXAMPLES, 0]  # (n_examples, L)


train(params, lambda rng: reference_batch(rng, BATCH), STEPS, np.random.default_rng(SEED),
      lr=LR, weight_decay=WEIGHT_DECAY, every=5, callback=record)

steps, losses, accuracies, attention_accuracies = (np.array(column) for column in zip(*history))
print("step   loss  accuracy  attention accuracy")
for step, loss, accuracy, attention_accuracy in history[:13:2] + history[24::24]:
    print(f"{step:4d}  {loss:5.3f}  {accuracy:8.3f}  {attention_accuracy:18.3f}")

value("steps", STEPS)
value("d_model", D_MODEL)
value("d_k", D_K)
value("batch", BATCH)
value("lr", LR, "{:g}")
value("weight_decay", WEIGHT_DECAY, "{:g}")
value("vocab_size", len(REFERENCE_VOCAB))
value("n_templates", len(TEMPLATES))
value("n_animal_positions", len(set(answer_pos[has_animal, 0].tolist())))
value("n_parameters", sum(p.size for p in params.values()))
value("n_eval", len(tokens))
value("start_loss", losses[0], "{:.2f}")
value("chance_loss", np.log(len(REFERENCE_VOCAB)), "{:.2f}")
value("final_loss", losses[-1], "{:.3f}")
value("final_accuracy", accuracies[-1], "{:.3f}")
value("final_attention_accuracy", attention_accuracies[-1], "{:.3f}")
value("start_attention_accuracy", attention_accuracies[0], "{:.3f}")
value("step_attention_above_95", int(steps[np.argmax(attention_accuracies >= 0.95)]))
dip = int(np.argmin(np.where(steps <= 30, attention_accuracies, np.inf)))  # the early low point
value("dip_step", int(steps[dip]))
value("dip_attention_accuracy", attention_accuracies[dip], "{:.3f}")
value("accuracy_at_dip", accuracies[dip], "{:.3f}")
value("nobody_share", np.mean(~has_animal), "{:.3f}")

# Where does "one" look when there is no animal?
_, _, _, weights = evaluate(params, eval_batch)
nobody = ~has_animal
looked_at = tokens[nobody, np.argmax(weights[nobody, 0], axis=-1)]  # (n_nobody,) word ids
names, counts = np.unique([REFERENCE_VOCAB[t] for t in looked_at], return_counts=True)
top3 = np.argsort(-counts)[:3]
print("no animal: the largest weight lands most often on", ", ".join(f"{names[i]} ({counts[i]})" for i in top3))
value("nobody_sentences", int(nobody.sum()))
value("nobody_on_object", np.mean(np.isin(looked_at, [REFERENCE_VOCAB.index(o) for o in OBJECTS])), "{:.2f}")

# ---------------------------------------------------------------- figures
fig, axes = plt.subplots(1, 3, figsize=(10, 3.0), num="curves", layout="constrained")
axes[0].plot(steps, losses, color=COLORS[0])
axes[0].set_ylabel("cross-entropy loss")
axes[0].set_yscale("log")
axes[1].plot(steps, accuracies, color=COLORS[1])
axes[1].set_ylabel("accuracy (answer right)")
axes[2].plot(steps, attention_accuracies, color=COLORS[2])
axes[2].set_ylabel("attention accuracy")
for ax in axes[1:]:
    ax.set_ylim(0, 1.02)
    ax.axhline(0.95, color="grey", linewidth=0.8, linestyle=":")
for ax in axes:
    ax.set_xlabel("training step")
    for step in CHECKPOINTS[1:-1]:
        ax.axvline(step, color="grey", linewidth=0.6, alpha=0.5)

example_words = [words(tokens[i]) for i in EXAMPLES]
length = max(len(w) for w in example_words)
fig, axes = plt.subplots(len(CHECKPOINTS), 1, figsize=(8.2, 1.55 * len(CHECKPOINTS) + 0.6), num="checkpoints",
                         layout="constrained", sharex=True)
for ax, step in zip(axes, CHECKPOINTS):
    grid = np.full((len(EXAMPLES), length), np.nan)  # (n_examples, L): NaN = no word (padding)
    for row, w in enumerate(example_words):
        grid[row, : len(w)] = snapshots[step][row, : len(w)]
    image = ax.imshow(grid, cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto")
    for row, w in enumerate(example_words):
        for col, word in enumerate(w):
            colour = "black" if grid[row, col] > 0.6 else "white"
            ax.text(col, row, word, ha="center", va="center", fontsize=7, color=colour)
    answers = [REFERENCE_VOCAB[t] for t in targets[EXAMPLES, 0]]
    ax.set_yticks(range(len(EXAMPLES)), [f"-> {a}" for a in answers], fontsize=8)
    ax.set_title(f"step {step}", fontsize=9, loc="left")
    ax.spines[:].set_visible(False)
    ax.tick_params(length=0)
axes[-1].set_xticks(range(length))
axes[-1].set_xlabel("position in the sentence (cell text = word, colour = weight of the query \"one\")")
fig.supylabel("sentence -> right answer", fontsize=9)
fig.colorbar(image, ax=axes, label="attention weight", shrink=0.6)
plt.show()

# %% [markdown]
# ## Is the result a lucky seed? The reference task on five seeds, with and without weight decay.
#
# *From `snippets/train_seeds.py`.*
#
# Each run is the chapter's main run with another seed (other initial weights, other training
# sentences), once with the weight decay of 1.0 used throughout the chapter and once without. For each
# run: the final attention accuracy, and the animals the head never learned to find (attention accuracy
# below 0.5 on the sentences with that animal), with the mean weight it gives them.

# %%
import numpy as np

from publish import table, value
from tiny_model import ANIMALS, REFERENCE_VOCAB, evaluate, init_params, reference_batch, train

D_MODEL, D_K, BATCH, STEPS, SEEDS = 16, 16, 64, 600, (0, 1, 2, 3, 4)
eval_batch = reference_batch(np.random.default_rng(1000), 1000)
tokens, _, _, _, answer_pos = eval_batch
has_animal = answer_pos[:, 0] >= 0  # (1000,)
animal_of = tokens[np.arange(len(tokens)), answer_pos[:, 0]]  # (1000,) the word at the target

rows, finals, lost_weights = [], {}, []
for seed in SEEDS:
    row = [seed]
    for weight_decay in (1.0, 0.0):
        params = init_params(len(REFERENCE_VOCAB), D_MODEL, D_K, seed=seed)
        train(params, lambda rng: reference_batch(rng, BATCH), STEPS, np.random.default_rng(seed),
              lr=1e-2, weight_decay=weight_decay)
        _, accuracy, attention_accuracy, weights = evaluate(params, eval_batch)
        hit = np.argmax(weights[:, 0], axis=-1) == answer_pos[:, 0]  # (1000,)
        on_answer = weights[np.arange(len(tokens)), 0, answer_pos[:, 0]]  # (1000,) weight on the animal
        lost = []
        for a in ANIMALS:
            its = has_animal & (animal_of == REFERENCE_VOCAB.index(a))  # sentences with this animal
            if np.mean(hit[its]) < 0.5:
                lost.append(f"{a} (mean weight {np.mean(on_answer[its]):.3f})")
                lost_weights.append(np.mean(on_answer[its]))
        finals[seed, weight_decay] = attention_accuracy
        row += [attention_accuracy, ", ".join(lost) or "none"]
    rows.append(row)

table(
    "seeds",
    ["seed", "decay 1.0: attention accuracy", "animals not found", "no decay: attention accuracy", "animals not found (no decay)"],
    rows,
    fmt="{:.3f}",
)
with_decay = np.array([finals[s, 1.0] for s in SEEDS])
without = np.array([finals[s, 0.0] for s in SEEDS])
value("n_seeds", len(SEEDS))
value("min_with_decay", with_decay.min(), "{:.3f}")
value("min_without_decay", without.min(), "{:.3f}")
value("stalled_without_decay", int(np.sum(without < 0.95)))
value("stalled_with_decay", int(np.sum(with_decay < 0.95)))
value("max_weight_on_lost", max(lost_weights, default=np.nan), "{:.3f}")

# %% [markdown]
# ## Reversing a sequence needs positions: the same model with and without positional encoding.
#
# *From `snippets/train_reverse.py`.*
#
# The input is 8 random digits; the query at position i must output the digit at position 7 - i, so
# it must attend to the key at position 7 - i whatever the digits are. Content cannot say where 7 - i
# is. We train the tiny model twice, identical except for the sinusoidal positional encoding, and
# compare the loss, the accuracy and the attention accuracy (largest weight on position 7 - i).

# %%
from math import comb, factorial, prod

import matplotlib.pyplot as plt
import numpy as np

from plotting import COLORS, weights_heatmap
from publish import value
from tiny_model import evaluate, init_params, reverse_batch, train

LENGTH, N_SYMBOLS, D_MODEL, D_K, BATCH, STEPS, SEED = 8, 10, 16, 16, 64, 300, 0
CHECKPOINTS = [0, 40, 70, STEPS]
eval_batch = reverse_batch(np.random.default_rng(1000), 1000, LENGTH, N_SYMBOLS)

runs = {}
for positions in (True, False):
    history, snapshots = [], {}

    def record(step, params):
        loss, accuracy, attention_accuracy, weights = evaluate(params, eval_batch, positions=positions)
        history.append((step, loss, accuracy, attention_accuracy))
        if step in CHECKPOINTS:
            snapshots[step] = weights.mean(axis=0)  # (L, L): mean over the 1000 sequences

    params = init_params(N_SYMBOLS, D_MODEL, D_K, seed=SEED)  # the same start for both runs
    train(params, lambda rng: reverse_batch(rng, BATCH, LENGTH, N_SYMBOLS), STEPS,
          np.random.default_rng(SEED), lr=1e-2, weight_decay=1.0, positions=positions,
          every=10, callback=record)
    runs[positions] = (np.array(history), snapshots)

# The best any position-blind model can do: the output at i may depend on x_i and on the multiset
# of digits, not on where they are. The answer is then one of the other 7 digits, each placement
# equally likely, so the best guess is their most frequent digit: accuracy E[max count] / 7.
others = LENGTH - 1


def compositions(n, parts):
    """Every way to write n as an ordered sum of `parts` non-negative integers."""
    if parts == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in compositions(n - first, parts - 1):
            yield (first, *rest)


expected_max = sum(
    max(c) * factorial(others) / prod(factorial(x) for x in c) / N_SYMBOLS**others
    for c in compositions(others, N_SYMBOLS)
)  # exact multinomial expectation
position_blind_best = expected_max / others

print("              loss  accuracy  attention accuracy")
for positions, label in ((True, "with PE"), (False, "no PE")):
    _, loss, accuracy, attention_accuracy = runs[positions][0][-1]
    print(f"{label:10s}  {loss:6.3f}  {accuracy:8.3f}  {attention_accuracy:18.3f}")
print(f"best accuracy of any position-blind model: {position_blind_best:.3f} (chance: {1 / N_SYMBOLS:.3f})")

value("steps", STEPS)
value("final_accuracy_pe", runs[True][0][-1, 2], "{:.3f}")
value("final_attention_accuracy_pe", runs[True][0][-1, 3], "{:.3f}")
value("final_accuracy_no_pe", runs[False][0][-1, 2], "{:.3f}")
value("final_attention_accuracy_no_pe", runs[False][0][-1, 3], "{:.3f}")
value("position_blind_best", position_blind_best, "{:.3f}")
value("chance_accuracy", 1 / N_SYMBOLS, "{:.1f}")
value("attention_chance", 1 / LENGTH, "{:.3f}")
value("step_attention_above_95_pe", int(runs[True][0][np.argmax(runs[True][0][:, 3] >= 0.95), 0]))
value("compositions", comb(others + N_SYMBOLS - 1, N_SYMBOLS - 1))
value("n_eval", len(eval_batch[0]))
mean_no_pe = runs[False][1][STEPS]  # (L, L) mean weights without positions
value("self_weight_no_pe", np.mean(np.diag(mean_no_pe)), "{:.3f}")
value("other_weight_no_pe", (mean_no_pe.sum() - np.trace(mean_no_pe)) / (LENGTH * (LENGTH - 1)), "{:.3f}")
value("target_weight_pe", np.mean(np.diag(runs[True][1][STEPS][:, ::-1])), "{:.2f}")

# ---------------------------------------------------------------- figures
fig, axes = plt.subplots(1, 3, figsize=(10, 3.0), num="curves", layout="constrained")
for positions, label, colour in ((True, "with positional encoding", COLORS[0]), (False, "without", COLORS[3])):
    history = runs[positions][0]
    for ax, column in zip(axes, (1, 2, 3)):
        ax.plot(history[:, 0], history[:, column], color=colour, label=label)
axes[0].set_ylabel("cross-entropy loss")
axes[1].set_ylabel("accuracy (digit right)")
axes[2].set_ylabel("attention accuracy")
axes[1].axhline(position_blind_best, color="grey", linestyle=":", linewidth=1)
axes[1].annotate("best position-blind", (STEPS, position_blind_best), xytext=(0, 4), textcoords="offset points",
                 ha="right", fontsize=8, color="dimgrey")
for ax in axes[1:]:
    ax.set_ylim(0, 1.02)
for ax in axes:
    ax.set_xlabel("training step")
axes[0].legend(frameon=False, fontsize=8)

positions_labels = [str(i) for i in range(LENGTH)]
panels = [(True, step) for step in CHECKPOINTS] + [(False, STEPS)]
fig, axes = plt.subplots(1, len(panels), figsize=(12, 3.0), num="checkpoints", layout="constrained")
for ax, (positions, step) in zip(axes, panels):
    image = weights_heatmap(ax, runs[positions][1][step], positions_labels, positions_labels, annotate=False,
                            title=f"{'with PE' if positions else 'no PE'}, step {step}")
    ax.set_xlabel("key position")
    ax.set_ylabel("query position" if ax is axes[0] else "")
    ax.title.set_fontsize(9)
    ax.tick_params(axis="x", labelrotation=0)
fig.colorbar(image, ax=axes, label="mean attention weight", shrink=0.8)
plt.show()

# %% [markdown]
# ## Drop the 1/sqrt(d_k) at a large d_k: the same reference task, trained with and without the scale.
#
# *From `snippets/train_scaling.py`.*
#
# With d_k = 512, unit-variance queries and keys give raw dot products with a standard deviation of
# about sqrt(512) = 23, so without the scale the softmax starts saturated: each query puts almost all
# its weight on one arbitrary word, and the gradient reaching W_q and W_k is starved (see the backward
# chapter). Everything else is identical: data, initial weights, optimiser, number of steps. Three seeds.

# %%
import matplotlib.pyplot as plt
import numpy as np

from plotting import COLORS
from attention import scaled_dot_product_attention_backward
from publish import table, value
from tiny_model import (
    REFERENCE_VOCAB,
    cross_entropy,
    evaluate,
    forward,
    init_params,
    reference_batch,
    train,
)

D_MODEL, D_K, BATCH, STEPS, SEEDS = 16, 512, 64, 400, (0, 1, 2)
eval_batch = reference_batch(np.random.default_rng(1000), 500)  # q, k are big at d_k = 512: 500 sentences
tokens, query_pos, mask, targets, _ = eval_batch

curves, rows, start = {}, [], {}
for scaled in (True, False):
    for seed in SEEDS:
        params = init_params(len(REFERENCE_VOCAB), D_MODEL, D_K, seed=seed)
        # Step 0: how peaked are the weights, how much gradient reaches each sentence's query?
        logits, weights, cache = forward(params, tokens, query_pos, mask, scaled=scaled)
        grad_logits = cross_entropy(logits, targets)[1] * len(tokens)  # per sentence, not mean
        grad_out = grad_logits @ params["w_o"].T  # (B, 1, d_v)
        grad_q = scaled_dot_product_attention_backward(grad_out, cache["q"], cache["k"], cache["v"], mask)[0]
        per_query = np.linalg.norm(cache["gain"] * grad_q[:, 0], axis=-1)  # (B,): |dLoss_b / dq_b|
        start.setdefault(scaled, []).append((weights[:, 0].max(axis=-1), per_query))

        history = []  # (step, loss, accuracy, attention accuracy) every 25 steps

        def record(step, p):
            history.append((step, *evaluate(p, eval_batch, scaled=scaled)[:3]))

        train(params, lambda rng: reference_batch(rng, BATCH), STEPS, np.random.default_rng(seed),
              lr=1e-2, weight_decay=1.0, scaled=scaled, every=25, callback=record)
        curves[scaled, seed] = np.array(history)  # (n_records, 4)
        rows.append(["scaled" if scaled else "unscaled", seed, *curves[scaled, seed][-1, 1:]])

table("final", ["attention", "seed", "loss", "accuracy", "attention accuracy"], rows, fmt="{:.3f}")
top = {s: np.mean([t for t, _ in start[s]]) for s in start}  # mean largest weight at step 0
median_grad = {s: np.median([g for _, g in start[s]]) for s in start}  # median per-sentence |grad q|
tiny = 1e-3 * median_grad[True]
starved = {s: np.mean([g < tiny for _, g in start[s]]) for s in start}  # share of sentences with ~no gradient
final = {s: np.array([curves[s, seed][-1, 3] for seed in SEEDS]) for s in (True, False)}
print(f"step 0, mean largest weight:     scaled {top[True]:.2f}, unscaled {top[False]:.2f}")
print(f"step 0, median |dLoss/dq|:        scaled {median_grad[True]:.3g}, unscaled {median_grad[False]:.3g}")
print(f"step 0, share with |dLoss/dq| < {tiny:.1e}: scaled {starved[True]:.2f}, unscaled {starved[False]:.2f}")

value("d_k", D_K)
value("steps", STEPS)
value("n_seeds", len(SEEDS))
value("start_top_weight_scaled", top[True], "{:.2f}")
value("start_top_weight_unscaled", top[False], "{:.2f}")
value("start_median_grad_scaled", median_grad[True], "{:.2g}")
value("start_median_grad_unscaled", median_grad[False], "{:.2g}")
value("start_starved_scaled", starved[True], "{:.2f}")
value("start_starved_unscaled", starved[False], "{:.2f}")
value("final_attention_scaled_min", final[True].min(), "{:.3f}")
value("final_attention_unscaled_mean", final[False].mean(), "{:.2f}")
value("final_attention_unscaled_min", final[False].min(), "{:.3f}")
value("final_attention_unscaled_max", final[False].max(), "{:.3f}")
value("final_attention_scaled_mean", final[True].mean(), "{:.3f}")
improving, plateaus = 0, []
for seed in SEEDS:
    steps_, attention = curves[False, seed][:, 0], curves[False, seed][:, 3]
    improving += attention[-1] > attention[steps_ == STEPS - 100][0]  # better than 100 steps ago?
    last_change = steps_[1:][np.diff(attention) != 0].max()  # last step at which it moved
    plateaus.append(STEPS - last_change)
value("unscaled_improving", int(improving))
value("unscaled_longest_plateau", int(max(plateaus)))

fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.0), num="curves", layout="constrained", sharex=True)
for scaled, colour, label in ((True, COLORS[0], "scaled, 1/sqrt(d_k)"), (False, COLORS[3], "unscaled")):
    for i, seed in enumerate(SEEDS):
        history = curves[scaled, seed]
        axes[0].plot(history[:, 0], history[:, 1], color=colour, label=label if i == 0 else None, alpha=0.85)
        axes[1].plot(history[:, 0], history[:, 3], color=colour, alpha=0.85)
axes[0].set_yscale("log")
axes[0].set_ylabel("cross-entropy loss")
axes[1].set_ylabel("attention accuracy")
axes[1].set_ylim(0, 1.02)
for ax in axes:
    ax.set_xlabel("training step")
axes[0].legend(frameon=False, fontsize=8, title=f"d_k = {D_K}, one line per seed", title_fontsize=8)
plt.show()
