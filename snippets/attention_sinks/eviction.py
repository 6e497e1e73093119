"""Evicting the sink: the trained softmax model decoding with a rolling KV cache, with and without the first
token kept (StreamingLLM's fix).

The cache holds ``WINDOW`` keys. Without sinks it keeps the last WINDOW positions, so from position WINDOW on
the first token is gone; with one sink it keeps position 0 and the last WINDOW - 1. Measured per seed on the fixed
batch: the loss and accuracy of the queries with nothing to read, and of the reading queries whose signal is still
in the cache (both caches hold it), against the full causal model.
"""
# Build time limit: 120 s

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import softmax
from lib.publish import table, value
from lib.sink_model import CONFIG, evaluation_batch, forward, train, vocabulary, window_mask
from lib.window_cache import decode_in_chunks

SEEDS = (0, 1, 2)
WINDOW = 4
tokens, targets, kind = evaluation_batch()
length = tokens.shape[1]
signals, _, _ = vocabulary()
signal_at = np.where(np.isin(tokens, signals).any(axis=1), np.argmax(np.isin(tokens, signals), axis=1), -1)  # (B,)
position = np.arange(length)[None, :]  # (1, L)
in_cache = position - signal_at[:, None] < WINDOW - 1  # (B, L): the signal is among the last WINDOW - 1 positions
late = position >= WINDOW  # (B, L): queries from which a plain rolling cache no longer holds the first token
groups = {"nothing to read": (kind == 1) & late, "reading, signal in the cache": (kind == 2) & late & in_cache}


def scores(logits):
    """Per group: (mean loss, accuracy) of the late queries."""
    p = softmax(logits, axis=-1)
    nll = -np.log(np.take_along_axis(p, targets[..., None], axis=-1)[..., 0])  # (B, L)
    right = np.argmax(logits, axis=-1) == targets
    return {name: (nll[rows].mean(), right[rows].mean()) for name, rows in groups.items()}


# --8<-- [start:evict]
rows = []
for seed in SEEDS:
    params, _ = train("softmax", seed)  # the model of "A sink forming", about 6 s
    for cache, mask in (("full causal", None), (f"last {WINDOW}", window_mask(length, WINDOW)),
                        (f"first + last {WINDOW - 1}", window_mask(length, WINDOW, sinks=1))):
        logits, _ = forward(params, tokens, "softmax", CONFIG["n_heads"], mask)
        for group, (loss, accuracy) in scores(logits).items():
            rows.append([seed, cache, group, loss, accuracy])
            print(f"seed {seed}  {cache:16s} {group:29s} loss {loss:6.3f}  accuracy {accuracy:.2f}")
# --8<-- [end:evict]
table("eviction", ["seed", "cache", "queries", "loss", "accuracy"], rows, fmt="{:.3f}")
for seed, cache, group, loss, accuracy in rows:
    key = f"seed_{seed}_{'full' if cache == 'full causal' else 'sink' if 'first' in cache else 'window'}_" \
          f"{'nothing' if group.startswith('nothing') else 'reading'}"
    value(f"{key}_loss", loss, "{:.3f}")
    value(f"{key}_accuracy", accuracy, "{:.2f}")
value("window", WINDOW)
value("window_minus_one", WINDOW - 1)
for name, rows_of in groups.items():
    value(f"count_{'nothing' if name.startswith('nothing') else 'reading'}", int(rows_of.sum()))

# --8<-- [start:cache]
x = params["embed"][tokens[0]] + params["pos"][:length]  # (L, d_model): one sequence, seed 2's model
weights = [params[f"0.{name}"] for name in ("w_q", "w_k", "w_v", "w_o")]
for sinks in (0, 1):
    decoded, _ = decode_in_chunks(x, *weights, CONFIG["n_heads"], WINDOW, chunk=1, sinks=sinks)  # (L, d_model)
    logits_cache = (x + decoded) @ params["unembed"]  # one token at a time through the rolling cache
    logits_mask, _ = forward(params, tokens[:1], "softmax", CONFIG["n_heads"], window_mask(length, WINDOW, sinks))
    print(f"{sinks} sink(s): rolling cache vs the mask, largest difference "
          f"{np.abs(logits_cache - logits_mask[0]).max():.1e}")
# --8<-- [end:cache]
value("cache_vs_mask", np.abs(logits_cache - logits_mask[0]).max(), "{:.0e}")
