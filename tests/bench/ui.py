"""UI benchmark (a script, not a test): script run time of each page against a bare page.

A 10-cycle, 40-deficiency session is written with the real checkpointer (graph.update_state; the paused variant
then runs the review node so the interrupt is real). Each page of app.py is rerun under AppTest with that session
open; the bare page is a script with the same widgets (same counts: cards, residual lines, charts, tables) filled
with literals, so it does no data work. Both include AppTest's own overhead; the ratio isolates the page's data
work. Target: every page <= 250 ms of script time.

Usage: python tests/bench/ui.py [--runs 15] [--update-readme]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from streamlit.testing.v1 import AppTest  # noqa: E402

from core.config import Settings  # noqa: E402
from core.persistence import close_all as close_persistence  # noqa: E402
from core.retrieval.registry import close_all as close_stores  # noqa: E402
from core.service import SESSIONS_NS, Workbench  # noqa: E402
from core.state import (  # noqa: E402
    Citation,
    DecisionRecord,
    Deficiency,
    DeficiencyType,
    EvaluationCycleRecord,
    ResolutionStatus,
    Severity,
)

CYCLES = 10
DEFICIENCIES = 40
TARGET_MS = 250.0
AS_OF = date(2026, 11, 30)
TYPES = list(DeficiencyType)
SEVERITY_CYCLE = [Severity.medium, Severity.high, Severity.low, Severity.critical, Severity.medium]
FINISHED_STATUSES = (
    [ResolutionStatus.resolved] * 24
    + [ResolutionStatus.unresolvable] * 6
    + [ResolutionStatus.dismissed] * 4
    + [ResolutionStatus.open] * 6
)
PAUSED_STATUSES = (
    [ResolutionStatus.resolved] * 20
    + [ResolutionStatus.unresolvable] * 4
    + [ResolutionStatus.dismissed] * 4
    + [ResolutionStatus.open] * 12
)
PAGES = ("research", "deficiencies", "cycles", "export", "corpus", "sessions")


# --------------------------------------------------------------------------------------------- the session
def deficiencies(statuses: list[ResolutionStatus]) -> list[Deficiency]:
    """40 deficiencies over the six types, with stable IDs, mixed severities and statuses."""
    return [
        Deficiency(
            deficiency_type=TYPES[i % 6],
            subject=f"XY:threshold_{i}",
            severity=SEVERITY_CYCLE[i % 5],
            description=f"The answer states threshold {i} without the figure its cited source sets; "
            f"the source gives {10 + i}% for entity type {i % 7}.",
            suggested_correction_query=f"threshold {i} beneficial ownership percentage entity type {i % 7}",
            affected_section="EU" if i % 2 else "US",
            identified_at_cycle=i % CYCLES,
            resolution_status=status,
            resolution_attempt_count=i % 3,
            analyst_note="out of scope" if status == ResolutionStatus.dismissed else "",
        )
        for i, status in enumerate(statuses)
    ]


def answer(cycle: int) -> str:
    """A ~3 KB answer that gains a sentence per cycle."""
    eu = [
        f"Under regulation {n}, institutions apply CDD above EUR {1000 * n:,}. [eu-amlr-2024-1624]"
        for n in range(1, 12)
    ]
    us = [
        f"Rule {n} requires identification of owners of {25 - n}% or more. [us-fincen-cdd-2016]" for n in range(1, 12)
    ]
    extra = [
        f"Correction {c}: the figure in force on 30 November 2026 is {20 + c}%. [eu-amld4-2015-849]"
        for c in range(cycle)
    ]
    return "\n".join(["## EU", *eu, *extra, "", "## US", *us])


def history(items: list[Deficiency]) -> list[EvaluationCycleRecord]:
    """Ten sealed audit records whose counts move towards the final statuses."""
    records: list[EvaluationCycleRecord] = []
    prev = ""
    for c in range(CYCLES):
        found = tuple(d.id for d in items[: DEFICIENCIES - 3 * c])
        resolved = tuple(d.id for d in items[3 * c : 3 * c + 3]) if c else ()
        status_counts = {
            "open": max(DEFICIENCIES - 4 * c, 6),
            "resolved": min(3 * c, 24),
            "unresolvable": min(c, 6),
            "dismissed": min(c, 4),
        }
        type_counts = {t.value: sum(1 for d in items if d.deficiency_type == t) for t in TYPES}
        decisions = (
            tuple(DecisionRecord(deficiency_id=d.id, action="approve", decided_by="analyst") for d in items[c : c + 4])
            if c
            else ()
        )
        record = EvaluationCycleRecord(
            cycle_number=c,
            timestamp=f"2026-11-30T10:{c:02d}:00+00:00",
            deficiencies_found=found,
            deficiencies_resolved=resolved,
            overall_score=round(0.4 + 0.05 * c, 2),
            retrieval_queries_issued=tuple(d.suggested_correction_query for d in items[c : c + 4]) if c else (),
            decisions=decisions,
            status_counts=status_counts,
            type_counts=type_counts,
            answer=answer(c),
        ).sealed(prev)
        prev = record.record_hash
        records.append(record)
    return records


def write_session(wb: Workbench, thread_id: str, paused: bool) -> None:
    """Store the session through the graph's checkpointer (and the session list), finished or paused for review."""
    items = deficiencies(PAUSED_STATUSES if paused else FINISHED_STATUSES)
    catalog = wb.store().catalog()
    citations = [
        Citation(
            doc_id=d.id,
            title=d.title,
            jurisdiction=d.jurisdiction,
            declared_status=d.status.value,
            status_at_as_of=catalog.status_at(d.id, AS_OF).value,
            effective=d.effective,
            citation=d.citation,
        )
        for d in catalog.all()[:8]
    ]
    residual = [d for d in items if d.resolution_status != ResolutionStatus.resolved]
    records = history(items)
    values: dict[str, Any] = {
        "original_query": "Compare CDD thresholds for remittance businesses in the EU and the US today.",
        "as_of": AS_OF,
        "session_id": thread_id,
        "user_id": "local",
        "approval_policy": "manual",
        "engine": "offline",
        "max_evaluation_cycles": CYCLES,
        "evaluation_cycle": CYCLES - 1,
        "identified_deficiencies": items,
        "evaluation_history": records,
        "current_answer": answer(CYCLES - 1),
        "citations": citations,
        "last_evaluation_score": records[-1].overall_score,
        "quality_score": records[-1].overall_score,
        "plateau_streak": 0,
        "messages": [],
    }
    if not paused:
        values.update(
            final_answer=answer(CYCLES - 1),
            residual_deficiencies=residual,
            evaluation_termination_reason="max_cycles_reached",
        )
    config = {"configurable": {"thread_id": thread_id}}
    graph = wb.graph()
    wb.persistence.store.put(
        SESSIONS_NS,
        thread_id,
        {
            "question": values["original_query"],
            "status": "awaiting_review" if paused else "completed",
            "created_at": "2026-11-30T10:00:00+00:00",
            "updated_at": "2026-11-30T10:10:00+00:00",
            "user_id": "local",
            "engine": "offline",
            "collection": wb.settings.collection,
            "as_of": AS_OF.isoformat(),
            "elapsed_s": 1.0,
            "quality_score": values["quality_score"],
            "termination_reason": None if paused else "max_cycles_reached",
        },
        index=False,
    )
    graph.update_state(config, values, as_node="critique" if paused else "finalize")
    if paused:
        graph.invoke(None, config, context=wb.deps())
    status = wb.show(thread_id).status
    assert status == ("awaiting_review" if paused else "completed"), status


