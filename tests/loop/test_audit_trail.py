"""One audit trail for every human act: review decisions, board edits, added rows, annotations, confirmations and
struck claims are hash-chained with the cycle records, through the service; the settings a session started with
are kept with it."""

from __future__ import annotations

import copy
import io
import json
import re
from collections.abc import Callable

import pytest
from docx import Document

from core.domain.answer import STRUCK_GAP_HEADING
from core.domain.audit import verify_chain
from core.service import InputError, Workbench, claim_id
from core.service.runs import session_deps
from tests.inert import unescape
from tests.loop.corpora import RU_QUESTION

Factory = Callable[..., Workbench]


def test_an_annotation_is_a_chained_act_in_every_export(workbench_factory: Factory) -> None:
    wb = workbench_factory()
    r = wb.start(RU_QUESTION, as_of="2026-11-30", approve="none")
    target = r.residual_deficiencies[0]
    after = wb.annotate(
        r.thread_id, target.id, editor="bob", reason="immaterial for this client", accepted_risk=True, severity="low"
    )
    acts = [a for a in after.human_acts if a.kind == "annotation"]
    assert [(a.field, a.old, a.new) for a in acts] == [
        ("accepted_risk", "false", "true"),
        ("severity", target.severity.value, "low"),
    ]
    assert all(a.actor == "bob" and a.reason == "immaterial for this client" and a.at for a in acts)
    ok, message = wb.verify_audit(r.thread_id)
    assert ok and f"{len(after.evaluation_history)} cycle records and 2 human acts verified" == message
    assert acts[0].prev_hash == after.evaluation_history[-1].record_hash

    md = unescape(wb.export(r.thread_id, "md").decode())
    assert f"| bob | annotation | {target.id} |" in md and "immaterial for this client" in md
    assert f"Chain head: {acts[-1].record_hash}" in md
    data = json.loads(wb.export(r.thread_id, "json"))
    assert [a["field"] for a in data["human_acts"]] == ["accepted_risk", "severity"]
    assert data["audit"]["verified"] and data["audit"]["chain_head"] == acts[-1].record_hash
    docx = Document(io.BytesIO(wb.export(r.thread_id, "docx")))
    cells = [c.text for t in docx.tables for row in t.rows for c in row.cells]
    assert "immaterial for this client" in cells and "severity: " + target.severity.value + " -> low" in cells

    again = wb.annotate(r.thread_id, target.id, editor="carol", reason="second look", note="checked")
    assert again.human_acts[-1].prev_hash == acts[-1].record_hash and wb.verify_audit(r.thread_id)[0]


def test_a_tampered_stored_annotation_fails_verification(workbench_factory: Factory) -> None:
    wb = workbench_factory()
    r = wb.start(RU_QUESTION, as_of="2026-11-30", approve="none")
    wb.annotate(r.thread_id, r.residual_deficiencies[0].id, editor="bob", reason="ok", note="fine")
    saver = wb.persistence.checkpointer
    stored = saver.get_tuple({"configurable": {"thread_id": r.thread_id}})
    checkpoint = copy.deepcopy(stored.checkpoint)
    acts = checkpoint["channel_values"]["human_acts"]
    checkpoint["channel_values"]["human_acts"] = [acts[0].model_copy(update={"actor": "mallory"}), *acts[1:]]
    # a new channel version, so savers that keep each version's value once (Postgres blobs) store the forgery too
    version = saver.get_next_version(checkpoint["channel_versions"]["human_acts"], None)
    checkpoint["channel_versions"]["human_acts"] = version
    saver.put(stored.config, checkpoint, stored.metadata, {"human_acts": version})  # rewrite it in place

    assert wb.show(r.thread_id).human_acts[0].actor == "mallory"
    ok, message = wb.verify_audit(r.thread_id)
    assert not ok and "human act (annotation of" in message and "by mallory" in message and "tampered" in message
    assert "Audit chain check: FAILED" in unescape(wb.export(r.thread_id, "md").decode())


