"""The training chapter's exercises: their answers, and what the usual mistakes give, on the page's models and tasks.

The parameters of the scaling section's model (d_k = 512); the gradient of the loss with respect to the right
answer's logit when the model knows nothing (equal logits, the reference task's batch); the best accuracy of a
position-blind model on the reverse task with 4 digits instead of 8; and what the first AdamW step of the reference
run does to one entry of the output bias. Each usual mistake is made here in code (the bias forgotten, the mean not
divided out, the own digit counted, weight decay or Adam's bias correction left out, ...), and lib.exercises
publishes the answer and every mistake's result.
"""

import itertools
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.exercises import exercise
from lib.publish import value
from lib.tiny_model import (
    REFERENCE_ID,
    REFERENCE_VOCAB,
    backward,
    cross_entropy,
    forward,
    init_params,
    reference_batch,
    train,
)

V = len(REFERENCE_VOCAB)

# Exercise 1: the parameters of the scaling section's model (scaling.py: d_model = 16, d_k = 512).
d_model, d_k = 16, 512
params = init_params(V, d_model, d_k, seed=0)
sizes = {name: p.size for name, p in params.items()}
for name, size in sizes.items():
    value(f"size_{name}", size)  # for the solution, one count per parameter
d_v_is_d_k = {**sizes, "w_v": d_model * d_k, "w_o": d_k * V}  # W_v (d_model, d_k), so W_o (d_k, V)
exercise(
    "n_parameters", sum(sizes.values()), "{}",
    {
        "no_bias": sum(size for name, size in sizes.items() if name != "b_o"),  # the output bias b_o forgotten
        "d_v_is_d_k": sum(d_v_is_d_k.values()),  # the values as wide as the queries and keys
    },
)

# Exercise 2: d loss / d logit of the right answer, for one sentence of a batch, when every logit is equal.
batch = 64  # reference.py's batch of sentences, one query each
targets = np.full((batch, 1), REFERENCE_ID["cat"])  # (B, 1): any answer; every logit is equal
logits = np.zeros((batch, 1, V))  # (B, 1, V): a model that knows nothing
_, grad = cross_entropy(logits, targets)
value("uniform_probability", 1 / V, "{:.4f}")
right = grad[0, 0, REFERENCE_ID["cat"]]
exercise(
    "logit_gradient", right, "{:.4f}",
    {
        "not_divided": right * targets.size,  # p - one_hot itself: the mean over the batch not divided out
        "wrong_sign": -right,  # one_hot - p: the direction of descent, not the gradient
        "p_forgotten": -1.0 / targets.size,  # - one_hot / B: the softmax's p left out
    },
)

# Exercise 3: the best accuracy of a position-blind model reversing 4 digits (the page's argument, with 3 others).
digits, n_symbols = 4, 10
value("reverse_digits", digits)


def expected_max_count(n_seen):
    """E[max_d count_d] over n_seen uniform digits, every one of the 10^n_seen draws counted once."""
    draws = itertools.product(range(n_symbols), repeat=n_seen)
    return np.mean([max(Counter(draw).values()) for draw in draws])


others = value("reverse_others", digits - 1)  # the answer is one of the other digits, each placement equally likely
value("reverse_expected_max", expected_max_count(others), "{:.2f}")
exercise(
    "position_blind", expected_max_count(others) / others, "{:.2f}",
    {
        "chance": 1 / n_symbols,  # a digit guessed at random
        "own_digit_counted": expected_max_count(digits) / digits,  # the query's own digit among the candidates
    },
)

# Exercise 4: the output bias of "hungry" (never an answer) after the reference run's first AdamW step.
lr, weight_decay, seed = 1e-2, 1.0, 0  # reference.py's settings
params = init_params(V, 16, 16, seed=seed)  # reference.py's model


def first_step(decay):
    """The reference run's first training step (the library's train, one step), with weight decay ``decay``."""
    stepped = {name: p.copy() for name, p in params.items()}
    train(stepped, lambda rng: reference_batch(rng, batch), 1, np.random.default_rng(seed), lr=lr,
          weight_decay=decay)
    return stepped["b_o"][REFERENCE_ID["hungry"]]


tokens, query_pos, mask, targets, _ = reference_batch(np.random.default_rng(seed), batch)  # the same first batch
logits, _, cache = forward(params, tokens, query_pos, mask)
g = backward(params, cross_entropy(logits, targets)[1], cache)["b_o"][REFERENCE_ID["hungry"]]  # > 0: never an answer
value("hungry_gradient", g, "{:.4f}")  # for the solution: its sign is all the first step uses
m, v = 0.1 * g, 0.001 * g**2  # Adam's first running means, (1 - beta1) g and (1 - beta2) g^2
exercise(
    "first_bias_step", first_step(weight_decay), "{:.4f}",
    {
        "decay_forgotten": first_step(0.0),  # the same step without weight decay
        "no_bias_correction": -lr * m / (np.sqrt(v) + 1e-8) * (1 - lr * weight_decay),  # m and v used as they are
        "sign_flipped": lr * g / (abs(g) + 1e-8) * (1 - lr * weight_decay),  # a step up the gradient
    },
)
