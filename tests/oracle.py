"""An independent oracle for attention: plain Python loops over positions, one number at a time.

It shares no code with snippets/lib/attention.py; tests compare the two.
"""

import math


def softmax_row(row):
    """Softmax of a list of floats, -inf allowed; an all -inf row gives zeros."""
    finite = [x for x in row if x != -math.inf]
    if not finite:
        return [0.0] * len(row)
    top = max(finite)
    exps = [0.0 if x == -math.inf else math.exp(x - top) for x in row]
    total = sum(exps)
    return [e / total for e in exps]


def attention(q, k, v, allowed=None):
    """q: Lq lists of d_k floats; k: Lk lists; v: Lk lists of d_v; allowed[i][j] True = may attend."""
    d_k = len(q[0])
    outputs, weights = [], []
    for i, query in enumerate(q):
        scores = []
        for j, key in enumerate(k):
            if allowed is not None and not allowed[i][j]:
                scores.append(-math.inf)
            else:
                scores.append(sum(a * b for a, b in zip(query, key)) / math.sqrt(d_k))
        row = softmax_row(scores)
        weights.append(row)
        outputs.append([sum(row[j] * v[j][c] for j in range(len(k))) for c in range(len(v[0]))])
    return outputs, weights


def positional_encoding(p, dim, d_model):
    """One entry of the sinusoidal encoding, straight from section 3.5 of the paper."""
    pair = dim // 2
    angle = p / 10000 ** (2 * pair / d_model)
    return math.sin(angle) if dim % 2 == 0 else math.cos(angle)
