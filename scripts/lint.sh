#!/usr/bin/env bash
# Lint, format check, type check and import contracts (pyproject.toml). Needs requirements-dev.txt installed.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "ruff check";     python -m ruff check .
echo "ruff format";    python -m ruff format --check .
echo "mypy core";      python -m mypy
echo "import contracts"; lint-imports
