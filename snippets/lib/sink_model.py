"""Attention sinks caught forming: a one-layer attention model, its task, five variants, training and measures.

The model is the induction chapter's (``lib.induction``) with one layer: tokens -> embedding + learned positions ->
causal multi-head attention added to the residual stream -> unembedding. Its variants give the weight a query does
not need somewhere else to go:

- "softmax": ordinary attention, the weights of every query sum to one;
- "sink": one learned sink logit per head in the softmax's denominator (gpt-oss);
- "plus one": the sink logit fixed at 0 (the "off by one" softmax);
- "gate": an elementwise sigmoid gate on the heads' output, sigmoid(x W_gate), computed from the query's own
  residual stream (Qiu et al., 2025, their gate at the attention output);
- "qk-norm": ordinary attention with queries and keys RMS-normalised per head, with a learned gain (Qwen3's
  q_norm and k_norm).

The task: position 0 holds BOS, a token that carries no information. Then random filler tokens, some "?" tokens,
and, in half of the sequences, one signal token (one of four). At a "?" the target is the signal seen so far, or
"none" (the BOS id) if there is none yet: that query has something to read, or nothing. At every other position the
target is the token itself: nothing to read either, and its own token says so.
"""

import numpy as np

from lib.attention import causal_mask, check_whole_number, merge_heads, sliding_window_mask, split_heads
from lib.induction import init_params
from lib.sinks import attention_with_sink, attention_with_sink_backward, rms_norm, rms_norm_backward
from lib.tiny_model import Adam, cross_entropy

VARIANTS = ("softmax", "sink", "plus one", "gate", "qk-norm")

# --8<-- [start:config]
CONFIG = dict(n_signals=4, n_fillers=10, seq_len=16, p_query=0.25, p_signal=0.5, d_model=16, n_heads=2,
              batch=64, lr=1e-2, steps=1500, every=50, bos=True)
# --8<-- [end:config]

BOS = 0  # also the "none" answer


def vocabulary(config=CONFIG):
    """Token ids: BOS 0, signals 1..n_signals, "?" next, fillers after it. Returns (signals, query, vocab_size)."""
    signals = np.arange(1, config["n_signals"] + 1)
    query = config["n_signals"] + 1
    return signals, query, query + 1 + config["n_fillers"]


# --8<-- [start:task]
def sink_batch(rng, batch_size, config=CONFIG):
    """tokens (B, L), targets (B, L) and the kind of every query (B, L): 0 copy, 1 nothing to read, 2 reading.

    Position 0 is BOS. Every other position is a random filler, or "?" with probability p_query; half of the
    sequences (p_signal) get one signal at a random position from 1 on. The target at a "?" is the latest signal
    before it, else BOS ("none"); everywhere else it is the token itself.
    """
    signals, query, vocab_size = vocabulary(config)
    length = config["seq_len"]
    tokens = rng.integers(query + 1, vocab_size, size=(batch_size, length))  # (B, L) fillers
    tokens[rng.random((batch_size, length)) < config["p_query"]] = query
    if config["bos"]:
        tokens[:, 0] = BOS
    has_signal = rng.random(batch_size) < config["p_signal"]  # (B,)
    where = rng.integers(1, length, size=batch_size)  # (B,) the signal's position, where there is one
    rows = np.nonzero(has_signal)[0]
    tokens[rows, where[rows]] = rng.choice(signals, size=rows.size)
    seen = np.where(np.isin(tokens, signals), tokens, 0)  # (B, L) the signal at its own position
    seen = np.maximum.accumulate(seen, axis=1)  # (B, L): the signal seen up to here (0 = none); one per sequence
    is_query = tokens == query
    targets = np.where(is_query, seen, tokens)  # (B, L)
    kind = np.where(is_query, np.where(seen > 0, 2, 1), 0)  # (B, L)
    return tokens, targets, kind
# --8<-- [end:task]


