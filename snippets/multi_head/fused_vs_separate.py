"""One fused projection or h separate ones: the same multi-head attention.

"Attention Is All You Need" (section 3.2.2) writes multi-head attention with a
separate (d_model, d_k) projection per head:
    MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O,
    head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V).
Code usually keeps one fused (d_model, h * d_k) matrix and splits its output.
We build h separate matrices, run the paper's form head by head, glue the same
matrices side by side into fused ones, run the fused form, and compare. We do it
at the paper's base sizes and at the sizes of a tutorial that calls the
per-head (128, 64) matrix a mistake.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import causal_mask, multi_head_attention, scaled_dot_product_attention, split_heads
from lib.publish import table, value

rng = np.random.default_rng(7)
L = 7  # positions, as in "The cat sat on the mat."


def separate_heads(x, w_q_list, w_k_list, w_v_list, w_o, mask):
    """The paper's form: one (d_model, d_k) projection per head, then Concat(...) W^O."""
    heads = []
    for w_q_i, w_k_i, w_v_i in zip(w_q_list, w_k_list, w_v_list):
        head_i, _ = scaled_dot_product_attention(x @ w_q_i, x @ w_k_i, x @ w_v_i, mask)  # (L, d_v)
        heads.append(head_i)
    return np.concatenate(heads, axis=-1) @ w_o  # (L, h * d_v) @ (h * d_v, d_model) -> (L, d_model)


rows = []
for label, d_model, h in (("paper, base model", 512, 8), ("tutorial", 128, 2)):
    d_k = d_model // h  # = d_v
    x = rng.normal(size=(L, d_model))  # (L, d_model)
    # --8<-- [start:compare]
    w_q_list = [rng.normal(scale=d_model**-0.5, size=(d_model, d_k)) for _ in range(h)]  # h x (d_model, d_k)
    w_k_list = [rng.normal(scale=d_model**-0.5, size=(d_model, d_k)) for _ in range(h)]
    w_v_list = [rng.normal(scale=d_model**-0.5, size=(d_model, d_k)) for _ in range(h)]
    w_o = rng.normal(scale=(h * d_k) ** -0.5, size=(h * d_k, d_model))  # (h * d_v, d_model)

    w_q = np.concatenate(w_q_list, axis=1)  # (d_model, h * d_k): the separate matrices side by side
    w_k = np.concatenate(w_k_list, axis=1)  # (d_model, h * d_k)
    w_v = np.concatenate(w_v_list, axis=1)  # (d_model, h * d_v)

    mask = causal_mask(L)  # (L, L)
    paper_form = separate_heads(x, w_q_list, w_k_list, w_v_list, w_o, mask)  # (L, d_model)
    fused_form, _ = multi_head_attention(x, w_q, w_k, w_v, w_o, h, mask)  # (L, d_model)
    error = np.max(np.abs(paper_form - fused_form))
    # --8<-- [end:compare]

    # The other direction: the columns of a fused matrix ARE per-head matrices.
    sliced = max(
        np.max(np.abs(split_heads(x @ w_q, h)[i] - x @ w_q[:, i * d_k : (i + 1) * d_k])) for i in range(h)
    )
    n_separate = sum(w.size for w in w_q_list)
    rows.append([d_model, h, d_k, f"({d_model}, {d_k})", f"({d_model}, {h * d_k})", n_separate, w_q.size,
                 f"{error:.1e}", f"{sliced:.1e}"])
    key = "paper" if label.startswith("paper") else "tutorial"
    value(f"{key}_d_model", d_model)
    value(f"{key}_h", h)
    value(f"{key}_d_k", d_k)
    value(f"{key}_max_error", error, "{:.1e}")
    value(f"{key}_slice_error", sliced, "{:.1e}")
    value(f"{key}_params_w_q", w_q.size)

# What WOULD lose the heads (tutorial sizes): one (d_model, d_k) matrix reused by every head.
shared = [w_q_list[0]] * h, [w_k_list[0]] * h  # h references to one matrix each
same_weights = [scaled_dot_product_attention(x @ wq, x @ wk, x @ wk, mask)[1] for wq, wk in zip(*shared)]  # (L, L) each
value("shared_heads_difference", max(np.max(np.abs(w - same_weights[0])) for w in same_weights), "{:.1f}")
own_weights = [scaled_dot_product_attention(x @ wq, x @ wk, x @ wk, mask)[1] for wq, wk in zip(w_q_list, w_k_list)]
value("separate_heads_difference", max(np.max(np.abs(w - own_weights[0])) for w in own_weights), "{:.2f}")

# What splitting costs and needs (tutorial sizes): the scores' multiply-adds of h heads of width d_k against one head
# of width d_model, and the scores of the unsplit Q and K.
q_heads, k_heads = split_heads(x @ w_q, h), split_heads(x @ w_k, h)  # (h, L, d_k) each
value("n_positions", L)
value("madds_heads", sum(q_i.shape[0] * k_i.shape[0] * q_i.shape[1] for q_i, k_i in zip(q_heads, k_heads)), "{:,}")
value("madds_one_head", L * L * d_model, "{:,}")  # one (L, d_model) @ (d_model, L) product
value("unsplit_scores_shape", str(((x @ w_q) @ (x @ w_k).T).shape))  # both d_model wide: the shapes fit

quantities = ["d_model", "h (heads)", "d_k = d_v = d_model / h", "one head's W_i^Q", "fused W^Q",
              "parameters: h separate W_i^Q", "parameters: fused W^Q", "max abs difference: separate vs fused output",
              "max abs difference: slice of fused vs x @ W_i^Q"]
table("fused_vs_separate", ["quantity", "paper, base model", "tutorial"], [[q, *r] for q, *r in zip(quantities, *rows)])
