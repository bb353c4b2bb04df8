"""Offline drafter: per plan item, the best whole sentences of the passages retrieved for it, cited to their
passage; a verdict first for a yes/no question; revision applies each approved correction with its evidence."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta
from functools import partial

from core.domain.answer import INTENDED, Answer, Claim, Gap, Quote, gap_for, open_part, sourced_verdict
from core.domain.documents import DocStatus, Hit
from core.domain.figures import (
    DAYS_IN,
    blanked,
    count_bounds,
    count_spans,
    counts,
    dates,
    days_of_year,
    figures,
    frequencies,
    period_lengths,
    period_sides,
)
from core.domain.gazetteer import (
    COMPARED,
    currency_hint,
    is_place_name,
    jurisdiction_name,
    occurrences,
    same_jurisdiction,
)
from core.domain.instructions import has_instructions
from core.domain.plan import ANY_JURISDICTION, ASPECT_NEEDS, Aspect, PlanItem, PlannedJurisdiction, ResearchPlan
from core.domain.records import Deficiency, Evidence
from core.engines.base import DraftResult, EngineContext
from core.engines.offline.aspects import SANCTION, TELL_WORDS, states_need
from core.engines.offline.on_facts import APPLIES_BACK, HEADCOUNT, on_measure, referred
from core.engines.offline.ranking import (
    DUTY,
    Candidate,
    also_answers,
    beside_own_law,
    candidates,
    extended,
    item_budget,
    pick,
    section_code,
    stated,
)
from core.engines.offline.recall import names_in
from core.engines.offline.relevance import MONTH_TERMS, PREFIX, said_terms, stem_key
from core.engines.offline.revisers import REVISERS
from core.engines.offline.sources import (
    ENDED,
    NEGATION,
    YEAR,
    cited,
    first_sentence,
    first_statement,
    instrument_numbers,
    instrument_text,
    own_name,
)
from core.engines.offline.verdicts import (
    EXISTS_ASKED,
    STILL_ASKED,
    as_state,
    asked_change,
    asker_role,
    binds_another,
    binds_role,
    change_verdict,
    names_act,
    not_yet_verdict,
    pending_lead,
    per_jurisdiction,
    proposed_verdict,
    says_of_all,
    says_of_some,
    speaks_to,
    status_verdict,
    still_in_force,
    universal_asked,
)
from core.engines.text import (
    EITHER_OR,
    OPEN_LEAD,
    STOPWORDS,
    VAGUE_SIZE,
    WH_PART,
    facts_set_out,
    is_anaphoric,
    kinds,
    measures_facts,
    planned_within,
    question_sentences,
    questions_asked,
    referred_subject,
    rival_kind,
    sentences,
    stem,
    term_set,
    terms,
    trailing_yes_no,
    yes_no_parts,
    yes_no_sentence,
)

VERDICT_CONTEXT = 3
"""Sentences around the verdict's own that may explain it: the rule before it, the denial or limit after it."""
VERDICT_WORDS = 100
OWN_LAW = re.compile(r"\b(?:its|their|[A-Z][\w.-]*['\u2019]s?)\s+own\b")
"""A yes/no part asking about a place's own law ("Does Bavaria have its own ... law?"): another jurisdiction's
source never answers it."""
FRAME = re.compile(r"^\s*(?:is it|isn't it|is that)\s+(?:really\s+)?(?:true|correct|right|so|the case)\s+that\s+", re.I)
"""The frame of a yes/no question that asks whether a statement holds ("Is it true that ..."): not its subject."""
GROUNDED = 0.5
"""Share of the yes/no sentence's words a verdict's supporting sentence must state."""
LEAD_SHARED = 2
"""Words a sentence before or after a verdict's own must share with it to be about the same thing: a denial after
it that is about something else ("A merchant may not advertise a credit rate ...") does not decide the answer."""
PART_GROUNDED = 2
"""Words of its own a part of a question asking two yes/no things must share with the sentence answering it when
it has more than that many (one shared word, "workers", does not answer whether a worker may report
anonymously); a part of one or two words ("is compensation capped") needs one."""
PART_PREFIX = 7
VERDICT_TRIES = 5
"""Candidates, best first, searched for one that speaks to the yes/no sentence."""
WITHOUT = re.compile(r"\bwithout\b", re.I)
"""A yes/no asking whether something holds without a thing ("valid without a PAC stamp", "compulsory without a
derogation"): a sentence requiring the thing answers No, one saying it is not needed answers Yes, and the rule
engine does not read which; the rules are quoted, the yes/no left open."""
ASKED_NEGATED = re.compile(
    r"\b(?:cannot|can't|not|never|no longer|isn't|aren't|doesn't|don't|didn't|won't|mustn't|needn't|hasn't|"
    r"haven't|shouldn't|wasn't|weren't|none|nothing|nobody|neither|nor|"
    r"(?<!yes or )(?<!yes/)no(?!\s+(?:later|sooner|more|less|fewer)\b)(?!\.?\s*\d))\b",
    re.I,
)
"""A yes/no asked in the negative ("cannot withdraw", "does not have to", "need no channel"): a sentence's Yes or
No answers the positive question, and reading which way it turns for the negated one is a guess; no verdict, the
rule quoted."""
THIRD_PARTY_BACK = re.compile(r"\b(?:her|hers|him|his|them|their|theirs|its)\b", re.I)
"""A yes/no that refers back to what the facts describe by a possessive or an object ("Is her dismissal unfair?",
"Can the commission pay her an award?", "Can its goods enter ...?"): whether a rule holds then turns on those facts
(why she was dismissed, how the goods were made), which no quoted rule settles by itself."""
PLURAL_NOUN = re.compile(r"\b[a-z]{2,}[^s\W]s\b", re.I)
"""A word in the plural ("employees", not "business" or "us"): what "them" or "their" may stand for."""


def _refers_to_facts(part: str) -> bool:
    """Whether a yes/no refers back to what the facts describe (`THIRD_PARTY_BACK`): a plural pronoun that follows a
    noun in the plural within the part stands for that noun ("give employees paid vacation, or pay them for public
    holidays?" asks of employees, not of the facts)."""
    for m in THIRD_PARTY_BACK.finditer(part):
        before = [w for w in PLURAL_NOUN.findall(part[: m.start()]) if w.lower() not in STOPWORDS]
        if m.group(0).lower() not in ("them", "their", "theirs") or not before:
            return True
    return False


NONE_STATED = re.compile(r"^\W*(?:no|neither)\s|\bthere\s+(?:is|are|was|were)\s+no\b|\bno\s+such\b", re.I)
"""A sentence saying that no such thing exists ("No EU regulation or directive requires ...", "There is no ...")."""
SAME_ASKED = re.compile(r"\b(?:the same|same as|identical|differ\w*|different|alike|equivalent|similar)\b", re.I)
"""A yes/no asking whether the rules of two places are the same ("Do the EU regulation and the US rule cover the
same source countries?"): one sentence of one source says what one rule is, not that the other matches it; no
verdict, the rules quoted side by side. (Within one place a sentence may state both: "MSBs file SARs at USD 2,000
...; check cashers are not covered"; and "pay a woman the same as a man" asks what one rule says.)"""
CONDITION_CLAUSE = re.compile(
    r"(?:,\s*so\b|\b(?:if|unless|when|where|whether|in case|(?:as|so) long as|provided(?: that)?|"
    r"(?:below|above|under|over|beyond|within|up to) which)\b).*$",
    re.I | re.S,
)
"""The condition a yes/no sets ("... and face penalties if they don't?"), a clause describing what it asks about
("lifted the threshold below which they don't need to report") or a consequence it draws ("has scrapped the Act,
so the 14-day period no longer applies?"): a negation there is not the question's."""
SUBJECT_WORDS = 2
"""Words a yes/no question naming no place and no figure must ask about for any sentence to answer it."""
SCOPE_DENIAL = re.compile(
    r"\b(?:outside (?:the |its |their )?scope|out of (?:the |its )?scope|falls? outside|"
    r"not (?:be )?(?:covered|in scope|within (?:the |its )?scope)|excluded from|left out of|"
    r"(?:is|are|was|were)\s+(?:also\s+)?excluded(?=\s*[.;]))\b",
    re.I,
)
"""Wording that puts something outside what the rules cover: a No to whether they cover it."""
WRONGDOING = re.compile(
    r"\b(?:fined|convicted|sanctioned|penali[sz]ed|breach\w*|violat\w*|infring\w*|contraven\w*)\b", re.I
)
"""Words of a wrong done, which make an exclusion that follows it a sanction."""
EXEMPT_ASK = re.compile(r"\b(?:exempt\w*|excluded|exclusion|outside (?:the |its )?scope|free from)\b", re.I)
"""A yes/no asked in the negative ("Are gifts exempt ...?"): "Yes" when the deciding sentence exempts it ("are
exempt", not "are no longer exempt") or denies what is asked ("need not report"), "No" when it lays the duty on it
("bona fide gifts must also be reported")."""
EXEMPTS = re.compile(r"\b(?:exempt\w*|excluded?s?)\b", re.I)
CRIME = r"crime|criminal|offen[cs]e|illegal|unlawful"
PROHIBIT_ASK = re.compile(rf"\b(?:ban(?:s|ned)?|prohibit\w*|forbid\w*|outlaw\w*|{CRIME})\b", re.I)
BAN_STATUS = re.compile(
    r"\bbans?\s+(?:(?:is|are)\s+)?(?:still\s+)?(?:in force|in effect|valid|law|appl(?:y|ies))\b", re.I
)
"""A ban asked of its status ("Is the FTC's federal non-compete ban in force for US employers?"): whether the ban
is law, not whether something is banned."""
CONDITIONAL = re.compile(r"\b(?:only if|unless|except (?:where|if|when))\b", re.I)
"""A negation under a condition ("The presumption does not apply only if the importer shows ..."): an exception
to the rule, not a No to whether the rule holds."""
PARTIAL = re.compile(
    r"\b(?:exempt|exclud)\w*\s+(?:some|certain|particular|specified|limited|a few|several)\b|^\W*(?:some|certain)\s",
    re.I,
)
"""An exemption of a part only ("The Law exempts some offers from registration", "Certain sales are exempt"): a
sentence denying the rule so says it depends, not that the rule does not hold."""
PROHIBITS = re.compile(
    rf"\b(?:ban(?:s|ned)?|prohibit\w*|forbid\w*|outlaw\w*|{CRIME}|barred|"
    r"(?:must|may|shall) not|not (?:be )?(?:entitled|permitted|allowed)|no (?:[a-z]+ ){1,2}(?:may|shall|must|can))\b",
    re.I,
)
"""Wording that forbids: what a sentence must state to answer whether something is banned or a crime ("no person
may trade in goods for which obsolescence is planned" bans planned obsolescence)."""
CRIMINALISES = re.compile(rf"\b(?:{CRIME}|felony|misdemeanou?r)\b", re.I)
"""Wording that makes an act a crime ("charging interest above 25% is criminal usury"): a plain yes/no ("Can a
lender charge more than 25%?") cannot be read from its words, since the crime is the answer's No and no negation
says so."""
NOT_APPLY = re.compile(r"\b(?:does|do|shall|will|would)\s+not\s+apply\s+to\b", re.I)
"""A rule that does not apply to something asked about denies it, whatever the rule is called."""
NOT_COVERED = re.compile(
    r"(?<!\bthat\s)(?<!\bwhich\s)\b(?:does|do|shall|will|would)\s+not\s+(?:cover|include|extend\s+to|reach)\b", re.I
)
"""A rule that leaves out what it lists ("It does not cover international payments, payments by card or cheque,
..."): each thing listed is outside it; not a thing described by what it lacks ("a credit rate that does not
include all credit charges")."""
COVERED_WORDS = 2
"""Asked words (or all, when fewer are asked) one thing a rule leaves out must state to be what is asked ("payments
by card" for "card payments"; "international payments" is no answer on domestic ones)."""
DENIES_WHAT_FOLLOWS = re.compile(
    r"\b(?:does|do|did|shall|will|would|need|may|must)\s+not\s+(?:oblige|require|compel|force)\b[^.;:,]{0,60}?\bto\b|"
    r"\bnot\s+(?:\w+\s+){0,2}?(?:condition|prerequisite|precondition|requirement)s?\s+(?:for|of|to)\b",
    re.I,
)
"""A denied duty or condition, which denies what follows it however far its object stands from the negation ("does
not oblige Member States to introduce ...", "is not a legal condition for selling ...")."""
NOT_APPLYING = re.compile(r"\b(?:does|do|shall|will|would)\s+not\s+(?:apply|govern)\b|\bis\s+not\s+applicable\b", re.I)
"""An instrument or rule that does not apply (anywhere the sentence goes on to name): a No to whether it applies,
when the sentence's subject is what is asked about."""
UNENACTED = re.compile(
    r"\b(?:(?:has|have|had)\s+not\s+(?:yet\s+)?been|(?:was|were|is|are)\s+(?:never|not\s+yet)|never\s+been)\s+"
    r"(?:enacted|adopted|passed|proclaimed|ratified|brought into force)\b|\bnot\s+(?:yet\s+)?(?:law|in force)\b",
    re.I,
)
"""Wording that says an instrument never became law ("has been introduced several times but has not been
enacted", "was never proclaimed into force"): what it would do is no Yes to anything."""
PROPOSES = re.compile(
    r"\b(?:bills?|proposals?|amendments?|draft\s+(?:bills?|laws?|acts?|regulations?))\s+"
    r"(?:(?:has|have|had)\s+been|was|were|is|are)\s+(?:introduced|tabled|proposed|put forward|published)\s+"
    r"(?:to|that would)\b",
    re.I,
)
"""A sentence reporting a proposal to change the law ("Bills have been introduced to extend the Act to home
appliances"): what it would change is not the law, so no Yes rests on it."""
UNVERIFIED = re.compile(
    r"^[^;]*\b(?:is|are|was|were|remains?)\s+(?:not verified|unverified|unclear)(?:\s+here)?\W*$", re.I
)
"""A sentence whose one statement is that something is not verified ("The exact date on which the index stopped
being required for smartphones is not verified here."): it grounds no verdict either way."""
PLACE_KINDS = frozenset(term_set("state states city province county territory region republic kingdom federal"))
"""Words that say what kind of place a name is: left alone beside a place's name ("New York State"), they name no
body or instrument."""
REFUSAL = re.compile(r"\b(?:refus\w*|deny|denies|withh[oe]ld\w*|declin\w*|ignor\w*|skip\w*|opt(?:s|ed)? out)\b", re.I)
"""A yes/no asking whether something may be left undone ("Can a California employer refuse to tell an employee
her pay scale?"): a sentence stating the duty without any refusal ("must include the pay scale in every job
posting") reads "Yes" to the wrong question; only a sentence that speaks of refusing answers it."""
PERMISSION_ASK = re.compile(
    r"\b(?:allowed|permitted|free|lawful(?:ly)?|legal(?:ly)?)\s+to\b|"
    r"\b(?:(?:may|can)\s+(?:we|i|you|they)|(?:we|i|you|they)\s+(?:may|can))\s+(?:still\s+|legally\s+|lawfully\s+)?"
    r"(?!be\b|get\b|have\b)[a-z]+",
    re.I,
)
"""A yes/no asking whether something may be done ("Is a US company allowed to retaliate against ...?", "Is it true
that we may still import such goods?")."""
MAY_ASKED = re.compile(r"\W*(?:can|may|could)\b", re.I)
"""A yes/no asking whether something can be done: a proposal that would change what may be done answers it
neither way (it may grant or take away)."""
PROTECTED_FROM = re.compile(r"\b(?:protect\w*|shield\w*|safeguard\w*)\b[^.;]{0,200}?\b(?:against|from)\s+(\w+)", re.I)


