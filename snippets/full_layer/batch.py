"""The whole self-attention layer, on a padded batch of sentences.

Three sentences of different lengths are padded to one length and pushed
through every stage: token ids -> embeddings (x sqrt(d_model)) -> + sinusoidal
positions -> Q/K/V -> split heads -> scores -> scale -> mask (padding + causal)
-> softmax -> weighted sum -> merge heads -> W_o. We print the shape after every
stage, check that padded keys get exactly zero weight, and check that each
sentence's output equals running that sentence alone, without padding.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import (
    causal_mask,
    merge_heads,
    multi_head_attention,
    padding_mask,
    sinusoidal_positions,
    softmax,
    split_heads,
)
from lib.plotting import weights_heatmap
from lib.publish import table, value
from lib.running_example import D_MODEL, projection_weights, tokenize

SENTENCES = ["The cat sat on the mat.", "A dog ran.", "Dogs chase the cat."]
PAD = "<pad>"
d_model, h = D_MODEL, 2  # d_head = d_model / h = 4

sentences = [tokenize(s) for s in SENTENCES]
vocab = {PAD: 0} | {w: i + 1 for i, w in enumerate(sorted({t.lower() for s in sentences for t in s}))}
rng = np.random.default_rng(0)
embedding = rng.normal(scale=1 / np.sqrt(d_model), size=(len(vocab), d_model))  # (vocab, d_model)
w_q, w_k, w_v = projection_weights()  # each (d_model, h * d_head)
w_o = np.random.default_rng(2).normal(scale=1 / np.sqrt(d_model), size=(d_model, d_model))  # (h * d_head, d_model)


# --8<-- [start:layer]
def attention_layer(batch, causal=True, pad_mask=True):
    """Run the layer on a list of token lists; return every intermediate array by stage name."""
    lengths = np.array([len(tokens) for tokens in batch])  # (B,)
    L = lengths.max()
    padded = [[t.lower() for t in tokens] + [PAD] * (L - len(tokens)) for tokens in batch]  # B lists of L tokens
    ids = np.array([[vocab[t] for t in tokens] for tokens in padded])  # (B, L)
    s = {"ids": ids}
    s["embedded"] = embedding[ids] * np.sqrt(d_model)  # (B, L, d_model)
    s["positions"] = sinusoidal_positions(L, d_model)  # (L, d_model)
    s["x"] = s["embedded"] + s["positions"]  # (B, L, d_model): positions broadcast over the batch
    s["q_all"] = s["x"] @ w_q  # (B, L, h * d_head): every head's queries side by side
    s["k_all"] = s["x"] @ w_k  # (B, L, h * d_head)
    s["v_all"] = s["x"] @ w_v  # (B, L, h * d_head)
    s["q"] = split_heads(s["q_all"], h)  # (B, h, L, d_head)
    s["k"] = split_heads(s["k_all"], h)  # (B, h, L, d_head)
    s["v"] = split_heads(s["v_all"], h)  # (B, h, L, d_head)
    s["scores"] = s["q"] @ np.swapaxes(s["k"], -1, -2)  # (B, h, L, L)
    s["scaled"] = s["scores"] / np.sqrt(s["q"].shape[-1])  # (B, h, L, L)
    s["mask"] = np.ones((len(batch), L, L), dtype=bool)  # (B, L, L): start from "every key visible"
    if pad_mask:
        s["mask"] &= padding_mask(lengths, L)  # (B, 1, L): no query may look at a padding key
    if causal:
        s["mask"] &= causal_mask(L)  # (L, L): no query may look at a later key
    s["masked"] = np.where(s["mask"][:, None], s["scaled"], -np.inf)  # (B, h, L, L): one mask, all heads
    s["weights"] = softmax(s["masked"], axis=-1)  # (B, h, L, L)
    s["heads"] = s["weights"] @ s["v"]  # (B, h, L, d_head)
    s["merged"] = merge_heads(s["heads"])  # (B, L, h * d_head)
    s["output"] = s["merged"] @ w_o  # (B, L, d_model)
    return s, lengths
# --8<-- [end:layer]


# --8<-- [start:run]
s, lengths = attention_layer(sentences)  # padding mask and causal mask
B, L = s["ids"].shape
is_pad = np.arange(L)[None, :] >= lengths[:, None]  # (B, L): True at padding positions
pad_key = np.broadcast_to(is_pad[:, None, None, :], s["weights"].shape)  # (B, h, L, L): the key is padding
on_pad_keys = s["weights"][pad_key]  # every weight that lands on a padding key
alone = [attention_layer([tokens])[0]["output"][0] for tokens in sentences]  # (n, d_model) each, no padding
alone_error = max(np.max(np.abs(s["output"][b, :n] - alone[b])) for b, n in enumerate(lengths))
# --8<-- [end:run]

print("batch (padded):")
for tokens in sentences:
    print("  ", tokens + [PAD] * (L - len(tokens)))
print("lengths:", lengths.tolist())
print("mask of sentence 2 (True = may attend):")
print(s["mask"][1].astype(int))

value("batch_size", B)
value("d_model", d_model)
value("n_heads", h)
value("padded_length", L)
value("lengths", ", ".join(str(n) for n in lengths), zh="、".join(str(n) for n in lengths))
value("n_pad_weights", on_pad_keys.size)
value("max_pad_weight", np.max(on_pad_keys), "{:.1f}")
value("alone_max_error", alone_error, "{:.1e}")
reference, _ = multi_head_attention(s["x"], w_q, w_k, w_v, w_o, h, s["mask"])
value("core_max_error", np.max(np.abs(s["output"] - reference)), "{:.1e}")
row_sums = s["weights"].sum(axis=-1)  # (B, h, L)
real_queries = np.broadcast_to(~is_pad[:, None, :], row_sums.shape)  # (B, h, L): rows of real tokens
value("real_row_sums_max_error", np.max(np.abs(row_sums[real_queries] - 1)), "{:.1e}")

# Which mask does what? Rerun with each mask switched off; compare real rows with each sentence run alone.
ablation = []
total_on_padding = {}  # (causal, pad_mask) -> (real queries, pad queries): the largest weight a query puts on all pads
for causal in (True, False):
    alone_runs = [attention_layer([tokens], causal=causal)[0]["output"][0] for tokens in sentences]  # (n, d_model)
    for pad_mask in (True, False):
        run, _ = attention_layer(sentences, causal=causal, pad_mask=pad_mask)
        w = run["weights"]  # (B, h, L, L)
        real_query = np.broadcast_to(~is_pad[:, None, :, None], w.shape)  # (B, h, L, L): the query is a real token
        error = max(np.max(np.abs(run["output"][b, :n] - alone_runs[b])) for b, n in enumerate(lengths))
        on_padding = np.sum(np.where(pad_key, w, 0.0), axis=-1)  # (B, h, L): each query's weight on all pad keys
        pad_query = np.broadcast_to(is_pad[:, None, :], on_padding.shape)  # (B, h, L): the query is padding
        total_on_padding[causal, pad_mask] = np.max(on_padding[~pad_query]), np.max(on_padding[pad_query])
        ablation.append([
            {(True, True): "padding + causal (this page)", (True, False): "causal only",
             (False, True): "padding only (encoder)", (False, False): "none (encoder)"}[causal, pad_mask],
            f"{np.max(w[pad_key & real_query]):.3f}",
            f"{np.max(w[pad_key & ~real_query]):.3f}",
            f"{error:.1e}",
        ])
table("mask_ablation", ["mask", "largest pad-key weight, real queries", "same, pad queries",
                        "batched vs alone, real rows"], ablation)
value("encoder_no_pad_mask_leak", float(ablation[3][1]), "{:.3f}")
value("encoder_no_pad_mask_error", float(ablation[3][3]), "{:.1e}")
value("encoder_pad_mask_error", float(ablation[2][3]), "{:.1e}")
value("causal_only_error", float(ablation[1][3]), "{:.1e}")
value("causal_only_pad_query_leak", float(ablation[1][2]), "{:.3f}")
value("encoder_no_pad_mask_total_leak", total_on_padding[False, False][0], "{:.3f}")
value("causal_only_pad_query_total_leak", total_on_padding[True, False][1], "{:.3f}")

shape_rows = [  # (stage, array, axes, chapter)
    ("tokens to ids", "ids", "(B, L)", "tokens-to-vectors.md"),
    ("embed, x sqrt(d_model)", "embedded", "(B, L, d_model)", "tokens-to-vectors.md"),
    ("sinusoidal positions", "positions", "(L, d_model)", "positional-encoding.md"),
    ("add positions", "x", "(B, L, d_model)", "positional-encoding.md"),
    ("project to q, k, v", "q_all", "(B, L, h * d_head)", "queries-keys-values.md"),
    ("split into heads", "q", "(B, h, L, d_head)", "multi-head.md"),
    ("scores q k^T", "scores", "(B, h, L, L)", "scaled-dot-product.md"),
    ("scale by 1/sqrt(d_head)", "scaled", "(B, h, L, L)", "scaled-dot-product.md"),
    ("padding & causal mask", "mask", "(B, L, L)", "masks.md"),
    ("apply the mask (-inf)", "masked", "(B, h, L, L)", "masks.md"),
    ("softmax over keys", "weights", "(B, h, L, L)", "softmax.md"),
    ("weighted sum of values", "heads", "(B, h, L, d_head)", "weighted-sum.md"),
    ("merge heads", "merged", "(B, L, h * d_head)", "multi-head.md"),
    ("mix heads with W_o", "output", "(B, L, d_model)", "multi-head.md"),
]
also = {"q_all": ", k_all, v_all", "q": ", k, v"}  # arrays that share a row
table("shapes", ["stage (links to its chapter)", "array", "axes", "shape"],
      [[f"[{stage}]({page})", f"`{name}{also.get(name, '')}`", axes, str(s[name].shape)]  # the code's names
       for stage, name, axes, page in shape_rows])

# Figure: every sentence x every head, all rows (padding queries included) and all keys.
fig, axes = plt.subplots(B, h, num="batch-weights", figsize=(7.6, 10.6), gridspec_kw={"hspace": 0.45, "wspace": 0.08})
for b, tokens in enumerate(sentences):
    padded = tokens + [PAD] * (L - len(tokens))
    for i in range(h):
        ax = axes[b, i]
        weights_heatmap(ax, s["weights"][b, i], padded, padded, title=f"sentence {b + 1}, head {i}")
        if b < B - 1:
            ax.set_xlabel("")
        if i > 0:
            ax.set_ylabel("")
            ax.tick_params(labelleft=False)
fig.colorbar(axes[0, 0].images[0], ax=axes, shrink=0.4, label="weight (fixed 0-1 scale)")
plt.show()
