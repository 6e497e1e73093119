"""What a state remembers: store n key-value pairs, query every key, count the values that come back right.

Keys are random unit vectors in d_k dimensions, values random unit vectors in d_v = 64. Each memory stores the n
pairs in order, then is queried with each stored key. A pair counts as **recalled** when the vector read back is
closer (by cosine) to its own value than to any of the other n - 1 stored values; the snippet also measures how
exactly it comes back, as the mean cosine between the vector read back and its own value. Four memories read the
same pairs:

- linear attention: the state S = sum k_i v_i^T (d_k x d_v numbers), read as S^T k;
- the delta rule with beta = 1, keys presented once, in order (the same d_k x d_v numbers);
- the same delta rule with the n pairs presented ten times over (ten passes): still d_k x d_v numbers;
- softmax attention over all n stored pairs (the core's scaled_dot_product_attention): it keeps every key and value,
  n x (d_k + d_v) numbers. Its queries are the keys times 8 sqrt(d_k), so that a score is 8 x the cosine.

No model is trained: this measures memories, not language models.
"""

import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/, so that `lib` imports
from lib.attention import scaled_dot_product_attention
from lib.linear_attention import delta_rule_recurrent, linear_attention_recurrent
from lib.publish import table, value

# --8<-- [start:recall]
d_v, sharpness, n_draws = 64, 8.0, 4
d_ks = [16, 32, 64]
ns = [1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256]


def unit_rows(rng, n, d):
    x = rng.normal(size=(n, d))
    return x / np.linalg.norm(x, axis=1, keepdims=True)  # (n, d), each row of length 1


def recalled(read, values):
    """Share of pairs whose read-back row is closer by cosine to its own value than to every other stored one."""
    cosines = (read / np.linalg.norm(read, axis=1, keepdims=True)) @ values.T  # (n, n); values have length 1
    return np.mean(cosines.argmax(axis=1) == np.arange(len(values)))


def exactness(read, values):
    """Mean cosine between each read-back row and its own value: 1 when every value comes back exactly."""
    return np.mean(np.sum(read * values, axis=1) / np.linalg.norm(read, axis=1))


def read_back(method, keys, values):
    """(n, d_v): what each method returns when queried with each stored key."""
    if method == "softmax attention":
        q = keys * sharpness * np.sqrt(keys.shape[1])  # scores = sharpness x cosine, after the core's 1/sqrt(d_k)
        return scaled_dot_product_attention(q, keys, values)[0]
    if method == "linear attention":
        state = linear_attention_recurrent(keys, keys, values)[1]  # (d_k, d_v)
    else:
        passes = 10 if "10 passes" in method else 1
        repeated = np.tile(keys, (passes, 1)), np.tile(values, (passes, 1))  # the pairs, presented `passes` times
        state = delta_rule_recurrent(repeated[0], repeated[0], repeated[1], beta=1.0)[1]  # (d_k, d_v)
    return keys @ state  # (n, d_v): row i is S^T k_i


methods = ["linear attention", "delta rule, 1 pass", "delta rule, 10 passes", "softmax attention"]
recall = np.zeros((len(d_ks), len(methods), len(ns)))
cosine = np.zeros((len(d_ks), len(methods), len(ns)))
for a, d_k in enumerate(d_ks):
    for c, n in enumerate(ns):
        for draw in range(n_draws):
            rng = np.random.default_rng([d_k, n, draw])
            keys, values = unit_rows(rng, n, d_k), unit_rows(rng, n, d_v)
            for b, method in enumerate(methods):
                read = read_back(method, keys, values)  # (n, d_v)
                recall[a, b, c] += recalled(read, values) / n_draws
                cosine[a, b, c] += exactness(read, values) / n_draws
for a, d_k in enumerate(d_ks):
    print(f"d_k = {d_k}, n = {ns[::3]}: share of pairs recalled | mean cosine with the own value")
    for b, method in enumerate(methods):
        print(f"  {method:22s}", np.round(recall[a, b, ::3], 2), "|", np.round(cosine[a, b, ::3], 2))
# --8<-- [end:recall]


def last_full(curve, threshold=0.99):
    """The largest n up to which every measured n reaches `threshold` (0 if none)."""
    good = 0
    for n, r in zip(ns, curve):
        if r < threshold:
            break
        good = n
    return good


names = {"linear attention": "linear", "delta rule, 1 pass": "delta1", "delta rule, 10 passes": "delta10",
         "softmax attention": "softmax"}
