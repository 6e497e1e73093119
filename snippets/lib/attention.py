"""Self-attention in NumPy, written to read like the math.

Every snippet on the site imports this module instead of re-implementing it.
All arrays are float64. Masks are boolean and follow the convention of the
boolean ``attn_mask`` of PyTorch's ``scaled_dot_product_attention``:
**True means "may attend"**, False means "masked out".

Shapes use these letters: B batch, h heads, L (Lq, Lk) sequence lengths,
d_model model width, d_k key/query width, d_v value width, d_head = d_model / h.
"""

import math
import numbers

import numpy as np


def softmax(x, axis=-1):
    """Numerically stable softmax along ``axis``.

    Subtracting the maximum keeps ``exp`` from overflowing, so logits up to
    +-1e300 stay finite. ``-inf`` entries get weight 0, and a slice that is all
    ``-inf`` (every key masked) gives zeros instead of NaN. A slice that contains
    NaN gives NaN everywhere: a NaN score is a bug upstream, and it must show.
    An empty slice (no keys at all) gives an empty result.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.shape[axis] == 0:  # no keys: nothing to normalise (np.max would raise)
        return x.copy()
    peak = np.max(x, axis=axis, keepdims=True)  # NaN if the slice holds a NaN
    finite_peak = np.where(np.isfinite(peak), peak, 0.0)  # all -inf: keep exp(-inf) = 0
    with np.errstate(over="ignore", invalid="ignore"):  # -1e308 - 1e308 = -inf: exp gives 0
        e = np.exp(x - finite_peak)
    e = np.where(np.isposinf(peak), np.isposinf(x), e)  # +inf logits share all the weight
    total = np.sum(e, axis=axis, keepdims=True)  # 0 only if every entry is -inf; NaN if one is NaN
    return np.divide(e, total, out=np.zeros_like(e), where=total != 0)


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
    a zero output row; so does every query when there are no keys (Lk = 0). A NaN
    in a query's scores gives NaN weights and a NaN output row for that query.
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


def check_whole_number(value, name, unit, least=1):
    """``value`` as an int when it is a whole number (a Python or NumPy integer, not a bool) >= ``least``;
    otherwise a ValueError naming ``name`` and the values it allows, counted in ``unit``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < least:
        raise ValueError(f"{name} must be a whole number of {unit} >= {least}, got {value!r}")
    return int(value)


def _check_length(n, caller):
    """The number of positions ``n`` as an int: a finite whole number >= 1 (5 or 5.0), else a ValueError."""
    try:
        whole = not isinstance(n, (bool, np.bool_)) and float(n).is_integer() and n >= 1  # NaN, inf: not integers
    except (TypeError, ValueError):
        whole = False
    if not whole:
        raise ValueError(f"{caller} needs a positive whole number of positions, got n = {n!r}")
    return int(n)


def check_base(base):
    """The base of positional angles, theta_i = base^(-2i/d), as a float: finite and greater than 1."""
    if isinstance(base, (bool, np.bool_)) or not isinstance(base, numbers.Real) or not 1 < base < math.inf:
        raise ValueError(f"base must be a finite number greater than 1 (the paper's is 10000), got {base!r}")
    return float(base)


def causal_mask(n):
    """(n, n) boolean mask, True on and below the diagonal: position i may attend to j <= i."""
    n = _check_length(n, "causal_mask")
    return np.tril(np.ones((n, n), dtype=bool))


# --8<-- [start:sliding-window-mask]
def sliding_window_mask(n, window):
    """(n, n) boolean mask, True where i - window < j <= i: query i sees at most ``window`` keys, itself included.

    ``window`` >= n gives the causal mask; ``window`` = 1 lets every position see only itself.
    """
    n = _check_length(n, "sliding_window_mask")
    window = min(check_whole_number(window, "the window", "keys"), n)
    i = np.arange(n)[:, None]  # (n, 1): query positions
    j = np.arange(n)[None, :]  # (1, n): key positions
    return (j <= i) & (j > i - window)  # (n, n)
