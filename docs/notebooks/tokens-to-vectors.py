# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # From tokens to vectors
#
# The runnable companion of the chapter *From tokens to vectors*: every snippet of the chapter, in reading order. The first cells load the site's helper modules (`plotting.py`, `publish.py`, `running_example.py`) from their text, so this notebook runs anywhere with NumPy and matplotlib. The web page hides those cells; the downloaded notebook has them.

# %%
import sys
import types


def load_module(name, source):
    """Make `import name` work for a module given as text."""
    module = types.ModuleType(name)
    exec(compile(source, f"{name}.py", "exec"), module.__dict__)
    sys.modules[name] = module


# %% tags=["module-source"]
load_module("plotting", r'''"""The site's look for figures: one style, and one heatmap for attention weights.

Weights live in [0, 1], so every weights heatmap uses the same fixed colour scale
(vmin=0, vmax=1) and the colour-blind-safe sequential colormap viridis.
"""

import matplotlib.pyplot as plt
import numpy as np

# Okabe-Ito: a palette that stays distinct under the common colour-vision deficiencies.
COLORS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]

plt.rcParams.update(
    {
        "figure.figsize": (6.4, 4.0),
        "figure.facecolor": "white",
        "axes.facecolor": "white",
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": False,
        "axes.prop_cycle": plt.cycler(color=COLORS),
        "font.size": 10,
        "image.cmap": "viridis",
        "savefig.bbox": "tight",
    }
)


def weights_heatmap(ax, weights, queries, keys, annotate=True, title=None):
    """Draw attention weights (rows = queries, columns = keys) on a fixed 0-1 scale."""
    weights = np.asarray(weights)
    if weights.shape != (len(queries), len(keys)):
        raise ValueError(f"weights {weights.shape} do not match {len(queries)} queries x {len(keys)} keys")
    image = ax.imshow(weights, cmap="viridis", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(keys)), keys, rotation=45, ha="right")
    ax.set_yticks(range(len(queries)), queries)
    ax.set_xlabel("key (attended to)")
    ax.set_ylabel("query (attending)")
    ax.spines[:].set_visible(False)
    if title:
        ax.set_title(title)
    if annotate:
        for i, j in np.ndindex(weights.shape):
            colour = "black" if weights[i, j] > 0.6 else "white"  # readable on viridis' light and dark ends
            ax.text(j, i, f"{weights[i, j]:.2f}", ha="center", va="center", fontsize=7, color=colour)
    return image
''')

# %% tags=["module-source"]
load_module("publish", r'''"""Named values and tables that a snippet shares with the site's prose.

A snippet calls ``value("name", x)`` or ``table("name", header, rows)``. Run
alone, both just print. The site's build reads ``VALUES`` and ``TABLES`` after
the snippet ends: chapters quote a value as ``{{ snippet_name.value_name }}``
and include a table as a real Markdown table.
"""

import re

VALUES = {}
TABLES = {}

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


def _check_name(name):
    if not _NAME.match(name):
        raise ValueError(f"name {name!r} must be lower_snake_case (letters, digits, _)")


def _plain(x):
    """NumPy scalars and arrays -> plain Python numbers and lists (JSON-ready)."""
    return x.tolist() if hasattr(x, "tolist") else x


def value(name, x, fmt="{}"):
    """Publish ``x`` under ``name``; prose shows it formatted with ``fmt``. Returns ``x``.

    Publishing a name again replaces it, so a notebook cell can be run twice.
    """
    _check_name(name)
    text = fmt.format(x)
    VALUES[name] = {"value": _plain(x), "text": text}
    print(f"{name} = {text}")
    return x


def _cell(x, fmt):
    return fmt.format(x) if isinstance(x, float) or hasattr(x, "dtype") else str(x)


def table(name, header, rows, fmt="{:.4g}"):
    """Publish a table: ``header`` is a list of column titles, ``rows`` a list of lists.

    Numbers are formatted with ``fmt``; anything else is shown with ``str``.
    """
    _check_name(name)
    header = [str(h) for h in header]
    cells = [[_cell(x, fmt) for x in row] for row in rows]
    for row in cells:
        if len(row) != len(header):
            raise ValueError(f"table {name!r}: row {row} has {len(row)} cells, the header has {len(header)}")
    TABLES[name] = {"header": header, "rows": cells}
    widths = [max(len(r[i]) for r in [header, *cells]) for i in range(len(header))]
    for row in [header, ["-" * w for w in widths], *cells]:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths)))
''')