BANS_WHAT = re.compile(r"\b(?:bans?|prohibits?|forbids?|outlaws?)\s+([^.;:]+)", re.I)
"""An act that bans something, and what it bans ("bans offset-based product claims of climate neutrality")."""
BANNED_ARE = re.compile(
    r"(?:^|[.;:]\s*)([^.;:]+?)\s+(?:is|are)\s+(?:(?:also|now|therefore)\s+)?(?:banned|prohibited|forbidden|outlawed)\b",
    re.I,
)
"""What a sentence says is banned, in the passive ("Incentives to invest, such as refer-a-friend bonuses, are
banned")."""
BAN_PARTS = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", re.I)
"""Where a ban's object goes on to another thing it bans ("offset-based claims and generic claims without ...")."""
BAN_EXCEPT = re.compile(r"\b(?:unless|without|except|other than|save)\b", re.I)
"""Wording by which a ban spares some cases ("bans generic claims without recognised performance")."""
BAN_NARROWS = re.compile(r"\b(?:that|which|where|if|when|whose)\b", re.I)
"""Wording by which a ban covers some cases only ("claims that are based on offsetting")."""
BANNED_WORDS = 2
"""Asked words a ban's object must state to ban what is asked, not something near it."""


def _bans(sentence: str, wanted: set[str]) -> bool | None:
    """Whether the sentence bans what is asked (at least BANNED_WORDS of its words in one thing the ban names):
    True when it bans it outright or in the case asked ("claims based on offsetting" for a claim asked of as based
    on offsetting), None when the ban spares some cases or covers only cases the question does not state (it
    depends on the facts), False when it bans nothing asked."""
    found: list[bool | None] = []
    for m in (*BANS_WHAT.finditer(sentence), *BANNED_ARE.finditer(sentence)):
        parts = BAN_PARTS.split(m.group(1))
        # "... are banned unless the caller has consent": what follows a passive ban may spare some
        spared = m.re is BANNED_ARE and bool(BAN_EXCEPT.search(sentence[m.end() :].split(";")[0]))
        for at, part in enumerate(parts):
            if len(said_terms(wanted, part)) < BANNED_WORDS:
                continue
            after = parts[at + 1] if at + 1 < len(parts) else ""
            scope = f"{part} {after}" if BAN_EXCEPT.match(after) or BAN_NARROWS.match(after) else part
            narrowed = BAN_NARROWS.search(scope)
            if spared or BAN_EXCEPT.search(scope):
                found.append(None)
            else:
                found.append(not narrowed or bool(said_terms(wanted, scope[narrowed.end() :])) or None)
    if not found:
        return False
    return True if all(found) else None


def _protects_against(sentence: str, wanted: set[str]) -> bool:
    """Whether the sentence protects someone against what is asked ("protects employees ... against retaliation"
    for "allowed to retaliate"): a No to whether it is allowed."""
    return any(said_terms(wanted, m.group(1)) for m in PROTECTED_FROM.finditer(sentence))


YEAR_ASKED = re.compile(r"\b(?:in|since|from|until|by|before|after|during)\s+((?:19|20)\d\d)\b", re.I)
"""A year a yes/no asks about ("take effect in 2017"; not "Directive 2023/970" or "the 2025 rule")."""
STOPPED = re.compile(
    r"\b(?:discontinu\w*|ceased?|abolish\w*|scrapped|no longer|stopped|terminated|lapsed|wound down)\b", re.I
)
"""Wording that says something has ended ("collected pay data for 2017 and 2018 only and then discontinued that
collection"): no Yes to whether it still goes on."""
DUTY_ASKED_OF = re.compile(
    r"\b(?:must|shall|(?:has|have|need|needs) to|(?:required|obliged) to|requires?\s+(?:[\w-]+\s+){1,3}?to)"
    r"\s+(?:\w+\s+){0,3}?([a-z]{3,})\b",
    re.I,
)
"""A yes/no asking whether someone must do something ("Do firms have to carry out due diligence?", "Does California
require franchisors to register ...?")."""
BINDING = re.compile(
    rf"{DUTY.pattern}|\brequir(?:e|es|ed|ing)\b|\b(?:may|must|shall|can)\s*not\b|\bcannot\b|\bno more than\b|"
    r"\bnot (?:exceed|be more than)\b",
    re.I,
)
"""Wording that binds someone: a duty, a requirement, a prohibition or a cap ("may charge no more than 4%")."""


def binds(sentence: str, verb: str) -> bool:
    """Whether the sentence binds someone (`BINDING`) or states the asked act as the way it is done, in the passive
    ("Insider reports are filed electronically through SEDI" for "required to file ... on SEDI")."""
    if BINDING.search(sentence):
        return True
    return bool(verb) and bool(
        re.search(rf"\b(?:is|are)\s+(?:\w+ly\s+)?{re.escape(_verb_root(verb)[:5])}\w*(?:ed|en)\b", sentence, re.I)
    )


def _verb_root(verb: str) -> str:
    """The verb without the final letter its other forms change ("file" -> "fil" of "filed", "carry" -> "carri")."""
    return verb[:-1] if verb.endswith(("e", "y")) else verb


def _binds_to(sentence: str, verb: str) -> bool:
    """Whether the sentence binds someone to the asked verb itself ("must provide", "are required to file"), not
    denied."""
    if not verb:
        return False
    duty = re.search(
        rf"\b(?:must|shall|(?:is|are) (?:required|obliged) to|ha(?:s|ve) to)\s+(?:\w+\s+){{0,2}}?"
        rf"{re.escape(_verb_root(verb))}\w*",
        sentence,
        re.I,
    )
    return duty is not None and not _negates(sentence[max(0, duty.start() - 30) : duty.start()], set())


STATUS_ASK = re.compile(
    r"\b(?:law|in force|enacted|adopted|passed|in effect|binding(?:\s+on\b[^?,;]*)?)(?=\s*(?:[?,;]|\b(?:and|or|yet)\b|$))",
    re.I,
)
"""A yes/no asking whether an instrument is law ("Is the Paycheck Fairness Act law in the United States?", "...
in force?"): a sentence saying it never became law answers No."""
BEFORE_DATE = re.compile(r"^\s*(?:before|until|till|prior to|up to)\s+", re.I)
"""A sentence that opens by placing itself before a date ("Before 1 January 2025, the criminal rate was ...")."""


def held_before(sentence: str, as_of: date) -> bool:
    """Whether the sentence states what held only before a date on or before the as-of date: what it says no longer
    holds, so it grounds no verdict on what applies ("Is the criminal rate 60%?" is not answered Yes by "Before 1
    January 2025, the criminal rate was ... 60%"). A date after the as-of date ("Until 10 July 2027, ... apply")
    says what applies now."""
    m = BEFORE_DATE.match(sentence)
    if m is None:
        return False
    until = dates(sentence[m.end() : m.end() + DATE_REACH])
    return bool(until) and until[0] <= as_of


UNTIL = re.compile(r"\b(?:until|till|up to)\s+", re.I)


def lapsed(sentence: str, as_of: date) -> bool:
    """Whether the sentence bounds what it allows or requires by a date passed at the as-of date ("could continue to
    serve French customers only until 1 July 2026"): it no longer holds."""
    for m in UNTIL.finditer(sentence):
        until = dates(sentence[m.end() : m.end() + DATE_REACH])
        if until and until[0] < as_of:
            return True
    return False


DATE_REACH = 30
"""Characters after "Before" within which the date it names stands."""
LIMIT = re.compile(
    r"\b(?:not|no)\s+(?:later|more|less|fewer|longer)\s+than\b|\bnot\s+exceed(?:s|ing)?\b|\bat\s+the\s+latest\b|"
    r"\bin\s+no\s+(?:case|event|circumstances?)\s+(?:may|shall|can|will|must)\b(?=[^.;]{0,80}\bexceed)",
    re.I,
)
"""Wording that bounds a period or an amount ("within a period not exceeding three months", "no later than 30
June", "late interest may not exceed 4% per month", "In no case may a public authority's payment period exceed 60
days"): a limit the rule sets, not a denial of it."""
DENIAL_WINDOW = 4
"""The verdict with its context stays within about one plan item's words."""


class OfflineDrafter:
    """Extractive drafter over the typed answer."""

    name = "offline"

    def draft(self, plan: ResearchPlan, hits: Mapping[str, Sequence[Hit]], ctx: EngineContext) -> DraftResult:
        """Claims per plan item from the passages retrieved for it; items with no source said plainly."""
        sections: dict[str, list[Claim]] = {c: [] for c in plan.answer_codes()}
        texts: list[str] = []
        gaps: list[Gap] = []
        verdict: Claim | None = None
        shared: dict[str, list[str]] = {}
        extensions: dict[str, list[tuple[str, Quote, str]]] = {}
        budget = item_budget(plan)
        answerable = [i for i in plan.items if i.answerable]
        passages_of = beside_own_law(
            plan, {i.id: [(h.doc_id, h.chunk_id, h.text, h.score) for h in hits.get(i.id, ())] for i in answerable}, ctx
        )
        cands_of = {i.id: _of_named(i, candidates(i, passages_of[i.id], plan, ctx), plan, ctx) for i in answerable}
        # the verdict first, whatever the plan's order (a model planner may list it last): the items then leave out
        # the sentences it quotes instead of stating them twice
        for item in sorted(plan.items, key=lambda i: i.aspect != Aspect.verdict):
            if not item.answerable:
                gaps.append(gap_for(item, plan))
                continue
            passages, cands = passages_of[item.id], cands_of[item.id]
            if item.aspect == Aspect.verdict:
                pool = list({c.text: c for cs in cands_of.values() for c in cs}.values())
                verdict = _verdict(item, cands, passages, plan, ctx, pool)
                if verdict is not None:
                    texts.append(verdict.text)
                continue
            if item.aspect == Aspect.comparison:
                continue
            shared[item.id], extensions[item.id] = [], []
            for claim in pick(
                cands,
                item,
                texts,
                budget=budget,
                shared=shared[item.id],
                named=plan.named_doc_ids,
                extend=extensions[item.id],
            ):
                sections.setdefault(_section_of(item, claim, ctx), []).append(claim)
        for item, cand in _unasked_parts(plan, cands_of, texts):
            claim = Claim(text=cand.text, plan_item_ids=(item.id,), citations=cand.quotes, history=cand.history)
            sections.setdefault(_section_of(item, claim, ctx), []).append(claim)
            texts.append(cand.text)
        answer = Answer(verdict=verdict, gaps=tuple(gaps))
        for code, claims in sections.items():
            answer = answer.with_claims(code, claims)
        for item_id, held in shared.items():
            if held:
                answer = also_answers(answer, held, item_id)
        for item_id, additions in extensions.items():
            answer = extended(answer, additions, item_id)
        return cited(_named_by_claims(_verdict_answers(answer, plan, ctx), plan), ctx)

    def revise(
        self,
        plan: ResearchPlan,
        answer: Answer,
        addressed: Sequence[Deficiency],
        evidence: Sequence[Evidence],
        ctx: EngineContext,
    ) -> DraftResult:
        """Apply each addressed correction with the evidence its retrieval found."""
        for d in addressed:
            ev = [e for e in evidence if e.deficiency_id == d.id]
            answer = REVISERS[d.deficiency_type](plan, answer, d, ev, ctx)
        return cited(answer, ctx)


def _section_of(item: PlanItem, claim: Claim, ctx: EngineContext) -> str:
    """The answer section a drafted claim for the item goes to: its first source's jurisdiction, as the item's."""
    source = ctx.catalog.get(claim.citations[0].doc_id)
    return section_code(item, source.jurisdiction if source is not None else item.jurisdiction)


ASK_LEAD = r"^(?:(?:and|or|but)\s+)?"
ASK_PREPOSITION = r"(?:by|in|from|to|for|with|within|until|at|on|under|of)\s+"
"""How an open part may open before its question word ("and at what rate", "under which act")."""
OPEN_ASK = re.compile(rf"{ASK_LEAD}(?:{ASK_PREPOSITION})?(?:{OPEN_LEAD}|where|when)\b", re.I)
ASK_WORDS = 2
"""Words of an open part of the question ("which standard gives a presumption of conformity") a sentence must state
to answer it."""


def _open_parts(plan: ResearchPlan) -> list[tuple[set[str], set[str]]]:
    """The subject words of each open part the question asks ("Which standard gives a presumption of conformity,
    what must each body publish ...?" -> {standard, presumption, conformity}, {body, publish}): its topic words,
    places aside, with the word it asks for after "what" or "which" when that is one of them ("at what rate does
    statutory interest run": rate)."""
    places = _place_terms(plan)
    topic = set(plan.topic_terms)
    parts = []
    for s in questions_asked(plan.question).split("?"):
        for p in (p.strip() for p in WH_PART.split(s)):
            if not OPEN_ASK.match(p):
                continue
            words = term_set(p) & topic - places
            head = HEAD_ASKED.match(p)
            parts.append((words, term_set(head.group("head")) & words if head else set()))
    return [(words, head) for words, head in parts if len(words) >= ASK_WORDS]


HEAD_ASKED = re.compile(rf"{ASK_LEAD}{ASK_PREPOSITION}(?:what|which)\s+(?P<head>[a-z][\w-]*)", re.I)
"""The word an open part asks for after a preposition ("at what rate", "under which act"): a sentence that speaks
to the part's other words without it ("Once statutory interest starts to run, the supplier may also claim a fixed
sum ...") does not answer it. Without the preposition the word after "what" may be a verb ("What happened to
...?")."""


def _speaks_to_part(part: set[str], head: set[str], text: str) -> bool:
    """Whether a text states ASK_WORDS of the part's words, its asked word among them."""
    said = said_terms(part, text)
    return len(said) >= ASK_WORDS and head <= said


def _unasked_parts(
    plan: ResearchPlan, cands_of: Mapping[str, Sequence[Candidate]], texts: Sequence[str]
) -> list[tuple[PlanItem, Candidate]]:
    """For each open part of the question no drafted sentence speaks to (`_speaks_to_part`), the best candidate of
    any item that does, with that item: the aspects planned may all miss a part ("which standard gives a
    presumption of conformity" is no deadline, duty or date), or one item may answer one of two parts it covers
    ("What fixed sum can we add, and at what rate does statutory interest run?"), and the answer then covered half
    the question. A candidate answers a part by stating half its words, which need not include the asked word
    ("what size separates state from federal supervision?": "An issuer with no more than $10 billion ... may
    choose a state regime"), or by stating the asked word and a figure ("The rate ... is 8% above the Bank of
    England base rate")."""
    out: list[tuple[PlanItem, Candidate]] = []
    said = list(texts)
    for part, head in _open_parts(plan):
        if any(_speaks_to_part(part, head, t) for t in said):
            continue
        best: tuple[int, float, PlanItem, Candidate] | None = None
        for item in plan.items:
            if item.aspect in (Aspect.verdict, Aspect.comparison):
                continue  # only a verdict answers the yes/no: a sentence tagged with it would hide that none stands
            for c in cands_of.get(item.id, ()):
                if any(stated(q.quote, said) for q in c.quotes) or (c.lead and stated(c.lead, said)):
                    continue  # a sentence the answer holds, alone or with its antecedent, or a list it quotes
                stated_words = said_terms(part, c.text)
                n = len(stated_words)
                enough = n >= max(ASK_WORDS, (len(part) + 1) // 2) or bool(
                    head and head <= stated_words and figures(c.text)
                )
                if enough and (best is None or (n, c.score) > best[:2]):
                    best = (n, c.score, item, c)
        if best is not None:
            out.append((best[2], best[3]))
            said.append(best[3].text)
    return out


