"""The review: one interrupt per cycle with the open deficiencies' proposed corrections. The approval policy
decides some or all without a person; the analyst's answer (decisions, board edits, added rows, stop) becomes
deficiency updates through the lifecycle table, audit records and one `Send` per approved correction."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Command, Send, interrupt

from core.domain.answer import Answer, strike
from core.domain.audit import added_act, chain_head, decision_act, review_acts, sealed_acts, strike_act
from core.domain.clock import utc_now
from core.domain.deficiencies import Event, allowed, apply, awaiting_confirmation, open_ones
from core.domain.records import (
    AnalystDeficiency,
    ApprovalPolicy,
    DecisionRecord,
    Deficiency,
    HumanActRecord,
    ResolutionStatus,
    ReviewDecision,
    ReviewResponse,
)
from core.domain.stop_reasons import STOPPED_BY_ANALYST
from core.loop.deps import Deps, rendered
from core.loop.state import WorkbenchState


def review(state: WorkbenchState, runtime: Runtime[Deps]) -> Command:
    """Pause for the analyst on the proposals the approval policy leaves and on the deficiencies they added whose
    correction ran (is each resolved?), then route to the corrections (or to finalize when nothing is to be
    corrected or the analyst stopped)."""
    cycle = state.get("evaluation_cycle", 0)
    waiting_on = open_ones(state.get("identified_deficiencies", []))
    auto = policy_decisions(waiting_on, ApprovalPolicy.parse(state.get("approval_policy")))
    pending = [d for d in waiting_on if d.id not in auto]
    to_confirm = awaiting_confirmation(state.get("identified_deficiencies", []))
    response = ReviewResponse()
    if pending or to_confirm:
        response = ReviewResponse.parse(
            interrupt(
                {
                    "cycle": cycle,
                    "proposals": [proposal(d) for d in pending],
                    "confirmations": [proposal(d) for d in to_confirm],
                    "auto_decided": {k: v.action for k, v in auto.items()},
                    "answer": state.get("current_answer", ""),
                }
            )
        )
    return apply_review(state, cycle, pending, auto, response, runtime.context.settings.unresolvable_after)


def policy_decisions(waiting_on: list[Deficiency], policy: ApprovalPolicy) -> dict[str, ReviewDecision]:
    """The proposals the approval policy decides without a person."""
    auto: dict[str, ReviewDecision] = {}
    for d in waiting_on:
        if policy.mode == "all" or (
            policy.mode == "severity"
            and policy.min_severity is not None
            and d.severity.rank >= policy.min_severity.rank
        ):
            auto[d.id] = ReviewDecision(action="approve", note=f"auto-approved by policy {policy}")
        elif policy.mode == "none":
            auto[d.id] = ReviewDecision(action="reject", note=f"auto-rejected by policy {policy}")
    return auto


def proposal(d: Deficiency) -> dict[str, Any]:
    """The JSON form of one proposed correction in the review interrupt."""
    return {
        "id": d.id,
        "deficiency_type": d.deficiency_type.value,
        "subject": d.subject,
        "description": d.description,
        "severity": d.severity.value,
        "query": d.suggested_correction_query,
        "section": d.affected_section,
        "attempts": d.resolution_attempt_count,
    }


def apply_review(
    state: WorkbenchState,
    cycle: int,
    pending: list[Deficiency],
    auto: dict[str, ReviewDecision],
    response: ReviewResponse,
    unresolvable_after: int,
) -> Command:
    """Turn decisions into deficiency updates, audit records and one `Send` per approved correction. A person's
    decisions, the fields they change (old -> new) and the rows they add are human acts, chained at once (a review
    that ends the loop is followed by no cycle record).

    A rejection moves a deficiency through the lifecycle table (`Event.rejected`) wherever the table allows it,
    and so do the analyst's confirmation of a deficiency they added (`confirm`: resolved; `reopen`: open again, its
    correction retried): the board offers exactly those moves (core.domain.deficiencies.analyst_choices)."""
    by_id = {d.id: d for d in state.get("identified_deficiencies", [])}
    head = chain_head([*state.get("evaluation_history", []), *state.get("human_acts", [])])
    at = utc_now()
    if response.stop:
        stops = [DecisionRecord(deficiency_id=d.id, action="stop", decided_by=response.reviewer) for d in pending]
        stop_acts = [decision_act(d.id, "stop", "", response.reviewer, cycle, at) for d in pending]
        stopped: dict[str, Any] = {"evaluation_termination_reason": STOPPED_BY_ANALYST, "pending_decisions": stops}
        if response.struck:
            answer, struck_acts = _struck(state, response, cycle, at)
            stop_acts += struck_acts
            stopped["answer"] = answer
        return Command(goto="finalize", update={**stopped, "human_acts": sealed_acts(stop_acts, head)})
    decisions = _decisions(by_id, pending, auto, response)
    records: list[DecisionRecord] = []
    acts: list[HumanActRecord] = []
    updates: list[Deficiency] = []
    sends: list[Send] = []
    for did, (dec, automatic) in decisions.items():
        d = _edited(by_id[did], dec)
        records.append(
            DecisionRecord(
                deficiency_id=did,
                action=dec.action,
                query=dec.query,
                note=dec.note,
                decided_by="policy" if automatic else response.reviewer,
                automatic=automatic,
            )
        )
        if dec.action == "reject":
            d = apply(d, Event.rejected, unresolvable_after) if allowed(d.resolution_status, Event.rejected) else d
        elif dec.action == "confirm":
            d = apply(d, Event.confirmed, unresolvable_after)
        elif dec.action == "reopen":
            d = apply(d, Event.not_confirmed, unresolvable_after)
        if dec.action in ("approve", "edit", "reopen") and d.resolution_status == ResolutionStatus.open:
            query = dec.query or d.suggested_correction_query
            d = d.model_copy(update={"suggested_correction_query": query})
            sends.append(Send("correct", {"deficiency": d, "query": query, "cycle": cycle, "plan": state.get("plan")}))
        updates.append(d)
        if not automatic:
            acts += review_acts(by_id[did], d, dec, response.reviewer, cycle, at)
    for added in response.added:
        d = analyst_deficiency(added, cycle)
        records.append(
            DecisionRecord(
                deficiency_id=d.id,
                action="add",
                query=d.suggested_correction_query,
                note=added.note,
                decided_by=response.reviewer,
            )
        )
        acts.append(added_act(d, added.note, response.reviewer, cycle, at))
        updates.append(d)
        sends.append(Send("correct", {"deficiency": d, "query": d.suggested_correction_query, "cycle": cycle}))
    update: dict[str, Any] = {"identified_deficiencies": updates, "pending_decisions": records}
    if response.struck:
        answer, struck_acts = _struck(state, response, cycle, at)
        acts += struck_acts
        update |= {"answer": answer, "current_answer": rendered(answer, state.get("plan"), state.get("citations", []))}
    update["human_acts"] = sealed_acts(acts, head)
    return Command(goto=sends or "finalize", update=update)


def _struck(
    state: WorkbenchState, response: ReviewResponse, cycle: int, at: str
) -> tuple[Answer, list[HumanActRecord]]:
    """The answer with the claims the review strikes taken out (plan items left unanswered become gaps; the
    revision keeps them out), and one human act per struck claim."""
    answer = state.get("answer") or Answer()
    acts = []
    for request in response.struck:
        found = answer.find(request.claim_id)
        if found is None:  # struck twice in one review
            continue
        answer = strike(answer, state.get("plan"), request.claim_id, request.reason, response.reviewer, at)
        acts.append(strike_act(request.claim_id, found[1].text, found[0], response.reviewer, request.reason, cycle))
    return answer, acts


def _decisions(
    by_id: dict[str, Deficiency], pending: list[Deficiency], auto: dict[str, ReviewDecision], response: ReviewResponse
) -> dict[str, tuple[ReviewDecision, bool]]:
    """Every decision of this review with whether the policy made it: the policy's, the analyst's on each
    proposal (an undecided proposal is rejected and not retried), and the board's edits of other deficiencies
    (not of resolved ones)."""
    decisions: dict[str, tuple[ReviewDecision, bool]] = {k: (v, True) for k, v in auto.items()}
    for d in pending:
        given = response.decisions.get(d.id)
        undecided = ReviewDecision(action="reject", note="no decision given in the review; not retried")
        decisions[d.id] = (given or undecided, False)
    for did, given in response.decisions.items():
        if did in by_id and did not in decisions and by_id[did].resolution_status != ResolutionStatus.resolved:
            decisions[did] = (given, False)
    return decisions


def _edited(d: Deficiency, dec: ReviewDecision) -> Deficiency:
    """The deficiency with the severity and note a decision sets."""
    if dec.severity is not None:
        d = d.model_copy(update={"severity": dec.severity})
    if dec.note:
        d = d.model_copy(update={"analyst_note": dec.note})
    return d


def analyst_deficiency(added: AnalystDeficiency, cycle: int) -> Deficiency:
    """A board-added deficiency as a full Deficiency with origin `analyst`."""
    return Deficiency(
        deficiency_type=added.deficiency_type,
        subject=added.subject,
        description=added.description,
        suggested_correction_query=added.suggested_correction_query,
        severity=added.severity,
        identified_at_cycle=cycle,
        origin="analyst",
        analyst_note=added.note,
        affected_section=added.affected_section,
    )
