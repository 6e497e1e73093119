"""A tiny attention model that learns, in pure NumPy: forward pass, hand-written backward pass, Adam.

tokens -> embedding (+ sinusoidal positions) -> one attention head -> output projection -> logits.
The gradients go through the core ``scaled_dot_product_attention_backward`` and the linear layers;
nothing is differentiated automatically. Two synthetic tasks whose right attention target is known
for every example: a reference task (which animal is in the sentence?) and reversing a sequence.
"""

import numpy as np

from lib.attention import (
    padding_mask,
    scaled_dot_product_attention,
    scaled_dot_product_attention_backward,
    sinusoidal_positions,
    softmax,
)

# ---------------------------------------------------------------- the model


def init_params(vocab_size, d_model, d_k, seed):
    """Embeddings N(0, 1); projections N(0, 1/fan_in), so q, k, v start with unit-variance entries."""
    rng = np.random.default_rng(seed)

    def projection(n_in, n_out):
        return rng.normal(scale=1 / np.sqrt(n_in), size=(n_in, n_out))

    return {
        "embed": rng.normal(size=(vocab_size, d_model)),  # (V, d_model)
        "w_q": projection(d_model, d_k),  # (d_model, d_k)
        "w_k": projection(d_model, d_k),  # (d_model, d_k)
        "w_v": projection(d_model, d_model),  # (d_model, d_v), d_v = d_model
        "w_o": projection(d_model, vocab_size),  # (d_v, V)
        "b_o": np.zeros(vocab_size),  # (V,)
    }


# --8<-- [start:forward]
def forward(params, tokens, query_pos, mask=None, positions=True, scaled=True):
    """Logits for the queries at ``query_pos``, and everything the backward pass needs.

    tokens (B, L) ints; query_pos (B, Lq) ints, the positions that ask; mask broadcastable to
    (B, Lq, L), True = may attend. ``positions=False`` drops the positional encoding;
    ``scaled=False`` drops the 1/sqrt(d_k): unscaled attention is scaled attention fed sqrt(d_k) q.
    """
    d_model = params["embed"].shape[1]
    d_k = params["w_q"].shape[1]
    x = params["embed"][tokens]  # (B, L, d_model)
    if positions:
        x = x + sinusoidal_positions(tokens.shape[1], d_model)  # (B, L, d_model)
    x_q = np.take_along_axis(x, query_pos[..., None], axis=1)  # (B, Lq, d_model): the asking rows
    gain = 1.0 if scaled else np.sqrt(d_k)
    q = gain * (x_q @ params["w_q"])  # (B, Lq, d_k)
    k = x @ params["w_k"]  # (B, L, d_k)
    v = x @ params["w_v"]  # (B, L, d_v)
    out, weights = scaled_dot_product_attention(q, k, v, mask)  # (B, Lq, d_v), (B, Lq, L)
    logits = out @ params["w_o"] + params["b_o"]  # (B, Lq, V)
    cache = dict(tokens=tokens, query_pos=query_pos, mask=mask, gain=gain,
                 x=x, x_q=x_q, q=q, k=k, v=v, out=out)
    return logits, weights, cache


def cross_entropy(logits, targets):
    """Mean softmax cross-entropy over every query, and its gradient with respect to the logits."""
    probs = softmax(logits, axis=-1)  # (B, Lq, V)
    picked = np.take_along_axis(probs, targets[..., None], axis=-1)  # (B, Lq, 1): p of the right answer
    loss = -np.mean(np.log(picked))
    grad_logits = probs.copy()
    np.put_along_axis(grad_logits, targets[..., None], picked - 1, axis=-1)  # p - one_hot(target)
    return loss, grad_logits / targets.size  # (B, Lq, V): the mean divides by the number of queries
# --8<-- [end:forward]


def _rows(a):
    """(B, L, d) -> (B * L, d): one row per token, so a weight gradient is one matrix product."""
    return a.reshape(-1, a.shape[-1])


