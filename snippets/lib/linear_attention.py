"""Linear attention and the delta rule: a d_k x d_v state instead of a cache of every key and value.

Without the softmax, causal attention o_t = sum_{j <= t} (q_t . k_j) v_j can be regrouped as o_t = S_t^T q_t with
the **state** S_t = sum_{j <= t} k_j v_j^T, a d_k x d_v matrix that one step updates by an outer product:

- **linear attention** (Katharopoulos et al. 2020; unnormalised, as Schlag et al. 2021 study it):
  S_t = S_{t-1} + k_t v_t^T;
- the **delta rule** (Schlag et al. 2021, DeltaNet; Yang et al. 2024): read what the key holds, S_{t-1}^T k_t, and
  replace a share beta_t of it by the new value: S_t = S_{t-1} + beta_t k_t (v_t - S_{t-1}^T k_t)^T;
- the **gated delta rule** (Gated DeltaNet, Yang, Kautz and Hatamizadeh 2024): first decay the whole state by
  alpha_t in (0, 1], then apply the delta rule: S_t = alpha_t (I - beta_t k_t k_t^T) S_{t-1} + beta_t k_t v_t^T.

The papers write the state transposed (d_v x d_k, o_t = S_t q_t, S_t = S_{t-1}(alpha_t (I - beta_t k_t k_t^T))
+ beta_t v_t k_t^T); here the state's rows are indexed by the key's coordinates, as a key indexes a row of K.

``delta_rule_chunked`` computes the same outputs a chunk of C positions at a time with matrix products only (the
WY/UT form of Yang et al. 2024): inside a chunk the pseudo-values u_i = beta_i (v_i - alpha_i S_{i-1}^T k_i) solve
one lower-triangular system, so a chunk needs the state only at its start.

The two ``buggy_`` functions are mistakes kept for the chapter and its tests only.
"""

import numpy as np

from lib.attention import causal_mask, check_whole_number


