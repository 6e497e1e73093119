"""Make the snippets' modules (attention, publish, ...) and the build (scripts.pipeline) importable."""

import os
import sys
from pathlib import Path

from hypothesis import settings

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "snippets"), str(REPO)]

# At least 1000 examples per property, in CI and locally alike.
settings.register_profile("site", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "site"))
