"""Which documents are on the question's subject: a document that says what it does not regulate is not on that
subject for naming it, a place's code is no set of initials, and a count standing for places the question named is
no topic word. Plain documents built here; the rules are illustrations."""

from datetime import date
from pathlib import Path

from core.engines.offline.relevance import said_terms, topic_share
from tests.loop.plain_corpora import ask_plain, plain_doc

PAY_DIRECTIVE = plain_doc("xy-eu-pay-directive", "EU pay transparency directive summary", "EU", date(2023, 6, 6))
PAY_TEXT = (
    "The Directive concerns equal pay between women and men; it does not regulate post-employment widget clauses "
    "for engineers. Workers may request information on their pay level, and the employer must reply within two "
    "months. Employers with 250 or more workers must report on the pay gap every year."
)
WIDGET_LAW = plain_doc(
    "xy-de-widget-clauses", "Germany post-employment widget clause law summary", "DE", date(1990, 1, 1)
)
WIDGET_TEXT = (
    "A post-employment widget clause binds the worker only if the employer pays compensation of at least half of "
    "the last remuneration for each year of the restriction. The restriction may not extend beyond two years after "
    "the employment ends."
)


def test_a_wider_law_that_disclaims_the_subject_stays_out_beside_the_places_own(tmp_path: Path) -> None:
    # asked about non-competes in Germany, the answer quoted an EU pay transparency directive (seven sentences on
    # pay gaps) because its one sentence saying it does not regulate non-competes named the subject, and the
    # directive's "EU" read as the initials of "engineer use"
    r = ask_plain(
        tmp_path,
        [(PAY_DIRECTIVE, [PAY_TEXT]), (WIDGET_LAW, [WIDGET_TEXT])],
        "Can we use a 12-month post-employment widget clause for engineers in Germany, and what must we pay while "
        "the restriction runs?",
    )
    cited = {q.doc_id for _, c in r.answer.claims() for q in c.citations}
    assert "xy-de-widget-clauses" in cited and "xy-eu-pay-directive" not in cited
    assert "at least half" in r.answer.body_text()
    assert topic_share(r.plan, PAY_TEXT) < topic_share(r.plan, WIDGET_TEXT)


def test_a_place_code_or_a_lower_case_word_is_no_set_of_initials() -> None:
    order = ["senior", "engineer", "use", "customer", "due", "diligence"]
    assert said_terms(set(order), "The EU rules set out what applies.", order) == set()
    assert said_terms(set(order), "Banks apply CDD to every new customer.", order) == {"customer", "due", "diligence"}


def test_a_count_standing_for_the_places_named_is_no_topic_word(tmp_path: Path) -> None:
    r = ask_plain(
        tmp_path,
        [(WIDGET_LAW, [WIDGET_TEXT])],
        "We use widget clauses in Germany, France and Spain. For each of the three, how long may the restriction last?",
    )
    assert "three" not in r.plan.topic_terms and "widget" in r.plan.topic_terms


def test_a_place_named_twice_and_the_asker_as_us_are_no_topic_words(tmp_path: Path) -> None:
    # "A German wholesaler that buys from us ... a business debtor in Germany": "germany" and "us" were topic words
    # that only the German act states, so the EU directive it transposes fell below the share a wider law needs
    # beside the place's own and its 60-day limit was left out
    directive = plain_doc("xy-eu-late-payment", "EU late payment directive summary", "EU", date(2011, 2, 16))
    german = plain_doc("xy-de-payment-default", "Germany payment default rules summary", "DE", date(2014, 7, 29))
    corpus = [
        (
            directive,
            [
                "A contractual payment period between undertakings must not exceed 60 calendar days, unless a longer "
                "period is expressly agreed and is not grossly unfair to the creditor. Where the contract sets no "
                "payment date, a business debtor is in default 30 days after receipt of the invoice, and the "
                "creditor is entitled to interest for late payment without any reminder."
            ],
        ),
        (
            german,
            [
                "Germany transposed the directive in its civil code. In Germany a business debtor is in default 30 "
                "days after receiving an invoice, without any reminder. The default interest between businesses is "
                "nine percentage points above the base rate that the Bundesbank publishes. The creditor may add a "
                "lump sum of EUR 40. Many suppliers in Germany sell to us on these terms."
            ],
        ),
    ]
    r = ask_plain(
        tmp_path,
        corpus,
        "A German wholesaler that buys from us has not paid our invoice and we sent no reminder. When is it in "
        "default, what interest and lump sum can we charge a business debtor in Germany, and who publishes the base "
        "rate? Could it have insisted on a payment period of more than 60 days?",
    )
    assert "germany" not in r.plan.topic_terms and "us" not in r.plan.topic_terms
    cited = {q.doc_id for _, c in r.answer.claims() for q in c.citations}
    assert {"xy-de-payment-default", "xy-eu-late-payment"} <= cited


def test_two_words_a_whole_corpus_shares_do_not_bring_in_another_subject(tmp_path: Path) -> None:
    # asked whether a small German firm must issue structured electronic invoices, the answer quoted a late payment
    # act's "a business debtor is in default at the latest 30 days after ... receipt of the invoice": "business" and
    # "invoice" are in every document of an invoicing corpus, and the act states few of the question's other words
    e_invoicing = plain_doc(
        "xy-de-structured-widget-invoices", "Germany structured widget invoices", "DE", date(2025, 1, 1)
    )
    late_payment = plain_doc(
        "xy-de-late-widget-payment", "Germany late payment of widget debts", "DE", date(2014, 7, 29)
    )
    r = ask_plain(
        tmp_path,
        [
            (
                e_invoicing,
                [
                    "From 1 January 2027 a business whose turnover in the previous year exceeded EUR 800,000 must issue "
                    "structured electronic invoices to domestic business customers. Until 31 December 2027 a small "
                    "business may still issue paper invoices. From 1 January 2028 every business established in "
                    "Germany must issue structured electronic invoices."
                ],
            ),
            (
                late_payment,
                [
                    "A debtor is in default 30 days after the due date. Where the time of receipt of the invoice is "
                    "uncertain, a business debtor is in default at the latest 30 days after receipt of the goods."
                ],
            ),
        ],
        "A small trading company with a turnover of EUR 500,000 sells to domestic business customers. By when must it "
        "issue structured electronic invoices if it is established in Germany?",
    )
    cited = {q.doc_id for _, c in r.answer.claims() for q in c.citations}
    assert "xy-de-structured-widget-invoices" in cited and "xy-de-late-widget-payment" not in cited