# %% tags=["module-source"]
load_module("running_example", r'''"""The running example: one sentence, followed through every chapter.

Tokens come from a tiny word-level tokenizer; vectors from a seeded random
embedding table, so every chapter sees the same numbers.
"""

import re

import numpy as np

SENTENCE = "The cat sat on the mat."
D_MODEL = 8


def tokenize(text):
    """Split into words and punctuation: "The cat sat." -> ["The", "cat", "sat", "."]."""
    return re.findall(r"\w+|[^\w\s]", text)


def build_vocab(tokens):
    """Map each distinct lower-cased token to an id, in sorted order."""
    return {word: i for i, word in enumerate(sorted({t.lower() for t in tokens}))}


def embedding_table(vocab_size, d_model=D_MODEL, seed=0):
    """(vocab_size, d_model) table with entries drawn from N(0, 1)."""
    return np.random.default_rng(seed).normal(size=(vocab_size, d_model))


def embed(tokens, d_model=D_MODEL, seed=0):
    """Look up each token's row: (L,) tokens -> (L, d_model) vectors."""
    vocab = build_vocab(tokens)
    table = embedding_table(len(vocab), d_model, seed)
    ids = np.array([vocab[t.lower()] for t in tokens])  # (L,)
    return table[ids]  # (L, d_model)


def projection_weights(d_model=D_MODEL, d_k=D_MODEL, seed=1):
    """W_q, W_k, W_v of shape (d_model, d_k), entries N(0, 1/d_model): unit-variance q, k, v."""
    rng = np.random.default_rng(seed)
    return tuple(rng.normal(scale=1 / np.sqrt(d_model), size=(d_model, d_k)) for _ in range(3))
''')

# %% [markdown]
# ## From text to vectors: tokenise, look up ids, look up rows of an embedding table.
#
# *From `snippets/tokens_embed.py`.*
#
# The running sentence is split into words and punctuation, each lower-cased word
# gets an id, and each id selects one row of a (vocabulary, d_model) table. The
# lookup is the same as multiplying a one-hot matrix by the table. "The" and "the"
# share an id, so they share a vector. The Transformer then multiplies the
# looked-up rows by sqrt(d_model) ("Attention Is All You Need", section 3.4).

# %%
import matplotlib.pyplot as plt
import numpy as np

from plotting import weights_heatmap
from publish import table, value
from running_example import D_MODEL, SENTENCE, build_vocab, embed, embedding_table
from running_example import tokenize

np.set_printoptions(precision=3, suppress=True)

tokens = tokenize(SENTENCE)  # 7 strings
vocab = build_vocab(tokens)  # {lower-cased word: id}
ids = np.array([vocab[t.lower()] for t in tokens])  # (L,)
emb_table = embedding_table(len(vocab), D_MODEL)  # (V, d_model): learned weights
x = emb_table[ids]  # (L, d_model): row ids[i] for token i

one_hot = np.eye(len(vocab))[ids]  # (L, V): a single 1 per row, in column ids[i]
x_matmul = one_hot @ emb_table  # (L, d_model): the same rows, by a matrix product

x_scaled = x * np.sqrt(D_MODEL)  # (L, d_model): section 3.4 of the paper

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
value("the_positions", f"{i_the} and {i_the2}")
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
