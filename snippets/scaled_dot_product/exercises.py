"""The scaled dot-product chapter's exercises: their answers, and what the usual mistakes give.

The first three start from the running sentence's queries, keys and values (the chapter's five steps); the last
two from the variance argument and the initialisation rule at seed 000's sizes. Each usual mistake is made here in
code (the scaling kept, the softmax over the wrong axis, the product the other way round, the variance taken for
the standard deviation, sigma_W not squared, ...), and lib.exercises publishes the answer and every mistake's
result for the page and the notebook to check replies against.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import softmax
from lib.exercises import exercise
from lib.publish import value
from lib.running_example import running_qkv

tokens, q, k, v = running_qkv()  # (L,), then q, k, v each (L, d_k)
d_k = q.shape[-1]
scores = q @ k.T  # (L, L): step 2, not yet scaled
mat, on = tokens.index("mat"), tokens.index("on")
value("mat_exp_on", np.exp(scores[mat, on]), "{:.3f}")  # e^(s_mat,on), for the solution
value("mat_exp_sum", np.sum(np.exp(scores[mat])), "{:.3f}")  # the sum of e^(s_mat,j) over the seven keys

# Exercise 1: the weight the query "mat" gives the key "on" when step 3 (the scaling) is skipped.
exercise(
    "unscaled_weight", softmax(scores, axis=-1)[mat, on], "{:.3f}",
    {
        "kept_scaling": softmax(scores / np.sqrt(d_k), axis=-1)[mat, on],  # the scaled weight, as in the heatmap
        "softmax_over_queries": softmax(scores, axis=0)[mat, on],  # normalised down the column of "on"
    },
)

# Exercises 2 and 3: only the first three tokens ask (queries), all seven answer (keys and values).
n_queries = value("n_queries", 3)
q_first = q[:n_queries]  # (3, d_k)
weights_first = softmax(q_first @ k.T / np.sqrt(d_k), axis=-1)  # (3, L)
exercise(
    "scores_shape", (q_first @ k.T).shape, "{}",
    {
        "product_reversed": (k @ q_first.T).shape,  # K Q^T: one row per key
        "keys_cut_too": (q_first @ k[:n_queries].T).shape,  # only the first three tokens as keys as well
    },
)
exercise(
    "output_shape", (weights_first @ v).shape, "{}",
    {
        "stopped_at_weights": weights_first.shape,  # the weights, before they mix the values
        "all_queries": (softmax(q @ k.T / np.sqrt(d_k), axis=-1) @ v).shape,  # one row per token of the sentence
    },
)

# Exercise 4: the standard deviation of an unscaled dot product at d_k = 256, unit-variance components.
wide = value("wide_d_k", 256)
variance = wide  # Var(q . k): d_k independent terms of variance 1
std = np.sqrt(variance)
exercise(
    "unscaled_std", int(std), "{}",
    {
        "variance": int(variance),  # the variance given where its square root is asked
        "scaled": int(std / np.sqrt(wide)),  # the scaled score's standard deviation, after dividing by sqrt(d_k)
    },
)

# Exercise 5: the predicted standard deviation of the scaled scores, d_model sigma_W^2, at seed 000's d_model.
d_model = value("init_d_model", 128)
sigma_w = value("init_sigma_w", 0.05, "{:.2f}")
value("init_sigma_w_squared", sigma_w**2, "{:.4f}")  # for the solution
exercise(
    "init_std", d_model * sigma_w**2, "{:.2f}",
    {
        "sigma_not_squared": d_model * sigma_w,  # the standard deviation of W where its variance belongs
        "variance_not_std": (d_model * sigma_w**2) ** 2,  # sigma_q^2 sigma_k^2, the variance of the scaled scores
    },
)
