"""Argument parsing and dispatch for `python -m core`. Exit 0 on success, 2 on bad input (one line on stderr)."""

from __future__ import annotations

import argparse
import sys

from core import cli_corpus, cli_eval, cli_loop


class CliError(Exception):
    """Bad input: printed as one line on stderr, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    """The full `python -m core` parser; each command module registers its own sub-commands."""
    parser = argparse.ArgumentParser(prog="python -m core", description="Compliance Research Workbench")
    sub = parser.add_subparsers(dest="command", required=True)
    cli_corpus.register(sub)
    cli_loop.register(sub)
    cli_eval.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; return the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except CliError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