def _check_sequence(q, k, v):
    """q, k (L, d_k) and v (L, d_v) as float64 arrays, or a ValueError naming the shapes."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    if q.ndim != 2 or k.ndim != 2 or v.ndim != 2:
        raise ValueError(f"q, k and v must be 2-D (L, d): got shapes {q.shape}, {k.shape}, {v.shape}")
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same shape (L, d_k): got {q.shape} and {k.shape}")
    if v.shape[0] != k.shape[0]:
        raise ValueError(f"v must have one row per position: k has {k.shape[0]} rows (L), v has {v.shape[0]}")
    return q, k, v


def _check_gates(gate, length, name, allow_zero):
    """A per-position gate (a number or an (L,) array) as an (L,) float64 array in [0, 1] or (0, 1]."""
    gate = np.broadcast_to(np.asarray(gate, dtype=np.float64), (length,)) if np.ndim(gate) == 0 else \
        np.asarray(gate, dtype=np.float64)
    if gate.shape != (length,):
        raise ValueError(f"{name} must be a number or one value per position, shape ({length},): got {gate.shape}")
    low_ok = gate >= 0 if allow_zero else gate > 0
    if not np.all(low_ok & (gate <= 1)):
        interval = "[0, 1]" if allow_zero else "(0, 1]"
        raise ValueError(f"{name} must lie in {interval}: got values from {gate.min()} to {gate.max()}")
    return gate


def _check_state(state, d_k, d_v):
    """The initial state: zeros when None, else a (d_k, d_v) float64 array."""
    if state is None:
        return np.zeros((d_k, d_v))
    state = np.asarray(state, dtype=np.float64)
    if state.shape != (d_k, d_v):
        raise ValueError(f"the state must be (d_k, d_v) = ({d_k}, {d_v}): got {state.shape}")
    return state


# --8<-- [start:linear]
def linear_attention_recurrent(q, k, v, state=None):
    """Causal linear attention one position at a time: S_t = S_{t-1} + k_t v_t^T, o_t = S_t^T q_t.

    q, k (L, d_k), v (L, d_v) -> outputs (L, d_v) and the final state (d_k, d_v).
    """
    q, k, v = _check_sequence(q, k, v)
    state = _check_state(state, k.shape[1], v.shape[1]).copy()  # (d_k, d_v)
    outputs = np.zeros((len(q), v.shape[1]))  # (L, d_v)
    for t in range(len(q)):
        state += np.outer(k[t], v[t])  # write: add the pair, whatever the key already held
        outputs[t] = state.T @ q[t]  # read: (d_v,)
    return outputs, state


def linear_attention_parallel(q, k, v):
    """The same outputs all at once: ((q k^T) masked causally) v, with no softmax and no scaling: (L, d_v)."""
    q, k, v = _check_sequence(q, k, v)
    scores = np.where(causal_mask(len(q)), q @ k.T, 0.0)  # (L, L): q_t . k_j for j <= t, else 0
    return scores @ v  # (L, d_v)
# --8<-- [end:linear]


# --8<-- [start:delta]
def delta_rule_recurrent(q, k, v, beta, alpha=1.0, state=None):
    """The (gated) delta rule one position at a time: (L, d_v) outputs and the final (d_k, d_v) state.

    S_t = alpha_t (I - beta_t k_t k_t^T) S_{t-1} + beta_t k_t v_t^T, o_t = S_t^T q_t. With alpha = 1 it is DeltaNet's
    rule; beta_t (in [0, 1]) is how much of the old value the key's row gives up for the new one.
    """
    q, k, v = _check_sequence(q, k, v)
    beta = _check_gates(beta, len(q), "beta", allow_zero=True)
    alpha = _check_gates(alpha, len(q), "alpha", allow_zero=False)
    state = _check_state(state, k.shape[1], v.shape[1]).copy()  # (d_k, d_v)
    outputs = np.zeros((len(q), v.shape[1]))  # (L, d_v)
    for t in range(len(q)):
        state = alpha[t] * state  # forget a share of everything (the gate)
        old = state.T @ k[t]  # (d_v,): what the key reads now
        state = state + beta[t] * np.outer(k[t], v[t] - old)  # erase a share beta of it, write the new value
        outputs[t] = state.T @ q[t]  # (d_v,)
    return outputs, state
# --8<-- [end:delta]


# --8<-- [start:chunked]
def delta_rule_chunked(q, k, v, beta, alpha=1.0, chunk=4, state=None):
    """The gated delta rule a chunk of ``chunk`` positions at a time, with matrix products inside each chunk.

    Inside a chunk starting from state S0, with g_i = alpha_1 ... alpha_i (decay since the chunk began):
      U = T diag(beta) (V - diag(g) K S0),  T = (I + A)^-1,  A_ij = beta_i (g_i / g_j) k_i . k_j for j < i
      O = diag(g) Q S0 + ((Q K^T) * (g_i / g_j) on and below the diagonal) U
      S = g_C S0 + K^T diag(g_C / g) U
    U holds the pseudo-values u_i = beta_i (v_i - alpha_i S_{i-1}^T k_i): the state is written as S0 plus k_i u_i^T.
    """
    q, k, v = _check_sequence(q, k, v)
    chunk = check_whole_number(chunk, "the chunk", "positions")
    beta = _check_gates(beta, len(q), "beta", allow_zero=True)
    alpha = _check_gates(alpha, len(q), "alpha", allow_zero=False)
    state = _check_state(state, k.shape[1], v.shape[1]).copy()  # (d_k, d_v)
    outputs = np.zeros((len(q), v.shape[1]))  # (L, d_v)
    for start in range(0, len(q), chunk):
        rows = slice(start, min(start + chunk, len(q)))
        q_c, k_c, v_c, b_c = q[rows], k[rows], v[rows], beta[rows]  # (C, d_k), (C, d_k), (C, d_v), (C,)
        g = np.cumprod(alpha[rows])  # (C,): decay from the chunk's start to each position
        ratio = g[:, None] / g[None, :]  # (C, C): g_i / g_j, the decay from j to i
        c = len(g)
        a = np.tril(b_c[:, None] * ratio * (k_c @ k_c.T), -1)  # (C, C), strictly lower: what earlier writes cost
        t_inv = np.eye(c) + a  # (C, C), unit lower-triangular
        w = np.linalg.solve(t_inv, (b_c * g)[:, None] * k_c)  # (C, d_k): the WY form's W = T diag(beta g) K
        u_v = np.linalg.solve(t_inv, b_c[:, None] * v_c)  # (C, d_v): T diag(beta) V
        u = u_v - w @ state  # (C, d_v): the pseudo-values, once the chunk's starting state is known
        inside = np.tril((q_c @ k_c.T) * ratio)  # (C, C): q_i . k_j decayed from j to i, for j <= i
        outputs[rows] = g[:, None] * (q_c @ state) + inside @ u  # (C, d_v)
        state = g[-1] * state + k_c.T @ ((g[-1] / g)[:, None] * u)  # (d_k, d_v): the state after the chunk
    return outputs, state
# --8<-- [end:chunked]


def buggy_gated_delta_rule_reads_before_decay(q, k, v, beta, alpha=1.0):
    """A classic mistake: read S_{t-1}^T k_t *before* the decay, then decay the state and write.

    It computes S_t = alpha_t S_{t-1} + beta_t k_t (v_t - S_{t-1}^T k_t)^T: the erase removes the undecayed old
    value from a decayed state. With alpha = 1 it is the right rule; with any alpha < 1 it is not.
    """
    q, k, v = _check_sequence(q, k, v)
    beta = _check_gates(beta, len(q), "beta", allow_zero=True)
    alpha = _check_gates(alpha, len(q), "alpha", allow_zero=False)
    state = np.zeros((k.shape[1], v.shape[1]))
    outputs = np.zeros((len(q), v.shape[1]))
    for t in range(len(q)):
        old = state.T @ k[t]  # read first (wrong)
        state = alpha[t] * state + beta[t] * np.outer(k[t], v[t] - old)
        outputs[t] = state.T @ q[t]
    return outputs, state


def buggy_delta_rule_chunked_without_carry(q, k, v, beta, alpha=1.0, chunk=4):
    """A classic mistake in the chunked form: each chunk starts from a zero state (the carried state is dropped).

    Right when one chunk covers the whole sequence; wrong as soon as there are two chunks.
    """
    q, k, v = _check_sequence(q, k, v)
    chunk = check_whole_number(chunk, "the chunk", "positions")
    beta = _check_gates(beta, len(q), "beta", allow_zero=True)
    alpha = _check_gates(alpha, len(q), "alpha", allow_zero=False)
    parts = [delta_rule_chunked(q[s:s + chunk], k[s:s + chunk], v[s:s + chunk], beta[s:s + chunk],
                                alpha[s:s + chunk], chunk)[0] for s in range(0, len(q), chunk)]
    return np.vstack(parts), None


# --8<-- [start:memory]
def state_entries(n_heads, d_k, d_v):
    """Numbers a linear-attention layer keeps, whatever the context length: one d_k x d_v state per head."""
    return n_heads * d_k * d_v


def kv_cache_entries(n_kv_heads, head_dim, length):
    """Numbers a full-attention layer keeps after ``length`` tokens: a key and a value per KV head and token."""
    return 2 * n_kv_heads * head_dim * length
# --8<-- [end:memory]
