"""The Debugging chapter's exercises: each answer, and the result of each usual mistake made in code.

On the page's own failures: the head split without the transpose (d_model = 128, two heads, the running
sentence), the scaled-score standard deviation the variance formula predicts for seed 003's init, the largest score
np.exp survives in float32, the keys each query sees under seed 000's inverted mask, the even-spread baseline of
the first key for "The cat sat." under a causal mask, and the rows of a 512-row learned position table that a
128-token input leaves without gradient. Each usual mistake is made here too (the right split, sigma_W not squared,
a second division by sqrt(d_k), float64 or log10, the mask read the other way or with its diagonal, no mask, the
sum not divided by L, an off-by-one count, the used rows), and its result published beside the answer.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, sinusoidal_positions
from lib.exercises import exercise
from lib.publish import value
from lib.running_example import SENTENCE, embed, tokenize

tokens = tokenize(SENTENCE)  # 7 tokens
L = len(tokens)

# Exercise 1: which token each row of head 0 comes from, after reshape(h, L, d_head) without the transpose.
d_model, n_heads = 128, 2  # the shape section's sizes
d_head = d_model // n_heads
value("split_d_model", d_model)
value("split_n_heads", n_heads)
value("split_d_head", d_head)
position = np.repeat(np.arange(L), d_model).reshape(L, d_model)  # (L, d_model): each entry holds its row's index
wrong = position.reshape(n_heads, L, d_head)  # (h, L, d_head), rows scrambled
right = position.reshape(L, n_heads, d_head).transpose(1, 0, 2)  # (h, L, d_head)
exercise(
    "wrong_split_rows",
    [tokens[i] for i in wrong[0, :, 0]],
    mistakes={"right_split": [tokens[i] for i in right[0, :, 0]]},
)

# Exercise 2: the scaled-score std the formula d_model * sigma_x^2 * sigma_W^2 predicts for seed 003's init.
sigma_x, sigma_w, d_k = 1.0, 0.01, 64  # unit-variance inputs; seed 003's randn * 0.01; one head of two
value("sigma_w", sigma_w)
value("score_d_k", d_k)
x = embed(tokens, d_model) + sinusoidal_positions(L, d_model)  # (7, 128): the one-hot section's inputs
value("input_variance", x.var(), "{:.2f}")
value("input_variance_prediction", d_model * x.var() * sigma_w**2, "{:.4f}")
exercise(
    "small_init_std",
    d_model * sigma_x**2 * sigma_w**2,
    "{:.4f}",
    mistakes={
        "sigma_not_squared": d_model * sigma_x**2 * sigma_w,
        "divided_by_sqrt_d_k_again": d_model * sigma_x**2 * sigma_w**2 / np.sqrt(d_k),
    },
)

# Exercise 3: the largest score np.exp survives in float32, ln(float32 max).
float32_max = float(np.finfo(np.float32).max)  # as a float64, so that the logarithms are float64's
value("float32_max", float32_max, "{:.4e}")
exercise(
    "float32_exp_limit",
    np.log(float32_max),
    "{:.2f}",
    mistakes={
        "float64": np.log(np.finfo(np.float64).max),
        "log10": np.log10(float32_max),
    },
)

# Exercise 4: the keys each query sees when seed 000's mask (1 = blocked) is handed over as "True = may attend".
ones = np.ones((L, L))
inverted = np.triu(ones, k=1).astype(bool)  # seed 000's mask, read as "may attend"
exercise(
    "inverted_visible_keys",
    tuple(int(n) for n in inverted.sum(axis=-1)),
    mistakes={
        "read_as_blocked": tuple(int(n) for n in (~inverted).sum(axis=-1)),  # the causal mask it was meant to be
        "diagonal_included": tuple(int(n) for n in np.triu(ones).astype(bool).sum(axis=-1)),
    },
)

# Exercise 5: the even-spread weight on the first key, averaged over the queries of "The cat sat." (L = 4).
short = 4  # "The cat sat ."
value("short_length", short)
even = causal_mask(short) / causal_mask(short).sum(axis=-1, keepdims=True)  # (4, 4): row i spreads over i + 1 keys
exercise(
    "short_baseline",
    even[:, 0].mean(),
    "{:.2f}",
    mistakes={
        "no_mask": 1 / short,
        "not_averaged": even[:, 0].sum(),
    },
)

# Exercise 6: rows of a 512-row learned position table that a 128-token input leaves with zero gradient.
n_table, n_used = 512, 128  # the positions section's table and input
lookup = np.eye(n_table)[:n_used]  # (128, 512): position i reads row i of the table
d_table = lookup.T @ np.ones((n_used, 1))  # (512, 1): any upstream gradient, through the lookup
exercise(
    "zero_gradient_rows",
    int(np.sum(np.all(d_table == 0, axis=-1))),
    mistakes={
        "off_by_one": (n_table - 1) - n_used,  # "rows 128 to 511" counted as 511 - 128
        "used_rows": int(np.sum(np.any(d_table != 0, axis=-1))),
    },
)
