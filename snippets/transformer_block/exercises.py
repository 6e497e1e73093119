"""The Transformer block chapter's exercises: each answer, and the result of each usual mistake made in code.

On the page's own blocks: the running sentence's block (d_model = 8, d_ff = 32, two heads, input 3 x the
embeddings) and the gradient stack (12 blocks, d_model = 32, d_ff = 128). It computes the shape of the
feed-forward network's hidden layer, the switched-off post-norm block's output for "The", the number of weights
in the stack, and the factor 1/sqrt(N) predicts between two depths of the table. Each usual mistake is made
here too (the shape of the wrong tensor, the pre-norm block, LayerNorm without centring or divided by the
variance, one block or no W_o, no square root, the ratio upside down), and its result published beside the answer.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.block_layers import EPS, feed_forward, init_params, post_norm_block, pre_norm_block
from lib.exercises import exercise
from lib.publish import value
from lib.running_example import SENTENCE, embed, tokenize

# The running sentence's block, as "One block on the running sentence" builds it.
tokens = tokenize(SENTENCE)
x = 3.0 * embed(tokens)  # (7, d_model)
p = init_params(np.random.default_rng(0), d_model=8, d_ff=32)

value("block_length", x.shape[0])
value("block_d_model", x.shape[1])
value("block_d_ff", p["w_1"].shape[1])

# Exercise 1: the shape of the feed-forward network's hidden layer max(0, x W_1).
_, (_, hidden) = feed_forward(x, p)  # hidden (7, 32)
ffn_output, _ = feed_forward(x, p)  # (7, 8): after W_2, not the hidden layer
exercise(
    "hidden_shape",
    hidden.shape,
    mistakes={
        "output_shape": ffn_output.shape,  # the sub-layer's output, after W_2
        "product_reversed": (p["w_1"].T @ x.T).shape,  # W_1^T x^T: positions as columns
    },
)

# Exercise 2: both sub-layers switched off; the first entry of the post-norm output for "The".
off = p | {"w_o": np.zeros((8, 8)), "w_2": np.zeros((32, 8))}  # both sub-layers output zeros
row = x[0]  # "The": (8,)
value("the_first_entry", row[0], "{:.3f}")
value("the_mean", row.mean(), "{:.3f}")
value("the_std", row.std(), "{:.3f}")
post_off, _ = post_norm_block(x, off, n_heads=2)  # (7, 8)
pre_off, _ = pre_norm_block(x, off, n_heads=2)  # (7, 8)
value("the_centred", row[0] - row.mean(), "{:.3f}")
value("second_norm_change", np.max(np.abs(post_off[0] - (row - row.mean()) / np.sqrt(row.var() + EPS))), "{:.0e}")
exercise(
    "switched_off_post",
    post_off[0, 0],
    "{:.2f}",
    mistakes={
        "pre_norm": pre_off[0, 0],  # the pre-norm block: its residual passes x through
        "not_centred": row[0] / np.sqrt(row.var() + EPS),  # divided by the std, the mean left in
        "divided_by_variance": (row[0] - row.mean()) / (row.var() + EPS),  # no square root
    },
)

# Exercise 3: the number of weights in the gradient stack (LayerNorm has none here).
n_layers, d_model, d_ff = 12, 32, 128  # the stack of "Gradients at initialisation"
rng = np.random.default_rng(0)
stack = [init_params(rng, d_model, d_ff) for _ in range(n_layers)]  # the weights of one draw
value("block_attention_weights", sum(stack[0][name].size for name in ("w_q", "w_k", "w_v", "w_o")))
value("block_ffn_weights", stack[0]["w_1"].size + stack[0]["w_2"].size)
exercise(
    "stack_weights",
    sum(w.size for block in stack for w in block.values()),
    mistakes={
        "one_block": sum(w.size for w in stack[0].values()),
        "no_output_projection": sum(w.size for block in stack for name, w in block.items() if name != "w_o"),
    },
)

# Exercise 4: the factor 1/sqrt(N) predicts for the last pre-norm block's W_2 gradient, N from 4 to 32 blocks.
shallow, deep = 4, 32  # two rows of the table "blocks N"
value("shallow", shallow)
value("deep", deep)
exercise(
    "sqrt_prediction",
    np.sqrt(shallow) / np.sqrt(deep),
    "{:.2f}",
    mistakes={
        "no_square_root": shallow / deep,
        "upside_down": np.sqrt(deep) / np.sqrt(shallow),
    },
)
