"""The exercises of "Queries, keys and values": their answers, and the results of the usual mistakes, made in code.

Five questions on the running sentence and the page's two-dimensional counterexample: the shapes of K and of the
score matrix with d_k = 4, how many scores a tied W_K = W_Q leaves to compute, the softmax weight of the long key
when the query is tripled, and what changes when W_V is replaced. Answers come from the core's projections,
scores, softmax and attention; each usual mistake is made in code and its result published beside the answer
(lib.exercises).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import attention_scores, scaled_dot_product_attention, softmax
from lib.exercises import exercise
from lib.publish import value
from lib.running_example import D_MODEL, SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)

# Exercises 1 and 2: shapes with a narrower d_k.
d_k = value("d_k", 4)
w_q, w_k, w_v = projection_weights(D_MODEL, d_k)  # each (d_model, d_k)
q, k = x @ w_q, x @ w_k  # each (L, d_k)
exercise(
    "k_shape",
    k.shape,
    mistakes={
        "transposed": k.T.shape,  # one column per token
        "weight_shape": w_k.shape,  # the projection matrix, not its product with x
    },
)
exercise(
    "scores_shape",
    (q @ k.T).shape,  # one score per (query, key)
    mistakes={"other_way_round": (q.T @ k).shape},  # Q^T K: features against features
)

# Exercise 3: with W_K = W_Q the score matrix is symmetric: how many scores must be computed?
w_tied = projection_weights()[0]  # (d_model, d_k): the page's W_q, also used for the keys
scores_tied = attention_scores(x @ w_tied, x @ w_tied)  # (L, L)
exercise(
    "tied_scores",
    len(np.triu_indices(len(tokens))[0]),  # s_ij for i <= j; s_ji is the same number
    mistakes={
        "ignored_symmetry": scores_tied.size,  # every cell computed
        "left_out_diagonal": len(np.triu_indices(len(tokens), k=1)[0]),  # the self-scores s_ii forgotten
    },
)

# Exercise 4: the counterexample's query made three times longer.
q_2d = np.array([1.0, 0.0])
keys_2d = np.array([[0.9, 0.3], [2.0, 2.0]])  # (2, d): key A, key B
factor = value("query_factor", 3)
weights_long = softmax(keys_2d @ (factor * q_2d))  # (2,)
unit = keys_2d / np.linalg.norm(keys_2d, axis=-1, keepdims=True)  # (2, d): keys of length 1
exercise(
    "weight_b",
    weights_long[1],
    "{:.2f}",
    mistakes={
        "length_ignored": softmax(keys_2d @ q_2d)[1],  # the weight of the original query
        "cosine_scores": softmax(unit @ (factor * q_2d) / np.linalg.norm(factor * q_2d))[1],  # cosines as scores
        "weight_of_a": weights_long[0],  # the other key's weight
    },
)
value("score_a", keys_2d[0] @ (factor * q_2d), "{:.1f}")
value("score_b", keys_2d[1] @ (factor * q_2d), "{:.1f}")


# Exercise 5: replace W_V by another matrix; what changes?
def what_changed(before, after):
    """Which part of two (output, weights) results differs: "weights", "output" or "both"."""
    weights_moved = not np.allclose(before[1], after[1])
    output_moved = not np.allclose(before[0], after[0])
    return {(True, True): "both", (True, False): "weights", (False, True): "output"}[weights_moved, output_moved]


w_v_other = np.random.default_rng(7).normal(scale=1 / np.sqrt(D_MODEL), size=w_v.shape)  # (d_model, d_k)
v, v_other = x @ w_v, x @ w_v_other  # each (L, d_k)
exercise(
    "new_w_v",
    what_changed(scaled_dot_product_attention(q, k, v), scaled_dot_product_attention(q, k, v_other)),
    mistakes={  # the values taken for the keys: scores q . v
        "both": what_changed(scaled_dot_product_attention(q, v, v), scaled_dot_product_attention(q, v_other, v_other)),
    },
)
