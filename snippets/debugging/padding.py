"""A model that attends to padding: the symptom, a diagnostic, the padding mask.

Batching pads the short sentence with [PAD] tokens. Without a padding mask, its
real tokens spend weight on those pads, so their outputs depend on how much
padding the batch happened to need. Zero vectors for [PAD] do not help: a zero
key still gets score 0, and exp(0) = 1 is not 0.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import padding_mask, scaled_dot_product_attention
from lib.debug_tools import padding_weight
from lib.plotting import weights_heatmap
from lib.publish import value
from lib.running_example import build_vocab, embedding_table, projection_weights, tokenize

sentences = ["The cat sat on the mat.", "The cat sat."]
token_lists = [tokenize(s) for s in sentences]  # 7 and 4 tokens
vocab = build_vocab([t for tokens in token_lists for t in tokens])
table = embedding_table(len(vocab))  # (vocab, 8)
w_q, w_k, w_v = projection_weights()  # each (8, 8)


def batch(token_lists, n):
    """Stack sentences into (B, n, d_model), padding with zero vectors."""
    x = np.zeros((len(token_lists), n, table.shape[1]))  # (B, n, 8)
    for b, tokens in enumerate(token_lists):
        x[b, : len(tokens)] = table[[vocab[t.lower()] for t in tokens]]
    return x


def attend(x, mask=None):
    """Single-head self-attention: (B, n, 8) -> output (B, n, 8), weights (B, n, n)."""
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask)


# --8<-- [start:symptom]
lengths = np.array([len(t) for t in token_lists])  # [7, 4]
x = batch(token_lists, 7)  # (2, 7, 8)
alone, _ = attend(batch(token_lists[1:], 4))  # "The cat sat." with no padding
results = {}
for name, mask in (("no_mask", None),
                   ("padding_mask", padding_mask(lengths, 7))):
    output, weights = attend(x, mask)
    drift = np.abs(output[1, :4] - alone[0]).max()  # sentence 2's real tokens
    results[name] = (padding_weight(weights, lengths), drift)
    print(f"{name:13s} weight on [PAD] {results[name][0]:.3f}   "
          f"output change vs unpadded {drift:.1e}")
# --8<-- [end:symptom]
for name, (pad_weight, drift) in results.items():
    value(f"{name}_pad_weight", pad_weight, "{:.3f}")
    value(f"{name}_drift", drift, "{:.1e}")

# --8<-- [start:invariance]
# the diagnostic: a real token must not care how much padding the batch needed
masks = {
    "no_mask": lambda n: None,
    "padding_mask": lambda n: padding_mask(lengths, n),
}
changes = {}
for name, make_mask in masks.items():
    outs = [  # "The cat sat." padded to 7, then to 10
        attend(batch(token_lists, n), make_mask(n))[0][1, :4] for n in (7, 10)
    ]
    changes[name] = np.abs(outs[0] - outs[1]).max()
    print(f"{name:13s} pad to 7 vs pad to 10: max change {changes[name]:.1e}")
# --8<-- [end:invariance]
for name, change in changes.items():
    value(f"{name}_invariance", change, "{:.1e}")

labels = token_lists[1] + ["[PAD]"] * 3
panels = (("no padding mask", None), ("with padding_mask", padding_mask(lengths, 7)))
fig, axes = plt.subplots(1, 2, num="padding", figsize=(8.5, 4.3), layout="constrained")
for ax, (title, mask) in zip(axes, panels):
    weights = attend(x, mask)[1][1]  # (7, 7) for "The cat sat." + 3 pads
    image = weights_heatmap(ax, weights, labels, labels, title=f'"The cat sat.", {title}')
fig.colorbar(image, ax=axes, label="weight", shrink=0.8)
plt.show()
