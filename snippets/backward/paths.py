"""The two paths of the gradient, on "The cat sat on the mat."

Let the loss look only at the output of "cat" (row 1): L = <g, output_cat> for a random vector g.
Backpropagation splits at the weighted sum output = weights @ v:
  path 1, to V, straight through the weighted sum: dv_j = w_cat,j * g;
  path 2, to Q and K, through the weights: dweights = g v^T, then the softmax VJP, then the scores.
We run the chain rule step by step, compare each result with the core's backward pass, and plot
what each key receives on each path.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import scaled_dot_product_attention, scaled_dot_product_attention_backward, softmax_backward
from lib.plotting import COLORS
from lib.publish import value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

np.set_printoptions(precision=3, suppress=True)

tokens = tokenize(SENTENCE)  # 7 tokens
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # each (d_model, d_k)
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (L, d_k)
d_k = q.shape[-1]
output, weights = scaled_dot_product_attention(q, k, v)  # (L, d_v), (L, L)
grad_output = np.zeros_like(output)  # (L, d_v)
grad_output[1] = np.random.default_rng(2).normal(size=output.shape[1])  # only "cat"'s output matters

# --8<-- [start:paths]
# Path 1: through the weighted sum, straight to the values.
grad_v = weights.T @ grad_output  # (L, d_v): value j gets sum_i w_ij * g_i
# Path 2: through the weights, the softmax and the scale, to the queries and keys.
grad_weights = grad_output @ v.T  # (L, L): how the loss wants each weight to move
grad_scores = softmax_backward(grad_weights, weights) / np.sqrt(d_k)  # (L, L)
grad_q = grad_scores @ k  # (L, d_k)
grad_k = grad_scores.T @ q  # (L, d_k)
# --8<-- [end:paths]

core = scaled_dot_product_attention_backward(grad_output, q, k, v)
max_diff = max(np.max(np.abs(a - b)) for a, b in zip((grad_q, grad_k, grad_v), core))
print("weights of 'cat'         :", weights[1])
print("grad_weights of 'cat'    :", grad_weights[1])
print("grad_scores of 'cat'     :", grad_scores[1])
print("sum of that row          :", f"{grad_scores[1].sum():.1e}")
print("|grad_v_j| / |g|         :", np.linalg.norm(grad_v, axis=1) / np.linalg.norm(grad_output[1]))
print("queries with a gradient  :", [t for t, row in zip(tokens, grad_q) if np.any(row != 0)])
print(f"step by step vs core backward, largest difference: {max_diff:.1e}")

value("max_diff_core", max_diff, "{:.1e}")
value("row_sum", abs(grad_scores[1].sum()), "{:.1e}")
value("v_path_vs_weights", np.max(np.abs(np.linalg.norm(grad_v, axis=1) / np.linalg.norm(grad_output[1]) - weights[1])),
      "{:.1e}")
value("cat_top_key", tokens[int(np.argmax(weights[1]))])
value("cat_top_weight", weights[1].max(), "{:.2f}")

fig, axes = plt.subplots(1, 3, figsize=(10, 3.0), num="paths", layout="constrained", sharex=True)
positions = np.arange(len(tokens))
axes[0].bar(positions, weights[1], color=COLORS[0])
axes[0].set_ylim(0, 1)
axes[0].set_ylabel("weight of 'cat' on the key")
axes[0].set_title("forward: weights of 'cat'", fontsize=9)
axes[1].bar(positions, np.linalg.norm(grad_v, axis=1), color=COLORS[2])
axes[1].set_ylabel("|dL/dv_j|")
axes[1].set_title("path 1: through the weighted sum to V", fontsize=9)
axes[2].bar(positions, grad_scores[1], color=[COLORS[3] if s < 0 else COLORS[5] for s in grad_scores[1]])
axes[2].axhline(0, color="black", linewidth=0.8)
axes[2].set_ylabel("dL/dscore (cat, j)")
axes[2].set_title("path 2: through the weights to Q and K", fontsize=9)
for ax in axes:
    ax.set_xticks(positions, tokens)
    ax.set_xlabel("key token j")
plt.show()
