"""Adding the encoding vs concatenating it: what the first projection sees.

Attention never uses its input directly; it first multiplies by W_q, W_k, W_v.
Concatenating [x, PE] and projecting with a (2 d_model, d_k) matrix equals
x @ W_top + PE @ W_bottom: two separate projections, added. Adding x + PE is the
special case W_top = W_bottom, at half the parameters and the same width.
Either way the scores split into four terms: content-content, content-position,
position-content and position-position.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib import plotting  # noqa: F401  (the site's figure style)
from lib.attention import attention_scores, sinusoidal_positions
from lib.publish import table, value
from lib.running_example import D_MODEL, SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
pe = sinusoidal_positions(len(tokens), D_MODEL)  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # (d_model, d_k) each

# --8<-- [start:concat]
rng = np.random.default_rng(3)
w_wide = rng.normal(scale=(2 * D_MODEL) ** -0.5, size=(2 * D_MODEL, D_MODEL))
x_cat = np.concatenate([x, pe], axis=-1)  # (L, 2 d_model)
q_concat = x_cat @ w_wide  # (L, d_k)
q_split = x @ w_wide[:D_MODEL] + pe @ w_wide[D_MODEL:]  # two projections, added
q_tied = x_cat @ np.vstack([w_q, w_q])  # W_top = W_bottom = W_q
q_added = (x + pe) @ w_q  # (L, d_k)
# --8<-- [end:concat]
value("concat_split_error", np.max(np.abs(q_concat - q_split)), "{:.1e}")
value("tied_add_error", np.max(np.abs(q_tied - q_added)), "{:.1e}")

# --8<-- [start:terms]
scores = attention_scores((x + pe) @ w_q, (x + pe) @ w_k)  # (L, L)
terms = {
    "content → content": attention_scores(x @ w_q, x @ w_k),
    "content → position": attention_scores(x @ w_q, pe @ w_k),
    "position → content": attention_scores(pe @ w_q, x @ w_k),
    "position → position": attention_scores(pe @ w_q, pe @ w_k),
}
four_term_error = np.max(np.abs(scores - sum(terms.values())))
# --8<-- [end:terms]
value("four_term_error", four_term_error, "{:.1e}")
for name, term in terms.items():
    print(f"{name:20s} mean |term| = {np.abs(term).mean():.3f}")


def n_params(d_in):
    """Entries of W_q, W_k and W_v, each of shape (d_in, d_k)."""
    return 3 * d_in * D_MODEL


table(
    "cost",
    ["input to the projections", "width", "parameters in W_q, W_k, W_v"],
    [["x + PE (added)", D_MODEL, n_params(D_MODEL)],
     ["[x, PE] (concatenated)", 2 * D_MODEL, n_params(2 * D_MODEL)]],
)

fig, axes = plt.subplots(2, 2, num="score-terms", figsize=(7.8, 7.2), layout="constrained")
limit = max(np.abs(t).max() for t in terms.values())
for number, (ax, (name, term)) in enumerate(zip(axes.ravel(), terms.items())):
    image = ax.imshow(term, cmap="PuOr", vmin=-limit, vmax=limit)
    ax.set_xticks(range(len(tokens)), tokens, rotation=45, ha="right")
    ax.set_yticks(range(len(tokens)), tokens)
    ax.set_title(name)
    ax.set_xlabel("key")
    if number % 2 == 0:  # left column only
        ax.set_ylabel("query")
    ax.spines[:].set_visible(False)
fig.colorbar(image, ax=axes, label="term of the scaled score", shrink=0.7)
plt.show()
