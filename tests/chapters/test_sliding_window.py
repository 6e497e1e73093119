"""The sliding-window chapter: the rolling-buffer cache equals windowed attention for every prefill chunk (and the
trimming bug fails the same test), the receptive field grows by W - 1 per layer, and the memory figures are right.

The oracle is written from the definitions: per head, plain loops over queries and keys with the window rule
i - W < j <= i (tests/support.py's loop attention), the heads concatenated and multiplied by W_o.
"""

import json

import numpy as np
import pytest
from hypothesis import given, strategies as st

from lib.attention import multi_head_attention, sliding_window_mask
from lib.running_example import running_qkv
from lib.window_cache import RollingKVCache, attend_chunk, attend_chunk_trimmed_first, decode_in_chunks
from support import INVENTORY, REPO, flat_page, oracle_attention, published, published_table, run_snippet

LENGTH, D_MODEL, N_HEADS, WINDOW = 11, 8, 2, 3


def windowed_layer_oracle(x, w_q, w_k, w_v, w_o, n_heads, window):
    """One multi-head layer under the window, head by head through the loop oracle."""
    length, d_model = x.shape
    d_head = d_model // n_heads
    allowed = [[i - window < j <= i for j in range(length)] for i in range(length)]
    heads = []
    for head in range(n_heads):
        cols = slice(head * d_head, (head + 1) * d_head)
        out, _ = oracle_attention(
            (x @ w_q[:, cols]).tolist(), (x @ w_k[:, cols]).tolist(), (x @ w_v[:, cols]).tolist(), allowed
        )
        heads.append(np.array(out))
    return np.hstack(heads) @ w_o


@pytest.fixture(scope="module")
def layer():
    rng = np.random.default_rng(21)
    weights = rng.normal(scale=D_MODEL**-0.5, size=(4, D_MODEL, D_MODEL))
    x = rng.normal(size=(LENGTH, D_MODEL))
    return x, weights, windowed_layer_oracle(x, *weights, N_HEADS, WINDOW)


