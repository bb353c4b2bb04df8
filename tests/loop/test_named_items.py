"""A name the plan could not place ("the IRP") that the answer states is answered: no deficiency is raised for it,
so it does not count against the score either (an answer had ended "No problem was found" at 0.57). Plain documents
built here; the rules are illustrations."""

from datetime import date
from pathlib import Path

from tests.loop.plain_corpora import ask_plain, plain_doc


def test_an_unplaced_name_the_answer_states_counts_as_answered(tmp_path: Path) -> None:
    act = plain_doc("xy-widget-reporting", "XY: widget reporting", "XY", date(2023, 5, 1))
    text = (
        "Widget makers must report each widget invoice to the WRP within 30 days of the invoice date; the portal "
        "rejects older reports."
    )
    r = ask_plain(
        tmp_path, [(act, [text])], "Within how many days must a widget maker in XY report an invoice to the WRP?"
    )
    named = [i for i in r.plan.items if i.id.startswith("named:")]
    assert named and not r.residual_deficiencies
    assert "within 30 days" in r.answer.body_text()
    assert r.quality_score == 1.0
