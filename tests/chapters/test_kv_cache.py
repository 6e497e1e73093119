"""The KV cache chapter: cached generation equals full causal attention, and the multiply-add counts are right.

The counts are checked by instrumenting the matrix products: arrays of a NumPy
subclass record the multiply-adds of every np.matmul (the `@` operator) they
take part in, while the code under test runs unchanged.
"""

import numpy as np
import pytest

from lib import attention
from lib.attention import causal_mask, multi_head_attention
from lib.kv_decoder import KVCache, macs_with_cache, macs_without_cache, step_with_cache, step_without_cache
from support import flat_page, published


class Counted(np.ndarray):
    """An ndarray that logs the multiply-adds of every matrix product it is an operand of."""

    macs = []

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        plain = [x.view(np.ndarray) if isinstance(x, Counted) else x for x in inputs]
        kwargs = {key: x.view(np.ndarray) if isinstance(x, Counted) else x for key, x in kwargs.items()}  # where=
        if out is not None:
            kwargs["out"] = tuple(o.view(np.ndarray) if isinstance(o, Counted) else o for o in out)
        result = getattr(ufunc, method)(*plain, **kwargs)
        if ufunc is np.matmul and method == "__call__":
            a, b = (np.asarray(x) for x in plain)
            assert a.ndim >= 2 and b.ndim >= 2, "the code under test multiplies matrices, not vectors"
            Counted.macs.append(int(np.prod(result.shape)) * a.shape[-1])  # each output entry: n multiply-adds
        if out is not None:
            return out[0]
        return result.view(Counted) if isinstance(result, np.ndarray) else result

    def __array_function__(self, func, types, args, kwargs):
        result = super().__array_function__(func, types, args, kwargs)
        return result.view(Counted) if type(result) is np.ndarray else result


@pytest.fixture
def count_macs(monkeypatch):
    """Run a function with Counted weights and inputs; return (result, total multiply-adds, number of matmuls)."""
    monkeypatch.setattr(attention.np, "asarray", np.asanyarray)  # let the core keep the subclass

    def run(fn, *args, **kwargs):
        Counted.macs = []
        result = fn(*args, **kwargs)
        return result, sum(Counted.macs), len(Counted.macs)

    return run


def layer(d_model=16, n_heads=4, seed=0):
    rng = np.random.default_rng(seed)
    return [w.view(Counted) for w in rng.normal(scale=d_model**-0.5, size=(4, d_model, d_model))], n_heads


