"""The sparse-attention chapter: one test per sentence that compares, states a trend, a quantifier or a verdict,
checked against the committed values and tables (and, where the sentence is about the method, recomputed)."""

import itertools

import numpy as np

from lib.attention import causal_mask, scaled_dot_product_attention
from lib.exercises import check
from lib.running_example import running_qkv
from lib.sparse import top_k_selection, weight_share
from support import causal, flat_page, oracle_attention, published, published_table, run_snippet, section_output

INDEXER = "sparse_attention/indexer"
RANDOM = "sparse_attention/random_k"
BLOCKS = "sparse_attention/blocks"
BUGS = "sparse_attention/bugs"
EXERCISES = "sparse_attention/exercises"
PAGE = flat_page("sparse-attention.md")
PAGE_ZH = flat_page("sparse-attention.md", "docs-zh")


def column(snippet, table, name):
    return [float(r[name]) for r in published_table(snippet, table)]


# ------------------------------------------------------------------ the citations, as the page quotes them
def test_the_cited_configuration_values_are_the_ones_read_from_the_repository():
    # deepseek-ai/DeepSeek-V3.2-Exp at 3b99a5350d260b7c2a357e82362305509e2d0724, inference/config_671B_v3.2.json
    for quoted in (
        "`index_n_heads` = 64",
        "`index_head_dim` = 128",
        "`index_topk` = 2048",
        "commit 3b99a535",
        '"select 2048 key-value tokens for each query token" (section 2.1)',
    ):
        assert quoted in PAGE
    for quoted in ("`index_n_heads` = 64", "`index_head_dim` = 128", "`index_topk` = 2048", "3b99a535"):
        assert quoted in PAGE_ZH


def test_the_cited_nsa_values_are_the_papers():
    # Yuan et al. 2025, arXiv 2502.11089 v2: section 4.1 (sizes), 5.1 (Figure 6), 5.2 (Table 4), 2.2 (Chen et al.)
    for quoted in ("$l=32$", "$d=16$", "$l'=64$", "$n=16$", "$w=512$", "20%", "70%"):
        assert quoted in PAGE and quoted in PAGE_ZH
    for speed_up in ("9.0", "6.0", "11.6"):
        assert f"{speed_up}×" in PAGE and f"{speed_up} 倍" in PAGE_ZH
    # Table 4 gives the 11.6× as an expected speedup from the memory accessed, not a timed one like Figure 6's
    assert "Table 4 gives as an expected speedup" in PAGE
    assert "表 4 把这个数列为预期加速比" in PAGE_ZH
    # section 3.3.3 gives each branch its own keys and values; the stand-ins list says this page does not
    assert "the same keys and values for all three branches" in PAGE and "三个分支用同一组键和值" in PAGE_ZH


# ------------------------------------------------------------------ the indexer
def test_the_vectorised_scores_match_the_formula_to_rounding():
    assert published(INDEXER)["loop_gap"] < 1e-12


def test_mat_reads_exactly_its_three_keys():
    namespace = run_snippet(INDEXER)
    selected, tokens = namespace["selected"], namespace["tokens"]
    assert selected[5].sum() == 3
    keys = [f'"{tokens[s]}"' for s in np.flatnonzero(selected[5])]
    assert ", ".join(keys[:-1]) + " and " + keys[-1] == published(INDEXER)["mat_keys"]  # three keys, not one phrase


# ------------------------------------------------------------------ how much weight k keys hold
def test_exact_top_k_shares_and_keys_read_are_the_tables():
    values = published(INDEXER)
    rows = published_table(INDEXER, "sweep")
    assert f"{values['share_exact_k1']:.2f}" == rows[0]["weight held, exact top k"]
    assert f"{values['share_exact_k3']:.2f}" == rows[2]["weight held, exact top k"]
    assert values["keys_read_k3"] == int(rows[2]["keys read"]) == 18
    assert values["keys_dense"] == int(rows[2]["keys read, dense"]) == 28


def test_the_untrained_indexer_holds_less_and_never_more_than_the_exact_top_k():
    values = published(INDEXER)
    assert values["share_index_k3"] < values["share_exact_k3"]
    index = column(INDEXER, "sweep", "weight held, indexer")
    exact = column(INDEXER, "sweep", "weight held, exact top k")
    assert all(e >= i for e, i in zip(exact, index)) and values["exact_never_below_index"]