# --8<-- [start:backward]
def backward(params, grad_logits, cache):
    """Gradients of the loss with respect to every parameter: the chain rule, layer by layer, backwards."""
    grads = {}
    x, x_q, out = cache["x"], cache["x_q"], cache["out"]
    grads["w_o"] = _rows(out).T @ _rows(grad_logits)  # (d_v, V): summed over batch and queries
    grads["b_o"] = grad_logits.sum(axis=(0, 1))  # (V,)
    grad_out = grad_logits @ params["w_o"].T  # (B, Lq, d_v)
    grad_q, grad_k, grad_v = scaled_dot_product_attention_backward(
        grad_out, cache["q"], cache["k"], cache["v"], cache["mask"]
    )  # the verified core backward
    grad_q = cache["gain"] * grad_q  # (B, Lq, d_k): q = gain * x_q w_q
    grads["w_q"] = _rows(x_q).T @ _rows(grad_q)  # (d_model, d_k)
    grads["w_k"] = _rows(x).T @ _rows(grad_k)  # (d_model, d_k)
    grads["w_v"] = _rows(x).T @ _rows(grad_v)  # (d_model, d_v)
    grad_x = grad_k @ params["w_k"].T + grad_v @ params["w_v"].T  # (B, L, d_model)
    grad_x_q = grad_q @ params["w_q"].T  # (B, Lq, d_model)
    batch = np.arange(x.shape[0])[:, None]  # (B, 1)
    np.add.at(grad_x, (batch, cache["query_pos"]), grad_x_q)  # the asking rows came from x too
    grads["embed"] = np.zeros_like(params["embed"])  # (V, d_model)
    np.add.at(grads["embed"], cache["tokens"], grad_x)  # every use of a word adds to its row
    return grads  # the positional encoding is fixed: it gets no gradient
# --8<-- [end:backward]


# --8<-- [start:adam]
class Adam:
    """Adam (Kingma and Ba, 2015) with decoupled weight decay (Loshchilov and Hutter, 2019).

    Each parameter moves by lr * m_hat / (sqrt(v_hat) + eps), where m_hat and v_hat are running
    means of g and g^2; weight decay then multiplies each parameter's new value by (1 - lr * weight_decay).
    PyTorch's AdamW decays the old value, before the Adam step.
    """

    def __init__(self, params, lr=1e-2, weight_decay=0.0, beta1=0.9, beta2=0.999, eps=1e-8):
        self.lr, self.weight_decay, self.beta1, self.beta2, self.eps = lr, weight_decay, beta1, beta2, eps
        self.m = {name: np.zeros_like(p) for name, p in params.items()}
        self.v = {name: np.zeros_like(p) for name, p in params.items()}
        self.t = 0

    def step(self, params, grads):
        self.t += 1
        for name, g in grads.items():
            self.m[name] = self.beta1 * self.m[name] + (1 - self.beta1) * g
            self.v[name] = self.beta2 * self.v[name] + (1 - self.beta2) * g**2
            m_hat = self.m[name] / (1 - self.beta1**self.t)  # bias correction for the zero start
            v_hat = self.v[name] / (1 - self.beta2**self.t)
            params[name] -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
            params[name] -= self.lr * self.weight_decay * params[name]
# --8<-- [end:adam]


# --8<-- [start:train]
def train(params, make_batch, steps, rng, lr=1e-2, weight_decay=1.0, positions=True, scaled=True,
          every=0, callback=None):
    """Adam on a fresh batch per step: forward, loss, backward, update.

    Calls callback(step, params) at step 0 and then every `every` steps, for measurements.
    """
    optimiser = Adam(params, lr=lr, weight_decay=weight_decay)
    for step in range(steps + 1):
        if callback and every and step % every == 0:
            callback(step, params)
        if step == steps:
            return params
        tokens, query_pos, mask, targets, _ = make_batch(rng)
        logits, _, cache = forward(params, tokens, query_pos, mask, positions, scaled)
        _, grad_logits = cross_entropy(logits, targets)
        optimiser.step(params, backward(params, grad_logits, cache))
# --8<-- [end:train]


def evaluate(params, batch, positions=True, scaled=True):
    """Loss, accuracy, attention accuracy and the weights on a fixed batch.

    Attention accuracy is the share of queries with a known target whose largest weight lands on it.
    """
    tokens, query_pos, mask, targets, answer_pos = batch
    logits, weights, _ = forward(params, tokens, query_pos, mask, positions, scaled)
    loss, _ = cross_entropy(logits, targets)
    accuracy = np.mean(np.argmax(logits, axis=-1) == targets)
    known = answer_pos >= 0  # (B, Lq)
    attention_accuracy = np.mean(np.argmax(weights, axis=-1)[known] == answer_pos[known])
    return loss, accuracy, attention_accuracy, weights


# ---------------------------------------------------------------- task 1: who is the hungry one?

ANIMALS = ["cat", "dog", "fox", "owl", "hen", "pig", "cow", "rat"]
OBJECTS = ["mat", "rug", "box", "bed", "log", "hat", "cup", "sofa"]
VERBS = ["sat", "slept", "lay", "stood", "hid"]
PREPS = ["on", "under", "near", "by", "behind"]
TEMPLATES = [  # A animal, O object, V verb, P preposition; the animal sits at 7 different positions
    "the A V P the O . the hungry one",
    "the old A V P the O . the hungry one",
    "P the O the A V . the hungry one",
    "the O and the A V . the hungry one",
    "P the O V the A . the hungry one",
    "the O was P the A . the hungry one",
    "P the O V the old A . the hungry one",
    "a O and a O were P the A . the hungry one",
    "the O and the O were P the old A . the hungry one",
    "the A V . the hungry one",
    "the A V P the O and the O . the hungry one",
    "P a O by the O V a A . the hungry one",
]
PAD = "<pad>"
NOBODY = "nobody"
REFERENCE_VOCAB = [PAD, NOBODY, *ANIMALS, *OBJECTS, *VERBS, *PREPS,
                   "the", "a", "old", "was", "were", "and", ".", "hungry", "one"]
