"""Seed 2: the chapter's three models (two layers, one layer, the fixed-period shortcut) and the ablations.

The same runs as seed_0.py with another seed: other initial weights, other training sequences. The evaluation
sequences are the same for every seed.
"""
# Build time limit: 120 s

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.induction import seed_runs, seed_tables, seed_values
from lib.publish import table, value

result = seed_runs(seed=2)
runs, ablation = seed_tables(result)
table("runs", *runs, fmt="{:.2f}")
table("ablation", *ablation, fmt="{:.2f}")
for name, (x, fmt) in seed_values(result).items():
    value(name, x, fmt)