def test_the_exact_top_k_holds_the_largest_share_any_k_keys_can_hold():
    tokens, q, k, v = running_qkv()
    n = len(tokens)
    _, weights = scaled_dot_product_attention(q, k, v, causal_mask(n))
    exact = column(INDEXER, "sweep", "weight held, exact top k")
    for top_k in range(1, n + 1):
        best = np.mean(
            [
                max(sum(weights[t, list(c)]) for c in itertools.combinations(range(t + 1), min(top_k, t + 1)))
                for t in range(n)
            ]
        )
        assert f"{best:.2f}" == f"{exact[top_k - 1]:.2f}"


def test_the_indexer_error_does_not_fall_at_every_step_and_the_exact_top_k_can_miss_by_more():
    exact = column(INDEXER, "sweep", "output error, exact top k")
    index = column(INDEXER, "sweep", "output error, indexer")
    assert any(b > a for a, b in zip(index, index[1:]))
    assert sum(e > i for e, i in zip(exact, index)) == 1  # "at one k"


def test_k_covering_every_key_is_the_causal_mask_and_full_attention_bit_for_bit():
    values = published(INDEXER)
    assert values["covers_equals_causal_mask"] and values["covers_bitwise"] and values["covers_error"] == 0.0


def test_the_heatmap_keeps_at_most_three_keys_and_the_kept_weights_grow():
    namespace = run_snippet(INDEXER)
    top3, full = namespace["top3_weights"], namespace["full_weights"]
    assert published(INDEXER)["top3_max_keys"] == 3 == (top3 > 0).sum(axis=1).max()
    kept = top3 > 0
    assert np.all(top3[kept] >= full[kept])


# ------------------------------------------------------------------ random data
def test_the_heatmap_is_the_exact_top_3_which_differs_from_the_indexer_choice():
    namespace = run_snippet(INDEXER)
    allowed, tokens = namespace["allowed"], namespace["tokens"]
    exact = top_k_selection(namespace["exact_scores"], 3, allowed)
    by_index = top_k_selection(namespace["index"], 3, allowed)
    assert np.array_equal(namespace["top3_weights"] > 0, exact)
    differing = [tokens[t] for t in np.flatnonzero((exact != by_index).any(axis=1))]
    assert len(differing) == 3  # "on", "the", ".": "top 3 by score" alone would read as the indexer's
    assert "exact top 3" in PAGE and "non-zero cells per row" in PAGE and "coloured cells" not in PAGE
    assert "精确的前 3 个" in PAGE_ZH and "非零权重" in PAGE_ZH and "有颜色的格子" not in PAGE_ZH


def test_at_k3_the_mean_share_counts_queries_that_drop_no_key():
    namespace = run_snippet(INDEXER)
    values = published(INDEXER)
    allowed, full_weights = namespace["allowed"], namespace["full_weights"]
    share = weight_share(full_weights, top_k_selection(namespace["exact_scores"], 3, allowed))
    dropping = allowed.sum(axis=1) > 3
    assert np.all(share[~dropping] > 1 - 1e-12)  # at most 3 keys: all of them read, all the weight held
    assert values["n_dropping_k3"] == dropping.sum() == 4
    assert abs(values["share_exact_k3_dropping"] - share[dropping].mean()) < 1e-12
    assert values["share_exact_k3_dropping"] < values["share_exact_k3"] - 0.1  # the mean overstates them
    assert values["share_exact_k3_least"] == share.min() < 0.6
    assert values["least_share_token_k3"] == namespace["tokens"][int(np.argmin(share))]


def test_the_mean_share_rises_and_the_mean_error_falls_at_every_doubling():
    shares = column(RANDOM, "sweep", "weight held, mean")
    errors = column(RANDOM, "sweep", "output error, mean")
    assert all(b > a for a, b in zip(shares, shares[1:])) and published(RANDOM)["share_rises_with_k"]
    assert all(b < a for a, b in zip(errors, errors[1:])) and published(RANDOM)["mean_error_falls_with_k"]


def test_the_figure_least_share_is_below_the_mean_and_both_errors_fall():
    means = column(RANDOM, "sweep", "weight held, mean")
    least = column(RANDOM, "sweep", "weight held, least")
    assert all(lo < m for lo, m in zip(least[:-1], means[:-1])) and least[-1] == means[-1] == 1.0
    values = published(RANDOM)
    assert values["last_plotted_k"] == values["length"] // 2 and values["error_at_full_k"] == 0.0  # off a log axis
    largest = column(RANDOM, "sweep", "output error, largest")[:-1]  # the figure's right panel stops before L
    assert all(b < a for a, b in zip(largest, largest[1:]))


