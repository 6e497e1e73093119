"""Induction heads in NumPy: a two-layer, attention-only model, its backward pass, its task and its scores.

tokens -> embedding + learned positions -> n_layers x (causal multi-head attention, added to the residual
stream) -> unembedding -> next-token logits. No MLP, no layer norm. The attention step goes through the
core's ``scaled_dot_product_attention`` and its verified backward; Adam is the one of "Learning to attend".

The task: random tokens in which a segment repeats later in the sequence. Only context predicts the second
copy. An induction head is the layer-1 head that, at a repeated token, attends to the token that followed
its earlier occurrence; it needs a layer-0 head that attends to the previous token.

To rerun with another seed: ``run(seed=5)`` (a dict of scores over training, and the final model).
"""

import numpy as np

from lib.attention import (
    causal_mask,
    merge_heads,
    scaled_dot_product_attention,
    scaled_dot_product_attention_backward,
    split_heads,
)
from lib.tiny_model import Adam, cross_entropy

# ---------------------------------------------------------------- the model


def init_params(vocab_size, seq_len, d_model, n_layers, seed):
    """Embeddings and positions N(0, 1/d_model) so a row has unit norm; projections N(0, 1/fan_in)."""
    if vocab_size < 2 or seq_len < 2 or d_model < 1 or n_layers < 1:
        raise ValueError(
            f"need vocab_size >= 2, seq_len >= 2, d_model >= 1, n_layers >= 1; got {vocab_size}, {seq_len}, "
            f"{d_model}, {n_layers}"
        )
    rng = np.random.default_rng(seed)

    def normal(n_in, *shape):
        return rng.normal(scale=1 / np.sqrt(n_in), size=shape)

    params = {
        "embed": normal(d_model, vocab_size, d_model),  # (V, d_model)
        "pos": normal(d_model, seq_len, d_model),  # (L, d_model), learned
    }
    for layer in range(n_layers):
        for name in ("w_q", "w_k", "w_v", "w_o"):
            params[f"{layer}.{name}"] = normal(d_model, d_model, d_model)  # (d_model, d_model)
    params["unembed"] = normal(d_model, d_model, vocab_size)  # (d_model, V)
    return params


def n_layers_of(params):
    return sum(1 for name in params if name.endswith(".w_q"))


# --8<-- [start:forward]
def forward(params, tokens, n_heads, ablate=()):
    """Next-token logits (B, L, V) and everything the backward pass needs.

    tokens (B, L) ints. Each layer adds the output of causal multi-head attention to the residual stream x.
    ``ablate`` lists (layer, head) pairs whose output is zeroed: the head is switched off.
    """
    length = tokens.shape[1]
    if length > params["pos"].shape[0]:
        raise ValueError(f"tokens have {length} positions, the model knows {params['pos'].shape[0]}")
    x = params["embed"][tokens] + params["pos"][:length]  # (B, L, d_model)
    mask = causal_mask(length)  # (L, L), shared by batch and heads
    layers = []
    for layer in range(n_layers_of(params)):
        p = {name: params[f"{layer}.{name}"] for name in ("w_q", "w_k", "w_v", "w_o")}
        q = split_heads(x @ p["w_q"], n_heads)  # (B, h, L, d_head)
        k = split_heads(x @ p["w_k"], n_heads)  # (B, h, L, d_head)
        v = split_heads(x @ p["w_v"], n_heads)  # (B, h, L, d_head)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)  # (B, h, L, d_head), (B, h, L, L)
        keep = np.array([(layer, h) not in ablate for h in range(n_heads)], dtype=float)[:, None, None]  # (h, 1, 1)
        merged = merge_heads(heads * keep)  # (B, L, d_model)
        layers.append(dict(x=x, q=q, k=k, v=v, keep=keep, merged=merged, weights=weights))
        x = x + merged @ p["w_o"]  # (B, L, d_model): the residual stream
    logits = x @ params["unembed"]  # (B, L, V)
    return logits, dict(tokens=tokens, mask=mask, layers=layers, x_final=x, n_heads=n_heads)
# --8<-- [end:forward]


def _rows(a):
    """(B, L, d) -> (B * L, d): one row per token, so a weight gradient is one matrix product."""
    return a.reshape(-1, a.shape[-1])


