"""UI benchmark (a script, not a test): script run time of each page against a bare page.

A 10-cycle, 40-deficiency session is written with the real checkpointer (graph.update_state; the paused variant
then runs the review node so the interrupt is real). Each page of app.py is rerun under AppTest with that session
open; the bare page is a script with the same widgets (same counts: cards, residual lines, charts, tables) filled
with literals, so it does no data work. Both include AppTest's own overhead; the ratio isolates the page's data
work. Target: every page <= 250 ms of script time. AppTest runs no post-script garbage collection, which a real
server does after every rerun unless `runner.postScriptGC` is off: the script also times one full collection with
the app, the model and both sessions loaded, against the slowest page.

Usage: python tests/bench/ui.py [--runs 15] [--update-docs]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from streamlit import config as st_config  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from core.config import Settings  # noqa: E402
from core.persistence.checkpoints import close_all as close_persistence  # noqa: E402
from core.retrieval.registry import close_all as close_stores  # noqa: E402
from core.service import Workbench  # noqa: E402
from tests.bench.doc_blocks import replace_block  # noqa: E402
from tests.bench.ui_bare import BARE_APP, bare_body  # noqa: E402
from tests.bench.ui_session import CYCLES, DEFICIENCIES, write_session  # noqa: E402

TARGET_MS = 250.0
PAGES = ("research", "deficiencies", "cycles", "export", "corpus", "sessions")


# ------------------------------------------------------------------------------------------------- timing
def timed_runs(app: AppTest, runs: int) -> list[float]:
    """Milliseconds of `runs` reruns of the current page (after two warm-up runs)."""
    for _ in range(2):
        app.run()
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        app.run()
        out.append((time.perf_counter() - started) * 1000)
    assert not app.exception, app.exception
    return out


TITLES = {
    "research": "Research",
    "deficiencies": "Deficiency board",
    "cycles": "Cycles",
    "export": "Export",
    "corpus": "Corpus",
    "sessions": "Sessions",
}


def real_page(thread_id: str, page: str, runs: int) -> list[float]:
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    app.query_params["session"] = thread_id
    app.run()
    app.switch_page(f"views/{page}.py")
    times = timed_runs(app, runs)
    assert app.title[0].value == TITLES[page] and app.session_state["thread_id"] == thread_id
    return times


def bare_page(page: str, paused: bool, counts: dict[str, int], runs: int) -> list[float]:
    body = bare_body(page, paused, counts)
    return timed_runs(AppTest.from_string(BARE_APP.replace("{body}", body.strip("\n")), default_timeout=60), runs)


def full_collection_ms(runs: int) -> float:
    """Median milliseconds of one full garbage collection in this process (the app, the model and the sessions
    loaded): what Streamlit's `runner.postScriptGC` adds to every rerun of a real server."""
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        gc.collect(2)
        out.append((time.perf_counter() - started) * 1000)
    return statistics.median(out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--update-docs", action="store_true", help="write the table into docs/benchmarks.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["WORKBENCH_DATA_DIR"] = tmp
        wb = Workbench(Settings())
        wb.ensure_sample_corpus()
        write_session(wb, "bench-finished", paused=False)
        write_session(wb, "bench-paused", paused=True)
        finished, paused = wb.show("bench-finished"), wb.show("bench-paused")
        counts = {"proposals": len(paused.pending_review["proposals"]), "residual": len(finished.residual_deficiencies)}
        cases = [(p, "finished", "bench-finished") for p in PAGES] + [
            (p, "paused", "bench-paused") for p in ("research", "deficiencies")
        ]
        rows = []
        for page, state, thread_id in cases:
            real = statistics.median(real_page(thread_id, page, args.runs))
            bare = statistics.median(bare_page(page, state == "paused", counts, args.runs))
            rows.append((page, state, real, bare))
        collection = full_collection_ms(5)
        close_stores()
        close_persistence()
    lines = ["| page | session | script ms (median) | bare page ms | ratio |", "|---|---|---|---|---|"]
    lines += [
        f"| {page} | {state} | {real:.0f} | {bare:.0f} | {real / bare:.2f}x |" for page, state, real, bare in rows
    ]
    worst = max(rows, key=lambda r: r[2])
    verdict = (
        f"Slowest page: {worst[0]} ({worst[1]}) at {worst[2]:.0f} ms (target <= {TARGET_MS:.0f} ms: "
        f"{'met' if worst[2] <= TARGET_MS else 'NOT met'}). Session: {CYCLES} cycles, {DEFICIENCIES} "
        f"deficiencies, {counts['proposals']} proposals in the paused review, {counts['residual']} residual in "
        f"the finished one; median of {args.runs} AppTest reruns per page. A full garbage collection with "
        f"the app loaded takes {collection:.0f} ms ({collection / worst[2]:.1f}x the slowest page), which a "
        f"server would add to every rerun with Streamlit's runner.postScriptGC on; .streamlit/config.toml "
        f"sets it {'on' if st_config.get_option('runner.postScriptGC') else 'off'}."
    )
    table = "\n".join(lines)
    print(table)
    print()
    print(verdict)
    if args.update_docs:
        block = (
            "### UI (`python tests/bench/ui.py`)\n\n"
            + table
            + "\n\n"
            + verdict
            + "\n\nBoth columns include AppTest's own cost of a rerun; the bare page has the same widgets filled"
            " with literals, so the ratio is the page's data work (service calls, tables, figures, export)."
        )
        replace_block("ui", block)


if __name__ == "__main__":
    main()
