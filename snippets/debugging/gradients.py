"""Gradients through a mask, a finite-difference check, a penalty that cannot work.

Seed 000 blames a NaN on "forgetting .detach() before masking". A mask is a
constant: the gradient reaching a masked score is exactly 0, and no NaN appears.
We check the core's backward pass against finite differences, then show that an
L1 penalty on attention weights has zero gradient, because every row sums to 1.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import (
    causal_mask,
    scaled_dot_product_attention,
    scaled_dot_product_attention_backward,
    softmax,
    softmax_backward,
)
from lib.debug_tools import numeric_gradient, relative_error
from lib.publish import value

rng = np.random.default_rng(4)
L, d = 7, 8
q, k, v = rng.normal(size=(3, L, d))  # each (7, 8)
g = rng.normal(size=(L, d))  # dLoss/d(output) for the loss sum(output * g)
mask = causal_mask(L)  # (7, 7)

# --8<-- [start:masked]
output, weights = scaled_dot_product_attention(q, k, v, mask)
d_weights = g @ v.T  # (7, 7)
d_scores = softmax_backward(d_weights, weights)  # (7, 7): reaches each score
print(f"max |gradient| on a masked score : {np.abs(d_scores[~mask]).max()}")
print(f"max |gradient| on a visible score: {np.abs(d_scores[mask]).max():.3}")
dq, dk, dv = scaled_dot_product_attention_backward(g, q, k, v, mask)
print("any NaN in dq, dk, dv:", any(np.isnan(a).any() for a in (dq, dk, dv)))
# --8<-- [end:masked]
value("masked_grad_max", np.abs(d_scores[~mask]).max(), "{:.1f}")
value("visible_grad_max", np.abs(d_scores[mask]).max(), "{:.2f}")
value("dq_norm", np.linalg.norm(dq), "{:.2f}")
value("dk_norm", np.linalg.norm(dk), "{:.2f}")


# --8<-- [start:gradcheck]
def loss(q_, k_, v_):
    return np.sum(scaled_dot_product_attention(q_, k_, v_, mask)[0] * g)


errors = {
    "dq": relative_error(dq, numeric_gradient(lambda a: loss(a, k, v), q)),
    "dk": relative_error(dk, numeric_gradient(lambda a: loss(q, a, v), k)),
    "dv": relative_error(dv, numeric_gradient(lambda a: loss(q, k, a), v)),
}
for name, error in errors.items():
    print(f"gradcheck {name}: relative error {error:.1e}")
# --8<-- [end:gradcheck]
value("gradcheck_worst", max(errors.values()), "{:.0e}")

# --8<-- [start:l1]
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
# --8<-- [end:l1]
value("l1_grad_max", l1_grad, "{:.0e}")
value("entropy_grad_max", entropy_grad, "{:.2f}")
value("top_before", softmax(scores).max(-1).mean(), "{:.3f}")
value("top_after_l1", tops["L1"], "{:.3f}")
value("top_after_entropy", tops["entropy"], "{:.3f}")
