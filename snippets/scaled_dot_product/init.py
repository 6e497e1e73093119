"""Initialisation matters as much as the scale: three ways to draw W_q and W_k.

Dividing by sqrt(d_k) gives scores of variance 1 only if q and k have
unit-variance components. With q = x @ W_q, x of unit variance and W_q drawn
with standard deviation sigma_W, each component of q has variance
d_model * sigma_W^2, so the scaled scores have standard deviation
d_model * sigma_W^2. Three initialisations, measured:

- N(0, 1), as in seed 000: scores far too large, weights one-hot;
- 0.01 * N(0, 1), as in seed 003: scores near 0, weights uniform;
- N(0, 1/d_model): unit-variance q and k, the case the sqrt(d_k) was made for.

The same random draws are rescaled for each init, so the init is the only
difference. Besides the weights we measure how much gradient reaches W_q for a
fixed random upstream gradient dL/d(output). First on the running sentence,
then over random sentences at seed 000's sizes, then over a sweep of sigma_W.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import scaled_dot_product_attention_backward, softmax
from lib.plotting import COLORS, weights_heatmap
from lib.publish import table, value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

rng = np.random.default_rng(128)


def entropy(p):
    """Entropy in nats of each row of p, with 0 log 0 = 0."""
    return -np.sum(p * np.log(np.where(p > 0, p, 1.0)), axis=-1)  # (...,)


def jacobian_norm(p):
    """Frobenius norm of the softmax Jacobian diag(p) - p p^T, per row."""
    eye = np.eye(p.shape[-1])  # (L, L)
    jacobian = p[..., :, None] * eye - p[..., :, None] * p[..., None, :]  # (..., L, L)
    return np.linalg.norm(jacobian, axis=(-2, -1))  # (...,)


# --8<-- [start:attend]
def attend(x, z, sigma_w, d_output):
    """Scaled scores, weights and dL/dW_q for W_q, W_k, W_v = sigma_w * z.

    z holds three arrays of iid N(0, 1) draws; d_output is dL/d(output).
    """
    q, k, v = (sigma_w * (x @ z_i) for z_i in z)  # each (..., L, d_k)
    d_k = q.shape[-1]
    scaled = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)  # (..., L, L)
    weights = softmax(scaled, axis=-1)  # (..., L, L)
    d_q, _, _ = scaled_dot_product_attention_backward(d_output, q, k, v)
    d_w_q = np.swapaxes(x, -1, -2) @ d_q  # (..., d_model, d_k): x^T dL/dq
    return scaled, weights, d_w_q


INITS = {  # name -> sigma_W as a function of d_model
    "N(0, 1)  [seed 000]": lambda d_model: 1.0,
    "0.01·N(0, 1)  [seed 003]": lambda d_model: 0.01,
    "N(0, 1/d_model)": lambda d_model: 1 / np.sqrt(d_model),
}
# --8<-- [end:attend]

# The running sentence, with the N(0, 1) draws behind running_example.projection_weights().
tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model) = (7, 8)
d_model = x.shape[-1]
draws = np.random.default_rng(1)
z = [draws.standard_normal((d_model, d_model)) for _ in range(3)]  # z_q, z_k, z_v, each (d_model, d_k)
assert all(np.allclose(z_i / np.sqrt(d_model), w) for z_i, w in zip(z, projection_weights()))  # same W as elsewhere
d_output = rng.standard_normal((len(tokens), d_model))  # (L, d_v): a fixed upstream gradient

# Random sentences at seed 000's sizes: x ~ N(0, 1), fresh W draws per sentence.
B, L, D_MODEL, D_K = 500, 6, 128, 64
x_random = rng.standard_normal((B, L, D_MODEL))  # (B, L, d_model)
z_random = [rng.standard_normal((B, D_MODEL, D_K)) for _ in range(3)]  # each (B, d_model, d_k)
d_output_random = rng.standard_normal((B, L, D_K))  # (B, L, d_v)
DEAD = 1e-6  # a gradient below this is numerically nothing (the healthy init's are around 100)


def sig3(x):
    """Three significant digits, trailing zeros kept: 1.00, 82.0, 0.0128, 1,581."""
    if abs(x) >= 999.5:
        return f"{x:,.0f}"
    rounded = float(f"{x:.3g}")  # 0.99999 -> 1.0, so it gets two decimals
    if abs(rounded) >= 1:
        return f"{x:.{2 - int(np.floor(np.log10(abs(rounded))))}f}"
    return f"{x:.3g}"


names = {"N(0, 1)  [seed 000]": "std1", "0.01·N(0, 1)  [seed 003]": "small", "N(0, 1/d_model)": "xavier"}
heatmaps, gradient_rows, medians = {}, [], {}
for setting, (xs, zs, d_out) in {"sentence": (x, z, d_output), "random": (x_random, z_random, d_output_random)}.items():
    n, rows = xs.shape[-1], []
    for init, sigma_of in INITS.items():
        sigma_w = sigma_of(n)
        scaled, weights, d_w_q = attend(xs, zs, sigma_w, d_out)
        top, spread = weights.max(axis=-1).mean(), scaled.std()
        label = init.replace("  [", ", ").rstrip("]")  # "N(0, 1), seed 000"
        rows.append([label, sig3(sigma_w), sig3(n * sigma_w**2), sig3(spread), f"{top:.3f}",
                     f"{entropy(weights).mean():.3f}"])
        tag = f"{names[init]}_{setting}"
        value(f"score_std_{tag}", spread, sig3(spread))
        value(f"max_weight_{tag}", top, "{:.3f}")
        value(f"entropy_{tag}", entropy(weights).mean(), "{:.3f}")
        if setting == "sentence":
            heatmaps[init] = (scaled, weights)
        else:
            j_rows = jacobian_norm(weights).ravel()  # (B * L,): one per query row
            g = np.linalg.norm(d_w_q, axis=(-2, -1))  # (B,): one per sentence
            medians[init] = np.median(g)
            gradient_rows.append([label, f"{np.median(j_rows):.3g}", f"{np.mean(j_rows < DEAD):.0%}",
                                  sig3(np.median(g)), sig3(np.quantile(g, 0.9)), f"{np.mean(g < DEAD):.0%}"])
            value(f"median_jacobian_{tag}", np.median(j_rows), "{:.3g}")
            value(f"dead_rows_{tag}", np.mean(j_rows < DEAD), "{:.0%}")
            value(f"grad_median_{tag}", np.median(g), "{:.3g}")
            value(f"grad_p90_{tag}", np.quantile(g, 0.9), sig3(np.quantile(g, 0.9)))
            value(f"dead_sentences_{tag}", np.mean(g < DEAD), "{:.0%}")
            value(f"dead_sentence_count_{tag}", int(np.sum(g < DEAD)), "{:,}")
    table(f"init_{setting}", ["W drawn from", "σ_W", "predicted std", "measured std", "largest weight",
                              "entropy (nats)"], rows)
table("init_gradient", ["W drawn from", "median row ‖J‖_F", "saturated rows", "median ‖∂L/∂W_q‖_F",
                        "90th percentile", "no-gradient sentences"], gradient_rows)
value("grad_ratio_xavier_to_small", medians["N(0, 1/d_model)"] / medians["0.01·N(0, 1)  [seed 003]"], "{:.0f}")
value("sigma_ratio_squared", (1 / np.sqrt(D_MODEL) / 0.01) ** 2, "{:.0f}")
value("random_sentences", f"{B:,}")
value("random_uniform_weight", 1 / L, "{:.3f}")
value("random_uniform_entropy", np.log(L), "{:.3f}")
value("ratio_std1_to_xavier_sentence", heatmaps["N(0, 1)  [seed 000]"][0].std() / heatmaps["N(0, 1/d_model)"][0].std(),
      "{:.1f}")

fig, axes = plt.subplots(1, 3, num="weights-by-init", figsize=(9, 3.6))
for ax, (init, (scaled, weights)) in zip(axes, heatmaps.items()):
    title = f"W ~ {init.split('  ')[0]}\nscore std {scaled.std():.2g}"
    weights_heatmap(ax, weights, tokens, tokens, annotate=False, title=title)  # too small to label cells
for ax in axes[1:]:
    ax.set_ylabel("")
fig.colorbar(axes[0].images[0], ax=axes, label="attention weight", shrink=0.8, pad=0.02)

# --8<-- [start:sweep]
sigmas = np.geomspace(1e-3, 2.0, 34)  # from far too small to far too large
sweep = []  # per sigma_W: mean largest weight, median |J|_F, 3 quantiles
for sigma_w in sigmas:
    _, weights, d_w_q = attend(x_random, z_random, sigma_w, d_output_random)
    g = np.linalg.norm(d_w_q, axis=(-2, -1))  # (B,): one per sentence
    sweep.append((weights.max(axis=-1).mean(),
                  np.median(jacobian_norm(weights)),
                  *np.quantile(g, [0.1, 0.5, 0.9])))
sweep = np.array(sweep)  # (34, 5)
# --8<-- [end:sweep]
value("xavier_sigma_random", 1 / np.sqrt(D_MODEL), "{:.3f}")

fig, axes = plt.subplots(1, 3, num="init-sweep", figsize=(9.5, 3.5))
uniform = np.full(L, 1 / L)
panels = [  # title, column of sweep, reference lines, log-scale limits
    ("largest weight (mean)", 0, [(1 / L, f"uniform 1/{L}"), (1.0, "one-hot")], None),
    (r"Jacobian norm $\|J\|_F$ (median row)", 1, [(jacobian_norm(uniform), "uniform")], (1e-6, 3)),
    (r"$\|\partial L/\partial W_q\|_F$ (median, 10-90%)", 3, [], (1e-4, 1e4)),
]
for ax, (title, column, references, log_limits) in zip(axes, panels):
    ax.plot(sigmas, sweep[:, column], color="black", lw=1.5)
    if column == 3:  # the spread over sentences: 10th to 90th percentile
        ax.fill_between(sigmas, np.maximum(sweep[:, 2], 1e-300), sweep[:, 4], color="grey", alpha=0.3, lw=0)
    for level, text in references:
        ax.axhline(level, color="grey", lw=0.8, ls=":")
        ax.annotate(text, (sigmas[0], level), xytext=(2, 3), textcoords="offset points", fontsize=8.5,
                    color="dimgrey")
    for (init, sigma_of), colour in zip(INITS.items(), (COLORS[3], COLORS[2], COLORS[0])):
        ax.axvline(sigma_of(D_MODEL), color=colour, lw=1.5, ls="--", label=init.replace("  ", " "))
    ax.set_xscale("log")
    if log_limits:  # below these the curves only keep falling (to 1e-50 and less)
        ax.set_yscale("log")
        ax.set_ylim(*log_limits)
    ax.set_xticks([1e-3, 1e-2, 1e-1, 1])
    ax.set_xlabel(r"$\sigma_W$")
    ax.set_title(title, fontsize=10)
handles, labels = axes[0].get_legend_handles_labels()
fig.legend(handles, labels, loc="lower center", ncol=3, frameon=False, fontsize=9)
fig.tight_layout(rect=(0, 0.07, 1, 1))
plt.show()
