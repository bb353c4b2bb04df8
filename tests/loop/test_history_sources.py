"""A superseded act the question names is context, not the answer: what its rules were goes into the answer only
beside what the rules in force say. Plain documents built here; the rules are illustrations."""

from datetime import date
from pathlib import Path

from core.domain.answer import render_markdown
from tests.loop.plain_corpora import ask_plain, plain_doc

OLD = plain_doc(
    "xy-safety-directive-2001",
    "XY general safety directive 2001/95 summary",
    "XY",
    date(2004, 1, 15),
    status="superseded",
    superseded_by=("xy-safety-regulation-2023",),
)
NEW = plain_doc("xy-safety-regulation-2023", "XY general safety regulation 2023/988 summary", "XY", date(2024, 12, 13))
OLD_DUTIES = [
    "Producers who knew that a product posed risks had to immediately inform the competent authorities.",
    "Producers were obliged to place only safe products on the market.",
    "The Directive contained no separate duty to report individual accidents.",
    "Recall was treated as a last resort where other action was not sufficient.",
    "The Directive was repealed by the Regulation 2023/988 with effect from 13 December 2024.",
]
NOTIFY = (
    "Manufacturers must notify dangerous products to the competent authorities through the Safety Business Gateway."
)


def test_the_old_act_named_in_the_question_does_not_crowd_out_the_rule_in_force(tmp_path: Path) -> None:
    r = ask_plain(
        tmp_path,
        [(OLD, [" ".join(OLD_DUTIES)]), (NEW, [NOTIFY])],
        "Our safety manual says that under Directive 2001/95 we must immediately inform the competent authorities when "
        "a product is dangerous, that recall is a last resort, and that we have no duty to report individual "
        "accidents. Is that manual still based on current XY law? If not, what replaced the Directive, and how do "
        "we now notify the authorities?",
    )
    # the old act's duties (named in the question) had taken four sentences of the obligation item, beside the
    # one rule in force; now one of them, and the sentence stating its repeal
    shown = render_markdown(r.answer)
    assert NOTIFY in shown
    assert shown.count("History:") <= 2
    assert "repealed by the Regulation 2023/988" in shown


def test_an_old_act_is_said_to_have_ended_by_its_own_repeal_not_by_the_act_it_replaced(tmp_path: Path) -> None:
    # "Is it still current?" had been answered "No." quoting "It replaced Directive 92/59", the end of another act
    replaced = (
        "Directive 2001/95 set the general safety framework for consumer products. It replaced Directive 92/59, and "
        "Member States applied it from 15 January 2004."
    )
    r = ask_plain(
        tmp_path,
        [(OLD, [replaced, " ".join(OLD_DUTIES)]), (NEW, [NOTIFY])],
        "Is Directive 2001/95 still the current XY law on product safety?",
    )
    assert r.answer.verdict is not None
    assert r.answer.verdict.text.startswith("No.")
    assert "repealed by the Regulation 2023/988" in r.answer.verdict.text
    assert "It replaced Directive 92/59" not in r.answer.verdict.text


LEAVE_OLD = plain_doc(
    "xy-leave-directive-2010",
    "XY: widget leave directive 2010/18 – four months of widget leave, one of them non-transferable",
    "XY",
    date(2010, 3, 8),
    status="superseded",
    superseded_by=("xy-work-life-directive-2019",),
)
LEAVE_NEW = plain_doc(
    "xy-work-life-directive-2019",
    "XY: work-life directive 2019/1158 – ten days of paternity leave, four months of widget leave",
    "XY",
    date(2019, 8, 1),
)
LEAVE_OLD_TEXT = "Each parent has four months of widget leave, of which one month is non-transferable."
LEAVE_NEW_TEXT = (
    "Each parent has four months of widget leave, of which two months are non-transferable and paid. Member States "
    "had to apply it by 2 August 2022. It repealed Directive 2010/18 with effect from 2 August 2022. Maternity leave "
    "remains governed by Directive 92/85/EEC."
)


def test_an_old_act_named_by_its_year_is_said_to_have_ended_though_its_successor_answers_for_it(
    tmp_path: Path,
) -> None:
    # "Our policy is still based on the EU parental leave directive of 2010 ... Is that still an accurate statement
    # of the EU minimum?" got no verdict: the superseded act was not retrieved (its successor answers for it)
    r = ask_plain(
        tmp_path,
        [(LEAVE_OLD, [LEAVE_OLD_TEXT]), (LEAVE_NEW, [LEAVE_NEW_TEXT])],
        "Our leave policy is still based on the XY widget leave directive of 2010: each parent gets four months, one "
        "of them non-transferable. Is that still an accurate statement of the XY minimum?",
    )
    verdict = r.answer.verdict
    assert verdict is not None and verdict.text.startswith("No."), verdict
    assert "It repealed Directive 2010/18" in verdict.text
    # what another act governs is not what the repealed one still governs
    assert "92/85/EEC" not in verdict.text
