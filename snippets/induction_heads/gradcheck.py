"""Check the two-layer model's whole gradient, every parameter, against central finite differences.

The backward pass is written by hand: unembedding, then per layer the output projection, the core's attention
backward through the causal mask, the projections and the residual stream, down to the token and position
tables. Nudge every single parameter by +-h, recompute the loss, and compare the slope with the hand-written
gradient (float64, h = 1e-5), on a tiny model: V = 5, L = 6, d_model = 4, two heads, two layers.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.debug_tools import numeric_gradient, relative_error
from lib.induction import backward, forward, init_params, repeat_batch
from lib.publish import table, value
from lib.tiny_model import cross_entropy


# --8<-- [start:check]
def loss_and_grads(params, tokens, n_heads, ablate=()):
    logits, cache = forward(params, tokens, n_heads, ablate)
    loss, grad_logits = cross_entropy(logits[:, :-1], tokens[:, 1:])  # every position predicts the next
    grad_logits = np.concatenate([grad_logits, np.zeros_like(logits[:, :1])], axis=1)  # (B, L, V)
    return loss, backward(params, grad_logits, cache)


def relative_errors(params, tokens, n_heads, ablate=(), h=1e-5):
    """Per parameter: |numerical - analytic| / max(|numerical|, |analytic|), with array norms.

    numeric_gradient nudges each entry by +-h (central differences); both helpers are in lib/debug_tools.py.
    """
    _, grads = loss_and_grads(params, tokens, n_heads, ablate)
    worst = {}
    for name, p in params.items():
        numerical = numeric_gradient(lambda x: loss_and_grads({**params, name: x}, tokens, n_heads, ablate)[0], p, h)
        worst[name] = relative_error(numerical, grads[name], euclidean=True)
    return worst
# --8<-- [end:check]


tokens, _ = repeat_batch(np.random.default_rng(0), batch_size=3, seq_len=6, vocab_size=5, min_repeat=2)
cases = [("2 layers", 2, ()), ("2 layers, layer 0 head 1 off", 2, {(0, 1)}), ("1 layer", 1, ())]
errors, n_params = {}, {}
for label, n_layers, ablate in cases:
    params = init_params(vocab_size=5, seq_len=6, d_model=4, n_layers=n_layers, seed=1)
    errors[label] = relative_errors(params, tokens, n_heads=2, ablate=ablate)
    n_params[n_layers] = sum(p.size for p in params.values())
n_checked = sum(n_params[n_layers] for _, n_layers, _ in cases)
names = list(errors["2 layers"])
table("errors", ["parameter", *errors], [[name, *(e.get(name, "-") for e in errors.values())] for name in names],
      fmt="{:.1e}")
value("max_rel_error", max(max(e.values()) for e in errors.values()), "{:.1e}")
value("n_checked", n_checked)  # the two-layer model's parameters count twice: with and without a head
value("n_two_layer", n_params[2])
value("n_one_layer", n_params[1])
