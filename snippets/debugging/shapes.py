"""Shape errors: which line raises "operands could not be broadcast together".

Seed 000 hard-codes a 6 x 6 causal mask. Our running sentence has 7 tokens, so
the seed's code fails at the mask, not at Q, K or V. We capture each error
message, show which diagnostic finds it, fix it, and then show a head-split bug
that raises nothing at all.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, scaled_dot_product_attention
from lib.debug_tools import capture_error, naive_softmax, shape_report
from lib.publish import value
from lib.running_example import SENTENCE, embed, tokenize

rng = np.random.default_rng(0)
tokens = tokenize(SENTENCE)  # 7 tokens
d_model, n_heads = 128, 2  # seed 000's sizes
d_head = d_model // n_heads  # 64
x = embed(tokens, d_model)  # (7, 128)
w_q, w_k, w_v = (rng.normal(scale=d_model**-0.5, size=(d_model, d_model)) for _ in range(3))


def head0(x, w):
    """Project, split into heads, keep head 0 (seed 000's section 4.1)."""
    L = x.shape[0]
    return (x @ w).reshape(L, n_heads, d_head).transpose(1, 0, 2)[0]  # (L, 64)


# --8<-- [start:seed]
def seed_style_attention(x, w_q, w_k, w_v):
    """Seed 000's head 0, with its hard-coded mask."""
    q, k, v = head0(x, w_q), head0(x, w_k), head0(x, w_v)  # each (L, 64)
    print("seed's check  ->", shape_report(Q=q, K=k, V=v))
    scores = q @ k.T / np.sqrt(d_head)  # (L, L)
    mask = np.triu(np.ones((6, 6)), k=1)  # (6, 6): for 6-word sentences
    print("better check  ->", shape_report(scores=scores, mask=mask))
    scores = scores - 1e9 * mask  # raises unless L == 6
    return naive_softmax(scores) @ v


seed_error = capture_error(lambda: seed_style_attention(x, w_q, w_k, w_v))
print(seed_error)
# --8<-- [end:seed]
value("seed_broadcast_error", seed_error)

# --8<-- [start:others]
q, k, v = x @ w_q[:, :d_head], x @ w_k, x @ w_v  # q (7, 64), k (7, 128)
errors = {
    "naive q @ k.T": capture_error(lambda: q @ k.T),
    "core attention": capture_error(
        lambda: scaled_dot_product_attention(q, k, v)
    ),
    "batched matmul": capture_error(
        lambda: np.ones((2, 7, 64)) @ np.ones((3, 64, 7))
    ),
    "core, 6x6 mask": capture_error(  # the scores are (7, 7)
        lambda: scaled_dot_product_attention(x, x, x, mask=causal_mask(6))
    ),
    "bad reshape": capture_error(lambda: (x @ w_q).reshape(7, n_heads, 32)),
}
for where, message in errors.items():
    print(f"{where:15s} {message}")
# --8<-- [end:others]
value("naive_matmul_error", errors["naive q @ k.T"])
value("core_qk_error", errors["core attention"])
value("batch_broadcast_error", errors["batched matmul"])
value("core_mask_error", errors["core, 6x6 mask"])
value("reshape_error", errors["bad reshape"])


# --8<-- [start:fix]
def fixed_attention(x, w_q, w_k, w_v):
    """The same head, with the mask built from the sentence's length."""
    q, k, v = head0(x, w_q), head0(x, w_k), head0(x, w_v)  # each (L, 64)
    mask = causal_mask(x.shape[0])  # (L, L)
    output, _ = scaled_dot_product_attention(q, k, v, mask)  # (L, 64)
    return output


for n_words in (5, 6, 7):
    output = fixed_attention(x[:n_words], w_q, w_k, w_v)
    print(f"{n_words} tokens -> output {output.shape}")
# --8<-- [end:fix]
first = slice(0, d_head)  # head 0's weight columns
reference, _ = scaled_dot_product_attention(
    x @ w_q[:, first], x @ w_k[:, first], x @ w_v[:, first], mask=causal_mask(7)
)
fixed_error = np.max(np.abs(fixed_attention(x, w_q, w_k, w_v) - reference))
value("fixed_max_error", fixed_error, "{:.1e}")

# --8<-- [start:silent]
L = len(tokens)
projected = x @ w_q  # (L, d_model)
right = projected.reshape(L, n_heads, d_head).transpose(1, 0, 2)  # (h, L, d)
wrong = projected.reshape(n_heads, L, d_head)  # (h, L, d), rows scrambled
per_head = np.stack(  # head h uses columns h*d_head ... (h+1)*d_head of W_q
    [x @ w_q[:, h * d_head : (h + 1) * d_head] for h in range(n_heads)]
)  # (h, L, d_head)
print("right split vs per-head:", np.max(np.abs(right - per_head)))
print("wrong split vs per-head:", np.max(np.abs(wrong - per_head)).round(3))
# --8<-- [end:silent]
value("right_split_error", np.max(np.abs(right - per_head)), "{:.1e}")
value("wrong_split_error", np.max(np.abs(wrong - per_head)), "{:.2f}")
value("n_tokens", L)
