"""Check the whole model's gradient, every parameter, against central finite differences.

The tiny model's backward pass is written by hand: cross-entropy, output projection, the core
attention backward, the projections, the embedding table. Nudge every single parameter by +-h,
recompute the loss, and compare the slope with the hand-written gradient (float64, h = 1e-5).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.debug_tools import numeric_gradient, relative_error
from lib.publish import table, value
from lib.tiny_model import (
    REFERENCE_VOCAB,
    backward,
    cross_entropy,
    forward,
    init_params,
    reference_batch,
    reverse_batch,
)


# --8<-- [start:check]
def loss_and_grads(params, batch, **options):
    tokens, query_pos, mask, targets, _ = batch
    logits, _, cache = forward(params, tokens, query_pos, mask, **options)
    loss, grad_logits = cross_entropy(logits, targets)
    return loss, backward(params, grad_logits, cache)


def relative_errors(params, batch, h=1e-5, **options):
    """Per parameter: |numerical - analytic| / max(|numerical|, |analytic|), with array norms.

    numeric_gradient nudges each entry by +-h (central differences); both helpers are in lib/debug_tools.py.
    """
    _, grads = loss_and_grads(params, batch, **options)
    worst = {}
    for name, p in params.items():
        numerical = numeric_gradient(lambda x: loss_and_grads({**params, name: x}, batch, **options)[0], p, h)
        worst[name] = relative_error(numerical, grads[name], euclidean=True)
    return worst
# --8<-- [end:check]


rng = np.random.default_rng(0)
cases = [
    ("reference task (padding mask)", reference_batch(rng, 6), len(REFERENCE_VOCAB), {}),
    ("reference task, unscaled", reference_batch(rng, 6), len(REFERENCE_VOCAB), {"scaled": False}),
    ("reverse task (8 queries)", reverse_batch(rng, 4), 10, {}),
    ("reverse task, no positions", reverse_batch(rng, 4), 10, {"positions": False}),
]
rows, all_errors, n_params = [], [], {}
for label, batch, vocab_size, options in cases:
    params = init_params(vocab_size, d_model=8, d_k=6, seed=1)
    errors = relative_errors(params, batch, **options)
    rows.append([label, *errors.values()])
    all_errors += errors.values()
    n_params[label] = sum(p.size for p in params.values())
n_checked = sum(n_params.values())  # each task's model counts twice: the same parameters in two cases
table("errors", ["case", *params.keys()], rows, fmt="{:.1e}")
value("max_rel_error", max(all_errors), "{:.1e}")
value("n_checked", n_checked)
value("n_reference", n_params["reference task (padding mask)"])
value("n_reverse", n_params["reverse task (8 queries)"])
