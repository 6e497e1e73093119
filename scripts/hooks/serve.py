"""MkDocs hooks for `mkdocs serve`: stale snippets rerun before a rebuild, and a dirty rebuild
(``make serve``) redoing only what an edit changed (scripts/serve_rebuilds.py)."""

import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # MkDocs loads hooks by path: make `scripts` importable

from scripts import editions, serve_rebuilds
from scripts.pipeline.project import REPO


class Serve:
    """Whether this process serves the site, whether it rebuilds dirty, and what the last build saw."""

    def __init__(self):
        self.serving = self.dirty = False
        self.edits = serve_rebuilds.Edits(REPO)

    def on_startup(self, command, dirty):
        self.serving, self.dirty = command == "serve", dirty
        if dirty:
            logging.getLogger("mkdocs.commands.build").addFilter(serve_rebuilds.DirtyBuildIsInformation())

    def on_pre_build(self, config):
        if self.serving:
            serve_rebuilds.rerun_stale_snippets(self.edits, editions.folders(config) if self.dirty else [])


hooks = Serve()
on_startup, on_pre_build = hooks.on_startup, hooks.on_pre_build
