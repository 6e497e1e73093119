"""Claims about positions and order: each verdict against an independent recomputation."""

import math

import numpy as np
import pytest

from scripts.pipeline.references import VALUE
from support import INVENTORY, TABLE_3, W, X, attend, causal, claim, flat_page, kind, positional_encoding, text, v


@claim("C000-26")
def test_c000_26_learned_positions_nearly_identical():
    assert abs(float(TABLE_3["(E) learned positional embedding instead of sinusoids"]) - 25.8) < 0.15
    assert kind("C000-26") == "holds"


@claim("C003-36")
def test_c003_36_equivariant_not_invariant():
    perm = [3, 0, 6, 1, 5, 2, 4]
    out, _ = attend(X, W)
    shuffled, _ = attend(X[perm], W)
    np.testing.assert_allclose(shuffled, out[perm], rtol=1e-12, atol=1e-14)
    assert np.abs(shuffled - out).max() > 0.01
    np.testing.assert_allclose(np.sort(shuffled, 0), np.sort(out, 0), atol=1e-14)
    assert kind("C003-36") == "does not hold"
    assert kind("C003-37") == "holds" and kind("C003-38") == "holds only when"


@claim("C000-84")
def test_c000_84_causal_mask_or_positions_break_the_symmetry():
    perm = [3, 0, 6, 1, 5, 2, 4]
    causal_gap = np.abs(attend(X[perm], W, causal(7))[0] - attend(X, W, causal(7))[0][perm]).max()
    pe = np.array([[positional_encoding(p, i, 8) for i in range(8)] for p in range(7)])
    pe_gap = np.abs(attend(X[perm] + pe, W)[0] - attend(X + pe, W)[0][perm]).max()
    assert causal_gap > 0.01 and pe_gap > 0.01
    assert kind("C000-84") == kind("C000-83") == "holds only when" and kind("C003-46") == "holds"


@claim("C000-29")
def test_c000_29_distance_depends_only_on_offset():
    pe = np.array([[positional_encoding(p, i, 16) for i in range(16)] for p in range(30)])
    dist = lambda i, j: float(np.linalg.norm(pe[i] - pe[j]))  # noqa: E731
    for offset in range(1, 20):
        assert max(dist(i, i + offset) for i in range(10)) - min(dist(i, i + offset) for i in range(10)) < 1e-12
    profile = [dist(0, j) for j in range(30)]
    assert any(b < a for a, b in zip(profile[1:], profile[2:]))  # not monotone
    assert kind("C000-29") == "holds only when"


@claim("C000-29")
def test_c000_29_a_farther_position_can_be_nearer_so_the_verdict_is_conditional():
    """The row once said "holds": at d_model = 128 the distance ‖P_0 − P_j‖ falls again and again over the first
    40 offsets, so it does not order distances; the verdict holds only when "reflects" means "depends only on"."""
    pe = np.array([[positional_encoding(p, i, 128) for i in range(128)] for p in range(40)])
    falls = int(np.sum(np.diff(np.linalg.norm(pe - pe[0], axis=1)) < 0))
    assert falls == v("claims/positions", "pe_distance_not_monotone") > 0
    assert kind("C000-29") == "holds only when" and "not one that grows with it" in INVENTORY["C000-29"].condition
    # the zh template wraps the whole condition in 仅当……时成立: the "not monotone" part is a bracketed gloss, not a
    # second requirement ("但并不随距离增大时成立" read as if the claim held only where the distance does not grow)
    assert INVENTORY["C000-29"].condition_zh.startswith("把“反映”理解为“只取决于”（")
    assert INVENTORY["C000-29"].condition_zh.endswith("）")


@claim("C000-30")
def test_c000_30_seed_formula_is_the_paper_formula():
    for p in range(6):
        for j in range(0, 16, 2):
            assert math.sin(p / 10000 ** (j / 16)) == pytest.approx(positional_encoding(p, j, 16), abs=1e-15)
            assert math.cos(p / 10000 ** (j / 16)) == pytest.approx(positional_encoding(p, j + 1, 16), abs=1e-15)
    assert v("claims/positions", "pe_formula_error") < 1e-12 and kind("C000-30") == "holds"


@claim("C000-31")
def test_c000_31_low_dimensions_are_high_frequency():
    periods = [2 * math.pi * 10000 ** (j / 128) for j in range(0, 128, 2)]
    assert periods == sorted(periods) and periods[0] == pytest.approx(2 * math.pi)
    assert text("claims/positions", "period_last") == f"{periods[-1]:,.0f}"
    assert kind("C000-31") == "does not hold"


