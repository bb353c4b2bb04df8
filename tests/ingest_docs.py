"""Sample documents and a file writer shared by the ingest tests (tests/test_ingest_*.py)."""

from __future__ import annotations

from pathlib import Path

XY_DOC = """---
id: xy-payments-act-2021
title: XY Payments Act 2021
jurisdiction: XY
status: in_force
published: 2021-03-01
effective: 2021-07-01
superseded_by: xy-payments-act-2027
topics: [cdd, beneficial ownership]
thresholds:
  - {name: beneficial_ownership, value: 30, unit: percent, comparator: ">=", applies_to: payment institution}
exemptions:
  - {entity: listed company, rule: exempt from beneficial ownership identification}
review_cycle: 2024-01-01
owner_team: compliance
---
# XY Payments Act 2021

## Beneficial ownership

Payment institutions in XY identify every person holding 30 percent or more.

## Occasional transactions

Customer due diligence applies to occasional transactions of XYD 5,000 or more.
"""


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


BASE = {"id": "xy-1", "title": "XY one", "jurisdiction": "XY"}


def front(**changes: str | None) -> str:
    fields = {**BASE, **changes}
    lines = [f"{k}: {v}" for k, v in fields.items() if v is not None]
    return "---\n" + "\n".join(lines) + "\n---\nBody text.\n"
