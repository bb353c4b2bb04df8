"""The graph as the service runs it: one compiled graph with the store in the runtime context, the step budget
and the `step_limit` stop, per-cycle timings outside the checkpoints, engine notes in the cycle records, branches
that re-open a review, and a board whose status choices the loop applies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import core.service.runs as runs
from core.domain.audit import verify_chain
from core.domain.deficiencies import analyst_choices
from core.domain.records import Deficiency, DeficiencyType, EvaluationCycleRecord, ResolutionStatus, ReviewResponse
from core.domain.results import cycle_seconds
from core.domain.stop_reasons import MAX_CYCLES_REACHED, STEP_LIMIT, describe
from core.loop.graph import step_budget
from core.loop.review import apply_review, proposal
from core.service import Workbench
from tests.loop.corpora import RU_QUESTION
from ui.board import board_rows, paused_changes, review_payload

S = ResolutionStatus
Factory = Callable[..., Workbench]
AS_OF = "2026-11-30"


def steps_taken(wb: Workbench, thread_id: str) -> int:
    """Supersteps the session ran: its checkpoints but the input's."""
    return sum(
        1
        for s in wb.graph().get_state_history({"configurable": {"thread_id": thread_id}})
        if s.metadata.get("source") == "loop"
    )


def test_the_step_budget_covers_every_cycle_and_follows_the_max_cycles(workbench_factory: Factory) -> None:
    wb = workbench_factory(retrieval_k=2)
    r = wb.start(RU_QUESTION, as_of=AS_OF, approve="all", max_cycles=1)
    assert len(r.evaluation_history) == 2
    graph = wb.graph()
    assert steps_taken(wb, r.thread_id) <= step_budget(graph, 1)
    assert step_budget(graph, 50) - step_budget(graph, 0) == 50 * 4  # review, correct, revise, critique
    assert step_budget(graph, 50) >= 4 + 50 * 4 + 2  # the first cycle and the closing review and finalize


def test_a_run_that_exhausts_its_steps_finishes_with_step_limit_and_discloses_what_is_left(
    workbench_factory: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runs, "step_budget", lambda graph, cycles: 5)
    wb = workbench_factory()
    r = wb.start(RU_QUESTION, as_of=AS_OF, approve="all")
    assert r.status == "completed" and r.termination_reason == STEP_LIMIT
    assert r.termination_text == describe(STEP_LIMIT) != STEP_LIMIT
    assert r.residual_deficiencies and "Residual deficiencies" in r.final_answer
    assert verify_chain(r.audit_records)[0]
    [listed] = [s for s in wb.sessions() if s.thread_id == r.thread_id]
    assert (listed.status, listed.termination_reason) == ("completed", STEP_LIMIT)


def test_one_graph_serves_every_collection_and_reading_needs_no_store(workbench_factory: Factory) -> None:
    wb = workbench_factory()
    r = wb.start(RU_QUESTION, as_of=AS_OF, approve="none")
    assert wb.graph() is wb.graph()

    class NoStore:
        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"the store was used ({name}) to read a session")

    reader = Workbench(wb.settings, store=NoStore(), persistence=wb.persistence)
    assert reader.show(r.thread_id).final_answer == r.final_answer
    assert reader.verify_audit(r.thread_id)[0] and reader.export(r.thread_id, "md")
    assert r.thread_id in {s.thread_id for s in reader.sessions()}


def test_engine_notes_go_into_the_cycle_record_not_the_messages(workbench_factory: Factory) -> None:
    wb = workbench_factory()
    paused = wb.start(RU_QUESTION, as_of=AS_OF)
    store = wb.store()

    def down(*args: Any, **kw: Any) -> Any:
        raise ConnectionError("store offline")

    store.search = down
    try:
        decisions = {p["id"]: {"action": "approve"} for p in paused.pending_review["proposals"]}
        r = wb.resume(paused.thread_id, {"cycle": 0, "decisions": decisions})
    finally:
        del store.search
    assert any("correction retrieval failed: store offline" in n for n in r.evaluation_history[1].notes)
    state = wb.graph().get_state({"configurable": {"thread_id": r.thread_id}}).values
    assert not any("store offline" in str(m) for m in state.get("messages", []))