# ------------------------------------------------------------------------------------------------ bare pages
BARE_APP = """
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from datetime import date

st.set_page_config(page_title="bare", layout="wide")

def body():
{body}

page = st.navigation([st.Page(body, title="Bare", default=True), st.Page(lambda: None, title="Other", url_path="o")])
with st.sidebar:
    st.markdown("Engine: **offline**")
    st.markdown("Corpus: **19** documents · 68 passages")
    st.markdown("Session `x` :green-badge[completed]")
    st.caption("question")
    st.button("New question")
    st.divider()
    st.text_input("Your name", value="analyst", key="reviewer")
    st.caption("Single-user mode")
page.run()
"""

QUESTION_FORM = """
    st.title("Research")
    with st.expander("New research question"):
        with st.form("ask"):
            st.text_area("Question")
            a, b, c = st.columns(3)
            a.date_input("As of", value=date(2026, 11, 30))
            b.number_input("Max", 0, 50, 4)
            c.selectbox("Approval", ["manual", "all"])
            st.form_submit_button("Run")
    st.subheader("question")
    st.markdown(":orange-badge[status] · session `x`")
    cols = st.columns(4)
    for col in cols:
        col.metric("m", "1")
"""


def bare_body(page: str, paused: bool, counts: dict[str, int]) -> str:
    """The page's widgets with literal content (indented as a function body)."""
    if page == "research" and paused:
        return (
            QUESTION_FORM
            + f"""
    queue, draft = st.columns([3, 2])
    with draft:
        st.markdown("**Draft**")
        with st.container(height=640, border=True):
            st.markdown("answer")
    with queue:
        st.info("paused")
        with st.form("review"):
            for i in range({counts["proposals"]}):
                with st.container(border=True):
                    st.markdown(":red-badge[high] **type** · subject")
                    st.markdown("description")
                    st.caption("id")
                    st.radio("Decision", ["a", "e", "r"], horizontal=True, key=f"a{{i}}")
                    st.text_area("Correction query", value="q", height=68, key=f"q{{i}}")
                    st.text_input("Note", key=f"n{{i}}")
            x, y, z = st.columns(3)
            x.form_submit_button("Submit")
            y.form_submit_button("Approve all")
            z.form_submit_button("Stop")
"""
        )
    if page == "research":
        return (
            QUESTION_FORM
            + f"""
    st.info("why")
    with st.container(border=True):
        st.error("residual")
        for i in range({counts["residual"]}):
            st.markdown(":red-badge[high] **type** (status): description")
    st.markdown("#### Answer")
    with st.container(border=True):
        st.markdown("answer")
    st.markdown("#### Citations")
    st.dataframe(pd.DataFrame(columns=["document", "title", "jurisdiction", "status", "effective", "citation"]))
    st.caption("stale")
"""
        )
    board_head = """
    st.title("Deficiency board")
    for col in st.columns(5):
        col.metric("status", 1)
    frame = pd.DataFrame(columns=["id", "type", "subject", "description", "severity", "status", "attempts",
                                  "correction query", "origin", "first seen", "note", "accepted risk"])
"""
    if page == "deficiencies" and paused:
        return (
            board_head
            + """
    st.info("paused")
    st.data_editor(frame, key="board", num_rows="add", hide_index=True, height=560)
    a, b = st.columns([1, 4])
    b.button("Discard edits")
    a.button("Resume with these edits")
"""
        )
    if page == "deficiencies":
        return (
            board_head
            + """
    st.caption("finished")
    with st.form("annotate"):
        st.data_editor(frame, key="board", hide_index=True, height=560)
        a, b = st.columns(2)
        a.text_input("Editor", value="analyst")
        b.text_input("Reason")
        st.form_submit_button("Save annotations")
"""
        )
    if page == "cycles":
        return """
    st.title("Cycles")
    st.info("why")
    st.plotly_chart(go.Figure(), key="score-chart")
    a, b = st.columns(2)
    a.plotly_chart(go.Figure(), key="status-chart")
    b.plotly_chart(go.Figure(), key="type-chart")
    st.markdown("#### Cycle records")
    st.dataframe(pd.DataFrame(columns=["cycle", "score"]), hide_index=True)
    st.markdown("#### Answer changes between cycles")
    a, b = st.columns(2)
    a.selectbox("From cycle", [0, 1])
    b.selectbox("To cycle", [0, 1], index=1)
    st.code("diff", language="diff", wrap_lines=True)
"""
    if page == "export":
        return """
    st.title("Export")
    st.success("audit")
    st.caption("formats")
    a, b, c = st.columns(3)
    a.download_button("Markdown", b"md", file_name="x.md", on_click="ignore")
    b.download_button("JSON", lambda: b"{}", file_name="x.json", on_click="ignore")
    c.download_button("Word (DOCX)", lambda: b"", file_name="x.docx", on_click="ignore")
    st.markdown("#### Preview")
    with st.container(border=True, height=720):
        st.markdown("export")
"""
    if page == "corpus":
        return """
    st.title("Corpus")
    for col in st.columns(3):
        col.metric("n", 1)
    browse, search, upload = st.tabs(["Documents", "Search", "Add documents"])
    with browse:
        a, b, c = st.columns([2, 1, 1])
        a.text_input("Filter")
        b.multiselect("Jurisdiction", ["EU"])
        c.multiselect("Status", ["in force"])
        st.dataframe(pd.DataFrame(columns=["id", "title", "jurisdiction"]), hide_index=True)
        st.caption("n of n")
    with search:
        with st.form("corpus-search"):
            a, b, c = st.columns([4, 1, 1])
            a.text_input("Search the corpus")
            b.number_input("Results", 1, 30, 8)
            c.selectbox("Mode", ["hybrid"])
            st.multiselect("Only in jurisdictions", ["EU"])
            st.form_submit_button("Search")
    with upload:
        st.caption("formats")
        st.file_uploader("Documents", accept_multiple_files=True)
"""
    return """
    st.title("Sessions")
    st.dataframe(pd.DataFrame(columns=["question", "status", "score"]), hide_index=True)
    st.selectbox("Session", ["a", "b"])
    a, b, c = st.columns(3, border=True)
    with a:
        st.markdown("**Open**")
        st.caption("open")
        st.button("Open session")
    with b:
        st.markdown("**Branch**")
        st.selectbox("Cycle", [0, 1])
        st.button("Branch")
    with c:
        st.markdown("**Delete**")
        st.caption("delete")
        st.button("Delete…")
"""


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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--update-readme", action="store_true")
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
        f"the finished one; median of {args.runs} AppTest reruns per page."
    )
    table = "\n".join(lines)
    print(table)
    print()
    print(verdict)
    if args.update_readme:
        block = (
            "### UI (`python tests/bench/ui.py`)\n\n"
            + table
            + "\n\n"
            + verdict
            + "\n\nBoth columns include AppTest's own cost of a rerun; the bare page has the same widgets filled"
            " with literals, so the ratio is the page's data work (service calls, tables, figures, export)."
        )
        readme = ROOT / "README.md"
        text = re.sub(
            r"(<!-- bench:ui:start -->\n).*?(\n<!-- bench:ui:end -->)",
            lambda m: m.group(1) + block + m.group(2),
            readme.read_text(),
            flags=re.S,
        )
        readme.write_text(text)


if __name__ == "__main__":
    main()
