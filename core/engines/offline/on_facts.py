"""A yes or no on a measure a question gives of its own subject: a headcount ("Our Irish subsidiary has 120
employees. Does it need an internal channel?") or an amount ("Our group has a turnover of GBP 50 million. Must it
publish a statement?"): the fact patterns the rule engine applies a rule to, because the rule states them as a
bound ("employers with 50 or more employees must ...", "a total turnover of not less than GBP 36 million") and
nothing else decides it. Only a Yes: a measure outside one rule's bound does not show that no other rule applies
(a sector covered "regardless of the number of workers"), so that case stays disclosed as open, as do facts of any
other kind."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from functools import partial

from core.domain.answer import Claim, counted_verdict, open_part
from core.domain.figures import (
    WORD_COUNT,
    Figure,
    TimedPeriod,
    blanked,
    counted_bounds,
    counted_nouns,
    counts,
    dates,
    figures,
    period_lengths,
    period_sides,
    timed_periods,
    within,
)
from core.domain.gazetteer import occurrences, same_jurisdiction
from core.domain.plan import PlanItem, ResearchPlan
from core.engines.base import EngineContext
from core.engines.offline.ranking import DUTY, Candidate
from core.engines.offline.sources import NEGATION, YEAR
from core.engines.text import (
    STOPWORDS,
    WH_PART,
    facts_set_out,
    questions_on_facts,
    same_sentence,
    sentences,
    term_set,
    terms,
    yes_no_sentence,
)

HEADCOUNT = term_set("employee employees worker workers staff person persons people employed personnel")
"""Nouns that count the people a business employs: "120 employees" is measured against "50 or more workers"."""
COVERS = re.compile(r"\bappl(?:y|ies|ied) to\b", re.I)
"""Wording by which a rule covers whoever its count admits (`DUTY`: binds them)."""
ASKED_OF = re.compile(
    r"^\W*(?:must|does|do|did|is|are|has|have|can|could|should|will|would|may|need|shall)\s+"
    r"(?:(?P<back>it|we|they|our|its|their)|(?:the|this|that)\s+(?P<noun>[\w-]+))\b",
    re.I,
)
"""The subject a yes/no part asks about when it refers back to facts set out before it: a pronoun ("Does it
need ...?", "Do we have to ...?") or a definite noun ("Must the company ...?")."""
APPLIES_BACK = re.compile(r"\bappl(?:y|ies)\s+to\s+(?:us|it|them)\b", re.I)
"""A rule asked of the subject the facts set out, named back as its object ("Does the act apply to us?")."""
ASKS_DUTY = re.compile(
    r"\b(?:must|needs?|(?:has|have) to|required|obliged|subject to|covered|caught|appl(?:y|ies)|requires?)\b", re.I
)
"""A yes/no part asking whether a rule binds or covers its subject: the question a rule's count answers Yes."""
ASKS_OTHERWISE = re.compile(
    r"\b(?:exempt\w*|allowed|permitted|free|can|could|may|refus\w*|skip\w*|avoid\w*|outside|escap\w*|not|never|"
    r"without|instead|excused|spared)\b",
    re.I,
)
"""Wording by which a yes/no part asks the reverse or something else ("Is it exempt from ...?", "Can it refuse to
...?", "Is it free to skip ...?"): a rule that binds the subject answers that No, or not at all."""


def _asked_of_subject(question: str, states_measure: Callable[[str], bool]) -> bool:
    """Whether the question's yes/no asks whether a rule binds or covers the subject the facts measure: it states
    the measure itself (`states_measure` of the yes/no sentence), or refers back to the subject by a pronoun or a
    definite noun the facts use, and asks a duty, not the reverse ("Is it exempt from ...?")."""
    asked = WH_PART.split(yes_no_sentence(question) or question, maxsplit=1)[0]  # "..., and what fine ...?" aside
    if not ASKS_DUTY.search(asked) or ASKS_OTHERWISE.search(asked):
        return False
    if states_measure(asked):
        return True
    m = ASKED_OF.match(asked)
    before = question[: question.find(asked)] if asked in question else ""
    return bool(m and (m.group("back") or term_set(m.group("noun")) & term_set(before))) or bool(
        before and APPLIES_BACK.search(asked)
    )


def headcount(question: str) -> tuple[float, str] | None:
    """The one headcount the question gives of the subject its yes or no asks about, with its noun; None when it
    gives none or several, when the yes/no part asks about someone else ("A French company has 80 employees.
    Must a whistleblower report internally ...?" asks nothing of the company), or asks anything but whether a
    rule binds or covers the subject ("Is it exempt from ...?")."""
    found = {(n, noun) for n, noun in counted_nouns(question) if term_set(noun) & HEADCOUNT}
    if len({n for n, _ in found}) != 1:
        return None
    return next(iter(found)) if _asked_of_subject(question, lambda asked: bool(counted_nouns(asked))) else None


MEETS_ASKED = re.compile(
    r"\b(?:meet|meets|satisf\w*|compl(?:y|ies)|enough|suffic\w*|suffice|in time|on time|too (?:late|short|soon|early))\b",
    re.I,
)
"""A yes/no asking whether a period the question gives meets a rule's ("Would 14 days meet the minimum disclosure
period?", "Were we in time?")."""
RELATION = {
    "before": "before",
    "prior": "before",
    "after": "after",
    "of": "after",
    "from": "after",
    "following": "after",
}
"""The words after a period that say what it is counted from: before an event, or after (of, from) one."""


def own_period(question: str) -> TimedPeriod | None:
    """The one period the question gives of its own act ("our candidates receive the package exactly 14 days before
    signing") when its yes/no asks whether it meets a rule's (`MEETS_ASKED`), with what it is counted from (the
    first `RELATION` it is stated with); None when it gives none, several, a bound of its own, or never says from
    what it runs."""
    asked = yes_no_sentence(question)
    if not asked or not MEETS_ASKED.search(asked):
        return None
    found = timed_periods(question)
    if not found or any(p.side for p in found) or len({(p.low, p.high, p.counted) for p in found}) != 1:
        return None
    counted_from = [p for p in found if p.then in RELATION]
    if not counted_from:
        return None
    first = counted_from[0]
    return first._replace(then=RELATION[first.then], event=" ".join(p.event for p in counted_from))


TENURE = re.compile(
    rf"\b(?:employed|worked|been with|been employed)\b[^.?!]{{0,60}}?\bfor\s+"
    rf"(?P<length>(?:\d+|{WORD_COUNT})\s+(?:years?|months?))\b",
    re.I,
)
"""How long the facts say someone has been employed ("Our shop has employed Maria for six years")."""
ENTITLED = re.compile(r"\bentitled to\b", re.I)
"""A yes/no or a rule on what someone is entitled to ("Is she entitled to three weeks of vacation?")."""


def own_tenure(question: str) -> tuple[float, str] | None:
    """The one length of service the facts set out (in years, with its wording: "six years") when the yes/no asks
    whether the person is entitled to a period it names ("Is she entitled to three weeks of vacation?"); None
    otherwise."""
    found = list(TENURE.finditer(facts_set_out(question)))
    asked = yes_no_sentence(question)
    if len(found) != 1 or not asked or not ENTITLED.search(asked) or not period_lengths(WH_PART.split(asked)[0]):
        return None
    lengths = period_lengths(found[0].group("length"))
    if len(lengths) != 1:
        return None
    n, unit = next(iter(lengths))
    return (n if unit == "year" else n / 12), found[0].group("length")


def _service_bounds(sentence: str) -> list[tuple[float, float]]:
    """The bounds a rule sets on years of service ("five or more years of employment", "less than five years")."""
    out = [(lo, hi) for lo, hi, noun in counted_bounds(sentence) if noun.lower().startswith("year")]
    out += [
        (-math.inf, n) if side == "below" else (n, math.inf)
        for n, unit, side in period_sides(sentence)
        if unit == "year"
    ]
    return out


EVENT_PREFIX = 3
"""Letters two words share to name one event ("signing" and "signed", "paying" and "payment")."""


MAKING_A_CONTRACT = re.compile(r"^(?:sign|conclu|enter|execut)", re.I)
"""English verbs for making a contract ("signing", "the agreement is concluded", "enters into a franchise
agreement", "executed"): one event, whichever the question and the rule use."""


def _event_words(text: str) -> set[str]:
    """The words naming an event, each by its first letters; a verb for making a contract by that event."""
    return {
        "<contract made>" if MAKING_A_CONTRACT.match(w) else w[:EVENT_PREFIX]
        for w in terms(text)
        if w not in STOPWORDS and len(w) >= EVENT_PREFIX
    }


def _same_event(a: str, b: str) -> bool:
    """Whether two periods are counted from the same event: the words after "before" or "after" share one."""
    return bool(_event_words(a) & _event_words(b))


def _counted_alike(period: TimedPeriod, other: TimedPeriod) -> bool:
    """Whether another period is counted from the same side of the same event as the question's."""
    return RELATION.get(other.then) == period.then and _same_event(period.event, other.event)


def _bounding(period: TimedPeriod, sentence: str) -> list[TimedPeriod]:
    """The periods the sentence bounds that are counted from the same event as the question's."""
    return [b for b in timed_periods(sentence) if b.side and _counted_alike(period, b)]


def _lengths_alike(period: TimedPeriod, pool: Sequence[Candidate]) -> set[tuple[float, float, bool]]:
    """The lengths of the periods, bounded or not, that the sentences count from the same side of the same event as
    the question's ("ten business days before the signing", "at least 7 calendar days before signing")."""
    return {(b.low, b.high, b.counted) for c in pool for b in timed_periods(c.text) if _counted_alike(period, b)}


def _meets(period: TimedPeriod, bounding: Sequence[TimedPeriod]) -> str | None:
    """ "Yes" or "No": whether the period meets the one bound a sentence sets on a period counted from the same
    kind of event (`bounding`, see `_bounding`: a minimum "at least 20 days before" or a limit "within 72 hours
    of"); None when it sets none, several, one in business days where the question's is not (or the reverse), or
    one the period matches only within a unit's spread ("one month" for 30 days)."""
    bounds = {(b.low, b.high, b.side, b.counted) for b in bounding}
    if len(bounds) != 1:
        return None
    low, high, side, counted = next(iter(bounds))
    if counted != period.counted:
        return None
    if side == "above":
        return "Yes" if period.low >= high else "No" if period.high < low else None
    return "Yes" if period.high <= low else "No" if period.low > high else None


MEASURE_LEAD = re.compile(r"\b(?:a|an|the|has|have|had|having|with|its|their|our|whose|and|is|are)\s", re.I)
"""Words that end the run before what an amount measures ("has a | total turnover of", "with | gross receipts of")."""


def _measure_phrase(text: str, figure: Figure) -> str:
    """The words just before an amount that say what it measures ("total turnover of")."""
    window = text[max(0, figure.start - 60) : figure.start]
    leads = list(MEASURE_LEAD.finditer(window))
    return " ".join(window[leads[-1].end() if leads else 0 :].split())


def _measured(text: str, figure: Figure) -> str | None:
    """The head word of what an amount measures ("turnover" in "a total turnover of"; "total" in "a balance sheet
    total of")."""
    words = [w for w in terms(_measure_phrase(text, figure)) if w not in STOPWORDS]
    return words[-1] if words else None


def own_amount(question: str) -> tuple[Figure, str, str] | None:
    """The one amount the question gives of the subject its yes or no asks about ("Our group has a turnover of GBP
    50 million."), with the head word of what it measures and its wording; None when it gives none, several, a
    bound ("more than GBP 50 million") or a share, or when the yes/no asks something else of it."""
    found = [f for f in figures(question) if f.unit != "percent"]
    if len(found) != 1 or found[0].comparator is not None:
        return None
    amount = found[0]
    measured = _measured(question, amount)
    said = f"{_measure_phrase(question, amount)} {amount.text}"
    if not measured or not _asked_of_subject(question, lambda asked: amount.text in asked):
        return None
    return amount, measured, said


def _amount_bounds(sentence: str, amount: Figure, measured: str) -> list[Figure]:
    """The sentence's bounds in the amount's unit on what the question's amount measures (the same head word
    before each: "a total turnover of not less than GBP 36 million" for "a turnover of GBP 50 million")."""
    return [
        f
        for f in figures(sentence)
        if f.unit == amount.unit and f.comparator is not None and _measured(sentence, f) == measured
    ]


def _counts_people(noun: str, sentence: str) -> bool:
    """Whether a bounded count's noun, or the noun after it when it is a modifier ("250 or more relevant
    employees"), counts people employed."""
    if term_set(noun) & HEADCOUNT:
        return True
    after = re.search(rf"\b{re.escape(noun)}\s+([a-z-]+)", sentence, re.I)
    return bool(after and term_set(after.group(1)) & HEADCOUNT)


DATED_LEAD = r"^\W*(?:(?:from|since|as of|with effect from)\s+[^,]{3,30}?,?\s+)?"
"""The date a rule sentence may open with before naming its duty ("From 1 January 2024 the threshold ...")."""
THE_DUTY = re.compile(
    rf"{DATED_LEAD}(?:the|this|that|these|those)\s+(?:duty|duties|obligations?|requirements?|rules?|thresholds?)\b",
    re.I,
)
"""A rule sentence naming its duty or threshold by reference to a sentence before it ("The duty applies to a
commercial organisation ... with a total turnover of not less than GBP 36 million.", "From 1 January 2024 the
threshold fell to at least 1,000 employees in Germany.")."""


NAMES_DUTY = re.compile(rf"{DATED_LEAD}(?:the|this|that)\s+(?:duty|obligation|requirement)\b", re.I)
"""A sentence on "the duty" binds whom its bounds admit ("The duty was phased in by employer size: employers with
250 or more employees from 2022, ...")."""


def _without_figures(sentence: str) -> str:
    """The sentence without its figures and their comparator words: "not less than GBP 36 million" negates
    nothing."""
    return blanked(sentence, ((f.start, f.end) for f in figures(sentence)))


REFERRED_WITHIN = 3
"""Sentences before one naming "the duty" where the duty it refers to may be stated."""


def referred(c: Candidate, ctx: EngineContext) -> list[str]:
    """The REFERRED_WITHIN sentences of its document before a sentence that names its duty or threshold by
    reference (`THE_DUTY`): where that duty is stated. Empty for any other sentence."""
    if not THE_DUTY.match(c.text):
        return []
    sents = sentences(ctx.doc_text(c.doc_id))
    first = c.quotes[0].quote
    at = next((i for i, s in enumerate(sents) if same_sentence(s, first)), 0)
    return sents[max(0, at - REFERRED_WITHIN) : at]


def on_measure(
    item: PlanItem,
    plan: ResearchPlan,
    pool: Sequence[Candidate],
    speaks: Callable[[Candidate, str], bool],
    ctx: EngineContext,
    named: Sequence[str] = (),
) -> Claim | None:
    """ "Yes, for the 120 employees the question states: <rule>" from the best sentence (a named place's first) that
    speaks to the question (`speaks`), binds or covers a headcount or an amount whose bound admits the question's,
    and states nothing else the facts would have to meet: no negation or limit ("only", "exempt"), no other figure,
    no date or year after the as-of date, not history. Asked of places answered from different laws, one verdict
    per place ("IE: Yes, ... GB: Open: ..."). None otherwise."""
    count, amount = headcount(plan.question), own_amount(plan.question)
    period = own_period(plan.question) if count is None and amount is None else None
    tenure = own_tenure(plan.question) if count is None and amount is None and period is None else None
    if period is None and tenure is None and (count is None) == (amount is None):
        return None  # no measure of the subject, or two to hold against one rule
    measure = partial(_holding, item, count, amount, pool, speaks, ctx, named=named, period=period, tenure=tenure)
    asked = _asked_of(plan)  # "We employ 180 people in Ireland. Must we publish ...?": not the EU a later part names
    asked_of = [j for j in plan.jurisdictions if any(occurrences(n, asked) for n in j.named_as)] or plan.jurisdictions
    places = {tuple(j.answered_from()): j.code for j in asked_of}  # Portugal and the EU: the EU's law
    if len(places) < 2:
        return measure(plan.answer_codes())
    # several places asked ("in Ireland, and in Great Britain?"): each place's rule answers for it alone
    said = {code: measure(codes) for codes, code in places.items()}
    found = [v for v in said.values() if v is not None]
    if not found:
        return None
    return Claim(
        text=" ".join(f"{code}: {v.text}" if v else open_part(f"{code}:", f"for {code}") for code, v in said.items()),
        plan_item_ids=(item.id,),
        citations=tuple(q for v in found for q in v.citations),
        kind="verdict",
    )


def _asked_of(plan: ResearchPlan) -> str:
    """The facts a question sets out and the yes/no it asks on them, without the open questions that follow: the
    places they name are those the yes/no is asked of."""
    return " ".join(
        (facts_set_out(plan.question), *(WH_PART.split(q, maxsplit=1)[0] for q in questions_on_facts(plan.question)))
    )


def _holding(
    item: PlanItem,
    count: tuple[float, str] | None,
    amount: tuple[Figure, str, str] | None,
    pool: Sequence[Candidate],
    speaks: Callable[[Candidate, str], bool],
    ctx: EngineContext,
    codes: Sequence[str],
    named: Sequence[str],
    period: TimedPeriod | None = None,
    tenure: tuple[float, str] | None = None,
) -> Claim | None:
    """The Yes of `on_measure` on the question's headcount or amount, from the sources of these jurisdictions; on
    its period, the Yes or No of the first such source that bounds a period counted from the same kind of event
    (a period short of a minimum does not meet it, whatever else applies)."""
    ranked = sorted(
        (c for c in pool if not c.history and any(same_jurisdiction(code, c.jurisdiction) for code in codes)),
        key=lambda c: (not any(same_jurisdiction(j, c.jurisdiction) for j in named), -c.score),
    )
    if period is not None and len(_lengths_alike(period, ranked)) > 1:
        return None  # rules of several lengths count from that event: which one the facts must meet is open
    for c in ranked:
        if NEGATION.search(_without_figures(c.text)) or any(d > ctx.as_of for d in dates(c.text)):
            continue
        if any(int(y) > ctx.as_of.year for y in YEAR.findall(c.text)):
            continue  # "employers with 50 or more employees from 2027": a phase still to come
        before = referred(c, ctx)  # the duty a sentence refers back to binds and speaks for it
        entitles = tenure is not None and bool(ENTITLED.search(c.text))
        if not (
            entitles or NAMES_DUTY.match(c.text) or any(DUTY.search(t) or COVERS.search(t) for t in (c.text, *before))
        ):
            continue
        if period is not None:  # a rule on a period counted from the event the question's is speaks to it
            bounding = _bounding(period, c.text)
            if not bounding:
                continue
            word = _meets(period, bounding)
            if word is None:
                return None  # the rule that bounds it is not read surely: the analyst's to hold against it
            said = " ".join(q.quote for q in c.quotes)
            return Claim(
                text=counted_verdict(word, period.text, said),
                plan_item_ids=(item.id,),
                citations=c.quotes,
                kind="verdict",
            )
        if not any(speaks(c, t) for t in (c.text, *before, " ".join((*before, c.text)))):
            continue
        holds = False
        if tenure is not None:  # one bound on years of service, admitting the facts', on the period asked
            years, stated = tenure
            bounds = _service_bounds(c.text)  # the period asked is one the sentence states (`speaks`)
            holds = len(bounds) == 1 and bounds[0][0] < years < bounds[0][1]
            stated = f"{stated} of service"
        elif count is not None:
            n, noun = count
            bounds = [(lo, hi) for lo, hi, what in counted_bounds(c.text) if _counts_people(what, c.text)]
            holds = not figures(c.text) and any(lo <= n <= hi for lo, hi in bounds)
            stated = f"{n:,.0f} {noun}"
        elif amount is not None:
            figure, measured, stated = amount
            bounds_on = _amount_bounds(c.text, figure, measured)
            # every figure of the rule is a bound on what the question measures, and none counts people
            holds = (
                bool(bounds_on)
                and len(bounds_on) == len(figures(c.text))
                and not counts(c.text)
                and within(figure.value, figure.unit, bounds_on)
            )
        if holds:
            said = " ".join(q.quote for q in c.quotes)
            return Claim(
                text=counted_verdict("Yes", stated, said),
                plan_item_ids=(item.id,),
                citations=c.quotes,
                kind="verdict",
            )
    return None
