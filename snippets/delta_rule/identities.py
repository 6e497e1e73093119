"""Linear attention and the delta rule on one small example: what an overwrite does, and three forms that agree.

First one key written twice, with two different values: plain linear attention reads back the sum of both, the
delta rule (beta = 1) reads back the second. Then the identities the chapter relies on: the recurrence of linear
attention equals its masked matrix form, and the chunked (WY/UT) form of the gated delta rule equals its
recurrence for every chunk size. Last, the two classic mistakes, which run without an error.
"""

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.linear_attention import (
    buggy_delta_rule_chunked_without_carry,
    buggy_gated_delta_rule_reads_before_decay,
    delta_rule_chunked,
    delta_rule_recurrent,
    linear_attention_parallel,
    linear_attention_recurrent,
)
from lib.publish import value


def bound_format(x):
    """How the prose shows a largest difference: rounded up to two significant digits, so "within" it is true."""
    exponent = math.floor(math.log10(x))
    return f"{math.ceil(x / 10.0 ** (exponent - 1)) / 10:.1f}e{exponent:+03d}"


def gap_format(x):
    """How the prose shows a difference: 0 when it is exactly zero, else one significant digit (7e-16)."""
    return "{:.0f}" if x == 0 else "{:.0e}"


def vector_text(x):
    """A vector of two numbers as the prose shows it: (6, 1)."""
    return "({:g}, {:g})".format(*x)


# --8<-- [start:overwrite]
key = np.array([[1.0, 0.0, 0.0, 0.0]])  # (1, d_k): a unit key
k = np.vstack([key, key])  # (2, d_k): the same key, written twice
v = np.array([[1.0, 2.0], [5.0, -1.0]])  # (2, d_v): first value, then a new one
_, plain_state = linear_attention_recurrent(k, k, v)  # (d_k, d_v)
_, delta_state = delta_rule_recurrent(k, k, v, beta=1.0)  # (d_k, d_v)
print("read back with the key, linear attention:", plain_state.T @ key[0])
print("read back with the key, delta rule:      ", delta_state.T @ key[0])
# --8<-- [end:overwrite]
value("overwrite_plain", (plain_state.T @ key[0]).tolist())
value("overwrite_plain_text", vector_text(plain_state.T @ key[0]), zh=f"`{vector_text(plain_state.T @ key[0])}`")
value("overwrite_delta", (delta_state.T @ key[0]).tolist())
value("overwrite_delta_text", vector_text(delta_state.T @ key[0]), zh=f"`{vector_text(delta_state.T @ key[0])}`")
value("first_value", v[0].tolist())
value("first_value_text", vector_text(v[0]), zh=f"`{vector_text(v[0])}`")
value("second_value", v[1].tolist())
value("second_value_text", vector_text(v[1]), zh=f"`{vector_text(v[1])}`")

# --8<-- [start:identities]
rng = np.random.default_rng(0)
length, d_k, d_v = 24, 8, 6
q, k = rng.normal(size=(2, length, d_k))  # (L, d_k) each
k = k / np.linalg.norm(k, axis=1, keepdims=True)  # unit keys, as DeltaNet normalises them
v = rng.normal(size=(length, d_v))  # (L, d_v)
beta = rng.uniform(0.0, 1.0, size=length)  # (L,): how much of the old value each write erases
alpha = rng.uniform(0.8, 1.0, size=length)  # (L,): the gate's decay per step
recurrent_out, _ = linear_attention_recurrent(q, k, v)
gaps = {"linear: recurrence vs masked matrix form": np.abs(recurrent_out - linear_attention_parallel(q, k, v)).max()}
for gated, a in [(False, 1.0), (True, alpha)]:
    reference, final_state = delta_rule_recurrent(q, k, v, beta, a)
    for chunk in (1, 3, 4, 8, 24):
        chunked, chunked_state = delta_rule_chunked(q, k, v, beta, a, chunk)
        name = f"{'gated ' if gated else ''}delta rule: chunks of {chunk} vs recurrence"
        gaps[name] = max(np.abs(chunked - reference).max(), np.abs(chunked_state - final_state).max())
for name, gap in gaps.items():
    print(f"{name:45s} largest difference {gap:.1e}")
# --8<-- [end:identities]
value("length", length)
value("d_k", d_k)
value("d_v", d_v)
largest_gap = max(gaps.values())
chunked_gap = max(gap for name, gap in gaps.items() if "chunks of" in name)  # the chunked form's rows only
value("largest_identity_gap", largest_gap, bound_format(largest_gap))
value("chunked_gap", chunked_gap, bound_format(chunked_gap))
value("chunk_sizes", [1, 3, 4, 8, 24])
value("chunk_sizes_text", "1, 3, 4, 8 and 24", zh="1、3、4、8 和 24")

# --8<-- [start:bugs]
gated_reference, _ = delta_rule_recurrent(q, k, v, beta, alpha)
plain_reference, _ = delta_rule_recurrent(q, k, v, beta)
read_first_gated = np.abs(buggy_gated_delta_rule_reads_before_decay(q, k, v, beta, alpha)[0] - gated_reference).max()
read_first_plain = np.abs(buggy_gated_delta_rule_reads_before_decay(q, k, v, beta)[0] - plain_reference).max()
no_carry_4 = np.abs(buggy_delta_rule_chunked_without_carry(q, k, v, beta, alpha, 4)[0] - gated_reference).max()
no_carry_24 = np.abs(buggy_delta_rule_chunked_without_carry(q, k, v, beta, alpha, 24)[0] - gated_reference).max()
print(f"read before the decay, gated (alpha < 1):  largest difference {read_first_gated:.1e}")
print(f"read before the decay, alpha = 1:          largest difference {read_first_plain:.1e}")
print(f"state not carried, chunks of 4:            largest difference {no_carry_4:.1e}")
print(f"state not carried, one chunk of all 24:    largest difference {no_carry_24:.1e}")
# --8<-- [end:bugs]
value("bug_read_first_gated", read_first_gated, "{:.2f}")
value("bug_read_first_plain", read_first_plain, gap_format(read_first_plain))
value("bug_no_carry", no_carry_4, "{:.2f}")
value("bug_no_carry_one_chunk", no_carry_24, gap_format(no_carry_24))
