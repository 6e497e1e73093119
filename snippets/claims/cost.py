"""Claims about cost: training runs every position at once, generation one token at a time."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, scaled_dot_product_attention
from lib.kv_decoder import macs_with_cache, macs_without_cache
from lib.publish import value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

x = embed(tokenize(SENTENCE))  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # each (d_model, d_k)


def causal_attend(x):
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, causal_mask(len(x)))[0]  # (L, d_v)


all_at_once = causal_attend(x)  # every position in one call, as in training
one_by_one = np.stack([causal_attend(x[: t + 1])[t] for t in range(len(x))])  # as in generation
value("parallel_vs_stepwise", np.abs(all_at_once - one_by_one).max(), "{:.0e}")

n_ctx, d_head = 1000, 64
value("n_ctx", n_ctx, "{:,}")
value("step_madds_cache", 2 * n_ctx * d_head, "{:,}")  # N scores, then N weighted values
value("step_madds_nocache", 2 * n_ctx * n_ctx * d_head, "{:,}")  # every row recomputed, projections aside
# The whole step as the KV-cache chapter counts it: the four projections (4 d^2 per row) plus attention (2 N d).
value("step_madds_layer_cache", int(macs_with_cache(n_ctx, d_head)), "{:,}")
value("step_madds_layer_nocache", int(macs_without_cache(n_ctx, d_head)), "{:,}")