def test_board_edits_while_paused_are_recorded_old_to_new(workbench_factory: Factory) -> None:
    wb = workbench_factory()
    paused = wb.start(RU_QUESTION, as_of="2026-11-30")
    proposals = paused.pending_review["proposals"]
    first, second = proposals[0], proposals[1]
    decisions = {p["id"]: {"action": "approve"} for p in proposals}
    decisions[first["id"]] = {"action": "approve", "severity": "low", "note": "minor for this client"}
    decisions[second["id"]] = {"action": "edit", "query": "Ruritania owner register threshold"}
    added = {
        "deficiency_type": "missing_jurisdiction",
        "subject": "ZZ",
        "description": "Zedland not covered",
        "suggested_correction_query": "Xylandia owner disclosure",
        "note": "client operates there",
    }
    r = wb.resume(paused.thread_id, {"cycle": 0, "decisions": decisions, "added": [added], "reviewer": "ana"})
    acts = [a for a in r.human_acts if a.cycle == 0]
    assert all(a.actor == "ana" and a.at for a in acts)
    severity = next(a for a in acts if a.deficiency_id == first["id"] and a.field == "severity")
    assert (severity.kind, severity.old, severity.new) == ("review_edit", first["severity"], "low")
    assert severity.reason == "minor for this client"
    query = next(a for a in acts if a.deficiency_id == second["id"] and a.field == "query")
    assert (query.old, query.new) == (second["query"], "Ruritania owner register threshold")
    decided = {a.deficiency_id: a.new for a in acts if a.kind == "decision"}
    assert decided[first["id"]] == "approve" and decided[second["id"]] == "edit"
    assert any(a.kind == "added" and "ZZ" in a.new and a.reason == "client operates there" for a in acts)
    assert verify_chain(r.audit_records)[0]
    if len(r.evaluation_history) > 1:  # the next cycle record links to the review's last act
        assert r.evaluation_history[1].prev_hash == acts[-1].record_hash


def test_a_rejection_and_a_stop_are_chained_even_without_a_later_cycle(workbench_factory: Factory) -> None:
    wb = workbench_factory()
    paused = wb.start(RU_QUESTION, as_of="2026-11-30")
    decisions = {p["id"]: {"action": "reject", "note": "out of scope"} for p in paused.pending_review["proposals"]}
    r = wb.resume(paused.thread_id, {"cycle": 0, "decisions": decisions, "reviewer": "ana"})
    status = [a for a in r.human_acts if a.field == "status"]
    assert status and all((a.old, a.new, a.reason) == ("open", "dismissed", "out of scope") for a in status)
    assert verify_chain(r.audit_records)[0]

    paused = wb.start(RU_QUESTION, as_of="2026-11-30")
    stopped = wb.resume(paused.thread_id, {"cycle": 0, "stop": True, "reviewer": "ana"})
    assert {a.new for a in stopped.human_acts} == {"stop"} and verify_chain(stopped.audit_records)[0]


def test_the_settings_snapshot_outlives_a_settings_change(workbench_factory: Factory) -> None:
    r = workbench_factory(quality_threshold=0.6, plateau_epsilon=0.02).start(
        RU_QUESTION, as_of="2026-11-30", approve="all", max_cycles=2
    )
    later = workbench_factory(quality_threshold=0.95)
    shown = later.show(r.thread_id)
    assert shown.settings is not None
    assert (shown.settings.quality_threshold, shown.settings.plateau_epsilon, shown.settings.max_cycles) == (
        0.6,
        0.02,
        2,
    )
    assert shown.settings.engine == "offline" and shown.settings.model == ""
    md = unescape(later.export(r.thread_id, "md").decode())
    assert "| Quality threshold | 0.60 |" in md and "0.95" not in md.split("## Settings at start")[1]
    branch = later.show(later.branch(r.thread_id, 0))
    assert branch.settings is not None and branch.settings.quality_threshold == 0.6


def test_a_resumed_session_keeps_the_termination_rules_it_started_with(workbench_factory: Factory) -> None:
    paused = workbench_factory(quality_threshold=0.6, unresolvable_after=3, blocking_severity="high").start(
        RU_QUESTION, as_of="2026-11-30"
    )
    later = workbench_factory(quality_threshold=0.99)
    deps = session_deps(later.deps(), later._session(paused.thread_id))
    assert (deps.policy.quality_threshold, deps.policy.blocking_severity.value) == (0.6, "high")
    assert deps.settings.unresolvable_after == 3 and later.settings.quality_threshold == 0.99
    decisions = {p["id"]: {"action": "approve"} for p in paused.pending_review["proposals"]}
    assert later.resume(paused.thread_id, {"cycle": 0, "decisions": decisions}).status in (
        "completed",
        "awaiting_review",
    )
    assert session_deps(later.deps(), {}).policy.quality_threshold == 0.99  # older sessions: today's rules