# --8<-- [start:backward]
def backward(params, grad_logits, cache):
    """Gradients of the loss with respect to every parameter, layer by layer from the top."""
    grads = {"unembed": _rows(cache["x_final"]).T @ _rows(grad_logits)}  # (d_model, V)
    grad_x = grad_logits @ params["unembed"].T  # (B, L, d_model)
    n_heads = cache["n_heads"]
    for layer in reversed(range(len(cache["layers"]))):
        c = cache["layers"][layer]
        w = {name: params[f"{layer}.{name}"] for name in ("w_q", "w_k", "w_v", "w_o")}
        grads[f"{layer}.w_o"] = _rows(c["merged"]).T @ _rows(grad_x)  # (d_model, d_model)
        grad_heads = split_heads(grad_x @ w["w_o"].T, n_heads) * c["keep"]  # (B, h, L, d_head)
        grad_q, grad_k, grad_v = scaled_dot_product_attention_backward(
            grad_heads, c["q"], c["k"], c["v"], cache["mask"]
        )  # the verified core backward, (B, h, L, d_head) each
        grad_q, grad_k, grad_v = merge_heads(grad_q), merge_heads(grad_k), merge_heads(grad_v)  # (B, L, d_model)
        grads[f"{layer}.w_q"] = _rows(c["x"]).T @ _rows(grad_q)
        grads[f"{layer}.w_k"] = _rows(c["x"]).T @ _rows(grad_k)
        grads[f"{layer}.w_v"] = _rows(c["x"]).T @ _rows(grad_v)
        # the residual passes grad_x through unchanged; the layer's inputs add their paths to it
        grad_x = grad_x + grad_q @ w["w_q"].T + grad_k @ w["w_k"].T + grad_v @ w["w_v"].T  # (B, L, d_model)
    grads["embed"] = np.zeros_like(params["embed"])  # (V, d_model)
    np.add.at(grads["embed"], cache["tokens"], grad_x)  # every use of a token adds to its row
    grads["pos"] = np.zeros_like(params["pos"])  # (L_max, d_model)
    grads["pos"][: grad_x.shape[1]] = grad_x.sum(axis=0)  # position p is used once per sequence
    return grads
# --8<-- [end:backward]


# ---------------------------------------------------------------- the task


# --8<-- [start:task]
def repeat_batch(rng, batch_size, seq_len, vocab_size, period=None, min_repeat=4):
    """Random tokens in which a segment repeats: tokens (B, L) and repeat (B, L) booleans.

    Each sequence copies a segment of random length (min_repeat up to half the sequence) from a random start to
    ``period`` positions later, so the second copy is predictable only from the first. ``period`` None draws it
    per sequence (at least the segment's length, so the copies do not overlap); a number fixes it for every
    sequence. repeat[b, j] is True where token j is the second copy's 2nd, 3rd, ... token: its predictor, the
    token at j - 1, is part of the copy too, so it is predictable in context.
    """
    if seq_len < 2 * min_repeat or vocab_size < 2:
        raise ValueError(f"seq_len {seq_len} must be at least 2 * min_repeat = {2 * min_repeat}, vocab_size >= 2")
    if period is not None and not min_repeat <= period <= seq_len - min_repeat:
        raise ValueError(f"period {period} must lie in [{min_repeat}, {seq_len - min_repeat}]")
    tokens = rng.integers(vocab_size, size=(batch_size, seq_len))  # (B, L)
    repeat = np.zeros((batch_size, seq_len), dtype=bool)  # (B, L)
    for b in range(batch_size):
        longest = seq_len // 2 if period is None else min(period, seq_len - period)
        size = rng.integers(min_repeat, longest + 1)  # segment length
        gap = rng.integers(size, seq_len - size + 1) if period is None else period  # offset of the copy
        start = rng.integers(0, seq_len - gap - size + 1)  # first copy at [start, start + size)
        tokens[b, start + gap : start + gap + size] = tokens[b, start : start + size]
        repeat[b, start + gap + 1 : start + gap + size] = True
    return tokens, repeat
# --8<-- [end:task]


