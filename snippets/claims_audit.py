"""Audit the claims of the two seed tutorials (and a few common ones) by measuring them.

The first half measures: every number a verdict rests on is computed here and
published as a named value. The second half is the list of claims. Each has an
id (C000-.. for seed 000, C003-.. for seed 003, G-.. for common tutorial
claims), its source section, a paraphrase, a verdict, and an evidence text
built from the measured values. The page shows one table per topic and counts
the verdicts.
"""

import ast
import math
import warnings

import matplotlib.pyplot as plt
import numpy as np

from lib.attention import (
    causal_mask,
    padding_mask,
    scaled_dot_product_attention,
    scaled_dot_product_attention_backward,
    sinusoidal_positions,
    softmax,
    softmax_backward,
    split_heads,
)
from lib.claims_seeds import SEED_000_CODE, SelfAttention, manual_self_attention, seed000_heads
from lib.debug_tools import numeric_gradient
from lib.plotting import COLORS
from lib.publish import VALUES, table, value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

rng = np.random.default_rng(2017)


def naive_softmax(s, axis=-1):
    e = np.exp(s)
    return e / e.sum(axis=axis, keepdims=True)


def sci(x, digits=1):
    """2.3e+19 -> "2.3·10^19": a format string without braces, used as a value's text."""
    mantissa, exponent = f"{x:.{digits}e}".split("e")
    return f"{mantissa}·10^{int(exponent)}"


