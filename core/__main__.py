"""Command line: `python -m core ingest|search|run|resume|show|sessions|export|eval`."""

from __future__ import annotations

import sys

from core.cli.dispatch import main

if __name__ == "__main__":
    sys.exit(main())
