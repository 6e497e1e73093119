"""The running example: one sentence, followed through every chapter.

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


def output_weights(d_model=D_MODEL, seed=2):
    """W_o of shape (d_model, d_model), entries N(0, 1/d_model): the multi-head chapter's output mix."""
    return np.random.default_rng(seed).normal(scale=1 / np.sqrt(d_model), size=(d_model, d_model))


def running_qkv(d_model=D_MODEL, seed=1):
    """The running sentence's tokens and its queries, keys and values: (L,) tokens, three (L, d_k) arrays."""
    tokens = tokenize(SENTENCE)
    x = embed(tokens, d_model)  # (L, d_model)
    w_q, w_k, w_v = projection_weights(d_model, d_model, seed)
    return tokens, x @ w_q, x @ w_k, x @ w_v  # each (L, d_k)


def padded_batch(d_model=D_MODEL):
    """The masks chapter's batch of two: the running sentence (a), and "The cat sat." (b) padded to the same
    length with zero vectors. Returns the two token lists, their real lengths and x of shape (2, L, d_model)."""
    tokens_a = tokenize(SENTENCE)
    x_a = embed(tokens_a, d_model)  # (L, d_model)
    keep = [0, 1, 2, len(tokens_a) - 1]  # "The cat sat ."
    n_pad = len(tokens_a) - len(keep)
    tokens_b = [tokens_a[i] for i in keep] + ["<pad>"] * n_pad
    x_b = np.vstack([x_a[keep], np.zeros((n_pad, d_model))])  # (L, d_model): same vectors, zero padding
    return [tokens_a, tokens_b], [len(tokens_a), len(keep)], np.stack([x_a, x_b])  # x (2, L, d_model)
