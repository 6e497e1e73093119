"""A Transformer block in NumPy, in its two arrangements, with a hand-written backward pass.

Sub-layers: causal multi-head self-attention (the core module's forward and
backward) and a position-wise feed-forward network max(0, x W_1) W_2. Each
forward function returns its output and a cache; each backward function takes
dLoss/d(output) and the cache and returns dLoss/d(input) (and the weight
gradients). LayerNorm has its gain at 1 and its bias at 0, as at initialisation,
so it has no parameters here.

post-norm (the original Transformer): x -> LayerNorm(x + Sublayer(x))
pre-norm (GPT-2 and most models since): x -> x + Sublayer(LayerNorm(x))
"""

import numpy as np

from lib.attention import (
    causal_mask,
    merge_heads,
    multi_head_attention,
    scaled_dot_product_attention,
    scaled_dot_product_attention_backward,
    split_heads,
)

EPS = 1e-5


# --8<-- [start:layer_norm]
def layer_norm(x):
    """Normalise each row to mean 0 and variance 1: (L, d) -> (L, d)."""
    centred = x - x.mean(axis=-1, keepdims=True)  # (L, d)
    std = np.sqrt((centred**2).mean(axis=-1, keepdims=True) + EPS)  # (L, 1)
    y = centred / std
    return y, (y, std)


def layer_norm_backward(d_y, cache):
    """dL/dx = (dL/dy - mean(dL/dy) - y * mean(dL/dy * y)) / std, row by row."""
    y, std = cache
    mean_d_y = d_y.mean(axis=-1, keepdims=True)  # (L, 1)
    mean_d_y_y = (d_y * y).mean(axis=-1, keepdims=True)  # (L, 1)
    return (d_y - mean_d_y - y * mean_d_y_y) / std
# --8<-- [end:layer_norm]


def init_params(rng, d_model, d_ff):
    """One block's weights, each drawn from N(0, 1/fan_in) so activations keep their scale."""
    shapes = {"w_q": (d_model, d_model), "w_k": (d_model, d_model), "w_v": (d_model, d_model),
              "w_o": (d_model, d_model), "w_1": (d_model, d_ff), "w_2": (d_ff, d_model)}  # (fan_in, fan_out)
    return {name: rng.normal(scale=1 / np.sqrt(shape[0]), size=shape) for name, shape in shapes.items()}


# --8<-- [start:sublayers]
def attention(x, p, n_heads):
    """Causal multi-head self-attention, (L, d_model) -> (L, d_model). The cache is x itself."""
    mask = causal_mask(len(x))  # (L, L)
    output, _ = multi_head_attention(x, p["w_q"], p["w_k"], p["w_v"], p["w_o"], n_heads, mask)
    return output, x


def attention_backward(d_out, x, p, n_heads):
    """dL/dx and the weight gradients, from the core's backward pass of scaled dot-product attention."""
    mask = causal_mask(len(x))  # (L, L)
    q, k, v = (split_heads(x @ p[w], n_heads) for w in ("w_q", "w_k", "w_v"))  # each (h, L, d_head)
    heads = merge_heads(scaled_dot_product_attention(q, k, v, mask)[0])  # (L, d_model), before W_o
    d_heads = split_heads(d_out @ p["w_o"].T, n_heads)  # (h, L, d_head)
    d_q, d_k, d_v = scaled_dot_product_attention_backward(d_heads, q, k, v, mask)  # each (h, L, d_head)
    d_q, d_k, d_v = merge_heads(d_q), merge_heads(d_k), merge_heads(d_v)  # each (L, d_model)
    grads = {"w_o": heads.T @ d_out, "w_q": x.T @ d_q, "w_k": x.T @ d_k, "w_v": x.T @ d_v}
    return d_q @ p["w_q"].T + d_k @ p["w_k"].T + d_v @ p["w_v"].T, grads


