"""Where things live. Every stage takes a Project, so tests can point one at a temporary copy."""

import subprocess
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def git(root, *args):
    """``git -C root args...``, its output captured (the one way the build asks git)."""
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)


@dataclass(frozen=True)
class Project:
    root: Path = REPO
    outputs: Path | None = None  # None: docs/generated; the full check reruns into scratch instead

    @property
    def snippets(self):
        return self.root / "snippets"

    @property
    def docs(self):
        return self.root / "docs"

    @property
    def generated(self):
        return self.outputs or self.docs / "generated"

    @property
    def notebooks(self):
        return self.docs / "notebooks"

    @property
    def scratch(self):
        """Staging area for outputs being written; outside docs/ so `mkdocs serve` does not see it."""
        return self.root / ".cache" / "pipeline"

    def relative(self, path):
        return Path(path).relative_to(self.root).as_posix()
