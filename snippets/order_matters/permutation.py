"""Without positions, self-attention is permutation-equivariant, not invariant.

Shuffle the input rows and the output rows come out shuffled the same way, each
row unchanged: the layer cannot tell "The cat sat on the mat." from "The mat sat
on the cat.". That is equivariance. Averaging the rows (mean pooling) removes
even the shuffle: invariance. Adding positional encodings, or a causal mask,
breaks both. We measure every case as a largest absolute difference.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, multi_head_attention, scaled_dot_product_attention, sinusoidal_positions
from lib.plotting import weights_heatmap
from lib.publish import table, value
from lib.running_example import D_MODEL, SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)
L = len(tokens)
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # (d_model, d_k) each
pe = sinusoidal_positions(L, D_MODEL)  # (L, d_model)


def max_diff(a, b):
    return np.max(np.abs(a - b))


# --8<-- [start:layer]
def self_attention(x, mask=None):
    """One attention layer: project, attend; (L, d_v) output, (L, L) weights."""
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask)
# --8<-- [end:layer]


# --8<-- [start:swap]
perm = np.arange(L)
perm[[1, 5]] = perm[[5, 1]]  # swap "cat" and "mat"
swapped = [tokens[i] for i in perm]  # "The mat sat on the cat ."
out, weights = self_attention(x)  # (L, d_v), (L, L)
out_p, weights_p = self_attention(x[perm])  # the same layer, shuffled rows

equivariant = max_diff(out_p, out[perm])  # f(P x) == P f(x) ?
invariant = max_diff(out_p, out)  # f(P x) == f(x) ?
pooled = max_diff(out_p.mean(0), out.mean(0))  # mean over positions
weights_moved = max_diff(weights_p, weights[perm][:, perm])  # P A P^T
# --8<-- [end:swap]
print("original:", " ".join(tokens), "| swapped:", " ".join(swapped))
value("swapped_sentence", " ".join(swapped[:-1]) + swapped[-1])
value("equivariance_error", equivariant, "{:.1e}")
value("invariance_error", invariant, "{:.2f}")
value("pooled_error", pooled, "{:.1e}")
value("weights_error", weights_moved, "{:.1e}")
cat_row = max_diff(out[tokens.index("cat")], out_p[swapped.index("cat")])
value("cat_row_error", cat_row, "{:.1e}")

# --8<-- [start:break]
out_pos, _ = self_attention(x + pe)  # positions added
out_pos_p, _ = self_attention(x[perm] + pe)  # words move, positions stay
with_pe = max_diff(out_pos_p, out_pos[perm])
with_pe_pooled = max_diff(out_pos_p.mean(0), out_pos.mean(0))

mask = causal_mask(L)  # (L, L): position i sees j <= i
out_c, _ = self_attention(x, mask)
out_c_p, _ = self_attention(x[perm], mask)
with_mask = max_diff(out_c_p, out_c[perm])
with_mask_pooled = max_diff(out_c_p.mean(0), out_c.mean(0))
# --8<-- [end:break]
value("pe_equivariance_error", with_pe, "{:.2f}")
value("pe_pooled_error", with_pe_pooled, "{:.2f}")
value("mask_equivariance_error", with_mask, "{:.2f}")
value("mask_pooled_error", with_mask_pooled, "{:.2f}")

# The same holds for multi-head attention, and for any permutation
rng = np.random.default_rng(5)
w_mh = [rng.normal(scale=D_MODEL**-0.5, size=(D_MODEL, D_MODEL)) for _ in range(4)]
worst = 0.0
for _ in range(100):
    p = rng.permutation(L)
    mh, _ = multi_head_attention(x, *w_mh, n_heads=2)  # (L, d_model)
    mh_p, _ = multi_head_attention(x[p], *w_mh, n_heads=2)
    worst = max(worst, max_diff(mh_p, mh[p]))
value("multihead_equivariance_error", worst, "{:.1e}")
value("n_random_permutations", 100)

table(
    "cases",
    ["input", "equivariance: f(P x) vs P f(x)", "invariance: mean over positions"],
    [
        ["embeddings only", f"{equivariant:.1e}", f"{pooled:.1e}"],
        ["embeddings + positional encoding", f"{with_pe:.2f}", f"{with_pe_pooled:.2f}"],
        ["embeddings, causal mask", f"{with_mask:.2f}", f"{with_mask_pooled:.2f}"],
    ],
)

fig, (ax0, ax1) = plt.subplots(1, 2, num="swap-weights", figsize=(10.0, 4.4))
weights_heatmap(ax0, weights, tokens, tokens, title="The cat sat on the mat.")
weights_heatmap(ax1, weights_p, swapped, swapped, title="The mat sat on the cat.")
fig.colorbar(ax1.images[0], ax=[ax0, ax1], label="attention weight", shrink=0.85)
plt.show()
