"""The exercises of "From tokens to vectors": their answers, and the results of the usual mistakes, made in code.

The words a list of ids stands for in the running sentence's vocabulary; then a new sentence made of its words,
"The cat sat on the mat on the mat.", looked up in the same vocabulary and embedding table: the shape of its
one-hot matrix, the multiply-adds of the one-hot product, and how many different rows its vectors hold. A fifth
question scales the running sentence's "cat" row by sqrt(d_model). Each usual mistake is made in code and its
result published beside the answer (lib.exercises).
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.exercises import exercise
from lib.publish import value
from lib.running_example import D_MODEL, SENTENCE, build_vocab, embedding_table, tokenize

tokens = tokenize(SENTENCE)
vocab = build_vocab(tokens)  # {lower-cased word: id}, the ids table of the page
emb_table = embedding_table(len(vocab), D_MODEL)  # (V, d_model)

new_sentence = value("new_sentence", "The cat sat on the mat on the mat.")
new_tokens = tokenize(new_sentence)
value("new_tokens", len(new_tokens))
new_ids = np.array([vocab[t.lower()] for t in new_tokens])  # (L,)
one_hot = np.eye(len(vocab))[new_ids]  # (L, V)
x = emb_table[new_ids]  # (L, d_model)

# Exercise 1: the words of a list of ids, read back through the vocabulary.
ids_asked = value("ids_asked", [5, 2, 4, 3, 5, 1])
words = sorted(vocab, key=vocab.get)  # words[id]: the vocabulary in id order
first_seen = list(dict.fromkeys(t.lower() for t in tokens))  # the words in order of appearance
exercise(
    "words_of_ids",
    [words[i] for i in ids_asked],
    mistakes={
        "order_of_appearance": [first_seen[i] for i in ids_asked],  # ids taken as order of appearance, not sorted
        "counted_from_one": [words[i - 1] for i in ids_asked],  # ids taken as starting at 1
    },
)

# Exercise 2: the shape of its one-hot matrix.
exercise(
    "one_hot_shape",
    one_hot.shape,
    mistakes={
        "transposed": one_hot.T.shape,  # vocabulary entries down, tokens across
        "vectors_shape": x.shape,  # the looked-up vectors, not the one-hot matrix
    },
)

# Exercise 3: multiply-adds of one_hot @ emb_table.
exercise(
    "one_hot_macs",
    one_hot.size * D_MODEL,  # every entry of one_hot meets d_model table entries
    mistakes={
        "lookup_copies": x.size,  # the numbers the lookup copies, not the product's work
        "left_out_d_model": one_hot.size,  # one multiply-add per one-hot entry
    },
)

# Exercise 4: how many different rows x holds.
cased = {w: i for i, w in enumerate(sorted(set(new_tokens)))}  # a vocabulary that keeps case
cased_rows = embedding_table(len(cased), D_MODEL)[[cased[t] for t in new_tokens]]  # (L, d_model)
exercise(
    "distinct_rows",
    len(np.unique(x, axis=0)),
    mistakes={
        "counted_tokens": len(x),  # one row per token, repeated words included
        "kept_case": len(np.unique(cased_rows, axis=0)),  # "The" and "the" as two ids
    },
)

# Exercise 5: the norm of the running sentence's "cat" row after the scaling of section 3.4.
cat = emb_table[vocab["cat"]]  # (d_model,)
value("cat_norm", np.linalg.norm(cat), "{:.4f}")  # four decimals: rounded to two, x sqrt(8) leaves the answer's window
value("d_model", D_MODEL)
value("sqrt_d_model", np.sqrt(D_MODEL), "{:.4f}")
exercise(
    "cat_scaled_norm",
    np.linalg.norm(cat * np.sqrt(D_MODEL)),
    "{:.2f}",
    mistakes={
        "unscaled": np.linalg.norm(cat),  # the row as looked up
        "scaled_by_d_model": np.linalg.norm(cat * D_MODEL),  # d_model, not its square root
        "divided": np.linalg.norm(cat / np.sqrt(D_MODEL)),  # divided instead of multiplied
    },
)