REFERENCE_ID = {word: i for i, word in enumerate(REFERENCE_VOCAB)}
REFERENCE_LENGTH = max(len(t.split()) for t in TEMPLATES)


def _template_codes(template):
    """Word ids for fixed words; negative codes for the slots filled per example."""
    slots = {"A": -1, "V": -4, "P": -5}
    codes, n_objects = [], 0
    for word in template.split():
        if word == "O":
            n_objects += 1
            codes.append(-1 - n_objects)  # -2 first object, -3 second object
        else:
            codes.append(slots.get(word, REFERENCE_ID.get(word)))
    return codes + [REFERENCE_ID[PAD]] * (REFERENCE_LENGTH - len(codes))


TEMPLATE_CODES = np.array([_template_codes(t) for t in TEMPLATES])  # (n_templates, L)
TEMPLATE_LENGTHS = np.array([len(t.split()) for t in TEMPLATES])  # (n_templates,)


def reference_batch(rng, batch_size, p_nobody=0.2):
    """A batch of sentences: tokens (B, L) right-padded, query_pos (B, 1) = the last word "one",
    mask (B, 1, L) hiding the padding, targets (B, 1) = the answer's id, answer_pos (B, 1).

    Each sentence has one animal (the answer) at a position that depends on the template; with
    probability p_nobody a third object takes the animal's place and the answer is "nobody"
    (answer_pos = -1: no attention target).
    """
    template = rng.integers(len(TEMPLATES), size=batch_size)  # (B,)
    codes = TEMPLATE_CODES[template]  # (B, L)
    lengths = TEMPLATE_LENGTHS[template]  # (B,)
    has_animal = rng.random(batch_size) >= p_nobody  # (B,)
    animal = np.array([REFERENCE_ID[a] for a in ANIMALS])[rng.integers(len(ANIMALS), size=batch_size)]  # (B,)
    objects = np.array([REFERENCE_ID[o] for o in OBJECTS])[
        np.argsort(rng.random((batch_size, len(OBJECTS))), axis=1)[:, :3]
    ]  # (B, 3): three different objects per sentence
    verbs = np.array([REFERENCE_ID[v] for v in VERBS])[rng.integers(len(VERBS), size=codes.shape)]  # (B, L)
    preps = np.array([REFERENCE_ID[p] for p in PREPS])[rng.integers(len(PREPS), size=codes.shape)]  # (B, L)
    in_animal_slot = np.where(has_animal, animal, objects[:, 2])[:, None]  # (B, 1)
    tokens = codes.copy()  # (B, L)
    tokens = np.where(codes == -1, in_animal_slot, tokens)
    tokens = np.where(codes == -2, objects[:, :1], tokens)
    tokens = np.where(codes == -3, objects[:, 1:2], tokens)
    tokens = np.where(codes == -4, verbs, tokens)
    tokens = np.where(codes == -5, preps, tokens)
    answer_pos = np.where(has_animal, np.argmax(codes == -1, axis=1), -1)[:, None]  # (B, 1)
    targets = np.where(has_animal, animal, REFERENCE_ID[NOBODY])[:, None]  # (B, 1)
    query_pos = (lengths - 1)[:, None]  # (B, 1): "one" asks
    return tokens, query_pos, padding_mask(lengths, REFERENCE_LENGTH), targets, answer_pos


def words(tokens):
    """Token ids -> words, without the padding."""
    return [REFERENCE_VOCAB[t] for t in tokens if REFERENCE_VOCAB[t] != PAD]


# ---------------------------------------------------------------- task 2: reverse a sequence


def reverse_batch(rng, batch_size, length=8, n_symbols=10):
    """Random digit strings; the query at position i must output the digit at position L - 1 - i.

    Returns tokens (B, L), query_pos (B, L) (every position asks), mask None, targets (B, L),
    answer_pos (B, L) = L - 1 - i, the position each query should attend to.
    """
    tokens = rng.integers(n_symbols, size=(batch_size, length))  # (B, L)
    query_pos = np.broadcast_to(np.arange(length), (batch_size, length))  # (B, L)
    answer_pos = np.broadcast_to(np.arange(length)[::-1], (batch_size, length))  # (B, L)
    targets = np.take_along_axis(tokens, answer_pos, axis=1)  # (B, L): the sequence reversed
    return tokens, query_pos, None, targets, answer_pos
