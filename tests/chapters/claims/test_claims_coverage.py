"""Every sentence of both seed tutorials is mapped to a claim on the claims page, or to a reason it makes none.

The record is tests/chapters/claims/seed_coverage.json. A sentence is a run of text between 。！？ or line breaks
(a code block the stored text lost its line breaks from counts as one sentence); it is identified by its seed file
and the SHA-1 of
its text with whitespace removed, so that the record survives reordering but not an edited sentence. The seeds
live outside the repository, in <repo root>/../shared/seeds (or $SEEDS_DIR); without them the tests that read
them skip, saying where they looked.
"""

import hashlib
import json
import os
import re
from pathlib import Path

import pytest

from support import INVENTORY, REPO, nonempty_glob

RECORD = REPO / "tests" / "chapters" / "claims" / "seed_coverage.json"
SEEDS = Path(os.environ.get("SEEDS_DIR", REPO.parent / "shared" / "seeds"))
SEED_FILES = ("000_*.txt", "003_*.txt")


def sentences(text):
    """The seed's sentences: split on 。！？ and line breaks, stripped, empty ones dropped."""
    return [s.strip() for s in re.split(r"[。！？\n]+", text) if s.strip()]


def sentence_key(sentence):
    return hashlib.sha1(re.sub(r"\s+", "", sentence).encode("utf-8")).hexdigest()[:12]


def seed_folder():
    """The folder of the seed tutorials; the test skips, saying where it looked, when it is not there."""
    if not SEEDS.is_dir():
        pytest.skip(f"seed tutorials not found at {SEEDS} (set SEEDS_DIR to the folder holding 000_*.txt, 003_*.txt)")
    return SEEDS


def load_record():
    entries = json.loads(RECORD.read_text(encoding="utf-8"))
    return {(entry["seed"], entry["key"]): entry for entry in entries}


def test_sentence_splitting():
    assert sentences("一句。二句！\n三句？  \n\n") == ["一句", "二句", "三句"]
    assert sentence_key("a b") == sentence_key("ab") != sentence_key("abc")


def test_every_record_entry_maps_to_existing_claims_or_gives_a_reason():
    for (seed, key), entry in load_record().items():
        assert ("claims" in entry) != ("no_claim" in entry), (seed, key)
        if "claims" in entry:
            assert entry["claims"], (seed, key)
            unknown = [cid for cid in entry["claims"] if cid not in INVENTORY]
            assert not unknown, f"{seed} sentence {entry['starts']!r} maps to missing claims {unknown}"
        else:
            assert entry["no_claim"].strip(), (seed, key)


def test_every_seed_claim_is_reached_from_a_sentence():
    mapped = {cid for entry in load_record().values() for cid in entry.get("claims", [])}
    seed_claims = {cid for cid in INVENTORY if cid.startswith("C")}
    assert seed_claims <= mapped, sorted(seed_claims - mapped)


@pytest.mark.claim(
    "Every sentence of both seed tutorials is mapped to a claim on the claims page or to a reason it makes none",
    zh="两篇种子教程的每一句话，都对应到论断核查页上的一个论断，或者对应到它不提出论断的理由",
)
def test_every_seed_sentence_is_mapped():
    folder = seed_folder()
    record = load_record()
    unmapped, seen = [], set()
    for pattern in SEED_FILES:
        paths = nonempty_glob(folder, pattern)
        assert len(paths) == 1, f"expected one seed file {pattern} in {folder}, found {paths}"
        for sentence in sentences(paths[0].read_text(encoding="utf-8")):
            key = (paths[0].name, sentence_key(sentence))
            seen.add(key)
            if key not in record:
                unmapped.append(f"{paths[0].name}: {sentence[:60]!r} (key {key[1]})")
    assert not unmapped, "sentences without a mapping in tests/chapters/claims/seed_coverage.json:\n" + "\n".join(
        unmapped
    )
    stale = sorted(set(record) - seen)
    assert not stale, f"mappings for sentences no longer in the seeds: {stale}"


@pytest.mark.claim(
    "Where a Chinese claims row quotes a tutorial (“...” around Chinese), the words are the tutorial's own",
    zh="中文论断行凡是引用种子教程（用“”括起的中文），所引的都是教程的原话",
)
def test_the_chinese_rows_quote_the_tutorials_in_their_own_words():
    texts = (path.read_text(encoding="utf-8") for path in nonempty_glob(seed_folder(), "00*_*.txt"))
    seeds = "".join(re.sub(r"\s+", "", text) for text in texts)
    quotes = {
        (cid, quote)
        for cid, claim in INVENTORY.items()
        for quote in re.findall(r"“([^”]*)”", claim.claim_zh)
        if re.search(r"[\u4e00-\u9fff]", quote)
    }
    assert {cid for cid, _ in quotes} >= {"C000-87", "C003-45", "C000-17", "C000-37"}
    assert not sorted((cid, quote) for cid, quote in quotes if re.sub(r"\s+", "", quote) not in seeds)


def test_the_rebuilt_masking_line_is_seed_000s_own():
    """The debugging page runs seed 000's masking line as lib/claims_seeds.py rebuilds it; the stored seed text,
    which lost its '=' signs, has the same operation."""
    (path,) = nonempty_glob(seed_folder(), "000_*.txt")
    assert "scores - 1e9 * mask" in path.read_text(encoding="utf-8")
