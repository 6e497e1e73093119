"""YaRN's per-pair ramp and temperature for three published configurations.

The configurations, read from their repositories (and, for Qwen3's base, its technical report):
- DeepSeek-V3: inference/model.py of deepseek-ai/DeepSeek-V3 at commit 9b4e9788, ModelArgs defaults
  (qk_rope_head_dim 64, original_seq_len 4096, rope_theta 10000.0, rope_factor 40, beta_fast 32, beta_slow 1,
  mscale 1.0), which inference/configs/config_671B.json at that commit does not override; its
  precompute_freqs_cis rounds the ramp's bounds (floor, ceil), and its MLA multiplies the softmax scale by
  mscale * mscale with mscale = 0.1 * mscale * ln(rope_factor) + 1.
- gpt-oss: gpt_oss/torch/model.py of openai/gpt-oss at commit 0568dfc9, ModelConfig defaults (head_dim 64,
  initial_context_length 4096, rope_theta 150000.0, rope_scaling_factor 32.0, rope_ntk_alpha 1.0, rope_ntk_beta
  32.0); its RotaryEmbedding does not round the bounds and multiplies cos and sin by 0.1 ln(s) + 1.
- Qwen3-8B: QwenLM/Qwen3/docs/source/inference/transformers.md at commit 52fa975d recommends, for Qwen/Qwen3-8B,
  "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768 (no betas, so transformers'
  defaults, beta_fast 32 and beta_slow 1, apply, and its bounds are rounded). The base, 1,000,000, is the Qwen3
  Technical Report's (arXiv 2505.09388v1, section 3.2, stage (3) Long Context Stage: "we increase the base
  frequency of RoPE from 10,000 to 1,000,000 using the ABF technique"), not Qwen3Config's default rope_theta
  10000.0. The rotated width, 128, is the head_dim default of Qwen3Config in transformers 4.57.1
  (src/transformers/models/qwen3/configuration_qwen3.py, whose defaults "yield a similar configuration to that
  of Qwen3-8B"); its modeling_qwen3.py rotates the whole head (no partial_rotary_factor).
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.plotting import COLORS
from lib.publish import table, value
from lib.yarn import get_mscale, ramp_bounds, score_multiplier, turns_in_context, yarn_frequencies

# --8<-- [start:configs]
# (name, rotated width d, base, trained context L, factor s, beta_fast, beta_slow, bounds rounded)
configs = [
    ("DeepSeek-V3", 64, 10000.0, 4096, 40.0, 32.0, 1.0, True),
    ("gpt-oss", 64, 150000.0, 4096, 32.0, 32.0, 1.0, False),
    ("Qwen3-8B", 128, 1000000.0, 32768, 4.0, 32.0, 1.0, True),
]
rows = []
for name, d, base, context, s, fast, slow, truncate in configs:
    turns = turns_in_context(d, base, context)  # (d/2,): r_i, full turns of each pair in L positions
    low, high = ramp_bounds(d, base, context, fast, slow, truncate)
    theta_new = yarn_frequencies(d, base, s, context, fast, slow, truncate)  # (d/2,)
    ratio = theta_new / base ** (-np.arange(0, d, 2) / d)  # 1 = as trained, 1/s = interpolated
    kept, divided = int(np.sum(ratio == 1.0)), int(np.sum(np.isclose(ratio, 1 / s, rtol=1e-12)))
    ends = f"{low:.0f} to {high:.0f}" if truncate else f"{low:.2f} to {high:.2f}"  # where the ramp starts and ends
    rows.append([name, d, f"{base:,.0f}", f"{context:,}", f"{s:g}", ends, kept,
                 d // 2 - kept - divided, divided, get_mscale(s), score_multiplier(s)])
    print(f"{name}: pairs 0-{kept - 1} turn {turns[kept - 1]:.1f}+ times in {context:,} positions and are kept; "
          f"the last {divided} turn at most {turns[d // 2 - divided]:.2f} times and are divided by {s:g}")
# --8<-- [end:configs]
table("configs", ["published configuration", "d (rotated)", "rotary base", "trained context L", "factor s",
                  "ramp (pairs)", "pairs kept", "pairs mixed", "pairs divided by s", "sqrt(1/t)", "1/t on the scores"],
      rows, fmt="{:.4f}")
for (name, *_), row in zip(configs, rows):
    key = name.lower().replace("-", "_")
    value(f"{key}_kept", row[6])
    value(f"{key}_mixed", row[7])
    value(f"{key}_divided", row[8])
    value(f"{key}_mscale", row[9], "{:.4f}")
    value(f"{key}_score_factor", row[10], "{:.4f}")
    value(f"{key}_factor", float(row[4]), "{:g}")
value("deepseek_low", ramp_bounds(64, 10000.0, 4096, 32.0, 1.0, True)[0])
value("deepseek_high", ramp_bounds(64, 10000.0, 4096, 32.0, 1.0, True)[1])
low_raw, high_raw = ramp_bounds(64, 150000.0, 4096, 32.0, 1.0, False)
value("gpt_oss_low", low_raw, "{:.2f}")
value("gpt_oss_high", high_raw, "{:.2f}")
unrounded = yarn_frequencies(64, 150000.0, 32.0, 4096, 32.0, 1.0, truncate=False)
rounded = yarn_frequencies(64, 150000.0, 32.0, 4096, 32.0, 1.0, truncate=True)
value("gpt_oss_rounding_gap", np.max(np.abs(rounded / unrounded - 1)), "{:.2f}")

# The paper puts the ramp on the turns r (eq. 18), the implementations on the pair index: how far apart?
# --8<-- [start:paper]
d, base, context, s = 64, 10000.0, 4096, 40.0
turns = turns_in_context(d, base, context)  # (d/2,)
gamma_paper = np.clip((turns - 1.0) / (32.0 - 1.0), 0.0, 1.0)  # eq. 18 with alpha = 1, beta = 32
theta = base ** (-np.arange(0, d, 2) / d)
paper = (1 - gamma_paper) * theta / s + gamma_paper * theta  # eq. 20
implemented = yarn_frequencies(d, base, s, context)
gap = np.max(np.abs(paper / implemented - 1))
print(f"DeepSeek-V3's pairs, ramp on the turns (paper) vs on the index (code): largest relative difference {gap:.2f}")
# --8<-- [end:paper]
value("paper_gap", gap, "{:.2f}")

fig, ax = plt.subplots(num="ramp", figsize=(7.0, 4.2))
colours = (COLORS[0], COLORS[3], COLORS[2])  # one per configuration
for (name, d, base, context, s, fast, slow, truncate), colour in zip(configs, colours, strict=True):
    ratio = yarn_frequencies(d, base, s, context, fast, slow, truncate) / base ** (-np.arange(0, d, 2) / d)
    ax.plot(np.arange(d // 2), ratio, color=colour, marker="o", markersize=3, label=f"{name} (d = {d}, s = {s:g})")
ax.set_yscale("log")
ax.set_xlabel("pair i")
ax.set_ylabel("YaRN frequency / trained frequency (log scale)")
ax.set_title("Fast pairs kept, slow pairs divided by s")
ax.legend(frameon=False, loc="center right")
plt.show()