def _of_named(item: PlanItem, cands: list[Candidate], plan: ResearchPlan, ctx: EngineContext) -> list[Candidate]:
    """The candidates from the documents in force the question names, when it names no place: "How long is QPIP
    paternity leave?" asks of that plan, not of other places' paternity leave (what the plan does not say stays
    open). A question naming only acts that no longer apply ("Is the FTC rule in force, and what applies instead?")
    is answered from the others too."""
    if item.jurisdiction != ANY_JURISDICTION or plan.jurisdictions:
        return cands
    named = [d for d in plan.named_doc_ids if ctx.catalog.status_at(d, ctx.as_of) == DocStatus.in_force]
    return [c for c in cands if c.doc_id in named] if named else cands


def _verdict_answers(answer: Answer, plan: ResearchPlan, ctx: EngineContext) -> Answer:
    """The answer with its verdict tagged with each item of a particular need (`ASPECT_NEEDS`: a date, a figure, a
    body) that no claim answers, when the verdict quotes a source in force of the item's place stating it, or one
    not yet applicable stating when: "No, not yet: ... A further postponement, to 1 January 2027, ..." states when
    Verifactu applies, which the item asking when need not say again, nor be disclosed as missing. A proposal's
    figures and dates are not law: the items stay open."""
    verdict = answer.verdict
    if verdict is None:
        return answer
    sources = [
        (q.quote, doc.jurisdiction, ctx.catalog.status_at(doc.id, ctx.as_of))
        for q in verdict.citations
        if (doc := ctx.catalog.get(q.doc_id)) is not None
    ]
    tagged = {i for _, c in answer.claims() if c.kind != "verdict" for i in c.plan_item_ids}
    for item in plan.items:
        if item.id in tagged or not item.answerable or item.aspect.value not in ASPECT_NEEDS:
            continue
        when = item.aspect in (Aspect.date, Aspect.deadline)
        quoted = " ".join(
            quote
            for quote, code, status in sources
            if same_jurisdiction(item.jurisdiction, code)
            and (status == DocStatus.in_force or (when and status == DocStatus.not_yet_applicable))
        )
        if quoted and states_need(item.aspect, quoted, currency_hint(item.jurisdiction)):
            answer = also_answers(answer, [verdict.text], item.id)
    return answer


def _named_by_claims(answer: Answer, plan: ResearchPlan) -> Answer:
    """The answer without the gap of a name the plan could not place where its claims name it ("Xinjiang" in a
    question about import bans that the quoted law names): it is not true that the answer says nothing about it."""
    said = answer.said()

    def named(gap: Gap) -> bool:
        item = plan.item(gap.plan_item_id)
        return item is not None and bool(plan.names_unplaced(item, said))

    return answer.model_copy(update={"gaps": tuple(g for g in answer.gaps if not named(g))})


def _verdict(
    item: PlanItem,
    cands: list[Candidate],
    passages: list[tuple[str, str, str, float]],
    plan: ResearchPlan,
    ctx: EngineContext,
    pool: Sequence[Candidate] = (),
) -> Claim | None:
    """The direct answer: from the status of the source stating it for a question about a change; one verdict
    per jurisdiction when asked for each; else one, or one per part of a question that asks two things ("must X
    ..., and must Y ...?"), in the order asked, each from the sentence that speaks to that part among those any
    item's retrieval found (`pool`, else `cands`)."""
    question = questions_asked(plan.question)  # "An employee was dismissed ... . Is it unfair, is ... capped?"
    if plan.verdict_on_facts:  # the rules are quoted; whether they hold on the question's own facts is open,
        plain = _grounds(plan)  # unless a rule's bound on the headcount or amount they give decides it
        applies = {"apply"} if APPLIES_BACK.search(_yes_no_part(plan)) else set()  # "Does the act apply to us?"
        grounds = replace(plain, words=frozenset({"apply" if w in BINDS_ASKED else w for w in plain.words} | applies))
        counted = on_measure(
            item, plan, pool or cands, lambda c, text: grounds.by(text, _source_name(c, ctx)), ctx, _named(plan)
        )
        if counted is not None and _outspoken(counted, grounds.words, pool or cands, ctx):
            counted = None  # the sized rule is not what the yes/no asks about: another sentence speaks to it
        # no rule in force speaks to it, only a proposal: no facts make that law
        if counted is None and not any(speaks_to(plain.by, _source_name(c, ctx), c.text) for c in (*pool, *cands)):
            proposal = proposed_verdict(item, plain.by, plan.answer_codes(), pool or cands, ctx, plain.words)
            if proposal is not None:
                return proposal
        statements = facts_set_out(plan.question)
        if (
            counted is not None
            or not statements
            or measures_facts(statements)
            or _changes_within(planned_within(statements), plan, pool or cands, ctx)
            or _sized(grounds, pool or cands, ctx)
        ):
            # a size, amount or date the facts give is the analyst's to hold against the rules
            return counted or _later_statuses(item, plan, pool or cands, ctx)
        if _refers_to_facts(_yes_no_part(plan)):
            # "Can the commission pay her an award?": what her facts make her is the analyst's to judge; a later
            # part asking whether an instrument is law is asked of the law ("... Is the proposed provision law?")
            return _later_statuses(item, plan, pool or cands, ctx)
        # the facts say only who and where: the yes/no is asked of the rules, of the subject they describe
        subject = referred_subject(plan.question)
        if subject:
            cands = [c for c in cands if said_terms({subject}, c.text)]
            pool = [c for c in pool if said_terms({subject}, c.text)]
    if ASKED_NEGATED.search(CONDITION_CLAUSE.sub("", _yes_no_part(plan))):
        return None  # "Is it true that a consumer cannot withdraw ...?": a Yes or No to a negated question is misread
    if SAME_ASKED.search(_yes_no_part(plan)) and len(plan.jurisdictions) > 1:
        return None  # whether two places' rules match is read from both, never from one sentence
    ended = _ended(item, plan, ctx, plan.named_doc_ids)
    if ended is not None:
        return ended
    status = status_verdict(item, _yes_no_part(plan), _place_terms(plan), plan.answer_codes(), pool or cands, ctx)
    if status is not None:
        return status
    trailing = trailing_yes_no(question)  # "How long ..., and is compensation capped?": the yes/no is the last part
    parts = yes_no_parts(trailing or question)
    first_changes = len(parts) > 1 and asked_change(parts[0]) and not any(asked_change(p) for p in parts[1:])
    later = not_yet_verdict(item, plan, ctx)  # "Do Polish KSeF penalties already apply?": from 1 January 2027
    if later is not None:
        return later
    change = asked_change(trailing or question)
    if change and not first_changes:  # "What did X change ...?" asks no yes or no about a change
        verdict = change_verdict(item, plan, cands, ctx)
        if verdict is not None or not as_state(change):  # "Has XY capped ...?" no source says was done: is it capped?
            return verdict
    if per_jurisdiction(plan):
        return _each(item, cands, passages, plan, ctx)
    if EITHER_OR.search(trailing or question):
        return None  # "..., or must it be made available?" asks which holds: the quoted rules say
    asked = _asked(plan)
    grounds = _grounds(plan)
    if trailing and not (grounds.words or grounds.dated):
        return None  # "..., and is it still the law?": what "it" is lies in the open question, not in this part
    if not trailing and len(grounds.words) < SUBJECT_WORDS and not (plan.jurisdictions or grounds.dated):
        return None  # "Is it legal?": one word, no place, no figure: no sentence can be told to speak to it
    if len(parts) < 2:
        if WITHOUT.search(parts[0] if parts else _yes_no_part(plan)):
            return None  # "Are Mexican invoices valid without a PAC stamp?": which way a rule turns it is a guess
        verdict = _one_verdict(
            item, cands, passages, asked, grounds, ctx, plan.answer_codes(), _named(plan), pool, _for_named(plan)
        ) or _beyond_limit(item, grounds, pool or cands, ctx)
        still = _asks_still_in_force(plan)
        if verdict is not None and verdict.history and still:
            return _ended(item, plan, ctx, verdict.doc_ids[:1])  # what held once does not answer whether it holds
        if verdict is None and still:  # no sentence says yes or no: the end of the ended instrument asked of may
            ended = _ended(item, plan, ctx, _asked_history(plan, (*pool, *cands), ctx))
            if ended is not None:
                return ended
        if still:
            end = _measure_ended(term_set(_yes_no_part(plan)) - _place_terms(plan), pool or cands, ctx)
            if end is not None:
                return Claim(text=f"No. {end.text}", plan_item_ids=(item.id,), citations=end.quotes, kind="verdict")
            if verdict is not None and verdict.text.startswith("Yes.") and not HOLDS_NOW.search(verdict.said):
                return None  # that it began does not say that it still holds
        return verdict
    context = term_set(question.replace(trailing, " ")) if trailing else set()
    claims: list[Claim] = []
    pieces: list[str] = []  # each part's verdict, or its "Open", in the order asked
    places, named = _place_terms(plan), _named(plan)
    used: dict[str, int] = {}
    for n, part in enumerate(parts, 1):
        asks = WH_PART.split(part, maxsplit=1)[0]  # "is compensation capped, and how long ...?": its yes/no
        status = (
            change_verdict(item, plan, cands, ctx)  # "Has X been raised to $17? ... can we still use ...?"
            if n == 1 and first_changes
            else status_verdict(item, asks, places, plan.answer_codes(), pool or cands, ctx)
            if n > 1
            else None
        )
        if status is not None:  # "..., and is the proposed provision already law?"
            claims.append(status.model_copy(update={"text": f"({n}) {status.text}"}))
            pieces.append(claims[-1].text)
            continue
        wanted = term_set(asks) - term_set(" ".join(parts[: n - 1] + parts[n:])) - places - context
        placed = term_set(asks) & places  # "Does the EU regulation govern our sales in Great Britain?"
        in_order = terms(asks)
        ranked = sorted(
            pool or cands,
            key=lambda c: (
                -len(_part_words(wanted, c.text)),
                -len(_part_words(placed, c.text)),
                -_run(in_order, terms(c.text)),
                c.text in used,
                not any(same_jurisdiction(c.jurisdiction, j) for j in named),
            ),
        )
        needed = len(wanted) if trailing else PART_GROUNDED if len(wanted) > PART_GROUNDED else 1
        still = still_in_force(asks)
        end = _measure_ended(term_set(asks) - places, pool or cands, ctx) if still else None
        if WITHOUT.search(asks) or (
            end is None and (not ranked or not wanted or len(_part_words(wanted, ranked[0].text)) < needed)
        ):
            pieces.append(open_part(f"({n})"))  # no sentence speaks to it: open, rather than a guessed yes or no
            continue
        best = end or ranked[0]
        word = "No." if end else _polarity(best.text, wanted, bool(EXEMPT_ASK.search(asks)))
        if still and word == "Yes." and not HOLDS_NOW.search(best.text):
            pieces.append(open_part(f"({n})"))  # that it began does not say that it still holds
            continue
        if best.text in used:  # the sentence answering an earlier part answers this one best too
            claims.append(Claim(text=f"({n}) {word} See ({used[best.text]}).", citations=best.quotes))
            pieces.append(claims[-1].text)
            continue
        used[best.text] = n
        said = {q.quote for c in claims for q in c.citations}
        quotes = tuple(q for q in best.quotes if q.quote not in said) or best.quotes  # an earlier part quotes it
        text = " ".join(q.quote for q in quotes)
        claims.append(Claim(text=f"({n}) {word} {text}", citations=quotes, history=best.history))
        pieces.append(claims[-1].text)
    if not claims:
        if trailing:
            return None
        return _one_verdict(
            item, cands, passages, asked, grounds, ctx, plan.answer_codes(), _named(plan), pool, _for_named(plan)
        )
    return Claim(
        text=" ".join(pieces),
        plan_item_ids=(item.id,),
        kind="verdict",
        citations=tuple(dict.fromkeys(q for c in claims for q in c.citations)),
        history=any(c.history for c in claims),
    )


def _later_statuses(item: PlanItem, plan: ResearchPlan, pool: Sequence[Candidate], ctx: EngineContext) -> Claim | None:
    """ "(1) Open ... (2) No, only proposed ...": the verdict of a question whose first yes/no is asked of its facts
    when a later one asks whether an instrument is law (`status_verdict`); the parts on the facts stay open. None
    when no later part gets a verdict."""
    parts = yes_no_parts(questions_asked(plan.question))
    places, codes = _place_terms(plan), plan.answer_codes()
    statuses = [
        None if n == 1 or _refers_to_facts(part) else status_verdict(item, part, places, codes, pool, ctx)
        for n, part in enumerate(parts, 1)
    ]
    if not any(statuses):
        return None
    return Claim(
        text=" ".join(
            f"({n}) {status.text}" if status else open_part(f"({n})") for n, status in enumerate(statuses, 1)
        ),
        plan_item_ids=(item.id,),
        kind="verdict",
        citations=tuple(dict.fromkeys(q for status in statuses if status for q in status.citations)),
    )


OUTSPOKEN = 2
"""Words of the yes/no by which a denial must speak to it more than the rule a verdict on the question's facts
quotes for that verdict to be set aside."""


def _outspoken(verdict: Claim, words: Iterable[str], pool: Sequence[Candidate], ctx: EngineContext) -> bool:
    """Whether a sentence of the pool that bounds no size denies what the yes/no asks and states OUTSPOKEN more of
    its words than the rule the verdict on the question's headcount or amount quotes: "Does it have to accept and
    follow up anonymous reports?" asked of a firm with 80 employees is answered by "Employers need not accept and
    follow up anonymous reports unless ...", not Yes by the rule that firms with 50 or more workers must set up
    reporting channels. (A duty the sized rule refers to, "must publish a statement", denies nothing; a sized rule
    beside it is the same question asked of another size.)"""
    wanted = set(words)
    rule = next((c for c in pool if verdict.citations and c.quotes[0] == verdict.citations[0]), None)
    duty = referred(rule, ctx) if rule is not None else []  # "The duty applies to ...": the duty speaks for it
    said = len(_part_words(wanted, " ".join((*duty, verdict.said))))
    return any(
        len(_part_words(wanted, c.text)) >= said + OUTSPOKEN
        and not count_bounds(c.text)
        and not figures(c.text)
        and _denied(c.text, wanted)
        for c in pool
    )


BINDS_ASKED = term_set("comply caught covered subject bound")
"""Words by which a yes/no on facts asks whether a rule binds its subject ("Are we caught by the act?", "Must we
comply with it?"): a rule says so by applying to them ("it applied to companies with at least 3,000 employees")."""