# --8<-- [end:sliding-window-mask]


def padding_mask(lengths, n):
    """(B, 1, n) boolean mask, False for key positions >= lengths[b] (padding)."""
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or not np.issubdtype(lengths.dtype, np.integer):
        raise ValueError(f"lengths must be a 1-D array of integers, got shape {lengths.shape}, dtype {lengths.dtype}")
    if np.any(lengths < 0) or np.any(lengths > n):
        raise ValueError(f"every length must lie in [0, {n}], got {lengths.tolist()}")
    positions = np.arange(n)  # (n,)
    return (positions[None, :] < lengths[:, None])[:, None, :]  # (B, 1, n)


def sinusoidal_positions(n_positions, d_model, base=10000.0):
    """Sinusoidal encodings of "Attention Is All You Need", section 3.5: (n_positions, d_model).

    PE[p, 2i] = sin(p / base^(2i / d_model)), PE[p, 2i+1] = cos(p / base^(2i / d_model)); the paper's base is 10000.
    """
    if d_model % 2:
        raise ValueError(f"d_model must be even to pair sines with cosines, got {d_model}")
    base = check_base(base)
    positions = np.arange(n_positions)[:, None]  # (P, 1)
    two_i = np.arange(0, d_model, 2)[None, :]  # (1, d_model / 2)
    angles = positions / base ** (two_i / d_model)  # (P, d_model / 2)
    pe = np.empty((n_positions, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe



# ------------------------------------------------------------- today's models: rotary positions, shared keys and values
ROPE_PAIRINGS = ("interleaved", "half")


def rope_pairs(d, pairing="interleaved"):
    """The two feature indices of every rotated pair: (first (d/2,), second (d/2,)).

    "interleaved" pairs (2i, 2i+1), as in the RoFormer paper and GPT-J; "half" pairs (i, i + d/2), as in
    GPT-NeoX and Hugging Face's Llama. Pair i turns at the same angle in both.
    """
    if d % 2:
        raise ValueError(f"rotary embeddings rotate pairs of features: d must be even, got d = {d}")
    if pairing == "interleaved":
        return np.arange(0, d, 2), np.arange(1, d, 2)
    if pairing == "half":
        return np.arange(d // 2), np.arange(d // 2, d)
    raise ValueError(f"unknown pairing {pairing!r}: use one of {ROPE_PAIRINGS}")


# --8<-- [start:rope]
def rope_angles(positions, d, base=10000.0):
    """Angle of pair i at position m: m * base^(-2i/d). positions (L,) -> (L, d/2) radians."""
    if d % 2:
        raise ValueError(f"rotary embeddings rotate pairs of features: d must be even, got d = {d}")
    positions = np.asarray(positions, dtype=np.float64)
    if positions.ndim != 1:
        raise ValueError(f"positions must be one position per row, shape (L,), got shape {positions.shape}")
    frequencies = check_base(base) ** (-np.arange(0, d, 2) / d)  # (d/2,) radians per position
    return positions[:, None] * frequencies[None, :]  # (L, d/2)


def apply_rope(x, positions, base=10000.0, pairing="interleaved"):
    """Rotary position embedding (Su et al., RoFormer, eq. 34): rotate each pair of features of row m by m * theta_i.

    x (..., L, d) with d even, positions (L,) integers or floats, theta_i = base^(-2i/d). A pair (a, b) becomes
    (a cos - b sin, a sin + b cos). ``pairing`` says which features form pair i (see ``rope_pairs``).
    Returns a new float64 array (..., L, d); x itself is left unchanged. Queries and keys are rotated; values are not.
    """
    if np.iscomplexobj(x):
        raise ValueError(f"x must be real (queries or keys are real vectors), got dtype {np.asarray(x).dtype}")
    x = np.asarray(x, dtype=np.float64)
    if x.ndim < 2:
        raise ValueError(f"x must be (..., L, d), got shape {x.shape}")
    *_, length, d = x.shape
    first, second = rope_pairs(d, pairing)  # each (d/2,)
    if np.shape(positions) != (length,):
        raise ValueError(f"positions must give one position per row of x: shape ({length},), got {np.shape(positions)}")
    angles = rope_angles(positions, d, base)  # (L, d/2)
    cos, sin = np.cos(angles), np.sin(angles)  # (L, d/2) each
    a, b = x[..., first], x[..., second]  # (..., L, d/2) each
    rotated = np.empty_like(x)
    rotated[..., first] = a * cos - b * sin
    rotated[..., second] = a * sin + b * cos
    return rotated
# --8<-- [end:rope]


def grouped_query_attention(q, k, v, mask=None):
    """Grouped-query attention (Ainslie et al. 2023): h query heads share h_kv key/value heads.

    q (..., h, Lq, d_k), k (..., h_kv, Lk, d_k), v (..., h_kv, Lk, d_v), h a multiple of h_kv; query head i uses
    key/value head i // (h / h_kv). h_kv = h is multi-head attention, h_kv = 1 multi-query attention.
    The head axis comes before the positions, as ``split_heads`` returns them: the third axis from the end is
    always read as heads. Arrays laid out (..., L, h, d) (positions first, as some libraries keep them) are
    taken as L heads of h positions, and no check can tell when the sizes allow it: move the axis first.
    mask as in ``scaled_dot_product_attention``, broadcastable to (..., h, Lq, Lk).
    Returns output (..., h, Lq, d_v) and weights (..., h, Lq, Lk).
    """
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    if q.ndim < 3 or k.ndim < 3 or v.ndim < 3:
        raise ValueError(f"q, k, v need a head axis (..., heads, L, d); got q {q.shape}, k {k.shape}, v {v.shape}")
    h, h_kv = q.shape[-3], k.shape[-3]
    if v.shape[-3] != h_kv:
        raise ValueError(f"k and v must have the same number of key/value heads; got k {k.shape}, v {v.shape}")
    if h_kv < 1 or h % h_kv:
        raise ValueError(f"the {h} query heads (q {q.shape}) are not a multiple of the {h_kv} key/value heads "
                         f"(k {k.shape}); heads are the third axis from the end, (..., heads, L, d)")
    group = h // h_kv  # query heads per key/value head
    k = np.repeat(k, group, axis=-3)  # (..., h, Lk, d_k): head i gets key/value head i // group
    v = np.repeat(v, group, axis=-3)  # (..., h, Lk, d_v)
    return scaled_dot_product_attention(q, k, v, mask)

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
    mask: boolean, broadcastable to (..., L, L) and shared by every head, or, with a head
    axis, broadcastable to (..., n_heads, L, L) (e.g. PyTorch-style (B, 1, 1, L)).
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
    if mask is not None and np.ndim(mask) > len(batch) + 2:  # a head axis: one mask per head, (..., h, L, L)
        mask = _check_mask(mask, (*batch, n_heads, length, length))
    elif mask is not None:
        scores_shape = (*batch, length, length)
        mask = np.broadcast_to(_check_mask(mask, scores_shape), scores_shape)
        mask = mask[..., None, :, :]  # (..., 1, L, L): the same mask for every head
    q = split_heads(x @ w_q, n_heads)  # (..., h, L, d_head)
    k = split_heads(x @ w_k, n_heads)  # (..., h, L, d_head)
    v = split_heads(x @ w_v, n_heads)  # (..., h, L, d_head)
    heads, weights = scaled_dot_product_attention(q, k, v, mask)  # (..., h, L, d_head), (..., h, L, L)
    output = merge_heads(heads) @ w_o  # (..., L, d_model)
    return output, weights
