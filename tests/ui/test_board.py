"""The paused Deficiency board: explicit decisions on proposals, only the analyst's status moves offered, a grid
that fits the screen, and staged edits kept on the server across a reload until resumed or discarded."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from core.service import RunResult, Workbench
from tests.ui.support import APP, open_session
from tests.ui.test_pages import BOARD, click, text
from ui.board import board_rows


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
    assert shown.index("description") < 4 and "origin" not in shown and "first seen" not in shown


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
