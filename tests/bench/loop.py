"""Loop benchmark: Q1-Q6 (questions/q1-q6.yaml) on the offline engine over the sample corpus.

Prints per question: cycles, found/resolved/residual deficiencies, retrievals, wall time, seconds per node;
orchestration overhead (wall time minus time inside nodes) as a share of the run (target <= 10%), and
checkpoint bytes per cycle (target <= 64 KB). `--update-docs` writes the table into docs/benchmarks.md.

Usage: python tests/bench/loop.py [--update-docs]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from core.config import Settings  # noqa: E402
from core.evaluation.questions import load_questions  # noqa: E402
from core.retrieval.ingest import ingest_paths  # noqa: E402
from core.retrieval.registry import close_all  # noqa: E402
from core.service import Workbench  # noqa: E402
from tests.bench.doc_blocks import replace_block  # noqa: E402

QUESTIONS = [q.question for q in load_questions(ROOT / "questions" / "q1-q6.yaml")]


def checkpoint_bytes(path: Path, thread_id: str) -> int:
    """Bytes stored for one thread: checkpoints plus pending writes."""
    with sqlite3.connect(path) as conn:
        a = conn.execute(
            "select coalesce(sum(length(checkpoint)) + sum(length(metadata)), 0) from checkpoints where thread_id=?",
            (thread_id,),
        ).fetchone()[0]
        b = conn.execute(
            "select coalesce(sum(length(value)), 0) from writes where thread_id=?", (thread_id,)
        ).fetchone()[0]
    return int(a + b)


def node_totals(per_cycle: dict[int, dict[str, float]]) -> dict[str, float]:
    """Seconds per node over all cycles (RunResult.metrics["node_seconds"] is per cycle)."""
    out: dict[str, float] = {}
    for nodes in per_cycle.values():
        for node, seconds in nodes.items():
            out[node] = out.get(node, 0.0) + seconds
    return out


BEFORE_PLAN_WALL_MS = {"Q1": 111, "Q2": 69, "Q3": 84, "Q4": 93, "Q5": 76, "Q6": 132}
"""Wall time per question of the loop before the research plan (benchmark table of 2026-11-30, same machine kind):
the reference the issue asks this benchmark to report against; the old engine no longer exists to re-measure."""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--update-docs", action="store_true", help="write the table into docs/benchmarks.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp))
        wb = Workbench(settings)
        ingest_paths(wb.store(), [ROOT / "core" / "corpus"], settings=settings)
        wb.start(QUESTIONS[0], as_of="2026-11-30", approve="all")  # warm-up: model and graph compiled once
        rows = []
        for n, q in enumerate(QUESTIONS, 1):
            started = time.perf_counter()
            r = wb.start(q, as_of="2026-11-30", approve="all")
            wall = time.perf_counter() - started
            nodes = node_totals(r.metrics["node_seconds"])
            inside = sum(nodes.values())  # the stream's time, node by node (parallel corrections share their step's)
            cycles = len(r.evaluation_history)
            found = len(r.identified_deficiencies)
            resolved = sum(d.resolution_status.value == "resolved" for d in r.identified_deficiencies)
            size = checkpoint_bytes(settings.checkpoint_path, r.thread_id)
            rows.append(
                {
                    "q": f"Q{n}",
                    "cycles": cycles,
                    "found": found,
                    "resolved": resolved,
                    "residual": len(r.residual_deficiencies),
                    "retrievals": int(r.metrics["retrievals"]),
                    "wall_ms": wall * 1000,
                    "overhead": (wall - inside) / wall,
                    "kb_per_cycle": size / cycles / 1024,
                    "reason": r.termination_reason,
                    "node_sum_ms": inside * 1000,
                    "nodes": " ".join(f"{k}={v * 1000:.0f}ms" for k, v in sorted(nodes.items())),
                }
            )
        close_all()
    header = (
        "| question | cycles | found | resolved | residual | retrievals | wall ms | wall ms before the plan | "
        "overhead | checkpoint KB/cycle | stopped |"
    )
    lines = [header, "|" + "---|" * 11]
    for x in rows:
        before = BEFORE_PLAN_WALL_MS.get(x["q"])
        ratio = f" ({x['wall_ms'] / before:.1f}x)" if before else ""
        lines.append(
            f"| {x['q']} | {x['cycles']} | {x['found']} | {x['resolved']} | {x['residual']} | {x['retrievals']} | "
            f"{x['wall_ms']:.0f} | {before if before else '-'}{ratio} | {x['overhead']:.1%} | "
            f"{x['kb_per_cycle']:.1f} | {x['reason']} |"
        )
    worst_overhead = max(x["overhead"] for x in rows)
    worst_kb = max(x["kb_per_cycle"] for x in rows)
    verdict = (
        f"Worst orchestration overhead {worst_overhead:.1%} (target <= 10%: {'met' if worst_overhead <= 0.10 else 'NOT met'}); "
        f"worst checkpoint size {worst_kb:.1f} KB per cycle (target <= 64 KB: {'met' if worst_kb <= 64 else 'NOT met'})."
    )
    table = "\n".join(lines)
    print(table)
    print()
    for x in rows:
        print(f"{x['q']} seconds per node: {x['nodes']}")
    print(verdict)
    if args.update_docs:
        block = (
            "### Loop (offline engine, sample corpus, `python tests/bench/loop.py`)\n\n"
            + table
            + "\n\n"
            + verdict
            + "\n\nOverhead is wall time (of `Workbench.start`, including the session bookkeeping) minus the time when"
            " at least one node was running (parallel `correct` tasks counted once), as a share of the run; checkpoint bytes are"
            " everything SQLite stores for the thread (checkpoints, metadata, pending writes) divided by its cycles."
        )
        replace_block("loop", block)


if __name__ == "__main__":
    main()
