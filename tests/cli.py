"""`python -m core` in the test process: core.cli.main with its output captured, as a subprocess would see it."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from core.cli import main


@dataclass(frozen=True)
class CliResult:
    """What a `python -m core` process would have left: its exit code, stdout and stderr."""

    returncode: int
    stdout: str
    stderr: str


def run_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> CliResult:
    """core.cli.main(argv) with stdout and stderr captured; a SystemExit becomes the exit code, as in a process."""
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    return CliResult(code, out, err)
