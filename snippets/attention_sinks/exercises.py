"""The attention-sinks chapter's exercises: each answer, and the result of each usual mistake made in code.

On the chapter's own examples: the two heads of four positions of identities.py (the plus-one softmax on head 0's
last query), the rolling cache of eviction.py (which positions a query sees, with and without the first one kept),
the sink model's heads (QK-norm's bound on a score) and the uniform spread a query starts from. Every value prints.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import attention_scores, causal_mask, softmax
from lib.exercises import exercise
from lib.publish import value
from lib.sink_model import CONFIG, window_mask
from lib.sinks import buggy_plus_one_after_max, buggy_sink_on_query_axis, rms_norm, softmax_plus_one


def vector_text(x):
    """A vector as the prose shows it, (0.09, 0.12, ...); the Chinese prose shows it as code."""
    return "(" + ", ".join(f"{a:.2f}" for a in x) + ")"


# Exercise 1: the example of identities.py, head 0's last query, with the plus-one softmax: the sink's weight.
rng = np.random.default_rng(0)
h, length, d_head = 2, 4, 8
q, k, v = rng.normal(size=(3, h, length, d_head))  # (h, L, d_head) each
scores = np.round(attention_scores(q, k), 2)  # (h, L, L), as the question shows them (two decimals)
scores = np.where(causal_mask(length), scores, -np.inf)  # causal: row i sees keys 0..i
row = scores[0, -1]  # (L,): head 0's last query sees all four keys
value("last_scores", row.tolist(), vector_text(row), zh=f"`{vector_text(row)}`")
value("exp_sum", np.exp(row).sum(), "{:.3f}")
exercise("sink_weight", float(1 - softmax_plus_one(row).sum()), "{:.2f}", mistakes={
    "after_max": float(1 - buggy_plus_one_after_max(row).sum()),  # the 1 added after subtracting the maximum
    "query_axis": float(1 - buggy_sink_on_query_axis(scores[0], 0.0)[-1].sum()),  # the sink laid along the queries
})

# Exercise 2: a rolling cache of W = 4 slots that keeps position 0 (eviction.py): which positions query 9 sees.
window, query = 4, 9
value("window", window)
value("query", query)
seq_len = CONFIG["seq_len"]


def seen(mask):
    """The key positions a mask lets ``query`` see, as a tuple."""
    return tuple(int(j) for j in np.flatnonzero(mask[query]))


not_itself = ~np.eye(seq_len, dtype=bool)  # (L, L): the query's own position left out
exercise("cache_positions", seen(window_mask(seq_len, window, sinks=1)), mistakes={
    "no_sink": seen(window_mask(seq_len, window)),  # the plain rolling cache: the last W positions
    "one_too_long": seen(window_mask(seq_len, window + 1, sinks=1)),  # position 0 and the last W
    "without_itself": seen(window_mask(seq_len, window + 1, sinks=1) & not_itself),  # the last W before the query
})

# Exercise 3: with both gains at 1, the largest score QK-norm allows in the sink model's heads.
model_d_head = CONFIG["d_model"] // CONFIG["n_heads"]
value("model_d_head", model_d_head)
aligned = np.ones((1, model_d_head))  # (1, d_head): a query and a key pointing the same way, the largest score
normed = rms_norm(aligned, 1.0)
unit = aligned / np.linalg.norm(aligned)  # divided by the length instead of the root mean square
exercise("qk_bound", float(attention_scores(normed, normed)[0, 0]), "{:.2f}", mistakes={
    "no_scale": float((normed @ normed.T)[0, 0]),  # the dot product not divided by sqrt(d_head)
    "unit_length": float(attention_scores(unit, unit)[0, 0]),
})

# Exercise 4: at initialisation a query spreads its weight about evenly; the weight on BOS of the query at position 5.
position = 5
value("position", position)
even = np.zeros((seq_len, seq_len))  # (L, L): equal scores
exercise("uniform_bos", float(softmax(np.where(causal_mask(seq_len), even, -np.inf))[position, 0]), "{:.2f}", mistakes={
    "without_itself": float(softmax(np.where(causal_mask(seq_len) & not_itself, even, -np.inf))[position, 0]),
    "all_keys": float(softmax(even)[position, 0]),  # no causal mask: every one of the L keys
})
