"""Somewhere else for attention to go: a softmax with a sink logit, the "plus one" softmax, and QK-norm.

Softmax weights sum to one, so a query with nothing to read must still put its weight on some key. Three ways to
let it put the weight nowhere, as models of 2025 do:

- a **sink logit** s per head (gpt-oss): one more logit in the softmax's denominator, with no value behind it:
  w_j = exp(x_j) / (exp(s) + sum_k exp(x_k)), so the weights sum to 1 - exp(s) / (exp(s) + sum_k exp(x_k)) < 1;
- the **plus-one softmax** (Evan Miller, "Attention Is Off By One", 2023): the sink logit fixed at s = 0,
  w_j = exp(x_j) / (1 + sum_k exp(x_k)); the same as one more key whose score is 0 and whose value is 0;
- **QK-norm** (OLMo 2, Qwen3, Gemma 3): queries and keys divided by their root mean square (times a learned gain)
  before the scores, so a score cannot grow with the vectors' length.

The two ``buggy_`` functions are mistakes kept for the chapter and its tests only.
"""

import numpy as np

from lib.attention import _check_mask, _check_qkv, attention_scores, softmax, softmax_backward

EPS = 1e-6  # QK-norm's epsilon, as in the RMSNorm of Qwen3's q_norm and k_norm


def _sink_column(scores, sink):
    """The sink logit as one column beside the scores: (..., Lq, 1), broadcast from ``sink``.

    ``sink`` is a number (one sink for every row) or an array that broadcasts to scores.shape[:-1], e.g. (h, 1)
    for scores (B, h, Lq, Lk): one sink per head.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim < 1:
        raise ValueError(f"scores must have a key axis (..., Lk), got shape {scores.shape}")
    sink = np.asarray(sink, dtype=np.float64)
    try:
        column = np.broadcast_to(sink, scores.shape[:-1])[..., None]  # (..., Lq, 1)
    except ValueError:
        raise ValueError(f"the sink of shape {sink.shape} does not broadcast to the scores' rows "
                         f"{scores.shape[:-1]} (one sink per row; per head: shape (h, 1))") from None
    return scores, column


# --8<-- [start:sink]
def softmax_with_sink(scores, sink):
    """Softmax over the keys with one more logit ``sink`` in the denominator: (..., Lq, Lk) weights summing to < 1.

    The same as appending the sink as one more column, taking the ordinary softmax over the keys and dropping that
    column. Masked keys are -inf; a row with every key masked puts all its weight on the sink (zeros here).
    """
    scores, column = _sink_column(scores, sink)
    with_sink = np.concatenate([scores, column], axis=-1)  # (..., Lq, Lk + 1): the sink is one more key
    return softmax(with_sink, axis=-1)[..., :-1]  # (..., Lq, Lk): the sink's own column is dropped


def softmax_plus_one(scores):
    """exp(x_j) / (1 + sum_k exp(x_k)): the sink logit fixed at 0."""
    return softmax_with_sink(scores, 0.0)
# --8<-- [end:sink]


def sink_weight(scores, sink):
    """The weight each row gives the sink, 1 - (the row's weights): (..., Lq)."""
    scores, column = _sink_column(scores, sink)
    return softmax(np.concatenate([scores, column], axis=-1), axis=-1)[..., -1]


# --8<-- [start:bugs]
def buggy_sink_on_query_axis(scores, sink):
    """THE BUG, for the lesson and its test only: the sink appended as one more *query* row, not one more key.

    Softmax still runs over the keys, so the extra row is dropped again and every real row is the plain softmax:
    the sink does nothing, and nothing fails.
    """
    scores, column = _sink_column(scores, sink)
    row = np.broadcast_to(column[..., :1, :], (*scores.shape[:-2], 1, scores.shape[-1]))  # (..., 1, Lk): a query
    with_sink = np.concatenate([scores, row], axis=-2)  # (..., Lq + 1, Lk)
    return softmax(with_sink, axis=-1)[..., :-1, :]  # (..., Lq, Lk)


def buggy_plus_one_after_max(scores):
    """THE BUG, for the lesson and its test only: the 1 added after the maximum is subtracted, not rescaled.

    exp(x_j - m) / (1 + sum_k exp(x_k - m)) is a sink logit of m, the row's maximum, not of 0: the "nothing"
    option gets the weight of the best key instead of a fixed one. The right form adds exp(-m).
    """
    scores = np.asarray(scores, dtype=np.float64)
    m = scores.max(axis=-1, keepdims=True)  # (..., Lq, 1)
    e = np.exp(scores - m)
    return e / (1.0 + e.sum(axis=-1, keepdims=True))
# --8<-- [end:bugs]


# --8<-- [start:attend]
def attention_with_sink(q, k, v, mask=None, sink=None):
    """softmax_with_sink(q k^T / sqrt(d_k), sink) v: output (..., Lq, d_v) and weights (..., Lq, Lk).

    ``sink`` None is ordinary attention; a number or an array broadcasting to the scores' rows (per head: (h, 1))
    adds that logit to every row's denominator. mask as in ``scaled_dot_product_attention`` (True = may attend).
    """
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    _check_qkv(q, k, v)
    scores = attention_scores(q, k)  # (..., Lq, Lk)
    if mask is not None:
        scores = np.where(_check_mask(mask, scores.shape), scores, -np.inf)
    weights = softmax(scores, axis=-1) if sink is None else softmax_with_sink(scores, sink)  # (..., Lq, Lk)
    return weights @ v, weights  # (..., Lq, d_v)
# --8<-- [end:attend]


def attention_with_sink_backward(d_output, q, k, v, weights):
    """Gradients (dq, dk, dv) of a loss, and ``read``, through ``attention_with_sink``, given its ``weights``.

    With or without a sink, dL/dx_j = w_j (g_j - sum_k w_k g_k), where g = dL/dw: the sink has no value, so its own
    g is 0. The sink's gradient is dL/ds = -p_sink * sum_k w_k g_k, returned as the (..., Lq) array
    ``sum_k w_k g_k`` for the caller to combine with the sink weight and sum over the axes the sink is shared on.
    """
    d_v = np.swapaxes(weights, -1, -2) @ d_output  # (..., Lk, d_v)
    d_weights = d_output @ np.swapaxes(v, -1, -2)  # (..., Lq, Lk)
    d_scores = softmax_backward(d_weights, weights) / np.sqrt(q.shape[-1])  # (..., Lq, Lk)
    read = np.sum(d_weights * weights, axis=-1)  # (..., Lq): sum_k w_k g_k
    return d_scores @ k, np.swapaxes(d_scores, -1, -2) @ q, d_v, read


# --8<-- [start:qk-norm]
def rms_norm(x, gain):
    """x / sqrt(mean(x^2) + EPS) * gain over the last axis (QK-norm's RMSNorm, one gain per feature)."""
    x = np.asarray(x, dtype=np.float64)
    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + EPS) * gain
# --8<-- [end:qk-norm]


def rms_norm_backward(d_y, x, gain):
    """Gradients (dx, d_gain summed over every row) of a loss through ``rms_norm``."""
    r = 1.0 / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + EPS)  # (..., 1)
    d_n = d_y * gain  # (..., d): gradient at the normalised x * r
    d_x = r * d_n - x * r**3 * np.mean(d_n * x, axis=-1, keepdims=True)
    d_gain = (d_y * x * r).reshape(-1, x.shape[-1]).sum(axis=0)  # (d,)
    return d_x, d_gain
