"""lib.sink_model: its gradients against finite differences, its task against a loop, its window mask against the
rolling cache, first_value=False, and its errors."""

import numpy as np
import pytest

from lib.attention import causal_mask, merge_heads, multi_head_attention, split_heads
from lib.sink_model import (
    BOS,
    CONFIG,
    VARIANTS,
    forward,
    init_variant,
    loss_and_gradients,
    sink_batch,
    vocabulary,
    window_mask,
)
from lib.window_cache import RollingKVCache, decode_in_chunks
from support import numeric_gradient

rng = np.random.default_rng(77)
SMALL = dict(CONFIG, d_model=8, n_heads=2, seq_len=6)


def small_params(variant, seed=3):
    params = init_variant(variant, SMALL, seed)
    if variant == "sink":
        params["sink"] = np.array([0.3, -0.5])  # a sink that takes some weight, differently per head
    if variant == "qk-norm":
        params["q_gain"] = params["q_gain"] + 0.2 * rng.normal(size=params["q_gain"].shape)
        params["k_gain"] = params["k_gain"] + 0.2 * rng.normal(size=params["k_gain"].shape)
    return params


# ------------------------------------------------------------------ gradients
@pytest.mark.parametrize("variant", VARIANTS)
def test_gradients_match_central_finite_differences(variant):
    params = small_params(variant)
    tokens, targets, _ = sink_batch(np.random.default_rng(5), 3, SMALL)
    loss, grads = loss_and_gradients(params, tokens, targets, variant, SMALL["n_heads"])
    assert set(grads) == set(params)  # every parameter has a gradient, and nothing else does
    for name, value in params.items():
        assert grads[name].shape == value.shape, name
        numeric = numeric_gradient(
            lambda: loss_and_gradients(params, tokens, targets, variant, SMALL["n_heads"])[0], value
        )
        scale = max(np.abs(numeric).max(), 1e-3)
        np.testing.assert_allclose(grads[name], numeric, rtol=1e-7, atol=1e-7 * scale, err_msg=f"{variant}: {name}")


# ------------------------------------------------------------------ the task
def loop_targets(sequence, signals, query):
    """Targets and kinds of one sequence, position by position."""
    targets, kinds, seen = [], [], 0
    for token in sequence:
        if token in signals:
            seen = token
        if token == query:
            targets.append(seen)
            kinds.append(2 if seen else 1)
        else:
            targets.append(token)
            kinds.append(0)
    return targets, kinds


@pytest.mark.parametrize("bos", [True, False])
def test_sink_batch_matches_a_plain_loop(bos):
    config = dict(CONFIG, bos=bos)
    signals, query, vocab_size = vocabulary(config)
    tokens, targets, kind = sink_batch(np.random.default_rng(11), 300, config)
    assert tokens.shape == targets.shape == kind.shape == (300, config["seq_len"])
    assert ((tokens >= 0) & (tokens < vocab_size)).all()
    signal_set = set(signals.tolist())
    for sequence, target_row, kind_row in zip(tokens.tolist(), targets.tolist(), kind.tolist()):
        if bos:
            assert sequence[0] == BOS
        assert sum(token in signal_set for token in sequence) <= 1
        assert BOS not in sequence[1:]
        assert (target_row, kind_row) == loop_targets(sequence, signal_set, query)
    assert {0, 1, 2} <= set(kind.ravel().tolist())  # every kind of query occurs
    with_signal = np.isin(tokens, signals).any(axis=1)
    assert 0.3 < with_signal.mean() < 0.7


# ------------------------------------------------------------------ the window mask and the rolling cache
@pytest.mark.parametrize("chunk", [1, 3])
@pytest.mark.parametrize("sinks", [0, 1, 2])
def test_window_mask_is_what_the_rolling_cache_lets_each_query_see(chunk, sinks):
    length, d_model, n_heads, window = 11, 8, 2, 4
    x = rng.normal(size=(length, d_model))
    w_q, w_k, w_v, w_o = (rng.normal(scale=d_model**-0.5, size=(d_model, d_model)) for _ in range(4))
    decoded, _ = decode_in_chunks(x, w_q, w_k, w_v, w_o, n_heads, window, chunk, sinks=sinks)
    full, _ = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, mask=window_mask(length, window, sinks))
    assert np.abs(decoded - full).max() <= 1e-12


@pytest.mark.parametrize("sinks", [0, 1, 3])
def test_window_mask_keeps_the_first_positions_and_the_last_window_minus_sinks(sinks):
    length, window = 9, 4
    mask = window_mask(length, window, sinks)
    for i in range(length):
        seen = {j for j in range(length) if mask[i, j]}
        assert seen == {j for j in range(i + 1) if j < sinks or j > i - (window - sinks)}


@pytest.mark.parametrize("sinks", [4, 5])
def test_a_cache_with_sinks_filling_the_window_is_refused(sinks):
    with pytest.raises(ValueError, match=rf"sinks \({sinks}\)"):
        RollingKVCache(2, 4, 4, sinks=sinks)


# ------------------------------------------------------------------ first_value=False
@pytest.mark.parametrize("variant", VARIANTS)
def test_hiding_the_first_key_makes_its_value_irrelevant(variant):
    params = small_params(variant)
    tokens, _, _ = sink_batch(np.random.default_rng(8), 4, SMALL)
    mask = causal_mask(SMALL["seq_len"])
    mask[1:, 0] = False  # only query 0 may read position 0
    with_first, _ = forward(params, tokens, variant, SMALL["n_heads"], mask)
    without_first, _ = forward(params, tokens, variant, SMALL["n_heads"], mask, first_value=False)
    assert np.abs(with_first[:, 1:] - without_first[:, 1:]).max() <= 1e-12
    if variant not in ("sink", "plus one"):  # query 0 puts all its weight on position 0
        assert np.abs(with_first[:, 0] - without_first[:, 0]).max() > 1e-6


@pytest.mark.parametrize("variant", VARIANTS)
def test_first_value_false_equals_zeroing_the_first_value_row(variant):
    params, n_heads = small_params(variant), SMALL["n_heads"]
    tokens, _, _ = sink_batch(np.random.default_rng(9), 4, SMALL)
    logits, cache = forward(params, tokens, variant, n_heads, first_value=False)
    _, full = forward(params, tokens, variant, n_heads)
    v = split_heads(full["x"] @ params["0.w_v"], n_heads)  # (B, h, L, d_head)
    v[..., 0, :] = 0.0
    merged = merge_heads(full["weights"] @ v)  # the weights do not depend on the values
    want = (full["x"] + (merged * full["gate"]) @ params["0.w_o"]) @ params["unembed"]
    assert np.abs(logits - want).max() <= 1e-12
    np.testing.assert_array_equal(cache["weights"], full["weights"])


# ------------------------------------------------------------------ errors
def test_an_unknown_variant_is_named():
    with pytest.raises(ValueError, match="unknown variant 'relu'"):
        init_variant("relu", SMALL, 0)


def test_d_model_not_divisible_by_n_heads_is_named():
    with pytest.raises(ValueError, match="d_model = 10 is not divisible by n_heads = 3"):
        init_variant("softmax", dict(SMALL, d_model=10, n_heads=3), 0)
