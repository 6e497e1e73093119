"""From text to vectors: tokenise, look up ids, look up rows of an embedding table.

The running sentence is split into words and punctuation, each lower-cased word
gets an id, and each id selects one row of a (vocabulary, d_model) table. The
lookup is the same as multiplying a one-hot matrix by the table. "The" and "the"
share an id, so they share a vector. The Transformer then multiplies the
looked-up rows by sqrt(d_model) ("Attention Is All You Need", section 3.4).
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.plotting import weights_heatmap
from lib.publish import table, value
from lib.running_example import D_MODEL, SENTENCE, build_vocab, embed, embedding_table, tokenize

np.set_printoptions(precision=3, suppress=True)

# --8<-- [start:lookup]
tokens = tokenize(SENTENCE)  # 7 strings
vocab = build_vocab(tokens)  # {lower-cased word: id}
ids = np.array([vocab[t.lower()] for t in tokens])  # (L,)
emb_table = embedding_table(len(vocab), D_MODEL)  # (V, d_model): learned weights
x = emb_table[ids]  # (L, d_model): row ids[i] for token i
# --8<-- [end:lookup]

# --8<-- [start:onehot]
one_hot = np.eye(len(vocab))[ids]  # (L, V): a single 1 per row, in column ids[i]
x_matmul = one_hot @ emb_table  # (L, d_model): the same rows, by a matrix product
# --8<-- [end:onehot]

# --8<-- [start:scale]
x_scaled = x * np.sqrt(D_MODEL)  # (L, d_model): section 3.4 of the paper
# --8<-- [end:scale]

print("tokens:", tokens)
print("vocab: ", vocab)
print("ids:   ", ids)
print("x = emb_table[ids]:\n", x)
value("vocab_size", len(vocab))
value("n_tokens", len(tokens))
value("onehot_max_error", np.max(np.abs(x_matmul - x)), "{:g}")
value("onehot_macs", one_hot.size * D_MODEL)  # multiply-adds of one_hot @ table
value("lookup_copies", x.size)  # numbers copied by the lookup
i_the, i_the2 = tokens.index("The"), tokens.index("the")
value("the_position", i_the)
value("the_position_lowercase", i_the2)
value("the_same_id", bool(ids[i_the] == ids[i_the2]))
value("the_max_difference", np.max(np.abs(x[i_the] - x[i_the2])), "{:g}")
value("embed_max_error", np.max(np.abs(embed(tokens) - x)), "{:g}")
value("sqrt_d_model", np.sqrt(D_MODEL), "{:.3f}")
norms = np.linalg.norm(x, axis=-1)  # (L,)
norms_scaled = np.linalg.norm(x_scaled, axis=-1)  # (L,)
value("norm_mean", norms.mean(), "{:.2f}")
value("norm_scaled_mean", norms_scaled.mean(), "{:.2f}")

id_rows = [[i, t, t.lower(), int(j)] for i, (t, j) in enumerate(zip(tokens, ids))]
table("ids", ["position", "token", "lower-cased", "id"], id_rows)
table(
    "shapes",
    ["tensor", "shape", "meaning"],
    [
        ["tokens", f"({len(tokens)},)", "L strings"],
        ["ids", str(ids.shape), "L integers in [0, V)"],
        ["emb_table", str(emb_table.shape), "(V, d_model): one row per vocabulary entry"],
        ["one_hot", str(one_hot.shape), "(L, V): one 1 per row"],
        ["x = emb_table[ids]", str(x.shape), "(L, d_model): one row per token"],
        ["x * sqrt(d_model)", str(x_scaled.shape), "same shape, entries times sqrt(d_model)"],
    ],
)

words = sorted(vocab, key=vocab.get)  # column labels: vocabulary in id order
fig, (ax0, ax1) = plt.subplots(
    1, 2, num="lookup", figsize=(9.0, 3.6), width_ratios=[len(vocab), D_MODEL]
)
weights_heatmap(ax0, one_hot, tokens, words, annotate=False, title="one_hot (L, V)")
ax0.set_xlabel("vocabulary entry (id order)")
ax0.set_ylabel("token in the sentence")
limit = np.abs(x).max()
image = ax1.imshow(x, cmap="PuOr", vmin=-limit, vmax=limit)
ax1.set_yticks(range(len(tokens)), tokens)
ax1.set_xticks(range(D_MODEL))
ax1.set_xlabel("dimension of the vector")
ax1.set_title("x = one_hot @ emb_table")
ax1.spines[:].set_visible(False)
fig.colorbar(image, ax=ax1, label="entry value")
plt.show()
