"""What seed 000's W_o check measures: the scale of the output projection.

Its table blames "multi-head worse than single-head" on W_o and suggests
print(np.mean(np.abs(W_o))) and an init of randn * 0.02. Whether multi-head is
worse is a training question. What we can measure here: mean |W_o|, and how
much each initial scale of W_o shrinks or grows the layer's output.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import multi_head_attention, sinusoidal_positions
from lib.publish import table, value
from lib.running_example import SENTENCE, embed, tokenize

tokens = tokenize(SENTENCE)  # 7 tokens
L, d_model, n_heads = len(tokens), 128, 2
x = embed(tokens, d_model) + sinusoidal_positions(L, d_model)  # (7, 128)
rng = np.random.default_rng(5)
w_q, w_k, w_v = rng.normal(scale=d_model**-0.5, size=(3, d_model, d_model))
eye = np.eye(d_model)  # W_o = I: the output is just the concatenated heads

# --8<-- [start:wo]
heads, _ = multi_head_attention(x, w_q, w_k, w_v, eye, n_heads)  # (7, 128)
inits = {
    "randn * 0.02 (seed 000)": 0.02,
    "std 1/sqrt(d_model)": d_model**-0.5,
    "randn (std 1)": 1.0,
}
rows = []
for name, std in inits.items():
    w_o = np.random.default_rng(6).normal(scale=std, size=(d_model, d_model))
    output, _ = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads)
    gain = output.std() / heads.std()  # how W_o rescales the heads
    mean_abs = np.mean(np.abs(w_o))  # seed 000's check
    print(f"{name:24s} mean |W_o| {mean_abs:.4f}   gain {gain:.2f}")
    rows.append([name, mean_abs, gain])
# --8<-- [end:wo]
header = ["W_o init", "mean abs(W_o)", "output std / concatenated-heads std"]
table("wo", header, rows, fmt="{:.3g}")
value("wo_small_mean_abs", rows[0][1], "{:.3f}")
value("wo_small_gain", rows[0][2], "{:.2f}")
value("wo_unit_gain", rows[1][2], "{:.2f}")
value("wo_big_gain", rows[2][2], "{:.1f}")
