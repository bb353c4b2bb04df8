"""Bounds on what a person may ask for, shared by the service, the CLI, the settings and the pages."""

from __future__ import annotations

from datetime import date

MAX_CYCLES = 50
"""Most correction cycles a run may be given (`--max-cycles`, the Research page, `WORKBENCH_MAX_CYCLES`)."""

MIN_AS_OF = date(1990, 1, 1)
"""Earliest as-of date: the corpus holds no instrument in force before it."""

MAX_AS_OF_YEARS_AHEAD = 30
"""The latest as-of date is the end of the year this many years ahead."""

MAX_NOTE_CHARS = 4000
"""Longest analyst note, reason or added-row description accepted (they are stored in every later checkpoint)."""


def latest_as_of(today: date | None = None) -> date:
    """The latest as-of date accepted on `today` (default: today)."""
    return date((today or date.today()).year + MAX_AS_OF_YEARS_AHEAD, 12, 31)
