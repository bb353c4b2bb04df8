"""Argument parsing and dispatch for `python -m core`. Exit 0 on success, 2 on bad input or any other failure (one
line on stderr, never a traceback); `ingest` exits 1 when some files failed and the others went in."""

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
        message = " ".join(line.strip() for line in _one_line(exc).splitlines() if line.strip())
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


def _one_line(exc: Exception) -> str:
    """The message of a failure, reported without a traceback; anything unforeseen (a bug) names its type and
    its first line."""
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
    first = (str(exc).strip().splitlines() or [""])[0][:300]
    return f"unexpected {type(exc).__name__}{': ' + first if first else ''} (a bug: please report it with the command)"
