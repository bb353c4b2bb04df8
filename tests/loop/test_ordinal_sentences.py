"""A sentence naming one of the things listed before it by its rank ("The second applies to ...") is quoted with
the sentence that counts them, never alone. Plain documents built here; the rules are illustrations."""

from datetime import date
from pathlib import Path

from core.domain.answer import render_markdown
from core.domain.plan import Aspect
from core.engines.offline.ranking import candidates
from core.engines.text import is_anaphoric
from tests.loop.plain_corpora import ask_plain, plain_doc, plan_plain

BAN = plain_doc("xy-widget-clause-ban", "XY: prohibition of widget clauses – exceptions", "XY", date(2021, 10, 25))
EXCEPTIONS = (
    "There are two exceptions to the widget clause ban. The first applies on the sale of a business, where the "
    "seller becomes an employee of the purchaser. The second applies to an employee who is an executive, meaning a "
    "person who holds the office of chief executive officer."
)


def test_the_second_of_two_exceptions_is_quoted_with_the_sentence_that_counts_them(tmp_path: Path) -> None:
    # "The second applies to an employee who is an executive" had been quoted alone: second of what?
    r = ask_plain(tmp_path, [(BAN, [EXCEPTIONS])], "Which exceptions to the XY widget clause ban cover an executive?")
    shown = render_markdown(r.answer)
    assert "The second applies" in shown
    line = next(line for line in shown.splitlines() if "The second applies" in line)
    assert line.startswith("There are two exceptions to the widget clause ban.")


def test_a_rank_before_a_noun_points_nowhere() -> None:
    assert is_anaphoric("The second applies to an employee who is an executive.")
    assert is_anaphoric("The latter is void.")
    assert not is_anaphoric("The second notice must be sent within 10 days.")
    assert not is_anaphoric("The former 2020 act set thresholds.")


def test_an_item_of_a_list_is_of_the_kind_the_list_names(tmp_path: Path) -> None:
    # asked whether executives are exempt, the exemption item had no candidate in "The second applies to an
    # employee who is an executive": the sentence says no "exempt" or "exception" itself, the one counting does
    text = (
        "Since 25 October 2021 an employer may not enter into a widget clause with an employee. There are two "
        "exceptions. The first applies on the sale of a business, where the seller becomes an employee of the "
        "purchaser. The second applies to an employee who is an executive, meaning a person who holds the office of "
        "chief executive officer."
    )
    plan, ctx = plan_plain(tmp_path, [(BAN, [text])], "Are executives exempt from the XY widget clause ban?")
    item = next(i for i in plan.items if i.aspect == Aspect.exemption)
    found = candidates(item, [(BAN.id, f"{BAN.id}#0", text, 1.0)], plan, ctx)
    second = next(c for c in found if "The second applies" in c.text)
    assert second.text.startswith("There are two exceptions.")