def _changes_within(days: int | None, plan: ResearchPlan, pool: Sequence[Candidate], ctx: EngineContext) -> bool:
    """Whether the law a yes/no is asked of may change before the time the facts plan for ("we want to start
    selling next quarter"): a source of a jurisdiction the plan answers from changes status in between, or a
    sentence found for the question states a date in between. Otherwise the law then is the law today, and facts
    that say only who, where and when they will act ask the yes/no of the rules. `days`: `planned_within`."""
    if days is None:
        return False
    later = ctx.as_of + timedelta(days=days)
    codes = plan.answer_codes()
    catalog = ctx.catalog
    if any(
        catalog.status_at(d.id, ctx.as_of) != catalog.status_at(d.id, later)
        for d in catalog.all()
        if any(same_jurisdiction(d.jurisdiction, c) for c in codes)
    ):
        return True
    return any(ctx.as_of < when <= later for c in pool for when in dates(c.text))


def _sized(grounds: Grounds, pool: Sequence[Candidate], ctx: EngineContext) -> bool:
    """Whether a sentence that speaks to the yes/no bounds whom it binds by a size the question does not ask about:
    a count or an amount ("50 or more workers", "a turnover of at least GBP 36 million") or a size in words ("large
    businesses"); a bounded period ("at least 14 days before signing") says when, not whom. Facts that say only who
    and where ("Our company is established in Spain.") do not show that such a rule holds for them, so no sentence
    grounds a yes or no. `grounds`: those of the question's yes/no."""
    if grounds.dated:
        return False
    return any(
        (
            counts(c.text)
            or (any(f.comparator and f.unit != "days" for f in figures(c.text)) and not SANCTION.search(c.text))
            or VAGUE_SIZE.search(c.text)
        )
        and grounds.by(c.text, _source_name(c, ctx))
        for c in pool
    )


def _each(
    item: PlanItem,
    cands: list[Candidate],
    passages: list[tuple[str, str, str, float]],
    plan: ResearchPlan,
    ctx: EngineContext,
) -> Claim | None:
    """One verdict per jurisdiction asked about ("EU: Yes. ... US: No. ..."): each place the question names that
    the corpus holds law of, else the wider ones answering for it (not the country of two states asked about "in
    each state"); a jurisdiction without a source that speaks to it reads "AU: Open: ..." and the verdict item
    stays unanswered."""
    asked, grounds = _asked(plan), _grounds(plan)
    codes = dict.fromkeys(c for j in plan.jurisdictions for c in ([j.code] if j.in_corpus else j.answered_from()))
    said = {
        code: _one_verdict(item, [c for c in cands if c.jurisdiction == code], passages, asked, grounds, ctx, [code])
        for code in codes or plan.answer_codes()
    }
    parts = [(code, v) for code, v in said.items() if v is not None]
    if not parts:
        return None
    return Claim(
        text=" ".join(f"{code}: {v.text}" if v else open_part(f"{code}:", f"for {code}") for code, v in said.items()),
        plan_item_ids=(item.id,),
        kind="verdict",
        citations=tuple(q for _, v in parts for q in v.citations),
        history=any(v.history for _, v in parts),
    )


def _asked(plan: ResearchPlan) -> set[str]:
    """The words a verdict's negation must bear on: the question's topic words (not the names of its places:
    "UK MAR did not follow the later EU increase" denies nothing a question naming the EU asks)."""
    return set(plan.topic_terms) or term_set(plan.question)


COPULA_ASKED = re.compile(r"^\W*(?:is|are)\s+(?!there\b)(?P<rest>[^?]+?)[\s?]*$", re.I)
PREDICATE_SHAPE = re.compile(r"[a-z]+(?:able|ible|id|ory|ive|ous|ful|less)", re.I)
"""The shape of an adjective ("taxable", "paid", "valid", "liable", "lawful"): the word a copula question asks of its
subject ("Is Elterngeld taxable?"), not a noun ("Is that a statement?"). Participles in -ed ("Is the firm involved?")
are often said in other words, which this check would miss; they are left to the other grounds."""
NOUN_BEFORE = re.compile(r"\b(?:a|an|the|any|some|its|their|our|my)\s*$", re.I)
GOES_ON = frozenset(
    re.findall(
        r"\w+",
        "at by in on for to from with under and or but if only unless until when where as than per during after "
        "before within since so because while not also either nor according regardless subject irrespective",
    )
)
"""Words after an adjective that show it is said of something ("paid at 100%", "liable for"), not set before a noun
it qualifies ("taxable income")."""
NEGATING_SUFFIXES = frozenset({"free", "exempt"})
"""The last part of a compound that negates its first ("tax-free")."""
PREDICATE_HEAD = 3
"""Letters of the asked adjective a grounding sentence's word must open with ("tax" of "taxable")."""
WHEN_ASKED = re.compile(r"\s+(?:now|today|yet|still|currently|any\s?more|any longer)$", re.I)


def _copula_predicate(part: str) -> str:
    """The adjective a "Is X <adjective>?" yes/no asks of its subject, places aside ("Is paternity leave paid in
    Spain?": paid), or "" when the part asks otherwise (a noun, a participle in -ed, what exists)."""
    m = COPULA_ASKED.match(part)
    if m is None:
        return ""
    rest = WHEN_ASKED.sub("", m.group("rest").strip())
    words = rest.split()
    if len(words) < 2 or NOUN_BEFORE.search(" ".join(words[:-1])):
        return ""
    last = words[-1].strip(".,;:!\"'")
    return last.lower() if PREDICATE_SHAPE.fullmatch(last) else ""


@dataclass(frozen=True)
class Grounds:
    """What a verdict's supporting sentence must speak to: the topic words of the question's yes/no part and the
    figures and days it names."""

    words: frozenset[str]
    amounts: frozenset[tuple[str, float]]
    days: frozenset[tuple[int, int]]
    names: frozenset[frozenset[str]] = frozenset()
    """The words of each body or instrument the part names by a capitalised name ("Market Abuse Directive")."""
    own_law: bool = False
    """Whether the part asks about a place's own law (`OWN_LAW`)."""
    exempt: bool = False
    """Whether the part asks whether something is exempt or excluded (`EXEMPT_ASK`)."""
    forbid_asked: bool = False
    """Whether the part asks whether something is banned or a crime (`PROHIBIT_ASK`): a sentence making it one
    answers it as any other does."""
    compared: frozenset[tuple[tuple[str, float], str]] = frozenset()
    """The figures the part asks with a comparator ("more than 25%"): a sentence stating one must state it so."""
    periods: frozenset[tuple[float, str]] = frozenset()
    """The lengths of the periods the part names ("within five business days": (5, "day")), asked as figures are."""
    sides: frozenset[tuple[float, str, str]] = frozenset()
    """The periods the part bounds from one side ("for less than five years"): a sentence bounding the same length
    from the other side ("for at least five years") does not ground it."""
    every: frozenset[tuple[float, str]] = frozenset()
    """How often the part asks something recurs ("every year"): a grounding sentence must state that frequency, so
    "sent to the AMF on request" grounds no Yes to "every year", nor "every three years" one to "every year"."""
    refusal_asked: bool = False
    """Whether the part asks whether something may be refused or left undone (`REFUSAL`)."""
    permission_asked: bool = False
    """Whether the part asks whether something is allowed (`PERMISSION_ASK`)."""
    may_asked: bool = False
    """Whether the part asks whether something can or may be done (`MAY_ASKED`), whoever is to do it."""
    still_asked: bool = False
    """Whether the part asks whether something still goes on (`STILL_ASKED`)."""
    years: frozenset[int] = frozenset()
    """The years the part names ("take effect in 2017"): a grounding sentence must state one of them."""
    status_asked: bool = False
    """Whether the part asks whether an instrument is law or in force (`STATUS_ASK`)."""
    duty_asked: bool = False
    """Whether the part asks whether someone must do something (`DUTY_ASKED_OF`): a Yes needs a sentence that binds
    (`binds`), not one on what someone else does about it ("the competent authority carries out checks on
    importers' due diligence" does not say that firms must carry out due diligence)."""
    duty_verb: str = ""
    """The verb the duty asked is about ("file" in "Is an insider required to file reports?")."""
    kinds: frozenset[tuple[str, tuple[str, ...]]] = frozenset()
    """The kinds of thing the part names ("its ethnicity pay gap"): a sentence on another kind of it ("gender pay
    gap") grounds nothing (`rival_kind`)."""
    exists_asked: bool = False
    """Whether the part asks whether something exists (`EXISTS_ASKED`: "Is there an EU-level law that ...?"): a
    sentence saying there is none (`NONE_STATED`) answers it No."""
    optional_asked: bool | None = None
    """Whether the part asks whether something is optional (True: "Is e-invoicing optional?") or mandatory (False:
    "Is labelling compulsory?"), else None: a sentence stating the contrary alone answers it No (`_contrary_duty`)."""
    universal: frozenset[str] = frozenset()
    """The nouns the part asks of every or all of (`universal_asked`): a Yes must say it of all of them
    (`says_of_all`)."""
    role: frozenset[str] = frozenset()
    """The capacity the asker asks in (`asker_role`): a Yes to a duty needs a sentence binding that role, not
    another (`binds_another`)."""
    predicate: str = ""
    """The adjective a "Is X <adjective>?" part asks of its subject ("taxable"), which a grounding sentence must
    state, either way (`predicate_said`, read in `by`)."""

    def predicate_said(self, sentence: str) -> bool | None:
        """True when the sentence states the asked adjective of something, False when only its negation ("unpaid",
        "non-transferable", "tax-free"), None when neither: "Elterngeld is claimed in writing ..." and "the parents'
        taxable income" (before a noun it qualifies) answer nothing about whether Elterngeld is taxable. Read by the
        word's first letters, so "liability" speaks to "liable"; within a capitalised name ("Government-Paid
        Maternity Leave") it says what the thing named is."""
        if not self.predicate:
            return True
        head = self.predicate[:PREDICATE_HEAD]
        tokens = re.findall(r"[A-Za-z][\w'-]*|[^\w\s]", sentence)
        found: set[bool] = set()
        for i, token in enumerate(tokens):
            words = token.lower().split("-")
            bare = [re.sub(r"^(?:un|non|in|im|il|ir)", "", w) for w in words]
            if not any(w.startswith(head) for w in bare):
                continue
            after = tokens[i + 1] if i + 1 < len(tokens) else "."
            if token[:1].isupper() or not after[:1].isalpha() or after.lower() in GOES_ON:
                negated = not any(w.startswith(head) for w in words) or words[-1] in NEGATING_SUFFIXES
                found.add(not negated)  # "unpaid", "non-transferable", "tax-free": negated
        return None if not found else all(found)

    @property
    def dated(self) -> bool:
        """Whether the part names a figure, a day or a period, which a grounding sentence must then state."""
        return bool(self.amounts or self.days or self.periods)

    def name_source(self, source: str) -> bool:
        """Whether the part names the source by one of its own names (every word of a named body or instrument
        is in the source's title or aliases): asked of "the Market Abuse Directive", its answer is that act's."""
        own = term_set(source)
        return any(n <= own for n in self.names)

    def by(self, sentence: str, source: str = "") -> bool:
        """Whether the sentence states at least GROUNDED of the words and, when the part names a figure or a day,
        one of them: "the Home Office launched a registry" grounds neither a Yes nor a No to "must companies file
        on the registry by 30 September?", nor does "A manufacturer must report an incident within two days" to
        whether a director can be jailed. The words the `source`'s own name states (its title and aliases: "new
        Consumer Credit Directive") say which law, not what is asked of it: of the other words the sentence must
        state GROUNDED, so "Directive (EU) 2023/2225 replaces the Consumer Credit Directive" grounds nothing about
        mortgages, while "Buy-now-pay-later arrangements ... come within scope" grounds a question on them. An
        asked figure or day the sentence states counts as one of the words it must state."""
        words = beyond_name(set(self.words), source)
        dated = self.dated
        found = [f for f in figures(sentence) if not EXAMPLE_FIGURE.search(sentence[max(0, f.start - 24) : f.start])]
        keys, compared = {f.key for f in found}, {(f.key, f.comparator) for f in found}
        if any(key in keys and (key, op) not in compared for key, op in self.compared):
            return False  # "more than 25%" asked, "within the 25% limit" stated: which way it goes is not read
        bounded = period_sides(sentence)
        if any(
            (n, unit, side) not in bounded and (n, unit) in {(m, u) for m, u, _ in bounded}
            for n, unit, side in self.sides
        ):
            return False  # "less than five years" asked, only "at least five years" stated
        stated = bool(
            self.amounts & keys or self.days & days_of_year(sentence) or self.periods & period_lengths(sentence)
        )
        if dated and not stated:
            return False
        if rival_kind(self.kinds, sentence):
            return False
        if self.every and not self.every & frequencies(sentence):
            return False
        if self.years and not self.years & {int(y) for y in YEAR.findall(sentence)}:
            return False  # "Did the rules take effect in 2017?" is answered by a sentence on 2017
        if self.predicate and self.predicate_said(sentence) is None:
            return False  # "Is garden leave paid?" is not spoken to by "... free to use paid notice periods"
        said = said_terms(words, sentence) | kin_words(words, sentence)
        if self.predicate in words:
            said.add(self.predicate)  # "unpaid" speaks to "paid"
        for name in self.names:  # "the Serious Fraud Office" speaks of no "Office of the Whistleblower"
            if len(name) > 1 and said & name and not any(said_terms(set(name), t) == name for t in (sentence, source)):
                said -= name
        # the asked figure or day, when stated, is one of what the sentence must speak to
        return not words or len(said) + stated >= GROUNDED * (len(words) + dated)

    def stating_figures(self, said: str) -> list[str]:
        """The sentences of `said` that state a figure or a period the part asks ("the 10-day report"): the duty
        the question asks about, wherever the verdict's quote puts it."""
        return [
            s for s in sentences(said) if self.periods & period_lengths(s) or self.amounts & {f.key for f in figures(s)}
        ]

    def says_which_way(self, sentence: str, source: str = "") -> bool:
        """Whether the sentence itself says whether what is asked is mandatory or optional, when that is asked: a
        duty or choice of its own (`kin_words`), and GROUNDED of the other words, those of the `source`'s name
        kept when they are all the question asks it of ("Is Peppol mandatory in Belgium?" of an act named
        "mandatory ... invoicing via Peppol" is not answered by "The default standard is Peppol BIS Billing")."""
        deontic = {w for w in self.words if DEONTIC_WORD.fullmatch(w)} if self.optional_asked is not None else set()
        if not deontic:
            return True
        of = (beyond_name(set(self.words), source) - deontic) or (set(self.words) - deontic)
        said = said_terms(of | deontic, sentence) | kin_words(of | deontic, sentence)
        return not deontic - said and len(said & of) >= GROUNDED * len(of)

    def contested(self, chosen: str, others: Iterable[str]) -> bool:
        """Whether one of the other sentences states a figure in the unit of an asked one, none of the asked
        figures, and more of the asked words than the chosen quote: the asked figure is that of another duty
        ("file a first report within 10 days" beside "report each trade within 5 days", asked whether trades are
        reported within 10 days)."""
        if not self.amounts:
            return False
        units = {unit for unit, _ in self.amounts}
        words = set(self.words)
        chosen_says = len(said_terms(words, chosen))
        for sentence in others:
            keys = {f.key for f in figures(sentence)}
            if keys & self.amounts or not any(unit in units for unit, _ in keys):
                continue
            if len(said_terms(words, sentence)) > chosen_says:
                return True
        return False


