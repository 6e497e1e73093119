"""The backward chapter's exercises: each answer, and the result of each usual mistake made in code.

1. The gradient of the first score of softmax.py's row when the gradient arriving at the weights is
   (1, -1, 0, 0, 0), by softmax_backward; mistakes: the mean <p_bar, p> left out, and the product with p left out.
2. The shape of dk when one k is shared by a batch of 2 sequences with 3 heads of queries (gradcheck.py's
   sizes), by the core's backward pass; mistakes: the gradient not summed over the broadcast axes, and the
   product taken the other way round, q^T dS.
3. The loss evaluations central differences take to check gradcheck.py's "no mask" case, counted on
   lib.debug_tools.numeric_gradient; mistake: the count of forward differences, L(x) once and L(x + h) per entry.
4. <p_bar, p> of the row of "cat" in paths.py, the amount the softmax VJP subtracts from every p_bar_j; mistakes:
   the plain mean of p_bar, and its plain sum.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import scaled_dot_product_attention, scaled_dot_product_attention_backward, softmax, softmax_backward
from lib.debug_tools import numeric_gradient
from lib.exercises import exercise
from lib.publish import value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

# 1. softmax.py's row of five weights (same seed, same draw)
y = softmax(np.random.default_rng(0).normal(size=5))  # (5,)
grad_y = np.array([1.0, -1.0, 0.0, 0.0, 0.0])  # the loss raises with the first weight, falls with the second
exercise("vjp_first_score", float(softmax_backward(grad_y, y)[0]), "{:.2f}",
         {"mean_left_out": float((y * grad_y)[0]),  # p * p_bar
          "p_left_out": float((grad_y - grad_y @ y)[0])})  # p_bar - <p_bar, p>
upstream = ", ".join(f"{x:g}" for x in grad_y)
value("vjp_upstream", upstream, zh=upstream)  # inside math on both pages: no Chinese list comma
value("vjp_mean", grad_y @ y, "{:.3f}")
value("vjp_first_weight", y[0], "{:.3f}")

# 2. gradcheck.py's batch of 2 sequences with 3 heads; one k and one v shared by all of them
rng = np.random.default_rng(1)
q = rng.normal(size=(2, 3, 5, 4))  # (B, h, L, d_k)
k = rng.normal(size=(5, 4))  # (L, d_k): broadcast over batch and heads
v = rng.normal(size=(5, 3))  # (L, d_v)
output, weights = scaled_dot_product_attention(q, k, v)  # (B, h, L, d_v), (B, h, L, L)
g = rng.normal(size=output.shape)  # (B, h, L, d_v)
_, dk, _ = scaled_dot_product_attention_backward(g, q, k, v)
d_scores = softmax_backward(g @ v.T, weights) / np.sqrt(q.shape[-1])  # (B, h, L, L)
exercise("dk_shape_shared", dk.shape, "{}",
         {"not_summed": (np.swapaxes(d_scores, -1, -2) @ q).shape,  # (B, h, L, d_k): one per slice
          "product_other_way": (np.swapaxes(q, -1, -2) @ d_scores).shape})  # (B, h, d_k, L)
value("shared_q_shape", q.shape)
value("shared_k_shape", k.shape)
value("shared_v_shape", v.shape)

# 3. gradcheck.py's "no mask" case: q (5, 4), k (6, 4), v (6, 3); every evaluation of the loss counted
rng = np.random.default_rng(3)
q, k, v = rng.normal(size=(5, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 3))
g = rng.normal(size=(5, 3))  # dL/d(output)
calls = []


def loss(q, k, v):
    calls.append(1)
    return float(np.sum(scaled_dot_product_attention(q, k, v)[0] * g))


numeric_gradient(lambda x: loss(x, k, v), q)  # central differences: L(x + h) and L(x - h) for every entry
numeric_gradient(lambda x: loss(q, x, v), k)
numeric_gradient(lambda x: loss(q, k, x), v)
central, h = len(calls), 1e-6
calls.clear()
base = loss(q, k, v)  # forward differences: L(x) once, then L(x + h) for every entry
for x, nudged in ((q, lambda x: loss(x, k, v)), (k, lambda x: loss(q, x, v)), (v, lambda x: loss(q, k, x))):
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = h
        _ = (nudged(x + step) - base) / h
exercise("central_evaluations", central, "{}", {"forward_differences": len(calls)})
value("checked_entries", q.size + k.size + v.size)

# 4. paths.py's forward pass and upstream gradient: the loss looks at the output of "cat" only
tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # each (d_model, d_k)
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (L, d_k)
output, weights = scaled_dot_product_attention(q, k, v)  # (L, d_v), (L, L)
g = np.random.default_rng(2).normal(size=output.shape[1])  # (d_v,): dL/d(output of "cat")
grad_weights_cat = v @ g  # (L,): row "cat" of grad_output @ v.T
cat = tokens.index("cat")
exercise("cat_mean_term", float(grad_weights_cat @ weights[cat]), "{:.2f}",
         {"plain_mean": float(grad_weights_cat.mean()), "plain_sum": float(grad_weights_cat.sum())})
value("cat_loss", float(g @ output[cat]), "{:.2f}")