def test_k64_reads_a_quarter_of_the_keys_and_its_worst_query_holds_far_less_than_the_mean():
    values = published(RANDOM)
    row = next(r for r in published_table(RANDOM, "sweep") if r["k"] == "64")
    assert abs(values["keys_k64"] - float(row["keys read per query"])) < 0.1
    assert abs(values["fraction_k64"] - values["keys_k64"] / values["dense_keys"]) < 0.01
    assert values["least_share_k64"] < values["share_k64"] / 2


def test_the_random_scores_spread_the_weight_thinly():
    assert published(RANDOM)["share_k1"] < 0.1


def test_every_key_read_at_k_equal_to_the_length_gives_no_error():
    values = published(RANDOM)
    last = published_table(RANDOM, "sweep")[-1]
    # the table shows the dense count itself (256.5), not a rounding of it one key short (256)
    assert int(last["k"]) == values["length"] and last["keys read per query"] == f"{values['dense_keys']:.1f}"
    assert values["error_at_full_k"] == 0.0 and values["share_at_full_k"] == 1.0


# ------------------------------------------------------------------ blocks
def test_the_last_query_reads_what_the_sentence_counts():
    values = published(BLOCKS)
    assert (
        values["last_selected"] == (values["n_selected"] + 1) * values["block_size"] == values["last_selected_expected"]
    )
    assert values["last_total"] == values["last_compressed"] + values["last_selected"] + values["last_window"]
    assert f"{values['last_total'] / values['length']:.2f}" == f"{values['last_fraction']:.2f}"
    assert values["last_compressed"] == values["length"] // values["block_size"]


def test_the_selected_and_window_branches_overlap_near_the_query():
    masks = run_snippet(BLOCKS)["masks"]
    assert (masks["selected"][-1] & masks["window"][-1]).sum() > 0


def test_the_fine_branches_share_is_recomputed():
    namespace = run_snippet(BLOCKS)
    share = weight_share(namespace["full_weights"], namespace["union"])
    values = published(BLOCKS)
    assert f"{share.mean():.2f}" == f"{values['union_share_mean']:.2f}"
    assert f"{share.min():.2f}" == f"{values['union_share_least']:.2f}"


def test_every_block_selected_is_full_attention():
    values = published(BLOCKS)
    assert values["every_block_mask_is_causal"] and values["every_block_error"] == 0.0


def test_no_branch_and_not_the_gated_sum_is_full_attention_and_the_range_is_right():
    errors = {r["branch"]: float(r["output error vs full, mean"]) for r in published_table(BLOCKS, "branches")}
    values = published(BLOCKS)
    assert min(errors.values()) > 0.1
    assert min(errors, key=errors.get) == "gated sum" and max(errors, key=errors.get) == "window"
    assert abs(errors["gated sum"] - values["error_gated"]) < 0.01
    assert abs(errors["window"] - values["error_window"]) < 0.01


# ------------------------------------------------------------------ the two bugs
def test_both_bugs_run_and_give_outputs_of_the_right_shape():
    namespace = run_snippet(BUGS)
    assert namespace["wrong_weights"].shape == (namespace["n"], namespace["n"])
    assert namespace["out_shifted"].shape == namespace["out_right"].shape == (512, 16)


def test_the_top_k_before_the_mask_reads_later_keys():
    values = published(BUGS)
    namespace = run_snippet(BUGS)
    assert values["future_queries"] == int(namespace["future"].any(axis=1).sum()) == 5
    assert values["first_future_weight"] > 0.5 and not values["right_reads_future"]
    assert "The" in section_output(BUGS, "future")