REFUTED = re.compile(
    r"\b(?:claim\w*|say\w*|said|suggest\w*|assert\w*|stat(?:e|es|ing))\s+that\s+(?P<claim>.+?)\s+"
    r"(?:is|are|was|were)\s+(?:wrong|incorrect|mistaken|false|inaccurate|misleading)\b",
    re.I,
)
"""A sentence calling a claim wrong: it denies what the claim says."""
EXAMPLE_FIGURE = re.compile(r"(?:\be\.\s?g\.|\bfor (?:example|instance)|\bsuch as)[\s,:\"'“‘]*$", re.I)
"""Words just before a figure that give it as an example ("mentions "e.g. 25%" only as an example of a threshold"):
the figure illustrates, it is not the rule, so it grounds no verdict on that figure."""


AUTHORITY = re.compile(
    r"\b(?:authorit(?:y|ies)|regulators?|supervisors?|supervisory|watchdogs?|commission|agency|agencies)\b", re.I
)
"""Nouns for a public body that oversees: "the regulator" asked is "the competent authority" stated."""


STAFF = HEADCOUNT - term_set("person persons people")
"""Nouns for those a business employs ("a person designated to respond" is no kin of "a worker")."""


def kin_words(words: Iterable[str], sentence: str) -> set[str]:
    """The asked words a sentence states by a word of the same kind: a verb of passing something on (`TELL_WORDS`:
    "send the list" asked, "the list must be provided" stated), a noun for an overseeing body (`AUTHORITY`), one
    counting whom a business employs (`STAFF`: "two staff" asked, "at least one employee" stated), or a duty or a
    choice, either way ("mandatory" or "optional" asked, "must issue" or "on a voluntary basis" stated: which way it
    goes is the verdict's polarity, `_contrary_duty`)."""
    out = set()
    staffed = bool(term_set(sentence) & STAFF)
    asked = list(words)
    deontic = any(DEONTIC_WORD.fullmatch(w) for w in asked) and (bool(OPTIONAL.search(sentence)) or _compels(sentence))
    for word in asked:
        if (
            any(kind.fullmatch(word) and kind.search(sentence) for kind in (TELL_WORDS, AUTHORITY))
            or (deontic and DEONTIC_WORD.fullmatch(word))
            or (staffed and word in STAFF)
        ):
            out.add(word)
    return out


def _part_words(wanted: set[str], sentence: str) -> set[str]:
    """The words of a yes/no part a sentence states, as words or as words sharing their first PART_PREFIX letters
    ("anonymous" for "anonymously", "exceptional" for "exceptions", but not "except"); a verb in -y also by its
    derived forms ("notify" in "notification")."""
    said = term_set(sentence)
    return {
        t
        for t in wanted
        if t in said
        or any(w[:PART_PREFIX] == t[:PART_PREFIX] for w in said if len(w) >= PART_PREFIX)
        or (stem_key(t) != t and len(t) >= PREFIX and any(w.startswith(stem_key(t)) for w in said))
    }


def _run(asked: Sequence[str], said: Sequence[str]) -> int:
    """The most words of the question a sentence states in the same order, one after another: the sentence that
    names "the EU General Product Safety Regulation" beside one that names "the General Product Safety
    Regulations 2005" is the one on what is asked."""
    best = 0
    for i in range(len(asked)):
        for j in range(len(said)):
            n = 0
            while i + n < len(asked) and j + n < len(said) and asked[i + n] == said[j + n]:
                n += 1
            best = max(best, n)
    return best


def _place_terms(plan: ResearchPlan) -> set[str]:
    """The words of the names of the places the question asks about (a verdict's sentence need not state them)."""
    places: set[str] = set()
    for j in plan.jurisdictions:
        places |= term_set(" ".join((j.name, j.code, *j.named_as)))
        for name in j.named_as:  # "New York State", "Quebec province": the kind of place is part of its name
            for m in re.finditer(rf"\b{re.escape(name)}\s+(\w+)", plan.question):
                places |= term_set(m.group(1)) & PLACE_KINDS
    return places


def _without_places(text: str, plan: ResearchPlan) -> str:
    """The text without the places the question asks about and the preposition before each ("Is the act law in the
    United States?": "Is the act law?")."""
    names = {n for j in plan.jurisdictions for n in (*j.named_as, j.name)}
    out = text
    for name in sorted(names, key=len, reverse=True):
        for start, end in reversed(occurrences(name, out)):
            lead = re.search(r"\b(?:in|for|of|under)\s+(?:the\s+)?$", out[:start], re.I)
            out = out[: lead.start() if lead else start] + " " + out[end:]
    return " ".join(out.split())


def _yes_no_part(plan: ResearchPlan) -> str:
    """The question's yes/no sentence up to an open question it goes on to ask, without a framing "Is it true
    that"."""
    first = yes_no_sentence(plan.question) or ""
    said = trailing_yes_no(plan.question) or (
        first
        if FRAME.match(first)  # a reported premise checked ("Our legal team says X. Is that true?"): X is asked
        else next((s for s in question_sentences(plan.question) if s.rstrip().endswith("?")), plan.question)
    )
    return FRAME.sub("", WH_PART.split(said, maxsplit=1)[0])


EXAMPLE_ASIDE = re.compile(r",?\s*\b(?:for (?:example|instance)|e\.\s?g\.)[^.;?!]*", re.I)
"""An example the question gives of its own case ("..., for example on our bin liners sold in French
supermarkets?"): it illustrates what is asked, so a grounding sentence need not state its words."""


def _grounds(plan: ResearchPlan) -> Grounds:
    """The grounds of the question's yes/no sentence (up to an open question it goes on to ask): its topic words
    without the names of the places it asks about ("Can a retailer's director be jailed in Canada for a late
    report?": retailer, director, jailed, late, report), and the figures and days it names."""
    said = EXAMPLE_ASIDE.sub("", _yes_no_part(plan))
    places = _place_terms(plan)
    topic = set(plan.topic_terms)
    found = figures(said)
    unfigured = blanked(said, [*((f.start, f.end) for f in found), *count_spans(said)])  # "at least 5%", "two" staff
    words = frozenset(t for t in term_set(unfigured) - places if not topic or t in topic)
    names = frozenset(
        frozenset(term_set(n.text) - places)
        for n in names_in(said)
        if not is_place_name(n.text) and term_set(n.text) - places - PLACE_KINDS
    )
    amounts, days = frozenset(f.key for f in found), frozenset(days_of_year(said))
    compared = frozenset((f.key, f.comparator) for f in found if f.comparator)
    own_law = bool(OWN_LAW.search(said))
    forbid_asked = bool(PROHIBIT_ASK.search(said)) and not BAN_STATUS.search(said)
    if forbid_asked:  # "banned?" is answered by wording that forbids ("prohibited"), checked apart (`PROHIBITS`)
        banned = term_set(" ".join(m.group(0) for m in PROHIBIT_ASK.finditer(said)))
        words = frozenset(words - banned) or words
    exempt = bool(EXEMPT_ASK.search(said))
    lengths = frozenset(period_lengths(said))
    duty = DUTY_ASKED_OF.search(said)
    return Grounds(
        words,
        amounts,
        days,
        names,
        own_law,
        exempt,
        forbid_asked,
        compared,
        lengths,
        sides=frozenset(period_sides(said)),
        kinds=frozenset((m, h) for m, h in kinds(said) if m not in places and set(h) <= words),
        status_asked=bool(STATUS_ASK.search(_without_places(said, plan))),
        every=frozenset(frequencies(said)),
        still_asked=bool(STILL_ASKED.search(said)),
        permission_asked=bool(PERMISSION_ASK.search(said)),
        may_asked=bool(MAY_ASKED.match(said)),
        refusal_asked=bool(REFUSAL.search(said)),
        duty_asked=bool(duty),
        duty_verb=duty.group(1) if duty else "",
        years=frozenset(int(y) for y in YEAR_ASKED.findall(said) if not any(d.year == int(y) for d in dates(said))),
        exists_asked=bool(EXISTS_ASKED.match(said)),
        universal=universal_asked(said),
        role=asker_role(plan.question),
        optional_asked=True if OPTIONAL_ASKED.search(said) else False if MANDATORY_ASKED.search(said) else None,
        predicate=""
        if DEONTIC_WORD.search(said) or STATUS_ASK.search(said) or EXEMPT_ASK.search(said) or forbid_asked
        else _copula_predicate(_without_places(said, plan)),
    )


LACKING_BARRED = re.compile(
    r"\b(?:that|who|which)\s+(?:is|are|has|have|does|do)\s+not\s+(?:yet\s+)?(?:been\s+)?(?P<lacks>\w+)[^.;]{0,80}?"
    r"(?:\b(?:may|must|shall|can)\s+not\b|\bcannot\b|\b(?:is|are)\s+(?:prohibited|barred|forbidden)\b)",
    re.I,
)
"""A bar on those who lack something ("A foreign exchange that is not registered in Japan may not solicit
customers in Japan"): what they lack is required."""


DUTY_DENIED = re.compile(
    r"\b(?:not|no|never|nor)\s+(?:\w+\s+){0,2}?(?:oblig\w*|requir\w*|duty|duties|need|needed)\b|\bneed not\b", re.I
)
"""A denial of the duty itself ("does not oblige employers to provide ...", "is not required", "need not"): a No to
whether one must do what it names, whatever verb the question uses."""
UNLESS_BARRED = re.compile(
    r"(?:\b(?:may|must|shall|can)\s+not\b|\bcannot\b|\bunlawful\b|\b(?:is|are)\s+(?:prohibited|barred|forbidden)\b)"
    r"[^.;]{0,120}?\b(?:unless|until)\b(?P<needed>[^.;]{0,80})",
    re.I,
)
"""A bar lifted only by a condition ("A franchisor may not offer or sell a franchise in New York unless the offering
has been registered", "It is unlawful to offer ... unless the offer has been registered"): the condition is
required."""


def _barred_without(sentence: str, grounds: Grounds) -> bool:
    """Whether the sentence bars those who lack what the yes/no asks whether one must do or be (`LACKING_BARRED`,
    `UNLESS_BARRED`): "Does an overseas exchange need to be registered before it solicits customers?" is Yes by "A
    foreign exchange that is not registered may not solicit customers", whose "may not" denies nothing asked, and
    "Does a franchisor have to register its offering?" by "... may not offer ... unless the offering has been
    registered"."""
    needed = term_set(grounds.duty_verb)
    if not grounds.duty_asked:
        return False
    return any(term_set(m.group("lacks")) & needed for m in LACKING_BARRED.finditer(sentence)) or any(
        _part_words(needed, m.group("needed")) for m in UNLESS_BARRED.finditer(sentence)
    )


def _denied(sentence: str, wanted: set[str]) -> bool:
    """Whether the sentence denies what a part of the question asks: a negation within the few words before one
    of that part's own words ("does not have to report" for "must ... report"; a bound such as "not exceeding
    three months" is no negation), or a sentence on one of them
    that puts it outside the rules' scope ("Credit agreements secured by a mortgage ... remain outside the
    scope")."""
    if (_outside_scope(sentence) and term_set(sentence) & wanted) or _only_others(sentence, wanted):
        return True
    # "Secondary sites claiming that the FATF defines beneficial owners as those owning 25% ... are wrong"
    refuted = REFUTED.search(sentence)
    if refuted and term_set(refuted.group("claim")) & wanted:
        return True
    for m in (*NOT_APPLY.finditer(sentence), *DENIES_WHAT_FOLLOWS.finditer(sentence)):
        if term_set(" ".join(sentence[m.end() :].split(";")[0].split()[: DENIAL_WINDOW + 1])) & wanted:
            return True  # "The right of rescission does not apply to a residential mortgage transaction"
    for m in NOT_COVERED.finditer(sentence):
        left_out = BAN_PARTS.split(sentence[m.end() :].split(";")[0])
        if any(len(term_set(left) & wanted) >= min(COVERED_WORDS, len(wanted)) for left in left_out):
            return True  # "It does not cover international payments, payments by card or cheque"
    for m in NOT_APPLYING.finditer(sentence):
        if len(term_set(sentence[: m.start()]) & wanted) >= SUBJECT_WORDS:
            return True  # "The EU General Product Safety Regulation does not apply in Great Britain"
    words = NOT_ONLY.sub(" ", LIMIT.sub("within", sentence)).split()  # "and not only platforms, must ..." adds
    restricts = RESTRICTS.match(sentence)  # "Only stablecoins issued by licensed issuers may be offered": a condition
    roots = _roots(wanted)
    for i, word in enumerate(words):
        if not _roots(term_set(word)) & roots:  # "cannot be delegated" denies "delegate"
            continue
        before = _words_before(words, i)
        opens = max((k + 1 for k, w in enumerate(before) if w.endswith((":", ";"))), default=0)
        clause = " ".join(before[opens:])
        if restricts:
            clause = re.sub(r"\bonly\b", " ", clause, flags=re.I)
        if _negates(clause, wanted):
            return True  # within its clause: "It is not retroactive: a non-compete signed before ..." denies no
            # non-compete
    for m in MODAL_NOT.finditer(sentence):  # "must not include terms ..., such as "voluntary", "precautionary""
        clause = sentence[m.end() :].split(";")[0]
        listed = EXAMPLES.search(clause)
        if listed and term_set(clause[listed.end() :]) & wanted:
            return True
    return any(
        term_set(m.group("word") or m.group("adj")) & wanted
        and not term_set(m.group(0)) <= wanted
        and not FORBIDS_AFTER.search(sentence[m.end() :].split(";")[0])
        for m in NEGATED_WORD.finditer(sentence)
    )  # the question's own "non-compete" or "unenforceable" is what it asks of, not its denial; nor is what is
    # forbidden when it lacks it ("Advertising an unlicensed stablecoin is prohibited" requires the licence)


def _misses_rarest(said: str, words: Sequence[str], pool: Sequence[Candidate]) -> bool:
    """Whether a Yes's sentences leave out every one of the RAREST asked words the found sentences state: "Does
    Britain require employers to pay apprentices the National Living Wage?" is not answered Yes by "every employer
    must pay its workers at least the minimum hourly rate for their age", which says nothing of apprentices.
    `words` in the order the question asks them."""
    order = list(dict.fromkeys(words))
    stating = {w: sum(1 for c in pool if said_terms({w}, c.text)) for w in order}
    found = sorted((w for w in order if stating[w]), key=lambda w: (stating[w], order.index(w)))
    return len(found) > RAREST and not any(said_terms({w}, said) for w in found[:RAREST])


RAREST = 2
"""Asked words (the rarest among the sentences found, the first asked on a tie) of which a Yes must state one: a
question's wording may differ from the law's in one word ("an EU system" for "the Safety Gate portal"), not in all
that set it apart ("an independent contractor" is not grounded by a sentence on employees)."""


RESTRICTS = re.compile(r"\W*only\b[^.;]*?\b(?:may|can|shall|must)\b", re.I)
"""A sentence that opens by saying what alone may be done ("Only stablecoins issued by licensed issuers may be
offered"): what it names is required, not denied."""
NOT_ONLY = re.compile(r"\bnot\s+(?:only|just|merely)\b", re.I)
"""An addition ("every company, and not only platforms, must ..."), no negation."""
FILLER = frozenset({"currently", "yet", "now", "still"})
"""Words of time that do not count towards the DENIAL_WINDOW ("does not yet contain a general safety provision"
denies the provision as "does not contain one" does); nor does "at present"."""


