"""The weighted-sum chapter's exercises: their answers, and what the usual mistakes give, on the row of "cat".

Every exercise starts from the running sentence under the causal mask, as the chapter does: its weight matrix,
and the value rows of "The" and "cat" that the output of "cat" mixes. Each usual mistake is made here in code (the
sum over the wrong axis, the weights given to the wrong rows, a plain mean instead of a weighted one, a larger
weight taken for a larger contribution), and lib.exercises publishes the answer and every mistake's result for the
page and the notebook to check replies against.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, scaled_dot_product_attention
from lib.exercises import exercise
from lib.publish import value
from lib.running_example import running_qkv

tokens, q, k, v = running_qkv()  # (L,), then q, k, v each (L, d_k)
_, weights = scaled_dot_product_attention(q, k, v, causal_mask(len(tokens)))  # (L, L)
the, cat = tokens.index("The"), tokens.index("cat")

# Exercise 1: the total weight the key "The" receives, summed over every query.
exercise(
    "column_total_the", weights[:, the].sum(), "{:.2f}",
    {"row_instead_of_column": weights[the, :].sum()},  # the row of "The" (axis=-1), which sums to 1
)

# Exercise 2: the last feature of the output of "cat" for a draw that puts a given weight on "cat" itself.
w_self = value("draw_self_weight", 0.9, "{:.1f}")
w_the = value("draw_the_weight", 1 - w_self, "{:.1f}")
value("v_the_last", v[the, -1], "{:.3f}")
value("v_cat_last", v[cat, -1], "{:.3f}")
exercise(
    "draw_output_last", w_the * v[the, -1] + w_self * v[cat, -1], "{:.2f}",
    {
        "weights_swapped": w_self * v[the, -1] + w_the * v[cat, -1],  # each weight on the other key's value row
        "plain_mean": np.mean(v[[the, cat], -1]),  # the two value rows averaged, the weights ignored
    },
)

# Exercise 3: the weight on itself at which "cat"'s own contribution is as long as that of "The".
norm_the = value("norm_v_the", np.linalg.norm(v[the]), "{:.3f}")
norm_cat = value("norm_v_cat", np.linalg.norm(v[cat]), "{:.3f}")
n_visible = int(causal_mask(len(tokens))[cat].sum())  # the keys "cat" can see: "The" and itself
exercise(
    "break_even_self_weight", norm_the / (norm_the + norm_cat), "{:.2f}",  # w |v_cat| = (1 - w) |v_The|
    {
        "equal_weights": 1 / n_visible,  # equal weights taken for equal contributions
        "norms_swapped": norm_cat / (norm_the + norm_cat),  # the own value row's length in the numerator
    },
)
