"""Claims about sliding windows and cross-attention (G-07 to G-14): each verdict against an independent
recomputation (loops written from the window rule, closed-form position counts, the paper's words)."""

import numpy as np

from lib.window_cache import attend_chunk, attend_chunk_trimmed_first, decode_in_chunks
from support import INVENTORY, W, X, attend, claim, kind, oracle_attention, v


def window(n, w):
    return [[i - w < j <= i for j in range(n)] for i in range(n)]


@claim("G-07")
def test_g07_a_stack_reaches_beyond_one_window():
    # two layers of the loop oracle with W = 2 on seven tokens: the last output moves when token 4 (two back) moves
    def two_layers(x):
        h, _ = attend(x, W, window(7, 2))
        out, _ = attend(x + h, W, window(7, 2))
        return x + h + out

    nudged = X.copy()
    nudged[4] += 1.0
    one_layer_moves = np.abs(attend(nudged, W, window(7, 2))[0][6] - attend(X, W, window(7, 2))[0][6]).max()
    two_layers_move = np.abs(two_layers(nudged)[6] - two_layers(X)[6]).max()
    assert one_layer_moves == 0.0 and two_layers_move > 1e-3
    assert v("sliding_window/receptive_field", "last_layer_reach") > v("sliding_window/receptive_field", "window")
    assert kind("G-07") == "holds only when"


@claim("G-08")
def test_g08_mistral_span():
    layers, w = v("sliding_window/memory", "mistral_layers"), v("sliding_window/memory", "mistral_window")
    assert (layers, w) == (32, 4096)
    for span in (v("sliding_window/memory", "mistral_span_paper"), v("sliding_window/memory", "mistral_span")):
        assert round(span / 1000) == 131  # "approximately 131K tokens"
    assert '"approximately 131K tokens"' in INVENTORY["G-08"].evidence and kind("G-08") == "holds"


@claim("G-09")
def test_g09_rolling_cache_only_when_attending_first():
    rng = np.random.default_rng(9)
    weights = rng.normal(scale=8**-0.5, size=(4, 8, 8))
    x = rng.normal(size=(9, 8))
    # one head of width 8 through the loop oracle, window 3
    out, _ = oracle_attention(
        (x @ weights[0]).tolist(), (x @ weights[1]).tolist(), (x @ weights[2]).tolist(), window(9, 3)
    )
    expected = np.array(out) @ weights[3]
    for chunk in range(1, 10):
        good, _ = decode_in_chunks(x, *weights, 1, 3, chunk, attend_chunk)
        bad, _ = decode_in_chunks(x, *weights, 1, 3, chunk, attend_chunk_trimmed_first)
        assert np.allclose(good, expected, atol=1e-12)
        assert np.allclose(bad, expected, atol=1e-12) == (chunk == 1)
    assert kind("G-09") == "holds only when"


@claim("G-10")
def test_g10_mistral_cache_is_one_eighth_at_32k():
    layers, w, length = (v("sliding_window/memory", k) for k in ("mistral_layers", "mistral_window", "mistral_length"))
    windowed = sum(min(length, w) for _ in range(layers))
    full = layers * length
    assert full / windowed == 8 and v("sliding_window/memory", "mistral_fraction") == "1/8"
    assert kind("G-10") == "holds"


@claim("G-11")
def test_g11_interleaving_saves_less_than_windowing_every_layer():
    w, span = v("sliding_window/memory", "gemma2_window"), v("sliding_window/memory", "gemma2_span")
    alternating = (min(span, w) + span) / (2 * span)
    all_local = min(span, w) / span
    assert float(v("sliding_window/memory", "gemma2_ratio")) == alternating == 0.75
    assert float(v("sliding_window/memory", "gemma2_all_local_ratio")) == all_local == 0.5
    assert kind("G-11") == "does not hold"


@claim("G-12")
def test_g12_no_causal_mask_over_the_source():
    assert v("cross_attention/attend", "first_query_sees_whole_source") is True
    assert v("cross_attention/attend", "max_pad_weight") == 0.0
    assert "attend over all positions in the input sequence" in INVENTORY["G-12"].evidence
    assert kind("G-12") == "does not hold"


@claim("G-13")
def test_g13_queries_come_from_the_decoder():
    quote = (
        "the queries come from the previous decoder layer, and the memory keys and values come from the output "
        "of the encoder"
    )
    assert quote in INVENTORY["G-13"].evidence and "§3.2.3" in INVENTORY["G-13"].evidence
    assert kind("G-13") == "does not hold"


@claim("G-14")
def test_g14_source_keys_and_values_are_computed_once():
    assert v("cross_attention/decode", "max_error") < 1e-12
    l_q, l_k, d = (v("cross_attention/decode", k) for k in ("l_q", "l_k", "d_model"))
    assert (
        v("cross_attention/decode", "projections_every_step")
        == l_q * v("cross_attention/decode", "projections_once")
        == l_q * 2 * l_k * d * d
    )
    assert kind("G-14") == "does not hold"
