"""The exercises of "Order matters", computed on the running sentence with the chapter's own layer.

Each answer comes from running the code, and so does each usual mistake's result: the mistake is made in code
(the permutation read backwards, the rows moved without the columns, the mask moved with the word, the mask
without its diagonal, the concatenation's extra width put on the output side). ``exercise`` publishes the answer
and the mistakes' results; the page quotes them and checks a reader's reply against them.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, scaled_dot_product_attention, sinusoidal_positions
from lib.exercises import exercise
from lib.publish import value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)
L = len(tokens)
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # (d_model, d_k) each


def self_attention(x, mask=None):
    """The chapter's layer: project, attend; (L, d_v) output, (L, L) weights."""
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask)


# Exercise 1: the tokens of x[perm], for a permutation that is not its own inverse.
perm = np.array([2, 0, 1, 3, 4, 5, 6])
value("perm", perm.tolist(), zh=str(perm.tolist()))  # quoted as code in both editions
shuffled = [tokens[i] for i in perm]  # row i of x[perm] is row perm[i] of x
exercise("shuffled_tokens", shuffled, mistakes={
    "inverse": [tokens[i] for i in np.argsort(perm)],  # read as "word i goes to position perm[i]"
})

# Exercise 2: a weight of the shuffled sentence, predicted from the weights of the original one (P A P^T).
_, weights = self_attention(x)  # (L, L)
_, weights_p = self_attention(x[perm])  # (L, L): the same layer on the shuffled rows
query, key = shuffled.index("sat"), shuffled.index("cat")  # positions in the shuffled sentence
value("query_position", query)
value("key_position", key)
value("query_position_before", tokens.index("sat"))
value("key_position_before", tokens.index("cat"))
undo = np.argsort(perm)  # the permutation read backwards
exercise("moved_weight", weights_p[query, key], "{:.2f}", mistakes={
    "positions_kept": weights[query, key],  # the original matrix read at the new positions
    "rows_only": weights[perm][query, key],  # P A: rows moved, columns left where they were
    "inverse": weights[undo][:, undo][query, key],  # P^T A P: the permutation read backwards
})

# Exercise 3: the keys the query "cat" sees in the swapped sentence under a causal mask.
swap = np.arange(L)
swap[[1, 5]] = swap[[5, 1]]  # the page's swap of "cat" and "mat"
swapped = [tokens[i] for i in swap]  # "The mat sat on the cat ."
value("cat_position_swapped", swapped.index("cat"))
mask = causal_mask(L)  # (L, L): position i sees j <= i
exercise("causal_keys", [swapped[j] for j in np.flatnonzero(mask[swapped.index("cat")])], mistakes={
    "mask_moved": [tokens[j] for j in np.flatnonzero(mask[tokens.index("cat")])],  # as if the mask moved with "cat"
    "without_itself": [swapped[j] for j in np.flatnonzero(np.tril(mask, -1)[swapped.index("cat")])],  # j < i
})

# Exercise 4: parameters of W_Q, W_K, W_V together, at the paper's width, when the input is [x, PE].
d_wide = 512  # "Attention Is All You Need", section 3.1: d_model = 512
value("d_wide", d_wide)
x_wide = embed(tokens, d_wide)  # (L, 512)
x_cat = np.concatenate([x_wide, sinusoidal_positions(L, d_wide)], axis=-1)  # (L, 1024)
value("concat_width", x_cat.shape[-1])
projection = (x_cat.shape[-1], d_wide)  # each of W_Q, W_K, W_V: input width -> d_model columns
exercise("concat_params", 3 * int(np.prod(projection)), mistakes={
    "added": 3 * int(np.prod((x_wide.shape[-1], d_wide))),  # x + PE: the input keeps its width
    "one_matrix": int(np.prod(projection)),  # W_Q alone
    "wider_output": 3 * int(np.prod((x_cat.shape[-1], x_cat.shape[-1]))),  # the output widened too
})
