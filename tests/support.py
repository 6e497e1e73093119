"""What the tests share, in one place: the repository's folders, a glob that must match, readers of what the build
committed, a snippet run in-process, the site's nav, git (through the build's one runner), an independent attention
oracle, the claims inventory with its helpers, and what the browser tests share besides their fixtures
(tests/site/conftest.py): Chromium's place, a quiet file server, a visit that waits for the network.

The oracle (plain Python loops over positions, one number at a time) shares no code with
snippets/lib/attention.py; tests compare the two. Committed outputs are read through the build's one reader
(scripts/pipeline/published.py) and pages through its one reader of references (scripts/pipeline/references.py).
"""

import contextlib
import functools
import io
import json
import math
import os
import re
import runpy
import tomllib
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

import numpy as np
import pytest
import yaml

from lib import zh
from lib.claims import load as load_claims
from scripts.pipeline import published as _published
from scripts.pipeline.project import REPO, Project, git as _git
from scripts.pipeline.references import VALUE

PROJECT = Project()
GENERATED = PROJECT.generated
DOCS, DOCS_ZH = REPO / "docs", REPO / "docs-zh"
SEEDS = Path(os.environ.get("SEEDS_DIR") or REPO.parent / "shared" / "seeds")  # the seed tutorials, where at hand


def nonempty_glob(folder, pattern):
    """The paths under ``folder`` that match ``pattern`` (Path.glob's syntax, ``**`` for any depth), sorted.

    The one way the tests glob (tests/build/test_suite_globs.py holds them to it): a pattern that matches nothing
    raises naming the folder and the pattern, so a stale glob fails instead of leaving a test with nothing to check.
    """
    paths = sorted(Path(folder).glob(pattern))
    if not paths:
        raise LookupError(f"nothing under {folder} matches {pattern!r}")
    return paths


def flat_page(name, folder="docs"):
    """A page's Markdown with its line breaks and runs of spaces as single spaces (for sentences across lines)."""
    return " ".join((REPO / folder / name).read_text(encoding="utf-8").split())


# ------------------------------------------------------------------ committed outputs, and snippets run in-process
def in_page_links(notebook):
    """The ids the in-page links ``](#id)`` of a committed notebook target, in order, repeats kept: in its Markdown
    cells and in the Markdown its cells showed (an exercise's hint)."""
    cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    shown = [output.get("data", {}) for cell in cells for output in cell.get("outputs", [])]
    texts = [cell["source"] for cell in cells if cell["cell_type"] == "markdown"]
    texts += [data["text/markdown"] for data in shown if "text/markdown" in data]
    return [target for text in texts for target in re.findall(r"\]\(#([^)\s]+)\)", "".join(text))]


def published(snippet):
    """{name: value} of a snippet's committed values."""
    return {name: entry["value"] for name, entry in _published.values(snippet).items()}


def published_table(snippet, name):
    """A committed table as a list of {column: cell text} rows (read from its JSON, never its Markdown)."""
    return _published.table_records(snippet, name)


def section_output(snippet, section):
    """What section ``section`` of a snippet printed in the committed run."""
    return _published.printed(snippet, section)


@functools.cache
def run_snippet(name):
    """Run snippet ``name`` (``<chapter>/<what>``) once, quietly, and return its namespace (functions included).

    Its published values and tables are kept out of publish.VALUES / TABLES, plt.show does nothing, its printout
    is swallowed and its figures are closed.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lib import publish

    publish.VALUES.clear()
    publish.TABLES.clear()
    show, plt.show = plt.show, lambda *args, **kwargs: None
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            namespace = runpy.run_path(str(REPO / "snippets" / f"{name}.py"), run_name="__main__")
    finally:
        plt.show = show
        plt.close("all")
        publish.VALUES.clear()
        publish.TABLES.clear()
    return namespace


def published_exercise(snippet, name):
    """An exercise of ``snippets/<chapter>/exercises.py`` as published: its answer, {mistake: its result} (the values
    ``name__<mistake>``; shapes as tuples) and the decimals asked (those the answer's text shows; 0 unless a float)."""
    from lib.exercises import places

    def read(entry):
        x = entry["value"]
        return tuple(x) if isinstance(x, list) and all(isinstance(n, int) for n in x) else x

    entries = _published.values(snippet)
    answer = read(entries[name])
    mistakes = {key.partition("__")[2]: read(entry) for key, entry in entries.items() if key.startswith(f"{name}__")}
    return answer, mistakes, places(entries[name]["text"]) if isinstance(answer, float) else 0


def v(snippet, name):
    """A published value, as a number (or list, or string)."""
    return _published.value(snippet, name)


def text(snippet, name):
    """A published value as the page shows it."""
    return _published.values(snippet)[name]["text"]


# ------------------------------------------------------------------ the site's nav
class _Loader(yaml.SafeLoader):
    pass


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)  # mkdocs.yml's !ENV and python tags