def _words_before(words: Sequence[str], at: int) -> list[str]:
    """The words before words[at], back to DENIAL_WINDOW of them that are not FILLER."""
    start, counted = at, 0
    while start > 0 and counted < DENIAL_WINDOW:
        start -= 1
        word = words[start].lower().strip(",")
        present = word == "present" and start > 0 and words[start - 1].lower() == "at"
        at_present = word == "at" and start + 1 < at and words[start + 1].lower().strip(",") == "present"
        counted += not (word in FILLER or present or at_present)
    return list(words[start:at])


def _roots(terms: Iterable[str]) -> set[str]:
    """The stems without a final "e" (`stem` keeps it in "delegate" and drops it with "-ed" in "delegated")."""
    return {t[:-1] if len(t) > 4 and t.endswith("e") else t for t in terms}


def _negates(before: str, wanted: set[str]) -> bool:
    """Whether the words just before an asked word deny it: a negation, with no level of law that the question
    does not ask of between the two ("no federal ... law")."""
    negations = list(NEGATION.finditer(before))
    if not negations:
        return False
    return not _narrowed(before[negations[-1].end() :].split(), wanted)


def _narrowed(words: Sequence[str], wanted: set[str]) -> bool:
    """Whether the words after a negation name a level of law the question does not ask of (`LEVEL`)."""
    return any(LEVEL.fullmatch(w.strip(",")) and not term_set(w) & wanted for w in words)


def _none_stated(sentence: str, asked: set[str]) -> bool:
    """Whether the sentence says no such thing exists (`NONE_STATED`) at a level the question asks of: "there is
    no federal packaging EPR law" says nothing of a state's."""
    return any(
        not _narrowed(sentence[m.end() :].split()[:DENIAL_WINDOW], asked) for m in NONE_STATED.finditer(sentence)
    )


LEVEL = re.compile(
    r"federal|national|nationwide|statewide|provincial|EU-wide|union-wide|supranational|international|municipal|local",
    re.I,
)
"""A level of law between a negation and the word it bears on narrows what is denied to that level: "there is no
federal packaging EPR law" denies none in Oregon, only one at the federal level (unless the question asks of it)."""


NEGATED_WORD = re.compile(
    r"\b(?:un(?!less\b)|non-?)(?P<word>[a-z]{4,})\b|\b(?:in|il|im|ir)(?P<adj>[a-z]{3,}(?:able|ible|id|al|ful|ent|ive))\b",
    re.I,
)
"""A word negated by its prefix ("unenforceable", "non-compliant", "invalid", "illegal"): it denies the word asked
("Is that clause enforceable?")."""


EXAMPLES = re.compile(r"\b(?:such as|including|like|e\.g\.|for (?:example|instance))", re.I)
"""Words that open a list of examples: what a prohibition lists after them it forbids ("must not include terms
..., such as ...")."""
MODAL_NOT = re.compile(
    r"\b(?:may|must|shall|can|could|should|will|would|do|does|did)\s+not\s+(\w+)|\bcannot\s+(\w+)", re.I
)
NOT_AN_ACT = term_set(
    "be have has need needs only also yet necessarily apply applies oblige obliges obliged require requires required"
)
"""Words after a modal "not" that carry the denial on to what follows ("does not have to report", "does not
oblige employers to provide")."""


def _denies_another_act(said: str, asked: set[str]) -> bool:
    """Whether every sentence of `said` that denies an asked word does so only by forbidding or denying a deed the
    question does not ask about ("A merchant may not advertise a credit rate ..." for "Does Quebec limit the
    interest rate ...?"): the asked words are that deed's objects, and the sentence answers another question, so
    its "No" is no verdict."""
    denying = [s for s in sentences(said) if _denied(s, asked)]
    return bool(denying) and all(_only_other_acts(s, asked) for s in denying)


def _only_other_acts(sentence: str, asked: set[str]) -> bool:
    if _outside_scope(sentence) or NOT_APPLY.search(sentence) or NOT_COVERED.search(sentence):
        return False
    acts = list(MODAL_NOT.finditer(sentence))
    if not acts or any(not any(a.start() <= n.start() < a.end() for a in acts) for n in NEGATION.finditer(sentence)):
        return False
    deeds = [(a.group(1) or a.group(2)).lower() for a in acts]
    return all(term_set(d) and not (term_set(d) & (asked | NOT_AN_ACT)) for d in deeds)


VOIDS = re.compile(
    r"\b(?:is|are|shall be|will be|becomes?)\s+(?:void|null|invalid|prohibited|forbidden|unlawful|illegal|"
    r"not (?:permitted|allowed))\b",
    re.I,
)
"""Wording that declares what precedes it void or forbidden ("Dismissal ... is void")."""
FORBIDS_AFTER = re.compile(rf"{VOIDS.pattern}|\b(?:is|are)\s+(?:an?\s+)?(?:offen[cs]e|crime|banned)\b", re.I)
"""Wording after a word negated by its prefix that forbids what it names: a double negative, no denial."""
VOIDED_WINDOW = 6
"""Words before such wording in which an asked word makes it bear on the question."""


def _voided(sentence: str, asked: set[str]) -> bool:
    """Whether the sentence declares one of the asked words void or forbidden after naming it ("Dismissal because
    of a protected report is void"): whether that is a Yes or a No turns on how the question asks ("can an
    employer dismiss ...?" against "is a worker protected from dismissal?"), which the words alone do not tell, so
    no verdict is read from it."""
    return any(
        said_terms(asked, " ".join(sentence[: m.start()].split()[-VOIDED_WINDOW:])) for m in VOIDS.finditer(sentence)
    )


CONTRARY_WINDOW = 1
"""Words between a "not" and the question's word it turns into the contrary case ("not made with")."""


def _contrary(sentence: str, subject: set[str]) -> bool:
    """Whether the sentence negates a word by which the question names its subject, so that it speaks of the
    contrary case: "may seek release by ... showing that they were not made with forced labour" answers no "Can
    goods made with forced labour enter the United States?" with a Yes."""
    words = sentence.split()
    return any(
        term_set(word) & subject and re.search(r"\bnot\b", " ".join(words[max(0, i - 1 - CONTRARY_WINDOW) : i]), re.I)
        for i, word in enumerate(words)
    )


ONLY_SCOPE = re.compile(
    r"\b(?:covers?|appl(?:y|ies)\s+to|extends?\s+to|(?:is|are)\s+(?:limited|confined|restricted)\s+to)\s+"
    r"(?:(?P<first>only\s+[^.;,:]{1,60})|(?P<then>[^.;,:]{1,60}?)\s+only)\b"
    r"|\b(?:appl(?:y|ies)|extends?)\s+only\s+to\s+(?P<to>[^.;,:]{1,60})",
    re.I,
)
"""A scope stated as only some ("The presumption covers delivery only", "applies only to banks")."""
SCOPE_VERBS = term_set("apply applies cover covers extend extends")
"""The verbs stating a scope, which name no one in it."""


def _only_others(sentence: str, wanted: set[str]) -> bool:
    """Whether the sentence limits a rule's scope to some (`ONLY_SCOPE`) that state none of the asked words while
    it names what is asked elsewhere: "The presumption covers delivery only; ride-hailing (VTC) drivers ... remain
    subject to the general test" denies that it applies to ride-hailing drivers."""
    for m in ONLY_SCOPE.finditer(sentence):
        scope = term_set(m.group("first") or m.group("then") or m.group("to") or "")
        rest = term_set(sentence[m.end() :]) - term_set(sentence[: m.start()])
        if not scope & wanted and rest & wanted - scope - SCOPE_VERBS:
            return True
    return False


def _outside_scope(sentence: str) -> bool:
    """Whether the sentence puts something outside the rules' scope (`SCOPE_DENIAL`); an exclusion that follows a
    wrong ("A company fined for a breach ... should be excluded from the award of public contracts") is a
    sanction, not a scope."""
    m = SCOPE_DENIAL.search(sentence)
    return m is not None and not ("excluded" in m.group(0).lower() and WRONGDOING.search(sentence))


def _stated(wording: re.Pattern[str], sentence: str) -> bool | None:
    """Whether the sentence states the wording (True), states it negated ("are no longer exempt", "is not
    prohibited": False), or not at all (None)."""
    m = wording.search(sentence)
    if m is None:
        return None
    return not NEGATION.search(" ".join(sentence[: m.start()].split()[-DENIAL_WINDOW:]))


def _silent_on_exemption(sentence: str, asked: set[str]) -> bool:
    """Whether the sentence neither exempts, denies, binds nor puts out of scope: what it says (a definition, a
    figure) does not answer whether something is exempt by itself."""
    return (
        _stated(EXEMPTS, sentence) is None
        and not _outside_scope(sentence)
        and not BINDING.search(sentence)
        and not _denied(sentence, asked - term_set(EXEMPT_ASK.pattern))
    )


def _exempted(sentence: str, asked: set[str]) -> bool:
    """Whether the sentence says yes to whether something is exempt (see `EXEMPT_ASK`)."""
    if _outside_scope(sentence) and term_set(sentence) & asked:
        return True  # "remain outside the scope"
    exempts = _stated(EXEMPTS, sentence)
    if exempts is not None:
        return exempts
    return _denied(sentence, asked - term_set(EXEMPT_ASK.pattern))


def _polarity(sentence: str, asked: set[str], exempt: bool) -> str:
    """'Yes.' or 'No.': a denial of what is asked is a No, except to a question whether something is exempt; so is
    a rule only intended ("announced that it intended to legislate to limit ... to three months")."""
    if INTENDED.search(sentence):
        return "No."
    if exempt:
        return "Yes." if _exempted(sentence, asked) else "No."
    return "No." if _denied(sentence, asked) else "Yes."


OPTIONAL_WORDS = "optional|voluntary"
MANDATORY_WORDS = "mandatory|compulsory|obligatory"
PREDICATE_END = r"(?=\s*(?:[?,.;:]|$)|\s+(?:in|for|under|at|to|or|and|now|today|yet|still|any\s?more)\b)"
OPTIONAL_ASKED = re.compile(rf"\b(?:{OPTIONAL_WORDS}){PREDICATE_END}", re.I)
MANDATORY_ASKED = re.compile(rf"\b(?:{MANDATORY_WORDS}){PREDICATE_END}", re.I)
"""A yes/no asking whether something is optional or mandatory, the word said of it ("Is e-invoicing optional in
Italy?"), not of a noun it qualifies ("Do voluntary registrants ...?", "Is there a mandatory cooling-off period?")."""
OPTIONAL = re.compile(rf"\b(?:{OPTIONAL_WORDS})\b", re.I)
DEONTIC_WORD = re.compile(f"{OPTIONAL_WORDS}|{MANDATORY_WORDS}", re.I)
"""An asked word that a sentence stating a duty or a choice speaks to, either way (`kin_words`)."""
COMPELS = re.compile(
    rf"\b(?:{MANDATORY_WORDS}|must|shall|requir(?:e|es|ed)|oblig(?:e|es|ed)|(?:has|have|had)\s+to)\b", re.I
)
ALTERNATIVE = re.compile(r"\b(?:or (?:an|any )?other|or another|either|instead of|alternatively)\b", re.I)
"""A duty that may be met another way ("a garden leave clause or other mutually-agreed upon consideration"): it
makes neither of its ways mandatory."""


def _contrary_duty(sentence: str, optional_asked: bool) -> bool:
    """Whether the sentence states only the contrary of what the yes/no asks: a duty (not denied) where it asks
    whether something is optional, or that it is optional where it asks whether it is mandatory. A sentence stating
    both ("compulsory for large firms, voluntary for others") decides neither way."""
    compels, optional = _compels(sentence), bool(OPTIONAL.search(sentence))
    return compels and not optional if optional_asked else optional and not compels


def _compels(sentence: str) -> bool:
    """Whether the sentence states a duty (`COMPELS`) that no negation just before denies."""
    return any(not _negates(sentence[max(0, m.start() - 30) : m.start()], set()) for m in COMPELS.finditer(sentence))


def _both_ways(best: Candidate, pool: Sequence[Candidate], asked: set[str]) -> bool:
    """Whether the verdict's source says of what is asked both that it is optional and that it is a duty (in
    sentences stating an asked word): which holds at the as-of date turns on dates the rule engine does not weigh."""
    said = [c.text for c in (best, *pool) if c.doc_id == best.doc_id and said_terms(asked, c.text)]
    return any(OPTIONAL.search(t) for t in said) and any(_compels(t) for t in said)


def _named_elsewhere(grounds: Grounds, doc_id: str, codes: Sequence[str], ctx: EngineContext) -> bool:
    """Whether the act the yes/no names is one other document of the corpus, held under a place the plan does not
    answer from ("TicketBAI" asked of Bilbao, read as Spain: the Basque Country's document): what another act says
    of it is not its status. A name several documents carry ("AML") names no one act."""
    named = [d for d in ctx.catalog.all() if d.id != doc_id and grounds.name_source(own_name(d))]
    return len(named) == 1 and named[0].jurisdiction not in codes


def _for_named(plan: ResearchPlan) -> list[str]:
    """The corpus jurisdictions whose law applies in the places the yes/no names (`_named`): their own and the
    wider ones (a state's country, a member state's union); another place's law answers nothing about them."""
    named = set(_named(plan))
    return [code for j in plan.jurisdictions if j.code in named for code in (j.code, *j.answered_from())]


def _compared_only(j: PlannedJurisdiction, question: str) -> bool:
    """Whether the question names the place only as a model to compare with (`COMPARED`: "like the EU")."""
    spans = [s for n in j.named_as for s in occurrences(n, question)]
    return bool(spans) and all(COMPARED.search(question[:start]) for start, _ in spans)


def _named(plan: ResearchPlan) -> list[str]:
    """The codes of the places the question names itself (not the wider ones answering for them): those it names
    by a place name or code when there are any, since a regulator it also names ("... reports fraud to the SEC")
    does not make the regulator's country the place asked about ("Does California law protect ...?"); of those,
    the ones its yes/no part names ("Does Bavaria have its own law, and by when must a German company ...?" asks
    the yes or no of Bavaria), else those the sentence asking it names ("Within how long must a report be filed with
    the regulator in Hong Kong, and can the regulator require more frequent reports?" asks it of Hong Kong)."""
    placed = [
        j
        for j in plan.jurisdictions
        if any(is_place_name(n) or same_jurisdiction(n.strip().upper(), j.code) for n in j.named_as)
    ]
    asked_of = [j for j in placed if not _compared_only(j, plan.question)]  # "..., like the EU": not asked of it
    placed = asked_of or placed
    part = _yes_no_part(plan)
    asked = [j for j in placed if any(occurrences(n, part) for n in j.named_as)]
    if not asked:  # "Within how long ... in Hong Kong, and can the regulator require ...?": the sentence's place
        sentence = next((q for q in question_sentences(plan.question) if part.strip() in q), "")
        asked = [j for j in placed if any(occurrences(n, sentence) for n in j.named_as)]
    return [j.code for j in (asked or placed or plan.jurisdictions)]


