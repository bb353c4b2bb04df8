"""Argument parsing and dispatch for `python -m core`. Exit 0 on success, 2 on bad input (one line on stderr)."""

from __future__ import annotations

import argparse
import sqlite3
import sys
import zlib
from typing import NoReturn

from pydantic import ValidationError

from core.cli import corpus as cli_corpus
from core.cli import eval as cli_eval
from core.cli import loop as cli_loop
from core.cli.errors import CliError
from core.config import describe_settings_error


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line (a CliError) instead of the usage block."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{self.prog}: {message} (see --help)")


def build_parser() -> argparse.ArgumentParser:
    """The full `python -m core` parser; each command module registers its own sub-commands."""
    parser = _Parser(prog="python -m core", description="Compliance Research Workbench")
    sub = parser.add_subparsers(dest="command", required=True)
    cli_corpus.register(sub)
    cli_loop.register(sub)
    cli_eval.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; return the process exit code."""
    try:
        args = build_parser().parse_args(_utf8_arguments(sys.argv[1:] if argv is None else argv))
        return int(args.handler(args) or 0)
    except Exception as exc:
        message = _one_line(exc)
        if message is None:
            raise
    print(f"error: {message}", file=sys.stderr)
    return 2


def _utf8_arguments(argv: list[str]) -> list[str]:
    """The arguments, refused when one is not valid UTF-8 (Python passes such bytes on as lone surrogates)."""
    for n, arg in enumerate(argv, start=1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            shown = arg.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")
            raise CliError(f"argument {n} ({shown}) is not valid UTF-8 text") from None
    return argv


def _one_line(exc: Exception) -> str | None:
    """The one-line message of a failure the CLI reports without a traceback; None for anything else (a bug)."""
    from core.engines.factory import EngineConfigError
    from core.persistence.checkpoints import PersistenceError
    from core.retrieval.errors import RetrievalError

    if isinstance(exc, (CliError, RetrievalError, PersistenceError, EngineConfigError)):
        return str(exc)
    if isinstance(exc, ValidationError) and exc.title == "Settings":
        return describe_settings_error(exc)
    if isinstance(exc, sqlite3.OperationalError):  # busy, read-only, cannot open: the file itself may be fine
        return f"the checkpoint database cannot be used ({exc})"
    if isinstance(exc, sqlite3.DatabaseError):
        return (
            f"the checkpoint database cannot be read ({exc}): it is damaged or not a SQLite file; "
            "restore it from a backup"
        )
    if isinstance(exc, zlib.error):
        return f"a stored checkpoint cannot be decompressed ({exc}): the checkpoint database is damaged"
    return None