ADDED = {
    "deficiency_type": "missing_jurisdiction",
    "subject": "ZZ",
    "description": "Zedland not covered",
    "suggested_correction_query": "Xylandia owner disclosure",
}


def _with_added(wb: Workbench, max_cycles: int) -> tuple[str, str]:
    """A session whose first review approves everything and adds ZZ; its thread id and ZZ's id."""
    paused = wb.start(RU_QUESTION, as_of="2026-11-30", max_cycles=max_cycles)
    decisions = {p["id"]: {"action": "approve"} for p in paused.pending_review["proposals"]}
    r = wb.resume(paused.thread_id, {"cycle": 0, "decisions": decisions, "added": [ADDED], "reviewer": "ana"})
    mine = next(d for d in r.identified_deficiencies if d.origin == "analyst")
    return r.thread_id, mine.id


def test_the_next_review_asks_the_analyst_to_confirm_what_they_added(workbench_factory: Factory) -> None:
    wb = workbench_factory()
    tid, mine = _with_added(wb, max_cycles=3)
    paused = wb.show(tid)
    assert [p["id"] for p in paused.pending_review["confirmations"]] == [mine]
    assert next(d for d in paused.identified_deficiencies if d.id == mine).resolution_status.value == "addressed"
    assert paused.outcome.counts.awaiting_confirmation == 1 and "1 confirmation" in paused.outcome.badge
    proposals = {p["id"]: {"action": "approve"} for p in paused.pending_review["proposals"]}
    with pytest.raises(InputError, match="does not wait for a confirmation"):
        wb.resume(tid, {"cycle": 1, "decisions": {**proposals, next(iter(proposals)): {"action": "confirm"}}})
    r = wb.resume(tid, {"cycle": 1, "decisions": {**proposals, mine: {"action": "confirm", "note": "checked"}}})
    assert next(d for d in r.identified_deficiencies if d.id == mine).resolution_status.value == "resolved"
    acts = [a for a in r.human_acts if a.deficiency_id == mine and a.cycle == 1]
    assert {(a.field, a.old, a.new) for a in acts} == {
        ("action", "proposed", "confirm"),
        ("status", "addressed", "resolved"),
        ("note", "", "checked"),
    }
    assert verify_chain(r.audit_records)[0]


def test_after_the_run_the_analyst_confirms_or_reopens_what_they_added(workbench_factory: Factory) -> None:
    wb = workbench_factory()
    tid, mine = _with_added(wb, max_cycles=1)
    done = wb.show(tid)
    assert done.status == "completed" and done.outcome.counts.awaiting_confirmation == 1
    assert "waits for your confirmation" in done.outcome.headline
    critics = next(d for d in done.identified_deficiencies if d.origin != "analyst")
    with pytest.raises(InputError, match="does not wait for a confirmation"):
        wb.confirm_deficiency(tid, critics.id, resolved=True, editor="ana", reason="x")
    with pytest.raises(InputError, match="needs the editor's name and a reason"):
        wb.confirm_deficiency(tid, mine, resolved=True, editor="ana", reason=" ")
    r = wb.confirm_deficiency(tid, mine, resolved=False, editor="ana", reason="Zedland still missing")
    reopened = next(d for d in r.identified_deficiencies if d.id == mine)
    assert (reopened.resolution_status.value, reopened.resolution_attempt_count) == ("open", 1)
    assert reopened in r.residual_deficiencies and "Zedland not covered" in r.final_answer
    act = r.human_acts[-1]
    assert (act.kind, act.old, act.new, act.actor, act.reason) == (
        "confirmation",
        "addressed",
        "open",
        "ana",
        "Zedland still missing",
    )
    assert verify_chain(r.audit_records)[0]
    listed = next(s for s in wb.sessions() if s.thread_id == tid)
    assert listed.outcome == r.outcome  # the session list shows what the session shows


