"""'Over-attends to the first word': a baseline, and a fix that does nothing.

Seed 000 blames heavy attention on "The" on a positional encoding that is too
large, and normalises it with pos_enc / np.max(np.abs(pos_enc)). Sinusoidal
encodings already peak at exactly 1, so that line changes nothing. Under a
causal mask the first key gets a large share of the weight even when every query
spreads its weight evenly: query i sees i + 1 keys, and key 0 is always one.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, scaled_dot_product_attention, sinusoidal_positions
from lib.publish import table, value
from lib.running_example import SENTENCE, embed, tokenize

tokens = tokenize(SENTENCE)  # 7 tokens
L, d_model, d_k = len(tokens), 128, 64

# --8<-- [start:noop]
for n in (L, 512):
    pos_enc = sinusoidal_positions(n, d_model)  # (n, 128)
    normalised = pos_enc / np.max(np.abs(pos_enc))  # seed 000's fix
    print(f"{n:3d} positions: max |PE| = {np.max(np.abs(pos_enc))}, "
          f"change = {np.max(np.abs(normalised - pos_enc))}, "
          f"std(PE) = {pos_enc.std():.3f}")
x = embed(tokens, d_model)  # (7, 128) word vectors, entries N(0, 1)
print(f"std(X) = {x.std():.3f}")
# --8<-- [end:noop]
value("pe_max", np.max(np.abs(pos_enc)), "{:.1f}")
value("pe_fix_change", np.max(np.abs(normalised - pos_enc)), "{:.1f}")
value("pe_std_short", sinusoidal_positions(L, d_model).std(), "{:.2f}")
value("pe_std_long", pos_enc.std(), "{:.2f}")
value("n_long", n)
value("x_std", x.std(), "{:.2f}")


def random_head(seed):
    """W_q, W_k, W_v of one untrained head, std 1/sqrt(d_model)."""
    rng = np.random.default_rng(seed)
    return rng.normal(scale=d_model**-0.5, size=(3, d_model, d_k))


# --8<-- [start:baseline]
# the diagnostic: compare the weight on key 0 with an evenly spread row
even = causal_mask(L) / causal_mask(L).sum(axis=-1, keepdims=True)  # 1/(i+1)
x_pe = x + sinusoidal_positions(L, d_model)  # (7, 128)
rows = []
for name, mask, baseline in (("causal", causal_mask(L), even[:, 0].mean()),
                             ("no mask", None, 1 / L)):
    on_the = []
    for seed in range(200):  # 200 untrained heads
        q, k, v = x_pe @ random_head(seed)  # each (7, 64)
        _, weights = scaled_dot_product_attention(q, k, v, mask)  # (7, 7)
        on_the.append(weights[:, 0].mean())  # average weight on "The"
    rows.append([name, baseline, np.mean(on_the)])
    print(f"{name:8s} weight on 'The': baseline {baseline:.3f}, "
          f"random heads {np.mean(on_the):.3f}")
# --8<-- [end:baseline]
value("causal_baseline", rows[0][1], "{:.3f}")
value("causal_measured", rows[0][2], "{:.3f}")
value("bidir_baseline", rows[1][1], "{:.3f}")
value("bidir_measured", rows[1][2], "{:.3f}")

# --8<-- [start:samemodel]
pe = sinusoidal_positions(L, d_model)  # (7, 128)
w = random_head(0)  # (3, 128, 64): W_q, W_k, W_v
mask = causal_mask(L)
_, before = scaled_dot_product_attention(*((x + pe) @ w), mask)
fixed_pe = pe / np.abs(pe).max()  # seed 000's normalisation
_, after = scaled_dot_product_attention(*((x + fixed_pe) @ w), mask)
print("largest weight change:", np.abs(after - before).max())
# --8<-- [end:samemodel]
value("weights_change", np.abs(after - before).max(), "{:.1f}")
header = ["mask", "even-spread baseline", "mean weight on 'The' (200 random heads)"]
table("first", header, rows, fmt="{:.3f}")
