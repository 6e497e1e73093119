"""Cross-attention: queries from the decoder's sequence, keys and values from the encoder's output.

The same multi-head attention as self-attention, with two inputs instead of one: x (..., L_q, d_model) makes the
queries, memory (..., L_k, d_model) makes the keys and values, so the scores are (..., h, L_q, L_k), one row per
decoder position and one column per source position. A source padding mask (B, 1, L_k) hides the padded source
positions; there is no causal mask, because the whole source is known before the decoder starts.
"""

import numpy as np

from lib.attention import merge_heads, scaled_dot_product_attention, sinusoidal_positions, split_heads
from lib.running_example import D_MODEL, embedding_table


# --8<-- [start:source-cache]
def source_keys_values(memory, w_k, w_v, n_heads):
    """The encoder side of the cache: memory (..., L_k, d_model) -> k, v (..., h, L_k, d_head), computed once."""
    memory = np.asarray(memory, dtype=np.float64)
    k = split_heads(memory @ w_k, n_heads)  # (..., h, L_k, d_head)
    v = split_heads(memory @ w_v, n_heads)  # (..., h, L_k, d_head)
    return k, v
# --8<-- [end:source-cache]


# --8<-- [start:cross]
def cross_attention(x, memory_kv, w_q, w_o, n_heads, source_mask=None):
    """Multi-head cross-attention of x (..., L_q, d_model) over the source's keys and values.

    memory_kv: (k, v) from ``source_keys_values``, each (..., h, L_k, d_head). source_mask: boolean, True = may
    attend, broadcastable to (..., L_q, L_k), e.g. ``padding_mask(lengths, L_k)`` of shape (B, 1, L_k).
    Returns output (..., L_q, d_model) and weights (..., h, L_q, L_k).
    """
    x = np.asarray(x, dtype=np.float64)
    k, v = memory_kv
    if x.ndim < 2 or x.shape[-1] != w_q.shape[0]:
        raise ValueError(f"x must be (..., L_q, d_model) with d_model = {w_q.shape[0]}, got shape {x.shape}")
    if k.shape[-3] != n_heads:
        raise ValueError(f"the source keys have {k.shape[-3]} heads (shape {k.shape}), the layer {n_heads}")
    q = split_heads(x @ w_q, n_heads)  # (..., h, L_q, d_head)
    if source_mask is not None:
        source_mask = np.asarray(source_mask)
        if source_mask.ndim < 2:
            raise ValueError(f"source_mask must be (..., L_q or 1, L_k), got shape {source_mask.shape}")
        source_mask = source_mask[..., None, :, :]  # (..., 1, L_q or 1, L_k): the same for every head
    heads, weights = scaled_dot_product_attention(q, k, v, source_mask)  # (..., h, L_q, d_head), (..., h, L_q, L_k)
    return merge_heads(heads) @ w_o, weights  # (..., L_q, d_model), (..., h, L_q, L_k)
# --8<-- [end:cross]


def running_translation(sources, targets, seed=11):
    """The chapter's running example around its sentence pairs (lists of words): a function embed(sentences, length)
    -> (x (B, length, d_model): embeddings of their vocabulary, "<pad>" included, plus sinusoidal positions; the
    sentences padded to length), and untrained random weights, each (4, d_model, d_model) = W_q, W_k, W_v, W_o, of
    the encoder's self-attention, the decoder's self-attention and the cross-attention."""
    vocab = {w: i for i, w in enumerate(sorted({w for s in sources + targets for w in s} | {"<pad>"}))}
    table = embedding_table(len(vocab))  # (V, d_model)
    rng = np.random.default_rng(seed)
    enc_w, dec_w, cross_w = (rng.normal(scale=D_MODEL**-0.5, size=(4, D_MODEL, D_MODEL)) for _ in range(3))

    def embed(sentences, length):
        padded = [s + ["<pad>"] * (length - len(s)) for s in sentences]
        ids = np.array([[vocab[w] for w in s] for s in padded])  # (B, L)
        return table[ids] + sinusoidal_positions(length, D_MODEL), padded  # (B, L, d_model)

    return embed, enc_w, dec_w, cross_w
