"""A leakage test: under a causal mask, changing future tokens must not change earlier outputs.

For every cut position t we replace all tokens after t with fresh random vectors
and compare the outputs at positions 0..t before and after. A correct causal
mask gives a difference of exactly 0.0. A transposed mask, an off-by-one mask
and no mask at all let the future leak into the past.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, scaled_dot_product_attention
from lib.plotting import COLORS
from lib.publish import table, value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()
n = len(tokens)


# --8<-- [start:leak]
def leakage(mask, x, seed=123):
    """Largest change of outputs 0..t when every token after t is replaced, for each cut t."""
    rng = np.random.default_rng(seed)
    output, _ = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask)  # (L, d_v)
    changes = []
    for t in range(len(x) - 1):
        x_new = x.copy()
        x_new[t + 1 :] = rng.normal(size=x_new[t + 1 :].shape)  # a different future
        output_new, _ = scaled_dot_product_attention(x_new @ w_q, x_new @ w_k, x_new @ w_v, mask)
        changes.append(np.max(np.abs(output_new[: t + 1] - output[: t + 1])))  # the past only
    return np.array(changes)  # (L - 1,)


masks = {
    "causal (correct)": causal_mask(n),
    "transposed": causal_mask(n).T,  # j >= i: the future instead of the past
    "off by one": np.tril(np.ones((n, n), dtype=bool), k=1),  # also sees the next token
    "no mask": None,
}
changes = {name: leakage(mask, x) for name, mask in masks.items()}
# --8<-- [end:leak]

table("leakage", ["mask", "max change of an earlier output", f"cuts that leak (of {n - 1})"],
      [[name, f"{c.max():.3g}", f"{int(np.sum(c > 0))}"] for name, c in changes.items()])
value("causal_max_change", changes["causal (correct)"].max(), "{:.1f}")
value("transposed_max_change", changes["transposed"].max(), "{:.2f}")
value("off_by_one_max_change", changes["off by one"].max(), "{:.2f}")
value("no_mask_max_change", changes["no mask"].max(), "{:.2f}")
value("n_cuts", n - 1)

fig, ax = plt.subplots(num="leakage", figsize=(6.6, 3.4))
cuts = np.arange(n - 1)
for offset, (name, colour) in zip([-0.3, -0.1, 0.1, 0.3], zip(changes, [COLORS[0], COLORS[3], COLORS[1], COLORS[4]])):
    ax.bar(cuts + offset, changes[name], width=0.2, color=colour, label=name)
ax.set_xticks(cuts, [f"after\n{tokens[t]!r}" for t in cuts])
ax.set_xlabel("tokens replaced: everything after this one")
ax.set_ylabel("max |change| of earlier outputs")
ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
plt.show()
