"""The five steps on a Chinese sentence: 我 爱 自然 语言 处理 ("I love natural language processing").

Chinese is written without spaces, so a tokenizer first cuts the text into words; the sentence is given here
already cut, as the seed tutorial writes it. Everything else is the running example's machinery: the same
seeded embedding table, the same projection weights, the same core function. The site's build draws the heatmap's
Chinese twin (weights.zh.svg, its labels from lib.zh) from the same figure.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import scaled_dot_product_attention
from lib.plotting import use_chinese_font, weights_heatmap
from lib.publish import value
from lib.running_example import embed, projection_weights

use_chinese_font()

# --8<-- [start:weights]
tokens = "我 爱 自然 语言 处理".split()  # already cut into words: ['我', '爱', '自然', '语言', '处理']
x = embed(tokens)  # (L, d_model) = (5, 8)
w_q, w_k, w_v = projection_weights()  # each (d_model, d_k) = (8, 8)
output, weights = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)  # (5, 8), (5, 5)
print("tokens:", tokens)
print("weights:\n", weights.round(3))
# --8<-- [end:weights]

value("n_tokens", len(tokens))
top = weights.argmax(axis=1)  # the key each query weights most
pairs = [(tokens[i], tokens[j], weights[i, j]) for i, j in enumerate(top)]
value("largest_weight", weights.max(), "{:.2f}")
value("smallest_weight", weights.min(), "{:.2f}")
value(
    "description",
    "Heatmap of the attention weights among the five words 我, 爱, 自然, 语言 and 处理, on a fixed 0 to 1 colour "
    "scale, with each weight printed in its cell. The largest weight of each row: "
    + "; ".join(f"{query} on {key} ({w:.2f})" for query, key, w in pairs) + ".",
)
value(
    "description_zh",
    "五个词（我、爱、自然、语言、处理）之间注意力权重的热力图，色标固定为 0 到 1，每格标出权重。每行最大的权重："
    + "；".join(f"“{query}”对“{key}”（{w:.2f}）" for query, key, w in pairs) + "。",
)

fig, ax = plt.subplots(num="weights", figsize=(4.6, 3.8))
image = weights_heatmap(ax, weights, tokens, tokens, title="Attention weights, one head, d_k = 8")
fig.colorbar(image, ax=ax, shrink=0.8)
plt.show()