def _one_verdict(
    item: PlanItem,
    cands: list[Candidate],
    passages: list[tuple[str, str, str, float]],
    asked: set[str],
    grounds: Grounds,
    ctx: EngineContext,
    codes: Sequence[str],
    named: Sequence[str] = (),
    pool: Sequence[Candidate] = (),
    answering: Sequence[str] = (),
) -> Claim | None:
    """'Yes.' or 'No.' followed by the best supporting sentence, the sentences just before it that speak of the
    same thing (what the rule is), and the following ones up to a denial or limit that decides the answer: the
    polarity is read from the words, a negation counting only where it bears on a word of the question (`asked`):
    "must not take retaliatory action against an employee who reports" protects the reporter, it denies nothing
    asked. The best candidate must speak to the question's yes/no sentence (`grounds`, see `Grounds.by`); none of
    the first VERDICT_TRIES doing so, there is no verdict (the item stays open and is disclosed), never a guessed
    "Yes". Of those that do, one from a place the question names (`named`) goes first: "Does New York law protect
    ...?" is answered from New York's law, not from a federal act that also applies there, and a verdict from
    another jurisdiction's source says so (`_from_elsewhere`); such a source's "No" is no verdict unless the
    question names that source ("Does Illinois law protect ...?" is not settled by a federal act's limit, as a
    state's own law may protect more). A "Yes" that rests on an act not yet applicable at
    the as-of date is "No, not yet" with its date: the question asks what applies then; when only a proposal of
    `codes` speaks to the question, the verdict is "No, only proposed" (`proposed_verdict`). An asked figure that
    another sentence of the `pool` contests (`Grounds.contested`) is no verdict either: the 10 days of a first
    report do not answer whether trades are reported within 10 days where trades have 5. The quotes let the
    analyst check it."""
    if answering:  # another place's law answers nothing about the places the yes/no names
        cands = [c for c in cands if any(same_jurisdiction(c.jurisdiction, code) for code in answering)]
    named_as = {c.doc_id: _source_name(c, ctx) for c in cands[:VERDICT_TRIES]}
    asked = (asked & set(grounds.words)) or asked  # a negation bearing on an open part's words denies no yes/no
    levels = {w for w in grounds.words if LEVEL.fullmatch(w)}  # asked of, even where the source's name says it
    tried = [
        (
            best,
            _stated_verdict(
                item,
                best,
                passages,
                beyond_name(asked, named_as[best.doc_id]) | levels,
                grounds.exempt,
                grounds.duty_verb,
            ),
        )
        for best in cands[:VERDICT_TRIES]
    ]
    of_some = [  # a Yes to all of something from a sentence on some of it (`_of_all`)
        best
        for best, verdict in tried
        if verdict.text.startswith("Yes.") and grounds.universal and not _of_all(grounds, best, passages, verdict.said)
    ]
    barred = {best.text for best, _ in tried if _barred_without(best.text, grounds)}  # the contrary case is barred
    tried = [(best, _worded(verdict, "Yes.") if best.text in barred else verdict) for best, verdict in tried]
    spoken = [
        (best, verdict)
        for best, verdict in tried
        if grounds.by(verdict.said, named_as[best.doc_id])
        and grounds.says_which_way(verdict.said, named_as[best.doc_id])
        and not (verdict.text.startswith("No.") and _denies_another_act(verdict.said, asked))
        and best not in of_some
    ]
    by_name = {
        best.doc_id for best, _ in tried if best.jurisdiction in codes and grounds.name_source(named_as[best.doc_id])
    }
    if by_name:  # "Does the EU Working Time Directive require ...?" is answered from that directive, not another
        spoken = [(best, verdict) for best, verdict in spoken if best.doc_id in by_name]
    else:
        named_docs = [
            d
            for d in ctx.catalog.all()
            if names_act(grounds.names, own_name(d))
            and (not codes or any(c == ANY_JURISDICTION or same_jurisdiction(d.jurisdiction, c) for c in codes))
        ]
        if named_docs:  # the act asked of says nothing here: another act's words are no answer about it
            pending = [d for d in named_docs if ctx.catalog.status_at(d.id, ctx.as_of) == DocStatus.proposed]
            if not pending:
                return None
            proposing = list(dict.fromkeys(d.jurisdiction for d in pending))
            return proposed_verdict(item, grounds.by, proposing, cands, ctx, grounds.words, grounds.status_asked)
    conditional_no = [
        (b, v)
        for b, v in spoken
        if v.text.startswith("No.")
        and (CONDITIONAL.search(b.text) or any(PARTIAL.search(x) and _denied(x, asked) for x in sentences(v.said)))
    ]
    if not grounds.forbid_asked and spoken and conditional_no[:1] == spoken[:1]:
        return None  # "need not follow up anonymous reports unless ...": it depends, and a weaker sentence's Yes is a guess

    role_bound = bool(grounds.role) and any(  # only a question naming its capacity has its passages split here
        binds_role(grounds.role, s) for _, _, text, _ in passages for s in sentences(text)
    )

    def holds(best: Candidate, verdict: Claim) -> bool:  # what a verdict's sentence must be to ground it
        return bool(
            (grounds.forbid_asked or grounds.exempt or _stated(CRIMINALISES, best.text) is not True)
            and (not grounds.forbid_asked or _stated(PROHIBITS, best.text) is not None)
            and not held_before(best.quotes[-1].quote, ctx.as_of)
            and not (verdict.text.startswith("Yes.") and PROPOSES.search(best.text) and not grounds.status_asked)
            and not UNVERIFIED.search(best.quotes[-1].quote)
            and not (
                verdict.text.startswith("Yes.")
                and role_bound
                and any(binds_another(grounds.role, s) for s in (best.text, *grounds.stating_figures(verdict.said)))
            )
            and not (
                grounds.duty_asked
                and verdict.text.startswith("Yes.")
                and not binds(verdict.said, grounds.duty_verb)
                and best.text not in barred
            )
            and not (  # "Does a franchisor have to register ...?" is not denied by a sentence that never says registering
                grounds.duty_asked
                and verdict.text.startswith("No.")
                and not _part_words(term_set(grounds.duty_verb), verdict.said)
                and not DUTY_DENIED.search(verdict.said)
            )
        )

    grounded = [
        (best, verdict) for best, verdict in spoken if (best, verdict) not in conditional_no and holds(best, verdict)
    ]
    own = [g for g in grounded if any(same_jurisdiction(code, g[0].jurisdiction) for code in named)]
    if grounded:
        best, verdict = (own or grounded)[0]
        if not (grounds.forbid_asked or grounds.exempt) and _voided(verdict.said, asked):
            if not grounds.permission_asked:
                return None
            verdict = _worded(verdict, "No.")  # asked whether it may be done, and it is prohibited
        if (  # a barred sentence's contrary case is what it bars: the Yes is read from that
            verdict.text.startswith("Yes.")
            and best.text not in barred
            and _contrary(best.text, set(grounds.words) - beyond_name(asked, named_as[best.doc_id]))
        ):
            return None
        if grounds.refusal_asked and not REFUSAL.search(verdict.said):
            return None  # "Can an employer refuse to tell ...?" is not answered by a duty that says nothing of refusing
        if grounds.permission_asked and _protects_against(best.text, set(grounds.words)):
            verdict = _worded(verdict, "No.")  # protected against it: not allowed
        if grounds.permission_asked and verdict.text.startswith("Yes."):
            banned = _bans(verdict.said, set(grounds.words))
            if banned is None:
                return None  # banned in some cases only: it depends on the facts
            if banned:
                verdict = _worded(verdict, "No.")  # "Can we still call it climate neutral?": the law bans such claims
        if grounds.exists_asked and _none_stated(best.text, asked):
            verdict = _worded(verdict, "No.")  # "No EU regulation or directive requires ...": there is none
        if STOPPED.search(best.text) and not _denied(best.text, asked):  # it ended: No if asked whether it goes on
            if not grounds.still_asked:
                return None
            verdict = _worded(verdict, "No.")
        if grounds.still_asked and verdict.text.startswith("Yes.") and lapsed(best.text, ctx.as_of):
            verdict = _worded(verdict, "No.")  # "could continue to serve ... only until 1 July 2026": not still
        if UNENACTED.search(best.text):  # what an act never made law would do answers nothing but whether it is law
            if not grounds.status_asked:
                return None
            verdict = _worded(verdict, "No.")
        current = [c.text for c in (*pool, *cands) if not c.history and not held_before(c.quotes[-1].quote, ctx.as_of)]
        if grounds.contested(verdict.said, current):
            return None
        if grounds.forbid_asked:  # "Does the US ban ...?": Yes when the deciding sentence forbids it, No when not
            word = "Yes." if _stated(PROHIBITS, best.text) else "No."
            verdict = _worded(verdict, word)
        if grounds.predicate_said(verdict.said) is False:
            verdict = _worded(verdict, "No.")  # "Is FMLA leave paid?": "FMLA leave is unpaid."
        if grounds.optional_asked is not None:
            if _both_ways(best, pool or cands, set(grounds.words)) or ALTERNATIVE.search(verdict.said):
                return None  # "available on a voluntary basis since 2022" beside "must ... from 1 February 2026"
            if _contrary_duty(verdict.said, grounds.optional_asked):
                verdict = _worded(verdict, "No.")  # "Is e-invoicing optional?": "... made invoicing compulsory"
        if (
            verdict.text.startswith("Yes.")
            and ctx.catalog.status_at(best.doc_id, ctx.as_of) == DocStatus.not_yet_applicable
            and not grounds.name_source(named_as[best.doc_id])
            and _named_elsewhere(grounds, best.doc_id, codes, ctx)
        ):
            return None  # "Is TicketBAI required in Bilbao?": not what Spain's pending Verifactu rules say of it
        verdict = _not_yet(verdict, best, ctx)
        if verdict.text.startswith("Yes."):
            wanted = beyond_name(set(grounds.words), named_as.get(best.doc_id, ""))  # the law's own name says which
            if _misses_rarest(
                verdict.said, [t for t in terms(item.ask) if t in wanted] + sorted(wanted), pool or cands
            ):
                return None
        if own or not named:
            return verdict
        if answering and not any(same_jurisdiction(best.jurisdiction, code) for code in answering):
            return None  # "..., and does the same period apply in the UK?" is not answered by Germany's law
        if grounds.own_law or (verdict.text.startswith("No") and not grounds.name_source(named_as[best.doc_id])):
            return None  # a wider law's No does not settle the named place's own law, which may grant more
        if _to_be_transposed(best.doc_id, ctx) and not grounds.name_source(named_as[best.doc_id]):
            # the place's own law decides, if any
            return proposed_verdict(item, grounds.by, named, cands, ctx, grounds.words, grounds.status_asked)
        return _from_elsewhere(verdict, best.jurisdiction)
    for best, verdict in tried:  # a rule in force on some of what is asked, naming them: No to all of them
        if (
            best in of_some
            and says_of_some(grounds.universal, best.text)
            and grounds.by(verdict.said, named_as[best.doc_id])
            and holds(best, verdict)
            and ctx.catalog.status_at(best.doc_id, ctx.as_of) == DocStatus.in_force
            and (not named or any(same_jurisdiction(code, best.jurisdiction) for code in named))
        ):
            return _worded(verdict, "No.")
    if not grounds.words or any(grounds.by(best.text, named_as[best.doc_id]) for best in of_some):
        return None  # a rule in force speaks to it, of some of what is asked: neither a Yes nor a proposal's No
    if grounds.may_asked and not grounds.status_asked:
        return None  # "Can businesses still agree terms over 60 days?": a proposed cap is no No to what is allowed now
    return proposed_verdict(item, grounds.by, codes, cands, ctx, grounds.words, grounds.status_asked)


LIMITING = re.compile(
    r"\b(?:must|shall|may\s+not|cannot|can\s*not|not\s+exceed\w*|at\s+most|no\s+(?:more|longer)\s+than|maximum|"
    r"limited\s+to|capped)\b",
    re.I,
)
"""Wording by which a rule sets a period's upper limit, not a period that happens to be short ("must pay within 30
days", "may not exceed 60 days"; not "decisions are usually published within 60 days")."""
LIMIT_WORDS = 2
"""Asked words (or words derived from them: "pay" in "payment") a rule capping a period must state to speak of what
the yes/no asks may be done for longer ("let a customer pay at 90 days": "The payment period agreed between
businesses may not exceed 60 days")."""


def _derived_words(words: Iterable[str], sentence: str) -> set[str]:
    """The words a sentence states, or states a word derived from ("pay" by "payment", "notify" by "notification")."""
    stated = term_set(sentence)
    return {w for w in words if w in stated or (len(w) >= 3 and any(t.startswith(w) for t in stated))}


def _beyond_limit(item: PlanItem, grounds: Grounds, pool: Sequence[Candidate], ctx: EngineContext) -> Claim | None:
    """ "No." with the rule, when a yes/no asks whether something may be done for a period (`Grounds.periods`,
    bounded from no side) that a rule in force speaking to it caps below ("Can a supplier let a customer pay at 90
    days?": "The payment period ... may not exceed 60 days"), and no rule found allows as long or longer. None
    otherwise: a period within the limit is not thereby allowed."""
    if not (grounds.may_asked or grounds.permission_asked) or not grounds.periods or grounds.sides:
        return None
    unfigured = replace(grounds, periods=frozenset())
    asked = min((n * DAYS_IN[unit][0] for n, unit in grounds.periods if unit in DAYS_IN), default=0.0)
    if not asked:
        return None

    def limits(c: Candidate) -> list[float]:
        return [n * DAYS_IN[unit][1] for n, unit, side in period_sides(c.text) if side == "below" and unit in DAYS_IN]

    speaking = [
        c
        for c in pool
        if not c.history
        and ctx.catalog.status_at(c.doc_id, ctx.as_of) == DocStatus.in_force
        and not UNVERIFIED.search(c.quotes[-1].quote)
        and (unfigured.by(c.text, _source_name(c, ctx)) or len(_derived_words(grounds.words, c.text)) >= LIMIT_WORDS)
    ]
    capped = [c for c in speaking if LIMITING.search(c.text) and max(limits(c), default=asked) < asked]
    allowing = [
        c
        for c in speaking
        if any(n * DAYS_IN[unit][1] >= asked for n, unit in period_lengths(c.text) if unit in DAYS_IN)
    ]
    if not capped or allowing:
        return None
    best = capped[0]
    return Claim(text=f"No. {best.text}", plan_item_ids=(item.id,), citations=best.quotes, kind="verdict")


CARRIED_ON = re.compile(r"\b(?:continues? to (?:govern|apply)|remains? (?:governed|in force|applicable))\b", re.I)
"""Wording by which an ended instrument still governs what came before its end ("continues to govern credit
agreements that already existed on 20 November 2026")."""
BEFORE_ITS_END = re.compile(r"\b(?:exist\w*|already|before|earlier|previous\w*|prior|older|old)\b", re.I)
"""A yes/no asking about what came before an instrument's end ("... for agreements that already existed?"), which
it may still govern."""


MEASURE_ENDED = re.compile(
    rf"{STOPPED.pattern}|\b(?:ended|lifted|expired|(?:was|were|has|have)\s+not\s+(?:been\s+)?(?:renewed|extended))\b",
    re.I,
)
"""Wording by which a measure inside an instrument in force ended ("The ban was not renewed and ended on 18 May
2020"): its instrument's status says nothing of it."""
HOLDS_NOW = re.compile(
    rf"{CARRIED_ON.pattern}|\b(?:still|currently|remains?|continues?|in force|in effect|appl(?:y|ies))\b", re.I
)
"""Wording by which a sentence says that something holds at present, not only that it began."""
STILL_WORDS = term_set("still currently now today longer anymore continue force effect apply applies valid law")