def init_variant(variant, config, seed):
    """The parameters of one variant: the induction model's with one layer, and the variant's own."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}: use one of {VARIANTS}")
    d_model, n_heads = config["d_model"], config["n_heads"]
    if d_model % n_heads:
        raise ValueError(f"d_model = {d_model} is not divisible by n_heads = {n_heads}")
    params = init_params(vocabulary(config)[2], config["seq_len"], d_model, 1, seed)
    if variant == "sink":
        params["sink"] = np.zeros(n_heads)  # (h,): one logit per head, learned
    if variant == "gate":
        params["w_gate"] = np.random.default_rng(seed + 1).normal(scale=d_model**-0.5, size=(d_model, d_model))
    if variant == "qk-norm":
        params["q_gain"] = np.ones(d_model // n_heads)  # (d_head,), shared by the heads
        params["k_gain"] = np.ones(d_model // n_heads)
    return params


def _sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # no overflow for large |x|


# --8<-- [start:forward]
def forward(params, tokens, variant, n_heads, mask=None, first_value=True):
    """Logits (B, L, V) and everything the backward pass needs. ``mask`` (L, L) defaults to the causal mask;
    ``first_value=False`` zeroes the value vector of position 0 (what reading the first token adds)."""
    length = tokens.shape[1]
    x = params["embed"][tokens] + params["pos"][:length]  # (B, L, d_model)
    q = split_heads(x @ params["0.w_q"], n_heads)  # (B, h, L, d_head)
    k = split_heads(x @ params["0.w_k"], n_heads)  # (B, h, L, d_head)
    v = split_heads(x @ params["0.w_v"], n_heads)  # (B, h, L, d_head)
    if not first_value:
        v = v.copy()
        v[..., 0, :] = 0.0
    if variant == "qk-norm":
        q_in, k_in = q, k
        q, k = rms_norm(q_in, params["q_gain"]), rms_norm(k_in, params["k_gain"])  # (B, h, L, d_head)
    sink = {"sink": params.get("sink", np.zeros(n_heads))[:, None], "plus one": 0.0}.get(variant)  # (h, 1)
    mask = causal_mask(length) if mask is None else mask
    heads, weights = attention_with_sink(q, k, v, mask, sink)  # (B, h, L, d_head), (B, h, L, L)
    merged = merge_heads(heads)  # (B, L, d_model)
    gate = _sigmoid(x @ params["w_gate"]) if variant == "gate" else 1.0  # (B, L, d_model)
    out = x + (merged * gate) @ params["0.w_o"]  # (B, L, d_model): the residual stream
    logits = out @ params["unembed"]  # (B, L, V)
    cache = dict(tokens=tokens, x=x, q=q, k=k, v=v, weights=weights, merged=merged, gate=gate, out=out)
    if variant == "qk-norm":
        cache.update(q_in=q_in, k_in=k_in)
    return logits, cache
# --8<-- [end:forward]


def _rows(a):
    return a.reshape(-1, a.shape[-1])


def backward(params, grad_logits, cache, variant, n_heads):
    """Gradients of the loss for every parameter of ``params``."""
    x = cache["x"]
    grads = {"unembed": _rows(cache["out"]).T @ _rows(grad_logits)}
    grad_out = grad_logits @ params["unembed"].T  # (B, L, d_model)
    gated = cache["merged"] * cache["gate"]
    grads["0.w_o"] = _rows(gated).T @ _rows(grad_out)
    grad_gated = grad_out @ params["0.w_o"].T  # (B, L, d_model)
    grad_x = grad_out.copy()  # the residual path
    if variant == "gate":
        grad_pre = grad_gated * cache["merged"] * cache["gate"] * (1 - cache["gate"])  # through the sigmoid
        grads["w_gate"] = _rows(x).T @ _rows(grad_pre)
        grad_x += grad_pre @ params["w_gate"].T
    grad_heads = split_heads(grad_gated * cache["gate"], n_heads)  # (B, h, L, d_head)
    grad_q, grad_k, grad_v, read = attention_with_sink_backward(
        grad_heads, cache["q"], cache["k"], cache["v"], cache["weights"]
    )
    if variant == "sink":
        p_sink = 1.0 - cache["weights"].sum(axis=-1)  # (B, h, L)
        grads["sink"] = -(p_sink * read).sum(axis=(0, 2))  # (h,)
    if variant == "qk-norm":
        grad_q, grads["q_gain"] = rms_norm_backward(grad_q, cache["q_in"], params["q_gain"])
        grad_k, grads["k_gain"] = rms_norm_backward(grad_k, cache["k_in"], params["k_gain"])
    grad_q, grad_k, grad_v = merge_heads(grad_q), merge_heads(grad_k), merge_heads(grad_v)  # (B, L, d_model)
    for name, grad in (("0.w_q", grad_q), ("0.w_k", grad_k), ("0.w_v", grad_v)):
        grads[name] = _rows(x).T @ _rows(grad)
        grad_x += grad @ params[name].T
    grads["embed"] = np.zeros_like(params["embed"])
    np.add.at(grads["embed"], cache["tokens"], grad_x)
    grads["pos"] = np.zeros_like(params["pos"])
    grads["pos"][: grad_x.shape[1]] = grad_x.sum(axis=0)
    return grads


def loss_and_gradients(params, tokens, targets, variant, n_heads):
    """The mean cross-entropy over every position and its gradient for every parameter."""
    logits, cache = forward(params, tokens, variant, n_heads)
    loss, grad_logits = cross_entropy(logits, targets)
    return loss, backward(params, grad_logits, cache, variant, n_heads)


# --8<-- [start:measure]
def measure(params, batch, variant, n_heads, mask=None, first_value=True):
    """On a fixed batch (tokens, targets, kind): accuracy and first-token weight per kind of query, and more.

    first: mean weight on position 0 per head, for each kind (copy, nothing to read, reading), (3, h);
    elsewhere (for the sink variants): the weight the rows put on the sink, same layout; accuracy per kind (3,);
    gate (for the gate variant): the mean gate value per kind (3,), else ones;
    max_logit: the largest |score| (the softmax's input) in the batch; entropy: the mean entropy of the "nothing to
    read" queries' weights per head, (h,) (in nats; the sink's share counted as one more outcome); on_signal: the
    mean weight the reading queries put on the signal's position, per head (h,); answers: the argmax per query.
    """
    tokens, targets, kind = batch
    logits, cache = forward(params, tokens, variant, n_heads, mask, first_value)
    weights = cache["weights"]  # (B, h, L, L)
    right = np.argmax(logits, axis=-1) == targets  # (B, L)
    rows = [kind == k for k in range(3)]
    to_first = weights[..., 0]  # (B, h, L)
    to_sink = 1.0 - weights.sum(axis=-1)  # (B, h, L): 0 without a sink
    q, k = cache["q"], cache["k"]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])  # (B, h, L, L)
    allowed = causal_mask(tokens.shape[1]) if mask is None else mask
    p = np.concatenate([weights, to_sink[..., None]], axis=-1)
    entropy = -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0), axis=-1)  # (B, h, L)
    return dict(
        accuracy=np.array([right[r].mean() for r in rows]),
        first=np.array([to_first.transpose(0, 2, 1)[r].mean(axis=0) for r in rows]),  # (3, h)
        sink=np.array([to_sink.transpose(0, 2, 1)[r].mean(axis=0) for r in rows]),  # (3, h)
        gate=np.array([np.broadcast_to(cache["gate"], cache["merged"].shape).mean(axis=-1)[r].mean() for r in rows]),
        max_logit=float(np.abs(np.where(allowed, scores, 0.0)).max()),
        entropy=entropy.transpose(0, 2, 1)[rows[1]].mean(axis=0),  # (h,)
        on_signal=_on_signal(weights, tokens, rows[2]),
        answers=np.argmax(logits, axis=-1),
        loss=float(cross_entropy(logits, targets)[0]),
    )
# --8<-- [end:measure]


def window_mask(length, window, sinks=0):
    """(L, L): what a rolling cache of ``window`` slots that keeps the first ``sinks`` positions lets query i see.

    The last window - sinks positions up to i, and positions 0 .. sinks - 1 (as ``RollingKVCache(..., sinks=)``).
    """
    sinks = check_whole_number(sinks, "sinks", "positions", least=0)
    if sinks >= window:
        raise ValueError(f"sinks ({sinks}) must leave at least one of the window's {window} keys to recent positions")
    mask = sliding_window_mask(length, window - sinks)  # (L, L): the recent keys
    mask[:, :sinks] |= causal_mask(length)[:, :sinks]  # the kept first keys, never the future
    return mask


def sink_head(history):
    """The head that puts the most weight on the first token from "nothing to read" queries at the end."""
    return int(np.argmax(history[-1]["first"][1]))


def _on_signal(weights, tokens, reading):
    """Per head, the mean weight reading queries (B, L) put on the position of their sequence's signal: (h,)."""
    signal_at = np.argmax(np.isin(tokens, vocabulary()[0]), axis=1)  # (B,): where the signal is, if there is one
    b, i = np.nonzero(reading)
    return weights[b, :, i, signal_at[b]].mean(axis=0) if b.size else np.zeros(weights.shape[1])


def evaluation_batch(config=CONFIG, seed=10_000, size=512):
    return sink_batch(np.random.default_rng(seed), size, config)


# --8<-- [start:train]
def train(variant, seed, config=CONFIG, steps=None):
    """Adam on a fresh batch per step; returns the final params and ``measure`` every config["every"] steps."""
    c = config
    steps = c["steps"] if steps is None else steps
    params = init_variant(variant, c, seed)
    optimiser, rng, evaluation = Adam(params, lr=c["lr"]), np.random.default_rng(seed), evaluation_batch(c)
    history = []
    for step in range(steps + 1):
        if step % c["every"] == 0 or step == steps:
            history.append(dict(step=step, **measure(params, evaluation, variant, c["n_heads"])))
        if step < steps:
            tokens, targets, _ = sink_batch(rng, c["batch"], c)
            optimiser.step(params, loss_and_gradients(params, tokens, targets, variant, c["n_heads"])[1])
    return params, history
# --8<-- [end:train]
