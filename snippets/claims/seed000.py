"""Seed 000's own function, run on its own six-word sentence (generator seed 42).

The seed prints an example row [0.02, 0.45, 0.08, 0.15, 0.03, 0.27] for "cat".
Its own causal mask hides the last four keys of that row, and its weights,
drawn with standard deviation 1, make every row one-hot.
"""

import ast
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, softmax
from lib.claims_seeds import SEED_000_CODE, manual_self_attention, seed000_heads
from lib.debug_tools import capture_error
from lib.publish import value

# --8<-- [start:run]
sentence = ["The", "cat", "sat", "on", "the", "mat"]
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the seed's exp may overflow; we look at the result
    weights, output = manual_self_attention(sentence, np.random.default_rng(42))
print("'cat' row:", ", ".join(f"{w:.3g}" for w in weights[1]))
# --8<-- [end:run]
value("cat_row_claimed", "[0.02, 0.45, 0.08, 0.15, 0.03, 0.27]")  # seed 000 §4.2
value("weights_shape", str(weights.shape))
value("output_shape", str(output.shape))
value("cat_self", weights[1, 1], "{:.3f}")
value("cat_future_max", weights[1, 2:].max(), "{:.1f}")
value("mean_top", weights.max(-1).mean(), "{:.3f}")
value("five_words", capture_error(lambda: manual_self_attention(sentence[:5], np.random.default_rng(0))))
value("statements", sum(isinstance(node, ast.stmt) for node in ast.walk(ast.parse(SEED_000_CODE))) - 1)

# How often does "cat" attend most to itself? Its row sees two keys: "The" and "cat".
n_draws = value("n_draws", 200)
cat_self_wins = 0
for seed in range(n_draws):
    _, q, k, _ = seed000_heads(6, np.random.default_rng(seed))  # (h, L, d_k) each
    draw_weights = softmax(np.where(causal_mask(6), q[0] @ k[0].T / 8, -np.inf))  # (L, L)
    cat_self_wins += draw_weights[1].argmax() == 1
value("cat_self_share", cat_self_wins / n_draws, "{:.0%}")
