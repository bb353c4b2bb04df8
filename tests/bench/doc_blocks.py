"""The benchmark tables of docs/benchmarks.md: each benchmark script run with `--update-docs` rewrites the text
between its `<!-- bench:NAME:start -->` and `<!-- bench:NAME:end -->` markers there (load, loop, ui, quality)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS_DOC = ROOT / "docs" / "benchmarks.md"


def markers(name: str) -> tuple[str, str]:
    """The start and end markers of the block `name`."""
    return f"<!-- bench:{name}:start -->", f"<!-- bench:{name}:end -->"


def replace_block(name: str, body: str, doc: Path = BENCHMARKS_DOC) -> None:
    """Replace the block `name` of `doc` with `body` (the markers stay); a document without the block is refused."""
    start, end = markers(name)
    text = doc.read_text(encoding="utf-8")
    if start not in text or end not in text:
        raise SystemExit(f"{doc} has no {start} ... {end} block to update")
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    doc.write_text(pattern.sub(lambda _: f"{start}\n{body}\n{end}", text, count=1), encoding="utf-8")
    print(f"{doc.relative_to(ROOT) if doc.is_relative_to(ROOT) else doc}: updated the bench:{name} block")