rows = []
for a, d_k in enumerate(d_ks):
    for b, method in enumerate(methods):
        at = {n: ns.index(n) for n in (d_k // 2, d_k, 2 * d_k, ns[-1])}
        rows.append([d_k, method, last_full(recall[a, b]), last_full(cosine[a, b]),
                     *(f"{recall[a, b, i]:.2f} / {cosine[a, b, i]:.2f}" for i in at.values())])
        key = f"{names[method]}_{d_k}"
        value(f"{key}_recalled_up_to", last_full(recall[a, b]))
        value(f"{key}_exact_up_to", last_full(cosine[a, b]))
        for label, i in zip(["half", "dk", "2dk", "max"], at.values()):
            value(f"{key}_recall_{label}", recall[a, b, i], "{:.2f}")
            value(f"{key}_cosine_{label}", cosine[a, b, i], "{:.2f}")
table("recall", ["d_k", "memory", "recalled >= 0.99 up to n", "mean cosine >= 0.99 up to n",
                 "n = d_k / 2: recalled / cosine", "n = d_k", "n = 2 d_k", f"n = {ns[-1]}"], rows, fmt="{}")

value("d_v", d_v)
value("sharpness", sharpness, "{:g}")
value("n_draws", n_draws)
value("d_ks", d_ks)
value("d_ks_text", "16, 32 and 64", zh="16、32 和 64")
assert d_ks == [16, 32, 64]  # the words above
value("n_max", ns[-1])
value("ns", ns)
value("recall_curves", {f"{names[m]}_{d_k}": recall[a, b].round(6).tolist()
                        for a, d_k in enumerate(d_ks) for b, m in enumerate(methods)}, "(the figure's curves)")
value("cosine_curves", {f"{names[m]}_{d_k}": cosine[a, b].round(6).tolist()
                        for a, d_k in enumerate(d_ks) for b, m in enumerate(methods)}, "(the figure's curves)")

fig, axes = plt.subplots(2, len(d_ks), figsize=(12, 6.4), num="recall", layout="constrained", sharey=True,
                         sharex=True)
for a, d_k in enumerate(d_ks):
    for row, (data, label) in enumerate([(recall, "share of pairs recalled"),
                                         (cosine, "mean cosine with its own value")]):
        ax = axes[row, a]
        for b, method in enumerate(methods):
            ax.plot(ns, data[a, b], marker="o", markersize=3, label=method)
        ax.axvline(d_k, color="0.5", linestyle=":", linewidth=1)
        ax.set_xscale("log", base=2)
        ax.set_ylim(0, 1.02)
        if row == 0:
            ax.set_title(f"d_k = {d_k}")
        else:
            ax.set_xlabel("pairs stored, n")
        if a == 0:
            ax.set_ylabel(label)
axes[1, 0].legend(loc="lower left", fontsize=8)

value("softmax_recall_min", recall[:, 3].min(), "{:.2f}")
value("softmax_cosine_min", cosine[:, 3].min(), "{:.2f}")
for d_k in d_ks:
    value(f"state_numbers_{d_k}", d_k * d_v)  # what linear attention and the delta rule keep
    value(f"cache_numbers_{d_k}", ns[-1] * (d_k + d_v))  # what softmax attention keeps for n_max pairs

# --8<-- [start:order]
for d_k in d_ks:  # the delta rule, 1 pass, n = 2 d_k: which pairs come back, by when they were written
    n, first, last = 2 * d_k, [], []
    for draw in range(n_draws):
        rng = np.random.default_rng([d_k, n, draw])  # the same draws as above
        keys, values = unit_rows(rng, n, d_k), unit_rows(rng, n, d_v)
        read = read_back("delta rule, 1 pass", keys, values)
        cosines = (read / np.linalg.norm(read, axis=1, keepdims=True)) @ values.T  # (n, n)
        hit = cosines.argmax(axis=1) == np.arange(n)  # (n,): pair i recalled
        first.append(hit[: d_k // 2].mean())
        last.append(hit[-(d_k // 2):].mean())
    print(f"d_k = {d_k}, n = {n}: recalled among the first {d_k // 2} pairs written {np.mean(first):.2f}, "
          f"among the last {d_k // 2} {np.mean(last):.2f}")
    value(f"delta1_{d_k}_oldest", np.mean(first), "{:.2f}")
    value(f"delta1_{d_k}_newest", np.mean(last), "{:.2f}")
# --8<-- [end:order]