WHEN_ENDING = re.compile(r"\b(?:after|once|when|until|before|since|where|if)\b", re.I)
"""A clause of time or condition: what "ended" there ends is when the rule applies ("The obligation applies after
the seller's legal liability has ended"), not the end of the rule."""


def _while_ending(sentence: str, at: int) -> bool:
    """Whether the end stated at `at` lies in a clause of time or condition (`WHEN_ENDING`) of its own clause."""
    clause = re.split(r"[,;:.]", sentence[:at])[-1]
    return bool(WHEN_ENDING.search(clause))


def _measure_ended(asked: set[str], pool: Sequence[Candidate], ctx: EngineContext) -> Candidate | None:
    """The current sentence that best names what a "still in force?" yes/no asks about (`asked`, its words) and
    states that it ended on or before the as-of date (`MEASURE_ENDED`): "is the ban it imposed in March 2020 still
    in force?" is No by "The French ban was not renewed and ended on 18 May 2020", not Yes by the sentence saying
    the ban began. None when no such sentence is at hand."""
    subject = {w for w in asked - STILL_WORDS if not w.isdigit() and w not in MONTH_TERMS}  # what, not when
    ended = [
        c
        for c in pool
        if not c.history
        and any(not _while_ending(c.text, m.start()) for m in MEASURE_ENDED.finditer(c.text))
        and not UNVERIFIED.search(c.quotes[-1].quote)
        and _part_words(subject, c.text)
        and all(d <= ctx.as_of for d in dates(c.text))
    ]
    return max(ended, key=lambda c: len(_part_words(subject, c.text)), default=None)


INSTRUMENT_WORDS_ASKED = 2
"""Words of an ended instrument's own name (title, instrument) a question must use to ask of it unnamed ("Is the
FTC non-compete ban in force today?" of the "FTC Non-Compete Clause Rule")."""


def _asked_history(plan: ResearchPlan, cands: Sequence[Candidate], ctx: EngineContext) -> list[str]:
    """The ended documents that the question asks of: filed under a place it names itself (not only a wider one
    that applies there: a federal rule answers no question on a Washington template), and named by its number or by
    `INSTRUMENT_WORDS_ASKED` words of its own name beside the places. One retrieval left out (its successor answers
    for it) counts when the question also names its year ("the EU parental leave directive of 2010")."""
    asked = term_set(plan.question) - _place_terms(plan)
    numbers = instrument_numbers(plan.question)
    years = {int(y) for y in YEAR.findall(plan.question)}
    retrieved = list(dict.fromkeys(c.doc_id for c in cands if c.history))
    ended = [d.id for d in ctx.catalog.all() if ctx.catalog.status_at(d.id, ctx.as_of).history]
    out = []
    for doc_id in dict.fromkeys([*retrieved, *ended]):
        doc = ctx.catalog.get(doc_id)
        if doc is None or not any(same_jurisdiction(doc.jurisdiction, j.code) for j in plan.jurisdictions):
            continue
        own = instrument_text(doc)
        dated = doc_id in retrieved or bool(doc.effective and doc.effective.year in years)
        if numbers & instrument_numbers(own) or (dated and len(asked & term_set(own)) >= INSTRUMENT_WORDS_ASKED):
            out.append(doc_id)
    return out


def _asks_still_in_force(plan: ResearchPlan) -> bool:
    """Whether the yes/no asks whether an instrument still holds."""
    return still_in_force(_yes_no_part(plan))


def _ended(item: PlanItem, plan: ResearchPlan, ctx: EngineContext, doc_ids: Sequence[str]) -> Claim | None:
    """ "No. <the sentence stating its end>" when the yes/no asks whether an instrument the question names still
    holds (`_asks_still_in_force`) and that instrument (of `doc_ids`) no longer applies at the as-of date by its
    status: its successor's "replaces" sentence is no Yes ("Is the EU Consumer Credit Directive 2008/48 still in
    force for new credit agreements?" was answered "Yes. Directive (EU) 2023/2225 ... replaces ..."). The sentence
    is read from a successor in force first (one naming the instrument's number), else from the instrument itself
    (quoted as its history), with the instrument's sentence on what it still governs; None when none states the
    end, when the question asks about what it still governs ("... for existing agreements?"), or when nothing of
    this is asked."""
    if not _asks_still_in_force(plan):
        return None
    for doc_id in doc_ids:
        doc = ctx.catalog.get(doc_id)
        if doc is None or not ctx.catalog.status_at(doc_id, ctx.as_of).history:
            continue
        numbers = instrument_numbers(instrument_text(doc))
        for source in (*doc.superseded_by, doc_id):
            quotes = list(first_statement(source, ctx, partial(_states_end, None if source == doc_id else numbers)))
            if not quotes:
                continue
            carried = _carried_on((source, doc_id), ctx, numbers)
            if carried is not None:
                if BEFORE_ITS_END.search(_yes_no_part(plan)):
                    return None  # asked about what it still governs ("for existing agreements"): it depends
                quotes.append(carried)
            return Claim(
                text=" ".join(["No.", *(q.quote for q in quotes)]),
                plan_item_ids=(item.id,),
                citations=tuple(quotes),
                kind="verdict",
                history=any(ctx.catalog.status_at(q.doc_id, ctx.as_of).history for q in quotes),
            )
    return None


def _carried_on(doc_ids: Sequence[str], ctx: EngineContext, numbers: set[str]) -> Quote | None:
    """The first sentence of these documents (the one stating the end, then the ended instrument) saying what the
    ended instrument still governs (`CARRIED_ON`), if one does: naming none of its `numbers`, it may name no other
    act ("Maternity leave remains governed by Council Directive 92/85/EEC" is not what the repealed act governs)."""

    def carries(s: str) -> bool:
        named = instrument_numbers(s)
        return bool(CARRIED_ON.search(s)) and (not named or bool(named & numbers))

    for doc_id in dict.fromkeys(doc_ids):
        quote = first_sentence(doc_id, ctx, carries)
        if quote is not None:
            return quote
    return None


def _states_end(numbers: set[str] | None, sentence: str) -> bool:
    """Whether the sentence states an instrument's end (`ENDED`); given `numbers`, of an instrument it names by
    one of them (a successor's sentence on another act it repeals is not about the one asked); without them (the
    instrument's own text), its own end (`OWN_END`: "It replaced Directive 92/59/EEC" ends another act)."""
    if UNSURE.search(sentence):
        return False  # "Whether the rule text has since been removed ... is not verified here" states no end
    if numbers is None:
        return bool(OWN_END.search(sentence))
    return bool(ENDED.search(sentence)) and bool(numbers & instrument_numbers(sentence))


OWN_END = re.compile(
    r"\b(?:(?:was|were|is|are|been)\s+(?:\w+\s+)?(?:repealed|replaced|superseded|revoked|abolished|removed)|"
    r"(?:repealed|replaced|superseded|revoked)\s+by|expired|ceased to apply|no longer (?:appl\w*|state)|"
    r"set aside|vacated|struck down|annulled|never (?:took|take|taken) effect|never (?:entered|came) into force)\b",
    re.I,
)
"""Wording by which an instrument's own text states its end: passive ("was repealed by"), never the active
"replaced" of an act it ended itself; a court's ruling that ended it ("set aside the rule", "vacated"), which
no instrument says of another; or that it never took effect."""
UNSURE = re.compile(r"\bnot verified\b|\b(?:unclear|uncertain)\b|^\s*whether\b", re.I)
"""A sentence that leaves open what it speaks of ("Whether ... has since been removed is not verified here")."""


TRANSPOSED = re.compile(r"\bdirective\b", re.I)
"""A wider law that binds the places under it to make their own (a union directive): what it requires of them
is not yet what their law requires of a business there."""


def _to_be_transposed(doc_id: str, ctx: EngineContext) -> bool:
    """Whether the document, by its own title or instrument, is a law its places must transpose into their own
    ("Directive (EU) 2023/970"): its Yes does not say that a named member state's law already requires it
    ("Does the Netherlands already require employers to publish pay ranges?", where only a bill is)."""
    doc = ctx.catalog.get(doc_id)
    return doc is not None and bool(TRANSPOSED.search(instrument_text(doc)))


def _worded(verdict: Claim, word: str) -> Claim:
    """The verdict saying `word` ("Yes." or "No.") before what it quotes, whatever word it read from the quote."""
    return verdict.model_copy(update={"text": f"{word} {verdict.said}"})


def _from_elsewhere(verdict: Claim, code: str) -> Claim:
    """The verdict saying whose law it rests on when that is not a place the question names: "Does California law
    protect ...?" answered from a federal act is "Yes, from United States sources: ...", not a bare "Yes" that
    reads as California's."""
    word = next((w for w in ("Yes", "No") if verdict.text.startswith(f"{w}.")), None)
    if word is None:
        return verdict
    return verdict.model_copy(update={"text": sourced_verdict(word, jurisdiction_name(code), verdict.said)})


def _source_name(cand: Candidate, ctx: EngineContext) -> str:
    """The names the candidate's document gives itself (see `own_name`)."""
    doc = ctx.catalog.get(cand.doc_id)
    return own_name(doc) if doc is not None else ""


def beyond_name(words: set[str], source: str) -> set[str]:
    """The asked words without those the source's own name states (all of them when it states every one): what a
    sentence of that source must speak to, and what its denial must bear on ("Credit agreements secured by a
    mortgage ... remain outside the scope" of the consumer credit directive denies nothing a question on
    buy-now-pay-later loans under it asks)."""
    return (words - said_terms(words, source)) or words


def _not_yet(verdict: Claim, best: Candidate, ctx: EngineContext) -> Claim:
    """The verdict, turned into "No, not yet: X applies only from D." when it says Yes from an act that does not
    apply yet at the as-of date."""
    doc = ctx.catalog.get(best.doc_id)
    if doc is None or not verdict.text.startswith("Yes."):
        return verdict
    status = ctx.catalog.status_at(doc.id, ctx.as_of)
    if status != DocStatus.not_yet_applicable:
        return verdict
    lead = pending_lead(doc, status, undated="a date not yet set")
    return verdict.model_copy(update={"text": f"{lead} {verdict.said}"})


EXCEPTION = re.compile(
    r"\b(?:may|can)\s+(?:allow|permit|provide for|exempt|set)\b|\bexcept\b|\bunless\b|\bother than\b|\bexempt\w*|"
    r"\bdoes not apply\b|\bdo not apply\b",
    re.I,
)
"""Wording that makes room for cases a rule does not reach ("Member States may allow up to 60 days for public
authorities carrying out economic activities")."""


def _of_all(grounds: Grounds, best: Candidate, passages: list[tuple[str, str, str, float]], said: str) -> bool:
    """Whether a Yes quoting `said` says it of all of what the yes/no asks of every or all of (`says_of_all`),
    with no exception for some of them (`_excepted`)."""
    return says_of_all(grounds.universal, said) and not _excepted(grounds.universal, best, passages, said)


def _excepted(nouns: Collection[str], best: Candidate, passages: list[tuple[str, str, str, float]], said: str) -> bool:
    """Whether a sentence the verdict quotes after its first (`said`), or one right after the candidate (within
    VERDICT_CONTEXT), makes an exception for some of what a yes/no asks of all (`Grounds.universal`): "Must all
    public authorities pay within 30 days?" is no plain Yes when the next sentence lets some of them take 60."""
    return any(
        EXCEPTION.search(s) and any(stem(w) in nouns for w in re.findall(r"[A-Za-z][\w-]*", s))
        for s in (*sentences(said)[1:], *_after(best.quotes[-1], _passage_of(best.quotes[-1], passages)))
    )


def _passage_of(quote: Quote, passages: list[tuple[str, str, str, float]]) -> str:
    """The text of the passage the quote comes from ("" when it is not among them)."""
    return next((t for _, c, t, _ in passages if c == quote.chunk_id), "")


def _after(quote: Quote, text: str) -> list[str]:
    """The sentences right after the quoted one in its passage's `text`, at most VERDICT_CONTEXT of them: the
    context a verdict reads on."""
    sents = sentences(text)
    at = next((i for i, s in enumerate(sents) if s == quote.quote), len(sents))
    return sents[at + 1 : at + 1 + VERDICT_CONTEXT]


def _stated_verdict(
    item: PlanItem,
    best: Candidate,
    passages: list[tuple[str, str, str, float]],
    asked: set[str],
    exempt: bool = False,
    duty_verb: str = "",
) -> Claim:
    """The verdict one candidate states, with the context around it (see `_one_verdict`); `exempt`: the question
    asks whether something is exempt (`EXEMPT_ASK`); `duty_verb`: the verb of the duty it asks about, which the
    candidate may itself bind someone to (`_binds_to`): a later sentence sparing others of it ("Public employers need
    not provide coverage") is quoted beside it, but the duty stated decides ("Do employers have to provide paid
    family leave?": "Private employers ... must provide Paid Family Leave coverage" is a Yes)."""
    quotes = list(best.quotes)
    last = quotes[-1]
    text = _passage_of(last, passages)
    after = _after(last, text)
    following = []
    for s in after:
        if has_instructions(s):
            break  # a sentence addressing a model is never quoted, nor what lies beyond it
        if not is_anaphoric(s) or s == after[0]:
            following.append(s)
    on_it = term_set(best.text)
    denial = next(  # on the same thing: sharing its words, or referring back to it right after ("It is paid ...")
        (
            s
            for s in following
            if _denied(s, asked) and (len(term_set(s) & on_it) >= LEAD_SHARED or (s == after[0] and is_anaphoric(s)))
        ),
        None,
    )
    said = decided = best.text
    if not _denied(said, asked) and denial:
        upto = following[: following.index(denial) + 1]
        quotes += [Quote(doc_id=last.doc_id, chunk_id=last.chunk_id, quote=s) for s in upto]
        said = " ".join([said, *upto])
        if not _binds_to(best.text, duty_verb):
            decided = said
    first = best.quotes[0]
    # context comes from the sentence's own paragraph: the one before may be another section's
    own = sentences(next((p for p in text.split("\n\n") if first.quote in p), text))
    start = next((i for i, s in enumerate(own) if s == first.quote), 0)
    follows = first.quote
    leads: list[str] = []
    for lead in reversed(own[max(0, start - VERDICT_CONTEXT + 1) : start]):
        if (
            has_instructions(lead)
            or len(term_set(lead) & term_set(follows)) < LEAD_SHARED
            or len(f"{lead} {said}".split()) > VERDICT_WORDS
        ):
            break
        leads.insert(0, lead)
        follows = lead
    while leads and is_anaphoric(leads[0]):  # a lead that needs the sentence before it would open mid-thought
        leads.pop(0)
    quotes[:0] = [Quote(doc_id=first.doc_id, chunk_id=first.chunk_id, quote=lead) for lead in leads]
    # asked whether exempt, read from the deciding sentence on: a lead on what else is exempt says nothing of it,
    # unless the deciding sentence says nothing either way ("A small producer is exempt from the program." before
    # "A producer is a small producer if it has gross revenue of less than $5 million ...")
    own_word = exempt and not _silent_on_exemption(decided, asked)
    word = _polarity(decided if own_word else " ".join([*leads, decided]), asked, exempt)
    said = " ".join([*leads, said])
    return Claim(
        text=f"{word} {said}", plan_item_ids=(item.id,), citations=tuple(quotes), kind="verdict", history=best.history
    )
