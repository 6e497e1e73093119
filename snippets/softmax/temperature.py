"""Temperature: softmax(z / T) slides from "all weight on the top key" to "uniform".

Dividing the scores by a temperature T before softmax keeps their order but
changes how decisive the weights are. Small T magnifies every gap between scores,
so the top key takes almost everything; large T shrinks the gaps, so the weights
approach 1/L. Scaling by 1/sqrt(d_k) in attention is exactly a temperature of
sqrt(d_k) applied to the raw dot products.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import attention_scores, softmax
from lib.plotting import COLORS
from lib.publish import table, value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

tokens = tokenize(SENTENCE)
x = embed(tokens)  # (L, d_model)
w_q, w_k, _ = projection_weights()
z = attention_scores(x @ w_q, x @ w_k)[1]  # (L,): the query "cat"

# --8<-- [start:temperature]
temperatures = np.logspace(-2, 2, 161)  # 0.01 ... 100
weights = softmax(z[None, :] / temperatures[:, None])  # (n_T, L): one row per temperature
# --8<-- [end:temperature]


def entropy_bits(p):
    """Shannon entropy of each row in bits; 0 * log 0 counts as 0."""
    logs = np.log2(np.where(p > 0, p, 1.0))
    return -np.sum(p * logs, axis=-1)


rows = []
for t in [0.01, 0.1, 1.0, 10.0, 100.0]:
    p = softmax(z / t)
    rows.append([f"{t:g}", tokens[int(np.argmax(p))], f"{np.max(p):.3f}", f"{entropy_bits(p):.2f}"])
table("temperatures", ["T", "top key", "its weight", "entropy (bits)"], rows)
value("temperature_top_key", tokens[int(np.argmax(z))])
value("top_weight_t001", np.max(softmax(z / 0.01)), "{:.3f}")
value("top_weight_t1", np.max(softmax(z)), "{:.3f}")
value("top_weight_t100", np.max(softmax(z / 100)), "{:.3f}")
value("uniform", 1 / len(tokens), "{:.3f}")
value("max_entropy", np.log2(len(tokens)), "{:.2f}")

fig, ax = plt.subplots(num="temperature", figsize=(7.0, 3.8))
colours = [COLORS[i] for i in (0, 1, 2, 3, 0, 4, 7)]  # "the" reuses the colour of "The": same score
styles = ["-", "-", "-", "-", (0, (3, 3)), "-", "-"]  # ... and is dashed, so both lines stay visible
for j, token in enumerate(tokens):
    ax.plot(temperatures, weights[:, j], color=colours[j], linestyle=styles[j], linewidth=1.8, label=token)
ax.axhline(1 / len(tokens), color="grey", linewidth=0.8, linestyle=":")
ax.text(110, 1 / len(tokens), "1/7", va="center", color="grey")
ax.axvline(1.0, color="grey", linewidth=0.8)
ax.text(1.05, 0.93, "T = 1", color="grey")
ax.set_xscale("log")
ax.set_ylim(0, 1)
ax.set_xlim(temperatures[0], temperatures[-1])
ax.set_xlabel("temperature T (log scale)")
ax.set_ylabel('weight of each key for query "cat"')
ax.legend(title="key", loc="upper left", bbox_to_anchor=(1.08, 1.0), frameon=False)
plt.show()
