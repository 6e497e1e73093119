"""The masks chapter's exercises: their answers, and what the usual mistakes give, computed on the page's batch.

The batch is the chapter's: the running sentence (a) and "The cat sat." padded with zero vectors (b). Each usual
mistake is made here in code (the masks combined with OR, the pad queries masked too, the mask applied after the
softmax with or without renormalising, the boolean read the other way round, -1e9 in float16, the off-by-one mask
counted the wrong way), and lib.exercises publishes the answer and every mistake's result for the page and the
notebook to check replies against.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, padding_mask, scaled_dot_product_attention
from lib.debug_tools import max_subtract_softmax  # subtracts the row max and nothing else
from lib.exercises import exercise
from lib.publish import value
from lib.running_example import padded_batch, projection_weights

(tokens_a, tokens_b), lengths, x = padded_batch()  # x (B, L, d_model)
n = x.shape[1]
w_q, w_k, w_v = projection_weights()
q, k, v = x @ w_q, x @ w_k, x @ w_v  # each (B, L, d_k)
causal = causal_mask(n)  # (L, L)
padding = padding_mask(lengths, n)  # (B, 1, L)
real_b = np.arange(n) < lengths[1]  # (L,): the real words of sentence b

# Exercise 1: how many (query, key) pairs of sentence b may attend under causal + padding.
value("real_query_pairs", int((causal & padding)[1][real_b].sum()))  # for the solution: the real words' rows
value("pad_query_pairs", int((causal & padding)[1][~real_b].sum()))  # and the pad positions' rows
exercise(
    "allowed_pairs_b", int((causal & padding)[1].sum()), "{}",
    {
        "or_instead_of_and": int((causal | padding)[1].sum()),  # the union: either mask allowing is enough
        "pad_queries_masked": int((causal & padding & padding.swapaxes(-1, -2))[1].sum()),  # pad rows too
    },
)

# Exercise 2: sentence b, query "sat": its unmasked weights, the pad columns zeroed after the softmax.
sat = tokens_b.index("sat")
_, w_none = scaled_dot_product_attention(q, k, v)  # (B, L, L): no mask
row = w_none[1, sat]  # (L,)
zeroed = np.where(real_b, row, 0.0)  # (L,): the padding mask applied after the softmax
exercise(
    "zeroed_row_sum", zeroed.sum(), "{:.1f}",
    {
        "renormalised": (zeroed / zeroed.sum()).sum(),  # zeroed, then renormalised: a row of the masked softmax
        "mask_inverted": np.where(~real_b, row, 0.0).sum(),  # True read as "ignore": the real words zeroed
    },
)

# Exercise 3: which fill keeps a fully masked row finite in float16.
z = (q[0] @ k[0].T / np.sqrt(k.shape[-1]))[tokens_a.index("cat")]  # (L,): the scaled scores of "cat"
fills = {"-inf": -np.inf, "-1e9": -1e9, "-1e4": -1e4}
none = np.zeros(n, dtype=bool)  # (L,): every key masked


def finite_row(fill, dtype):
    """Is the row of "cat", every key filled with ``fill`` in ``dtype``, finite after the softmax?"""
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.all(np.isfinite(max_subtract_softmax(np.where(none, z, fill).astype(dtype)))))


(finite_in_float16,) = [name for name, fill in fills.items() if finite_row(fill, np.float16)]
(finite_in_float64_only,) = [
    name for name, fill in fills.items() if finite_row(fill, np.float64) and not finite_row(fill, np.float16)
]
exercise("float16_fill", finite_in_float16, "{}", {"float64_thinking": finite_in_float64_only})

# Exercise 4: the off-by-one mask np.tril(..., k=1): how many of its allowed pairs look at a later token.
off_by_one = np.tril(np.ones((n, n), dtype=bool), k=1)  # (L, L)
exercise(
    "off_by_one_future_pairs", int((off_by_one & ~causal).sum()), "{}",
    {
        "counted_all_allowed": int(off_by_one.sum()),  # every True cell, the past and the diagonal included
        "counted_two_diagonals": int((off_by_one & ~np.tril(off_by_one, k=-1)).sum()),  # the diagonal counted too
    },
)
