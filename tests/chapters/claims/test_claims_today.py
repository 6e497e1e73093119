"""Claims about attention in today's models (rotary positions, fewer key/value heads): each verdict against an
independent recomputation, with rotations written from cos and sin and attention from the loop oracle."""

import math

import numpy as np

from support import INVENTORY, claim, kind, oracle_attention, v


def rotate(vector, m, base=10000.0, pairs=None):
    """Turn pair i of a list by m * base^(-2i/d); pairs[i] = (a index, b index), adjacent pairs by default."""
    d = len(vector)
    pairs = pairs or [(2 * i, 2 * i + 1) for i in range(d // 2)]
    out = list(vector)
    for i, (a_index, b_index) in enumerate(pairs):
        angle = m * base ** (-2 * i / d)
        a, b = vector[a_index], vector[b_index]
        out[a_index], out[b_index] = (
            a * math.cos(angle) - b * math.sin(angle),
            a * math.sin(angle) + b * math.cos(angle),
        )
    return out


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


rng = np.random.default_rng(99)


@claim("G-21")
def test_g21_scores_depend_on_the_offset():
    q, k = rng.normal(size=(2, 8)).tolist()
    for m, n in [(5, 2), (40, 10)]:
        assert abs(dot(rotate(q, m + 777), rotate(k, n + 777)) - dot(rotate(q, m), rotate(k, n))) < 1e-10
    assert v("rotary/relative", "max_spread") < 1e-8 * v("rotary/relative", "score_scale") and kind("G-21") == "holds"


@claim("G-22")
def test_g22_decay_on_average_for_correlated_vectors():
    draws = [rng.normal(size=(2, 16)).tolist() for _ in range(3000)]
    near = np.mean([abs(dot(rotate(q, 0), k)) for q, k in draws])
    far = np.mean([abs(dot(rotate(q, 2000), k)) for q, k in draws])
    assert abs(far / near - 1) < 0.1  # independent vectors: no decay
    aligned = [dot(rotate(q, r), q) for q, _ in draws[:300] for r in (0, 2000)]
    assert np.mean(aligned[0::2]) > 3 * abs(np.mean(aligned[1::2]))  # a key equal to its query: decay
    # a correlated key decays on average too; one q = k with all its weight in one pair does not decay
    assert v("rotary/relative", "correlated_far") < 0.3 * v("rotary/relative", "correlated_near")
    assert v("rotary/relative", "one_pair_far_max") > 0.99
    assert kind("G-22") == "holds only when"
    assert "correlated" in INVENTORY["G-22"].condition and "average" in INVENTORY["G-22"].condition


@claim("G-23")
def test_g23_values_are_not_rotated():
    x_q, x_k, values = rng.normal(size=(3, 4, 6)).tolist()
    outs = []
    for shift in (0, 1000):
        q = [rotate(row, m + shift) for m, row in enumerate(x_q)]
        k = [rotate(row, m + shift) for m, row in enumerate(x_k)]
        outs.append(np.array(oracle_attention(q, k, values)[0]))
    assert np.abs(outs[1] - outs[0]).max() < 1e-10
    assert v("rotary/relative", "shift_change") < 1e-12 and kind("G-23") == "does not hold"


@claim("G-24")
def test_g24_the_pairings_convert_by_a_permutation():
    d = 8
    q, k = rng.normal(size=(2, d)).tolist()
    order = [*range(0, d, 2), *range(1, d, 2)]
    half = [(i, i + d // 2) for i in range(d // 2)]
    for m, n in [(3, 1), (100, 7)]:
        interleaved = dot(rotate(q, m), rotate(k, n))
        converted = dot(rotate([q[j] for j in order], m, pairs=half), rotate([k[j] for j in order], n, pairs=half))
        unconverted = dot(rotate(q, m, pairs=half), rotate(k, n, pairs=half))
        assert abs(converted - interleaved) < 1e-12 and abs(unconverted - interleaved) > 1e-3
    assert v("rotary/pairing", "converted_error") < 1e-12 and kind("G-24") == "does not hold"


def past_training(theta_new, theta, trained, target):
    return [
        0.0 if (trained - 1) * old >= 2 * math.pi else max((target - 1) * new - (trained - 1) * old, 0) / old
        for new, old in zip(theta_new, theta)
    ]


THETA = [10000 ** (-2 * i / 128) for i in range(64)]


@claim("G-25")
def test_g25_interpolation_overshoots_by_less_than_a_position():
    steps = past_training([t / 4 for t in THETA], THETA, 4096, 16384)
    assert max(steps) <= 1 and sum(s > 1 for s in past_training(THETA, THETA, 4096, 16384)) == 18
    assert v("rotary/stretch", "unseen_pi") == 0
    beyond = v("rotary/stretch", "beyond_pi")
    assert 0 < beyond < 1 and abs(max(steps) - beyond) < 1e-9  # the slow pairs go a fraction of a position beyond
    assert kind("G-25") == "holds only when"


@claim("G-26")
def test_g26_ntk_base_still_extrapolates():
    base = 10000 * 4 ** (128 / 126)
    steps = past_training([base ** (-2 * i / 128) for i in range(64)], THETA, 4096, 16384)
    assert sum(s > 1 for s in steps) == v("rotary/stretch", "unseen_ntk") > 0
    assert kind("G-26") == "does not hold"


@claim("G-27")
def test_g27_gqa_ends():
    from lib.attention import grouped_query_attention

    q, k, vals = rng.normal(size=(4, 3, 2)), rng.normal(size=(4, 3, 2)), rng.normal(size=(4, 3, 2))
    out, _ = grouped_query_attention(q, k, vals)
    for i in range(4):
        np.testing.assert_allclose(
            out[i], oracle_attention(q[i].tolist(), k[i].tolist(), vals[i].tolist())[0], rtol=1e-12
        )
    out, _ = grouped_query_attention(q, k[:1], vals[:1])
    for i in range(4):
        np.testing.assert_allclose(
            out[i], oracle_attention(q[i].tolist(), k[0].tolist(), vals[0].tolist())[0], rtol=1e-12
        )
    assert v("kv_heads/groups", "mha_difference") == 0 == v("kv_heads/groups", "mqa_difference")
    assert kind("G-27") == "holds"


@claim("G-28")
def test_g28_cache_shrinks_by_h_over_h_kv():
    layers, heads, kv_heads, d_head = 80, 64, 8, 128  # Llama 2 70B's config.json
    assert v("kv_heads/cache", "llama2_70b_kib") * 1024 == 2 * layers * kv_heads * d_head * 2
    assert v("kv_heads/cache", "llama2_70b_mha_kib") / v("kv_heads/cache", "llama2_70b_kib") == heads / kv_heads
    assert kind("G-28") == "holds"


@claim("G-29")
def test_g29_mean_pooling_changes_the_output():
    assert v("kv_heads/mean_pool", "independent_1") > 0.5 and v("kv_heads/mean_pool", "copies_1") > 0.1
    assert kind("G-29") == "does not hold"


@claim("G-30")
def test_g30_absorbed_matrices_need_only_the_latent():
    r, d_head = 3, 4
    c, w_uk, q = rng.normal(size=(5, r)), rng.normal(size=(r, d_head)), rng.normal(size=(2, d_head))
    keys = c @ w_uk  # the rebuilt keys
    for i in range(2):
        for j in range(5):
            absorbed = sum(sum(q[i][a] * w_uk[b][a] for a in range(d_head)) * c[j][b] for b in range(r))
            assert abs(absorbed - dot(q[i], keys[j])) < 1e-12
    assert v("kv_heads/latent", "score_error") < 1e-12 and kind("G-30") == "does not hold"


@claim("G-31")
def test_g31_rotation_breaks_the_fixed_absorption():
    r, d_head = 3, 4
    c, w_uk, q = rng.normal(size=(2, r)), rng.normal(size=(r, d_head)), rng.normal(size=d_head)
    keys = (c @ w_uk).tolist()
    rotated = dot(rotate(q.tolist(), 0), rotate(keys[1], 5))  # query at 0, key at 5
    folded = dot(rotate(q.tolist(), 0), keys[1])  # one fixed W_UK, no rotation of the key
    assert abs(rotated - folded) > 1e-3
    assert v("kv_heads/latent", "rope_fold_error") > 0.1 and v("kv_heads/latent", "decoupled_error") < 1e-12
    assert kind("G-31") == "does not hold"