def feed_forward(x, p):
    """max(0, x W_1) W_2, applied to every position: (L, d_model) -> (L, d_model)."""
    hidden = np.maximum(0.0, x @ p["w_1"])  # (L, d_ff)
    return hidden @ p["w_2"], (x, hidden)


def feed_forward_backward(d_out, cache, p):
    x, hidden = cache
    d_hidden = (d_out @ p["w_2"].T) * (hidden > 0)  # (L, d_ff): ReLU passes gradient where it was open
    return d_hidden @ p["w_1"].T, {"w_2": hidden.T @ d_out, "w_1": x.T @ d_hidden}
# --8<-- [end:sublayers]


# --8<-- [start:post_norm]
def post_norm_block(x, p, n_heads):
    """LayerNorm(x + Sublayer(x))"""
    a, a_cache = attention(x, p, n_heads)
    h, ln1 = layer_norm(x + a)
    f, f_cache = feed_forward(h, p)
    y, ln2 = layer_norm(h + f)
    return y, (a_cache, ln1, f_cache, ln2)
# --8<-- [end:post_norm]


# --8<-- [start:pre_norm]
def pre_norm_block(x, p, n_heads):
    """x + Sublayer(LayerNorm(x))"""
    n1, ln1 = layer_norm(x)
    a, a_cache = attention(n1, p, n_heads)
    h = x + a
    n2, ln2 = layer_norm(h)
    f, f_cache = feed_forward(n2, p)
    return h + f, (ln1, a_cache, ln2, f_cache)
# --8<-- [end:pre_norm]


# --8<-- [start:post_norm_backward]
def post_norm_backward(d_y, cache, p, n_heads):
    a_cache, ln1, f_cache, ln2 = cache
    # d(h + f): through a LayerNorm
    d_sum2 = layer_norm_backward(d_y, ln2)
    d_h, f_grads = feed_forward_backward(
        d_sum2, f_cache, p)
    # d(x + a): through another LayerNorm
    d_sum1 = layer_norm_backward(d_sum2 + d_h, ln1)
    d_x, a_grads = attention_backward(
        d_sum1, a_cache, p, n_heads)
    return d_sum1 + d_x, a_grads | f_grads
# --8<-- [end:post_norm_backward]


# --8<-- [start:pre_norm_backward]
def pre_norm_backward(d_y, cache, p, n_heads):
    ln1, a_cache, ln2, f_cache = cache
    d_n2, f_grads = feed_forward_backward(
        d_y, f_cache, p)
    # the residual path passes d_y on untouched
    d_h = d_y + layer_norm_backward(d_n2, ln2)
    d_n1, a_grads = attention_backward(
        d_h, a_cache, p, n_heads)
    d_x = d_h + layer_norm_backward(d_n1, ln1)
    return d_x, a_grads | f_grads
# --8<-- [end:pre_norm_backward]


BLOCKS = {
    "post-norm": (post_norm_block, post_norm_backward),
    "pre-norm": (pre_norm_block, pre_norm_backward),
}


# --8<-- [start:stack]
def stack_gradients(x, layers, n_heads, d_loss, kind):
    """Run a stack of blocks forward, then backward from dLoss/d(output) = d_loss.

    Returns the output, dLoss/d(input of block l) for l = 1..N, and each block's weight gradients.
    A pre-norm stack ends with one more LayerNorm, as GPT-2 does; a post-norm stack ends with one anyway.
    """
    block, block_backward = BLOCKS[kind]
    caches = []
    for p in layers:
        x, cache = block(x, p, n_heads)
        caches.append(cache)
    if kind == "pre-norm":
        x, final_ln = layer_norm(x)
        d_loss = layer_norm_backward(d_loss, final_ln)
    d_inputs, weight_grads = [], []
    for p, cache in zip(reversed(layers), reversed(caches)):
        d_loss, grads = block_backward(d_loss, cache, p, n_heads)
        d_inputs.append(d_loss)
        weight_grads.append(grads)
    return x, d_inputs[::-1], weight_grads[::-1]
# --8<-- [end:stack]
