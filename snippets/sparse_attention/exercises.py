"""The sparse attention chapter's exercises: their answers, and what the usual mistakes give, on the page's data.

The first exercise reads the running example's causal weights (the left heatmap of indexer.py's figure): the weight
the query "mat" gives its top key when it reads only its exact top 2. The others use the page's 512 random
positions (the same draws as random_k.py and blocks.py): the query–key pairs the exact top k reads at a k the table
does not show, and the keys the selected branch and the entries the compressed branch read for one query. Each
usual mistake is made here in code (the weight not renormalised, the top k taken before the causal mask, the
query's own block read whole or counted as complete, ...), and lib.exercises publishes the answer and every
mistake's result.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import attention_scores, causal_mask, scaled_dot_product_attention
from lib.exercises import exercise
from lib.publish import value
from lib.running_example import running_qkv
from lib.sparse import (
    blocks_to_keys,
    buggy_top_k_before_mask,
    complete_blocks,
    select_blocks,
    sparse_attention,
    top_k_selection,
)

# Exercise 1: the weight the query "mat" gives its top key when it reads only its exact top 2 keys.
tokens, q, k, v = running_qkv()  # the running example, as indexer.py
n = len(tokens)
allowed = causal_mask(n)  # (L, L)
_, full_weights = scaled_dot_product_attention(q, k, v, allowed)  # the left heatmap
scores = attention_scores(q, k)  # (L, L): the attention's own scores, the exact top k's ranking
mat = tokens.index("mat")
two = value("few_keys", 2)
selected = top_k_selection(scores, two, allowed)  # (L, L)
_, sparse_weights = sparse_attention(q, k, v, selected)  # (L, L)
top = int(np.argmax(sparse_weights[mat]))  # the key "mat" weighs most
kept = np.flatnonzero(selected[mat])  # its two keys
value("top_key", tokens[top])
value("other_key", tokens[int(kept[kept != top][0])])
value("top_full_weight", full_weights[mat, top], "{:.3f}")  # the left heatmap's cells of the two keys
value("kept_full_weight", full_weights[mat, kept].sum(), "{:.3f}")  # the share of the weight they hold
_, three_weights = sparse_attention(q, k, v, top_k_selection(scores, 3, allowed))  # the right heatmap: top 3
exercise(
    "top_weight_of_two", sparse_weights[mat, top], "{:.2f}",
    {
        "not_renormalised": full_weights[mat, top],  # the full attention's weight kept, not shared out again
        "read_top_three": three_weights[mat, top],  # the right heatmap's cell: three keys share the weight
    },
)

# Exercise 2: the query-key pairs the exact top k reads on the 512 random positions, at k = 100.
length, d_k = 512, 16
rng = np.random.default_rng(0)
q, k, v = rng.normal(size=(3, length, d_k))  # (L, d_k) each: the same draws as random_k.py and blocks.py
scores = attention_scores(q, k)  # (L, L)
causal = causal_mask(length)  # (L, L)
top_k = value("pairs_k", 100)
value("length", length)
reads = top_k_selection(scores, top_k, causal).sum(axis=1)  # (L,): the keys each query reads
value("pairs_first_queries", int(reads[:top_k].sum()))  # the first k queries read all their keys, 1 + ... + k
value("pairs_later_queries", int(reads[top_k:].sum()))  # the others read k each
exercise(
    "pairs_read", int(top_k_selection(scores, top_k, causal).sum()), "{}",
    {
        "top_k_before_mask": int(buggy_top_k_before_mask(scores, top_k, causal).sum()),  # the chapter's first bug
        "query_left_out": int(top_k_selection(scores, top_k, np.tril(causal, -1)).sum()),  # keys before i only
    },
)

# Exercises 3 and 4: what the selected and the compressed branch read for one query (blocks.py's settings).
block_size, n_selected = 16, 4
query = value("query", 100)
value("block_size", block_size)
value("n_selected", n_selected)
blocks = select_blocks(q, k, block_size, n_selected)  # (L, n_blocks): the chosen blocks and the own block
own = query // block_size
value("own_block_start", own * block_size)
read = blocks_to_keys(blocks, block_size)[query]  # (L,): the keys the selected branch reads for the query
value("own_keys_read", int(read[own * block_size : (own + 1) * block_size].sum()))  # its own block, up to itself
value("best_blocks_keys", int(read[: own * block_size].sum()))  # the n best complete blocks, whole
exercise(
    "selected_keys", int(read.sum()), "{}",
    {
        "own_block_whole": int(blocks[query].sum()) * block_size,  # every chosen block read whole, the own too
        "own_block_left_out": int(np.delete(blocks[query], own).sum()) * block_size,  # only the n best blocks
    },
)

first_key = np.arange(length // block_size) * block_size  # (n_blocks,): each block's first key
value("n_blocks", length // block_size)
complete = complete_blocks(length, block_size)[query]  # (n_blocks,)
value("last_complete_end", int(first_key[complete][-1]) + block_size - 1)  # the last key of its last complete block
exercise(
    "compressed_entries", int(complete.sum()), "{}",
    {
        "own_block_counted": int((first_key <= query).sum()),  # a block counted once it has begun
        "every_block": length // block_size,  # every block, the causal order forgotten
    },
)
