"""Post-norm and pre-norm blocks side by side on "The cat sat on the mat."

Both blocks get the same input and the same weights. The post-norm block ends
with a LayerNorm, so every output row has mean 0 and standard deviation 1; the
pre-norm block ends with a residual sum, so its rows keep the input's scale.
Switch the sub-layers off (W_o = 0, W_2 = 0) and the pre-norm block passes its
input through unchanged, while the post-norm block still normalises it.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.block_layers import EPS, init_params, post_norm_block, pre_norm_block
from lib.publish import table, value
from lib.running_example import SENTENCE, embed, tokenize

np.set_printoptions(precision=3, suppress=True)

# --8<-- [start:blocks]
tokens = tokenize(SENTENCE)
x = 3.0 * embed(tokens)  # (7, d_model): scaled up so the two blocks differ visibly
p = init_params(np.random.default_rng(0), d_model=8, d_ff=32)
y_post, _ = post_norm_block(x, p, n_heads=2)  # (7, 8)
y_pre, _ = pre_norm_block(x, p, n_heads=2)  # (7, 8)
# --8<-- [end:blocks]

rows = []
for name, y in [("input x", x), ("post-norm output", y_post), ("pre-norm output", y_pre)]:
    stats = np.round(np.concatenate([y.mean(-1)[:3], y.std(-1)[:3]]), 3) + 0.0  # + 0.0 turns -0.0 into 0.0
    rows.append([name, *stats])
header = ["tensor", *[f"mean ({t})" for t in tokens[:3]], *[f"std ({t})" for t in tokens[:3]]]
table("row_stats", header, rows, fmt="{:.3f}")
value("eps", EPS)
value("post_std_error", np.max(np.abs(y_post.std(-1) - 1)), "{:.1e}")

# --8<-- [start:off]
off = p | {"w_o": np.zeros((8, 8)), "w_2": np.zeros((32, 8))}  # both sub-layers now output zeros
y_pre_off, _ = pre_norm_block(x, off, n_heads=2)  # (7, 8)
y_post_off, _ = post_norm_block(x, off, n_heads=2)  # (7, 8)
# --8<-- [end:off]
value("pre_off_error", np.max(np.abs(y_pre_off - x)), "{:.1e}")
value("post_off_change", np.max(np.abs(y_post_off - x)), "{:.2f}")
