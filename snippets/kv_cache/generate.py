"""Generate tokens one at a time, with and without a KV cache, and compare with full causal attention.

A toy decoder: one causal multi-head attention layer with untrained (random)
weights, tied input and output embeddings over the running example's six
words, greedy choice of the next word. The words it picks mean nothing (nothing
was trained); what matters is that the cached loop, the loop that recomputes
everything, and one call of full causal attention on the finished sequence
agree.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, multi_head_attention, sinusoidal_positions
from lib.kv_decoder import KVCache, step_with_cache, step_without_cache
from lib.plotting import weights_heatmap
from lib.publish import value
from lib.running_example import D_MODEL, SENTENCE, build_vocab, embedding_table, tokenize

np.set_printoptions(precision=3, suppress=True)

vocab = build_vocab(tokenize(SENTENCE))  # {".": 0, "cat": 1, "mat": 2, "on": 3, "sat": 4, "the": 5}
words = sorted(vocab, key=vocab.get)
table = embedding_table(len(vocab))  # (V, d_model), also used as the output layer
n_heads, max_len = 2, 12
rng = np.random.default_rng(6)
w_q, w_k, w_v, w_o = rng.normal(scale=1 / np.sqrt(D_MODEL), size=(4, D_MODEL, D_MODEL))  # each (d_model, d_model)
positions = sinusoidal_positions(max_len, D_MODEL)  # (max_len, d_model)
prompt = ["the", "cat"]


def embed_at(word, t):
    return table[vocab[word]] + positions[t]  # (d_model,)


# --8<-- [start:generate]
def generate(use_cache):
    tokens = list(prompt)
    x = np.stack([embed_at(w, t) for t, w in enumerate(tokens)])  # (len(prompt), d_model)
    cache = KVCache(n_heads, D_MODEL // n_heads, max_len)
    outputs, weights = [], []
    for t in range(max_len):
        if use_cache:
            out_t, w_t = step_with_cache(x[t : t + 1], cache, w_q, w_k, w_v, w_o, n_heads)  # (1, d)
        else:
            out_t, w_t = step_without_cache(x[: t + 1], w_q, w_k, w_v, w_o, n_heads)  # (1, d)
        outputs.append(out_t[0])
        weights.append(w_t[:, 0])  # (h, t + 1)
        if t + 1 == len(tokens) and len(tokens) < max_len:  # past the prompt: choose the next word
            logits = out_t[0] @ table.T  # (V,)
            tokens.append(words[int(np.argmax(logits))])
            x = np.vstack([x, embed_at(tokens[-1], t + 1)])  # (t + 2, d_model)
    return tokens, x, np.stack(outputs), weights, cache
# --8<-- [end:generate]


tokens, x, out_cached, w_cached, cache = generate(use_cache=True)
tokens_recomputed, _, out_recomputed, _, _ = generate(use_cache=False)
out_full, w_full = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, mask=causal_mask(len(tokens)))  # (L, d_model)

print("generated (cache):    ", " ".join(tokens))
print("generated (no cache): ", " ".join(tokens_recomputed))
print("cache keys:", cache.k.shape, "filled:", cache.length)
value("same_tokens", tokens == tokens_recomputed, zh="是" if tokens == tokens_recomputed else "否")
value("max_error_vs_full", np.max(np.abs(out_cached - out_full)), "{:.1e}")
value("max_error_vs_recompute", np.max(np.abs(out_cached - out_recomputed)), "{:.1e}")
steps_as_rows = np.zeros((n_heads, max_len, max_len))  # (h, L, L): step t's weights in row t
for t, w_t in enumerate(w_cached):
    steps_as_rows[:, t, : t + 1] = w_t
value("max_weight_error", np.max(np.abs(steps_as_rows - w_full)), "{:.1e}")
value("n_tokens", len(tokens))
value("n_heads", n_heads)
value("vocab_size", len(vocab))
value("prompt", " ".join(prompt))
value("generated", " ".join(tokens))

fig, axes = plt.subplots(1, 2, num="weights", figsize=(10, 4.6), layout="constrained")
weights_heatmap(axes[0], steps_as_rows[0], tokens, tokens, title="head 1, one row per cached step")
weights_heatmap(axes[1], w_full[0], tokens, tokens, title="head 1, full causal attention")
fig.colorbar(axes[1].images[0], ax=axes, label="weight", shrink=0.8)
plt.show()
