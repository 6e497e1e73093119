"""Grouped-query attention: query heads share key/value heads; one group per head is multi-head, one group is MQA.

grouped_query_attention(q, k, v) takes h query heads and h_kv key/value heads;
query head i reads key/value head i // (h / h_kv): h_kv groups of consecutive
query heads, each sharing one key/value head (Ainslie et al. 2023, section 2.2,
define the groups; the consecutive order is this project's convention). We check
both ends exactly: with h_kv = h it is multi-head attention, with h_kv = 1 it is
multi-query attention (Shazeer 2019), where every query head attends over the
same keys and values.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, grouped_query_attention, scaled_dot_product_attention
from lib.publish import table, value

rng = np.random.default_rng(2)
L, n_heads, d_head = 6, 8, 4
q = rng.normal(size=(n_heads, L, d_head))  # (h, L, d_head)
mask = causal_mask(L)  # (L, L)

# --8<-- [start:ends]
k_all, v_all = rng.normal(size=(2, n_heads, L, d_head))  # (h, L, d_head): one key/value head per query head
gqa_as_mha, _ = grouped_query_attention(q, k_all, v_all, mask)  # q (h, L, d_head): heads before positions; h_kv = h
mha, _ = scaled_dot_product_attention(q, k_all, v_all, mask)  # each head with its own keys and values

k_one, v_one = k_all[:1], v_all[:1]  # (1, L, d_head): one key/value head for all
gqa_as_mqa, _ = grouped_query_attention(q, k_one, v_one, mask)  # h_kv = 1
mqa = np.stack([scaled_dot_product_attention(q[i], k_one[0], v_one[0], mask)[0] for i in range(n_heads)])
# --8<-- [end:ends]
value("mha_difference", np.max(np.abs(gqa_as_mha - mha)), "{:g}")
value("mqa_difference", np.max(np.abs(gqa_as_mqa - mqa)), "{:g}")
value("n_heads", n_heads)

# --8<-- [start:groups]
rows = []
for h_kv in (8, 4, 2, 1):
    k, v = k_all[:h_kv], v_all[:h_kv]  # (h_kv, L, d_head)
    _, weights = grouped_query_attention(q, k, v, mask)  # (h, L, L)
    used = [next(j for j in range(h_kv)  # the key/value head whose weights query head i reproduces
                 if np.array_equal(scaled_dot_product_attention(q[i], k[j], v[j], mask)[1], weights[i]))
            for i in range(n_heads)]
    rows.append([h_kv, n_heads // h_kv, " ".join(str(j + 1) for j in used), 2 * h_kv * d_head])
# --8<-- [end:groups]
table("groups", ["key/value heads h_kv", "query heads per group", "key/value head of query heads 1 … 8",
                 "numbers cached per position"], rows)
