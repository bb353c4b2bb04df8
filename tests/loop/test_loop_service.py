"""The whole loop through core.service, parametrised over in-memory, SQLite (and Postgres when configured)."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable

import pytest

from core.domain.audit import verify_chain
from core.domain.records import ResolutionStatus
from core.domain.stop_reasons import (
    MAX_CYCLES_REACHED,
    ONLY_UNRESOLVABLE_REMAINING,
    SCORE_PLATEAU,
    STOPPED_BY_ANALYST,
)
from core.service import SESSIONS_NS, InputError, SessionBusyError, Workbench, thread_lock
from tests.loop.corpora import RU_QUESTION

S = ResolutionStatus
Factory = Callable[..., Workbench]


def test_approve_all_resolves_and_the_score_rises(workbench_factory: Factory, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    wb = workbench_factory()
    r = wb.start(RU_QUESTION, as_of="2026-11-30", approve="all")
    assert r.status == "completed" and r.termination_reason == ONLY_UNRESOLVABLE_REMAINING
    assert [d.subject for d in r.residual_deficiencies] == ["XY:scope"]  # Xylandia says nothing on savings clubs
    assert "## Not answered by the corpus" in r.final_answer
    scores = [h.overall_score for h in r.evaluation_history]
    assert len(scores) >= 2 and scores[-1] > scores[0]
    assert any(h.deficiencies_resolved for h in r.evaluation_history[1:])
    assert r.evaluation_history[1].retrieval_queries_issued and r.evaluation_history[1].decisions
    assert "ru-blog-wrong" not in r.final_answer
    assert r.metrics["retrievals"] >= 2 and r.metrics["critic_calls"] == len(scores)
    per_cycle = r.metrics["node_seconds"]
    assert sorted(per_cycle) == [h.cycle_number for h in r.evaluation_history]
    assert set(per_cycle[0]) == {"plan", "retrieve", "draft", "critique"}
    assert set(per_cycle[1]) == {"review", "correct", "revise", "critique"}
    assert "finalize" in per_cycle[max(per_cycle)]
    assert wb.show(r.thread_id).metrics["node_seconds"] == per_cycle
    state = wb.graph().get_state({"configurable": {"thread_id": r.thread_id}}).values
    assert not [k for k in state["metrics"] if k.startswith("seconds.")]  # timings stay out of checkpoints
    assert all(h.node_seconds is None for h in r.evaluation_history)  # and out of the hashed records
    assert verify_chain(r.audit_records)[0]
    assert not [rec for rec in caplog.records if "unregistered" in rec.getMessage().lower()]


def test_reloaded_state_is_typed_not_dicts(workbench_factory: Factory) -> None:
    r = workbench_factory().start(RU_QUESTION, as_of="2026-11-30", approve="all")
    again = workbench_factory().show(r.thread_id)
    assert type(again.identified_deficiencies[0]).__name__ == "Deficiency"
    assert type(again.evaluation_history[0]).__name__ == "EvaluationCycleRecord"
    assert again.final_answer == r.final_answer


def test_approve_none_retrieves_nothing_and_everything_stays_residual(workbench_factory: Factory) -> None:
    r = workbench_factory().start(RU_QUESTION, as_of="2026-11-30", approve="none")
    assert r.termination_reason == ONLY_UNRESOLVABLE_REMAINING
    assert not any(h.retrieval_queries_issued for h in r.evaluation_history)
    assert r.residual_deficiencies and all(d.resolution_status == S.dismissed for d in r.residual_deficiencies)
    assert "Residual deficiencies" in r.final_answer


@pytest.mark.parametrize("cycles", [0, 1])
def test_max_cycles(workbench_factory: Factory, cycles: int) -> None:
    wb = workbench_factory(retrieval_k=2)
    r = wb.start(RU_QUESTION, as_of="2026-11-30", approve="all", max_cycles=cycles)
    assert len(r.evaluation_history) == cycles + 1
    if cycles == 0:
        assert r.termination_reason == MAX_CYCLES_REACHED and r.metrics["retrievals"] == 1
        assert r.residual_deficiencies


def test_manual_review_pauses_before_any_correction_retrieval_and_resumes_in_a_new_instance(
    workbench_factory: Factory,
) -> None:
    first = workbench_factory()
    paused = first.start(RU_QUESTION, as_of="2026-11-30")
    assert paused.status == "awaiting_review" and paused.metrics["retrievals"] == 1
    proposals = paused.pending_review["proposals"]
    assert proposals and {"id", "deficiency_type", "description", "severity", "query"} <= set(proposals[0])
    decisions = {p["id"]: {"action": "approve"} for p in proposals}
    rejected = proposals[-1]["id"]
    decisions[rejected] = {"action": "reject", "note": "out of scope"}
    edited = proposals[0]["id"]
    decisions[edited] = {"action": "edit", "query": "Payments Act owner disclosure more than 30%"}
    restarted = workbench_factory()
    done = restarted.resume(paused.thread_id, {"cycle": 0, "decisions": decisions, "reviewer": "alice"})
    assert done.status == "awaiting_review"
    record = done.evaluation_history[1]
    by_id = {dec.deficiency_id: dec for dec in record.decisions}
    assert by_id[rejected].action == "reject" and by_id[rejected].decided_by == "alice"
    assert by_id[edited].query == "Payments Act owner disclosure more than 30%"
    assert "Payments Act owner disclosure more than 30%" in record.retrieval_queries_issued
    dismissed = next(d for d in done.identified_deficiencies if d.id == rejected)
    assert dismissed.analyst_note == "out of scope"
    rejected_query = next(p["query"] for p in proposals if p["id"] == rejected)
    assert rejected_query not in record.retrieval_queries_issued
    assert dismissed.resolution_status == S.dismissed and dismissed in done.residual_deficiencies


def test_review_input_is_validated(workbench_factory: Factory) -> None:
    wb = workbench_factory()
    paused = wb.start(RU_QUESTION, as_of="2026-11-30")
    with pytest.raises(InputError, match="no decision"):
        wb.resume(paused.thread_id, {"cycle": 0})
    with pytest.raises(InputError, match="invalid review decisions"):
        wb.resume(paused.thread_id, {"cycle": 0, paused.pending_review["proposals"][0]["id"]: {"action": "maybe"}})
    with pytest.raises(InputError, match="unknown deficiencies"):
        wb.resume(paused.thread_id, {"cycle": 0, "D-nope": {"action": "approve"}})
    assert wb.show(paused.thread_id).status == "awaiting_review"


def test_a_stale_review_answer_is_refused(workbench_factory: Factory) -> None:
    """The same decisions resubmitted after the loop paused again, decisions without the review's cycle, and
    decisions on deficiencies this review does not ask about are refused; the review waits unchanged."""
    wb = workbench_factory(unresolvable_after=5, retrieval_k=1)
    paused = wb.start(RU_QUESTION, as_of="2026-11-30")
    proposals = paused.pending_review["proposals"]
    assert paused.pending_review["cycle"] == 0
    with pytest.raises(InputError, match='name the review they answer: add "cycle": 0'):
        wb.resume(paused.thread_id, {p["id"]: {"action": "approve"} for p in proposals})
    # one correction that works (the savings club exemption the answer omits) and queries that find nothing for
    # the rest: those are found again and proposed at cycle 1
    fixable = next(p["id"] for p in proposals if p["deficiency_type"] == "missing_exemption")
    stale = {
        "cycle": 0,
        "decisions": {
            p["id"]: {"action": "approve"} if p["id"] == fixable else {"action": "edit", "query": "zzqx nothing"}
            for p in proposals
        },
    }
    again = wb.resume(paused.thread_id, stale)
    assert again.status == "awaiting_review" and again.pending_review["cycle"] == 1
    pending = {p["id"] for p in again.pending_review["proposals"]}
    with pytest.raises(
        InputError, match="answer the review of cycle 0, but .* waits at the review of cycle 1: they are stale"
    ):
        wb.resume(again.thread_id, stale)
    with pytest.raises(InputError, match="answer the review of cycle 0"):
        wb.resume(again.thread_id, {"cycle": 0, **{did: {"action": "approve"} for did in pending}})
    current = {did: {"action": "approve"} for did in pending}
    resolved = next(d.id for d in again.identified_deficiencies if d.resolution_status == S.resolved)
    with pytest.raises(InputError, match=f"{resolved} is not pending in the review of cycle 1 \\(resolved\\)"):
        wb.resume(again.thread_id, {"cycle": 1, "decisions": {**current, resolved: {"action": "approve"}}})
    after = wb.show(again.thread_id)
    assert after.status == "awaiting_review" and after.pending_review == again.pending_review
    assert len(after.evaluation_history) == 2
    assert wb.resume(again.thread_id, {"cycle": 1, "decisions": current}).evaluation_history[2].decisions


def test_decisions_on_policy_decided_deficiencies_are_refused(workbench_factory: Factory) -> None:
    wb = workbench_factory()
    paused = wb.start(RU_QUESTION, as_of="2026-11-30", approve="severity>=high")
    auto = paused.pending_review["auto_decided"]
    if not auto:
        pytest.skip("no deficiency of high severity in this corpus")
    decided = next(iter(auto))
    decisions = {p["id"]: {"action": "approve"} for p in paused.pending_review["proposals"]}
    with pytest.raises(InputError, match=f"{decided} is not pending .*decided by the approval policy"):
        wb.resume(paused.thread_id, {"cycle": 0, "decisions": {**decisions, decided: {"action": "reject"}}})


def test_an_entry_without_checkpoint_or_inputs_is_failed_not_a_zombie(workbench_factory: Factory) -> None:
    """A list entry written by an older version (no start inputs) whose run died before its first checkpoint."""
    wb = workbench_factory()
    tid = f"legacy-{uuid.uuid4().hex[:8]}"
    wb.persistence.store.put(
        SESSIONS_NS,
        tid,
        {
            "question": RU_QUESTION,
            "status": "running",
            "user_id": "local",
            "created_at": "2026-11-30T10:00:00+00:00",
            "updated_at": "2026-11-30T10:00:00+00:00",
        },
        index=False,
    )
    assert next(s for s in wb.sessions() if s.thread_id == tid).status == "failed"
    assert wb.show(tid).status == "failed"
    with pytest.raises(InputError, match="not cut off mid-run \\(status: failed\\)"):
        wb.continue_run(tid)


def test_analyst_can_stop_add_and_change_severity(workbench_factory: Factory) -> None:
    wb = workbench_factory()
    paused = wb.start(RU_QUESTION, as_of="2026-11-30")
    stopped = wb.resume(paused.thread_id, {"cycle": 0, "stop": True})
    assert stopped.termination_reason == STOPPED_BY_ANALYST and stopped.residual_deficiencies

    paused = wb.start(RU_QUESTION, as_of="2026-11-30")
    first = paused.pending_review["proposals"][0]["id"]
    decisions = {p["id"]: {"action": "approve"} for p in paused.pending_review["proposals"]}
    decisions[first] = {"action": "approve", "severity": "low"}
    added = {
        "deficiency_type": "missing_jurisdiction",
        "subject": "ZZ",
        "description": "Zedland not covered",
        "suggested_correction_query": "Xylandia owner disclosure",
    }
    r = wb.resume(paused.thread_id, {"cycle": 0, "decisions": decisions, "added": [added]})
    mine = [d for d in r.identified_deficiencies if d.origin == "analyst"]
    assert len(mine) == 1 and mine[0].resolution_status == S.addressed
    assert r.status == "awaiting_review" and mine[0] in r.residual_deficiencies
    assert next(d for d in r.identified_deficiencies if d.id == first).severity.value == "low"


def test_unresolvable_after_n_attempts_and_plateau(workbench_factory: Factory) -> None:
    wb = workbench_factory(unresolvable_after=1)
    q = "What owner disclosure threshold applies in Ruritania?"
    r = wb.start(q, as_of="2026-11-30", approve="all", max_cycles=5)
    assert r.status == "completed"
    stuck = workbench_factory(unresolvable_after=5, plateau_cycles=1, retrieval_k=1)
    p = stuck.start(
        "What owner disclosure threshold applies to a savings club in Ruritania and Xylandia?",
        as_of="2026-11-30",
        approve="all",
        max_cycles=6,
    )
    assert p.termination_reason == SCORE_PLATEAU


def test_tampering_with_a_stored_record_fails_verification(workbench_factory: Factory) -> None:
    r = workbench_factory().start(RU_QUESTION, as_of="2026-11-30", approve="all")
    history = list(r.evaluation_history)
    history[0] = history[0].model_copy(update={"overall_score": 1.0})
    ok, message = verify_chain(history)
    assert not ok and "cycle record 0" in message


def test_one_run_at_a_time_per_session() -> None:
    with thread_lock("t-1"):
        with pytest.raises(SessionBusyError), thread_lock("t-1"):
            pass
        with thread_lock("t-2"):
            pass
    ready = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with thread_lock("t-3"):
            ready.set()
            release.wait(5)

    worker = threading.Thread(target=hold)
    worker.start()
    ready.wait(5)
    with pytest.raises(SessionBusyError, match="already running"), thread_lock("t-3"):
        pass
    release.set()
    worker.join()


@pytest.mark.parametrize("question", ["", "   ", "x" * 20_000])
def test_bad_questions_are_refused_with_a_reason(workbench_factory: Factory, question: str) -> None:
    with pytest.raises(InputError):
        workbench_factory().start(question)


@pytest.mark.parametrize("as_of", ["1700-01-01", "3000-01-01", "30/11/2026"])
def test_bad_as_of_dates_are_refused(workbench_factory: Factory, as_of: str) -> None:
    with pytest.raises(InputError, match="as-of"):
        workbench_factory().start(RU_QUESTION, as_of=as_of)


def test_sessions_list_and_branch(workbench_factory: Factory) -> None:
    wb = workbench_factory()
    r = wb.start(RU_QUESTION, as_of="2026-11-30", approve="all")
    ids = {s.thread_id for s in wb.sessions()}
    assert r.thread_id in ids
    branch = wb.branch(r.thread_id, 0)
    b = wb.show(branch)
    assert b.thread_id != r.thread_id and b.evaluation_history[0].record_hash == r.evaluation_history[0].record_hash
    assert b.status == "awaiting_review"


def test_annotations_after_completion_record_editor_and_reason(workbench_factory: Factory) -> None:
    wb = workbench_factory()
    r = wb.start(RU_QUESTION, as_of="2026-11-30", approve="none")
    target = r.residual_deficiencies[0].id
    with pytest.raises(InputError, match="editor"):
        wb.annotate(r.thread_id, target, editor="", reason="x", accepted_risk=True)
    after = wb.annotate(
        r.thread_id, target, editor="bob", reason="immaterial for this client", note="accepted", accepted_risk=True
    )
    changed = next(d for d in after.identified_deficiencies if d.id == target)
    assert changed.accepted_risk and changed.analyst_note == "accepted"
    assert after.status == "completed" and after.termination_reason == r.termination_reason
    assert verify_chain(after.audit_records)[0]
