"""Multi-head latent attention (DeepSeek-V2): cache one low-rank latent, and absorb the up-projections.

Keys and values are made from one latent per position, c = x W_DKV (r numbers,
the paper's d_c): k_h = c W_UK,h and v_h = c W_UV,h (DeepSeek-AI 2024,
section 2.1.2). Only c is cached. Because q_h k_h^T = (q_h W_UK,h^T) c^T, the
up-projection of the keys can be folded into the query side, and W_UV,h into
W_O: we check that the absorbed matrices give the scores and outputs of the
expanded ones. A rotation between q and k depends on both positions, so it
cannot be folded into one fixed matrix; that is why the paper adds a small
decoupled rotary key (section 2.1.3), shared by the heads and cached as well.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import (
    apply_rope,
    attention_scores,
    causal_mask,
    merge_heads,
    scaled_dot_product_attention,
    softmax,
    split_heads,
)
from lib.publish import table, value

rng = np.random.default_rng(4)
L, d_model, n_heads, r, d_rope = 10, 32, 4, 6, 4
d_head = d_model // n_heads
x = rng.normal(size=(L, d_model))  # (L, d_model)
w_q = rng.normal(scale=d_model**-0.5, size=(d_model, d_model))  # (d_model, h * d_head)
w_dkv = rng.normal(scale=d_model**-0.5, size=(d_model, r))  # (d_model, r): down to the latent
w_uk, w_uv = rng.normal(scale=r**-0.5, size=(2, r, d_model))  # (r, h * d_head) each: up to keys, values
w_o = rng.normal(scale=d_model**-0.5, size=(d_model, d_model))  # (h * d_head, d_model)
mask = causal_mask(L)  # (L, L)
positions = np.arange(L)  # (L,)

# --8<-- [start:expanded]
c = x @ w_dkv  # (L, r): the only thing cached
q = split_heads(x @ w_q, n_heads)  # (h, L, d_head)
k = split_heads(c @ w_uk, n_heads)  # (h, L, d_head): expanded keys
v = split_heads(c @ w_uv, n_heads)  # (h, L, d_head): expanded values
heads, _ = scaled_dot_product_attention(q, k, v, mask)  # (h, L, d_head)
expanded_out = merge_heads(heads) @ w_o  # (L, d_model)
expanded_scores = attention_scores(q, k)  # (h, L, L)
# --8<-- [end:expanded]

# --8<-- [start:absorbed]
w_uk_heads = w_uk.reshape(r, n_heads, d_head).transpose(1, 0, 2)  # (h, r, d_head)
w_uv_heads = w_uv.reshape(r, n_heads, d_head).transpose(1, 0, 2)  # (h, r, d_head)
w_o_heads = w_o.reshape(n_heads, d_head, d_model)  # (h, d_head, d_model)
q_latent = q @ np.swapaxes(w_uk_heads, -1, -2)  # (h, L, r): q_h W_UK,h^T
absorbed_scores = q_latent @ c.T / np.sqrt(d_head)  # (h, L, L): scores against the cached latents
weights = softmax(np.where(mask, absorbed_scores, -np.inf))  # (h, L, L)
w_uv_o = w_uv_heads @ w_o_heads  # (h, r, d_model): W_UV,h W_O,h folded into one matrix
absorbed_out = np.einsum("hqk,kr,hrd->qd", weights, c, w_uv_o)  # (L, d_model): sum over heads
# --8<-- [end:absorbed]
score_error = np.max(np.abs(absorbed_scores - expanded_scores))
out_error = np.max(np.abs(absorbed_out - expanded_out))

# --8<-- [start:rope]
rotated_k = apply_rope(k, positions)  # (h, L, d_head): rotating the expanded keys
rotated_q = apply_rope(q, positions)  # (h, L, d_head)
with_rope = attention_scores(rotated_q, rotated_k)  # (h, L, L)
folded = apply_rope(q, positions) @ np.swapaxes(w_uk_heads, -1, -2) @ c.T / np.sqrt(d_head)  # one fixed W_UK
# Decoupled: a separate rotary key, shared by the heads, next to the unrotated latent part
w_qr = rng.normal(scale=d_model**-0.5, size=(n_heads, d_model, d_rope))  # (h, d_model, d_rope)
w_kr = rng.normal(scale=d_model**-0.5, size=(d_model, d_rope))  # (d_model, d_rope)
q_rope = apply_rope(x @ w_qr, positions)  # (h, L, d_rope)
k_rope = apply_rope(x @ w_kr, positions)  # (L, d_rope): cached next to c
scale = np.sqrt(d_head + d_rope)
decoupled_expanded = (q @ np.swapaxes(k, -1, -2) + q_rope @ k_rope.T) / scale  # (h, L, L)
decoupled_absorbed = (q_latent @ c.T + q_rope @ k_rope.T) / scale  # (h, L, L): only c and k_rope needed
# --8<-- [end:rope]
rope_fold_error = np.max(np.abs(folded - with_rope))
decoupled_error = np.max(np.abs(decoupled_absorbed - decoupled_expanded))
table("checks", ["check", "largest difference"],
      [["absorbed scores vs expanded scores", score_error],
       ["absorbed output vs expanded output", out_error],
       ["rotated keys vs one fixed W_UK", rope_fold_error],
       ["decoupled rotary key: absorbed vs expanded scores", decoupled_error]], fmt="{:.1e}")
value("score_error", score_error, "{:.1e}")
value("out_error", out_error, "{:.1e}")
value("rope_fold_error", rope_fold_error, "{:.2f}")
value("decoupled_error", decoupled_error, "{:.1e}")
value("rotated_score_range", np.max(np.abs(with_rope)), "{:.2f}")  # the scale of the scores the fold misses
value("latent_width", r)
value("cached_per_position", r + d_rope)
value("expanded_per_position", 2 * n_heads * d_head)