def quiet(fn, *args):
    """Call fn, ignoring NumPy's overflow/invalid warnings (we count the NaN ourselves)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


def error_of(fn):
    try:
        fn()
    except Exception as error:  # we want the message, whatever the type
        return f"{type(error).__name__}: {str(error).strip()}"
    return "no error"


# ======================================================================== measurements
# ---- the paper's numbers: Vaswani et al. 2017, arXiv:1706.03762, LaTeX source
# Table 2 (newstest2014 BLEU; training cost in FLOPs) and Table 3 (newstest2013, dev)
PAPER = {
    "big_en_de": 28.4, "big_en_fr": 41.8, "base_en_de": 27.3, "base_en_fr": 38.1,
    "gnmt_en_de": 24.6, "gnmt_en_fr": 39.92, "gnmt_ens_en_de": 26.30,
    "convs2s_en_de": 25.16, "convs2s_ens_en_de": 26.36,
    "flops_big": 2.3e19, "flops_base": 3.3e18, "flops_gnmt_en_de": 2.3e19,
    "flops_convs2s_en_de": 9.6e18,
    "dev_base": 25.8, "dev_one_head": 24.9, "dev_learned_pe": 25.7,
}
for name in ("big_en_de", "big_en_fr", "base_en_de", "gnmt_en_de", "dev_base", "dev_one_head",
             "dev_learned_pe", "convs2s_ens_en_de", "gnmt_ens_en_de"):
    value(f"paper_{name}", PAPER[name], "{:.2f}" if name.endswith("ens_en_de") else "{}")
value("paper_flops_big", PAPER["flops_big"], sci(PAPER["flops_big"]))
value("paper_flops_base", PAPER["flops_base"], sci(PAPER["flops_base"]))
value("flops_ratio_convs2s", PAPER["flops_convs2s_en_de"] / PAPER["flops_base"], "{:.1f}")
value("flops_ratio_gnmt", PAPER["flops_gnmt_en_de"] / PAPER["flops_base"], "{:.1f}")
value("flops_ratio_big_gnmt", PAPER["flops_big"] / PAPER["flops_gnmt_en_de"], "{:.1f}")

# ---- why attention: distances, receptive fields, path length
tokens = tokenize(SENTENCE)  # ["The", "cat", "sat", "on", "the", "mat", "."]
value("cat_mat_between", tokens.index("mat") - tokens.index("cat") - 1)
value("cat_mat_steps", tokens.index("mat") - tokens.index("cat"))


def conv_layers(n, k, dilated):
    """Layers of width-k convolutions until one output sees all n inputs."""
    layers, field = 0, 1
    while field < n:
        layers += 1
        field = k**layers if dilated else 1 + layers * (k - 1)
    return layers


for n in (512, 1024):
    value(f"conv_contiguous_{n}", conv_layers(n, 3, dilated=False))
    value(f"conv_dilated_{n}", conv_layers(n, 3, dilated=True))

x7 = embed(tokens)  # (7, 8)
w_q, w_k, w_v = projection_weights()  # each (8, 8)


def attend(x, mask=None):
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask)[0]  # (L, 8)


moved = x7.copy()
moved[0] += 1.0  # change the first token only
value("first_to_last_one_layer", np.abs(attend(moved)[-1] - attend(x7)[-1]).max(), "{:.2f}")
value("n_score_entries_512", 512**2, "{:,}")
value("n_score_entries_4096", 4096**2, "{:,}")

# ---- projections, queries and keys
pe7 = sinusoidal_positions(7, 8)  # (7, 8)
same = np.repeat(x7[:1], 7, axis=0)  # the word "The" at every position
value("same_word_q_diff_no_pe", np.abs(same @ w_q - (same @ w_q)[0]).max(), "{:.1f}")
value("same_word_q_diff_pe", np.abs((same + pe7) @ w_q - ((same + pe7) @ w_q)[0]).max(), "{:.2f}")
w_v_new = rng.normal(size=w_v.shape)
weights_a = scaled_dot_product_attention(x7 @ w_q, x7 @ w_k, x7 @ w_v)[1]
weights_b = scaled_dot_product_attention(x7 @ w_q, x7 @ w_k, x7 @ w_v_new)[1]
value("w_v_weight_change", np.abs(weights_a - weights_b).max(), "{:.1f}")

q_vec, k_vec = rng.normal(size=(2, 8))
value("dot_qk", q_vec @ k_vec, "{:.2f}")
value("dot_2qk", (2 * q_vec) @ k_vec, "{:.2f}")
value("cos_qk", q_vec @ k_vec / np.linalg.norm(q_vec) / np.linalg.norm(k_vec), "{:.3f}")

self_top_separate, self_top_shared, trials = 0, 0, 300
for seed in range(trials):  # untrained heads, 6 tokens, d_model 128 -> d_k 64
    r = np.random.default_rng(seed)
    x = r.normal(size=(6, 128))
    wq, wk = r.normal(scale=128**-0.5, size=(2, 128, 64))
    self_top_separate += np.sum(((x @ wq) @ (x @ wk).T).argmax(-1) == np.arange(6))
    self_top_shared += np.sum(((x @ wq) @ (x @ wq).T).argmax(-1) == np.arange(6))
value("self_top_separate", self_top_separate / (6 * trials), "{:.0%}")
value("self_top_shared", self_top_shared / (6 * trials), "{:.0%}")
value("self_top_chance", 1 / 6, "{:.0%}")

shared_scores = (x7 @ w_q) @ (x7 @ w_q).T / np.sqrt(8)  # W_k = W_q
value("shared_scores_asymmetry", np.abs(shared_scores - shared_scores.T).max(), "{:.1f}")
value("shared_weights_asymmetry", np.abs(softmax(shared_scores) - softmax(shared_scores).T).max(), "{:.2f}")
value("weights_asymmetry", np.abs(weights_a - weights_a.T).max(), "{:.2f}")

scores7 = (x7 @ w_q) @ (x7 @ w_k).T / np.sqrt(8)
order_kept = all(np.array_equal(np.argsort(s), np.argsort(w)) for s, w in zip(scores7, weights_a))
value("softmax_keeps_row_order", order_kept)
v7 = x7 @ w_v
contribution = weights_a[:, :, None] * v7[None, :, :]  # (7, 7, 8): w_ij v_j
biggest = np.linalg.norm(contribution, axis=-1).argmax(-1)
value("rows_top_weight_not_top_contribution", int(np.sum(biggest != weights_a.argmax(-1))))
value("n_running_tokens", len(tokens))

head0 = split_heads(x7 @ w_q, 2)[0]  # (7, 4): head 0 uses columns 0..3 of W_q
nudged = x7.copy()
nudged[:, -1] += 1.0  # change input feature 7 only
value("head0_sees_last_feature", np.abs(split_heads(nudged @ w_q, 2)[0] - head0).max(), "{:.2f}")

# ---- scaling and softmax
n_samples = value("n_samples", 20000, "{:,}")
for d_k in (16, 64, 512):
    r = np.random.default_rng(d_k)
    dots = np.sum(r.normal(size=(n_samples, d_k)) * r.normal(size=(n_samples, d_k)), axis=-1)
    value(f"var_dot_{d_k}", dots.var(), "{:.1f}")
    value(f"var_scaled_{d_k}", (dots / np.sqrt(d_k)).var(), "{:.2f}")
    if d_k == 64:
        value("share_within_16", np.mean(np.abs(dots) <= 16), "{:.1%}")
value("softmax_1000", str(np.round(softmax(np.array([1000.0, 1001.0, 1002.0])), 3).tolist()))
shift_gap = softmax(np.array([1000.0, 1001, 1002])) - softmax(np.array([0.0, 1, 2]))
value("softmax_shift_error", np.abs(shift_gap).max(), "{:.1e}")
value("gap10_top", softmax(np.array([10.0, 0, 0, 0, 0, 0]))[0], "{:.5f}")
value("exp10", math.exp(10), "{:.0f}")
value("exp20", math.exp(20), sci(math.exp(20), 2))

r = np.random.default_rng(64)
qs, ks = r.normal(size=(2, 6, 64))
for name, s in (("unscaled", qs @ ks.T), ("scaled", qs @ ks.T / 8)):
    p = softmax(s)
    jac = np.mean([np.linalg.norm(np.diag(row) - np.outer(row, row)) for row in p])
    value(f"jacobian_{name}", jac, "{:.3f}")
    value(f"top_{name}", p.max(-1).mean(), "{:.2f}")
value("scale_d_k_top", softmax(qs @ ks.T / 64).max(-1).mean(), "{:.3f}")
value("uniform_6", 1 / 6, "{:.3f}")
value("temperature_error", np.abs(softmax(qs @ ks.T / 8) - softmax((qs @ ks.T) / 8.0)).max(), "{:.1f}")
moderate = r.normal(size=(6, 6))
value("stable_vs_naive", np.abs(softmax(moderate) - naive_softmax(moderate)).max(), "{:.1e}")
value("row_sum_error", np.abs(softmax(r.normal(scale=30, size=(50, 9))).sum(-1) - 1).max(), "{:.1e}")

# ---- seed 000's code, run (six words, as written)
value("seed_cat_row_claimed", "[0.02, 0.45, 0.08, 0.15, 0.03, 0.27]")  # seed 000 §4.2
# --8<-- [start:seed000]
six = ["The", "cat", "sat", "on", "the", "mat"]
seed_rng = np.random.default_rng(42)
weights_000, output_000 = quiet(manual_self_attention, six, seed_rng)
# the same draws again, to look inside: X and head-wise Q, K, V
x_000, q_000, k_000, v_000 = seed000_heads(6, np.random.default_rng(42))
raw_000 = q_000[0] @ k_000[0].T  # (6, 6) head 0, before the scale
scaled_000 = raw_000 / np.sqrt(64)  # (6, 6)
print("seed 000, 'cat' row:", ", ".join(f"{w:.3g}" for w in weights_000[1]))
print("scaled-score std:", scaled_000.std().round(1))
# --8<-- [end:seed000]
value("seed000_weights_shape", str(weights_000.shape))
value("seed000_output_shape", str(output_000.shape))
value("seed000_cat_self", weights_000[1, 1], "{:.3f}")
value("seed000_cat_future_max", weights_000[1, 2:].max(), "{:.1f}")
value("seed000_mean_top", weights_000.max(-1).mean(), "{:.3f}")
value("seed000_scaled_std", scaled_000.std(), "{:.0f}")
value("seed000_scaled_max", scaled_000.max(), "{:.0f}")
value("seed000_q_std", q_000.std(), "{:.1f}")
unscaled_000 = quiet(naive_softmax, np.where(causal_mask(6), raw_000, -1e9))
value("seed000_unscaled_nan_rows", int(np.isnan(unscaled_000).any(-1).sum()))
value("seed000_unscaled_max", (q_000[0] @ k_000[0].T).max(), "{:.0f}")
stable_unscaled = softmax(np.where(causal_mask(6), q_000[0] @ k_000[0].T, -np.inf))
value("seed000_unscaled_stable_top", stable_unscaled.max(-1).mean(), "{:.4f}")
_, q_ok, k_ok, _ = seed000_heads(6, np.random.default_rng(42), w_std=128**-0.5)
scaled_ok = q_ok[0] @ k_ok[0].T / 8
value("seed000_fixed_std", scaled_ok.std(), "{:.2f}")
value("seed000_fixed_top", softmax(np.where(causal_mask(6), scaled_ok, -np.inf)).max(-1).mean(), "{:.2f}")
value("seed000_fixed_top_nomask", softmax(scaled_ok).max(-1).mean(), "{:.2f}")
value("seed000_five_words", error_of(lambda: manual_self_attention(six[:5], np.random.default_rng(0))))
value("seed000_statements", sum(isinstance(n, ast.stmt) for n in ast.walk(ast.parse(SEED_000_CODE))) - 1)
value("seed000_x_std", (x_000 - sinusoidal_positions(6, 128)).std(), "{:.2f}")
value("pe6_std", sinusoidal_positions(6, 128).std(), "{:.2f}")
value("pe_long_std", sinusoidal_positions(4096, 128).std(), "{:.2f}")
cat_self_wins, n_draws = 0, value("n_draws", 200)
for seed in range(n_draws):
    _, qq, kk, _ = seed000_heads(6, np.random.default_rng(seed))
    w = softmax(np.where(causal_mask(6), qq[0] @ kk[0].T / 8, -np.inf))
    cat_self_wins += w[1].argmax() == 1
value("cat_self_share", cat_self_wins / n_draws, "{:.0%}")

# ---- seed 003's code, run (batch 2, 5 tokens, d_model 10)
# --8<-- [start:seed003]
r003 = np.random.default_rng(42)
x_003 = r003.standard_normal((2, 5, 10))
layer = SelfAttention(10, r003)
output_003, weights_003 = layer.forward(x_003)
w0 = weights_003[0]  # (5, 5), what the seed's heat map draws
print(f"seed 003, weights[0] from {w0.min():.4f} to {w0.max():.4f}")
# --8<-- [end:seed003]
value("seed003_shapes", f"{x_003.shape}, {output_003.shape}, {weights_003.shape}")
value("seed003_row_sum", f"{np.sum(weights_003[0, 0, :]):.3f}")
value("seed003_w_min", weights_003.min(), "{:.4f}")
value("seed003_w_max", weights_003.max(), "{:.4f}")
labels = sorted({f"{w:.2f}" for w in weights_003[0].ravel()})  # the heat map's cell labels
value("seed003_labels", len(labels))
value("seed003_label_list", ", ".join(f'"{label}"' for label in labels))
scores_003 = np.matmul(x_003 @ layer.W_q, (x_003 @ layer.W_k).transpose(0, 2, 1)) / np.sqrt(10)
value("seed003_score_std", scores_003.std(), "{:.4f}")
value("seed003_out_std", output_003.std(), "{:.3f}")
value("seed003_in_std", x_003.std(), "{:.2f}")
value("seed003_token_spread", output_003.std(axis=1).max(), "{:.0e}")
value("seed003_2d_error", error_of(lambda: layer.forward(x_003[0])))
weights_l6 = SelfAttention(10, np.random.default_rng(6)).forward(np.random.default_rng(7).normal(size=(1, 6, 10)))[1]
value("seed003_l6_min", weights_l6.min(), "{:.3f}")
value("seed003_l6_max", weights_l6.max(), "{:.3f}")

# ---- order: permutations and positions
# --8<-- [start:permutation]
perm = np.array([5, 0, 3, 1, 6, 2, 4])  # shuffle the 7 tokens
out = attend(x7)  # (7, 8)
shuffled = attend(x7[perm])  # (7, 8)
print(f"max |f(Px) - P f(x)| = {np.abs(shuffled - out[perm]).max():.1e}")
print(f"max |f(Px) - f(x)|   = {np.abs(shuffled - out).max():.2f}")
# --8<-- [end:permutation]
value("equivariance_error", np.abs(attend(x7[perm]) - out[perm]).max(), "{:.0e}")
value("invariance_gap", np.abs(attend(x7[perm]) - out).max(), "{:.2f}")
causal_attend = lambda x: attend(x, causal_mask(len(x)))  # noqa: E731
value("causal_equivariance_gap", np.abs(causal_attend(x7[perm]) - causal_attend(x7)[perm]).max(), "{:.2f}")
with_pe = lambda x: attend(x + pe7)  # noqa: E731
value("pe_equivariance_gap", np.abs(with_pe(x7[perm]) - with_pe(x7)[perm]).max(), "{:.2f}")
value("multiset_error", np.abs(np.sort(attend(x7[perm]), 0) - np.sort(out, 0)).max(), "{:.0e}")

pe = sinusoidal_positions(64, 128)  # (64, 128)
value("pe_repeat_error", np.abs(sinusoidal_positions(64, 128) - pe).max(), "{:.1f}")
far_position = value("far_position", 100_000, "{:,}")
far = sinusoidal_positions(far_position + 1, 8)[-1]
value("pe_far_max", np.abs(far).max(), "{:.2f}")
dist = np.linalg.norm(pe[:, None] - pe[None, :], axis=-1)  # (64, 64)
spread = max(np.ptp(np.diagonal(dist, offset)) for offset in range(1, 40))
value("pe_distance_spread", spread, "{:.0e}")
value("pe_distance_not_monotone", int(np.sum(np.diff(dist[0, :40]) < 0)))
seed_loop = np.zeros((6, 128))
for i in range(6):
    for j in range(0, 128, 2):
        seed_loop[i, j] = np.sin(i / (10000 ** (j / 128)))
        seed_loop[i, j + 1] = np.cos(i / (10000 ** (j / 128)))
value("pe_formula_error", np.abs(seed_loop - sinusoidal_positions(6, 128)).max(), "{:.0e}")
value("period_dim0", 2 * np.pi, "{:.2f}")
value("period_last", 2 * np.pi * 10000 ** (126 / 128), "{:,.0f}")
value("pe_max", np.abs(sinusoidal_positions(512, 128)).max(), "{:.1f}")
pe512 = sinusoidal_positions(512, 128)  # (512, 128): positions x dimensions
coarse_at = np.linspace(0, 511, 128)  # the tip's "map to 128", along positions
round_trip = np.stack([np.interp(np.arange(512), coarse_at, np.interp(coarse_at, np.arange(512), pe512[:, j]))
                       for j in range(128)], axis=1)  # (512, 128)
value("resample_fast_error", np.abs(round_trip - pe512)[:, 0].max(), "{:.2f}")

# ---- shapes and heads
L6, d_model, h = 6, 128, 2
xh = rng.normal(size=(L6, d_model))
w_fused = rng.normal(size=(d_model, d_model))
q_all = (xh @ w_fused).reshape(L6, h, 64).transpose(1, 0, 2)  # (2, 6, 64)
value("split_shapes", f"{(xh @ w_fused).shape} -> {(xh @ w_fused).reshape(L6, h, 64).shape} -> {q_all.shape}")
per_head_gap = max(np.abs(q_all[i] - xh @ w_fused[:, 64 * i : 64 * (i + 1)]).max() for i in range(h))
value("fused_vs_per_head", per_head_gap, "{:.0e}")
value("unsplit_scores_shape", str(((xh @ w_fused) @ (xh @ w_fused).T).shape))
k_all = (xh @ rng.normal(size=(d_model, d_model))).reshape(L6, h, 64).transpose(1, 0, 2)  # (2, 6, 64)
scores_h = q_all @ k_all.transpose(0, 2, 1) / 8  # (2, 6, 6)
value("axis1_row_sum_error", np.abs(softmax(scores_h, axis=1).sum(-1) - 1).max(), "{:.2f}")
value("axis_last_row_sum_error", np.abs(softmax(scores_h, axis=-1).sum(-1) - 1).max(), "{:.0e}")
concat = np.concatenate([q_all[0], q_all[1]], axis=1)  # (6, 128)
value("concat_shape", f"{concat.shape} @ (128, 128) -> {(concat @ w_fused).shape}")
value("madds_multi", h * L6 * L6 * 64, "{:,}")  # h heads, each L x L x d_head
value("madds_single", L6 * L6 * d_model, "{:,}")  # one head of width d_model
value("add_width", (xh + xh).shape[-1])
value("concat_width", np.concatenate([xh, xh], axis=-1).shape[-1])

# ---- masks
mask01 = np.triu(np.ones((6, 6)), k=1)
value("triu_is_future", bool(np.array_equal(mask01 == 1, np.arange(6)[None, :] > np.arange(6)[:, None])))
value("exp_minus_1e9", math.exp(-1e9), "{:.1f}")
s6 = rng.normal(size=(6, 6))
masked = softmax(s6 - 1e9 * mask01)
value("masked_weight_max", masked[mask01 == 1].max(), "{:.1f}")
value("fully_masked_1e9", softmax(np.full(6, -1e9))[0], "{:.4f}")
value("fully_masked_inf_nan", int(np.isnan(quiet(naive_softmax, np.full(6, -np.inf))).sum()))
g6 = rng.normal(size=(6, 6))
value("masked_grad", np.abs(softmax_backward(g6, masked)[mask01 == 1]).max(), "{:.1f}")
after = softmax(s6) - 1e9 * mask01
value("after_softmax_min", after.min(), "{:.0e}")
future = x7.copy()
future[-1] += 1.0  # change the last token only
value("leak_no_mask", np.abs(attend(future)[:-1] - attend(x7)[:-1]).max(), "{:.2f}")
value("leak_causal", np.abs(causal_attend(future)[:-1] - causal_attend(x7)[:-1]).max(), "{:.1f}")
padded = np.concatenate([x7[:4], np.zeros((3, 8))])[None]  # "The cat sat." + 3 zero pads
_, pad_w = scaled_dot_product_attention(padded @ w_q, padded @ w_k, padded @ w_v)
_, pad_w_masked = scaled_dot_product_attention(padded @ w_q, padded @ w_k, padded @ w_v, padding_mask(np.array([4]), 7))
value("pad_weight_no_mask", pad_w[0, :4, 4:].sum(-1).max(), "{:.2f}")
value("pad_weight_masked", pad_w_masked[0, :4, 4:].sum(-1).max(), "{:.1f}")
row = np.array([120.0, 80.0, 60.0, 0.0])
value("clip_top_exact", softmax(row)[0], "{:.6f}")
value("clip_top", naive_softmax(np.clip(row, -50, 50))[0], "{:.3f}")

# ---- gradients, penalties, tips
qg, kg, vg, gg = rng.normal(size=(4, 5, 4))
dq, dk, dv = scaled_dot_product_attention_backward(gg, qg, kg, vg, causal_mask(5))


def loss(q_, k_, v_):
    return np.sum(scaled_dot_product_attention(q_, k_, v_, causal_mask(5))[0] * gg)


checks = [(dq, numeric_gradient(lambda a: loss(a, kg, vg), qg)), (dk, numeric_gradient(lambda a: loss(qg, a, vg), kg)),
          (dv, numeric_gradient(lambda a: loss(qg, kg, a), vg))]
value("gradcheck_error", max(np.abs(a - b).max() / np.abs(b).max() for a, b in checks), "{:.0e}")
weights_g = scaled_dot_product_attention(qg, kg, vg, causal_mask(5))[1]
value("dv_is_weights_t_g", np.abs(dv - weights_g.T @ gg).max(), "{:.0e}")
logits = rng.normal(size=(6, 6))
value("l1_row_norm", np.abs(softmax(logits)).sum(-1).max(), "{:.1f}")
value("l1_grad", np.abs(numeric_gradient(lambda s: np.abs(softmax(s)).sum(), logits)).max(), "{:.0e}")
distance = np.abs(np.arange(6)[:, None] - np.arange(6)[None, :])  # |i - j|
short = (distance <= 1).astype(float)  # penalise weight on keys at distance 0 or 1
s = logits.copy()
for _ in range(100):
    s -= 1.0 * softmax_backward(short, softmax(s))  # gradient of sum(w * short)
value("mean_distance_before", np.sum(softmax(logits) * distance, -1).mean(), "{:.2f}")
value("mean_distance_after", np.sum(softmax(s) * distance, -1).mean(), "{:.2f}")

# ---- cost: training in parallel, generation one token at a time
teacher = causal_attend(x7)  # all 7 positions in one call
stepwise = np.stack([causal_attend(x7[: t + 1])[t] for t in range(7)])  # one position at a time
value("parallel_vs_stepwise", np.abs(teacher - stepwise).max(), "{:.0e}")
n_ctx, d_head = 1000, 64
value("step_madds_cache", 2 * n_ctx * d_head, "{:,}")  # scores with N keys, then N weighted values
value("step_madds_nocache", 2 * n_ctx * n_ctx * d_head, "{:,}")  # every row recomputed, projections aside
value("n_ctx", n_ctx, "{:,}")

# ======================================================================== the claims
HOLDS, FAILS, UNCHECKED = "holds", "does not hold", "cannot be checked here"


def only_when(condition):
    return f"holds only when {condition}"


def cite(section):
    return f"Vaswani et al. 2017, {section}"


# (id, source, topic, claim, verdict, evidence, chapter link)
CLAIMS = [
    # ---------------------------------------------------------------- why attention
    ("C000-02", "000 §1", "why", "Self-attention is four steps: Q/K/V projection, scaling, softmax, weighted "
     "sum.", HOLDS,
     "Eq. 1 of the paper; the core's `scaled_dot_product_attention` is exactly these "
     "steps.", "scaled-dot-product.md"),
    ("C000-03", "000 §2.1", "why", "An RNN's hidden state is `h_t = f(h_{t-1}, x_t)`.", HOLDS,
     cite("§1: hidden states h_t \"as a function of the previous hidden state h_(t-1) and the input for position "
     "t\"."),
     "why-attention.md"),
    ("C000-04", "000 §2.1", "why", "\"cat\" and \"mat\" are 5 words apart, so an RNN passes through 5 nonlinear "
     "steps.", FAILS,
     "{cat_mat_between} words lie between them (sat, on, the); the recurrence takes {cat_mat_steps} "
     "steps.", "why-attention.md"),
    ("C000-05", "000 §2.1", "why", "Gradient decay makes such a span (4–5 tokens) practically impossible for "
     "LSTMs.", UNCHECKED,
     "Needs a trained LSTM. Khandelwal et al. 2018 (ACL) report LSTM language models using about 200 tokens of "
     "context.", "why-attention.md"),
    ("C000-06", "000 §2.1", "why", "A CNN needs exponentially many layers to cover a sentence.", FAILS,
     "Width-3 kernels: {conv_contiguous_512} contiguous or {conv_dilated_512} dilated layers for 512 tokens, "
     "{conv_contiguous_1024} or "
     "{conv_dilated_1024} for 1024: linear or logarithmic. " + cite("§4: O(n/k), or O(log_k(n)) with "
     "dilation."), "why-attention.md"),
    ("C000-07", "000 §2.1", "why", "RNN-based models were stuck at 25.8 BLEU (EN-DE).", FAILS,
     "Table 2: GNMT+RL {paper_gnmt_en_de}, GNMT+RL Ensemble {paper_gnmt_ens_en_de}. {paper_dev_base} is the "
     "Transformer base "
     "model on the dev set (Table 3).", "claims.md#the-papers-numbers"),
    ("C000-08", "000 §2.1", "why", "The Transformer reached 28.4 BLEU.", HOLDS,
     "Table 2: Transformer (big), EN-DE, newstest2014: {paper_big_en_de}.", "claims.md#the-papers-numbers"),
    ("C000-09", "000 §2.1", "why", "Training was 3× faster.", FAILS,
     "The paper reports FLOPs, not a speed-up: big {paper_flops_big} = {flops_ratio_big_gnmt}× GNMT+RL's; base is "
     "{flops_ratio_convs2s}× below ConvS2S and {flops_ratio_gnmt}× below GNMT+RL (Table "
     "2).", "claims.md#the-papers-numbers"),
    ("C000-10", "000 §2.1", "why", "\"Attention Is All You Need\" is from 2017.", HOLDS, "arXiv:1706.03762 (June "
     "2017), NIPS 2017.", ""),
    ("C000-11", "000 §2.1", "why", "Attention links any two tokens by a learnable, distance-free direct path.", HOLDS,
     "Table 1: maximum path length O(1). Changing the first token moves the last output by {first_to_last_one_layer} "
     "after one layer.",
     "why-attention.md"),
    ("C000-12", "000 §2.1", "why", "The attention score is Q·Kᵀ.", HOLDS, "Before the 1/√d_k scale; see Eq. "
     "1.", "scaled-dot-product.md"),
    ("C003-02", "003 S1", "why", "Every word talks directly to every other word.", only_when("there is no causal "
     "mask"),
     "Path length 1 (Table 1). With a causal mask a token sees only earlier ones: changing the last token moves "
     "earlier outputs "
     "by {leak_causal}.", "masks.md"),
    ("C003-03", "003 S1", "why", "Self-attention completely solves the RNN's long-range forgetting.", FAILS,
     "The score matrix grows as n²: {n_score_entries_512} entries at 512 tokens, {n_score_entries_4096} at 4096, so "
     "every model "
     "has a finite window; nothing outside it is seen at all.", "online-softmax.md"),
    ("C003-04", "003 S2", "why", "RNNs only remember recent information.", UNCHECKED,
     "Needs trained RNNs; \"only\" is too strong for Khandelwal et al. 2018 (about 200 tokens "
     "used).", "why-attention.md"),
    ("C003-05", "003 S2", "why", "Google introduced self-attention in \"Attention Is All You Need\" (2017).", FAILS,
     cite("§2: self-attention \"has been used successfully in a variety of tasks\" before; the paper's claim is the "
     "first "
          "transduction model relying entirely on it."), ""),
    ("C003-06", "003 S2", "why", "The model sees the whole text at once.", only_when("the text fits the context "
     "window"),
     "All positions are computed in one call; the window is finite (see C003-03).", "full-layer.md"),
    ("C003-07", "003 S2", "why", "Self-attention is why all LLMs (ChatGPT, Claude…) understand long text.", UNCHECKED,
     "A claim about every LLM; not measurable with NumPy.", ""),
    ("C003-33", "003 S6", "why", "Versus RNNs: path length 1 instead of N−1, all positions in parallel.", HOLDS,
     "Table 1: maximum path O(1) vs O(n), sequential operations O(1) vs O(n).", "why-attention.md"),
    # ---------------------------------------------------------------- queries, keys, values
    ("C000-13", "000 §2.2", "qkv", "W_q, W_k, W_v are learned parameters.", HOLDS, cite("§3.2.2: \"learned linear "
     "projections\"."),
     "queries-keys-values.md"),
    ("C000-14", "000 §2.2", "qkv", "The same word at different positions gets different Q/K/V vectors.",
     only_when("positional encodings are added (in the first layer)"),
     "One word vector at all 7 positions: query rows differ by {same_word_q_diff_no_pe} without PE, by up to "
     "{same_word_q_diff_pe} with it.", "positional-encoding.md"),
    ("C000-58", "000 §4.2", "qkv", "q_i·k_i (self-match) is usually the largest score.", only_when("W_q = W_k"),
     "Untrained heads: the own position is the top key in {self_top_separate} of rows with separate W_q, W_k "
     "(chance {self_top_chance}), in {self_top_shared} with W_q = W_k.", "queries-keys-values.md"),
    ("C000-60", "000 §4.2", "qkv", "\"cat\" attends to \"mat\" because of corpus statistics stored in W_k and "
     "W_v.", FAILS,
     "The seed's weights are random and untrained (no corpus), and W_v cannot change the pattern: redrawing W_v "
     "changes the "
     "weights by {w_v_weight_change}.", "queries-keys-values.md"),
    ("C000-81", "000 §6", "qkv", "Q·Kᵀ is essentially cosine similarity.", FAILS,
     "q·k = {dot_qk}, (2q)·k = {dot_2qk}; the cosine is {cos_qk} for both. Dot products depend on length.",
     "queries-keys-values.md"),
    ("C003-08", "003 S3", "qkv", "Attention is like a meeting where the boss's words weigh more.", UNCHECKED,
     "An analogy; weights come from query–key scores, not from a fixed importance.", ""),
    ("C003-10", "003 S3", "qkv", "Q is the search query, K the article's title, V its body.", UNCHECKED, "An "
     "analogy.", ""),
    ("C003-11", "003 S3", "qkv", "Match the query to every key, weight, sum the values.", HOLDS, cite("§3.2."),
     "weighted-sum.md"),
    ("C003-12", "003 S3", "qkv", "Separate Q and K break the symmetry \"i attends j ⇔ j attends i\".",
     only_when("\"symmetry\" means the scores"),
     "With W_q = W_k the scores are symmetric (asymmetry {shared_scores_asymmetry}) but the weights are not "
     "({shared_weights_asymmetry}): the row softmax breaks it anyway.", "queries-keys-values.md"),
    ("C003-13", "003 S3", "qkv", "Q asks, K answers the match, V gives the content.", UNCHECKED, "A mnemonic.", ""),
    ("C003-16", "003 S4", "qkv", "Q = xW_q, K = xW_k, V = xW_v (linear, no bias).", HOLDS, cite("§3.2.2 (many "
     "libraries add a bias)."),
     "queries-keys-values.md"),
    ("C003-17", "003 S4", "qkv", "A higher score means a stronger relation between two words.", only_when("comparing "
     "keys of one query"),
     "Softmax keeps the order within a row (checked on the running example: {softmax_keeps_row_order}); scores of "
     "different "
     "queries are not comparable.", "softmax.md"),
    ("C003-23", "003 S4", "qkv", "A word with a larger weight contributes more to the output.", only_when("the value "
     "vectors have equal length"),
     "Contribution is w_j·v_j: in {rows_top_weight_not_top_contribution} of {n_running_tokens} rows of the running "
     "example the "
     "top-weight key is not the largest contributor.", "weighted-sum.md"),
    ("C003-24", "003 S4", "qkv", "Gradients reach Q and K through the weights, and V directly through the weighted "
     "sum.", HOLDS,
     "dV = Wᵀ·dO exactly (difference {dv_is_weights_t_g}); the full backward pass matches finite differences to "
     "{gradcheck_error}.",
     "backward.md"),
    ("G-01", "common", "qkv", "Each attention head looks at its own slice of the input features.", FAILS,
     "Every head projects all d_model features: changing only the last input feature moves head 0's queries by "
     "{head0_sees_last_feature}.", "multi-head.md"),
    ("G-02", "common", "qkv", "Attention weights are symmetric: i attends to j as much as j to i.", FAILS,
     "Running example: max |W − Wᵀ| = {weights_asymmetry}.", "softmax.md"),
    # ---------------------------------------------------------------- scaling and softmax
    ("C000-15", "000 §2.3", "scaling", "Dividing by √d_k keeps the softmax from saturating.", HOLDS,
     cite("§3.2.1: large dot products push the softmax \"into regions where it has extremely small gradients\"."),
     "scaled-dot-product.md"),
    ("C000-16", "000 §2.3", "scaling", "With unit-variance components, q·k has mean 0 and variance d_k.", HOLDS,
     "{n_samples} samples: variance {var_dot_16}, {var_dot_64}, {var_dot_512} for d_k = 16, 64, 512; after the scale "
     "{var_scaled_16}, {var_scaled_64}, {var_scaled_512}. " + cite("footnote 4."), "scaled-dot-product.md"),
    ("C000-17", "000 §2.3", "scaling", "For d_k = 64 the dot products lie mostly in [−16, 16].", HOLDS,
     "{share_within_16} of samples (±2 standard deviations).", "scaled-dot-product.md"),
    ("C000-18", "000 §2.3", "scaling", "Softmax saturates once inputs reach about 10 (e^10 ≈ 22026, e^20 ≈ "
     "4.8×10^8).",
     only_when("10 is the gap between scores, not their size"),
     "e^10 = {exp10}, e^20 = {exp20}. softmax([1000, 1001, 1002]) = {softmax_1000}, the same as for [0, 1, 2] "
     "(difference "
     "{softmax_shift_error}); a gap of 10 in 6 scores gives a top weight of {gap10_top}.", "softmax.md"),
    ("C000-19", "000 §2.3", "scaling", "Saturation makes gradients vanish.", HOLDS,
     "Mean softmax Jacobian norm: {jacobian_unscaled} unscaled (top weight {top_unscaled}), {jacobian_scaled} scaled "
     "(top weight {top_scaled}), d_k = 64.", "softmax.md"),
    ("C000-20", "000 §2.3", "scaling", "Setting s²·d_k = 1 gives the factor s = 1/√d_k.", HOLDS,
     "Scaled variances {var_scaled_16}, {var_scaled_64}, {var_scaled_512} (C000-16).", "scaled-dot-product.md"),
    ("C000-21", "000 §2.3", "scaling", "Without the scale the seed's softmax gives rows like [0.999, 0.0001, "
     "…].", FAILS,
     "Unscaled, the seed's code overflows (max score {seed000_unscaled_max}): {seed000_unscaled_nan_rows} of 6 rows "
     "are NaN. "
     "A stable softmax gives exactly one-hot rows (mean top weight "
     "{seed000_unscaled_stable_top}).", "debugging.md#nan-overflow"),
    ("C000-22", "000 §2.3", "scaling", "Adding / √d_k immediately makes the weights smooth and trainable.", FAILS,
     "In the seed's code, with the scale: score std {seed000_scaled_std}, mean top weight {seed000_mean_top}. The "
     "cause is "
     "W drawn with std 1 (q entries have std {seed000_q_std}); with std 1/√d_model: score std {seed000_fixed_std}, "
     "top weight "
     "{seed000_fixed_top_nomask} without the mask.", "debugging.md#one-hot-weights"),
    ("C000-23", "000 §2.3", "scaling", "Scaling is not a trick but a mathematical necessity.", only_when("q and k "
     "have unit-variance components"),
     "The seed's own code scales and still saturates (C000-22).", "debugging.md#one-hot-weights"),
    ("C003-18", "003 S4", "scaling", "When d_k is large, dot products become very large.", only_when("the components "
     "have a fixed variance"),
     "Standard deviation grows as √d_k (variances {var_dot_16}, {var_dot_64}, "
     "{var_dot_512}).", "scaled-dot-product.md"),
    ("C003-19", "003 S4", "scaling", "A saturated softmax outputs near 0 or 1 and has tiny gradients.", HOLDS,
     "Jacobian norm {jacobian_unscaled} vs {jacobian_scaled} (C000-19).", "softmax.md"),
    ("C003-20", "003 S4", "scaling", "Dividing by √d_k normalises the score variance to 1.", only_when("q and k have "
     "unit-variance components"),
     "Scaled score std in seed 003's code: {seed003_score_std}; in seed 000's: "
     "{seed000_scaled_std}.", "debugging.md#one-hot-weights"),
    ("C003-21", "003 S4", "scaling", "Table: unscaled → variance d_k, tiny gradient, hard to train; scaled → "
     "variance 1, moderate, stable.",
     only_when("inputs have unit variance (the training column is not measured)"),
     "Variance and gradient columns: C000-16 and C000-19. Convergence needs training runs.", "scaled-dot-product.md"),
    ("C003-22", "003 S4", "scaling", "Each softmax row sums to 1.", HOLDS, "Largest deviation over 50 rows of wide "
     "scores: {row_sum_error}.",
     "softmax.md"),
    ("C003-25", "003 S5", "scaling", "Subtracting the max makes softmax stable without changing it.", HOLDS,
     "Stable vs naive on moderate scores: {stable_vs_naive}.", "softmax.md"),
    ("C003-41", "003 S7", "scaling", "Always scale: without it the softmax saturates and gradients vanish.",
     only_when("the projections keep q and k near unit variance"), "Scaling is necessary, not sufficient: C000-22.",
     "debugging.md#one-hot-weights"),
    ("C003-42", "003 S7", "scaling", "Subtract the max in softmax to avoid overflow.", HOLDS,
     "It removes the seed's NaN rows exactly (C000-21).", "debugging.md#nan-overflow"),
    ("G-03", "common", "scaling", "Dividing by d_k instead of √d_k works just as well.", FAILS,
     "Unit-variance q, k with d_k = 64: mean top weight {scale_d_k_top} over 6 keys, close to uniform ({uniform_6}).",
     "scaled-dot-product.md"),
    ("G-04", "common", "scaling", "The 1/√d_k scale is a softmax temperature of √d_k.", HOLDS,
     "softmax(s/√d_k) is softmax with temperature √d_k by definition (difference "
     "{temperature_error}).", "softmax.md"),
    # ---------------------------------------------------------------- positions and order
    ("C000-24", "000 §3.1", "positions", "Without position information attention cannot tell word orders "
     "apart.", HOLDS,
     "Permuting the input permutes the output exactly (error {equivariance_error}).", "order-matters.md"),
    ("C000-25", "000 §3.1", "positions", "Position is a separate, learnable feature dimension hard-coded into the "
     "word vector.", FAILS,
     "Sinusoidal encodings are fixed (computed twice: difference {pe_repeat_error}) and added to the same d_model "
     "dimensions. "
     + cite("§3.5."), "positional-encoding.md"),
    ("C000-26", "000 §3.1", "positions", "Sinusoidal encoding is not the only solution.", HOLDS,
     "Table 3 row (E): learned positional embeddings {paper_dev_learned_pe} BLEU vs {paper_dev_base} "
     "(dev).", "positional-encoding.md"),
    ("C000-27", "000 §3.1", "positions", "Sinusoidal encodings are deterministic.", HOLDS, "Two computations differ "
     "by {pe_repeat_error}.",
     "positional-encoding.md"),
    ("C000-28", "000 §3.1", "positions", "The encoding extrapolates to positions never seen in training.",
     only_when("it means the vectors can be computed"),
     "Position {far_position} is finite (max |PE| {pe_far_max}). Whether a model uses it is untested here; the paper "
     "only says it "
     "\"may allow the model to extrapolate\" (§3.5).", "positional-encoding.md"),
    ("C000-29", "000 §3.1", "positions", "P_i − P_j reflects the distance |i − j|.", HOLDS,
     "‖P_i − P_j‖ depends only on i − j (spread {pe_distance_spread}), though not monotonically "
     "({pe_distance_not_monotone} "
     "decreases in the first 40 steps).", "positional-encoding.md"),
    ("C000-30", "000 §3.1", "positions", "P(i, 2j) = sin(i/10000^(2j/d_model)), P(i, 2j+1) = cos(…).", HOLDS,
     "The seed's loop equals the core's `sinusoidal_positions` (difference {pe_formula_error}). " + cite("§3.5."),
     "positional-encoding.md"),
    ("C000-31", "000 §3.1", "positions", "Small j is a low-frequency wave, large j a high-frequency one.", FAILS,
     "Reversed: the period is {period_dim0} positions at dimension 0 and {period_last} at dimension 126 (d_model = "
     "128).",
     "positional-encoding.md"),
    ("C000-32", "000 §3.1", "positions", "LayerNorm after embedding + PE is mandatory because their scales "
     "differ.", FAILS,
     "std of the seed's word vectors {seed000_x_std}, of its 6 encodings {pe6_std} (long sequences {pe_long_std}). "
     "The paper adds "
     "them and applies dropout, no LayerNorm (§3.4, §5.4).", "positional-encoding.md"),
    ("C000-33", "000 §3.1", "positions", "The correct pipeline is (embedding + PE) → LayerNorm → "
     "Dropout.", only_when("you follow BERT"),
     "BERT's `embedding_postprocessor` ends in `layer_norm_and_dropout` (google-research/bert, modeling.py); the "
     "Transformer "
     "paper uses dropout only (§5.4).", "positional-encoding.md"),
    ("C000-34", "000 §3.1", "positions", "This made convergence 40% faster.", UNCHECKED, "An anecdote without a "
     "setup.", ""),
    ("C000-74", "000 §5.2", "positions", "A pre-trained model's position encoding has maximum length "
     "512.", only_when("the model is BERT-like"),
     "BERT's `max_position_embeddings=512` is a learned table; sinusoidal encodings exist at any position (C000-28).",
     "positional-encoding.md"),
    ("C000-75", "000 §5.2", "positions", "Fine-tuning on 128-token data overfits the first 128 positions and ignores "
     "the rest.", UNCHECKED,
     "Needs fine-tuning runs. Rows of a learned table that no input uses get exactly zero gradient; sinusoidal "
     "encodings "
     "have no parameters at all.", "debugging.md#positions"),
    ("C000-76", "000 §5.2", "positions", "Fix: map the \"512-dim\" encoding to 128 dims, then bilinearly back to "
     "512.", FAILS,
     "512 is a number of positions, not a width. Resampling the table down to 128 positions and back moves dimension "
     "0 by "
     "{resample_fast_error} (values lie in [−1, 1]). Position interpolation (Chen et al. 2023) rescales position "
     "indices to "
     "extend a window, not to shrink it.", "debugging.md#positions"),
    ("C000-77", "000 §5.2", "positions", "This gave 2.3× faster convergence.", UNCHECKED, "An anecdote without a "
     "setup.", ""),
    ("C000-83", "000 §6", "positions", "Without PE all words are equal and order is invisible.", only_when("there is "
     "no causal mask"),
     "Permutation error {equivariance_error} without a mask, {causal_equivariance_gap} with "
     "one.", "order-matters.md"),
    ("C000-84", "000 §6", "positions", "Transformers have no built-in notion of before and after.", only_when("there "
     "is no causal mask"),
     "A causal mask alone breaks the permutation symmetry: gap {causal_equivariance_gap}.", "order-matters.md"),
    ("C003-36", "003 S6", "positions", "Swapping two words gives exactly the same attention result (\"permutation "
     "invariance\").", FAILS,
     "It is equivariance: f(Px) = P f(x) to {equivariance_error}, but f(Px) differs from f(x) by {invariance_gap}.",
     "order-matters.md"),
    ("C003-37", "003 S6", "positions", "Without PE the dot product depends only on the words, not their "
     "positions.", HOLDS,
     "Same measurement as C003-36.", "order-matters.md"),
    ("C003-38", "003 S6", "positions", "\"I love you\" and \"You love I\" are treated as the same "
     "input.", only_when("\"same\" means the same set of outputs"),
     "The sorted outputs agree to {multiset_error}; each token keeps its own output vector.", "order-matters.md"),
    ("C003-39", "003 S6", "positions", "Positional encodings are added to the word "
     "embeddings.", HOLDS, cite("§3.5."), "positional-encoding.md"),
    ("C003-40", "003 S6", "positions", "Addition was chosen over concatenation to keep the width and be efficient.",
     only_when("read as \"addition keeps the width\""),
     "Adding keeps d_model = {add_width}; concatenating gives {concat_width}. The paper gives only that reason (\"so "
     "that the two "
     "can be summed\", §3.5).", "positional-encoding.md"),
    ("C003-46", "003 S8", "positions", "Positional encoding fixes the order blindness.", HOLDS,
     "With PE added, f(Px) and P f(x) differ by {pe_equivariance_gap}.", "order-matters.md"),
    # ---------------------------------------------------------------- shapes and heads
    ("C000-35", "000 §3.2", "heads", "L = 6, d_model = 128, h = 2 give d_k = d_v = 64.", HOLDS, "128 / 2 = "
     "64.", "multi-head.md"),
    ("C000-36", "000 §3.2", "heads", "X (6, 128) → fused W (128, 128) → reshape (6, 2, 64) → transpose (2, 6, "
     "64).", HOLDS,
     "Measured: {split_shapes}.", "multi-head.md"),
    ("C000-37", "000 §3.2", "heads", "Softmax runs over dim 1, the sequence dimension.", only_when("the scores are "
     "2-D (L, L)"),
     "For (h, L, L) scores, axis 1 leaves rows summing to as much as {axis1_row_sum_error} away from 1; the last "
     "axis: "
     "{axis_last_row_sum_error}.", "softmax.md"),
    ("C000-38", "000 §3.2", "heads", "Without splitting heads a 64-d Q would meet a 128-d K.", FAILS,
     "Unsplit, Q and K are both 128-d: Q @ Kᵀ has shape {unsplit_scores_shape}.", "multi-head.md"),
    ("C000-39", "000 §3.2", "heads", "Per-head W of shape (128, 64) is a beginner's mistake that loses multi-head "
     "ability.", FAILS,
     "The paper defines per-head W_i^Q ∈ R^(d_model×d_k) (§3.2.2); the fused matrix is their concatenation "
     "(difference "
     "{fused_vs_per_head}).", "multi-head.md"),
    ("C000-52", "000 §4.1", "heads", "All heads share one set of W; only the output is split.", FAILS,
     "Each head uses its own column block of W; no parameter is shared (C000-39).", "multi-head.md"),
    ("C000-61", "000 §4.3", "heads", "Concatenate heads to (6, 128), then multiply by W_o (128, 128).", HOLDS,
     "Measured: {concat_shape}. " + cite("§3.2.2."), "multi-head.md"),
    ("C000-62", "000 §4.3", "heads", "W_o is a \"feature fuser\".", UNCHECKED, "A description, not a measurable "
     "claim.", ""),
    ("C000-63", "000 §4.3", "heads", "Removing W_o cost 1.2 BLEU.", UNCHECKED, "The paper has no such ablation "
     "(Table 3).", ""),
    ("C003-44", "003 S7", "heads", "The output has the input's shape (batch, seq_len, d_model).", HOLDS,
     "Seed 003's run: input, output, weights {seed003_shapes}.", "full-layer.md"),
    ("G-05", "common", "heads", "h heads of width d_model/h cost about as much as one full-width head.", HOLDS,
     "Multiply-adds for QKᵀ at L = 6: {madds_multi} with 2 heads, {madds_single} with one. "
     "" + cite("§3.2.2."), "multi-head.md"),
    # ---------------------------------------------------------------- masks
    ("C000-40", "000 §3.3", "masks", "In the encoder every token is visible.", only_when("there is no padding"),
     "Without a padding mask a real token puts {pad_weight_no_mask} of its weight on padding; with it, "
     "{pad_weight_masked}.",
     "debugging.md#padding"),
    ("C000-41", "000 §3.3", "masks", "The decoder must hide future tokens.", HOLDS,
     "Without a mask, changing the last token moves earlier outputs by {leak_no_mask}; with a causal mask by "
     "{leak_causal}.",
     "debugging.md#leaking-mask"),
    ("C000-42", "000 §3.3", "masks", "np.triu(ones, k=1) marks exactly the pairs j > i.", HOLDS, "Checked for L = 6: "
     "{triu_is_future}.",
     "masks.md"),
    ("C000-43", "000 §3.3", "masks", "Subtracting 1e9 makes the masked weights ≈ 0.", only_when("each row keeps a "
     "visible key"),
     "exp(−1e9) = {exp_minus_1e9}; masked weights are exactly {masked_weight_max}. A fully masked row becomes "
     "uniform "
     "({fully_masked_1e9} each).", "debugging.md#nan-masked-rows"),
    ("C000-44", "000 §3.3", "masks", "Masked weights are 0 and their gradient is 0.", HOLDS, "Largest gradient on a "
     "masked score: {masked_grad}.",
     "debugging.md#detach"),
    ("C000-45", "000 §3.3", "masks", "Mask before the softmax, not after.", HOLDS, "See "
     "C000-46.", "debugging.md#leaking-mask"),
    ("C000-46", "000 §3.3", "masks", "Subtracting the mask after the softmax is ineffective because the values are "
     "saturated.", FAILS,
     "It gives weights of {after_softmax_min}: garbage, and unrelated to saturation.", "debugging.md#leaking-mask"),
    ("C000-47", "000 §3.3", "masks", "A mask in the wrong place once crashed the author's training.", UNCHECKED, "An "
     "anecdote.", ""),
    ("C003-09", "003 S3", "masks", "Each word attends to all the other words.", only_when("there is no causal mask "
     "(it also attends to itself)"),
     "See C003-02.", "masks.md"),
    ("G-06", "common", "masks", "Filling masked scores with −∞ is always safe.", FAILS,
     "A row of 6 keys, all masked with −∞: the naive softmax returns {fully_masked_inf_nan} NaN weights of "
     "6.", "debugging.md#nan-masked-rows"),
    # ---------------------------------------------------------------- the seeds' code and outputs
    ("C000-01", "000 §1", "code", "The core is 20 lines of NumPy.", only_when("\"20\" means about 20"),
     "The reconstructed function has {seed000_statements} statements.", ""),
    ("C000-48", "000 §4.1", "code", "The implementation uses only NumPy.", HOLDS, "The reconstruction imports NumPy "
     "only (snippets/lib/claims_seeds.py).", ""),
    ("C000-49", "000 §4.1", "code", "20 core lines, every line commented.", only_when("\"every line\" means every "
     "block"),
     "{seed000_statements} statements; comments head blocks of lines (the stored text lost its line breaks).", ""),
    ("C000-50", "000 §4.1", "code", "The weights have shape (6, 6).", HOLDS, "Measured: "
     "{seed000_weights_shape}.", ""),
    ("C000-51", "000 §4.1", "code", "The output has shape (6, 64).", HOLDS, "Measured: {seed000_output_shape} (head "
     "0 only).", ""),
    ("C000-53", "000 §4.1", "code", "The function computes self-attention for a sentence.", only_when("the sentence "
     "has exactly 6 words"),
     "Five words: {seed000_five_words}.", "debugging.md#shape-errors"),
    ("C000-54", "000 §4.1", "code", "The word vectors are random stand-ins for trained embeddings.", HOLDS,
     "Drawn per position, so \"The\" and \"the\" are unrelated vectors.", "tokens-to-vectors.md"),
    ("C000-55", "000 §4.2", "code", "The \"cat\" row is [0.02, 0.45, 0.08, 0.15, 0.03, 0.27].", FAILS,
     "The causal mask forces entries 3–6 to exactly 0 (measured max {seed000_cat_future_max}); the row is one-hot "
     "(weight "
     "{seed000_cat_self} on \"cat\" in our draw).", "masks.md"),
    ("C000-56", "000 §4.2", "code", "\"cat\" attends most to itself (0.45).", FAILS,
     "The row is one-hot, never 0.45; over {n_draws} random draws \"cat\" wins over \"The\" in {cat_self_share} (two "
     "visible keys).",
     "masks.md"),
    ("C000-57", "000 §4.2", "code", "Next, \"cat\" attends to \"mat\" (0.27) and \"on\" (0.15).", FAILS,
     "Future positions under the causal mask: weight {seed000_cat_future_max}.", "masks.md"),
    ("C000-59", "000 §4.2", "code", "Without self-attention weight each word's representation would "
     "drift.", UNCHECKED,
     "Unsupported; the residual connection keeps a token's own vector.", "transformer-block.md"),
    ("C003-14", "003 S4", "code", "Attention(Q, K, V) = softmax(QKᵀ/√d_k)V.", HOLDS, "Eq. 1; the core matches a loop "
     "oracle (tests).",
     "scaled-dot-product.md"),
    ("C003-15", "003 S4", "code", "The formula has five steps: projection, dot product, scale, softmax, weighted "
     "sum.", HOLDS,
     "As C000-02, with the projection counted.", "scaled-dot-product.md"),
    ("C003-26", "003 S5", "code", "Initialising W_q, W_k, W_v as randn·0.01 (\"small random numbers\") is a good "
     "start.", FAILS,
     "Seed 003's own run: every weight lies in [{seed003_w_min}, {seed003_w_max}] (uniform 0.2); output std "
     "{seed003_out_std} vs "
     "input {seed003_in_std}.", "debugging.md#dead-head"),
    ("C003-27", "003 S5", "code", "The class implements scaled dot-product self-attention.", HOLDS,
     "Single head, √d_k = √d_model, no mask, no W_o.", "scaled-dot-product.md"),
    ("C003-28", "003 S5", "code", "The class handles (batch, seq_len, d_model) input.", only_when("the input is 3-D"),
     "A 2-D input raises {seed003_2d_error}.", ""),
    ("C003-29", "003 S5", "code", "Shapes (2, 5, 10), (2, 5, 10), (2, 5, 5).", HOLDS, "Measured: "
     "{seed003_shapes}.", ""),
    ("C003-30", "003 S5", "code", "The printed row sum is 1.000.", HOLDS, "Measured: {seed003_row_sum}.", ""),
    ("C003-31", "003 S5", "code", "Same shape, and every word now carries its context.", only_when("the projections "
     "are not tiny"),
     "With the class's init all 5 outputs of a sequence agree to {seed003_token_spread}: every token gets the same "
     "average.",
     "debugging.md#dead-head"),
    ("C003-32", "003 S5", "code", "The heat map shows how much each word attends to the others.", FAILS,
     "With these weights the map is flat: {seed003_labels} distinct cell label(s): "
     "{seed003_label_list}.", "debugging.md#dead-head"),
    # ---------------------------------------------------------------- debugging table and tips
    ("C000-64", "000 §5.1", "debugging", "\"operands could not be broadcast together\" means Q/K/V dimensions do not "
     "match.", FAILS,
     "Mismatched Q/K raise a matmul error; the seed's own broadcast error comes from its 6×6 mask: "
     "{seed000_five_words}.",
     "debugging.md#shape-errors"),
    ("C000-65", "000 §5.1", "debugging", "One-hot weights mean the scale is missing or too small.", FAILS,
     "The seed's code has the scale and is one-hot (top weight {seed000_mean_top}); the cause is W's std (C000-22).",
     "debugging.md#one-hot-weights"),
    ("C000-66", "000 §5.1", "debugging", "For NaN from exp overflow, clip scores to [−50, 50].", FAILS,
     "Clipping changes the weights: scores [120, 80, 60, 0] get top weight {clip_top} instead of {clip_top_exact}, "
     "and "
     "clipped scores get zero gradient; subtracting the max is exact.",
     "debugging.md#nan-overflow"),
    ("C000-67", "000 §5.1", "debugging", "Over-attending to \"The\" comes from a too-large PE; normalise it by its "
     "max.", FAILS,
     "max |PE| = {pe_max} already, so the fix is a no-op; a causal mask alone gives the first key extra weight.",
     "debugging.md#first-word"),
    ("C000-68", "000 §5.1", "debugging", "Multi-head worse than single-head: W_o uninitialised; use "
     "randn·0.02.", UNCHECKED,
     "A training question. Table 3 (A): 1 head {paper_dev_one_head} vs {paper_dev_base} BLEU with "
     "8.", "debugging.md#w-o"),
    ("C000-69", "000 §5.2", "debugging", "Plot attention maps during training to debug.", UNCHECKED, "Advice.", ""),
    ("C000-70", "000 §5.2", "debugging", "A head stuck on padding means a PE or mask bug.", only_when("\"bug\" means "
     "the padding mask"),
     "Padding weight {pad_weight_no_mask} without the mask, {pad_weight_masked} with it; PE plays no "
     "part.", "debugging.md#padding"),
    ("C000-71", "000 §5.2", "debugging", "Weights stuck near uniform (≈0.1667) mean a dead head: check W_k's "
     "init.", HOLDS,
     "Seed 003's init at 6 tokens: weights in [{seed003_l6_min}, {seed003_l6_max}].", "debugging.md#dead-head"),
    ("C000-72", "000 §5.2", "debugging", "Check gradients numerically (gradcheck).", HOLDS,
     "The same check in NumPy: relative error {gradcheck_error}.", "debugging.md#detach"),
    ("C000-73", "000 §5.2", "debugging", "Masking without .detach() lets gradient flow through the mask and causes "
     "NaN.", FAILS,
     "The gradient on masked scores is {masked_grad}; NaN comes from fully masked −∞ rows "
     "(G-06).", "debugging.md#detach"),
    ("C000-78", "000 §5.2", "debugging", "An L1 penalty on attention weights makes a head sparse and local.", FAILS,
     "Every row's L1 norm is {l1_row_norm}; the penalty's gradient is {l1_grad}.", "debugging.md#l1-penalty"),
    ("C000-79", "000 §5.2", "debugging", "Penalising high short-range weights pushes a head to long range.", HOLDS,
     "Gradient descent on such a penalty raises the mean attended distance from {mean_distance_before} to "
     "{mean_distance_after}.",
     "debugging.md#l1-penalty"),
    ("C000-80", "000 §5.2", "debugging", "This raised F1 by 5.7% on legal text.", UNCHECKED, "An anecdote without a "
     "setup.", ""),
    # ---------------------------------------------------------------- cost and the big picture
    ("C003-34", "003 S6", "cost", "Parallelism mainly helps training.", HOLDS,
     "All positions in one causal call equal position-by-position generation (difference {parallel_vs_stepwise}); "
     "generation "
     "still needs one step per token.", "kv-cache.md"),
    ("C003-35", "003 S6", "cost", "Each generated token still recomputes attention with all history: "
     "O(N).", only_when("a KV cache is kept (then nothing is recomputed)"),
     "Multiply-adds for one new token at N = {n_ctx}, d = 64: {step_madds_cache} with a cache, {step_madds_nocache} "
     "recomputing "
     "every row.", "kv-cache.md"),
    ("C003-45", "003 S8", "cost", "Self-attention completely removes the RNN's serial bottleneck.", FAILS,
     "Decoding stays one token at a time: \"the decoder then generates an output sequence … one element at a time\" "
     "(§3).",
     "kv-cache.md"),
    ("C000-82", "000 §6", "cost", "RNNs assume time order is causal; CNNs that nearby means related.", UNCHECKED, "A "
     "framing.", ""),
    ("C000-85", "000 §6", "cost", "Future models may drop positional encodings.", UNCHECKED, "A prediction.", ""),
    ("C000-86", "000 §6", "cost", "LLMs do not understand; they find the shortest path in vector "
     "space.", UNCHECKED, "An opinion.", ""),
    ("C003-01", "003 S1", "cost", "Self-attention is the heart of the Transformer.", UNCHECKED, "An opinion.", ""),
    ("C003-43", "003 S7", "cost", "Visualise attention heat maps to debug.", UNCHECKED, "Advice.", ""),
    ("C003-47", "003 S8", "cost", "Understand self-attention and you understand all "
     "LLMs.", UNCHECKED, "Rhetoric.", ""),
]
TOPICS = {
    "why": "Why attention, and the paper",
    "qkv": "Queries, keys and values",
    "scaling": "Scaling and softmax",
    "positions": "Positions and order",
    "heads": "Shapes and heads",
    "masks": "Masks",
    "code": "The seeds' code and its output",
    "debugging": "Debugging advice",
    "cost": "Cost and the big picture",
}
LINK_TITLES = {
    "why-attention.md": "Why attention", "tokens-to-vectors.md": "Tokens to vectors",
    "positional-encoding.md": "Positional encoding", "order-matters.md": "Order matters",
    "queries-keys-values.md": "Q, K, V", "softmax.md": "Softmax",
    "scaled-dot-product.md": "Scaled dot-product", "masks.md": "Masks",
    "weighted-sum.md": "Weighted sum", "multi-head.md": "Multi-head", "full-layer.md": "Full layer",
    "backward.md": "Backward pass", "kv-cache.md": "KV cache", "online-softmax.md": "Online softmax",
    "transformer-block.md": "Transformer block", "claims.md#the-papers-numbers": "the paper's numbers",
}
LINK_TITLES.update({f"debugging.md#{a}": "Debugging" for a in (
    "shape-errors", "one-hot-weights", "dead-head", "nan-overflow", "nan-masked-rows", "detach",
    "padding", "leaking-mask", "first-word", "w-o", "l1-penalty", "positions")})
# --8<-- [start:publish]
texts = {name: entry["text"] for name, entry in VALUES.items()}  # measured
verdicts, rows = {}, {topic: [] for topic in TOPICS}
for cid, source, topic, claim, verdict, evidence, see in CLAIMS:
    assert cid not in verdicts, f"{cid} listed twice"
    verdicts[cid] = verdict
    text = evidence.format(**texts)  # fill in the measured values
    if see:
        text += f" [→ {LINK_TITLES[see]}]({see})"
    rows[topic].append([cid, f"{claim} *({source})*", f"**{verdict}**", text])
header = ["ID", "Claim (source)", "Verdict", "Evidence"]
for topic, topic_rows in rows.items():
    table(f"claims_{topic}", header, topic_rows)

listed = list(verdicts.values())
counts = {
    "holds": listed.count(HOLDS),
    "only_when": sum(v.startswith("holds only when ") for v in listed),
    "fails": listed.count(FAILS),
    "unchecked": listed.count(UNCHECKED),
}
for name, count in counts.items():
    value(f"n_{name}", count)
value("n_claims", len(verdicts))
value("n_seed_claims", sum(cid.startswith("C") for cid in verdicts))
value("n_common_claims", sum(cid.startswith("G") for cid in verdicts))
value("verdicts", verdicts, f"{len(verdicts)} verdicts")
# --8<-- [end:publish]

kinds = [("holds", lambda v: v == HOLDS), ("holds only when ...", lambda v: v.startswith("holds only when")),
         ("does not hold", lambda v: v == FAILS), ("cannot be checked here", lambda v: v == UNCHECKED)]
fig, ax = plt.subplots(num="verdicts", figsize=(8, 4.2), layout="constrained")
left = np.zeros(len(TOPICS))
for (label, test), colour in zip(kinds, [COLORS[2], COLORS[5], COLORS[3], "#999999"]):
    counts_by_topic = np.array([sum(test(verdicts[r[0]]) for r in rows[t]) for t in TOPICS])
    ax.barh(list(TOPICS.values()), counts_by_topic, left=left, color=colour, label=label)
    left += counts_by_topic
ax.invert_yaxis()
ax.set_xlim(0, left.max() + 10)  # room for the legend
ax.set_xlabel("number of claims")
ax.legend(loc="lower right", frameon=False)
plt.show()
