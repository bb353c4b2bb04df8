"""`python -m core` for tests: in the test process (core.cli.dispatch.main with its output captured, as a subprocess would
see it), or in a fresh process as a user starts it."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.cli.dispatch import main
from tests import early

REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class CliResult:
    """What a `python -m core` process would have left: its exit code, stdout and stderr."""

    returncode: int
    stdout: str
    stderr: str


def run_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> CliResult:
    """core.cli.dispatch.main(argv) with stdout and stderr captured; a SystemExit becomes the exit code, as in a process."""
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    return CliResult(code, out, err)


def fresh_env(data_dir: Path) -> dict[str, str]:
    """The environment of a fresh `python -m core` process on `data_dir`: this one without WORKBENCH_*, QDRANT_* and
    OPENAI_* variables, offline for the embedding model."""
    env = {k: v for k, v in early.environment().items() if not k.startswith(("WORKBENCH_", "QDRANT_", "OPENAI_"))}
    return {**env, "WORKBENCH_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def fresh_core(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m core ARGS` in a fresh process with exactly `env`, as a user starts it."""
    return subprocess.run(
        [sys.executable, "-m", "core", *args], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=240
    )
