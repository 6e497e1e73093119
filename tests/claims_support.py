"""What the claims tests share: the inventory's verdicts, the published values, and a loop-oracle attention layer.

The verdicts come from snippets/lib/claims_inventory.py (the one list the page is built from); measured values
come from the committed values.json of the snippet that publishes them (a claims_* snippet or a chapter's).
"""

import json
from pathlib import Path

import numpy as np
import pytest
from oracle import attention as oracle_attention

from lib.claims_inventory import claims

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "docs" / "generated"
PAGE = ROOT / "docs" / "claims.md"
INVENTORY = {claim["id"]: claim for claim in claims()}
VERDICTS = {cid: claim["verdict"] for cid, claim in INVENTORY.items()}
ALLOWED = ("holds", "does not hold", "cannot be checked here")


def _values(snippet):
    return json.loads((GENERATED / snippet / "values.json").read_text(encoding="utf-8"))


def v(snippet, name):
    """A published value, as a number (or list, or string)."""
    return _values(snippet)[name]["value"]


def text(snippet, name):
    """A published value as the page shows it."""
    return _values(snippet)[name]["text"]


def kind(cid):
    """The claim's verdict, with "holds only when ..." shortened to "holds only when"."""
    verdict = VERDICTS[cid]
    if verdict.startswith("holds only when "):
        return "holds only when"
    assert verdict in ALLOWED, verdict
    return verdict


def claim(cid):
    """pytest mark naming the claim and its verdict, worded as on the page."""
    entry = INVENTORY[cid]
    return pytest.mark.claim(f"{cid} {entry['claim']} ({entry['source']}) Verdict: {entry['verdict']}.")


def attend(x, w, allowed=None):
    """Self-attention through the loop oracle: x (L, d), w = (W_q, W_k, W_v) arrays."""
    x = np.asarray(x)
    q, k, val = (x @ m for m in w)
    out, weights = oracle_attention(q.tolist(), k.tolist(), val.tolist(), allowed)
    return np.array(out), np.array(weights)


def causal(n):
    """Allowed pairs of a causal mask, as nested lists for the oracle."""
    return [[j <= i for j in range(n)] for i in range(n)]


_rng = np.random.default_rng(31415)
X = _rng.normal(size=(7, 8))  # seven tokens, d_model = 8
W = tuple(_rng.normal(scale=8**-0.5, size=(3, 8, 8)))  # W_q, W_k, W_v

# Vaswani et al. 2017, "Attention Is All You Need", arXiv:1706.03762, LaTeX source: the citation the tests hold.
# Table 2: newstest2014 BLEU (EN-DE, EN-FR) and training cost in FLOPs (EN-DE, EN-FR) as mantissa, exponent.
TABLE_2 = {
    "GNMT + RL": ("24.6", "39.92", "2.3", "19", "1.4", "20"),
    "ConvS2S": ("25.16", "40.46", "9.6", "18", "1.5", "20"),
    "MoE": ("26.03", "40.56", "2.0", "19", "1.2", "20"),
    "GNMT + RL Ensemble": ("26.30", "41.16", "1.8", "20", "1.1", "21"),
    "ConvS2S Ensemble": ("26.36", "41.29", "7.7", "19", "1.2", "21"),
    "Transformer (base model)": ("27.3", "38.1", "3.3", "18", "3.3", "18"),  # one figure for both
    "Transformer (big)": ("28.4", "41.8", "2.3", "19", "2.3", "19"),
}
# Table 3: English-to-German dev set (newstest2013) BLEU.
TABLE_3 = {"base (8 heads, sinusoidal positions)": "25.8", "(A) 1 head": "24.9",
           "(E) learned positional embedding instead of sinusoids": "25.7"}
