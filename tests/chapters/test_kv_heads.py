"""The kv-heads chapter: grouped-query attention at both ends, the cache bytes of the cited configurations,
mean pooling, and multi-head latent attention's absorbed matrices, each against an independent recomputation."""

import numpy as np
import pytest

from support import INVENTORY, flat_page, oracle_attention, published, published_table, run_snippet

GROUPS, CACHE = published("kv_heads/groups"), published("kv_heads/cache")
POOL, LATENT = published("kv_heads/mean_pool"), published("kv_heads/latent")

# The configurations as published, held here to check the snippet against its sources:
# config.json of meta-llama/Llama-2-70b-hf and meta-llama/Meta-Llama-3-8B; Jiang et al. 2023 (Mistral 7B), Table 1;
# DeepSeek-AI 2024 (DeepSeek-V2), section 3.1.2. (layers, heads, kv heads, head width)
CITED = {"Llama 2 70B": (80, 64, 8, 8192 // 64), "Llama 3 8B": (32, 32, 8, 4096 // 32), "Mistral 7B": (32, 32, 8, 128)}
DEEPSEEK = {"layers": 60, "n_h": 128, "d_h": 128, "d_c": 512, "d_h_R": 64}


@pytest.mark.claim(
    "Grouped-query attention with one key/value head per query head is multi-head attention, and with one "
    "key/value head multi-query attention: the same numbers exactly",
    zh="每个查询头各有一个键/值头的分组查询注意力就是多头注意力，只有一个键/值头时就是多查询注意力：数值完全相同",
)
def test_both_ends_are_exact():
    assert GROUPS["mha_difference"] == 0 and GROUPS["mqa_difference"] == 0


def test_the_groups_table_reads_head_i_div_group():
    for row in published_table("kv_heads/groups", "groups"):
        h_kv = int(row["key/value heads h_kv"])
        group = 8 // h_kv
        assert row["key/value head of query heads 1 … 8"] == " ".join(str(i // group + 1) for i in range(8))
        assert int(row["query heads per group"]) == group


def test_mqa_is_one_key_value_head_for_every_query_head_by_the_loop():
    ns = run_snippet("kv_heads/groups")
    q, k, v, mask = ns["q"], ns["k_one"], ns["v_one"], ns["mask"]
    for i in range(len(q)):
        want, _ = oracle_attention(q[i].tolist(), k[0].tolist(), v[0].tolist(), mask.tolist())
        np.testing.assert_allclose(ns["gqa_as_mqa"][i], want, rtol=1e-12, atol=1e-14)


@pytest.mark.claim(
    "KV cache per token in float16: Llama 2 70B 320 KiB (2.5 MiB with a key/value head per query head), "
    "Llama 3 8B and Mistral 7B 128 KiB, DeepSeek-V2's latent 67.5 KiB",
    zh="float16 下每个词元的 KV 缓存：Llama 2 70B 为 320 KiB（每个查询头各有键/值头时为 2.5 MiB），Llama 3 8B 和 "
    "Mistral 7B 为 128 KiB，DeepSeek-V2 的潜向量为 67.5 KiB",
)
def test_cache_bytes_of_the_cited_configurations():
    rows = {row["model"]: row for row in published_table("kv_heads/cache", "configs")}
    for name, (layers, heads, kv_heads, d_head) in CITED.items():
        row = rows[name]
        assert (
            int(row["layers"]),
            int(row["query heads h"]),
            int(row["key/value heads h_kv"]),
            int(row["d_head"]),
        ) == (layers, heads, kv_heads, d_head)
        per_token = 2 * layers * kv_heads * d_head * 2
        assert row["cache per token"] == f"{per_token // 1024} KiB"
        assert row["fraction"] == f"1/{heads // kv_heads}"
    assert CACHE["llama2_70b_kib"] == 320 and CACHE["llama2_70b_mha_kib"] == 2560 and CACHE["llama3_8b_kib"] == 128
    assert CACHE["llama2_70b_context_gib"] == 320 * 1024 * 4096 / 1024**3
    latent = (DEEPSEEK["d_c"] + DEEPSEEK["d_h_R"]) * DEEPSEEK["layers"] * 2
    mha = 2 * DEEPSEEK["n_h"] * DEEPSEEK["d_h"] * DEEPSEEK["layers"] * 2
    assert CACHE["deepseek_kib"] == latent / 1024 == 67.5 and CACHE["deepseek_mha_kib"] == mha / 1024
    assert CACHE["deepseek_per_layer"] == 576 and CACHE["deepseek_per_layer_mha"] == 32768
    assert CACHE["deepseek_fraction"] == pytest.approx(mha / latent)


@pytest.mark.claim(
    "DeepSeek-V2's latent cache is not 2 × layers × h_kv × d_head × 2 bytes for any whole number of key/value heads",
    zh="DeepSeek-V2 的潜向量缓存，对任何整数个键/值头，都不等于 2 × 层数 × h_kv × d_head × 2 字节",
)
def test_the_latent_cache_is_not_the_key_value_formula():
    per_kv_head = 2 * DEEPSEEK["layers"] * DEEPSEEK["d_h"] * 2  # bytes per token of one key/value head
    assert CACHE["deepseek_kib"] * 1024 % per_kv_head != 0


def test_mean_pool_is_the_average_of_each_groups_heads():
    mean_pool = run_snippet("kv_heads/mean_pool")["mean_pool"]
    w = np.random.default_rng(8).normal(size=(5, 12))  # d_model 5, 6 heads of width 2
    pooled = mean_pool(w, 6, 2)  # 2 groups of 3 heads
    for g in range(2):
        for c in range(2):
            want = sum(w[:, (3 * g + member) * 2 + c] for member in range(3)) / 3
            np.testing.assert_allclose(pooled[:, g * 2 + c], want, rtol=1e-14)


@pytest.mark.claim(
    "Mean-pooling key/value heads moves an untrained layer's output: more when fewer key/value heads are "
    "kept, more for independent heads than for near-copies, zero when nothing is pooled",
    zh="平均池化键/值头会改变一个未训练层的输出：保留的键/值头越少改变越大，相互独立的头比近似副本改变更大，不做池化时为零",
)
def test_pooling_errors_rise_as_heads_are_merged():
    rows = published_table("kv_heads/mean_pool", "errors")
    independent = [float(r["relative output error, independent heads"]) for r in rows]
    copies = [float(r["relative output error, near-copies (0.95 shared)"]) for r in rows]
    assert independent[0] == copies[0] == 0 and POOL["error_8"] == 0
    assert independent == sorted(independent) and copies == sorted(copies)
    assert all(c < i for c, i in zip(copies[1:], independent[1:]))
    assert POOL["copies_1"] > 0.1  # "far from zero"


@pytest.mark.claim(
    "Multi-head latent attention: folding W_UK into the query and W_UV into W_O gives the expanded scores "
    "and outputs; with rotated keys one fixed W_UK fails, and a decoupled rotary key restores it",
    zh="多头潜在注意力：把 W_UK 吸收进查询、把 W_UV 吸收进 W_O，得到的分数和输出与展开计算相同；键旋转后一个固定的 "
    "W_UK 不再成立，解耦旋转键使它恢复成立",
)
def test_absorbed_matrices():
    assert LATENT["score_error"] < 1e-12 and LATENT["out_error"] < 1e-12 and LATENT["decoupled_error"] < 1e-12
    ns = run_snippet("kv_heads/latent")
    # the miss is set against the scores it misses, the rotated ones (the page once quoted the unrotated maximum)
    assert LATENT["rotated_score_range"] == pytest.approx(np.abs(ns["with_rope"]).max())
    assert LATENT["rope_fold_error"] == pytest.approx(np.abs(ns["folded"] - ns["with_rope"]).max())
    assert LATENT["rope_fold_error"] > 0.1 * LATENT["rotated_score_range"]
    assert "score_range" not in LATENT
    c, q, w_uk, n_heads, d_head = ns["c"], ns["q"], ns["w_uk"], ns["n_heads"], ns["d_head"]
    for h in range(n_heads):  # the expanded score of head h, by a loop over positions
        k_h = c @ w_uk[:, h * d_head : (h + 1) * d_head]
        for i in range(len(c)):
            for j in range(len(c)):
                assert ns["absorbed_scores"][h, i, j] == pytest.approx(
                    np.dot(q[h, i], k_h[j]) / np.sqrt(d_head), abs=1e-12
                )
    assert LATENT["cached_per_position"] == ns["r"] + ns["d_rope"] and LATENT["expanded_per_position"] == 2 * 32


def test_the_citations_point_where_the_sources_say_it():
    """GQA's alpha = 0.05 is stated for the main results in section 3.2 (section 3.1 gives only its cost) and
    Figure 5 (section 3.3) is not described by a range; Llama 2 70B is not cited from models/sku_list.py, whose
    Llama 2 entries carry Llama 3 values."""
    for page in (flat_page("kv-heads.md"), flat_page("kv-heads.md", "docs-zh")):
        assert "from 0 to 0.1" not in page and "0 到 0.1" not in page
        assert "Llama-2-70b-hf" in page
    assert "gated: shown after accepting Meta's licence" in flat_page("kv-heads.md")
    assert "该仓库需接受 Meta 的许可后才能查看" in flat_page("kv-heads.md", "docs-zh")
    assert "section 3.2 and Table 1" in flat_page("kv-heads.md") and "第 3.2 节和表 1" in flat_page(
        "kv-heads.md", "docs-zh"
    )
    assert "model_args` of Llama 2 70B" not in flat_page("kv-heads.md")
    assert "section 3.1)" not in INVENTORY["G-29"].evidence and "section 3.2 and Table 1" in INVENTORY["G-29"].evidence


# ------------------------------------------------------------------ exercises, against arithmetic from the sources
EXERCISES = published("kv_heads/exercises")


def split_heads_by_loop(x, n_heads):
    """(L, n_heads * d) -> (n_heads, L, d), head by head: head i is the i-th block of d columns."""
    d = x.shape[1] // n_heads
    return np.stack([x[:, i * d : (i + 1) * d] for i in range(n_heads)])


def test_exercise_key_value_head_of_a_query_head():
    _, h, h_kv, _ = CITED["Llama 3 8B"]
    query = EXERCISES["heads_query"]  # counted from 1
    group = h // h_kv
    assert (EXERCISES["heads_query_heads"], EXERCISES["heads_kv_heads"], EXERCISES["heads_group"]) == (h, h_kv, group)
    assert EXERCISES["heads_query_index"] == query - 1
    assert EXERCISES["kv_head_of_query_23"] == (query - 1) // group + 1 == EXERCISES["heads_kv_index"] + 1
    assert EXERCISES["kv_head_of_query_23__interleaved_groups"] == (query - 1) % h_kv + 1
    assert EXERCISES["kv_head_of_query_23__divided_by_kv_heads"] == (query - 1) // h_kv + 1
    assert EXERCISES["kv_head_of_query_23__counted_from_zero"] == (query - 1) // group


def test_exercise_shape_of_the_pooled_keys():
    ns = run_snippet("kv_heads/mean_pool")
    length, d_model, n_heads = ns["L"], ns["d_model"], ns["n_heads"]
    h_kv = EXERCISES["pool_kv_heads"]
    d_head = d_model // n_heads
    assert (EXERCISES["pool_length"], EXERCISES["pool_d_model"], EXERCISES["pool_query_heads"]) == (
        length,
        d_model,
        n_heads,
    )
    assert EXERCISES["pool_d_head"] == d_head and EXERCISES["pool_projection_shape"] == [d_model, h_kv * d_head]
    k = split_heads_by_loop(ns["x"] @ ns["mean_pool"](np.eye(d_model), n_heads, h_kv), h_kv)
    assert EXERCISES["pooled_keys_shape"] == list(k.shape) == [h_kv, length, d_head]
    assert EXERCISES["pooled_keys_shape__split_without_transpose"] == [length, h_kv, d_head]
    assert EXERCISES["pooled_keys_shape__query_heads"] == [n_heads, length, d_head]


def test_exercise_llama3_cache_of_a_context():
    layers, h, h_kv, d_head = CITED["Llama 3 8B"]
    tokens = EXERCISES["llama3_tokens"]
    mib = 1024 * 1024
    assert EXERCISES["llama3_8b_context_mib"] == 2 * layers * h_kv * d_head * 2 * tokens / mib
    assert EXERCISES["llama3_8b_context_mib"] == CACHE["llama3_8b_kib"] * tokens / 1024  # the table's per token
    assert EXERCISES["llama3_8b_context_mib__keys_only"] == layers * h_kv * d_head * 2 * tokens / mib
    assert EXERCISES["llama3_8b_context_mib__query_heads"] == 2 * layers * h * d_head * 2 * tokens / mib
    assert EXERCISES["llama3_8b_context_mib__float32"] == 2 * layers * h_kv * d_head * 4 * tokens / mib
    assert EXERCISES["llama3_bytes_per_position_layer"] == 2 * h_kv * d_head * 2
    assert EXERCISES["llama3_bytes_per_layer_mib"] == 2 * h_kv * d_head * 2 * tokens / mib
    assert (EXERCISES["llama3_layers"], EXERCISES["llama3_d_head"]) == (layers, d_head)


def test_exercise_deepseek_numbers_per_token():
    layers, d_c, d_rope, heads = DEEPSEEK["layers"], DEEPSEEK["d_c"], DEEPSEEK["d_h_R"], DEEPSEEK["n_h"]
    assert (EXERCISES["deepseek_layers"], EXERCISES["deepseek_latent"], EXERCISES["deepseek_rotary_key"]) == (
        layers,
        d_c,
        d_rope,
    )
    assert EXERCISES["deepseek_heads"] == heads
    assert EXERCISES["deepseek_numbers_per_token"] == (d_c + d_rope) * layers == CACHE["deepseek_kib"] * 1024 / 2
    assert EXERCISES["deepseek_numbers_per_token__no_rotary_key"] == d_c * layers
    assert EXERCISES["deepseek_numbers_per_token__rotary_key_per_head"] == (d_c + heads * d_rope) * layers
    assert EXERCISES["deepseek_numbers_per_token__latent_twice"] == (2 * d_c + d_rope) * layers
