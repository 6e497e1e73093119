"""The exercises of "Why attention": their answers, and the results of the usual mistakes, made in code.

Four questions on the page's own counts: the recurrent steps from "cat" to the full stop of the running sentence, the
contiguous and the dilated convolution layers that connect the two ends of a longer sequence (from the reach of
m layers the page states: 1 + m(k - 1) positions contiguous, k^m dilated), and the number of weights one
self-attention layer computes at n = 512 (counted on the weight matrix of the core's attention). Each usual
mistake is made in code and its result published beside the answer (lib.exercises).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import scaled_dot_product_attention
from lib.exercises import exercise
from lib.publish import value
from lib.running_example import SENTENCE, tokenize

tokens = tokenize(SENTENCE)
i_cat = tokens.index("cat")


def layers_to_reach(n, reach):
    """The fewest layers m whose stack reaches n positions, reach(m) being how many positions m layers see."""
    m = 1
    while reach(m) < n:
        m += 1
    return m


# Exercise 1: recurrent steps from "cat" to the full stop: one step per position moved, h_t = f(h_{t-1}, x_t).
stretch = tokens[i_cat:]  # ["cat", "sat", "on", "the", "mat", "."]
value("cat_position", i_cat)
value("end_position", len(tokens) - 1)
exercise(
    "cat_end_steps",
    len(stretch) - 1,  # each step moves the signal one position on
    mistakes={
        "counted_words_between": len(stretch) - 2,  # the tokens between, without the step into "."
        "counted_words": len(stretch),  # every token from "cat" to ".", both ends included
    },
)

# Exercise 2: contiguous kernels, k = 3: m layers see 1 + m(k - 1) positions.
k, n_contiguous = 3, 101
value("kernel", k)
value("contiguous_length", n_contiguous)
m_contiguous = exercise(
    "contiguous_layers",
    layers_to_reach(n_contiguous, lambda m: 1 + m * (k - 1)),
    mistakes={
        "reach_without_first": layers_to_reach(n_contiguous, lambda m: m * (k - 1)),  # forgets the start word
        "n_over_k": int(np.ceil(n_contiguous / k)),  # O(n/k) of the paper's text read as a count
    },
)
value("contiguous_reach_before", 1 + (m_contiguous - 1) * (k - 1))  # one layer fewer: too few positions
value("contiguous_reach", 1 + m_contiguous * (k - 1))

# Exercise 3: dilated kernels, k = 3, gaps 1, k, k^2, ...: m layers see k^m positions.
n_dilated = 1000
value("dilated_length", n_dilated)
m_dilated = exercise(
    "dilated_layers",
    layers_to_reach(n_dilated, lambda m: k**m),
    mistakes={
        "rounded_down": int(np.floor(np.log(n_dilated) / np.log(k))),  # log_k n rounded down: k^m falls short
        "contiguous_stack": layers_to_reach(n_dilated, lambda m: 1 + m * (k - 1)),  # the contiguous count
    },
)
value("dilated_reach_before", k ** (m_dilated - 1))  # one layer fewer: too few positions
value("dilated_reach", k**m_dilated)

# Exercise 4: how many weights w_ij one self-attention layer computes at n = 512 (no mask).
n_weights = 512
value("weights_length", n_weights)
x = np.random.default_rng(0).normal(size=(n_weights, 8))  # (n, d): any inputs; the count depends on n only
_, weights = scaled_dot_product_attention(x, x, x)  # (n, n)
exercise(
    "weights_count",
    int(np.sum(weights > 0)),  # every (i, j), i reading j
    mistakes={
        "pairs_once": int(np.sum(np.triu(weights, k=1) > 0)),  # w_ij and w_ji taken as one, self left out
        "left_out_self": int(np.sum(weights > 0) - np.sum(np.diag(weights) > 0)),  # i reading itself left out
    },
)