@pytest.mark.claim(
    "Decoding with a rolling-buffer KV cache (attend, then store) equals full attention under the window "
    "mask for every prefill chunk size; storing first fails for every chunk longer than one token",
    zh="用滚动缓冲区 KV 缓存解码（先注意、再存入），对每种预填充块大小都等于窗口掩码下的完整注意力；"
    "先存入的写法在每个长于一个词元的块上都失败",
)
@pytest.mark.parametrize("attend", [attend_chunk, attend_chunk_trimmed_first], ids=["attend-then-store", "trim-first"])
@pytest.mark.parametrize("chunk", range(1, LENGTH + 2))
def test_rolling_cache_equals_windowed_attention_for_every_chunk(layer, attend, chunk):
    x, weights, expected = layer
    got, cache = decode_in_chunks(x, *weights, N_HEADS, WINDOW, chunk, attend)
    matches = np.allclose(got, expected, rtol=0, atol=1e-12)
    if attend is attend_chunk_trimmed_first and chunk > 1:
        assert not matches, "the trimming bug must fail the equality test for a prefill longer than one token"
    else:
        assert matches, f"chunk {chunk}: max error {np.abs(got - expected).max():.2e}"
    assert cache.k.shape == (N_HEADS, WINDOW, D_MODEL // N_HEADS)  # never more than W slots
    assert sorted(cache.positions.tolist()) == list(range(LENGTH - WINDOW, LENGTH))


def test_a_prefill_then_single_steps_equals_windowed_attention(layer):
    """A prompt of 7 in one call, then one token per step: the mix a real decoder runs."""
    x, weights, expected = layer
    cache = RollingKVCache(N_HEADS, D_MODEL // N_HEADS, WINDOW)
    w_q, w_k, w_v, w_o = weights
    outputs = []
    for start, stop in [(0, 7), *((t, t + 1) for t in range(7, LENGTH))]:
        x_c = x[start:stop]
        split = [(x_c @ w).reshape(stop - start, N_HEADS, -1).transpose(1, 0, 2) for w in (w_q, w_k, w_v)]
        heads = attend_chunk(*split, cache)  # (h, c, d_head)
        outputs.append(heads.transpose(1, 0, 2).reshape(stop - start, -1) @ w_o)
    np.testing.assert_allclose(np.vstack(outputs), expected, rtol=0, atol=1e-12)


def run_schedule(x, weights, n_heads, window, chunks, attend):
    """Feed x through the cache in chunks of the given sizes (a prefill, then anything): (L, d_model)."""
    w_q, w_k, w_v, w_o = weights
    cache = RollingKVCache(n_heads, x.shape[1] // n_heads, window)
    outputs, start = [], 0
    for size in chunks:
        x_c = x[start : start + size]
        q, k, v = ((x_c @ w).reshape(size, n_heads, -1).transpose(1, 0, 2) for w in (w_q, w_k, w_v))  # (h, c, d_head)
        outputs.append(attend(q, k, v, cache).transpose(1, 0, 2).reshape(size, -1) @ w_o)  # (c, d_model)
        start += size
    return np.vstack(outputs)


@st.composite
def schedules(draw):
    window = draw(st.integers(1, 5))
    chunks = draw(st.lists(st.integers(1, 6), min_size=1, max_size=5))
    return window, chunks, draw(st.integers(0, 2**32 - 1))


@given(schedules())
@pytest.mark.claim(
    "For any window and any sequence of chunk sizes, the rolling cache equals attention under the window "
    "mask, and storing first goes wrong exactly when a chunk of 2 or more ends past the window, over "
    "1000 random cases",
    zh="在 1000 个随机用例中，对任意窗口和任意块大小序列，滚动缓存都等于窗口掩码下的注意力；先存入的写法恰好在"
    "某个不少于 2 个词元的块结束于窗口之外时出错",
)
def test_any_chunk_schedule_matches_and_the_bug_shows_exactly_when_a_chunk_overwrites_a_needed_key(case):
    window, chunks, seed = case
    rng = np.random.default_rng(seed)
    length, n_heads = sum(chunks), 2
    weights = rng.normal(scale=0.5, size=(4, 4, 4))
    x = rng.normal(size=(length, 4))
    expected, _ = multi_head_attention(x, *weights, n_heads, sliding_window_mask(length, window))
    np.testing.assert_allclose(run_schedule(x, weights, n_heads, window, chunks, attend_chunk), expected, atol=1e-12)
    ends = np.cumsum(chunks)  # a chunk [start, end) overwrites positions start - W .. end - 1 - W
    overwrites_needed = any(size >= 2 and end > window for size, end in zip(chunks, ends))
    trimmed = run_schedule(x, weights, n_heads, window, chunks, attend_chunk_trimmed_first)
    assert np.allclose(trimmed, expected, atol=1e-12) != overwrites_needed


def test_the_ring_keeps_the_newest_position_in_each_slot():
    cache = RollingKVCache(1, 1, 3)
    cache.write(np.arange(5.0).reshape(1, 5, 1), -np.arange(5.0).reshape(1, 5, 1))  # a chunk longer than the ring
    k, v, held = cache.held()
    assert (
        held.tolist() == [3, 4, 2]
        and k[0, :, 0].tolist() == [3.0, 4.0, 2.0]
        and v[0, :, 0].tolist() == [-3.0, -4.0, -2.0]
    )
    assert cache.length == 5 and cache.nbytes == 2 * 3 * 8


@pytest.mark.parametrize("window", [0, 2.5, True])
def test_the_cache_and_the_decoder_refuse_bad_sizes(window):
    with pytest.raises(ValueError, match="window must be a whole number"):
        RollingKVCache(2, 4, window)
    with pytest.raises(ValueError, match="chunk must be a whole number"):
        decode_in_chunks(np.ones((4, 8)), *np.ones((4, 8, 8)), 2, 3, window)
    with pytest.raises(ValueError, match=r"must both be \(h, c, d_head\) = \(2, c, 4\)"):
        RollingKVCache(2, 4, 3).write(np.ones((2, 1, 3)), np.ones((2, 1, 3)))


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.bool_, np.complex128])
def test_the_cache_refuses_a_dtype_that_is_not_floating_point(dtype):
    with pytest.raises(ValueError, match=rf"dtype must be a floating-point type .*got {np.dtype(dtype).name}"):
        RollingKVCache(2, 4, 3, dtype=dtype)
    assert RollingKVCache(2, 4, 3, dtype=np.float32).k.dtype == np.float32


def test_an_empty_chunk_gives_an_empty_output_and_leaves_the_cache_alone():
    rng = np.random.default_rng(5)
    for filled in (0, 2, 5):  # an empty cache, a part-filled ring, a ring that has wrapped
        cache = RollingKVCache(2, 4, 3)
        cache.write(*rng.normal(size=(2, 2, filled, 4)))
        before = cache.k.copy(), cache.v.copy(), cache.positions.copy(), cache.length
        out = attend_chunk(*np.ones((3, 2, 0, 4)), cache)
        assert out.shape == (2, 0, 4)
        for kept, now in zip(before, (cache.k, cache.v, cache.positions, cache.length)):
            np.testing.assert_array_equal(now, kept)


def test_decoding_no_positions_gives_an_empty_output():
    output, cache = decode_in_chunks(np.ones((0, 8)), *np.ones((4, 8, 8)), 2, 3, 2)
    assert output.shape == (0, 8) and output.dtype == np.float64
    assert cache.length == 0 and cache.held()[2].size == 0


def test_the_snippet_table_shows_the_bug_for_every_chunk_longer_than_one():
    rows = published_table("sliding_window/rolling_cache", "chunks")
    values = published("sliding_window/rolling_cache")
    assert [int(r["prefill chunk"]) for r in rows] == list(range(1, values["length"] + 1))
    assert all(float(r["attend, then store: max error"]) < 1e-12 for r in rows)
    assert values["bug_free_chunks"] == [1]
    assert all(int(r["positions the bug gets wrong"]) > 0 for r in rows[1:])
    assert values["smallest_bug_error"] > 0.1 and values["max_error_rolling"] < 1e-12
    assert values["cache_slots"] == values["window"]
    assert values["held_positions"] == " ".join(
        str(p) for p in range(values["length"] - values["window"], values["length"])
    )


# ---------------------------------------------------------------- the mask on the running example


def test_the_window_figure_and_its_text_describe_the_weights():
    snippet = run_snippet("sliding_window/mask")
    causal, windowed, window = snippet["causal_weights"], snippet["window_weights"], snippet["window"]
    n = len(snippet["tokens"])
    for i in range(n):
        for j in range(n):
            if not i - window < j <= i:
                assert windowed[i, j] == 0.0  # the band: nothing outside the window
        np.testing.assert_allclose(windowed[i].sum(), 1.0)
    values = published("sliding_window/mask")
    assert values["keys_per_row"] == [min(i + 1, window) for i in range(n)]
    assert values["first_rows_equal_causal"] is True and np.array_equal(causal[:window], windowed[:window])
    assert values["last_causal_weight_outside"] == pytest.approx(causal[-1, : n - window].sum())
    assert values["last_token_keys"] == " ".join(snippet["tokens"][n - window :])


# ---------------------------------------------------------------- the receptive field


def reachable(length, window, n_layers):
    """reach[n][i][j]: input j can change output i after n + 1 layers, by following the window rule through the
    stack (the residual path included: a position always reads itself)."""
    step = [[i - window < j <= i for j in range(length)] for i in range(length)]
    current, out = step, []
    for _ in range(n_layers):
        out.append(current)
        current = [
            [any(step[i][m] and current[m][j] for m in range(length)) for j in range(length)] for i in range(length)
        ]
    return out


@pytest.mark.claim(
    "Through a stack of sliding-window layers, the inputs that change an output are exactly those a "
    "path of windows reaches: n (W - 1) positions back after n layers",
    zh="在滑动窗口层的堆叠中，能改变一个输出的输入恰好是一串窗口能到达的那些：n 层之后回溯 n (W - 1) 个位置",
)
def test_the_measured_receptive_field_is_the_reachable_set():
    snippet = run_snippet("sliding_window/receptive_field")
    changes, length, window = snippet["changes"], snippet["length"], snippet["window"]
    for n, expected in enumerate(reachable(length, window, snippet["n_layers"])):
        assert changes[n].tolist() == expected, f"after {n + 1} layers"
    values = published("sliding_window/receptive_field")
    rows = published_table("sliding_window/receptive_field", "reach")
    for n, row in enumerate(rows, start=1):
        assert int(row["farthest input back"]) == n * (values["window"] - 1) == int(row["layers x (window - 1)"])
        assert int(row["inputs that change the last output"]) == n * (values["window"] - 1) + 1
    assert values["never_a_future_input"] is True and values["reach_is_layers_times_window_minus_one"] is True
    assert values["last_layer_reach"] == values["n_layers"] * (values["window"] - 1)


# ---------------------------------------------------------------- memory, and the numbers typed on the page


def test_the_memory_figures_and_the_citations():
    values = published("sliding_window/memory")
    assert values["toy_full_bytes"] == 2 * 2 * values["toy_length"] * 4 * 8  # keys and values, h = 2, d_head = 4
    assert values["toy_rolling_bytes"] == 2 * 2 * values["toy_window"] * 4 * 8
    assert values["toy_ratio"] == "1/8" and values["mistral_fraction"] == "1/8"  # the paper's "8x"
    assert (values["mistral_layers"], values["mistral_window"], values["mistral_length"]) == (32, 4096, 32768)
    assert values["mistral_span_paper"] == 131_072 and values["mistral_span"] == 131_040  # "approximately 131K"
    assert (values["gemma2_window"], values["gemma2_span"]) == (4096, 8192)
    local, full = min(8192, 4096), 8192
    assert (
        float(values["gemma2_ratio"]) == (local + full) / (2 * full)
        and float(values["gemma2_all_local_ratio"]) == local / full
    )
    page = flat_page("sliding-window.md")
    assert "Jiang et al. 2023, Table 1" in page and "approximately 131K tokens" in page
    assert '"a sequence length of 32k tokens, this reduces the cache memory usage by 8x"' in page
    assert "Gemma Team 2024, section 2" in page
    assert "the reach becomes $n \\times 3$" in page  # window 4: checked by the try-this test window-reach-4
    chinese = flat_page("sliding-window.md", "docs-zh")
    assert "降为原来的 1/8" in chinese and "约 131K 个词元" in chinese


def test_the_reach_grows_by_w_minus_1_per_layer_not_by_a_window():
    """The page once said "one window per layer"; the table grows by W - 1 (2 for W = 3) from layer to layer."""
    rows = published_table("sliding_window/receptive_field", "reach")
    window = published("sliding_window/receptive_field")["window"]
    steps = {int(b["farthest input back"]) - int(a["farthest input back"]) for a, b in zip(rows, rows[1:])}
    assert steps == {window - 1} != {window}
    assert "depth, by $W - 1$ positions per layer" in flat_page("sliding-window.md")
    assert "每层增加 $W - 1$ 个位置" in flat_page("sliding-window.md", "docs-zh")
    assert "one window per layer" not in flat_page("sliding-window.md")


def test_the_store_first_row_holds_for_one_token_chunks_too():
    """G-09's condition once named attend-first only; store-then-attend is exact for chunks of one token as well."""
    assert published("sliding_window/rolling_cache")["bug_free_chunks"] == [1]
    assert "one token long" in INVENTORY["G-09"].condition and "一个词元" in INVENTORY["G-09"].condition_zh


def test_the_configs_table_names_the_layers_each_row_counts():
    """The cached-positions column sums 32 layers for Mistral, one local and one global layer for Gemma 2 and one
    layer for the toy cache: the table says so."""
    rows = published_table("sliding_window/memory", "configs")
    assert [int(row["layers counted"]) for row in rows] == [32, 2, 1]
    for row in rows:  # a full cache holds L positions in each counted layer
        assert int(row["cached positions, all global"]) == int(row["layers counted"]) * int(row["positions L"])


def test_chinese_running_text_shows_no_python_booleans_or_lists():
    """Booleans and lists quoted in Chinese prose have Chinese forms (是 / 否, numbers joined with 、)."""
    names = {
        "sliding_window/mask": ["keys_per_row", "first_rows_equal_causal"],
        "sliding_window/rolling_cache": ["bug_free_chunks"],
        "sliding_window/receptive_field": ["never_a_future_input", "reach_is_layers_times_window_minus_one"],
    }
    for snippet, quoted in names.items():
        values = json.loads((REPO / "docs/generated" / snippet / "values.json").read_text(encoding="utf-8"))
        for name in quoted:
            zh = values[name].get("zh", values[name]["text"])
            assert "[" not in zh and "True" not in zh and "False" not in zh, (name, zh)


# ------------------------------------------------------------------ exercises, against loops over the window rule
EXERCISES = published("sliding_window/exercises")
RECEPTIVE_WINDOW = published("sliding_window/receptive_field")["window"]
MEMORY = published("sliding_window/memory")


def window_pairs_by_loop(length, window, allowed=lambda i, j, w: i - w < j <= i):
    return sum(1 for i in range(length) for j in range(length) if allowed(i, j, window))


def test_exercise_window_pairs():
    length, window = EXERCISES["pairs_length"], EXERCISES["pairs_window"]
    assert EXERCISES["window_pairs"] == window_pairs_by_loop(length, window)
    assert EXERCISES["window_pairs__window_one_too_long"] == window_pairs_by_loop(
        length, window, lambda i, j, w: i - w <= j <= i
    )
    assert EXERCISES["window_pairs__every_row_full"] == length * window
    assert EXERCISES["pairs_first_rows"] == ", ".join(str(i + 1) for i in range(window - 1))
    assert EXERCISES["pairs_full_rows"] == length - (window - 1)


def test_exercise_weight_on_mat_under_a_window_of_two():
    tokens, q, k, v = running_qkv()
    n, last, mat = len(tokens), len(tokens) - 1, tokens.index("mat")

    def weights(window):
        allowed = [[i - window < j <= i for j in range(n)] for i in range(n)]
        return oracle_attention(q.tolist(), k.tolist(), v.tolist(), allowed)[1]

    window = EXERCISES["weight_window"]
    assert EXERCISES["weight_kept_keys"] == " ".join(tokens[n - window :])
    assert EXERCISES["weight_on_mat"] == pytest.approx(weights(window)[last][mat], abs=1e-12)
    unmasked = oracle_attention(q.tolist(), k.tolist(), v.tolist())[1]  # the softmax over every key, then zeroed
    assert EXERCISES["weight_on_mat__mask_after_softmax"] == pytest.approx(unmasked[last][mat], abs=1e-12)
    assert EXERCISES["weight_on_mat__window_one_too_long"] == pytest.approx(weights(window + 1)[last][mat], abs=1e-12)
    assert EXERCISES["weight_causal_on_mat"] == pytest.approx(unmasked[last][mat], abs=1e-12)
    assert EXERCISES["weight_causal_on_stop"] == pytest.approx(unmasked[last][last], abs=1e-12)
    # the question gives the heatmap's two decimals: renormalising them gives the answer's two decimals
    on_mat, on_stop = round(unmasked[last][mat], 2), round(unmasked[last][last], 2)
    assert round(on_mat / (on_mat + on_stop), 2) == round(EXERCISES["weight_on_mat"], 2)


def reach_by_sets(layers, window, output=100):
    """How far back output ``output`` reaches: the positions it depends on, widened layer by layer."""
    depends = {output}
    for _ in range(layers):
        depends = {j for d in depends for j in range(d - window + 1, d + 1) if j >= 0}
    return output - min(depends)


def test_exercise_reach_of_a_stack():
    layers, window = EXERCISES["reach_layers"], EXERCISES["reach_window"]
    assert EXERCISES["stack_reach"] == reach_by_sets(layers, window)
    assert EXERCISES["stack_reach__window_one_too_long"] == reach_by_sets(layers, window + 1)
    assert EXERCISES["stack_reach__one_layer"] == EXERCISES["reach_per_layer"] == reach_by_sets(1, window)
    for row in published_table("sliding_window/receptive_field", "reach"):  # the page's measured reach, same rule
        assert int(row["farthest input back"]) == reach_by_sets(int(row["layers"]), RECEPTIVE_WINDOW)


def test_exercise_alternating_fraction():
    length, window = MEMORY["mistral_length"], MEMORY["mistral_window"]  # memory.py's Mistral 7B sizes
    assert EXERCISES["alternating_length"] == length and EXERCISES["alternating_window"] == window
    pair, full = min(length, window) + length, 2 * length
    assert EXERCISES["alternating_pair_positions"] == pair and EXERCISES["alternating_full_positions"] == full
    assert EXERCISES["alternating_fraction"] == pair / full
    assert EXERCISES["alternating_fraction__every_layer_windowed"] == min(length, window) / length
    assert EXERCISES["alternating_fraction__inverted"] == full / pair
