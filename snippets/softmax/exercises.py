"""The softmax chapter's exercises: their answers, and what the usual mistakes give, computed on the page's data.

Every exercise starts from the row of scaled scores of the query "cat" in the running sentence (the chapter's
first table) or from the overflow section's row [z0, 0]. Each usual mistake is made here in code (the temperature
multiplied instead of divided, the Jacobian without its outer product, the exponent limit rounded up, ...), and
lib.exercises publishes the answer and every mistake's result for the page and the notebook to check replies
against.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import attention_scores, softmax
from lib.exercises import exercise
from lib.publish import value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
w_q, w_k, _ = projection_weights()
z = attention_scores(x @ w_q, x @ w_k)[tokens.index("cat")]  # (L,): the scaled scores of the query "cat"
on = tokens.index("on")

# Exercise 1: the weight of "on" at temperature T = 1/2.
t = value("temperature", 0.5, "{:.1f}")
value("temperature_exp_on", np.exp(z[on] / t), "{:.3f}")  # e^(z_on / T), for the solution
value("temperature_exp_sum", np.sum(np.exp(z / t)), "{:.3f}")  # the sum of e^(z_j / T) over the seven keys
exercise(
    "temperature_on", softmax(z / t)[on], "{:.2f}",
    {
        "multiplied_by_t": softmax(z * t)[on],  # z * T: the temperature used the wrong way round
        "after_softmax": softmax(z)[on] / t,  # the weights divided by T instead of the scores
    },
)

# Exercise 2: the weight of "on" when the full stop is not a key.
stop = tokens.index(".")
kept = np.arange(len(tokens)) != stop  # (L,): every key but the full stop
weights = np.zeros(len(tokens))  # (L,): the full stop gets nothing
weights[kept] = softmax(z[kept])  # the softmax over the six remaining keys
value("six_key_exp_sum", np.sum(np.exp(z[kept])), "{:.3f}")  # its denominator, for the solution
value("full_stop_exp", np.exp(z[stop]), "{:.3f}")
exercise(
    "without_full_stop", weights[on], "{:.3f}",
    {
        "old_denominator": np.exp(z[on]) / np.sum(np.exp(z)),  # the full stop's e^z left in the sum
        "no_exponential": z[on] / np.sum(z[kept]),  # the scores themselves divided by their sum
    },
)

# Exercise 3: the diagonal entry of the Jacobian for "on", dp_on / dz_on.
p = softmax(z)  # (L,)
jacobian = np.diag(p) - np.outer(p, p)  # (L, L)
exercise(
    "jacobian_on_on", jacobian[on, on], "{:.3f}",
    {
        "no_outer_product": np.diag(p)[on, on],  # diag(p) alone: the - p p^T term forgotten
        "no_delta": -np.outer(p, p)[on, on],  # - p_i p_j alone: the delta_ij term forgotten
    },
)


# Exercise 4: the largest whole logit z0 for which the naive softmax of [z0, 0] stays finite in float64.
def largest_safe_whole_logit(dtype):
    """The largest whole z0 whose naive exp(z) / sum(exp(z)) over [z0, 0] in ``dtype`` is finite everywhere."""
    z0 = 0
    with np.errstate(over="ignore", invalid="ignore"):
        while True:
            e = np.exp(np.array([z0 + 1, 0], dtype=dtype))
            if not np.all(np.isfinite(e / e.sum())):
                return z0
            z0 += 1


exercise(
    "largest_safe_whole_logit", largest_safe_whole_logit(np.float64), "{}",
    {
        "rounded_up": int(np.round(np.log(np.finfo(np.float64).max))),  # ln(float64 max) = 709.78 rounded
        "float32": largest_safe_whole_logit(np.float32),  # the limit of float32, not float64
    },
)
