"""Cross-attention on a batch of two sentence pairs: rectangular weights, a source padding mask, and every shape.

The encoder reads the source sentences (padded to one length) with self-attention under the padding mask only:
no causal mask, every source word sees every other. The decoder's target sentences then attend to the encoder's
output: queries from the target, keys and values from the source, so each head's weights are L_q x L_k.
The weights are untrained and random; the point is where weight can go, not which word it picks.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, multi_head_attention, padding_mask
from lib.encoder_decoder import cross_attention, running_translation, source_keys_values
from lib.plotting import weights_heatmap
from lib.publish import table, value
from lib.running_example import D_MODEL, SENTENCE, tokenize

sources = [tokenize(SENTENCE.lower()), ["the", "dog", "ran", "."]]
targets = [["the", "cat", "sat", "."], ["a", "dog", "ran", "."]]
embed_batch, enc_w, dec_w, cross_w = running_translation(sources, targets)
n_heads = 2

lengths = np.array([len(s) for s in sources])  # (B,)
l_k, l_q = int(lengths.max()), len(targets[0])
src, src_tokens = embed_batch(sources, l_k)  # (B, L_k, d_model)
tgt, _ = embed_batch(targets, l_q)  # (B, L_q, d_model)

# --8<-- [start:encoder-decoder]
source_mask = padding_mask(lengths, l_k)  # (B, 1, L_k): False on padded source positions
memory, _ = multi_head_attention(src, *enc_w, n_heads, mask=source_mask)  # (B, L_k, d_model): no causal mask
h, _ = multi_head_attention(tgt, *dec_w, n_heads, mask=causal_mask(l_q))  # (B, L_q, d_model): causal
k, v = source_keys_values(memory, cross_w[1], cross_w[2], n_heads)  # each (B, h, L_k, d_head)
out, weights = cross_attention(h, (k, v), cross_w[0], cross_w[3], n_heads, source_mask)  # (B, L_q, d_model)
print("weights:", weights.shape)  # (B, h, L_q, L_k)
# --8<-- [end:encoder-decoder]

d_head = D_MODEL // n_heads
shapes = [
    ["source x", "(B, L_k, d_model)", src.shape],
    ["source padding mask", "(B, 1, L_k)", source_mask.shape],
    ["encoder output `memory`", "(B, L_k, d_model)", memory.shape],
    ["target x after its causal self-attention", "(B, L_q, d_model)", h.shape],
    ["q = x W_Q, split into heads", "(B, h, L_q, d_head)", (*h.shape[:1], n_heads, l_q, d_head)],
    ["k, v from the encoder output", "(B, h, L_k, d_head)", k.shape],
    ["scores and weights", "(B, h, L_q, L_k)", weights.shape],
    ["heads merged, times W_O", "(B, L_q, d_model)", out.shape],
]
table("shapes", ["array", "shape in symbols", "shape here"],
      [[name, symbols, str(tuple(int(n) for n in shape))] for name, symbols, shape in shapes])
pad_weight = weights[1][..., lengths[1] :]  # (h, L_q, L_k - length): sentence 2's padded keys
value("l_q", l_q)
value("l_k", l_k)
value("batch_size", len(sources))
value("n_heads", n_heads)
value("weights_shape", str(weights.shape))
value("source_2_length", int(lengths[1]))
value("max_pad_weight", float(pad_weight.max(initial=0.0)))  # 0 when nothing is padded
value("min_weight", float(weights.min()), "{:.3f}")
rows_sum_to_one = bool(np.allclose(weights.sum(axis=-1), 1.0))
value("rows_sum_to_one", rows_sum_to_one, zh="是" if rows_sum_to_one else "否")
real_keys = np.arange(l_k) < lengths[:, None]  # (B, L_k): the source's words, not its padding
first_rows = weights[:, :, 0, :]  # (B, h, L_k): the first target word of every sentence, in every head
sees_whole_source = bool(np.all((first_rows > 0) == real_keys[:, None, :]))
value("first_query_sees_whole_source", sees_whole_source, zh="是" if sees_whole_source else "否")
value("source_1", " ".join(sources[0]))
value("target_1", " ".join(targets[0]))
value("source_2", " ".join(src_tokens[1]))
value("target_2", " ".join(targets[1]))

fig, axes = plt.subplots(1, 2, num="weights", figsize=(10, 4.2), layout="constrained")
for b, ax in enumerate(axes):
    weights_heatmap(ax, weights[b, 0], targets[b], src_tokens[b], title=f"sentence {b + 1}, head 1")
fig.colorbar(axes[1].images[0], ax=axes, label="weight", shrink=0.8)
plt.show()
