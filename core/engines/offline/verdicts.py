"""Verdicts on a change: "has X been extended / raised / repealed?" is answered from the status of the source that
states the change, never guessed from a sentence that merely shares the question's words.

A change stated by a source in force is a "Yes"; one stated only by a proposal, or by an act not yet applicable,
is "No, only proposed (date)" / "No, not yet (applies from date)" with the rule in force quoted; a change a source in
force denies ("The statute has not been repealed") is a "No" quoting it, never a "Yes" for sharing the verb; a
change no source states gets no verdict (the verdict item stays open and is disclosed). A question asking "for each" jurisdiction,
or naming several, gets one verdict per jurisdiction ("EU: No, ... US: Yes. ..."). The verbs below are English
words for a change, not regulatory knowledge.

Also here, what a Yes to a duty must rest on: a yes/no asked of every or all of something needs a sentence saying
it of all of them (`says_of_all`; one naming only some answers No, `says_of_some`), and one asked in a capacity
("As the retailer, ...") is not answered by a duty the law lays on another party (`asker_role`, `binds_another`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from datetime import date
from functools import partial

from core.domain.answer import Claim, Quote
from core.domain.documents import DocStatus, DocumentMeta
from core.domain.figures import date_spans, format_date, frequencies
from core.domain.gazetteer import is_place_name, occurrences
from core.domain.instructions import has_instructions
from core.domain.plan import ANY_JURISDICTION, PlanItem, ResearchPlan
from core.engines.base import EngineContext
from core.engines.offline.ranking import Candidate
from core.engines.offline.recall import names_in
from core.engines.offline.relevance import min_relevance, said_terms, subject_terms
from core.engines.offline.sources import (
    doc_chunks,
    first_sentence,
    first_statement,
    lead_name,
    own_name,
    short_name,
)
from core.engines.text import (
    LIST_MARK,
    STOPWORDS,
    WH_PART,
    is_anaphoric,
    measures_facts,
    sentences,
    stem,
    term_set,
    trailing_yes_no,
    yes_no_sentence,
)

CHANGE_STEMS = (
    "extend|rais|increas|lower|reduc|repeal|abolish|amend|chang|replac|remov|scrap|expand|broaden|widen|narrow|"
    "tighten|relax|introduc|adopt|lift|delay|postpon|withdr|revis|updat|doubl|halv|shorten|lengthen|cut|"
    "modif|strengthen|eas|transpos|implement|enact|done away|do away|did away|doing away|got rid|get rid|gotten rid|"
    "phased out|phase out|axe|ditch|overhaul"
)
DETERMINED = "".join(rf"(?<!\b{d}\s)" for d in ("a", "an", "the", "any", "no", "its", "our", "their", "this", "that"))
CHANGE_QUESTION = re.compile(
    rf"\b(?:has|have|had|was|were|did|is|are)\b(?:\s+[\w'-]+){{0,10}}?\s+(?:been\s+)?{DETERMINED}"
    rf"(?P<verb>(?:{CHANGE_STEMS})\w*)\b",
    re.I,
)
"""A yes/no question about a change: an auxiliary, then (within a few words) a verb of change; not a word of change
after an article or determiner, which qualifies a noun ("Is there still a lower minimum wage for small
employers?" asks whether that rate exists, not whether it was lowered)."""
PERFECT_STEMS = "capp"
"""Verbs of change asked only in the perfect ("Has the UK capped payment terms?"): "Is the compensation capped?"
asks whether there is a cap, not whether one was brought in."""
PERFECT_CHANGE = re.compile(
    rf"\b(?:has|have|had|did)\b(?:\s+[\w'-]+){{0,10}}?\s+(?:been\s+)?{DETERMINED}(?P<verb>(?:{PERFECT_STEMS})\w*)\b",
    re.I,
)
CHANGE_WORD = re.compile(rf"\b(?:{CHANGE_STEMS}|{PERFECT_STEMS})\w*", re.I)
PROPOSED_CHANGE = re.compile(rf"{CHANGE_WORD.pattern}|\bwould\b", re.I)
"""How a pending source states what it would make law when asked whether it has been adopted: a verb of change, or
what would hold under it ("A firm carrying on any of these activities would need full FCA authorisation")."""
ADOPTION = re.compile(r"adopt|enact|introduc|implement|transpos|pass", re.I)
"""Verbs of change asking whether a rule was made law at all ("Has the UK adopted a full cryptoasset regime?"):
what a pending source would do is that rule. Asked of another change ("extended to employers with 100
employees?"), a pending source must state a change itself ("Under the proposal, the reporting would broadly
mirror gender pay gap reporting" extends nothing)."""
HEDGED = re.compile(
    r"\b(?:may|might|can|could|would|should|propos\w*|plan\w*|consult\w*|draft|whether|not verified|unclear|"
    r"uncertain|provides? for)\b",
    re.I,
)
"""A sentence stating a change only as possible or planned: not a change made."""
EACH = re.compile(r"\b(?:for each|each of|in each|respectively|for both|every one)\b|\b[Bb]oth\s+(?:the\s+)?(?=[A-Z])")
EACH_LISTED = re.compile(rf"(?:{EACH.pattern})[^?]{{0,20}}?:\s*{LIST_MARK}", re.I)
"""A question asking for a yes or no to each of the questions it numbers, not for each place."""
NOT_IN_FORCE = re.compile(r"\bonly proposed\b|\bnot yet\b", re.I)
"""How a verdict presents a source that does not apply (check_sources lets such a mention be)."""


STILL_ASKED = re.compile(r"\b(?:still|currently|now|today|any longer|anymore|continue\w*)\b", re.I)
"""A yes/no asking about the present state of something ("Is the EEOC still collecting pay data?")."""
IN_FORCE_ASKED = re.compile(
    r"\b(?:in force|in effect|appl(?:y|ies)|govern\w*|valid|law|correct|accurate|up to date|the rule)\b|"
    r"\b(?:is|are)\s+there\b|\bstill\s+(?:allowed|permitted|permissible|lawful|legal|enforceable)\b|"
    r"\b(?:can|may)\s+(?:we|I|you|employers?|companies|firms?)\s+still\s+rely\s+on\b",
    re.I,
)
"""A yes/no asking whether an instrument still holds ("Is Directive 2008/48 still in force for new agreements?",
"Can we still rely on that block exemption?"), whether a rule still exists ("Is there still a lower minimum wage
for small employers?"), or whether the law still allows something ("Are non-solicitation agreements still
allowed?"; "are we now allowed to pay ...?" asks what the law allows since a change, not whether it still does)."""


UNDER_LAW = re.compile(r"\b(?:under|in|by|according to)\s+(?:[\w'-]+\s+){0,3}?law\b", re.I)
"""The law a question is asked under ("Under EU sales law, ..."): the law it asks of, not whether a law holds."""
STILL_BOUND = re.compile(
    r"\bstill\s+(?:(?:have|has|need|needs)\s+to|must|required|obliged|bound)\b|"
    r"\b(?:must|required|obliged)\s+(?:\w+\s+)?still\b",
    re.I,
)
"""A yes/no asking whether a duty still binds ("Do franchisors still have to register ...?"): asked of the law,
which a sentence stating the duty's end answers No ("... so franchisors no longer have to register")."""
ALREADY_BOUND = re.compile(
    r"\balready\s+(?:(?:have|has|need|needs)\s+to|must|required|obliged|bound)\b|"
    r"\b(?:must|required|obliged)\s+(?:\w+\s+)?already\b",
    re.I,
)
"""A yes/no asking whether a duty binds yet ("Are we already required to make the battery removable?"): asked of
the law, which an act applying only later answers "No, not yet", unless the facts set out measure the asker (a
headcount, a turnover), which a duty phased in by size turns on."""


EXISTS_ASKED = re.compile(r"^\W*(?:is|are|was|were)\s+there\b", re.I)
"""A yes/no asking whether something exists ("Is there an EU-level law that tells us what we must disclose?")."""
ASKER = re.compile(r"\b(?:we|us|our|ours|I|me|my)\b", re.I)


def asks_of_law(asked: str, facts: str = "") -> bool:
    """Whether a yes/no asked after facts (`facts`, those the question sets out) is asked of the law, not of those
    facts: whether something still holds (`still_in_force`) or binds yet (`ALREADY_BOUND`), or whether a rule
    exists at all, saying nothing of the asker ("Is there a federal statute on employee non-competes?"; "Is there a
    duty for us to ...?" is asked of the asker's facts)."""
    return (
        still_in_force(asked)
        or bool(ALREADY_BOUND.search(asked) and not measures_facts(facts))
        or bool(EXISTS_ASKED.match(asked) and not ASKER.search(asked))
    )


def still_in_force(asked: str) -> bool:
    """Whether a yes/no (or one part of it) asks whether something still holds: a question about the law's
    present state, like a change, not about facts the question sets out."""
    unframed = UNDER_LAW.sub(" ", asked)  # "Under EU sales law, does choosing repair now extend ...?" asks no status
    return bool(STILL_ASKED.search(unframed) and IN_FORCE_ASKED.search(unframed)) or bool(STILL_BOUND.search(asked))


def asked_change(question: str) -> str | None:
    """The verb of change a yes/no question asks about ("extended"), or None. Only its yes/no counts, not an open
    question it goes on to ask: "Does the law apply, and how long is the withdrawal period?" asks no change."""
    m = _change_asked(WH_PART.split(question, maxsplit=1)[0])
    return m.group("verb").lower() if m else None


def as_state(verb: str) -> bool:
    """Whether a change asked with this verb also asks what holds now, when no source states the change either way
    ("Has XY capped widget clauses at three months?": are they capped), as `PERFECT_STEMS` verbs do."""
    return verb.lower().startswith(tuple(PERFECT_STEMS.split("|")))


def _change_asked(text: str) -> re.Match[str] | None:
    """The first verb of change a yes/no asks about (`CHANGE_QUESTION`, `PERFECT_CHANGE`), or None."""
    found = [m for m in (CHANGE_QUESTION.search(text), PERFECT_CHANGE.search(text)) if m]
    return min(found, key=lambda m: m.start("verb"), default=None)


def per_jurisdiction(plan: ResearchPlan) -> bool:
    """Whether the question wants one verdict per jurisdiction."""
    if EACH_LISTED.search(plan.question):
        return False  # "Yes or no for each: (1) ...? (2) ...?": one verdict per question listed
    return len(plan.answer_codes()) > 1 and (
        bool(EACH.search(plan.question)) or asked_change(trailing_yes_no(plan.question) or plan.question) is not None
    )


def _verb(question: str) -> re.Pattern[str]:
    """The asked verb of change as a pattern for its forms ("extended" -> extend, extends, extension ...)."""
    verb = asked_change(question) or ""
    stem = next((s for s in f"{CHANGE_STEMS}|{PERFECT_STEMS}".split("|") if verb.startswith(s)), verb[:5])
    return re.compile(rf"\b{re.escape(stem)}\w*", re.I) if stem else CHANGE_WORD


DENIED_CHANGE = re.compile(r"\b(?:not|never|neither|nor|without)\b[^,;:]*$", re.I)
"""A negation in the clause before a verb of change: the sentence denies that change ("The statute has not been
repealed", "Neither the executive order nor the guidelines repealed or amended the FCPA")."""


def _denies(changed: re.Pattern[str], sentence: str) -> bool:
    """Whether every mention of the asked change in the sentence is denied (`DENIED_CHANGE` before it)."""
    found = list(changed.finditer(sentence))
    return bool(found) and all(DENIED_CHANGE.search(sentence[: m.start()]) for m in found)


def _stating(
    doc: DocumentMeta, plan: ResearchPlan, ctx: EngineContext, made: bool, denied: bool = False
) -> Quote | None:
    """The sentence of the document that states a change of what the question asks about (`made`: the asked
    change as done, not as possible or planned, and denied when `denied`, else not; without `made`: any change),
    or None."""
    adoption = bool(ADOPTION.match(asked_change(plan.question) or ""))
    changed = _verb(plan.question) if made else PROPOSED_CHANGE if adoption else CHANGE_WORD
    order = subject_terms(plan) or list(plan.topic_terms)
    if made:  # "What must we notify ...? Has the threshold changed?": a Yes or No rests on the change's own subject
        part = term_set(trailing_yes_no(plan.question) or yes_no_sentence(plan.question) or "")  # words
        order = [t for t in order if t in part] or order
    topic = set(order)
    needed = max(1, round(min_relevance(topic) * len(topic)))
    if made:  # a "Yes" rests on a sentence about the very subject asked: half its words, at least two
        needed = max(needed, min(len(topic), max(2, (len(topic) + 1) // 2)))
    best: tuple[int, Quote] | None = None
    for chunk_id, text in doc_chunks(doc.id, ctx):
        for s in sentences(text):
            if not changed.search(s) or is_anaphoric(s) or has_instructions(s) or (made and HEDGED.search(s)):
                continue
            if made and _denies(changed, s) != denied:
                continue
            shared = len(said_terms(topic, s, order))
            if shared >= needed and (best is None or shared > best[0]):
                best = (shared, Quote(doc_id=doc.id, chunk_id=chunk_id, quote=s))
    return best[1] if best else None


def _part(
    code: str, plan: ResearchPlan, cands: Sequence[Candidate], ctx: EngineContext
) -> tuple[str, tuple[Quote, ...]] | None:
    """The verdict for one jurisdiction (ANY_JURISDICTION: all), with its quotes, or None when no source states
    the change. A proposal answers "No, only proposed", even when it is itself what the question names ("Has the UK
    raised the PDMR notification threshold?" of a proposed reform of those rules); an act not yet applicable
    answers "No, not yet" only when it is not itself the act whose change is asked about: that the CSDDD applies
    only from 2027 does not say whether the EU postponed it."""
    docs = [d for d in ctx.catalog.all() if code in (ANY_JURISDICTION, d.jurisdiction)]
    if ADOPTION.match(asked_change(plan.question) or ""):  # what was adopted is the act named, if one is
        docs = _named_acts(plan, docs) or docs
    in_force = [d for d in docs if ctx.catalog.status_at(d.id, ctx.as_of) == DocStatus.in_force]
    pending = [
        d
        for d in docs
        if (status := ctx.catalog.status_at(d.id, ctx.as_of)) == DocStatus.proposed
        or (status == DocStatus.not_yet_applicable and not _asked_about(d, plan))
    ]
    for doc in sorted(in_force, key=lambda d: d.effective or ctx.as_of, reverse=True):
        quote = _stating(doc, plan, ctx, made=True)
        if quote is not None:
            return f"Yes. {quote.quote}", (quote,)
    for doc in pending:
        quote = _stating(doc, plan, ctx, made=False)
        if quote is not None:
            rule = _rule_in_force(cands, doc.jurisdiction, ctx, quote.quote) or _said_in_force(doc.id, ctx, quote.quote)
            return _beside_rule(pending_lead(doc, ctx.catalog.status_at(doc.id, ctx.as_of)), quote, rule)
    for doc in in_force:  # a source in force that says the change was not made ("has not been repealed")
        quote = _stating(doc, plan, ctx, made=True, denied=True)
        if quote is not None:
            return f"No. {quote.quote}", (quote,)
    made_law = _made_law(code, plan, docs, ctx)
    if made_law:
        return "Yes. " + " ".join(q.quote for q in made_law), made_law
    if ADOPTION.match(asked_change(plan.question) or ""):
        # "Has Poland introduced penalties for KSeF yet?": "... apply only from 1 January 2027"
        quote = _starting_later(plan, in_force, ctx)
        if quote is not None:
            return f"No, not yet. {quote.quote}", (quote,)
    return None


APPLIES_YET = re.compile(
    r"\b(?:already|yet)\b[^?.;]*\b(?:appl(?:y|ies)|in force|in effect|take effect)\b|"
    r"\b(?:appl(?:y|ies)|in force|in effect|take effect)\b[^?.;]*\b(?:already|yet)\b",
    re.I,
)
"""A yes/no asking whether something applies yet ("Do Polish KSeF penalties already apply?")."""


def not_yet_verdict(item: PlanItem, plan: ResearchPlan, ctx: EngineContext) -> Claim | None:
    """ "No, not yet." to a yes/no asking whether something applies yet (`APPLIES_YET`) when a source in force of the
    places asked says all of it starts only after the as-of date and none says it started before; else None."""
    asked = trailing_yes_no(plan.question) or yes_no_sentence(plan.question) or plan.question
    if not APPLIES_YET.search(asked):
        return None
    codes = set(plan.answer_codes())
    docs = [
        d
        for d in ctx.catalog.all()
        if (not codes or d.jurisdiction in codes) and ctx.catalog.status_at(d.id, ctx.as_of) == DocStatus.in_force
    ]
    quote = _starting_later(plan, docs, ctx)
    if quote is None:
        return None
    return Claim(text=f"No, not yet. {quote.quote}", plan_item_ids=(item.id,), kind="verdict", citations=(quote,))


def _starting_later(plan: ResearchPlan, docs: Sequence[DocumentMeta], ctx: EngineContext) -> Quote | None:
    """The first sentence of these documents that states all of what the yes/no asks about (`_what`) as starting
    only after the as-of date, when no sentence on all of it starts it on or before that date ("From 1 February
    2026, ... must issue ... in KSeF" beside "penalties ... apply only from 1 January 2027"); else None."""
    what = _what(plan)
    if not what:
        return None

    def first(later: bool) -> Quote | None:
        def on_all_of_it(s: str) -> bool:
            return (
                len(said_terms(set(what), s, what)) == len(what)
                and not (is_anaphoric(s) or has_instructions(s))
                and _starts(ctx.as_of, s, later)
            )

        return next((q for d in docs if (q := first_sentence(d.id, ctx, on_all_of_it))), None)

    quote = first(later=True)
    return quote if quote is not None and first(later=False) is None else None


MADE_LAW_ASKED = re.compile(r"adopt|enact|pass", re.I)
"""Verbs of change asking whether an act was made law ("Has the EU adopted the Right to Repair Directive?"), not
whether a place transposed or implemented another's act."""
MADE_LAW_SAID = re.compile(r"\b(?:adopted|enacted|passed|published|signed|entered into force|came into force)\b", re.I)


def _made_law(code: str, plan: ResearchPlan, docs: Sequence[DocumentMeta], ctx: EngineContext) -> tuple[Quote, ...]:
    """The sentences by which an act in force the yes/no names, filed under the very place asked about (not one
    whose law applies there: "Has Germany adopted the Whistleblowing Directive?" asks of transposition), says when
    it was made law: it is law, so it was adopted. Empty when the question names no such act, or it says no date."""
    place = plan.jurisdiction(code)
    if not MADE_LAW_ASKED.match(asked_change(plan.question) or "") or place is None or not place.in_corpus:
        return ()
    acts = [d for d in _named_acts(plan, docs) if d.jurisdiction == code]
    if len(acts) != 1 or ctx.catalog.status_at(acts[0].id, ctx.as_of) != DocStatus.in_force:
        return ()
    return first_statement(acts[0].id, ctx, lambda s: bool(MADE_LAW_SAID.search(s) and date_spans(s)))


ACT_NAME_WORDS = 2
"""Words (places aside) a name in the question must have to name an act ("Green Claims Directive"), not a kind of
act ("Directive")."""


def _named_acts(plan: ResearchPlan, docs: Sequence[DocumentMeta]) -> list[DocumentMeta]:
    """The documents the question's yes/no names by one of their own names (every word of a name of at least
    ACT_NAME_WORDS words in the document's title or aliases): "Has the EU adopted the Green Claims Directive?" asks
    about the proposal so named, not about the Green Transition Directive, whose adoption states two of its
    words. Only for adoption: "Has the EU replaced the Late Payment Directive?" is stated by what replaces it."""
    asked = trailing_yes_no(plan.question) or yes_no_sentence(plan.question) or plan.question
    places = {t for j in plan.jurisdictions for t in term_set(" ".join((j.name, j.code, *j.named_as)))}
    names = [term_set(n.text) - places for n in names_in(asked) if not is_place_name(n.text)]
    return [d for d in docs if names_act(names, own_name(d))]


def names_act(names: Iterable[Collection[str]], source: str) -> bool:
    """Whether one of the names (the words of each) has at least ACT_NAME_WORDS words, all in the source's own name
    (its title and aliases): "the Green Claims Directive", not a single word a kind of act shares ("Directive")."""
    own = term_set(source)
    return any(len(n) >= ACT_NAME_WORDS and set(n) <= own for n in names)


WHEN_WORDS = frozenset(term_set("yet still now already today currently"))


def _what(plan: ResearchPlan) -> list[str]:
    """What a change question asks was introduced, aspect words included ("penalties" in "Has Poland introduced
    penalties for KSeF yet?"), without the verb of change or the words asking when."""
    return [t for t in plan.topic_terms if not CHANGE_WORD.match(t) and t not in WHEN_WORDS]


STARTS_FROM = re.compile(
    r"\b(?:from|since|as of|as from|with effect from|starting(?: on)?|beginning(?: on)?)\s+$", re.I
)


def _starts(as_of: date, sentence: str, later: bool) -> bool:
    """Whether the sentence starts what it states ("from", "since" a date) only after the as-of date (`later`:
    "Financial penalties ... have been deferred and apply only from 1 January 2027": introduced in law, not yet
    applying), else on or before it."""
    starts = [
        date(d.year, d.month, d.day)
        for d in date_spans(sentence)
        if d.day and STARTS_FROM.search(sentence[max(0, d.start - 24) : d.start])
    ]
    return bool(starts) and (all(d > as_of for d in starts) if later else any(d <= as_of for d in starts))


SUBJECT_NAMED = 0.75
"""Share of the question's subject words a document's name must state to be the act the question asks about."""


def _asked_about(doc: DocumentMeta, plan: ResearchPlan) -> bool:
    """Whether the document is the act the question asks a change of: named in the question, or its title and
    aliases state most of the question's subject words ("the corporate sustainability due diligence directive")."""
    if doc.id in plan.named_doc_ids:
        return True
    words = [t for t in subject_terms(plan) if not CHANGE_WORD.match(t)]
    return bool(words) and len(said_terms(set(words), own_name(doc), words)) >= SUBJECT_NAMED * len(words)


def _in_force(doc_id: str, ctx: EngineContext) -> bool:
    return doc_id in ctx.catalog and ctx.catalog.status_at(doc_id, ctx.as_of) == DocStatus.in_force


RULE_SHARED = 2
"""Words the rule in force quoted beside a pending change must share with the sentence stating that change."""


PENDING_TALK = re.compile(r"\b(?:bills?|propos\w*|draft\w*|consultation|not (?:yet )?(?:law|in force|adopted))\b", re.I)
"""Wording by which a source in force speaks of a measure still pending ("A bill to lower the maximum working week
... is summarised separately and is not law in force"): that sentence is no rule in force to quote beside it."""


def _rule_in_force(
    cands: Sequence[Candidate], code: str, ctx: EngineContext, change: str, asked: Iterable[str] = ()
) -> Candidate | None:
    """The candidate of the jurisdiction (ANY_JURISDICTION: any) from a source in force that says most of what
    the pending `change` sentence is about (at least RULE_SHARED words; the better scored on a tie): the rule that
    applies beside it, not merely the best sentence of the topic ("the issuer must disclose the transaction
    within two working days" beside a proposal to raise the notification threshold); None when none does. Given
    the words the question asks (`asked`), the one stating most of them goes first: beside a proposal listing six
    changes, "Must UK companies file their modern slavery statements by a fixed 30 September deadline each year?" is
    answered beside it by the duty to publish a statement for each financial year, not by the six areas a statement
    may cover, which share more words with the long list of changes."""
    about, wanted = term_set(change), set(asked)
    ranked = [
        (len(term_set(c.text) & wanted), len(term_set(c.text) & about), -n, c)
        for n, c in enumerate(cands)
        if code in (ANY_JURISDICTION, c.jurisdiction) and _in_force(c.doc_id, ctx) and not PENDING_TALK.search(c.text)
    ]
    best = max(ranked, key=lambda r: r[:3], default=None)
    return best[3] if best is not None and best[1] >= RULE_SHARED else None


def pending_lead(doc: DocumentMeta, status: DocStatus, undated: str = "not adopted") -> str:
    """How a verdict presents a source that does not apply: "No, only proposed (D): not law in force, only a
    proposal: X." (a title of any number: "Proposals to ...") or "No, not yet: X applies only from D." (`undated`
    stands for D when the source has no date)."""
    when = format_date(doc.effective) if doc.effective else undated
    if status == DocStatus.proposed:
        return f"No, only proposed ({when}): not law in force, only a proposal: {short_name(doc)}."
    return f"No, not yet: {lead_name(doc)} applies only from {when}."


def _beside_rule(lead: str, quote: Quote, rule: Candidate | Quote | None) -> tuple[str, tuple[Quote, ...]]:
    """A pending-source verdict's text and quotes: the lead, the pending sentence, then the rule in force (a
    candidate from a source in force, or what the pending source itself says remains in force)."""
    quotes = () if rule is None else (rule,) if isinstance(rule, Quote) else rule.quotes
    said = " ".join(q.quote for q in quotes)
    return f"{lead} {quote.quote}" + (f" In force: {said}" if said else ""), (quote, *quotes)


STILL_IN_FORCE = re.compile(
    r"(?<!\bnot )(?<!\bno )\b(?:(?:rules?|law|regime) (?:\w+ ){0,3}?in force|remains? (?:in force|applicable)|"
    r"continues? to apply|(?:current|existing) (?:rules?|laws?|regime|requirements?|framework) (?:\w+ ){0,2}?"
    r"(?:remains?|continues?|stays?)|"
    r"still (?:applies|apply|governs?)|remains? (?:at )?[$€£]?\d[\d.,]*\b|remain the (?:\w+ ){0,2}?(?:rules?|law)|"
    r"(?:continues?|continuing) to be governed|remains? governed|"
    r"(?:there|it) (?:is|are) (?:currently|at present|as yet|still) no)\b",
    re.I,
)
"""Wording by which a proposal says what applies meanwhile ("Until a directive is adopted, the rules in force at EU
level remain Council Framework Decision 2003/568/JHA", "Until new legislation commences, the current rules remain
the Australian Packaging Covenant ...", "The federal minimum wage remains $7.25 per hour", "... continue to be
governed by the common law", "There is currently no legal requirement to ...")."""


def _said_in_force(doc_id: str, ctx: EngineContext, quoted: str) -> Quote | None:
    """The pending source's own sentence on the rules that apply meanwhile (`STILL_IN_FORCE`), when no source in
    force speaks beside it: an analyst asking whether a proposal binds needs what binds instead."""
    return first_sentence(doc_id, ctx, lambda s: bool(STILL_IN_FORCE.search(s)) and s != quoted and not is_anaphoric(s))


def change_verdict(item: PlanItem, plan: ResearchPlan, cands: Sequence[Candidate], ctx: EngineContext) -> Claim | None:
    """The verdict on a change question, per jurisdiction when asked for each; None when no source states it. The
    places asked are those named before the verb of change when any are (the change's subject: "Has the
    Netherlands transposed the EU directive?" asks about the Netherlands, not the EU), each answered from its own
    sources where the corpus has them, else from the wider law that applies there."""
    asked = trailing_yes_no(plan.question) or plan.question
    m = _change_asked(asked)
    before = asked[: m.start("verb")] if m else ""
    subjects = [j for j in plan.jurisdictions if any(occurrences(n, before) for n in j.named_as)]
    codes = list(
        dict.fromkeys(
            c for j in subjects or plan.jurisdictions for c in ([j.code] if j.in_corpus else j.answered_from())
        )
    ) or [ANY_JURISDICTION]
    parts: list[tuple[str, tuple[Quote, ...]]] = []
    for code in codes:
        found = _part(code, plan, cands, ctx)
        if found is None:
            continue
        text, quotes = found
        parts.append((f"{code}: {text}" if len(codes) > 1 else text, quotes))
    if not parts:
        return None
    return Claim(
        text=" ".join(t for t, _ in parts),
        plan_item_ids=(item.id,),
        kind="verdict",
        citations=tuple(q for _, qs in parts for q in qs),
    )


NAME_SHARED = 2
"""Words of the yes/no an act's own name must state for the question to name that act rather than its subject."""


def proposed_verdict(
    item: PlanItem,
    grounded: Callable[[str, str], bool],
    codes: Sequence[str],
    cands: Sequence[Candidate],
    ctx: EngineContext,
    asked: Iterable[str] = (),
    status_asked: bool = False,
) -> Claim | None:
    """ "No, only proposed (date)" when no source in force speaks to a yes/no question but a proposal of one of
    these jurisdictions does (`grounded`: its sentence states what the question asks): the rule asked about is
    not law, and the rule in force (the best candidate) is quoted beside it. None when no proposal speaks to it.
    A sentence may also speak to it beyond the words of the proposal's own name, which may say only which act it is
    ("the EU anti-corruption directive" asked, "Proposed EU Directive on combating corruption" filed) or what it
    proposes ("Proposals for an Office of the Whistleblower", asked whether there is one). Asked whether an act is
    law or in force (`status_asked`), a proposal whose name states no more of the yes/no's words than the name of
    an act in force does (at least NAME_SHARED of them) does not answer: "Is the XY Directive on combating widget
    fraud binding?" asks about the act in force, not about the proposal to replace it."""
    words = set(asked)
    in_force = (
        d
        for d in ctx.catalog.all()
        if d.jurisdiction in codes and ctx.catalog.status_at(d.id, ctx.as_of) == DocStatus.in_force
    )
    named_in_force = max((len(said_terms(words, own_name(d))) for d in in_force), default=0) if status_asked else 0
    for doc in ctx.catalog.all():
        if doc.jurisdiction not in codes or ctx.catalog.status_at(doc.id, ctx.as_of) != DocStatus.proposed:
            continue
        if status_asked and named_in_force >= max(NAME_SHARED, len(said_terms(words, own_name(doc)))):
            continue  # the question names an act in force as well as the proposal: it asks about that act
        quote = first_sentence(doc.id, ctx, partial(speaks_to, grounded, own_name(doc)))
        if quote is None:
            continue
        stated, quotes = _beside_rule(
            pending_lead(doc, DocStatus.proposed),
            quote,
            _rule_in_force(cands, doc.jurisdiction, ctx, quote.quote, asked)
            or _said_in_force(doc.id, ctx, quote.quote),
        )
        return Claim(text=stated, plan_item_ids=(item.id,), kind="verdict", citations=quotes)
    return None


def speaks_to(grounded: Callable[[str, str], bool], name: str, sentence: str) -> bool:
    """Whether a source's sentence speaks to the yes/no, its own name's words counted or set aside (a proposal's, or
    one in force before a proposal may answer instead: "statutory interest" in an act's title is still asked)."""
    return (grounded(sentence, "") or grounded(sentence, name)) and not is_anaphoric(sentence)


def presents_as_pending(claim: Claim, doc: DocumentMeta) -> bool:
    """Whether a verdict names the document as only proposed or not yet applicable (citing it as such is honest)."""
    named = short_name(doc) in claim.text or lead_name(doc) in claim.text
    return claim.kind == "verdict" and named and bool(NOT_IN_FORCE.search(claim.text))


STATUS_SUBJECT = re.compile(
    r"^\W*(?:is|are|has|have)\s+(?P<subject>.+?)\s+(?:(?:already|now|yet|currently|actually)\s+)?"
    r"(?:(?:been|become)\s+)?(?:law|binding|enacted|adopted|passed|in force|in effect)\b",
    re.I,
)
"""The instrument a yes/no asks the status of ("Is the EU's anti-corruption directive already binding, ...?")."""
SUBJECT_OWN_NAME = 2 / 3
"""Share of the instrument's words (places and question words aside) a document's title and aliases must state to
be the instrument asked about."""


def _lone_name(subject: str, words: set[str]) -> bool:
    """Whether the instrument asked about is one capitalised word ("Is Verifactu in force?", "Is MiCA binding?"):
    a name, which one document's own name may state, not a common noun ("Is the directive in force?")."""
    return len(words) == 1 and any(t[:1].isupper() and term_set(t) == words for t in re.findall(r"[\w-]+", subject))


NOT_YET_SAID = re.compile(
    r"\bnot\s+yet\s+(?:apply|applies|applicable|in force|in effect)\b|\bpostpone\w*|\bdefer\w*", re.I
)
"""How an act not yet applicable says so of itself ("the requirements do not yet apply", "A further one-year
postponement, to 1 January 2027 ..."): the sentence a "No, not yet" quotes before any other naming it."""


def _when_applies(sentence: str) -> bool:
    """Whether a pending act's sentence says when it applies (`NOT_YET_SAID`) and can be quoted alone."""
    return bool(NOT_YET_SAID.search(sentence)) and not is_anaphoric(sentence) and not has_instructions(sentence)


def status_verdict(
    item: PlanItem, asked: str, places: set[str], codes: Sequence[str], cands: Sequence[Candidate], ctx: EngineContext
) -> Claim | None:
    """ "No, only proposed (date)" to a yes/no asking whether an instrument is law, binding or in force ("Is the EU's
    anti-corruption directive already binding, so that ...?") when the document of `codes` whose own name states
    the instrument's words best is a proposal, "No, not yet: X applies only from D." when it is an act not yet
    applicable ("Is Verifactu in force in Spain today?"): the rule asked about is not law, whatever its sentences
    would do (they share few of the question's words: "would" fines, not "must"). Quoted beside it: its sentence
    saying it does not apply yet or naming it, and the rule in force (what the pending act says remains in force,
    else a source in force). None when the asked instrument is not read, no pending act names it, or a document in
    force names it as well."""
    m = STATUS_SUBJECT.match(asked)
    if m is None:
        return None
    subject = m.group("subject")
    words = term_set(subject) - places
    lone = _lone_name(subject, words)
    if len(words) < 2 and not lone:
        return None
    needed = max(min(2, len(words)), round(SUBJECT_OWN_NAME * len(words)))

    def said_of(text: str) -> int:  # a lone name is stated as a word ("Widgetcheck" is no "widget")
        return len(words & term_set(text)) if lone else len(said_terms(words, text))

    named = [
        (said_of(own_name(d)), d)
        for d in ctx.catalog.all()
        if d.jurisdiction in codes and ctx.catalog.status_at(d.id, ctx.as_of) != DocStatus.superseded
    ]
    best = max((n for n, _ in named), default=0)
    top = [d for n, d in named if n == best]
    pending = (DocStatus.proposed, DocStatus.not_yet_applicable)
    if best < needed or len(top) != 1 or (status := ctx.catalog.status_at(top[0].id, ctx.as_of)) not in pending:
        return None
    doc = top[0]

    def naming(s: str) -> bool:
        return said_of(s) >= needed and not is_anaphoric(s)

    quote = (status == DocStatus.not_yet_applicable and first_sentence(doc.id, ctx, _when_applies)) or None
    quote = quote or first_sentence(doc.id, ctx, naming)
    if quote is None:
        return None
    rule = _said_in_force(doc.id, ctx, quote.quote) or _rule_in_force(cands, doc.jurisdiction, ctx, quote.quote)
    stated, quotes = _beside_rule(pending_lead(doc, status, undated="a date not yet set"), quote, rule)
    return Claim(text=stated, plan_item_ids=(item.id,), kind="verdict", citations=quotes)


UNIVERSAL_ASKED = re.compile(
    r"\b(?:every|all)\s+(?:(?:of\s+)?(?:the|their|its|our|your)\s+)?(?P<noun>[A-Za-z][\w-]*)", re.I
)
"""A yes/no asked of every or all of something ("Is a warning required for every product sold ...?")."""
ALL_BEFORE = re.compile(r"\b(?:every|all|any|each)\s+(?:[\w-]+\s+){0,2}$", re.I)
"""A sentence's own universal before the noun ("any consumer product", "all large employers")."""
SUBJECT_BEFORE = re.compile(r"^\W*(?:(?:a|an|the|all|any|every|each)\s+)?(?:[\w-]+\s+){0,2}$", re.I)
DUTY_AFTER = re.compile(
    r"^[\w-]*\W+(?:(?!(?:with|that|who|which|whose|of|above|below|over|under|having|employing)\b)[A-Za-z][\w-]*\s+)"
    r"{0,5}?(?:must|shall|(?:is|are)\s+(?:required|obliged|bound)|(?:has|have|needs?)\s+to)\b",
    re.I,
)
"""The noun opening a sentence as the subject of a duty ("Employers must ...", "A producer shall ..."): the law's
way of saying it of all of them, unless words between bound it ("Employers with 250 or more workers must ...")."""


FREQUENCY_REACH = 16
"""Characters after "every" read for a frequency's unit ("every three years")."""


WHICHEVER = re.compile(r"\b(?:whether\b[^.;,]*\bor|regardless of|irrespective of|whatever|whichever)\b[^.;,]*", re.I)
"""A span saying the rule holds either way ("whether the loan is secured or unsecured", "regardless of size")."""


def universal_asked(part: str) -> frozenset[str]:
    """The stems of the nouns a yes/no asks of every or all of ("every product", "all member states"), not a
    frequency ("every year")."""
    found: set[str] = set()
    for m in UNIVERSAL_ASKED.finditer(part):
        noun = m.group("noun").lower()
        if noun not in STOPWORDS and not frequencies(part[m.start() : m.end() + FREQUENCY_REACH]):
            found.add(stem(noun))
    return frozenset(found)


def says_of_all(nouns: Collection[str], said: str) -> bool:
    """Whether the sentences say what they say of every one of these nouns (stems): with a universal of their own
    before it ("any product", "all employers"), by making it the subject of a duty ("Producers must ...") or by
    saying the rule holds either way for it ("whether the loan is secured or unsecured"). A
    "Yes" to "Is a warning required for every product?" does not rest on "Warnings may be placed on the product
    label", which says where a warning goes, not that every product needs one."""
    for noun in nouns:
        if not any(
            ALL_BEFORE.search(s[: m.start()])
            or (SUBJECT_BEFORE.match(s[: m.start()]) and DUTY_AFTER.match(s[m.start() :]))
            or any(w.start() < m.start() < w.end() for w in WHICHEVER.finditer(s))
            for s in sentences(said)
            for m in re.finditer(r"[A-Za-z][\w-]*", s)
            if stem(m.group(0)) == noun
        ):
            return False
    return True


ROLE_ASKED = re.compile(
    r"(?:\b(?:we|us|I)\s*,\s*|(?:^|[.?!]\s+))as\s+(?:a|an|the)\s+(?P<role>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s*,|"
    r"\b(?:we|I)\s+(?:are|am)\s+(?:a|an)\s+(?P<is>(?:[\w-]+\s+){0,3}?[a-z][\w-]*)"
    r"(?=\s*[,.;:]|\s+(?:of|in|on|at|that|which|who|with|and|based|from|selling|making)\b)",
    re.I,
)
"""The capacity in which the asker asks ("As the retailer, must we report ...?", "we, as a retailer, have to ...",
"We are a Canadian retailer, not the manufacturer, ..."): its last word names it."""
ACTIVE_DUTY = re.compile(
    r"\b(?:must|shall|(?:is|are)\s+(?:required|obliged|bound)\s+to|(?:has|have|needs?)\s+to)\s+(?!(?:be|not)\b)", re.I
)
"""A duty someone is to carry out, not one on what is to be done ("must report", not "must be reported")."""
ANYONE = re.compile(
    r"\b(?:any|anyone|anybody|every|everyone|everybody|all|each|whoever|persons?|no\s+one|business(?:es)?|"
    r"undertakings?|entit(?:y|ies)|organi[sz]ations?)\b",
    re.I,
)
"""A subject that names no one in particular (any person, a business): a duty on it binds the asker too."""


def asker_role(question: str) -> frozenset[str]:
    """The stem of the capacity the question says the asker is in ("As the retailer, ...", "We are a Canadian
    retailer, ..."), if it says one."""
    m = ROLE_ASKED.search(question)
    said = (m.group("role") or m.group("is")).split() if m else []
    return frozenset(term_set(said[-1])) if said else frozenset()


def binds_another(role: Collection[str], sentence: str) -> bool:
    """Whether the sentence's duty binds someone named otherwise than the asker's `role`: "A manufacturer or
    importer ... must report it ... within 10 days" lays no duty on a retailer, so it grounds no Yes to "As the
    retailer, must we report ...?". A subject naming the role ("Retailers and distributors must ..."), naming no
    one in particular ("Any person must ...") or a duty on what is to be done ("Reports must be filed ...") does
    not."""
    subject = _duty_subject(sentence) if role else None
    if subject is None:
        return False
    said = term_set(subject)
    head = subject.rsplit(",", 1)[-1]  # "the manufacturer or, if it carries on business outside XY, the importer"
    return bool(said) and not (said & set(role)) and not ANYONE.search(head)


def binds_role(role: Collection[str], sentence: str) -> bool:
    """Whether the sentence lays a duty of its own on the asker's `role` ("Retailers ... must endeavour to notify
    the manufacturer"): where the law does, a duty it lays on others is theirs alone; where it never names the role
    (a brand, where the law speaks of producers), who else it binds says nothing of the asker."""
    subject = _duty_subject(sentence) if role else None
    return subject is not None and bool(term_set(subject) & set(role))


def _duty_subject(sentence: str) -> str | None:
    """The words before the sentence's first duty someone is to carry out (`ACTIVE_DUTY`), in its clause."""
    duty = ACTIVE_DUTY.search(sentence)
    return None if duty is None else re.split(r"[;:]", sentence[: duty.start()])[-1]


def says_of_some(nouns: Collection[str], sentence: str) -> bool:
    """Whether the sentence names every one of these nouns (stems) but says its rule of some of them only
    (`says_of_all` being false): "Employers with 25 or more employees must include ..." answers No to whether every
    employer must, while a sentence on "credit institutions" says nothing of "every bank"."""
    named = {stem(w) for w in re.findall(r"[A-Za-z][\w-]*", sentence)}
    return bool(nouns) and set(nouns) <= named and not says_of_all(nouns, sentence)
