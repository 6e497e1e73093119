"""The two classic bugs of selection code, run on the same inputs as the right code.

1. The top k taken before the causal mask: a query can select, and read, a key that comes after it.
2. Block b's keys read from block b + 1: an index off by one block. The causal mask still holds, so nothing from the
   future leaks and nothing crashes: the query reads keys it did not select.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import attention_scores, causal_mask
from lib.publish import value
from lib.running_example import running_qkv
from lib.sparse import (
    blocks_to_keys,
    buggy_blocks_to_keys_shifted,
    buggy_top_k_before_mask,
    select_blocks,
    sparse_attention,
    top_k_selection,
)

tokens, q, k, v = running_qkv()  # the running sentence
n = len(tokens)

# --8<-- [start:future]
scores = attention_scores(q, k)  # (L, L)
right = top_k_selection(scores, 3, causal_mask(n))  # mask first, then the top 3
wrong = buggy_top_k_before_mask(scores, 3, causal_mask(n))  # the top 3 of every key
future = wrong & ~causal_mask(n)  # (L, L): selected keys after their query
_, wrong_weights = sparse_attention(q, k, v, wrong)
print("queries that read a later key:", [tokens[t] for t in np.flatnonzero(future.any(axis=1))])
print(f"weight the first query '{tokens[0]}' puts on later keys: {wrong_weights[0, 1:].sum():.2f}")
print("the right selection reads a later key:", bool((right & ~causal_mask(n)).any()))
# --8<-- [end:future]
value("future_queries", int(future.any(axis=1).sum()))
value("n_tokens", n)
value("first_token", tokens[0])
value("first_future_weight", wrong_weights[0, 1:].sum(), "{:.2f}")
# the same top 3 of every key with the causal mask applied afterwards: causal again, but places are lost
after = wrong & causal_mask(n)  # (L, L)
value("after_mask_reads_future", bool((after & ~causal_mask(n)).any()),
      zh="是" if (after & ~causal_mask(n)).any() else "否")
value("after_mask_keys", ", ".join(str(c) for c in after.sum(axis=1)), zh="、".join(str(c) for c in after.sum(axis=1)))
value("right_keys", ", ".join(str(c) for c in right.sum(axis=1)), zh="、".join(str(c) for c in right.sum(axis=1)))
empty = [tokens[t] for t in np.flatnonzero(~after.any(axis=1))]
value("after_mask_empty", ", ".join(empty))
value("after_mask_empty_allowed", int(causal_mask(n)[np.flatnonzero(~after.any(axis=1))[0]].sum()))
value("right_reads_future", bool((right & ~causal_mask(n)).any()), zh="是" if (right & ~causal_mask(n)).any() else "否")

# --8<-- [start:shift]
length, d_k, block_size, n_selected = 512, 16, 16, 4
rng = np.random.default_rng(0)
qr, kr, vr = rng.normal(size=(3, length, d_k))  # (L, d_k) each
blocks = select_blocks(qr, kr, block_size, n_selected)  # (L, n_blocks): the blocks each query chose
keys_right = blocks_to_keys(blocks, block_size)  # (L, L)
keys_shifted = buggy_blocks_to_keys_shifted(blocks, block_size)  # (L, L)
strays = keys_shifted & ~keys_right  # keys read that no chosen block holds
out_right, _ = sparse_attention(qr, kr, vr, keys_right)
out_shifted, _ = sparse_attention(qr, kr, vr, keys_shifted)
print(f"queries reading keys outside their chosen blocks: {strays.any(axis=1).sum()} of {length}")
print("the shifted selection reads a later key:", bool((keys_shifted & ~causal_mask(length)).any()))
print(f"shifted selection vs the right one: largest output difference {np.abs(out_shifted - out_right).max():.2f}")
# --8<-- [end:shift]
value("stray_queries", int(strays.any(axis=1).sum()))
value("length", length)
value("shifted_reads_future", bool((keys_shifted & ~causal_mask(length)).any()),
      zh="是" if (keys_shifted & ~causal_mask(length)).any() else "否")
value("shift_error", np.abs(out_shifted - out_right).max(), "{:.2f}")
value("stray_keys_mean", strays.sum(axis=1).mean(), "{:.1f}")
