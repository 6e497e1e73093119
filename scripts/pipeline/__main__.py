"""Command line: python -m scripts.pipeline build [NAME ...] [--force] | check [--full]."""

import argparse
import sys

from .build import build
from .check import check
from .project import Project


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m scripts.pipeline", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("build", help="regenerate stale outputs and notebooks")
    run.add_argument("names", nargs="*", help="only these snippets (default: all)")
    run.add_argument("--force", action="store_true", help="rerun even if up to date")
    run.add_argument("--jobs", type=int, default=None, help="snippets run at once (default: one per CPU)")
    verify = commands.add_parser("check", help="prove committed outputs match sources; change nothing")
    verify.add_argument("--full", action="store_true", help="also rerun every snippet and compare bytes")
    args = parser.parse_args(argv)
    project = Project()
    if args.command == "build":
        return build(project, args.names or None, args.force, args.jobs)
    return check(project, args.full)


if __name__ == "__main__":
    sys.exit(main())
