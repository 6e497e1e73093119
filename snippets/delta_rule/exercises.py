"""The delta rule chapter's exercises: each answer, and the result of each usual mistake made in code.

On the chapter's own examples: the unit key written twice (identities.py), once with a write strength beta below 1
and once with the gate; and Qwen3-Next's sizes (memory.py) at a length the page's table does not list. Every value
prints.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.exercises import exercise
from lib.linear_attention import (
    buggy_gated_delta_rule_reads_before_decay,
    delta_rule_recurrent,
    kv_cache_entries,
    linear_attention_recurrent,
    state_entries,
)
from lib.publish import value

# The overwrite example of identities.py: one unit key written twice, first with (1, 2), then with (5, -1).
key = np.array([[1.0, 0.0, 0.0, 0.0]])  # (1, d_k)
k = np.vstack([key, key])  # (2, d_k)
v = np.array([[1.0, 2.0], [5.0, -1.0]])  # (2, d_v)


def read_back(state):
    """What the state holds along the key: S^T k, (d_v,)."""
    return state.T @ key[0]


# Exercise 1: the second write with beta = 0.25 (the first with beta = 1); the second coordinate read back.
beta = np.array([1.0, 0.25])  # (L,)
value("beta_second", beta[1], "{:g}")
_, state = delta_rule_recurrent(k, k, v, beta)
_, no_erase = linear_attention_recurrent(k, k, beta[:, None] * v)  # beta scales the new value, nothing is erased
_, beta_kept = delta_rule_recurrent(k, k, v, np.array([1.0, 1.0 - beta[1]]))  # beta read as the share kept
_, plain_sum = linear_attention_recurrent(k, k, v)  # neither erase nor beta
value("old_second", v[0, 1], "{:g}")
value("new_second", v[1, 1], "{:g}")
exercise("partial_write", float(read_back(state)[1]), "{:.2f}", mistakes={
    "no_erase": float(read_back(no_erase)[1]),
    "beta_kept": float(read_back(beta_kept)[1]),
    "plain_sum": float(read_back(plain_sum)[1]),
})

# Exercise 2: the gated rule, the second write with alpha = 0.5 and beta = 1; the first coordinate read back.
alpha = np.array([1.0, 0.5])  # (L,)
value("alpha_second", alpha[1], "{:g}")
_, gated = delta_rule_recurrent(k, k, v, 1.0, alpha)
_, read_first = buggy_gated_delta_rule_reads_before_decay(k, k, v, 1.0, alpha)
decay_last = np.zeros((4, 2))  # (d_k, d_v): the decay applied after the write instead of before it
for t in range(len(k)):
    decay_last = decay_last + np.outer(k[t], v[t] - decay_last.T @ k[t])
    decay_last = alpha[t] * decay_last
value("old_first", v[0, 0], "{:g}")
value("new_first", v[1, 0], "{:g}")
exercise("gated_write", float(read_back(gated)[0]), "{:.2f}", mistakes={
    "read_before_decay": float(read_back(read_first)[0]),
    "decay_after_write": float(read_back(decay_last)[0]),
})

# Exercise 3: Qwen3-Next's sizes (memory.py), 2 bytes a number: MiB the whole stack keeps at 65,536 tokens.
layers, interval, kv_heads, head_dim = 48, 4, 2, 256  # Qwen3NextConfig's defaults, full-attention layers
k_heads, v_heads, d_k, d_v = 16, 32, 128, 128  # the Gated DeltaNet layers
length = 65536
value("length", length, "{:,}")
n_full = sum((i + 1) % interval == 0 for i in range(layers))
n_linear = layers - n_full
mib = 2**20


def stack_mib(state_heads, cache_entries, full_layers, linear_layers):
    """MiB kept at 2 bytes a number: the linear layers' states and the full layers' caches of ``length`` tokens."""
    numbers = linear_layers * state_entries(state_heads, d_k, d_v) + full_layers * cache_entries
    assert (2 * numbers) % mib == 0, "the exercise asks for a whole number of MiB"
    return 2 * numbers // mib


cache = kv_cache_entries(kv_heads, head_dim, length)  # one full layer's keys and values
value("states_mib", stack_mib(v_heads, 0, 0, n_linear))
value("caches_mib", stack_mib(v_heads, cache, n_full, 0))
exercise("hybrid_mib", stack_mib(v_heads, cache, n_full, n_linear), mistakes={
    "key_heads": stack_mib(k_heads, cache, n_full, n_linear),  # one state per key head, not per value head
    "keys_only": stack_mib(v_heads, cache // 2, n_full, n_linear),  # the cache's values forgotten
    "all_full": stack_mib(v_heads, cache, layers, 0),  # every layer counted as full attention
})

# Exercise 4: with 4 KV heads instead of 2 in the full-attention layers, the length at which one full layer's cache
# equals one linear layer's state.
more_kv_heads = 4
value("more_kv_heads", more_kv_heads)
per_state = state_entries(v_heads, d_k, d_v)
value("per_state", per_state)
value("per_token_more", kv_cache_entries(more_kv_heads, head_dim, 1))
exercise(
    "break_even",
    per_state // kv_cache_entries(more_kv_heads, head_dim, 1),
    mistakes={
        "keys_only": per_state // (kv_cache_entries(more_kv_heads, head_dim, 1) // 2),  # the cache's values forgotten
        "key_heads": state_entries(k_heads, d_k, d_v) // kv_cache_entries(more_kv_heads, head_dim, 1),
    },
)