def test_timings_are_per_cycle_and_old_records_with_running_totals_still_verify() -> None:
    old, prev = [], ""
    for n, totals in enumerate([{"plan": 1.0, "critique": 0.5}, {"plan": 1.0, "critique": 0.75, "revise": 0.25}]):
        rec = EvaluationCycleRecord(
            cycle_number=n,
            timestamp="t",
            deficiencies_found=(),
            deficiencies_resolved=(),
            overall_score=0.5,
            node_seconds=totals,
        ).sealed(prev)
        old.append(rec)
        prev = rec.record_hash
    body = old[0].model_dump(mode="json")
    assert "node_seconds" in body and verify_chain([r.model_dump(mode="json") for r in old])[0]
    assert cycle_seconds({}, old) == {0: {"plan": 1.0, "critique": 0.5}, 1: {"critique": 0.25, "revise": 0.25}}
    new = EvaluationCycleRecord(
        cycle_number=0, timestamp="t", deficiencies_found=(), deficiencies_resolved=(), overall_score=0.5
    ).sealed("")
    assert new.node_seconds is None and verify_chain([new.model_dump(mode="json")])[0]
    assert cycle_seconds({"node_seconds": {"1": {"review": 0.5}, "0": {"plan": 1.0}}}, [new]) == {
        0: {"plan": 1.0},
        1: {"review": 0.5},
    }


def test_branching_from_the_last_cycle_of_a_finished_session_reopens_its_review(workbench_factory: Factory) -> None:
    wb = workbench_factory(retrieval_k=2)
    done = wb.start(RU_QUESTION, as_of=AS_OF, approve="all", max_cycles=1)
    assert done.status == "completed" and done.termination_reason == MAX_CYCLES_REACHED
    last = done.evaluation_history[-1].cycle_number
    branch = wb.branch(done.thread_id, last)
    b = wb.show(branch)
    assert b.status == "awaiting_review" and b.pending_review["cycle"] == last
    still_open = {d.id for d in done.identified_deficiencies if d.resolution_status == S.open}
    assert still_open and {p["id"] for p in b.pending_review["proposals"]} == still_open
    assert b.approval_policy == "manual" and b.max_evaluation_cycles == last + 1
    assert [h.record_hash for h in b.evaluation_history] == [h.record_hash for h in done.evaluation_history]
    rejected = {p["id"]: {"action": "reject", "note": "not for this client"} for p in b.pending_review["proposals"]}
    decided = wb.resume(branch, {"cycle": last, "decisions": rejected})
    assert decided.status == "completed" and decided.thread_id == branch
    assert all(d.resolution_status == S.dismissed for d in decided.identified_deficiencies if d.id in rejected)
    assert wb.show(done.thread_id).termination_reason == MAX_CYCLES_REACHED  # the source is left as it was


def test_a_branch_of_a_cycle_with_nothing_open_is_refused(workbench_factory: Factory) -> None:
    wb = workbench_factory()
    done = wb.start(RU_QUESTION, as_of=AS_OF, approve="all")
    last = done.evaluation_history[-1]
    assert not last.status_counts.get("open")
    with pytest.raises(runs.InputError, match="nothing to decide"):
        wb.branch(done.thread_id, last.cycle_number)


def test_what_the_board_offers_the_review_applies() -> None:
    """Every status the board lets an analyst choose while paused reaches the deficiency through the review; what
    the lifecycle table refuses the board does not offer."""
    kinds = [S.open, S.addressed, S.unresolvable, S.resolved, S.dismissed]
    items = [
        Deficiency(
            deficiency_type=DeficiencyType.missing_jurisdiction, subject=s.value, description="x", resolution_status=s
        )
        for s in kinds
    ]
    proposed = items[0]
    for d in items:
        for chosen in (s.value for s in S if s != d.resolution_status):
            rows = board_rows(items)
            next(row for row in rows if row["id"] == d.id)["status"] = chosen
            board = paused_changes(items, rows, [proposed.id])
            if chosen not in {c.value for c in analyst_choices(d.resolution_status)}:
                assert d.id not in board.decisions and board.problems
                continue
            payload = review_payload([proposal(proposed)], {}, board, "alice", cycle=0)
            command = apply_review(
                {"identified_deficiencies": items},
                0,
                [proposed],
                {},
                ReviewResponse.parse(payload),
                unresolvable_after=2,
            )
            after = {u.id: u for u in command.update["identified_deficiencies"]}
            assert after[d.id].resolution_status.value == chosen, (d.resolution_status, chosen)