@claim("C000-32")
def test_c000_32_positions_do_not_dominate_word_vectors():
    pe = np.array([[positional_encoding(p, i, 128) for i in range(128)] for p in range(200)])
    assert pe.std() < 0.75 < 0.95 < v("claims/positions", "seed000_x_std") + 0.1
    assert kind("C000-32") == "does not hold" and kind("C000-33") == "holds only when"


@claim("C000-28")
def test_c000_28_encodings_exist_far_away():
    far = [positional_encoding(100_000, i, 8) for i in range(8)]
    assert all(abs(a) <= 1 for a in far) and kind("C000-28") == "holds only when"
    assert kind("C000-25") == "does not hold" and kind("C000-27") == "holds"


@claim("C003-40")
def test_c003_40_adding_keeps_the_width():
    assert (X + X).shape[-1] == 8 and np.concatenate([X, X], -1).shape[-1] == 16
    assert (v("claims/heads", "add_width"), v("claims/heads", "concat_width")) == (128, 256) and kind(
        "C003-40"
    ) == "holds only when"


@claim("C003-40")
def test_c003_40_quotes_the_papers_whole_sentence_and_gives_it_no_reason_for_adding():
    """The evidence once said the paper gives "only that reason" for adding; §3.5's sentence explains the encodings'
    width given that they are summed, and never compares adding with concatenating."""
    for evidence in (INVENTORY["C003-40"].evidence, INVENTORY["C003-40"].evidence_zh):
        assert "reason" not in evidence and "理由" not in evidence
    assert '"have the same dimension d_model as the embeddings, so that the two can be summed" (§3.5)' in (
        INVENTORY["C003-40"].evidence
    )


@claim("C000-88")
@pytest.mark.parametrize("offset", [1, 5, 17])
def test_c000_88_a_shift_is_a_rotation_of_each_frequency_pair(offset):
    """§3.5's stated reason: PE(pos + k) is a linear function of PE(pos), the same for every pos."""
    d = 16
    for pair in range(0, d, 2):
        angle = offset / 10000 ** (pair / d)
        for pos in range(0, 40, 7):
            sin_p, cos_p = positional_encoding(pos, pair, d), positional_encoding(pos, pair + 1, d)
            rotated = (
                sin_p * math.cos(angle) + cos_p * math.sin(angle),
                cos_p * math.cos(angle) - sin_p * math.sin(angle),
            )
            shifted = (positional_encoding(pos + offset, pair, d), positional_encoding(pos + offset, pair + 1, d))
            assert rotated == pytest.approx(shifted, abs=1e-12)
    assert (
        kind("C000-88") == "holds only when" and float(v("positional_encoding/relative", "rotation_max_error")) < 1e-12
    )


@claim("C000-75")
def test_c000_75_unused_rows_of_a_learned_table_get_no_gradient():
    assert v("debugging/positions", "unused_grad") == 0.0 and kind("C000-75") == "cannot be checked here"
    # they keep their values only without weight decay: the site's Adam moves them, so the evidence says so; whether
    # the used rows overfit is not measured, so the claim as a whole cannot be checked
    assert v("debugging/positions", "unused_change_no_decay") == 0.0
    assert float(v("debugging/positions", "unused_kept_decay")) < 1
    row = INVENTORY["C000-75"]
    assert "without weight decay" in row.evidence and "不做权重衰减" in row.evidence_zh
    assert "overfit needs fine-tuning runs" in row.evidence


@claim("C000-24")
def test_c000_24_order_is_invisible_only_without_a_causal_mask():
    perm = [3, 0, 6, 1, 5, 2, 4]  # equivariance without a mask: test_c003_36; with a causal mask it breaks
    masked_gap = np.abs(attend(X[perm], W, causal(7))[0] - attend(X, W, causal(7))[0][perm]).max()
    assert masked_gap > 0.1  # "holds" ignored the mask C000-83 names
    assert kind("C000-24") == kind("C000-83") == "holds only when"


@pytest.mark.parametrize("cid", ["C000-14", "C000-29", "C000-31", "G-02"])
def test_a_chapter_value_the_evidence_quotes_stands_on_the_page_it_links_to(cid):
    """These rows once linked to a page that never showed their numbers: each chapter value their evidence quotes
    (not the claims snippet's own) now stands on the page the row links to, in both editions."""
    row = INVENTORY[cid]
    page = row.see.partition("#")[0]
    references = [m.group(0) for m in VALUE.finditer(row.evidence)]
    chapter_values = [ref for ref in references if not ref.startswith("{{ claims.")]
    assert chapter_values, cid
    for folder in ("docs", "docs-zh"):
        text = flat_page(page, folder)
        assert all(ref in text for ref in chapter_values), (cid, folder)