def nav_pages(entries):
    """The Markdown files of a nav list, sections walked depth-first, in order."""
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        if isinstance(value, list):
            yield from nav_pages(value)
        else:
            yield value


def mkdocs_config(name="mkdocs.yml"):
    """A MkDocs configuration file as YAML data (its tags read as None)."""
    return yaml.load((REPO / name).read_text(encoding="utf-8"), Loader=_Loader)


NAV = list(nav_pages(mkdocs_config()["nav"]))  # the Chinese edition inherits this menu


# ------------------------------------------------------------------ git, through the build's one runner
IDENTITY = ("-c", "user.name=t", "-c", "user.email=t@t")  # before a command that commits, in a scratch repository


def git(root, *args):
    """``git -C root args...``: its output, stripped; a failure raises naming the command and git's message."""
    result = _git(root, *args)
    if result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {root}: {result.stderr.strip()}")
    return result.stdout.strip()


# ------------------------------------------------------------------ the oracle: loops written from the definitions
def softmax_row(row):
    """Softmax of a list of floats, -inf allowed; an all -inf row gives zeros."""
    finite = [x for x in row if x != -math.inf]
    if not finite:
        return [0.0] * len(row)
    top = max(finite)
    exps = [0.0 if x == -math.inf else math.exp(x - top) for x in row]
    total = sum(exps)
    return [e / total for e in exps]


def oracle_attention(q, k, v, allowed=None):
    """q: Lq lists of d_k floats; k: Lk lists; v: Lk lists of d_v; allowed[i][j] True = may attend."""
    d_k = len(q[0])
    outputs, weights = [], []
    for i, query in enumerate(q):
        scores = []
        for j, key in enumerate(k):
            if allowed is not None and not allowed[i][j]:
                scores.append(-math.inf)
            else:
                scores.append(sum(a * b for a, b in zip(query, key)) / math.sqrt(d_k))
        row = softmax_row(scores)
        weights.append(row)
        outputs.append([sum(row[j] * v[j][c] for j in range(len(k))) for c in range(len(v[0]))])
    return outputs, weights


# The seed of lib.seeded whose first SplitMix64 state is 0, which the mix keeps 0: its first uniform is the
# smallest one, half a step above zero (tests/core/test_seeded.py, tests/site/test_explorable_core.py).
FIRST_OUTPUT_ZERO = 2**64 - 0x9E3779B97F4A7C15


def positional_encoding(p, dim, d_model, base=10000):
    """One entry of the sinusoidal encoding, straight from section 3.5 of the paper (whose base is 10000)."""
    pair = dim // 2
    angle = p / base ** (2 * pair / d_model)
    return math.sin(angle) if dim % 2 == 0 else math.cos(angle)


# ------------------------------------------------------------------ the claims inventory
CLAIMS_PAGE = DOCS / "claims.md"
CLAIMS = load_claims()  # the inventory: snippets/claims/claims.toml
INVENTORY = {claim.id: claim for claim in CLAIMS.claims}
VERDICTS = {cid: claim.verdict_en for cid, claim in INVENTORY.items()}
ALLOWED = ("holds", "does not hold", "cannot be checked here")


