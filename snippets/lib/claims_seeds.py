"""The two seed tutorials' code, reconstructed so that we can run it.

The stored seed texts lost their operators (= + @ < > and quotes) and seed 003
lost its spaces too; these are the reconstructions used by the claims audit.
One deliberate change: the seeds call np.random.seed(...) and np.random.randn;
here a Generator is passed in, so every draw is explicit and reproducible.
"""

import numpy as np

from lib.debug_tools import max_subtract_softmax

# Seed 000, section 4.1, as text: the audit counts its statements and runs it.
SEED_000_CODE = """
def manual_self_attention(sentence, rng, d_model=128, h=2, d_k=None):
    # one self-attention layer by hand; returns the weights and the output
    if d_k is None:
        d_k = d_model // h
    # 1. word vectors: random stand-ins, one per position
    X = rng.standard_normal((len(sentence), d_model))  # (6, 128)
    # 2. positional encoding (simplified sinusoid)
    pos_enc = np.zeros((len(sentence), d_model))
    for i in range(len(sentence)):
        for j in range(0, d_model, 2):
            pos_enc[i, j] = np.sin(i / (10000 ** (j / d_model)))
            if j + 1 < d_model:
                pos_enc[i, j + 1] = np.cos(i / (10000 ** (j / d_model)))
    X = X + pos_enc  # (6, 128)
    # 3. Q/K/V projections: one W for all heads, output split
    W_q = rng.standard_normal((d_model, d_k * h))  # (128, 128)
    W_k = rng.standard_normal((d_model, d_k * h))  # (128, 128)
    W_v = rng.standard_normal((d_model, d_k * h))  # (128, 128)
    # 4. Q/K/V split into h heads
    Q_all = (X @ W_q).reshape(len(sentence), h, d_k).transpose(1, 0, 2)  # (2, 6, 64)
    K_all = (X @ W_k).reshape(len(sentence), h, d_k).transpose(1, 0, 2)  # (2, 6, 64)
    V_all = (X @ W_v).reshape(len(sentence), h, d_k).transpose(1, 0, 2)  # (2, 6, 64)
    # 5. one head (head 0)
    Q, K, V = Q_all[0], K_all[0], V_all[0]  # (6, 64) each
    # 6. scaled dot product + softmax
    scores = (Q @ K.T) / np.sqrt(d_k)  # (6, 6)
    # causal mask (decoder)
    mask = np.triu(np.ones((6, 6)), k=1)
    scores = scores - 1e9 * mask
    attn_weights = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)  # (6, 6)
    # 7. weighted sum
    output = attn_weights @ V  # (6, 64)
    return attn_weights, output
"""
exec(SEED_000_CODE)  # defines manual_self_attention in this module


def seed000_heads(n_tokens, rng, d_model=128, h=2, w_std=1.0):
    """Seed 000's X + PE and its per-head Q, K, V, with W drawn at std w_std.

    Returns X (n, d_model) and Q, K, V of shape (h, n, d_model // h). The draws
    come in the seed's order (X, then W_q, W_k, W_v), so w_std=1 is the seed's code.
    """
    d_k = d_model // h
    x = rng.standard_normal((n_tokens, d_model))  # (n, 128)
    i = np.arange(n_tokens)[:, None]  # (n, 1)
    j = np.arange(0, d_model, 2)[None, :]  # (1, 64)
    pos_enc = np.zeros((n_tokens, d_model))
    pos_enc[:, 0::2] = np.sin(i / 10000 ** (j / d_model))
    pos_enc[:, 1::2] = np.cos(i / 10000 ** (j / d_model))
    x = x + pos_enc  # (n, 128)
    heads = []
    for _ in range(3):  # W_q, W_k, W_v
        w = rng.standard_normal((d_model, d_k * h)) * w_std  # (128, 128)
        heads.append((x @ w).reshape(n_tokens, h, d_k).transpose(1, 0, 2))  # (h, n, 64)
    return x, *heads


class SelfAttention:
    """Seed 003's SelfAttention class (section "code examples", example 1)."""

    def __init__(self, d_model, rng):
        self.d_model = d_model
        # "initialise Q/K/V projections with small random numbers"
        self.W_q = rng.standard_normal((d_model, d_model)) * 0.01
        self.W_k = rng.standard_normal((d_model, d_model)) * 0.01
        self.W_v = rng.standard_normal((d_model, d_model)) * 0.01

    def attention(self, Q, K, V):
        dk = K.shape[-1]
        scores = np.matmul(Q, K.transpose(0, 2, 1))  # needs (batch, seq, d)
        scores = scores / np.sqrt(dk)
        weights = max_subtract_softmax(scores)  # seed 003's softmax
        output = np.matmul(weights, V)
        return output, weights

    def forward(self, x):
        Q = np.matmul(x, self.W_q)
        K = np.matmul(x, self.W_k)
        V = np.matmul(x, self.W_v)
        output, weights = self.attention(Q, K, V)
        return output, weights
