"""Load benchmark: completed offline sessions per minute at 1, 4 and 16 concurrent sessions, SQLite vs Postgres.

One process, one Workbench (as one app replica serves its users): N worker threads take whole sessions from one
queue and run them through `core.service` (`start(..., approve="all")`, the six sample questions in turn) over
the sample corpus in an embedded Qdrant Edge store, so N sessions are always in flight until the queue is empty.
Throughput is completed sessions per minute of wall time; the scaling ratio is that throughput over the
1-session figure on the same backend.

Postgres: WORKBENCH_TEST_DATABASE_URL when set, else a throwaway server started here (like scripts/test.sh) from
Debian's /usr/lib/postgresql/*/bin on a free port and stopped at the end; without one the Postgres rows are left
out with the reason.

Usage: python tests/bench/load.py [--levels 1,4,16] [--sessions 48] [--backends sqlite,postgres] [--update-docs]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
for _var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "WORKBENCH_ENGINE", "WORKBENCH_DATABASE_URL", "QDRANT_URL"):
    os.environ.pop(_var, None)

from core.config import Settings  # noqa: E402
from core.evaluation.questions import load_questions  # noqa: E402
from core.persistence.checkpoints import Persistence, _postgres, _sqlite, run_slots  # noqa: E402
from core.retrieval.ingest import SAMPLE_CORPUS_DIR, ingest_paths  # noqa: E402
from core.retrieval.registry import close_all  # noqa: E402
from core.service import Workbench  # noqa: E402
from tests.bench.doc_blocks import replace_block  # noqa: E402

QUESTIONS = [q.question for q in load_questions(ROOT / "questions" / "q1-q6.yaml")]
AS_OF = "2026-11-30"


# ------------------------------------------------------------------------------------------- throwaway Postgres
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def throwaway_postgres() -> Iterator[tuple[str | None, str]]:
    """(url, how) of WORKBENCH_TEST_DATABASE_URL, or of a server started here; (None, why not) without one."""
    url = os.environ.get("WORKBENCH_TEST_DATABASE_URL")
    if url:
        yield url, "WORKBENCH_TEST_DATABASE_URL"
        return
    bins = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: [int(x) for x in p.parent.name.split(".") if x.isdigit()],
    )
    if not bins:
        yield None, "PostgreSQL is not installed (apt-get install postgresql)"
        return
    pg_bin = bins[-1]
    data = Path(tempfile.mkdtemp(prefix="workbench-load-pg."))
    port = _free_port()
    as_root = os.geteuid() == 0

    def pg(*args: str) -> None:
        cmd = [str(pg_bin / args[0]), *args[1:]]
        if as_root:  # initdb and postgres refuse to run as root
            shutil.chown(data, "postgres")
            cmd = ["su", "postgres", "-s", "/bin/sh", "-c", " ".join(f"'{c}'" for c in cmd)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    try:
        pg("initdb", "-D", str(data), "-A", "trust", "-U", "postgres")
        pg(
            "pg_ctl",
            "-D",
            str(data),
            "-l",
            str(data / "log"),
            "-w",
            "-o",
            f"-p {port} -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=100",
            "start",
        )
    except (subprocess.CalledProcessError, OSError, LookupError) as exc:
        shutil.rmtree(data, ignore_errors=True)
        yield None, f"could not start a throwaway PostgreSQL from {pg_bin} ({exc})"
        return
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres", f"a throwaway local PostgreSQL {pg_bin.parent.name}"
    finally:
        try:
            pg("pg_ctl", "-D", str(data), "-m", "fast", "stop")
        finally:
            shutil.rmtree(data, ignore_errors=True)


# ------------------------------------------------------------------------------------------------ the load
def run_level(wb: Workbench, workers: int, sessions: int) -> dict[str, float]:
    """`workers` threads running `sessions` whole sessions from one queue; throughput and latencies."""
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    gate = threading.Barrier(workers + 1)
    jobs = iter(range(sessions))

    def worker() -> None:
        gate.wait()
        while True:
            with lock:
                n = next(jobs, None)
            if n is None:
                return
            q = QUESTIONS[n % len(QUESTIONS)]
            t0 = time.perf_counter()
            try:
                r = wb.start(q, as_of=AS_OF, approve="all", user_id="load-bench")
                ok = r.status == "completed"
                problem = "" if ok else f"ended {r.status}"
            except Exception as exc:
                ok, problem = False, f"{type(exc).__name__}: {exc}"
            with lock:
                if ok:
                    latencies.append(time.perf_counter() - t0)
                else:
                    errors.append(problem)

    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for t in threads:
        t.start()
    gate.wait()
    started = time.perf_counter()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    latencies.sort()
    return {
        "sessions": len(latencies),
        "failed": len(errors),
        "wall": wall,
        "per_min": len(latencies) / wall * 60 if wall else 0.0,
        "p50": statistics.median(latencies) if latencies else 0.0,
        "p95": latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))] if latencies else 0.0,
        "locked": sum("database is locked" in e for e in errors),
        "first_error": errors[0] if errors else "",
    }


def bench_backend(
    name: str, persistence: Persistence, settings: Settings, levels: list[int], sessions: int
) -> list[dict[str, object]]:
    wb = Workbench(settings, persistence=persistence)
    for q in QUESTIONS[:2]:  # warm-up: graph compiled, embedder and store caches hot
        wb.start(q, as_of=AS_OF, approve="all", user_id="load-bench")
    rows: list[dict[str, object]] = []
    for level in levels:
        m = run_level(wb, level, max(sessions, level))
        rows.append({"backend": name, "concurrent": level, **m})
        print(
            f"  {name:<8} {level:>2} concurrent: {m['sessions']:.0f} sessions in {m['wall']:.1f} s = "
            f"{m['per_min']:.0f}/min (p50 {m['p50']:.2f} s, p95 {m['p95']:.2f} s, failed {m['failed']:.0f})",
            flush=True,
        )
        if m["failed"]:
            print(f"    first failure: {m['first_error']}", flush=True)
    base = next((r["per_min"] for r in rows if r["concurrent"] == 1), rows[0]["per_min"])
    for r in rows:
        r["ratio"] = r["per_min"] / base if base else 0.0
    return rows


def table(rows: list[dict[str, object]]) -> str:
    lines = [
        "| backend | concurrent sessions | completed | failed | wall s | sessions/min | scaling vs 1 | p50 s | p95 s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['backend']} | {r['concurrent']} | {r['sessions']:.0f} | {r['failed']:.0f} | {r['wall']:.1f} | "
            f"{r['per_min']:.0f} | {r['ratio']:.2f}x | {r['p50']:.2f} | {r['p95']:.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="1,4,16", help="concurrent sessions, comma-separated (default 1,4,16)")
    parser.add_argument("--sessions", type=int, default=48, help="sessions run at each level (default 48)")
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--update-docs", action="store_true", help="write the table into docs/benchmarks.md")
    args = parser.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]

    rows: list[dict[str, object]] = []
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="workbench-load-") as tmp, throwaway_postgres() as (pg_url, pg_how):
        settings = Settings(data_dir=Path(tmp), qdrant_url=None, qdrant_api_key=None)
        store = Workbench(settings).store()
        report = ingest_paths(store, sorted(SAMPLE_CORPUS_DIR.glob("*.md")), settings=settings)
        print(f"corpus: {report.summary()}", flush=True)
        for backend in backends:
            if backend == "sqlite":
                persistence = _sqlite(settings)
            elif backend == "postgres":
                if pg_url is None:
                    notes.append(f"Postgres rows left out: {pg_how}.")
                    print(notes[-1], flush=True)
                    continue
                pool = next(n for n in range(2, 200) if run_slots(n) >= max(levels))
                notes.append(
                    f"Postgres: {pg_how}, a pool of {pool} connections (WORKBENCH_DB_POOL_SIZE) so that "
                    f"{max(levels)} sessions may run at once; at the default 20 one replica runs at most "
                    f"{run_slots(20)} and refuses more, cleanly."
                )
                persistence = _postgres(pg_url, pool_size=pool)
            else:
                raise SystemExit(f"unknown backend {backend!r}: use sqlite and/or postgres")
            try:
                rows += bench_backend(backend, persistence, settings, levels, args.sessions)
            finally:
                persistence.close()
        close_all()

    cpus = os.cpu_count() or 1
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    out = table(rows)
    print()
    print(out)
    failed = sum(int(r["failed"]) for r in rows)
    locked = sum(int(r["locked"]) for r in rows)
    verdict = (
        f"{failed} failed session(s), {locked} 'database is locked' error(s)."
        if failed
        else "Every session completed; no 'database is locked' errors."
    )
    print(verdict)
    if args.update_docs:
        block = (
            f"### Load (offline engine, sample corpus, `python tests/bench/load.py`)\n\n{out}\n\n{verdict} "
            f"Measured on {cpus} CPU core(s) (1-minute load average {load:.1f} at the end), Python "
            f"{platform.python_version()}, in one process: N threads keep N "
            f"sessions in flight until {args.sessions} whole sessions (`approve=all`, the six sample questions in "
            "turn) have run through one Workbench, as one replica serves its users; sessions/min is completed "
            "sessions over wall time, the "
            "scaling ratio is against 1 concurrent session on the same backend. The offline engine is CPU-bound "
            "Python, so the threads of one process share one interpreter (the GIL): more sessions in flight trade "
            "latency for fairness rather than add throughput, and using more cores takes more replicas "
            "(processes), which share only the database and Qdrant; this table is the per-replica figure. On a "
            "shared machine the figures vary by about a third from run to run. " + " ".join(notes)
        )
        replace_block("load", block)


if __name__ == "__main__":
    main()
