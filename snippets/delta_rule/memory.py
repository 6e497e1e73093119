"""What a state costs against a KV cache: a fixed d_k x d_v per head, against two vectors per token and KV head.

First the arrays themselves, small: a delta-rule state and the KV cache of a full-attention layer, as numbers kept
and nbytes. Then a published hybrid: Qwen3-Next, three Gated DeltaNet layers to one full-attention layer, with the
sizes of transformers' Qwen3NextConfig defaults (src/transformers/models/qwen3_next/configuration_qwen3_next.py at
commit 008e574391258935f3ecc3035c882e73bbcac419; its docstring calls them the Qwen3-Next-80B-A3B style
configuration). The linear layers keep one state per value head: modeling_qwen3_next.py (commit
01cdc6081c7500f9e50c98b1b943c90ecb665db3) repeats the 16 key heads to match the 32 value heads before the gated
delta rule. Counted at 2 bytes a number (16-bit); the short convolution's cache of the linear layers is left out.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.kv_decoder import KVCache
from lib.linear_attention import kv_cache_entries, state_entries
from lib.publish import table, value

# --8<-- [start:toy]
n_heads, d_head, length = 2, 4, 64
cache = KVCache(n_heads, d_head, length)  # (h, L, d_head) keys and values, float64
state = np.zeros((n_heads, d_head, d_head))  # (h, d_k, d_v): one state per head, float64
print("KV cache after", length, "tokens:", cache.nbytes, "bytes; state:", state.nbytes, "bytes, at any length")
assert cache.nbytes == 8 * kv_cache_entries(n_heads, d_head, length)
assert state.nbytes == 8 * state_entries(n_heads, d_head, d_head)
# --8<-- [end:toy]
value("toy_heads", n_heads)
value("toy_d_head", d_head)
value("toy_length", length)
value("toy_cache_bytes", cache.nbytes)
value("toy_state_bytes", state.nbytes)
value("toy_break_even", state_entries(n_heads, d_head, d_head) // kv_cache_entries(n_heads, d_head, 1))

# --8<-- [start:qwen]
qwen3_next = {  # Qwen3NextConfig's defaults (transformers, commit 008e5743)
    "num_hidden_layers": 48, "full_attention_interval": 4,  # layer i is full attention when (i + 1) % 4 == 0
    "num_key_value_heads": 2, "head_dim": 256,  # the full-attention layers
    "linear_num_key_heads": 16, "linear_num_value_heads": 32,  # the Gated DeltaNet layers
    "linear_key_head_dim": 128, "linear_value_head_dim": 128,
}
c = qwen3_next
kinds = ["full" if (i + 1) % c["full_attention_interval"] == 0 else "linear" for i in range(c["num_hidden_layers"])]
n_full, n_linear = kinds.count("full"), kinds.count("linear")
per_state = state_entries(c["linear_num_value_heads"], c["linear_key_head_dim"], c["linear_value_head_dim"])
per_token = kv_cache_entries(c["num_key_value_heads"], c["head_dim"], 1)  # one full layer, one token


def hybrid_bytes(length, bytes_per_number=2):
    """The whole stack as built: linear layers keep a state, full layers a KV cache of `length` tokens."""
    return bytes_per_number * (n_linear * per_state + n_full * per_token * length)


def all_full_bytes(length, bytes_per_number=2):
    """The same 48 layers if every one were a full-attention layer of the same sizes."""
    return bytes_per_number * c["num_hidden_layers"] * per_token * length


print(f"{n_linear} linear layers, {n_full} full-attention layers")
print("one linear layer's state:", per_state, "numbers; one full layer's cache:", per_token, "numbers per token")
print("a full layer's cache equals a linear layer's state at", per_state // per_token, "tokens, and passes it after")
# --8<-- [end:qwen]
value("qwen_layers", c["num_hidden_layers"])
value("qwen_linear_layers", n_linear)
value("qwen_full_layers", n_full)
value("qwen_interval", c["full_attention_interval"])
value("qwen_kv_heads", c["num_key_value_heads"])
value("qwen_head_dim", c["head_dim"])
value("qwen_linear_k_heads", c["linear_num_key_heads"])
value("qwen_linear_v_heads", c["linear_num_value_heads"])
value("qwen_linear_dk", c["linear_key_head_dim"])
value("qwen_linear_dv", c["linear_value_head_dim"])
value("qwen_state_numbers", per_state)
value("qwen_token_numbers", per_token)
value("qwen_break_even", per_state // per_token)
value("qwen_state_mib", 2 * n_linear * per_state / 2**20, "{:g}")
value("qwen_state_gib", 2 * n_linear * per_state / 2**30, "{:.3f}")

lengths = [512, 4096, 32768, 131072, 262144]
rows = []
for n in lengths:
    rows.append([n, f"{2 * n_linear * per_state / 2**20:g}", f"{2 * n_full * per_token * n / 2**20:g}",
                 f"{hybrid_bytes(n) / 2**20:g}", f"{all_full_bytes(n) / 2**20:g}",
                 f"{hybrid_bytes(n) / all_full_bytes(n):.3f}"])
table("bytes", ["tokens L", "linear layers' states (MiB)", "full layers' caches (MiB)", "hybrid as built (MiB)",
                "all 48 layers full (MiB)", "hybrid / all full"], rows, fmt="{}")
for n in (4096, 262144):
    value(f"hybrid_mib_{n}", hybrid_bytes(n) / 2**20, "{:g}")
    value(f"all_full_mib_{n}", all_full_bytes(n) / 2**20, "{:g}")
    value(f"ratio_{n}", hybrid_bytes(n) / all_full_bytes(n), "{:.3f}")
value("hybrid_gib_262144", hybrid_bytes(262144) / 2**30, "{:.1f}")
value("all_full_gib_262144", all_full_bytes(262144) / 2**30, "{:.1f}")
value("ratio_32768", hybrid_bytes(32768) / all_full_bytes(32768), "{:.3f}")
value("ratio_limit", n_full / c["num_hidden_layers"], "{:g}")
value("equal_at", 512)
assert hybrid_bytes(512) == all_full_bytes(512)  # 36 states = 36 layers' caches of 512 tokens

grid = np.geomspace(64, 262144, 200)
fig, ax = plt.subplots(num="bytes", figsize=(6.4, 4.0), layout="constrained")
ax.plot(grid, [all_full_bytes(n) / 2**30 for n in grid], label="all 48 layers full attention")
ax.plot(grid, [hybrid_bytes(n) / 2**30 for n in grid], label="hybrid as built (36 linear, 12 full)")
ax.plot(grid, [2 * n_linear * per_state / 2**30] * len(grid), linestyle="--", label="the 36 linear layers' states")
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("tokens in the context, L")
ax.set_ylabel("GiB kept per sequence (2 bytes a number)")
ax.set_title("Qwen3-Next sizes: state against KV cache")
ax.legend(fontsize=8)
