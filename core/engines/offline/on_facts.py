"""A yes or no on the headcount a question gives of its own subject ("Our Irish subsidiary has 120 employees. Does
it need an internal channel?"): the one fact pattern the rule engine applies a rule to, because the rule states
it as a bounded count ("employers with 50 or more employees must ...") and nothing else decides it. Only a Yes:
a count outside one rule's bound does not show that no other rule applies (a sector covered "regardless of the
number of workers"), so that case stays disclosed as open, as do facts of any other kind."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from core.domain.answer import Claim, counted_verdict
from core.domain.figures import counted_bounds, counted_nouns, dates, figures
from core.domain.gazetteer import same_jurisdiction
from core.domain.plan import PlanItem, ResearchPlan
from core.engines.base import EngineContext
from core.engines.offline.ranking import DUTY, Candidate
from core.engines.offline.sources import NEGATION
from core.engines.text import term_set, yes_no_sentence

HEADCOUNT = term_set("employee employees worker workers staff person persons people employed personnel")
"""Nouns that count the people a business employs: "120 employees" is measured against "50 or more workers"."""
COVERS = re.compile(r"\bappl(?:y|ies) to\b", re.I)
"""Wording by which a rule covers whoever its count admits (`DUTY`: binds them)."""
ASKED_OF = re.compile(
    r"^\W*(?:must|does|do|did|is|are|has|have|can|could|should|will|would|may|need|shall)\s+"
    r"(?:(?P<back>it|we|they|our|its|their)|(?:the|this|that)\s+(?P<noun>[\w-]+))\b",
    re.I,
)
"""The subject a yes/no part asks about when it refers back to facts set out before it: a pronoun ("Does it
need ...?", "Do we have to ...?") or a definite noun ("Must the company ...?")."""
ASKS_DUTY = re.compile(
    r"\b(?:must|needs?|(?:has|have) to|required|obliged|subject to|covered|appl(?:y|ies)|requires?)\b", re.I
)
"""A yes/no part asking whether a rule binds or covers its subject: the question a rule's count answers Yes."""
ASKS_OTHERWISE = re.compile(
    r"\b(?:exempt\w*|allowed|permitted|free|can|could|may|refus\w*|skip\w*|avoid\w*|outside|escap\w*|not|never|"
    r"without|instead|excused|spared)\b",
    re.I,
)
"""Wording by which a yes/no part asks the reverse or something else ("Is it exempt from ...?", "Can it refuse to
...?", "Is it free to skip ...?"): a rule that binds the subject answers that No, or not at all."""


def headcount(question: str) -> tuple[float, str] | None:
    """The one headcount the question gives of the subject its yes or no asks about, with its noun; None when it
    gives none or several, when the yes/no part asks about someone else ("A French company has 80 employees.
    Must a whistleblower report internally ...?" asks nothing of the company), or asks anything but whether a
    rule binds or covers the subject ("Is it exempt from ...?")."""
    found = {(n, noun) for n, noun in counted_nouns(question) if term_set(noun) & HEADCOUNT}
    if len({n for n, _ in found}) != 1:
        return None
    asked = yes_no_sentence(question) or question
    if not ASKS_DUTY.search(asked) or ASKS_OTHERWISE.search(asked):
        return None
    if counted_nouns(asked):
        return next(iter(found))
    m = ASKED_OF.match(asked)
    before = question[: question.find(asked)] if asked in question else ""
    if m and (m.group("back") or term_set(m.group("noun")) & term_set(before)):
        return next(iter(found))
    return None


def _counts_people(noun: str, sentence: str) -> bool:
    """Whether a bounded count's noun, or the noun after it when it is a modifier ("250 or more relevant
    employees"), counts people employed."""
    if term_set(noun) & HEADCOUNT:
        return True
    after = re.search(rf"\b{re.escape(noun)}\s+([a-z-]+)", sentence, re.I)
    return bool(after and term_set(after.group(1)) & HEADCOUNT)


def on_headcount(
    item: PlanItem,
    plan: ResearchPlan,
    pool: Sequence[Candidate],
    speaks: Callable[[Candidate], bool],
    ctx: EngineContext,
    named: Sequence[str] = (),
) -> Claim | None:
    """ "Yes, for the 120 employees the question states: <rule>" from the best sentence (a named place's first) that
    speaks to the question (`speaks`), binds or covers a headcount whose bound admits the question's, and states
    nothing else the facts would have to meet: no negation or limit ("only", "exempt"), no amount, no date after
    the as-of date, not history. None otherwise."""
    count = headcount(plan.question)
    if count is None:
        return None
    n, noun = count
    codes = plan.answer_codes()
    ranked = sorted(
        (c for c in pool if not c.history and any(same_jurisdiction(code, c.jurisdiction) for code in codes)),
        key=lambda c: (not any(same_jurisdiction(j, c.jurisdiction) for j in named), -c.score),
    )
    for c in ranked:
        if NEGATION.search(c.text) or figures(c.text) or any(d > ctx.as_of for d in dates(c.text)):
            continue
        if not (DUTY.search(c.text) or COVERS.search(c.text)) or not speaks(c):
            continue
        bounds = [(lo, hi) for lo, hi, what in counted_bounds(c.text) if _counts_people(what, c.text)]
        if any(lo <= n <= hi for lo, hi in bounds):
            said = " ".join(q.quote for q in c.quotes)
            return Claim(
                text=counted_verdict("Yes", f"{n:,.0f} {noun}", said),
                plan_item_ids=(item.id,),
                citations=c.quotes,
                kind="verdict",
            )
    return None
