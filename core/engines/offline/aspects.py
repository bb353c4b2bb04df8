"""What a sentence must state to answer an item of each aspect, read from its words: a deadline a period or a
date it must be met by, a penalty an amount, share, multiple or term, a "whom" item the body to be told, a
record-keeping item what is kept (and for how long). The ranking prefers such sentences and the coverage verifier
accepts no other, so a sentence about when a law took effect does not answer "by when must we notify".

These are English wording rules, not regulatory facts: no threshold, period or body of any regime is named here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from core.domain.figures import date_spans, dates, figures, multiples, periods, yearly_dates
from core.domain.plan import Aspect

DEADLINE_WORDS = re.compile(
    r"\b(?:within|no later than|not later than|at the latest|by|before|until|prior to|deadline|promptly|"
    r"without (?:undue )?delay|immediately|as soon as)\b",
    re.I,
)
POINT_IN_TIME = re.compile(
    r"\b(?:within|no later than|not later than|by|before|until|prior to)\s+(?:[\w:-]+\s+){0,8}?"
    r"(?:following|next|same|end of|close of|beginning of|start of)\b[^.;]{0,50}?"
    r"\b(?:day|date|session|week|month|quarter|year)s?\b",
    re.I,
)
"""A deadline set by a point in time rather than a period or a calendar date ("no later than the beginning of
regular trading hours on the settlement day following the settlement date", "by the end of the next business
day")."""
PROMPTLY = re.compile(
    r"\bwithout\s+(?:undue|unreasonable|unjustified|unnecessary)\s+delay\b|"
    r"\bas\s+soon\s+as\s+(?:reasonably\s+)?(?:practicable|possible|feasible)\b|\bmost\s+expedient\s+time\b|"
    r"\b(?:promptly|forthwith|immediately)\b(?=[^.;]{0,40}?\b(?:notif|report|inform|tell|disclos|file|submit|send))|"
    r"\b(?:notif|report|inform|tell|disclos|file|submit|send)\w*\s+(?:[\w-]+\s+){0,5}?(?:promptly|forthwith|immediately)\b",
    re.I,
)
"""A time limit set as a standard of promptness, not a period ("without undue delay", "in the most expedient time
possible", "must notify ... promptly"): by when it must be done, where the law fixes no number of days."""
FREQUENCY = re.compile(
    r"\b(?:annually|yearly|quarterly|monthly|weekly|daily|biennially|triennially|"
    r"(?:each|every|once a|twice a|per) (?:year|quarter|month|week|day))\b",
    re.I,
)
"""How often something recurs ("updated at least annually", "every year"): what "how often" asks."""
HOW_OFTEN = re.compile(r"\bhow (?:often|frequently)\b|\bat what intervals?\b", re.I)


@lru_cache(maxsize=256)
def asks_how_often(question: str) -> bool:
    """Whether the question asks how often (`HOW_OFTEN`): read once per question, not per sentence ranked or claim
    checked."""
    return bool(HOW_OFTEN.search(question))


PENALTY_WORDS = re.compile(
    r"\b(?:penalt\w*|fines?|fined|sanction\w*|imprison\w*|prison|jail|custod\w*|punish\w*|liable|liability|"
    r"offen[cs]es?|damages|compensation|revenue|turnover|disgorge\w*|"
    r"(?:per|for each|for every|for any)\s+(?:(?:related\s+)?series\s+of\s+)?(?:violations?|breach\w*|contraventions?))\b",
    re.I,
)
SANCTION = re.compile(r"\b(?:fines?|fined|penalt\w*|sanction\w*|imprison\w*|prison|punish\w*|damages)\b", re.I)
"""Wording of a sanction: the amount it bounds ("a fine of up to EUR 50,000") is what a breach costs, not a size
of whom a rule binds."""
ENFORCED_OTHERWISE = re.compile(
    r"\binjunct\w*|\bno (?:\w+ ){0,3}(?:fines?|penalt(?:y|ies)|sanctions?)\b|\bno private right of action\b|"
    r"\bfelon(?:y|ies)\b|\bmisdemeanou?rs?\b|\b(?:attorneys?|lawyers?|legal)['\u2019]?\s+(?:fees|costs)\b",
    re.I,
)
"""What a breach leads to where no sum or term does: an injunction, no fine at all, the grade of the offence, or the
other side's legal costs ("The exclusive remedy ... is an action brought by the Attorney General for injunctive
relief", "sets no civil fine for a failure to disclose", "Criminal usury in the second degree is a class E felony",
"a court may award an employee who enforces rights under section 181.988 reasonable attorney fees")."""
TELL_WORDS = re.compile(
    r"\b(?:notif\w*|report\w*|inform\w*|submit\w*|fil(?:e|es|ed|ing)|lodg\w*|disclos\w*|tell|told|send|sent|"
    r"communicat\w*|alert\w*|publish\w*|provide[sd]?|give[sn]?)\b",
    re.I,
)
BODY = re.compile(
    r"\b(?:[A-Z][a-z]*[A-Z][\w&]*|[A-Z]{2,}s?|(?i:(?:the |its |a |an |each |every )?(?:\w+ ){0,3}"
    r"(?:authorit(?:y|ies)|regulators?|commission|agency|agencies|supervisors?|ministry|minister|office|bureau|"
    r"court|registrar|register|issuers?|board|ombudsm[ae]n|units?|police|exchanges?|operators?|customers?|"
    r"consumers?|passengers?|clients?|borrowers?|investors?|public|market|department|council|service|"
    r"secretary|controller|administrator|trustee|centre|center|institute|body|bodies)))\b"
)
"""A body a notice may go to: a name in capitals or camel case (an acronym, "BaFin") or an English noun for
an authority, an institution or a person addressed."""
RECORD_WORDS = re.compile(
    r"\b(?:records?|recorded|record-keeping|keep|keeps|kept|retain\w*|retention|stor(?:e|ed|es|age)|preserv\w*|"
    r"archiv\w*|logs?|logged|registers?)\b",
    re.I,
)


LICENSING_WORDS = re.compile(r"\b(?:licens|authori[sz]|supervis|approv|regist)\w*", re.I)
"""Verbs by which a body grants or oversees what a firm needs ("must be licensed by the SFC"): asked "from which
authority", the body after them is the answer."""


AGENT = re.compile(
    r"\b(?:[A-Z]{2,}|[A-Z][a-z]*[A-Z][\w&]*|(?i:authority|regulator|commission|agency|supervisor|ministry|minister|"
    r"bureau|board|department|council|government|central bank))(?:\s*\([^)]{1,20}\))?\s+(?:\w+\s+){0,2}?"
    r"(?i:issu|publish|administ|enforc|overs[ae]|supervis|regulat|licens|authori[sz])\w*|"
    r"\b(?i:issued|published|administered|enforced|overseen|supervised|regulated)\s+by\s+(?:the\s+)?[A-Z]"
)
"""A body acting as the one that issues, administers or oversees ("MAS issued the Guidelines", "BaFin supervises
institutions", "administered by ASIC"): asked "which authority issued ...", that body is the answer."""


FORUM = re.compile(
    r"\b(?:claims?|complaints?|cases?|actions?|appeals?|proceedings)\s+(?:\w+\s+){0,3}?(?:in|before|with|to)\s+"
    rf"{BODY.pattern}"
)
"""Where a claim or complaint goes ("bring a claim in the county court", "a complaint to the Commission"): the body
asked "in which court" or "where can a customer complain"."""


def states_body(sentence: str) -> bool:
    """Whether the sentence names whom something goes to or who grants it: a telling or licensing verb followed by a
    body, a body after "to"/"with" ("report it to the authority", "notify BaFin", "file with the SEC", "must be
    licensed by the SFC"), a body that issues or oversees (`AGENT`) or the forum of a claim (`FORUM`)."""
    if AGENT.search(sentence) or FORUM.search(sentence):
        return True
    for m in (*TELL_WORDS.finditer(sentence), *LICENSING_WORDS.finditer(sentence)):
        tail = sentence[m.end() : m.end() + 90]
        if BODY.search(tail[:50]) and re.match(r"\s*(?:it |them |this |that |the \w+ )?(?:to|with)?\s*\S", tail):
            return True
    return bool(re.search(rf"\b(?:to|with)\s+{BODY.pattern}", sentence)) and bool(TELL_WORDS.search(sentence))


DUTY_WORDS = r"\b(?:must|shall|had to|has to|have to|(?:is|are|was|were) (?:required|obliged) to)\b"
DUTY_SINCE = re.compile(rf"{DUTY_WORDS}[^.;]*?\b(?:as |with effect )?from\s+$", re.I)
SINCE_OPENING = re.compile(r"\s*(?:as |with effect )?from\s+$", re.I)
DUTY_AFTER = re.compile(rf"^,?[^.;]*?{DUTY_WORDS}", re.I)
"""A duty that binds from a date on ("Employers with 50 to 249 employees had to comply from 17 December 2023",
"From 10 June 2025, providers must hold a licence"): the date by which the duty had to be met, unlike the date a
law took effect."""


def duty_from(text: str) -> bool:
    """Whether the text states a duty and the full date it binds from (`DUTY_SINCE`, or a sentence opening "From
    <date>," on a duty)."""
    return any(
        d.day
        and (
            DUTY_SINCE.search(text[: d.start])
            or (SINCE_OPENING.fullmatch(text[: d.start]) and DUTY_AFTER.search(text[d.end :]))
        )
        for d in date_spans(text)
    )


def _time_limit(text: str) -> bool:
    """Whether the text states a period, a date it must be met by, a duty binding from a date, a point in time or a
    standard of promptness (`PROMPTLY`)."""
    return (
        bool(periods(text))
        or bool(PROMPTLY.search(text))
        or ((bool(dates(text)) or bool(yearly_dates(text))) and bool(DEADLINE_WORDS.search(text)))
        or duty_from(text)
        or bool(POINT_IN_TIME.search(text))
    )


def states_need(aspect: Aspect, text: str, hint: Iterable[str] = (), often: bool = False) -> bool:
    """Whether the text states what an item of this aspect needs (see `Aspect.needs`); True for aspects that need
    no particular content. `often`: the question asks how often (`asks_how_often`), which a frequency answers too."""
    if aspect == Aspect.deadline:
        return _time_limit(text) or (often and bool(FREQUENCY.search(text)))
    if aspect == Aspect.penalty:
        if ENFORCED_OTHERWISE.search(text):
            return True
        if not PENALTY_WORDS.search(text):
            return False
        return any(f.unit != "days" for f in figures(text, tuple(hint))) or bool(periods(text)) or bool(multiples(text))
    if aspect == Aspect.recipient:
        return states_body(text)
    if aspect == Aspect.records:
        return bool(RECORD_WORDS.search(text))
    return True


PROMPT_ONLY = 0.7
"""How well a sentence stating only a standard of promptness ("without undue delay") answers "by when"."""


def aspect_feature(aspect: Aspect, sentence: str, hint: tuple[str, ...], often: bool = False) -> float | None:
    """How well a sentence has what one of these aspects asks for (0..1), or None for the other aspects: 1 when it
    states the need, a little when it only speaks of the matter (it may sit beside the one that does)."""
    if aspect not in (Aspect.deadline, Aspect.penalty, Aspect.recipient, Aspect.records):
        return None
    if states_need(aspect, sentence, hint, often):
        if aspect == Aspect.records and not (periods(sentence) or dates(sentence)):
            return 0.6
        if aspect == Aspect.deadline and not _time_limit(PROMPTLY.sub(" ", sentence)):
            return PROMPT_ONLY  # a period, where a source states one, is the sharper answer
        return 1.0
    cue = {
        Aspect.deadline: DEADLINE_WORDS,
        Aspect.penalty: PENALTY_WORDS,
        Aspect.recipient: TELL_WORDS,
        Aspect.records: RECORD_WORDS,
    }[aspect]
    return 0.2 if cue.search(sentence) else 0.0
