"""The one clock of the application: UTC timestamps as ISO text, for session entries, audit records and exports."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> str:
    """The current time in UTC as ISO 8601 text to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")