def test_striking_a_claim_is_a_human_act_that_can_leave_a_gap(workbench_factory: Factory) -> None:
    wb = workbench_factory()
    done = wb.start(RU_QUESTION, as_of="2026-11-30", approve="all")
    threshold = [(code, c) for code, c in done.answer.claims() if "RU:threshold" in c.plan_item_ids]
    assert len(threshold) >= 2
    first, *rest = (claim_id(code, c) for code, c in threshold)
    with pytest.raises(InputError, match="holds no claim C-0000000000"):
        wb.strike_claim(done.thread_id, "C-0000000000", editor="ana", reason="x")
    r = wb.strike_claim(done.thread_id, first, editor="ana", reason="out of scope")
    assert r.answer.find(first) is None and threshold[0][1].text not in r.current_answer
    assert "RU:threshold" not in {g.plan_item_id for g in r.answer.gaps}  # the other claims still answer it
    for other in rest:
        r = wb.strike_claim(done.thread_id, other, editor="ana", reason="wrong figure")
    (gap,) = [g for g in r.answer.gaps if g.plan_item_id == "RU:threshold"]
    assert gap.struck_by == "ana" and gap.text.startswith("ana struck the claim stating ")
    assert (
        gap.text.endswith(" (wrong figure); no other claim states it.") and "corpus" not in gap.text
    )  # the corpus is not blamed
    struck_section = r.current_answer.split(f"## {STRUCK_GAP_HEADING}\n", 1)[1].split("\n\n", 1)[0]
    assert f"- {gap.text}" in struck_section.splitlines()
    assert [(s.id, s.reason, s.by) for s in r.answer.struck] == [
        (first, "out of scope", "ana"),
        *((other, "wrong figure", "ana") for other in rest),
    ]
    strikes = [a for a in r.human_acts if a.kind == "strike"]
    assert [(a.deficiency_id, a.actor, a.reason) for a in strikes] == [
        (first, "ana", "out of scope"),
        *((other, "ana", "wrong figure") for other in rest),
    ]
    assert verify_chain(r.audit_records)[0] and r.outcome.counts.struck == len(threshold)
    raw = wb.export(r.thread_id, "md", exported_by="ana").decode()
    md = unescape(raw)
    assert STRUCK_GAP_HEADING in md and gap.text in md  # the export groups the open items as the page does
    assert f"| {first} | RU | {threshold[0][1].text} | out of scope | ana |" in md
    assert not re.findall(r"\\[.:,;()%/'-]", raw) and "| Exported by | ana |" in raw  # reads cleanly as a file
    word = Document(io.BytesIO(wb.export(r.thread_id, "docx")))
    text = "\n".join(
        [p.text for p in word.paragraphs] + [c.text for t in word.tables for row in t.rows for c in row.cells]
    )
    codes = {d.deficiency_type.value for d in r.identified_deficiencies} | {"in_force", "no_open_deficiencies"}
    assert not [c for c in codes if "_" in c and (c in text or c in md)]
    assert not [p.text for p in word.paragraphs if re.match(r"\s*(#|- |\|)", p.text) or "**" in p.text]
    assert next(s for s in wb.sessions() if s.thread_id == r.thread_id).counts.struck == len(threshold)


def test_a_claim_struck_in_a_review_stays_out_of_the_revised_answer(workbench_factory: Factory) -> None:
    wb = workbench_factory()
    paused = wb.start(RU_QUESTION, as_of="2026-11-30", max_cycles=2)
    code, claim = next((code, c) for code, c in paused.answer.claims() if c.plan_item_ids)
    cid = claim_id(code, claim)
    decisions = {p["id"]: {"action": "approve"} for p in paused.pending_review["proposals"]}
    with pytest.raises(InputError, match="holds no claim C-0000000000"):
        wb.resume(
            paused.thread_id,
            {"cycle": 0, "decisions": decisions, "struck": [{"claim_id": "C-0000000000", "reason": "x"}]},
        )
    struck = [{"claim_id": cid, "reason": "not what the source says"}]
    r = wb.resume(paused.thread_id, {"cycle": 0, "decisions": decisions, "struck": struck, "reviewer": "ana"})
    assert len(r.evaluation_history) == 2  # the answer was revised after the review
    assert r.answer.find(cid) is None and claim.text not in r.current_answer
    assert [(s.id, s.reason, s.by) for s in r.answer.struck] == [(cid, "not what the source says", "ana")]
    act = next(a for a in r.human_acts if a.kind == "strike")
    assert (act.deficiency_id, act.actor, act.cycle) == (cid, "ana", 0) and verify_chain(r.audit_records)[0]