def earlier_position(tokens, repeat):
    """(B, L) ints: for each repeated token j, the position of the token it copies (else -1).

    Read from the data: the latest i < j - 1 where tokens[i - 1 : i + 1] == tokens[j - 1 : j + 1], i.e. the last
    time the predictor token appeared followed by the same token.
    """
    batch, length = tokens.shape
    earlier = np.full((batch, length), -1)
    for b, j in zip(*np.nonzero(repeat)):
        for i in range(j - 2, 0, -1):
            if tokens[b, i - 1] == tokens[b, j - 1] and tokens[b, i] == tokens[b, j]:
                earlier[b, j] = i
                break
    return earlier


def losses(params, tokens, repeat, n_heads, ablate=()):
    """Cross-entropy of next-token prediction on the repeated tokens and on the rest, and repeat accuracy."""
    logits, cache = forward(params, tokens, n_heads, ablate)
    logits, targets, on_repeat = logits[:, :-1], tokens[:, 1:], repeat[:, 1:]  # (B, L-1, V), (B, L-1)
    log_p = logits - logits.max(axis=-1, keepdims=True)
    log_p = log_p - np.log(np.exp(log_p).sum(axis=-1, keepdims=True))  # (B, L-1, V)
    nll = -np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]  # (B, L-1)
    right = np.argmax(logits, axis=-1) == targets  # (B, L-1)
    return dict(
        repeat_loss=nll[on_repeat].mean(),
        other_loss=nll[~on_repeat].mean(),
        repeat_accuracy=right[on_repeat].mean(),
    ), cache


# --8<-- [start:scores]
def head_scores(weights, earlier):
    """Per head: previous-token and induction scores from attention weights (B, h, L, L).

    previous-token: the mean weight from each position i >= 1 to i - 1.
    induction: the mean weight from each repeated predictor (the token before a repeated token j) to the
    token after that predictor's earlier occurrence, i.e. to the position of what j copies.
    earlier (B, L) is ``earlier_position(tokens, repeat)``.
    """
    i = np.arange(1, weights.shape[-1])
    previous = weights[:, :, i, i - 1].mean(axis=(0, 2))  # (h,)
    b, j = np.nonzero(earlier >= 0)
    induction = weights[b, :, j - 1, earlier[b, j]].mean(axis=0)  # (h,): query j - 1, key earlier[j]
    return previous, induction
# --8<-- [end:scores]


# ---------------------------------------------------------------- training and measuring


def loss_and_gradients(params, tokens, n_heads, ablate=()):
    """The training loss on tokens (B, L), every position predicting the next, and its gradient for every
    parameter: (loss, {name: gradient}). ``ablate`` as in ``forward``."""
    logits, cache = forward(params, tokens, n_heads, ablate)
    loss, grad_logits = cross_entropy(logits[:, :-1], tokens[:, 1:])  # (B, L-1, V): the last position predicts nothing
    grad_logits = np.concatenate([grad_logits, np.zeros_like(logits[:, :1])], axis=1)  # (B, L, V)
    return loss, backward(params, grad_logits, cache)


def evaluation_batch(config, period=None, seed=10_000, size=256):
    """A fixed batch to measure on: (tokens, repeat, earlier)."""
    tokens, repeat = repeat_batch(np.random.default_rng(seed), size, config["seq_len"], config["vocab_size"], period)
    return tokens, repeat, earlier_position(tokens, repeat)


def measure(params, batch, n_heads, ablate=()):
    """Losses, repeat accuracy and per-layer (previous, induction) scores on a fixed ``evaluation_batch``."""
    tokens, repeat, earlier = batch
    out, cache = losses(params, tokens, repeat, n_heads, ablate)
    out["scores"] = [head_scores(layer["weights"], earlier) for layer in cache["layers"]]
    out["first_example"] = [layer["weights"][0] for layer in cache["layers"]]  # per layer (h, L, L)
    return out


def train(params, make_batch, steps, rng, n_heads, lr, every, measure_on):
    """Adam on a fresh batch per step; returns ``measure`` on ``measure_on`` at step 0, every ``every`` steps and
    at the end."""
    optimiser = Adam(params, lr=lr)
    history = []
    for step in range(steps + 1):
        if step % every == 0 or step == steps:
            history.append(dict(step=step, **measure(params, measure_on, n_heads)))
        if step == steps:
            return history
        tokens, _ = make_batch(rng)
        optimiser.step(params, loss_and_gradients(params, tokens, n_heads)[1])


