"""Diagnostics for attention bugs: small functions to paste next to your code.

Each function answers one question with a number. Is the softmax saturated?
Does a query put weight on padding? Does a position see the future? Does the
analytic gradient match finite differences?
"""

import numpy as np


def naive_softmax(scores):
    """Softmax without the max subtraction (what seed 000's code does)."""
    e = np.exp(scores)
    return e / e.sum(axis=-1, keepdims=True)


def max_subtract_softmax(scores):
    """Softmax that subtracts each row's maximum first (seed 003's code) and nothing else: a row of -inf gives NaN,
    and it computes in the dtype it is given."""
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
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
    """Central finite differences of f at x: the gradient (shaped like x) of a scalar f, or the Jacobian
    (shaped f(x).shape + x.shape) of an array-valued one."""
    x = np.asarray(x, dtype=np.float64)
    slopes = []
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = eps
        slopes.append((f(x + step) - f(x - step)) / (2 * eps))  # d f / d x[index]
    slopes = np.array(slopes)  # (x.size, *f(x).shape)
    return np.moveaxis(slopes, 0, -1).reshape(slopes.shape[1:] + x.shape)


def relative_error(a, b, euclidean=False):
    """size(a - b) / max(size(a), size(b)): 1e-9 or less when a gradient is right (0 for two zero arrays).

    size is the largest |entry|, or with ``euclidean`` the Euclidean norm of all entries.
    """
    a, b = np.asarray(a), np.asarray(b)
    size = np.linalg.norm if euclidean else (lambda x: np.max(np.abs(x)))
    return float(size(a - b) / max(size(a), size(b), 1e-300))
