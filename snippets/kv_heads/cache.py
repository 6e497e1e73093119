"""KV-cache bytes per token for published configurations, measured on the arrays a decoder keeps.

For every layer a decoder keeps the keys and values of each position: h_kv heads
of d_head numbers each. We build those arrays (lib.kv_decoder's KVCache, in
float16 as the checkpoints are published) for one position and add up their
nbytes, then compare with 2 * layers * h_kv * d_head * 2 bytes and with the
multi-head cache the same model would keep with h_kv = h. DeepSeek-V2's
multi-head latent attention keeps one latent of d_c numbers and one rotary key
of d_rope numbers per layer instead. Sources, exactly:
- Llama 2 70B: dim 8192, n_layers 80, n_heads 64, n_kv_heads 8 (d_head = 8192 / 64), as reported by
  the config.json of meta-llama/Llama-2-70b-hf on Hugging Face (hidden_size, num_hidden_layers,
  num_attention_heads, num_key_value_heads); Touvron et al. 2023 ("Llama 2"), Table 1, marks GQA for 70B.
  (models/sku_list.py of meta-llama/llama-models is not used for Llama 2: its Llama 2 entries carry
  Llama 3 values, n_kv_heads 8 even for the multi-head 7B.)
- Llama 3 8B: meta-llama/llama-models at commit 084b88e939e954d2851ee28f96398ca54aa8f8f9, models/sku_list.py,
  model_args of meta_llama3_8b: dim 4096,
  n_layers 32, n_heads 32, n_kv_heads 8 (d_head = 4096 / 32).
- Mistral 7B: Jiang et al. 2023, "Mistral 7B", Table 1: n_layers 32, n_heads 32, n_kv_heads 8, head_dim 128.
- DeepSeek-V2: DeepSeek-AI 2024, "DeepSeek-V2", section 3.1.2: 60 layers, n_h = 128 heads, d_h = 128,
  d_c = 512, d_h^R = 64.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.kv_decoder import KVCache
from lib.plotting import COLORS
from lib.publish import table, value

# (model, layers, query heads h, key/value heads h_kv, d_head)
configs = [("Llama 2 70B", 80, 64, 8, 128), ("Llama 3 8B", 32, 32, 8, 128), ("Mistral 7B", 32, 32, 8, 128)]
deepseek = ("DeepSeek-V2", 60, 128, 128, 512, 64)  # layers, h, d_head, d_c (latent), d_rope (rotary key)


# --8<-- [start:measure]
def cache_bytes_per_token(layers, h_kv, d_head, dtype=np.float16):
    """nbytes of the keys and values every layer keeps for one position."""
    return sum(KVCache(h_kv, d_head, 1, dtype).nbytes for _ in range(layers))


def latent_cache_bytes_per_token(layers, d_latent, d_rope, dtype=np.float16):
    """nbytes of what multi-head latent attention keeps per layer for one position: the latent and the rotary key."""
    latents = [np.zeros((1, d_latent), dtype) for _ in range(layers)]  # (1, d_c) per layer
    rotary_keys = [np.zeros((1, d_rope), dtype) for _ in range(layers)]  # (1, d_rope) per layer, shared by heads
    return sum(a.nbytes for a in latents + rotary_keys)
# --8<-- [end:measure]


def human(n_bytes):
    """1024 -> "1 KiB", 131072 -> "128 KiB"."""
    for unit in ["B", "KiB", "MiB"]:
        if n_bytes < 1024 or unit == "MiB":
            return f"{n_bytes:.4g} {unit}"
        n_bytes /= 1024


rows, shares = [], []
for name, layers, h, h_kv, d_head in configs:
    measured = cache_bytes_per_token(layers, h_kv, d_head)
    assert measured == 2 * layers * h_kv * d_head * 2  # keys and values, every layer, float16
    multi_head = cache_bytes_per_token(layers, h, d_head)
    rows.append([name, layers, h, h_kv, d_head, human(measured), human(multi_head), f"1/{multi_head // measured}"])
    shares.append((name, measured, multi_head))
name, layers, h, d_head, d_latent, d_rope = deepseek
latent = latent_cache_bytes_per_token(layers, d_latent, d_rope)
assert latent == (d_latent + d_rope) * layers * 2  # section 2.1.4 / Table 1: (d_c + d_h^R) l elements
multi_head = cache_bytes_per_token(layers, h, d_head)
rows.append([name, layers, h, f"latent {d_latent} + rotary key {d_rope}", d_head, human(latent), human(multi_head),
             f"1/{multi_head / latent:.1f}"])
shares.append((name, latent, multi_head))
table("configs", ["model", "layers", "query heads h", "key/value heads h_kv", "d_head", "cache per token",
                  "with h_kv = h", "fraction"], rows)
value("llama2_70b_kib", shares[0][1] / 1024, "{:g}")
value("llama2_70b_mha_kib", shares[0][2] / 1024, "{:g}")
value("llama2_70b_context_gib", shares[0][1] * 4096 / 1024**3, "{:.2f}")
value("llama3_8b_kib", shares[1][1] / 1024, "{:g}")
value("deepseek_kib", latent / 1024, "{:g}")
value("deepseek_mha_kib", multi_head / 1024, "{:g}")
value("deepseek_fraction", multi_head / latent, "{:.1f}")
value("deepseek_per_layer", d_latent + d_rope)
value("deepseek_per_layer_mha", 2 * h * d_head, "{:,}")

fig, ax = plt.subplots(num="cache", figsize=(7.0, 3.8), layout="constrained")
names = [name for name, _, _ in shares]
y = np.arange(len(names))
ax.barh(y + 0.2, [m / 1024 for _, _, m in shares], height=0.4, color=COLORS[1],
        label="every head its own keys and values")
ax.barh(y - 0.2, [c / 1024 for _, c, _ in shares], height=0.4, color=COLORS[0], label="as published")
ax.set_yticks(y, names)
ax.invert_yaxis()
ax.set_xlabel("KV cache per token, KiB, float16")
ax.set_title("Cache per token: shared keys and values against one per head")
ax.legend(frameon=False, fontsize=8, loc="center right")
plt.show()