# --8<-- [start:config]
CONFIG = dict(vocab_size=24, seq_len=24, d_model=32, n_heads=2, batch=32, lr=1e-2, steps=600, every=10,
              fixed_period=10)
# --8<-- [end:config]


def run(seed, n_layers=2, period=None, steps=None, every=None, config=CONFIG):
    """Train one model from ``seed`` on sequences with random periods (or a fixed ``period``).

    Returns the final params and the history of ``measure`` on ``evaluation_batch(config)`` (random periods,
    whatever the training used).
    """
    c = config
    params = init_params(c["vocab_size"], c["seq_len"], c["d_model"], n_layers, seed)
    history = train(
        params,
        lambda rng: repeat_batch(rng, c["batch"], c["seq_len"], c["vocab_size"], period),
        c["steps"] if steps is None else steps,
        np.random.default_rng(seed),
        c["n_heads"],
        c["lr"],
        every or c["every"],
        evaluation_batch(c),
    )
    return params, history


def jump(history, layer=1, window=50, plateau_share=0.1):
    """Where the best induction score of ``layer`` (the final one's head) rises fastest over ``window`` steps.

    Returns dict(start, end, head, gain_share, loss_drop_share, before_share, plateau_end): the window, the shares
    of the whole run's induction gain and repeat-loss drop that happen inside it, the share of the gain made before
    it, and the first measured step where the score has made ``plateau_share`` of its gain (the plateau's end).
    """
    steps = np.array([h["step"] for h in history])
    every = steps[1] - steps[0]
    if window % every or window >= steps[-1]:
        raise ValueError(f"window {window} must be a multiple of the measuring interval {every}, below {steps[-1]}")
    head = int(np.argmax(history[-1]["scores"][layer][1]))
    score = np.array([h["scores"][layer][1][head] for h in history])  # (n_measured,)
    loss = np.array([h["repeat_loss"] for h in history])
    lag = window // every
    start = int(np.argmax(score[lag:] - score[:-lag]))  # index of the window's first measurement
    gained = (score - score[0]) / (score[-1] - score[0])  # (n_measured,): share of the whole gain made so far
    return dict(
        start=int(steps[start]), end=int(steps[start + lag]), head=head,
        gain_share=(score[start + lag] - score[start]) / (score[-1] - score[0]),
        loss_drop_share=(loss[start] - loss[start + lag]) / (loss[0] - loss[-1]),
        before_share=gained[start],
        plateau_end=int(steps[np.argmax(gained >= plateau_share)]),
    )


def ablations(params, batch, n_heads):
    """Repeat accuracy with each head switched off in turn, {(layer, head): accuracy}, and with all of layer 0 off,
    under the key (0, "all")."""
    n_layers = n_layers_of(params)
    off = {(layer, h): {(layer, h)} for layer in range(n_layers) for h in range(n_heads)}
    off[0, "all"] = {(0, h) for h in range(n_heads)}
    return {key: measure(params, batch, n_heads, ablate=heads)["repeat_accuracy"] for key, heads in off.items()}


# --8<-- [start:seed_runs]
def seed_runs(seed, config=CONFIG):
    """The chapter's three models for one seed, measured on random periods (and the shortcut on its own period).

    two_layer: 2 layers, random periods, with its history and per-head ablations; one_layer: 1 layer, random
    periods; shortcut: 2 layers trained with the fixed period config["fixed_period"].
    """
    c = config
    evaluation, fixed = evaluation_batch(c), evaluation_batch(c, period=c["fixed_period"])
    params, history = run(seed, config=c)
    two_layer = dict(history=history, final=history[-1], ablations=ablations(params, evaluation, c["n_heads"]),
                     jump=jump(history))
    params, history = run(seed, n_layers=1, every=c["steps"], config=c)
    one_layer = dict(final=history[-1])
    params, history = run(seed, period=c["fixed_period"], every=c["steps"], config=c)
    shortcut = dict(final=history[-1], on_own_period=measure(params, fixed, c["n_heads"]))
    return dict(seed=seed, two_layer=two_layer, one_layer=one_layer, shortcut=shortcut)
# --8<-- [end:seed_runs]


# ---------------------------------------------------------------- one seed's tables


