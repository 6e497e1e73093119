"""The pages of mkdocs.yml's nav, for tests."""

from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]


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


NAV = list(nav_pages(yaml.load((REPO / "mkdocs.yml").read_text(), Loader=_Loader)["nav"]))
