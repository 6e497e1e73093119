"""scripts/review_claims.py, the candidate lister of the truth review (issue 21), runs and finds what it should."""

import contextlib
import io

from scripts import review_claims
from support import INVENTORY


def test_the_lister_runs_and_covers_every_chapter_and_verdict():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert review_claims.main([]) == 0
    text = out.getvalue()
    for page in review_claims.chapters():
        assert f"## {page.name} (" in text, page.name
        assert review_claims.candidates(page), f"{page.name}: no candidate sentence found"
    assert f"{len(INVENTORY)} claims verdicts" in text
    for cid, claim in INVENTORY.items():
        assert f"\n{cid} [" in text, cid
        assert f"\n{cid} 中文 [{claim.verdict_zh}] {claim.claim_zh} -- " in text, cid  # the Chinese row too


def test_the_lister_shows_values_and_flags_quantifiers():
    page = review_claims.DOCS / "scaled-dot-product.md"
    found = " ".join(sentence for _, sentence in review_claims.candidates(page))
    assert "{{" not in found  # values are shown as the page shows them
    assert "At most 1 row in 1,000 passes $0.99$" in found  # "at most", "none from": a quantifier sentence
    assert any(s.startswith("[alt] ") for _, s in review_claims.candidates(page))  # alt texts are reviewed too