def top_heads(result):
    """(previous-token head of layer 0, the other layer-0 head, the control) of the two-layer model."""
    previous = result["two_layer"]["final"]["scores"][0][0]  # (h,) layer 0's previous-token scores
    order = np.argsort(-previous)
    return int(order[0]), int(order[-1])


def seed_tables(result):
    """The two tables of one seed as (header, rows): the three models, and the two-layer model's ablations."""
    two, one, short = result["two_layer"]["final"], result["one_layer"]["final"], result["shortcut"]

    def row(name, m):
        return [name, m["repeat_loss"], m["other_loss"], m["repeat_accuracy"],
                m["scores"][0][0].max(), m["scores"][-1][1].max()]

    runs = (
        ["model", "loss on repeats", "loss on the rest", "repeat accuracy", "previous-token score (layer 0)",
         "induction score (last layer)"],
        [row("2 layers", two), row("1 layer", one), row("2 layers, fixed period", short["final"]),
         row("2 layers, fixed period, on its own period", short["on_own_period"])],
    )
    scores = two["scores"]
    ablation_rows = [["nothing", "-", "-", two["repeat_accuracy"]]]
    for (layer, head), accuracy in result["two_layer"]["ablations"].items():
        if head == "all":
            ablation_rows.append(["layer 0, both heads", "-", "-", accuracy])
        else:
            ablation_rows.append([f"layer {layer}, head {head}", scores[layer][0][head], scores[layer][1][head],
                                  accuracy])
    ablation = (["switched off", "previous-token score", "induction score", "repeat accuracy"], ablation_rows)
    return runs, ablation


def seed_values(result):
    """The numbers the page quotes for one seed, as {name: (value, format)}."""
    two, one, short = result["two_layer"], result["one_layer"]["final"], result["shortcut"]
    previous_head, control_head = top_heads(result)
    final = two["final"]
    return {
        "repeat_accuracy": (final["repeat_accuracy"], "{:.2f}"),
        "repeat_loss": (final["repeat_loss"], "{:.2f}"),
        "other_loss": (final["other_loss"], "{:.2f}"),
        "previous_score": (final["scores"][0][0].max(), "{:.2f}"),
        "induction_score": (final["scores"][1][1].max(), "{:.2f}"),
        "jump_start": (two["jump"]["start"], "{}"),
        "jump_end": (two["jump"]["end"], "{}"),
        "jump_window": (two["jump"]["end"] - two["jump"]["start"], "{}"),
        "jump_gain_share": (two["jump"]["gain_share"], "{:.2f}"),
        # how many times the run's average rate the induction score rises at inside its fastest window
        "jump_rate_ratio": (two["jump"]["gain_share"] * final["step"] / (two["jump"]["end"] - two["jump"]["start"]),
                            "{:.1f}"),
        "induction_head": (two["jump"]["head"], "{}"),
        "jump_loss_share": (two["jump"]["loss_drop_share"], "{:.2f}"),
        "before_jump_share": (two["jump"]["before_share"], "{:.2f}"),
        "plateau_end": (two["jump"]["plateau_end"], "{}"),
        "previous_head": (previous_head, "{}"),
        "control_head": (control_head, "{}"),
        "ablate_previous": (two["ablations"][0, previous_head], "{:.2f}"),
        "ablate_control": (two["ablations"][0, control_head], "{:.2f}"),
        "ablate_layer0": (two["ablations"][0, "all"], "{:.2f}"),
        "one_layer_accuracy": (one["repeat_accuracy"], "{:.2f}"),
        "one_layer_induction": (one["scores"][0][1].max(), "{:.2f}"),
        "shortcut_own_accuracy": (short["on_own_period"]["repeat_accuracy"], "{:.3f}"),
        "shortcut_random_accuracy": (short["final"]["repeat_accuracy"], "{:.2f}"),
        "shortcut_previous": (short["final"]["scores"][0][0].max(), "{:.2f}"),
        "shortcut_own_layer0_induction": (short["on_own_period"]["scores"][0][1].max(), "{:.2f}"),
        "shortcut_own_induction": (short["on_own_period"]["scores"][-1][1].max(), "{:.2f}"),
        "shortcut_random_induction": (short["final"]["scores"][-1][1].max(), "{:.2f}"),
    }
