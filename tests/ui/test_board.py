"""The paused Deficiency board: explicit decisions on proposals, only the analyst's status moves offered, a grid
that fits the screen, and staged edits kept on the server across a reload until resumed or discarded."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from core.service import RunResult, Workbench
from tests.ui.support import APP, open_session
from tests.ui.test_pages import BOARD, click, text
from ui.board import ROW_HEIGHT, board_rows
from ui.tables import HEADER_HEIGHT, MAX_GRID_HEIGHT, SCROLLBAR_HEIGHT, grid_height


def columns(app: AppTest) -> dict:
    return json.loads(app.dataframe[0].proto.columns)


def staged_board(q1_paused: RunResult) -> list[dict]:
    """The board with the first proposal dismissed and the others approved, and a severity raised."""
    rows = board_rows(q1_paused.identified_deficiencies)
    pending = [p["id"] for p in q1_paused.pending_review["proposals"]]
    for row in rows:
        if row["id"] in pending:
            row["decision"] = "dismissed" if row["id"] == pending[0] else "approve"
    rows[-1]["severity"] = "critical"
    return rows


def metric(app: AppTest, name: str) -> int:
    return int(next(m for m in app.metric if m.label == name).value)


def test_the_board_offers_only_analyst_moves_and_fits_the_screen(app: AppTest, q1_paused: RunResult) -> None:
    open_session(app, q1_paused.thread_id, BOARD)
    config = columns(app)
    assert config["decision"]["type_config"]["options"] == ["approve", "dismissed", "resolved", "open"]
    assert config["status"]["disabled"] is True and config["status"]["type_config"]["type"] == "text"
    assert config["type"]["required"] and config["severity"]["required"]  # no blank choice for an added row
    assert config["description"]["width"] >= 300 and app.dataframe[0].proto.row_height > 64  # wraps
    shown = list(app.dataframe[0].proto.column_order)
    assert shown[1:3] == ["type", "section"]  # what an added row needs, right after the pinned subject
    assert shown.index("description") < 5 and "origin" not in shown and "first seen" not in shown


def test_resume_waits_for_a_decision_on_every_proposal(app: AppTest, q1_paused: RunResult) -> None:
    n = len(q1_paused.pending_review["proposals"])
    open_session(app, q1_paused.thread_id, BOARD)
    assert all(v is None for v in app.dataframe[0].value["decision"])  # nothing preselected
    assert next(b for b in app.button if b.label == "Resume with these edits").disabled
    assert f"{n} of {n} proposals undecided" in text(app.caption)


def test_staged_edits_survive_a_reload_and_can_be_discarded(app: AppTest, wb: Workbench, q1_paused: RunResult) -> None:
    tid = q1_paused.thread_id
    open_session(app, tid, BOARD)
    assert wb.staged_edits(tid, "local") is None  # an untouched board stages nothing
    dismissed = metric(app, "dismissed")
    wb.stage_edits(tid, staged_board(q1_paused), "local", cycle=0)  # what an edit in the grid stages

    reloaded = open_session(AppTest.from_file(str(APP), default_timeout=60), tid, BOARD)
    assert "(not yet submitted)" in text(reloaded.caption) and "Staged edits from" in text(reloaded.caption)
    assert "Staged for the next resume" in text(reloaded.markdown)
    assert metric(reloaded, "dismissed") == dismissed + 1  # the counters include the staged edits
    assert not next(b for b in reloaded.button if b.label == "Resume with these edits").disabled
    click(reloaded, "Discard staged edits")
    assert wb.staged_edits(tid, "local") is None
    assert "not yet submitted" not in text(reloaded.caption)
    assert metric(reloaded, "dismissed") == dismissed


def test_resuming_from_the_board_applies_and_clears_the_staged_edits(
    app: AppTest, wb: Workbench, q1_paused: RunResult
) -> None:
    tid = q1_paused.thread_id
    first = q1_paused.pending_review["proposals"][0]["id"]
    wb.stage_edits(tid, staged_board(q1_paused), "local", cycle=0)
    open_session(app, tid, BOARD)
    click(app, "Resume with these edits")
    after = wb.show(tid)
    assert next(d for d in after.identified_deficiencies if d.id == first).resolution_status.value == "dismissed"
    assert wb.staged_edits(tid, "local") is None


def test_after_the_run_the_board_asks_to_confirm_an_added_deficiency_and_strikes_a_claim(
    app: AppTest, wb: Workbench, q1_paused: RunResult
) -> None:
    added = {
        "deficiency_type": "missing_exemption",
        "subject": "MSB agents",
        "description": "Agents of money service businesses are not covered",
        "suggested_correction_query": "money service business agents customer due diligence",
        "affected_section": "US",
    }
    decisions = {p["id"]: {"action": "approve"} for p in q1_paused.pending_review["proposals"]}
    tid = q1_paused.thread_id
    done = wb.resume(tid, {"cycle": 0, "decisions": decisions, "added": [added], "reviewer": "analyst"})
    while done.status == "awaiting_review":  # later reviews: approve what they propose, leave the confirmation
        proposals = {p["id"]: {"action": "approve"} for p in done.pending_review["proposals"]}
        done = wb.resume(tid, {"cycle": done.pending_review["cycle"], "decisions": proposals, "stop": not proposals})
    mine = next(d for d in done.identified_deficiencies if d.origin == "analyst")
    assert mine.resolution_status.value == "addressed" and done.outcome.counts.awaiting_confirmation == 1

    open_session(app, tid, BOARD)
    app.text_input(key=f"confirm-why-{mine.id}").input("the US section now names agents")
    click(app, "Resolved")
    assert not app.exception, app.exception
    confirmed = wb.show(tid)
    assert next(d for d in confirmed.identified_deficiencies if d.id == mine.id).resolution_status.value == "resolved"
    assert (confirmed.human_acts[-1].kind, confirmed.human_acts[-1].actor) == ("confirmation", "analyst")

    app.text_input(key=f"strike-why-{tid}").input("not asked")
    click(app, "Strike the claim")
    assert not app.exception, app.exception
    struck = wb.show(tid)
    assert len(struck.answer.struck) == 1 and struck.answer.struck[0].reason == "not asked"


def test_the_grid_is_sized_to_its_rows() -> None:
    """Every row shows (and the editor's add-row line under them), so a row added before a reload is not hidden
    below a fixed height."""
    assert grid_height(5) == HEADER_HEIGHT + 5 * ROW_HEIGHT + SCROLLBAR_HEIGHT
    assert grid_height(5, adding=True) == grid_height(6)
    assert grid_height(500) == MAX_GRID_HEIGHT


def fill_new_deficiency(app: AppTest, section: str, *, reason: str = "") -> AppTest:
    """Fill the "Add deficiency" form (type and section first) and press Add."""
    next(s for s in app.selectbox if s.label == "Type").set_value("insufficient_specificity")
    next(s for s in app.selectbox if s.label == "Section").set_value(section)
    next(t for t in app.text_input if t.label == "Subject").set_value("record keeping period")
    next(t for t in app.text_area if t.label == "Description").set_value("The answer omits how long records are kept.")
    next(t for t in app.text_input if t.label == "Correction query").set_value("record retention period")
    if reason:
        next(t for t in app.text_input if t.label == "Reason").set_value(reason)
    return click(app, "Add")


def test_add_deficiency_while_paused_stages_a_labelled_row(app: AppTest, wb: Workbench, q1_paused: RunResult) -> None:
    tid = q1_paused.thread_id
    open_session(app, tid, BOARD)
    rows = len(app.dataframe[0].value)
    section = q1_paused.plan.jurisdictions[0].code
    click(app, "Add")  # an empty form says what it needs
    assert "needs type, subject, section, description, correction query" in text(app.error)
    fill_new_deficiency(app, section)
    staged = wb.staged_edits(tid, "local", cycle=0)
    assert staged is not None and staged.rows[-1]["subject"] == "record keeping period"
    assert len(app.dataframe[0].value) == rows + 1  # the grid reloads from the staged rows
    summary = text(app.markdown)
    assert f"new deficiency: insufficient specificity in section {section} (medium): record keeping period" in summary
    assert "insufficient_specificity" not in summary
    assert (
        metric(app, "open") == sum(d.resolution_status.value == "open" for d in q1_paused.identified_deficiencies) + 1
    )


def test_add_deficiency_after_the_run_records_a_disclosed_residual(
    app: AppTest, wb: Workbench, q1_done: RunResult
) -> None:
    tid = q1_done.thread_id
    open_session(app, tid, BOARD)
    section = q1_done.plan.jurisdictions[0].code
    fill_new_deficiency(app, section)
    assert "say why you add it (reason)" in text(app.error)
    fill_new_deficiency(app, section, reason="found on a second read")
    after = wb.show(tid)
    added = next(d for d in after.identified_deficiencies if d.subject == "record keeping period")
    assert added.origin == "analyst" and added.resolution_status.value == "open"
    assert added in after.residual_deficiencies and after.evaluation_cycle == q1_done.evaluation_cycle  # no new loop
    act = after.human_acts[-1]
    assert (act.kind, act.deficiency_id, act.actor, act.reason) == (
        "added",
        added.id,
        "analyst",
        "found on a second read",
    )
    assert wb.verify_audit(tid)[0]
    assert added.id in wb.export(tid, "md").decode()
    assert "Recorded as a residual by analyst" in text(app.success)


def test_a_residual_is_added_once_and_only_to_a_finished_session(
    wb: Workbench, q1_done: RunResult, q1_paused: RunResult
) -> None:
    from core.domain.records import AnalystDeficiency
    from core.service import InputError

    new = AnalystDeficiency(
        deficiency_type="insufficient_specificity",
        subject="record keeping period",
        description="The answer omits how long records are kept.",
        suggested_correction_query="record retention period",
    )
    wb.add_residual(q1_done.thread_id, new, editor="ana", reason="second read")
    with pytest.raises(InputError, match="already holds"):
        wb.add_residual(q1_done.thread_id, new, editor="ana", reason="again")
    with pytest.raises(InputError, match="finished sessions"):
        wb.add_residual(q1_paused.thread_id, new, editor="ana", reason="second read")
    with pytest.raises(InputError, match="a reason"):
        wb.add_residual(q1_done.thread_id, new, editor="ana", reason=" ")