def kind(cid):
    """The claim's verdict, with "holds only when ..." shortened to "holds only when"."""
    verdict = VERDICTS[cid]
    if verdict.startswith("holds only when "):
        return "holds only when"
    assert verdict in ALLOWED, verdict
    return verdict


CITED = re.compile(r"\b([A-Z][a-z]+) et al\.")  # an author a claims row's evidence cites


def evidence_not_on_its_page(claim):
    """What a claims row's evidence shows that the page it links to (``see``) does not: each value it quotes, each
    code it quotes and each author it cites, as written in the English page's source. Empty when the row's evidence
    stands on its page."""
    page = flat_page(claim.see.partition("#")[0])
    shown = [m.group(0) for m in VALUE.finditer(claim.evidence)] + re.findall(r"`[^`]+`", claim.evidence)
    return [item for item in shown + CITED.findall(claim.evidence) if " ".join(item.split()) not in page]


def claim(cid):
    """pytest mark naming the claim and its verdict, worded as on the page."""
    entry = INVENTORY[cid]
    return pytest.mark.claim(f"{cid} {entry.claim} ({entry.source}) Verdict: {entry.verdict_en}.")


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
TABLE_3 = {
    "base (8 heads, sinusoidal positions)": "25.8",
    "(A) 1 head": "24.9",
    "(E) learned positional embedding instead of sinusoids": "25.7",
}


# ------------------------------------------------------------------ English left in Chinese generated text
# The one list of words Chinese text may keep in Latin letters (snippets/lib/zh.latin.toml), beyond what
# is not a word there: value references, link targets, file and module paths, quoted English passages and titles
# (“...”, 《...》), names of several words (its [phrases]), code, math and identifiers (lib.zh.english_words), the
# examples' tokens.
_LATIN = tomllib.loads((REPO / "snippets/lib/zh.latin.toml").read_text(encoding="utf-8"))
LATIN_IN_CHINESE = frozenset(word for group in _LATIN["words"].values() for word in group)
LATIN_PHRASES = re.compile("|".join(re.escape(phrase) for group in _LATIN["phrases"].values() for phrase in group))
_NOT_CHECKED = re.compile(
    VALUE.pattern + r"|\]\([^)]*\)|《[^》]*》|“[A-Za-z0-9 ,.'’!?-]*”"
    r"|[A-Za-z0-9_-]*[A-Za-z0-9][./][A-Za-z0-9_./-]*|(?<![A-Za-z0-9])\.[a-z]+\b"  # a path, a file's extension
     + f"|{LATIN_PHRASES.pattern}"
)


def english_words(text):
    """The English words in Chinese ``text`` that lib.zh.english_words finds and LATIN_IN_CHINESE does not allow."""
    return [word for word in zh.english_words(_NOT_CHECKED.sub(" ", text)) if word not in LATIN_IN_CHINESE]


CHROMIUM = Path("/usr/bin/chromium")


def require_chromium():
    """Skip the calling test module when Chromium is not at CHROMIUM (fail instead in CI, which must run them)."""
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail("CI needs Chromium at /usr/bin/chromium for the browser tests (.ci/run installs it)")
        pytest.skip(
            "Chromium is not installed at /usr/bin/chromium (apt-get install chromium)", allow_module_level=True
        )


class QuietHandler(SimpleHTTPRequestHandler):
    """Serves a folder over HTTP without logging each request."""

    def log_message(self, *args):
        pass


def visit(page, base_url, path):
    """Open ``path`` of the served site in ``page`` and wait until the network is idle."""
    page.goto(base_url + path, wait_until="networkidle")
    return page


def numeric_gradient(loss, array, step=1e-6):
    """Central differences of ``loss()`` in each entry of ``array`` (changed in place and restored)."""
    grad = np.zeros_like(array)
    for index in np.ndindex(array.shape):
        saved = array[index]
        array[index] = saved + step
        up = loss()
        array[index] = saved - step
        down = loss()
        array[index] = saved
        grad[index] = (up - down) / (2 * step)
    return grad
