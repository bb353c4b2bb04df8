"""Offline planner: reads the question and the corpus metadata into a research plan.

Jurisdictions come from the gazetteer (countries, demonyms, subdivisions, corpus codes and names); entity types
from the corpus' own vocabulary (`applies_to`, exemption entities); aspects from the wording of the question
(what it asks: figures, dates, exemptions, definitions, obligations, scope, a yes/no verdict, a comparison).
Nothing here knows a regulation: the words below are English question words, not legal facts.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date

from core.domain.documents import Catalog, DocStatus
from core.domain.figures import MONTH_NAMES, PERIOD, WORD_COUNT
from core.domain.gazetteer import (
    Place,
    corpus_names,
    is_place_name,
    jurisdiction_name,
    names_listed,
    occurrences,
    own_law,
    read_places,
    without_names,
)
from core.domain.plan import (
    ANY_JURISDICTION,
    Aspect,
    PlanItem,
    PlannedJurisdiction,
    ResearchPlan,
    comparison_item,
    item_id,
    named_item_id,
    verdict_item,
)
from core.domain.world import city_place, place_named
from core.engines.base import EngineContext, PlanResult
from core.engines.offline.recall import Unplanned, own_acronym, unplanned
from core.engines.offline.relevance import DURATION_BOUND, subject_treated
from core.engines.offline.sources import instrument_numbers, instrument_text
from core.engines.offline.verdicts import asked_change, asks_of_law, still_in_force
from core.engines.text import (
    CLAUSE_SPLIT,
    OWN_COUNT,
    STOPWORDS,
    asks_yes_no,
    dates_own_past_event,
    facts_set_out,
    questions_asked,
    questions_on_facts,
    states_own_count,
    stem,
    terms,
    trailing_yes_no,
    yes_no_sentence,
)

KEPT = r"\b(?:keep|keeps|kept|retain\w*|stor(?:e|ed|es|ing|age)|preserv\w*|hold|holds|held)\b"
"""Verbs of keeping something ("how long must records be kept?"), as whole words: "investor" stores nothing."""
ASPECT_CUES: dict[Aspect, re.Pattern[str]] = {
    Aspect.threshold: re.compile(
        r"threshold|percent|percentage|%|how (?:much|many|large|big|high|low|small)|\bamount\w*|(?<!time )\blimits?\b|"
        r"trigger|\bfigures?\b|"
        r"\bcaps?\b|\bceilings?\b|\brates?\b|"
        r"\bvalues?\b|minimum|maximum|de minimis|"
        r"\d[\d,.]*\s*(?:%|(?-i:[A-Z]{3})\b)|\b(?-i:[A-Z]{3})\s?\d|[$€£¥]\s?\d",
        re.I,
    ),
    Aspect.date: re.compile(
        r"(?<!by )\bwhen\b|(?<!by what )(?<!by which )date|since|until|timeline|transpos|in force|effective|today|"
        r"\bnow\b|\bchang\w*|history|happened|still|timing|\byears? (?:ago|later|after)|"
        rf"after (?:{'|'.join(MONTH_NAMES)}|\d{{4}})|"
        rf"before (?:the |its )?(?:\d|(?-i:[A-Z])|(?:{'|'.join(MONTH_NAMES)})\b|then\b|that date|date|deadline|entry)|"
        r"from \d{4}|\b(?:19|20)\d\d\b",
        re.I,
    ),
    Aspect.exemption: re.compile(
        rf"exempt|exception|exclu|carve|waive|relief|\bonly\b(?!\s+(?:\d|{WORD_COUNT}))|not (?:have|need)|"
        r"do(?:es)? not apply|any (?:way|exception)",
        re.I,
    ),
    Aspect.definition: re.compile(
        r"defin|meaning|\bmeans?\b|what (?:is|are) (?:a|an|the)\b(?!\s+(?:\w+\s+){0,2}?(?:maximum|minimum|highest|"
        r"lowest|deadline|period|time limit|penalt|fine|sanction|sentence|threshold|amount|limit|rate|date)\b)|"
        r"who (?:is|are|counts)|"
        r"counts? as|concept|\bcontrol\b|who qualif",
        re.I,
    ),
    Aspect.obligation: re.compile(
        r"\bmust\b|\b(?:has|have|had|needs?) to\b|obligat|mandator|compulsor|dut(?:y|ies)|require|procedure|"
        r"steps|\breport|regist|record|verif|identif|collect|\bfile\b|"
        r"\b(?:to|must|should|shall|we|they|it|I|you) do\b|should|what (?:does|do) .* (?:say|need|have)",
        re.I,
    ),
    Aspect.deadline: re.compile(
        r"by when|by (?:what|which) date|\bwithin\b|\bperiods?\b|\bdue\b(?! diligence)|deadline|time limit|"
        r"how (?:soon|quickly|fast|often|frequently|many (?:days|hours|weeks|months))|at what intervals?|"
        rf"no later than|how long(?![^,;?]{{0,60}}{KEPT})|"
        r"(?<!\bper )(?<!\ba )(?<!\ban )(?<!\beach )(?<!\bevery )\b(?:days?|hours?)\b|"
        r"\b(?:still|too late to|in time to)\s+(?:\w+\s+){0,2}?(?:sue|claim|bring|file|lodge|appeal|complain|withdraw|"
        r"cancel|challenge|object|take (?:legal )?action)\b|"
        r"\b(?:maximum|minimum|max\.?|longest|shortest|permitted|allowed)\s+(?:\w+\s+){0,2}?length\b|"
        r"\blongest\b|\blength\s+of\b|\bduration\b",
        re.I,
    ),
    Aspect.penalty: re.compile(
        r"penalt|\bfines?\b|\bfined\b|sanction|punish|imprison|prison|jail|\bliab(?:le|ility)\b|\bcrim(?:e|es|inal)\b|"
        r"\boffen[cs]e|consequence|what happens if|"
        r"(?<!\bwho )(?<!authority )(?<!\bbody )(?<!regulator )(?<!agency )(?<!not be )(?<!not )enforce(?!ab)"
        r"(?!\s+(?:a|an|our|their|my|his|her)\s)(?!\s+(?:the\s+)?(?:[\w-]+\s+){0,2}?"
        r"(?:clause|agreement|covenant|contract|term)s?\b)|(?:can|could|will|would) happen|"
        r"\bignor(?:e|es|ing)\b|(?:fail(?:s|ing)?|refus(?:e|es|ing)) to comply|(?:does|do)(?: not|n't) comply|"
        r"\bremed(?:y|ies)\b|\b(?:court|tribunal|judge)s?\b[^.?]{0,25}\b(?:award|order|grant)|"
        r"\b(?:what|how much)\b[^.?]{0,20}\b(?:can|could|may|might)\b[^.?]{0,40}\brecover\b",
        re.I,
    ),
    Aspect.recipient: re.compile(
        r"\bwhom\b|\bto who\b|which (?:authorit|regulator|body|bodies|agenc|supervisor|office|court|tribunal)|"
        r"who (?:enforces|supervises|regulates|administers|oversees|monitors|polices)\b|"
        r"where (?:can|could|may|should|must|do|does) (?:\w+ ){0,5}?(?:complain|claim|sue|appeal)\b|"
        r"who (?:must|should|do|does|is|are|has to|have to) (?:\w+ ){0,3}?(?:be )?"
        r"(?:notif|inform|told|tell|report|alert)|(?:report|notif\w*|file|submit|send)\w* (?:it |them |this )?"
        r"(?:to|with) (?:which|whom|what)",
        re.I,
    ),
    Aspect.records: re.compile(
        rf"record[- ]?keeping|\brecords?\b|\bretain|retention|how long [^,;?]{{0,60}}{KEPT}|"
        r"\barchiv|\bpreserv",
        re.I,
    ),
    Aspect.scope: re.compile(
        r"appl(?:y|ies) to|covered|cover\b|scope|subject to|obliged|which (?:entities|firms|"
        r"businesses|companies)|(?:^|[,;:?]\s*|\b(?:and|or|but|to|of|for|about|on|know|ask|tell|say|explain)\s+)who\b|"
        r"does .* apply|do .* apply|\b(?:does|do|is|are)\b[^?]{0,60}\bprotect",
        re.I,
    ),
}
COMPARISON = re.compile(
    r"\bcompar|\bversus\b|\bvs\.?\b|\bdiffer|\bdifference|\bcontrast|\bsame as\b|"
    r"\bboth\b|\bbetween\b",
    re.I,
)
QUOTED = re.compile(r"[\"\u201c]([^\"\u201d]{2,60})[\"\u201d]|(?<!\w)[\u2018']([^\u2019']{2,60})[\u2019'](?!\w)")
"""Words the question puts in quotes ("what counts as 'control'?"); an apostrophe inside a word ("Canada's rate
... New York's") opens and closes nothing."""
FOCUS = re.compile(
    r"\b(?:focus(?:ing|ed)? on|in particular|particularly|especially|with emphasis on|notably)\b(.*)$", re.I
)
HISTORY_CUES = re.compile(
    r"what happened|former|\bold\b|previous|earlier|repeal|supersed|replaced|struck down|"
    r"invalidat|no longer|used to|original",
    re.I,
)
IN_FORCE_YES_NO = re.compile(r"\bin (?:force|effect)\b|\b(?:take|took|taken) effect\b|\bset aside\b|\bvacat", re.I)
"""A yes/no asking whether an instrument is in force ("Is the FTC non-compete ban in force today?"): the answer may
lie in a document that no longer applies, the one stating that it was set aside or repealed."""
QUESTION_WORDS = frozenset(
    terms(
        "what which who whom how why when where is are does do compare comparison versus differ difference between "
        "under focus focusing answer question tell explain describe list give apply applies applicable today now "
        "rule rules requirement requirements obligation obligations threshold thresholds figure figures date dates "
        "deadline deadlines exemption exemptions definition define scope covered cover regime law laws regulation "
        "jurisdiction jurisdictions country countries still there new current currently main key need needs must "
        "has have had should would could can may shall will also after before since until"
    )
)
"""Question wording that says what kind of answer is wanted, not what it is about."""
PRONOUN_COUNTS = frozenset({"one"})
"""A count that is as often a pronoun ("If we learn one of them is dangerous", "no one"): no topic word (it made a
timeshare directive's "expires one year and 14 calendar days after" answer how quickly a dangerous product must be
notified). Other counts stay: "within seven days" is what the sentence answering must state."""
COUNT_PRONOUN = re.compile(
    r"\b(?:each|all|both|any|either|none) (?:of )?(?:the |these |those )?"
    r"(?:two|three|four|five|six|seven|eight|nine|ten)\b(?=\s*(?:[,;:?.!)]|$))",
    re.I,
)
"""A count that stands for things the question has named ("For each of the three, ...", "in all four?"): no topic
word, or a sentence stating "three years" would speak to a question on three places."""
US_PRONOUN = re.compile(r"\bus\b")
""""us" written in lower case is the asker ("a wholesaler that buys from us"), not the United States: no topic
word (it made every document naming the US speak to the question)."""
MEMBERSHIP = re.compile(
    r"\b(?:in|from|of|across|throughout|within) (?:(?:an?|any|each|every|one|another|other|all|the) )?"
    r"(?:[A-Z]{2,4} )?member (?:states?|countr(?:y|ies))\b",
    re.I,
)
"""Wording that places the question in some member of a union ("an employee in an EU member state"): it says
where, not what the question is about, so its words are no topic words (a sentence on how Member States
transposed another directive answers nothing asked). Member States as the subject of the question ("have
Member States met the deadlines?") stay topic words."""
ASPECT_QUERY: dict[Aspect, str] = {
    Aspect.scope: "applies to covered entities scope",
    Aspect.threshold: "threshold percent amount figure",
    Aspect.date: "date applies from deadline in force",
    Aspect.exemption: "exempt exemption excluded does not apply",
    Aspect.definition: "means defined definition",
    Aspect.obligation: "must required obligations",
    Aspect.verdict: "",
    Aspect.comparison: "",
    Aspect.deadline: "within days deadline no later than period",
    Aspect.penalty: "penalty fine sanction imprisonment liable",
    Aspect.recipient: "notify report to the competent authority",
    Aspect.records: "keep records retain years retention",
}


def entity_vocabulary(catalog: Catalog) -> list[str]:
    """Entity types the corpus names (`applies_to`, exemption entities, threshold scopes)."""
    names: set[str] = set()
    for doc in catalog.all():
        names.update(doc.applies_to)
        names.update(e.entity for e in doc.exemptions)
        for t in doc.thresholds:
            names.update(t.applies_to)
    return sorted(n for n in names if n.strip())


def entities_in(question: str, catalog: Catalog) -> list[str]:
    """Entity types of the corpus vocabulary the question names (all words of the type, stemmed)."""
    q = terms(question)
    found = [e for e in entity_vocabulary(catalog) if (t := terms(e)) and all(w in q for w in t)]
    return [e for e in found if not any(e != o and set(terms(e)) < set(terms(o)) for o in found)]


AT_PRESENT = re.compile(r"\b(?:right now|at (?:the|this) moment|at present|as (?:of|at) (?:today|now))\b", re.I)
"""Wording for "now" whose words are no topic ("right now": not a right)."""
PRESENT = re.compile(r"\b(?:now|still|today|currently)\b", re.I)
"""Words by which a yes/no asks what holds at the as-of date ("Does the UK now have ...?"), not about a change."""
CONTENT_QUESTION = re.compile(r"^\s*(?:what|which|how)\b", re.I)
CONTENT_ASPECTS = (
    Aspect.threshold,
    Aspect.exemption,
    Aspect.definition,
    Aspect.obligation,
    Aspect.scope,
    Aspect.deadline,
    Aspect.penalty,
    Aspect.recipient,
    Aspect.records,
)


TIMING_CLAUSE = re.compile(
    r"\b(?:by when|within how \w+(?: \w+)?|how (?:long|soon|quickly|fast|many (?:days|hours|weeks|months|years))|"
    r"(?:to )?whom|(?:what|which)\s+(?:[\w-]+\s+){0,2}?(?:periods?|deadlines?|time limits?))\b[^,;?]*?(?=,|;|\?|\band\b|$)|"
    r"\bwho (?:must|should|(?:has|have|had) to|do|does) (?:\w+ ){0,3}(?:notif|inform|tell|told|report|alert)\w*",
    re.I,
)
"""A clause that asks when, how long or to whom ("how long does a consumer have to withdraw", "within how many
days must it acknowledge", "what limitation period must member states allow"): its modal verb asks for that period
or body, not for the rules' obligations too."""


TERM_ASKED = re.compile(
    r"\b(?:prison|imprison\w*|jail\w*|custod\w*|sentenc\w*|disqualif\w*|barred|banned)\b[^?.;]{0,40}?"
    r"\bhow long\b",
    re.I,
)
""""How long" asked of a penalty's term ("punishable by prison, and for how long at most?"): the penalty item
asks it, not a deadline."""
PENALTY_BOUND = re.compile(
    r"\b(?:maximum|minimum|highest|lowest|largest|biggest|max\.?)\s+(?:\w+\s+){0,2}?(?:prison|jail|custod\w*|"
    r"sentences?|terms?|fines?|penalt\w*|sanctions?|imprisonment)\b",
    re.I,
)
"""A bound of a penalty ("the maximum prison term", "the highest fine"): the penalty item asks it, not a
threshold."""
IF_CLAUSE = re.compile(r"\b(?:if|unless)\b[^?,;]*", re.I)
"""A condition the question sets ("what fine can it face if its index is still below 75 after three years?"): the
asker's circumstance, which asks no date ("still") of the rules."""
NAMED_YEAR = re.compile(
    r"\b(?:Act|Acts|Regulations?|Directive|Law|Code|Order|Ordinance|Decree|Rules|Convention|Treaty)\s*,?\s*"
    r"(?:No\.?\s*)?(?:19|20)\d\d\b|\b\d+/(?:19|20)\d\d\b|\b(?:19|20)\d\d/\d+",
    re.I,
)
"""A year that is part of an instrument's name or number ("the Bribery Act 2010", "Regulation (EU) 2024/3015"): it
names the law, it does not ask when."""
AS_OF_FRAME = re.compile(
    rf"\bas\s+(?:of|at)\s+(?:\d{{1,2}}\s+)?(?:(?:{'|'.join(MONTH_NAMES)})\s+)?(?:\d{{1,2}},?\s+)?"
    r"(?:19|20)\d\d\b",
    re.I,
)
"""The day a question is asked for ("As of December 2026, is a licence required ...?"): the as-of date of the
answer, no question when the rules applied."""
YEAR_OF = re.compile(r"\b(?:19|20)\d\d\b")
"""A year: in the facts a question sets out it still asks when ("took out a loan in March 2025"), though their
other words ("ahead of a material change") do not."""


PART_SPLIT = re.compile(
    r"[?;]|,\s*(?:and|or)\s+(?=(?:what|which|who|whom|when|where|how|(?:by|from|since|until) when|within)\b)|"
    r"\s+and\s+(?=(?:what|which|who|whom|when|where|how|(?:by|from|since|until) when|within)\b)",
    re.I,
)
"""Where a question goes on to ask another thing ("Which employers need a plan, and by when ...?")."""
OPEN_PART_WORDS = 2
"""Words of its own a part of a question needs to ask something ("is her dismissal unfair"), not to refer back to
what was asked ("If not, what replaced it?", "has the Netherlands already done so?") or say how to answer ("Yes or
no for each")."""
DONE_SO = re.compile(r"\b(?:do|does|did|done|doing) so\b", re.I)


def own_words(part: str) -> set[str]:
    """The words a part of a question asks with: no function, question or place words, no "done so"."""
    words = (w for w in re.findall(r"[^\W\d][\w'-]*", DONE_SO.sub(" ", part)) if not is_place_name(w))
    return {t for w in words for t in terms(w) if t not in STOPWORDS and t not in QUESTION_WORDS}


WHICH_PARTY = re.compile(r"^\s*(?:which|who)\b", re.I)
"""A part asking which or who ("Which federally regulated employers in Canada need a pay equity plan"): when no
wording in it says what of the rules it wants, it asks to whom they apply."""


def asked_of(
    question: str, aspects: list[Aspect], jurisdictions: tuple[PlannedJurisdiction, ...], catalog: Catalog
) -> dict[Aspect, set[str]]:
    """The corpus jurisdictions an aspect is asked of, where the question asks it only in parts that name some of
    its places ("How does Canada's rate compare with New York's, and from when has the Canadian rate applied?": the
    date only of Canada). A comparison asks what the parts before it ask of every place it names ("Did the US lower
    its threshold? How does it compare with the EU's?"), and a part that names a place without asking anything of
    its own ("And if it were based in France?", "Is it different in Quebec?") asks all of it there too. An aspect
    asked without a place, or of every place, is not listed."""
    if len(jurisdictions) < 2:
        return {}
    parts = [AS_OF_FRAME.sub(" ", p) for p in PART_SPLIT.split(questions_asked(question)) if p.strip()]
    compared = max((n for n, p in enumerate(parts) if COMPARISON.search(p)), default=-1)
    read = [{place.code for place in read_places(p, catalog).places} for p in parts]
    named = [[j for j in jurisdictions if j.code in codes] for codes in read]
    elliptic = {
        c
        for p, js in zip(parts, named, strict=True)
        if not COMPARISON.search(p) and not any(rx.search(p) for rx in ASPECT_CUES.values())
        for j in js
        for c in j.answered_from()
    }
    out: dict[Aspect, set[str]] = {}
    for aspect in aspects:
        cued = [n for n, p in enumerate(parts) if ASPECT_CUES[aspect].search(p)]
        if not cued or min(cued) <= compared or not all(named[n] for n in cued):
            continue
        if len({j.code for n in cued for j in named[n]}) == len(jurisdictions):
            continue
        out[aspect] = {c for n in cued for j in named[n] for c in j.answered_from()} | elliptic
    return out


APPLIES_TO_WHOM = re.compile(
    r"\bappl(?:y|ies)\b[^.?;]{0,30}?\bto whom\b|\bto whom\b[^.?;]{0,30}?\bappl(?:y|ies)\b", re.I
)
"""Asking to whom a rule applies ("From when would a ban apply and to whom?") asks its scope, not whom to notify."""


def asked_aspects(question: str) -> list[Aspect]:
    """The aspects the question's wording asks for; obligations when it names none, and when a what/which/how
    question asks only about timing ("what did X change?" asks what the rules now say, too), and when a part of it
    no aspect's wording asks has words of its own ("is her dismissal unfair?"). A modal verb in a clause that asks
    when or to whom (`TIMING_CLAUSE`), or in the facts the question sets out, does not ask for obligations; a bound
    of a penalty (`PENALTY_BOUND`) or of a duration (`DURATION_BOUND`) asks no threshold, a year in an instrument's
    name (`NAMED_YEAR`) no date, and to whom a rule applies (`APPLIES_TO_WHOM`) its scope, not a recipient."""
    asked = questions_asked(question)
    read_as = {
        Aspect.obligation: TIMING_CLAUSE.sub(" ", asked),  # "has never set up a procedure" is the asker's own fact
        Aspect.deadline: TERM_ASKED.sub(" ", question),
        Aspect.threshold: DURATION_BOUND.sub(" ", PENALTY_BOUND.sub(" ", question)),
        Aspect.recipient: APPLIES_TO_WHOM.sub(" ", question),
        Aspect.date: " ".join(
            (
                IF_CLAUSE.sub(" ", AS_OF_FRAME.sub(" ", NAMED_YEAR.sub(" ", asked))),
                *YEAR_OF.findall(AS_OF_FRAME.sub(" ", NAMED_YEAR.sub(" ", question))),
            )
        ),
    }
    found = [a for a, rx in ASPECT_CUES.items() if rx.search(read_as.get(a, question))]
    parts = [p for part in PART_SPLIT.split(asked) for p in CLAUSE_SPLIT.split(part) if p and p.strip()]
    open_part = any(
        not WHICH_PARTY.match(p)
        and not COMPARISON.search(p)
        and not any(rx.search(p) for rx in ASPECT_CUES.values())
        and len(own_words(p)) >= OPEN_PART_WORDS
        for p in parts
    )  # "..., is her dismissal unfair, ...": a part no aspect's wording asks asks what the rules say
    if Aspect.obligation not in found and (
        open_part or (not any(a in CONTENT_ASPECTS for a in found) and (not found or CONTENT_QUESTION.search(question)))
    ):
        found.append(Aspect.obligation)
    if Aspect.scope not in found and APPLIES_TO_WHOM.search(question):
        found.append(Aspect.scope)
    if Aspect.scope not in found and any(
        WHICH_PARTY.match(part) and not any(rx.search(part) for rx in ASPECT_CUES.values())
        for part in PART_SPLIT.split(question)
    ):
        found.append(Aspect.scope)
    return found


MAX_DOCS_PER_NAME = 3
"""An alias shared by more documents than this names an authority or a regime, not one instrument."""


TITLE_NAME = re.compile(r"\(([^()]+)\)")
NAME_WORD = re.compile(r"(?:[A-Z\u00c0-\u00de][\w.-]*|of|on|and|for|the|in|to|de|du|des|la|le)$")
NEWER = re.compile(
    r"\b(?:new|revised|recast|amended|amending|proposed|draft|second|successor)\s+(?:(?-i:[A-Z][\w.]*)\s+)?$", re.I
)
"""A qualifier before a name that makes it another act's ("the new (EU) Consumer Credit Directive" is not the old
one)."""


def title_names(title: str) -> list[str]:
    """The short names a title gives in brackets ("Directive 2008/48/EC on credit agreements for consumers (Consumer
    Credit Directive)", "... (Lieferkettensorgfaltspflichtengesetz, LkSG)"): each comma-separated part whose words
    are all capitalised or joining words and that holds a letter, not a description ("(consultation summary)",
    "(Commission proposal of 3 May 2023)") or a bare year."""
    out = []
    for group in TITLE_NAME.findall(title):
        for part in re.split(r"[,;]", group):
            words = part.split()
            if words and words[0][:1].isupper() and all(NAME_WORD.match(w) for w in words):
                out.append(" ".join(words))
    return out


def named_documents(question: str, catalog: Catalog, as_of: date) -> list[str]:
    """Documents the question names by an alias, a short name its title gives (`title_names`), its citation,
    instrument number or the acronym of its own name (`own_acronym`, of a document in force at `as_of`; never an
    erroneous one). An alias that is some document's short name (its first alias)
    names that document only, not the others that mention it; a name after "new" or "revised" names its successor."""
    sharing: dict[str, int] = {}
    short: dict[str, set[str]] = {}
    names_of = {doc.id: tuple(dict.fromkeys((*doc.aliases, *title_names(doc.title)))) for doc in catalog.all()}
    for doc in catalog.all():
        for a in names_of[doc.id]:
            sharing[a] = sharing.get(a, 0) + 1
        if names_of[doc.id] and doc.status != DocStatus.erroneous:
            short.setdefault(names_of[doc.id][0], set()).add(doc.id)
    codes = set(catalog.jurisdictions())
    # an act's acronym ("FMLA" for a title spelling out the Family and Medical Leave Act), written as one in capitals
    acronyms_of = {
        doc.id: set(own_acronym(doc.title, doc.instrument or "", doc.jurisdiction)) - codes
        for doc in catalog.all()
        if catalog.status_at(doc.id, as_of) == DocStatus.in_force
    }
    sharing_acronym = Counter(a for found in acronyms_of.values() for a in found)
    asked_acronyms = set(re.findall(r"\b[A-Z]{3,}\b", question))
    out = []
    for doc in catalog.all():
        if doc.status == DocStatus.erroneous:
            continue
        names = [
            a
            for a in names_of[doc.id]
            if len(a) >= 3
            and a not in codes
            and sharing[a] <= MAX_DOCS_PER_NAME
            and not is_place_name(a)
            and doc.id in short.get(a, {doc.id})
        ]
        if doc.citation:
            names.extend(p.strip() for p in re.split(r"[;,]", doc.citation) if len(p.strip()) > 6)
        if (
            any(not NEWER.search(question[:start]) for n in names if n for start, _ in occurrences(n, question))
            or instrument_numbers(instrument_text(doc)) & instrument_numbers(question)
            or any(sharing_acronym[a] <= MAX_DOCS_PER_NAME and a in asked_acronyms for a in acronyms_of.get(doc.id, ()))
        ):
            out.append(doc.id)
    return out


def question_for(question: str, code: str, codes: list[str], catalog: Catalog) -> str:
    """The question as it concerns one jurisdiction: the names of the other asked jurisdictions and of their
    instruments taken out, so the retrieval query for this jurisdiction is not pulled towards theirs."""
    others: set[str] = set()
    names = corpus_names(catalog)
    for other in codes:
        if other not in (code, ANY_JURISDICTION):
            others |= {other, *names.get(other, set())}
    return without_names(question, others - names.get(code, set()))


class OfflinePlanner:
    """A research plan from the question and the corpus metadata, without a model."""

    name = "offline"

    def plan(self, question: str, ctx: EngineContext) -> PlanResult:
        """Jurisdictions, entity types, aspects and one item per jurisdiction and aspect."""
        catalog = ctx.catalog
        read = read_places(question, catalog)
        unknown = [*unplanned(question, read.spans(), catalog), *(Unplanned(u.text, place=True) for u in read.unclear)]
        patterned = [u.text for u in unknown if u.place and place_named(u.text)]
        if patterned:  # "Has Britain raised ...?", "a customer in Munich": a country by its name pattern, a city
            read = read_places(question, catalog, patterned)
            unknown = [
                *unplanned(question, read.spans(), catalog),
                *(Unplanned(u.text, place=True) for u in read.unclear),
            ]
        places = list(read.places)
        unknown += within_country(places, patterned, catalog)
        places = without_parted_cities(places, patterned)
        named_words = {w for p in places for w in terms(p.named_as)} | {
            w for a, b in read.named if is_place_name(question[a:b]) for w in terms(question[a:b])
        }  # every place name read ("a German wholesaler ... a debtor in Germany"), not an act's ("the BO rule")
        jurisdictions = tuple(_planned(p, catalog, ctx.as_of) for p in places)
        entities = entities_in(question, catalog)
        aspects = asked_aspects(question)
        if entities and Aspect.scope not in aspects:
            aspects.append(Aspect.scope)
        after_facts = questions_on_facts(question)
        # a change ("has the EU changed the threshold?") or whether a rule still holds ("is that cap still valid?")
        # is asked of the law, not of the facts set out before it
        asked = yes_no_sentence(question)
        facts = facts_set_out(question)
        on_facts = any(
            asked_change(p) is None and (dates_own_past_event(p, ctx.as_of) or not asks_of_law(p, facts))
            for p in after_facts
        ) or bool(
            asked
            and asked_change(asked) is None
            and (dates_own_past_event(asked, ctx.as_of) or (not still_in_force(asked) and states_own_count(asked)))
        )
        trailing = trailing_yes_no(question)
        yes_no = asks_yes_no(question)
        if yes_no and Aspect.exemption in aspects and Aspect.obligation not in aspects:
            aspects.append(Aspect.obligation)  # "Is a director exempt from disclosing ...?": the duty decides it
        supporting: set[Aspect] = set()
        if on_facts and OWN_COUNT.search(facts) and Aspect.threshold not in aspects:
            aspects.append(Aspect.threshold)  # "We have 30 employees. Must we ...?": the size tests decide, where
            supporting.add(Aspect.threshold)  # the law sets any (a duty "whatever its size" sets none)
        if yes_no and Aspect.date in aspects and not ASPECT_CUES[Aspect.date].search(PRESENT.sub(" ", question)):
            supporting.add(Aspect.date)  # "Does the UK now have ...?" asks what holds, not when it changed
            if not any(a in CONTENT_ASPECTS for a in aspects):
                aspects.append(Aspect.obligation)
        if yes_no and not trailing and Aspect.date not in aspects:
            aspects.append(Aspect.date)  # whether something exists or applies depends on when (the open question
            # a yes/no follows says what else is asked); the question does not ask it
            supporting.add(Aspect.date)
        named = named_documents(question, catalog, ctx.as_of)
        # how long the asker's own situation lasts ("interns for three months") is a measure, as a number is, not a
        # subject: "month" would make a rail regulation's "within one month" speak to a question on minimum wages
        # (a period asked about stays one: "a 60-day cap on payment terms", "a payment period of 75 days")
        measured = {
            t
            for m in PERIOD.finditer(question)
            if m.group(0).lower().startswith("for ")
            for t in terms(f"{m.group('count')} {m.group('unit')}")
        }
        topic = [
            t
            for t in dict.fromkeys(
                terms(
                    US_PRONOUN.sub(" ", COUNT_PRONOUN.sub(" ", MEMBERSHIP.sub(" ", AT_PRESENT.sub(" now ", question))))
                )
            )
            if t not in QUESTION_WORDS
            and t not in named_words
            and t not in STOPWORDS
            and not t.isdigit()
            and t not in PRONOUN_COUNTS
            and t not in measured
        ]
        stressed = FOCUS.search(question)
        quoted = " ".join(a or b for a, b in QUOTED.findall(question))
        focus = [t for t in terms(f"{stressed.group(1) if stressed else ''} {quoted}") if t in topic]
        if focus and Aspect.definition not in aspects:
            aspects.append(Aspect.definition)  # what the stressed concept covers is part of what is asked
        history_docs = self._history(question, asked, named, catalog, ctx)
        items: list[PlanItem] = []
        codes = answering_codes(jurisdictions, unknown)
        words_for = {c: " ".join(dict.fromkeys(_words_for(c, places, jurisdictions))) for c in codes}
        topic_text = " ".join(
            w for w in re.findall(r"\d+(?:[.,]\d+)*%?|[\w%$€£-]+", question) if stem(w) in topic or re.search(r"\d", w)
        )
        only = asked_of(question, aspects, jurisdictions, catalog)
        for code in codes:
            asked = question_for(question, code, codes, catalog)
            for aspect in aspects:
                if aspect in only and code not in only[aspect]:
                    continue
                label = "any jurisdiction in the corpus" if code == ANY_JURISDICTION else code
                query = " ".join(x for x in (asked, ASPECT_QUERY[aspect], words_for.get(code, "")) if x)
                items.append(
                    PlanItem(
                        id=item_id(code, aspect),
                        jurisdiction=code,
                        aspect=aspect,
                        ask=f"{label}: {aspect.label} on {topic_text or question}",
                        query=query,
                        supporting=aspect in supporting,
                    )
                )
        items += disclosed_items(jurisdictions, unknown, aspects, topic_text or question)
        if yes_no:
            items.insert(0, verdict_item(question, bool(codes)))
        comparison = bool(COMPARISON.search(question)) or (len(codes) > 1 and " and " in question.lower())
        if comparison and len(jurisdictions) > 1:
            items.append(comparison_item((j.code for j in jurisdictions), len(codes) > 1))
        plan = ResearchPlan(
            question=question,
            as_of=ctx.as_of,
            jurisdictions=jurisdictions,
            entity_types=tuple(entities),
            topic_terms=tuple(topic),
            focus_terms=tuple(focus),
            named_doc_ids=tuple(named),
            history_doc_ids=tuple(history_docs),
            yes_no=yes_no,
            verdict_on_facts=on_facts,
            comparison=comparison and len(jurisdictions) > 1,
            items=tuple(items),
            planner=self.name,
            not_understood=tuple(u.text for u in unknown),
        )
        usable_texts = (ctx.doc_text(d.id) for d in catalog.all() if catalog.status_at(d.id, ctx.as_of).usable)
        return PlanResult(plan=plan.model_copy(update={"subject_treated": subject_treated(plan, usable_texts)}))

    @staticmethod
    def _history(question: str, asked: str | None, named: list[str], catalog: Catalog, ctx: EngineContext) -> list[str]:
        """Instruments the question asks about that no longer apply: they are cited as history, not removed.
        Named ones always; with history wording ("what happened to", "former", "repealed") or a yes/no asking
        whether something is in force (`asked`: the question's yes/no sentence), every such document."""
        out = [d for d in named if catalog.status_at(d, ctx.as_of).history]
        if HISTORY_CUES.search(question) or IN_FORCE_YES_NO.search(asked or ""):
            out += [d.id for d in catalog.all() if catalog.status_at(d.id, ctx.as_of).history]
        return list(dict.fromkeys(out))


def _planned(place: Place, catalog: Catalog, as_of: date) -> PlannedJurisdiction:
    return PlannedJurisdiction(
        code=place.code,
        name=place.name,
        named_as=(place.named_as,),
        in_corpus=place.in_corpus,
        via=place.via,
        wider=place.wider,
        parts=place.parts,
        not_in_force=not_in_force(catalog, place.code, as_of),
    )


def not_in_force(catalog: Catalog, code: str, as_of: date) -> tuple[str, ...]:
    """The documents filed under `code`, each with its status ("nl-bill (proposed)"), when none of them states law
    in force on `as_of` (erroneous ones left out, as everywhere); empty when one does."""
    out = []
    for doc in catalog.all():
        if doc.jurisdiction != code:
            continue
        status = catalog.status_at(doc.id, as_of)
        if status.usable:
            return ()
        if status != DocStatus.erroneous:
            out.append(f"{doc.id} ({status.value.replace('_', ' ')})")
    return tuple(out)


def answering_codes(jurisdictions: tuple[PlannedJurisdiction, ...], unknown: list[Unplanned]) -> list[str]:
    """The corpus jurisdictions that get items: each named place's own and wider ones; any jurisdiction when the
    question names none (not even a place the corpus and the gazetteer do not know)."""
    codes = list(dict.fromkeys(c for j in jurisdictions for c in j.answered_from()))
    if codes or jurisdictions or any(u.place for u in unknown):
        return codes
    return [ANY_JURISDICTION]


def _words_for(code: str, places: list[Place], jurisdictions: tuple[PlannedJurisdiction, ...]) -> list[str]:
    """The question's own names of the places a corpus jurisdiction answers for (for its retrieval query)."""
    return [p.named_as for p, j in zip(places, jurisdictions) if code in j.answered_from()]


def within_country(places: list[Place], read_by_name: list[str], catalog: Catalog) -> list[Unplanned]:
    """A disclosure for each city the plan reads as its country (`city_place`: GeoNames gives a state only for the
    US) where the corpus holds law of parts of that country: "Toronto" is answered from Canada's law, and which
    province's law also applies there is left open, not silently dropped."""
    out = []
    for place in places:
        if not _city_as_country(place, read_by_name):
            continue
        parts = sorted(c for c in catalog.jurisdictions() if c.startswith(f"{place.code}-"))
        if parts:
            held = ", ".join(jurisdiction_name(c) for c in parts)
            out.append(Unplanned(place.named_as, True, f"a part of {place.name} (the corpus holds law of {held})"))
    return out


def without_parted_cities(places: list[Place], read_by_name: list[str]) -> list[Place]:
    """The places without each city read as its country (`within_country` discloses it) where the question also
    names a part of that country: "a courier app in Ottawa ... Ontario's rules" asks of Ontario, not of Canada as
    a whole."""
    return [
        p
        for p in places
        if not (_city_as_country(p, read_by_name) and any(q.code.startswith(f"{p.code}-") for q in places))
    ]


def _city_as_country(place: Place, read_by_name: list[str]) -> bool:
    """Whether the place is a city the plan reads as its country (`city_place`), named by a name the libraries'
    place names lack (`read_by_name`)."""
    return place.named_as in read_by_name and city_place(place.named_as) == place.code


def disclosed_items(
    jurisdictions: tuple[PlannedJurisdiction, ...], unknown: list[Unplanned], aspects: list[Aspect], topic: str
) -> list[PlanItem]:
    """Items no retrieval can answer, disclosed in the answer: a place the corpus holds nothing of its own for
    (with the wider sources that do apply there, if any), and every name the plan could not place."""
    out: list[PlanItem] = []
    for j in jurisdictions:
        if j.in_corpus:
            continue
        law = own_law(j.code)
        wider = ", ".join(j.wider or ((j.via,) if j.via else ()))
        ask = (
            f"{j.name} as a whole (the corpus holds law of {names_listed(j.parts)} only, planned on their own)"
            if j.parts
            else f"{j.name}: {law} (the corpus holds {wider} sources, which apply there)"
            if wider
            else f"{j.name}: {', '.join(a.label for a in aspects)} on {topic}"
        )
        out.append(
            PlanItem(
                id=item_id(j.code, aspects[0]),
                jurisdiction=j.code,
                aspect=aspects[0],
                ask=ask,
                query="",
                answerable=False,
            )
        )
    for u in unknown:
        out.append(
            PlanItem(
                id=named_item_id(u.text),
                jurisdiction=ANY_JURISDICTION,
                aspect=aspects[0],
                ask=f'"{u.text}" in {u.within}' if u.within else f'"{u.text}", which the question names',
                query="",
                answerable=False,
            )
        )
    return out
