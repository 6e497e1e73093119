"""The site's two editions: the English one (mkdocs.yml, docs/) builds the Chinese one (mkdocs.zh.yml, docs-zh/)
beside it and moves it into <site>/zh/; each page's language switch points at the same page in the other edition.

The Chinese edition is built by the generator that builds the English one (MkDocs, or ProperDocs, which aliases
the ``mkdocs`` package to itself), in a second process started as the English build begins.
"""

import logging
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import mkdocs
from mkdocs.exceptions import Abort

CHINESE_CONFIG, CHINESE_DOCS = "mkdocs.zh.yml", "docs-zh"
GENERATOR = mkdocs.__name__  # "mkdocs", or "properdocs" when ProperDocs runs this build
log = logging.getLogger("mkdocs.hooks.editions")


def edition(config):
    """The edition being built: "zh" for the Chinese one, else "en" (also for a theme without a language)."""
    return "zh" if "language" in config.theme and config.theme["language"] == "zh" else "en"


def own_notebook_cache(config):
    """The editions build at the same time: give the Chinese one its own mkdocs-jupyter cache folder (in a shared
    one, one process read a cache file the other was still writing, and the build failed with a JSONDecodeError)."""
    if edition(config) == "zh" and "mkdocs-jupyter" in config.plugins:
        jupyter = config.plugins["mkdocs-jupyter"].config
        jupyter["cache_dir"] = jupyter["cache_dir"].rstrip("/") + "-zh"


def folders(config):
    """[(docs_dir, site_dir)] of both editions as the English build (``config``) lays them out."""
    site_dir, chinese_docs = Path(config["site_dir"]), Path(config.config_file_path).with_name(CHINESE_DOCS)
    return [(Path(config["docs_dir"]), site_dir), (chinese_docs, site_dir / "zh")]


def language_switch(roots, page_url):
    """``extra.alternate`` for one page: each entry (given relative to its edition's root, ``roots``) pointed at
    this page in that edition, relative to this page, so it works under any version folder
    (overrides/partials/alternate.html renders the links as given)."""
    up = "../" * page_url.count("/")
    return [{**root, "link": (up + root["link"].removeprefix("./") + page_url) or "./"} for root in roots]


class ChineseBuild:
    """The Chinese edition building in a second process, with the English build's strictness: into a scratch
    folder (the English build is about to empty its site folder), or for a dirty build (which empties nothing and
    renders only the changed pages) into <site>/zh itself."""

    def __init__(self, config, dirty=False):
        chinese = Path(config.config_file_path).with_name(CHINESE_CONFIG)
        self.dirty = dirty
        self.folder = Path(config.site_dir) / "zh" if dirty else Path(tempfile.mkdtemp(prefix="site-zh-"))
        command = [sys.executable, "-m", GENERATOR, "build", "-f", str(chinese), "-d", str(self.folder)]
        command += (["--strict"] if config.strict else []) + (["--dirty"] if dirty else [])
        self.process = subprocess.Popen(command, cwd=chinese.parent)

    @staticmethod
    def wanted(config):
        """The English build of a tree that has a Chinese edition."""
        return edition(config) == "en" and Path(config.config_file_path).with_name(CHINESE_CONFIG).exists()

    def finish(self, target, serving):
        """Wait for the build and move it into ``target``; a failure stops the English build, or while serving
        is reported and leaves the Chinese edition out."""
        if self.process.wait() != 0:
            self._drop_scratch()
            if not serving:
                raise Abort(f"the Chinese edition ({CHINESE_CONFIG}) failed to build: see its messages above")
            log.warning(
                "the Chinese edition failed to build; /zh/ is missing from this build or shows the last one "
                "(see the messages above)"
            )
            return
        if not self.dirty:
            shutil.rmtree(target, ignore_errors=True)
            shutil.move(self.folder, target)

    def stop(self):
        """The English build failed: stop the Chinese one and drop its scratch folder."""
        self.process.kill()
        self.process.wait()
        self._drop_scratch()

    def _drop_scratch(self):
        if not self.dirty:
            shutil.rmtree(self.folder, ignore_errors=True)
