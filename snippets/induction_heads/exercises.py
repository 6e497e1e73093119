"""The induction heads chapter's exercises: their answers, and what the usual mistakes give, on the page's data.

Three exercises read the page's example sequence (task.py draws it): the key a perfect induction head attends to
from one query, the share of its predicted tokens that are repeated ones, and the induction score of a head that
spreads its weight evenly over the keys it may see. One counts the parameters of the chapter's model with one layer.
Each usual mistake is made here in code (the previous-token head's key or the earlier occurrence itself, the last
position counted as predicted, the causal mask forgotten, the learned positions or W_o left out, ...), and
lib.exercises publishes the answer and every mistake's result.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, scaled_dot_product_attention
from lib.exercises import exercise
from lib.induction import CONFIG, earlier_position, head_scores, init_params, repeat_batch
from lib.publish import value

tokens, repeat = repeat_batch(np.random.default_rng(3), batch_size=1, seq_len=24, vocab_size=24)  # task.py's example
letters = [chr(ord("A") + t) for t in tokens[0]]  # as the page prints them
earlier = earlier_position(tokens, repeat)  # (1, L): for each repeated token, the position it copies
length = tokens.shape[1]

# Exercise 1: the key a perfect induction head attends to from the query before the fourth repeated token.
j = int(np.flatnonzero(repeat[0])[3])  # a repeated token whose predictor appeared only once before
query = value("query", j - 1)
value("query_token", letters[query])
value("earlier_occurrence", int(earlier[0, j]) - 1)  # where the query's token appeared before
value("copied_token", letters[j])
exercise(
    "induction_key", int(earlier[0, j]), "{}",
    {
        "earlier_occurrence": int(earlier[0, j]) - 1,  # the earlier copy of the query's own token
        "previous_token": query - 1,  # the previous-token head's key
    },
)

# Exercise 2: the share of the example's predicted tokens that are repeated ones (task.py's repeat_share, one line).
predicted = repeat[0, 1:]  # (L - 1,): token 0 is never predicted
value("n_predicted", predicted.size)
value("n_repeated", int(predicted.sum()))
copy_start = np.r_[repeat[0, 1:], False] & ~repeat[0]  # (L,): the second copy's first token, just before the marks
exercise(
    "repeat_share", predicted.mean(), "{:.2f}",
    {
        "every_position": repeat[0].mean(),  # divided by all L positions, the first one never predicted
        "copy_start_counted": (repeat[0] | copy_start)[1:].mean(),  # the copy's first token counted, unpredictable
    },
)

# Exercise 3: the parameters of the chapter's model with one layer (the one-layer model of "Proving the mechanism").
sizes = {name: p.size for name, p in init_params(CONFIG["vocab_size"], CONFIG["seq_len"], CONFIG["d_model"],
                                                     n_layers=1, seed=0).items()}
value("size_embed", sizes["embed"])
value("size_pos", sizes["pos"])
value("size_layer", sum(size for name, size in sizes.items() if name.startswith("0.")))
value("size_unembed", sizes["unembed"])
exercise(
    "one_layer_parameters", sum(sizes.values()), "{}",
    {
        "no_positions": sum(size for name, size in sizes.items() if name != "pos"),  # positions taken as fixed
        "no_output_projection": sum(size for name, size in sizes.items() if name != "0.w_o"),  # W_o left out
    },
)


# Exercise 4: the induction score, on the example, of a head that weighs evenly every key it may see.
def even_head(mask):
    """(1, 1, L, L) weights of a head whose scores are all equal: the softmax spreads evenly over ``mask``."""
    zeros = np.zeros((length, 1))  # (L, 1): every query and key the same, so every score is 0
    _, weights = scaled_dot_product_attention(zeros, zeros, zeros, mask)  # (L, L)
    return weights[None, None]


exercise(
    "even_induction_score", float(head_scores(even_head(causal_mask(length)), earlier)[1][0]), "{:.3f}",
    {
        "no_causal_mask": float(head_scores(even_head(None), earlier)[1][0]),  # every key, the future's too
        "query_left_out": float(head_scores(even_head(np.tril(causal_mask(length), -1)), earlier)[1][0]),  # keys < i
    },
)
value("first_pair_query", int(np.flatnonzero(earlier[0] >= 0)[0]) - 1)  # the first repeated pair's predictor
value("last_pair_query", int(np.flatnonzero(earlier[0] >= 0)[-1]) - 1)