@pytest.mark.claim(
    "counting every matrix product the cached step runs gives 4 d_model^2 + 2 t d_model multiply-adds",
    zh="统计带缓存的一步所执行的每个矩阵乘积，共得 4 d_model^2 + 2 t d_model 次乘加",
)
@pytest.mark.parametrize("d_model,n_heads", [(8, 2), (16, 4), (12, 3)])
def test_cached_step_macs_match_the_formula(count_macs, d_model, n_heads):
    weights, _ = layer(d_model, n_heads)
    x = np.random.default_rng(1).normal(size=(9, d_model)).view(Counted)
    cache = KVCache(n_heads, d_model // n_heads, 9)
    for t in range(1, 10):
        _, macs, calls = count_macs(step_with_cache, x[t - 1 : t], cache, *weights, n_heads)
        assert calls == 6  # q, k, v, scores, weighted sum, output projection
        assert macs == macs_with_cache(t, d_model)


@pytest.mark.claim(
    "without a cache, step t costs exactly t times the multiply-adds of a cached step",
    zh="没有缓存时，第 t 步的乘加次数恰好是带缓存一步的 t 倍",
)
@pytest.mark.parametrize("d_model,n_heads", [(8, 2), (16, 4)])
def test_uncached_step_macs_match_the_formula(count_macs, d_model, n_heads):
    weights, _ = layer(d_model, n_heads)
    x = np.random.default_rng(2).normal(size=(9, d_model)).view(Counted)
    for t in range(1, 10):
        _, macs, calls = count_macs(step_without_cache, x[:t], *weights, n_heads)
        assert calls == 6
        assert macs == macs_without_cache(t, d_model)
        assert macs == t * macs_with_cache(t, d_model)


def test_the_counter_sees_a_plain_matmul(count_macs):
    a, b = np.ones((3, 5)).view(Counted), np.ones((5, 7))
    _, macs, calls = count_macs(lambda: a @ b)
    assert (macs, calls) == (3 * 5 * 7, 1)
    _, macs, _ = count_macs(lambda: np.ones((2, 4, 3, 5)) @ np.ones((5, 7)).view(Counted))
    assert macs == 2 * 4 * 3 * 5 * 7


@pytest.mark.claim(
    "token-by-token attention with a KV cache equals full causal attention",
    zh="使用 KV 缓存逐个词元计算的注意力等于完整的因果注意力",
)
@pytest.mark.parametrize("seed", range(5))
def test_cached_steps_equal_full_causal_attention(seed):
    rng = np.random.default_rng(seed)
    d_model, n_heads, length = 12, 3, int(rng.integers(1, 20))
    w_q, w_k, w_v, w_o = rng.normal(scale=d_model**-0.5, size=(4, d_model, d_model))
    x = rng.normal(size=(length, d_model))
    cache = KVCache(n_heads, d_model // n_heads, length)
    rows = [step_with_cache(x[t : t + 1], cache, w_q, w_k, w_v, w_o, n_heads)[0] for t in range(length)]
    full, _ = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, mask=causal_mask(length))
    np.testing.assert_allclose(np.vstack(rows), full, rtol=0, atol=1e-13)
    uncached = [step_without_cache(x[: t + 1], w_q, w_k, w_v, w_o, n_heads)[0] for t in range(length)]
    np.testing.assert_allclose(np.vstack(uncached), full, rtol=0, atol=1e-13)


def test_a_cached_row_does_not_depend_on_later_inputs():
    """Causality, checked independently of the core: changing future rows leaves earlier outputs alone."""
    rng = np.random.default_rng(7)
    w = rng.normal(scale=0.3, size=(4, 8, 8))
    x = rng.normal(size=(6, 8))
    y = x.copy()
    y[4:] = rng.normal(size=(2, 8))
    cx, cy = KVCache(2, 4, 6), KVCache(2, 4, 6)
    for t in range(4):
        np.testing.assert_array_equal(
            step_with_cache(x[t : t + 1], cx, *w, 2)[0], step_with_cache(y[t : t + 1], cy, *w, 2)[0]
        )


@pytest.mark.claim(
    "the KV cache holds 2 * n_layers * L * d_model numbers: 128 bytes per token per layer for d_model = 8 in float64",
    zh="KV 缓存保存 2 * n_layers * L * d_model 个数：d_model = 8、float64 下每个词元每层 128 字节",
)
def test_cache_bytes_formula():
    for n_heads, d_head, length, dtype in [(2, 4, 7, np.float64), (12, 64, 100, np.float16), (1, 3, 1, np.float32)]:
        cache = KVCache(n_heads, d_head, length, dtype)
        assert cache.nbytes == 2 * length * n_heads * d_head * np.dtype(dtype).itemsize
    assert published("kv_cache/memory")["bytes_per_token_per_layer"] == 2 * 8 * 8


def test_cached_generation_snippet_agrees():
    values = published("kv_cache/generate")
    assert values["same_tokens"] is True
    assert values["max_error_vs_full"] < 1e-12
    assert values["max_error_vs_recompute"] < 1e-12
    assert values["max_weight_error"] < 1e-12


@pytest.mark.claim(
    "the multiply-adds of a whole generation, with and without a cache, are the sums of the per-step counts",
    zh="无论有无缓存，整个生成过程的乘加次数都是每一步次数之和",
)
def test_published_totals_match_a_loop():
    values = published("kv_cache/cost")
    d, n = values["d_model"], values["n_steps"]
    with_cache = sum(4 * d * d + 2 * t * d for t in range(1, n + 1))  # closed forms, summed the slow way
    without = sum(t * (4 * d * d + 2 * t * d) for t in range(1, n + 1))
    assert values["total_with_cache"] == with_cache
    assert values["total_without_cache"] == without
    assert values["ratio_is_t"] is True
    assert 100 < without / with_cache < 1000


@pytest.mark.claim(
    "The kv-cache page names seed tutorial 003 as the source of the O(N) sentence and marks the quote as translated",
    zh="KV 缓存一页点名种子教程 003 是那句 O(N) 的出处，并标明引文是译文",
)
def test_the_seed_003_sentence_is_named_and_marked_as_a_translation():
    page = flat_page("kv-cache.md")
    assert "Seed tutorial 003 says that during generation (translated from its Chinese)" in page
    assert "A common tutorial claim" not in page
    assert "种子教程 003 说" in flat_page("kv-cache.md", "docs-zh")


# ------------------------------------------------------------------ exercises, against counts and arithmetic
EXERCISES = published("kv_cache/exercises")


def test_exercise_shape_of_the_cached_keys():
    heads, steps, d_model = EXERCISES["shape_heads"], EXERCISES["shape_steps"], EXERCISES["shape_d_model"]
    d_head = d_model // heads
    assert EXERCISES["shape_d_head"] == d_head
    assert EXERCISES["cache_keys_shape"] == [heads, steps, d_head]
    assert EXERCISES["cache_keys_shape__split_without_transpose"] == [steps, heads, d_head]
    assert EXERCISES["cache_keys_shape__d_model_per_head"] == [heads, steps, d_model]


def test_exercise_multiply_adds_of_one_step_counted_on_the_products(count_macs):
    t, d_model = EXERCISES["macs_t"], published("kv_cache/cost")["d_model"]
    weights, n_heads = layer(d_model, 4)
    x = np.random.default_rng(3).normal(size=(t, d_model)).view(Counted)
    cache = KVCache(n_heads, d_model // n_heads, t)
    for step in range(t):
        count_macs(step_with_cache, x[step : step + 1], cache, *weights, n_heads)
    products = list(Counted.macs)  # the last step's: q, k, v, scores, weighted sum, output projection
    assert len(products) == 6
    assert EXERCISES["macs_step_100"] == sum(products)
    assert EXERCISES["macs_step_100__scores_only"] == sum(products) - products[4]
    assert EXERCISES["macs_step_100__no_output_projection"] == sum(products) - products[5]
    _, uncached, _ = count_macs(step_without_cache, x, *weights, n_heads)
    assert EXERCISES["macs_step_100__without_cache"] == uncached
    assert EXERCISES["macs_projections"] == sum(products[:3]) + products[5]
    assert EXERCISES["macs_attention"] == products[3] + products[4]


def first_step(holds):
    t = 1
    while not holds(t):
        t += 1
    return t


def test_exercise_crossover_of_attention_and_projections():
    d = EXERCISES["crossover_d_model"]
    assert EXERCISES["crossover_128"] == first_step(lambda t: 2 * t * d >= 4 * d * d)
    assert EXERCISES["crossover_128__scores_only"] == first_step(lambda t: t * d >= 4 * d * d)
    assert EXERCISES["crossover_128__no_output_projection"] == first_step(lambda t: 2 * t * d >= 3 * d * d)
    assert EXERCISES["crossover_projections"] == 4 * d * d and EXERCISES["crossover_per_step"] == 2 * d
    cost = published("kv_cache/cost")  # the page's crossover at its own width follows the same rule
    assert cost["crossover_t"] == first_step(lambda t: 2 * t * cost["d_model"] >= 4 * cost["d_model"] ** 2)


def test_exercise_cache_of_a_batch():
    batch, layers = EXERCISES["batch_sequences"], EXERCISES["batch_layers"]
    length, d_model = EXERCISES["batch_positions"], EXERCISES["batch_d_model"]
    mib = 1024 * 1024
    per_layer = 2 * length * d_model * 2  # keys and values, float16
    assert EXERCISES["batch_layer_mib"] == per_layer / mib
    assert EXERCISES["batch_cache_mib"] == batch * layers * per_layer / mib
    assert EXERCISES["batch_cache_mib__no_batch"] == layers * per_layer / mib
    assert EXERCISES["batch_cache_mib__keys_only"] == batch * layers * per_layer / 2 / mib
    assert EXERCISES["batch_cache_mib__float32"] == batch * layers * per_layer * 2 / mib
