"""Claims about why attention replaced RNNs and CNNs, and the paper's numbers, measured or quoted.

The paper's numbers are quoted from Vaswani et al. 2017, "Attention Is All You
Need" (arXiv:1706.03762), Tables 2 and 3 of its LaTeX source. Path
lengths and receptive fields are counted in the Why attention chapter.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import scaled_dot_product_attention
from lib.publish import value
from lib.running_example import SENTENCE, embed, projection_weights, tokenize

# Table 2 (newstest2014 BLEU; training cost in FLOPs) and Table 3 (newstest2013, dev BLEU)
PAPER = {
    "big_en_de": 28.4, "big_en_fr": 41.8, "base_en_de": 27.3, "base_en_fr": 38.1,
    "gnmt_en_de": 24.6, "gnmt_en_fr": 39.92, "gnmt_ens_en_de": 26.30,
    "convs2s_en_de": 25.16, "convs2s_ens_en_de": 26.36, "moe_en_de": 26.03,
    "flops_big": 2.3e19, "flops_base": 3.3e18, "flops_gnmt_en_de": 2.3e19,
    "flops_convs2s_en_de": 9.6e18,
    "dev_base": 25.8, "dev_one_head": 24.9, "dev_learned_pe": 25.7,
}


def sci(x, digits=1):
    """2.3e+19 -> "2.3·10^19"."""
    mantissa, exponent = f"{x:.{digits}e}".split("e")
    return f"{mantissa}·10^{int(exponent)}"


for name in ("big_en_de", "big_en_fr", "base_en_de", "gnmt_en_de", "dev_base", "dev_one_head",
             "dev_learned_pe", "convs2s_ens_en_de", "gnmt_ens_en_de", "moe_en_de"):
    value(f"paper_{name}", PAPER[name], "{:.2f}" if name.endswith(("ens_en_de", "moe_en_de")) else "{}")
value("paper_flops_big", PAPER["flops_big"], sci(PAPER["flops_big"]))
value("flops_ratio_convs2s", PAPER["flops_convs2s_en_de"] / PAPER["flops_base"], "{:.1f}")
value("flops_ratio_gnmt", PAPER["flops_gnmt_en_de"] / PAPER["flops_base"], "{:.1f}")
value("flops_ratio_big_gnmt", PAPER["flops_big"] / PAPER["flops_gnmt_en_de"], "{:.1f}")

tokens = tokenize(SENTENCE)  # ["The", "cat", "sat", "on", "the", "mat", "."]

# one attention layer links the first token to the last directly
x = embed(tokens)  # (L, d_model)
w_q, w_k, w_v = projection_weights()  # each (d_model, d_k)


def attend(x):
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)[0]  # (L, d_v)


moved = x.copy()
moved[0] += 1.0  # change the first token only
value("first_to_last_one_layer", np.abs(attend(moved)[-1] - attend(x)[-1]).max(), "{:.2f}")
value("n_score_entries_512", 512**2, "{:,}")
value("n_score_entries_4096", 4096**2, "{:,}")
