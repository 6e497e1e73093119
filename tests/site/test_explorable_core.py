"""The explorables' core.js against snippets/lib in a real browser, where the drawn explorables cannot tell:
rope() of random vectors at random positions and bases equals apply_rope with neighbouring pairs turned by
+m theta_i ("interleaved"), and differs from the "half" pairing by far more than rounding (the positions explorable
only shows rope(ones, 0) . rope(ones, m), the same for either pairing and either direction); normals() equals
lib.seeded's, also from the seed whose first uniform is the smallest (log(0) without the half step). core.js is
served alone, with no site build."""

import functools
import threading
from http.server import ThreadingHTTPServer

import numpy as np
import pytest

from lib.attention import apply_rope
from lib.seeded import normals
from support import FIRST_OUTPUT_ZERO, REPO, QuietHandler, require_chromium

pytestmark = pytest.mark.site
require_chromium()
EXPLORABLES = REPO / "docs" / "assets" / "javascripts" / "explorables"
RTOL = 1e-12  # as tests/site/test_explorables.py: relative to the largest entry


@pytest.fixture(scope="module")
def core(browser):
    """A tab on a server of the explorables' folder: core(js, arg) runs ``js`` with ``core`` bound to core.js."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(EXPLORABLES)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    tab = browser.new_page()
    tab.goto(f"http://127.0.0.1:{server.server_port}/")
    yield lambda js, arg: tab.evaluate(f"async (arg) => {{ const core = await import('./core.js'); {js} }}", arg)
    tab.close()
    server.shutdown()


def test_rope_is_apply_rope_with_neighbouring_pairs(core):
    rng = np.random.default_rng(42)
    cases = [
        (
            rng.normal(size=d).tolist(),
            float(rng.choice([rng.integers(1, 200), rng.uniform(0, 200)])),
            float(10 ** rng.uniform(1, 6)),
        )
        for d in (2, 4, 6, 8, 16, 64)
        for _ in range(20)
    ]
    rotated = core("return arg.map(([x, m, base]) => core.rope(x, m, base));", cases)
    for (x, m, base), got in zip(cases, rotated):
        want = {
            pairing: apply_rope(np.array([x]), np.array([m]), base, pairing)[0] for pairing in ("interleaved", "half")
        }
        size = np.max(np.abs(want["interleaved"]))
        assert np.max(np.abs(np.array(got) - want["interleaved"])) <= RTOL * size, (len(x), m, base)
        if len(x) > 2:  # with one pair the two pairings are the same
            assert np.max(np.abs(np.array(got) - want["half"])) > 1e-6 * size, (len(x), m, base)


def test_normals_match_lib_seeded_even_from_the_smallest_uniform(core):
    for seed in (7, FIRST_OUTPUT_ZERO):
        got = np.array(core("return core.normals(BigInt(arg), 6);", str(seed)))  # BigInt: the seed is > 2**53
        want = normals(seed, 6)
        assert np.isfinite(got).all(), got
        assert np.max(np.abs(got - want)) <= RTOL * np.max(np.abs(want)), (seed, got, want)