def test_the_causal_mask_applied_after_the_top_k_of_every_key_is_causal_but_reads_too_few_keys():
    values = published(BUGS)
    namespace = run_snippet(BUGS)
    n, wrong, right = namespace["n"], namespace["wrong"], namespace["right"]
    after = wrong & causal_mask(n)
    assert not (after & ~causal_mask(n)).any() and not values["after_mask_reads_future"]  # no leak: mask after
    allowed_counts = causal_mask(n).sum(axis=1)
    assert np.array_equal(right.sum(axis=1), np.minimum(3, allowed_counts))
    assert (after.sum(axis=1) < right.sum(axis=1)).any()  # the bug is still there: places spent on later keys
    assert values["after_mask_keys"] == ", ".join(str(c) for c in after.sum(axis=1))
    empty = np.flatnonzero(after.sum(axis=1) == 0)
    assert values["after_mask_empty"] == namespace["tokens"][empty[0]] == "cat" and len(empty) == 1
    assert values["after_mask_empty_allowed"] == allowed_counts[empty[0]] == 2
    # the heading names the bug that was measured: no mask at all, not "top k, then the mask"
    assert "taken before the mask" not in PAGE and "先取前 $k$ 个、后用掩码" not in PAGE_ZH


def test_the_shifted_index_is_causal_yet_reads_outside_its_blocks():
    values = published(BUGS)
    assert not values["shifted_reads_future"]
    assert 0 < values["stray_queries"] <= values["length"] and values["shift_error"] > 0.5


# ------------------------------------------------------------------ exercises
def test_exercise_top_weight_of_two_against_the_loop_oracle():
    ex = published(EXERCISES)
    tokens, q, k, v = running_qkv()
    _, weights = oracle_attention(q.tolist(), k.tolist(), v.tolist(), causal(len(tokens)))  # the left heatmap
    row = weights[tokens.index("mat")]
    best = sorted(range(len(row)), key=lambda j: -row[j])  # keys by weight: the exact top k's order
    two, three = best[: ex["few_keys"]], best[:3]
    assert (ex["top_key"], ex["other_key"]) == (tokens[best[0]], tokens[best[1]])
    assert np.isclose(ex["top_weight_of_two"], row[best[0]] / sum(row[j] for j in two), rtol=1e-12)
    assert np.isclose(ex["top_weight_of_two__not_renormalised"], row[best[0]], rtol=1e-12)
    assert np.isclose(ex["top_weight_of_two__read_top_three"], row[best[0]] / sum(row[j] for j in three), rtol=1e-12)
    assert np.isclose(ex["kept_full_weight"], sum(row[j] for j in two), rtol=1e-12)
    shown = [round(row[j], 2) for j in two]  # what the heatmap's cells print
    assert check(shown[0] / sum(shown), ex["top_weight_of_two"], decimals=2) == ("right", None)


def test_exercise_pairs_read_by_counting():
    ex, length = published(EXERCISES), published(RANDOM)["length"]
    top_k = ex["pairs_k"]
    assert ex["length"] == length and top_k not in [int(r["k"]) for r in published_table(RANDOM, "sweep")]
    assert ex["pairs_read"] == sum(min(i + 1, top_k) for i in range(length))
    assert ex["pairs_first_queries"] == top_k * (top_k + 1) // 2
    assert ex["pairs_later_queries"] == (length - top_k) * top_k
    assert ex["pairs_read__top_k_before_mask"] == length * top_k
    assert ex["pairs_read__query_left_out"] == sum(min(i, top_k) for i in range(length))


def test_exercises_on_one_querys_blocks_by_counting():
    ex, blocks = published(EXERCISES), published(BLOCKS)
    b, n, query = ex["block_size"], ex["n_selected"], ex["query"]
    assert (b, n, ex["length"]) == (blocks["block_size"], blocks["n_selected"], blocks["length"])
    n_blocks = blocks["length"] // b
    complete = [j for j in range(n_blocks) if (j + 1) * b - 1 <= query]  # blocks that end at or before the query
    own_start = query // b * b
    assert len(complete) > n and query // b not in complete  # the premises the solution states
    assert (ex["own_block_start"], ex["n_blocks"]) == (own_start, n_blocks)
    assert ex["best_blocks_keys"] == n * b and ex["own_keys_read"] == query - own_start + 1
    assert ex["selected_keys"] == n * b + query - own_start + 1
    assert ex["selected_keys__own_block_whole"] == (n + 1) * b
    assert ex["selected_keys__own_block_left_out"] == n * b
    assert ex["compressed_entries"] == len(complete)
    assert ex["last_complete_end"] == (complete[-1] + 1) * b - 1
    assert ex["compressed_entries__own_block_counted"] == sum(1 for j in range(n_blocks) if j * b <= query)
    assert ex["compressed_entries__every_block"] == n_blocks
