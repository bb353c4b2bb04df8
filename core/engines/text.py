"""Text helpers the offline engine shares: content-word stems, passage cleaning and whole sentences.

Sentences come from pysbd, a rule-based segmenter made for legal and formal text (it keeps "U.S.", "No. 3",
"e.g." and citations inside their sentence); a fragment it leaves after an abbreviation followed by a number
("Reg. 2024/1624") is joined back. Stemming is a light suffix stripper: enough to match "businesses" with
"business"; the retrieval side uses Qdrant's own BM25 stemmer.
"""

from __future__ import annotations

import calendar
import re
import threading
import unicodedata
from collections.abc import Collection
from datetime import date
from functools import lru_cache

import pysbd

from core.domain.figures import MONTH_NAMES, WORD_COUNT, counted_nouns, counts, date_spans, figures, period_lengths

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "by",
        "with",
        "under",
        "from",
        "at",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "their",
        "there",
        "which",
        "what",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "how",
        "does",
        "do",
        "did",
        "can",
        "could",
        "may",
        "might",
        "must",
        "shall",
        "should",
        "will",
        "would",
        "than",
        "then",
        "also",
        "any",
        "all",
        "each",
        "other",
        "such",
        "into",
        "about",
        "between",
        "after",
        "before",
        "over",
        "same",
        "not",
        "no",
        "yes",
        "nor",
        "only",
        "own",
        "so",
        "very",
        "just",
        "both",
        "more",
        "most",
        "some",
        "if",
        "but",
        "because",
        "while",
        "per",
        "via",
        "i",
        "me",
        "my",
        "we",
        "our",
        "ours",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "they",
        "them",
        "don",
        "doesn",
        "didn",
        "isn",
        "aren",
        "wasn",
        "already",
        "itself",
        "themselves",
        "himself",
        "herself",
        "ourselves",
        "myself",
        "yourself",
    ]
)
"""Function words left out of content-word stems. Kept by hand rather than scikit-learn's ENGLISH_STOP_WORDS,
which also drops words that carry meaning in regulation ("less", "above", "below", "except", "without",
"amount", "interest", "system", "first", the number words): with it the quality bench lost a fact (heldout loop
155 -> 154 of 175 facts, residual severity 1.34 -> 1.46; single pass 152 -> 151). Personal pronouns and the stems
of negative contractions ("don't" -> don) are function words too: an analyst's "do we have to ... if they don't"
named no topic (whistleblowing 79 -> 80 and supply chain 71 -> 72 facts, nothing lower; "us" stays, it is the
US)."""
AUXILIARIES = "is|are|does|do|did|must|can|could|should|shall|has|have|had|was|were|will|would|may"
"""Auxiliary verbs, as a regex alternation: a clause that opens with one asks for a yes or a no."""
ANAPHORIC_OPENERS = re.compile(
    r"^(?:it|its|this|these|those|they|their|them|that|such|there(?:fore|by)?(?!\s+(?:is|are|was|were|has|have|had|"
    r"will|would|must|may|might|can|could|shall|should|remains?|exists?)\s+(?!(?:no\s+)?such\b))|thus|hence|however|also|then|"
    r"accordingly|consequently|likewise|similarly|instead|otherwise|moreover|furthermore|in addition(?!\s+to\s+(?:a|an|any|all|other|its|their|the\s+(?!above|foregoing|preceding)\w+)\b)|"
    r"in that case|as a result|for this reason|he|she|his|her|the\s+latter)\b",
    re.I,
)
"""Openers that point back to an earlier sentence: such a sentence is never used without its predecessor. "There"
before a verb ("There is no general federal statute ...") points nowhere, unless "such" follows; so does "In
addition to" what it names ("In addition to any other remedy, a court may award ..."). "The latter" points back
to what the sentence before names."""
ORDINAL_BACK = re.compile(
    r"^\W*the\s+(?:first|second|third|fourth|fifth|former)\s+(?:one\s+)?(?:is|are|was|were|applies|apply|covers|"
    r"concerns|allows|permits|requires|relates|exempts)\b",
    re.I,
)
"""A sentence naming by its rank one of the things the sentence before it counts ("There are two exceptions. ...
The second applies to an employee who is an executive")."""

_WORD_RE = re.compile(r"[^\W_]+")
"""A word in any script: "Karenzentschädigung" and "Québec" are one word each, not two or three."""
_ABBREVIATION_TAIL = re.compile(r"\b(?:[A-Z][a-z]{0,4}|[a-z]{1,4})\.$")
_SEGMENTER = pysbd.Segmenter(language="en", clean=False)
_SEGMENTER_LOCK = threading.Lock()
"""pysbd keeps per-call state on the segmenter: two threads segmenting at once corrupt each other's sentences."""


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix stripper: enough to match 'businesses' with 'business' and 'services' with 'service'.

    Kept by hand rather than snowballstemmer's English (Porter 2) stemmer: Porter's stems ("busi", "requir",
    "benefici") conflate more, and on the quality bench (fact matching left on this stemmer) the stateful loop lost
    a fact on q1-q6 (63 -> 62 of 73) and so did single pass (61 -> 60, residual severity 0.85 -> 0.97); heldout
    single pass gained one (152 -> 153 of 175). A snowball stemmer object also keeps per-word state, so the
    graph's parallel nodes corrupt a shared one (IndexError): it needs one per thread.
    """
    w = word.lower()
    for suffix in ("nesses", "ness", "ies", "ied", "sses", "es", "s", "ing", "ed"):
        if len(w) > len(suffix) + (2 if suffix == "s" else 3) and w.endswith(suffix) and not w.endswith("ss"):
            if suffix in ("ies", "ied"):  # "applies", "applied": "apply"
                return w[:-3] + "y"
            if suffix == "sses":
                return w[:-2]
            if suffix == "es" and not w.endswith(("ses", "xes", "ches", "shes")):
                return w[:-1]
            if suffix == "nesses":
                return w[:-2]
            base = w[: -len(suffix)]
            if suffix in ("ing", "ed") and len(base) >= 3 and base[-1] == base[-2] and base[-1] in UNDOUBLED:
                return base[:-1]  # "capped", "banned", "transferred": "cap", "ban", "transfer"
            return base
    return w


UNDOUBLED = "bgmnprt"
"""Consonants a verb doubles before "-ed" and "-ing" ("capped", "submitting"); not f, l, s or z, which the bare
word has doubled too ("staffed", "billed", "passed")."""


@lru_cache(maxsize=65536)
def unaccented(word: str) -> str:
    """The word lower-cased without its diacritics ("québec" -> "quebec"): a question typed without accents
    matches a source that has them."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(ch))


def terms(text: str) -> list[str]:
    """Content-word stems of a text, in order."""
    return list(_terms(text))


@lru_cache(maxsize=16384)
def _terms(text: str) -> tuple[str, ...]:
    """`terms`, kept for the sentences the engines score again and again (per item, per cycle, per check)."""
    return tuple(stem(unaccented(w)) for w in _WORD_RE.findall(text) if w.lower() not in STOPWORDS and len(w) > 1)


def term_set(text: str) -> set[str]:
    """Distinct content-word stems of a text."""
    return set(_terms(text))


DETERMINERS = frozenset(
    ["a", "an", "the", "its", "their", "his", "her", "our", "your", "this", "these", "those", "each", "every"]
)
"""Words that open a noun phrase: the content words after one name a kind of thing ("its ethnicity pay gap").
Not "that", which opens a clause as often ("a federal law that makes private employers ..." names no kind of
employer)."""


def _runs(text: str) -> list[list[str]]:
    """Runs of adjacent words (no punctuation between them), lower-cased."""
    return [[unaccented(w) for w in _WORD_RE.findall(chunk)] for chunk in re.split(r"[^\w\s'-]+", text)]


def _content(word: str) -> bool:
    return len(word) > 1 and word not in STOPWORDS


def kinds(text: str) -> set[tuple[str, tuple[str, ...]]]:
    """The kinds of thing a text names after a determiner, as (modifier, head words) stems: "its ethnicity pay
    gap" gives ("ethnicity", ("pay", "gap")), "a listed company" ("list", ("company",))."""
    out: set[tuple[str, tuple[str, ...]]] = set()
    for run in _runs(text):
        for i, word in enumerate(run):
            if word not in DETERMINERS:
                continue
            phrase: list[str] = []
            for w in run[i + 1 : i + 4]:
                if not _content(w):
                    break
                phrase.append(stem(w))
            if len(phrase) >= 2:
                out.add((phrase[0], tuple(phrase[1:])))
    return out


def rival_kind(asked: Collection[tuple[str, tuple[str, ...]]], text: str) -> bool:
    """Whether the text speaks of another kind of what is asked: it puts a different word before the asked head
    words and never states the asked modifier ("gender pay gap" for "its ethnicity pay gap", "a private company"
    for "a listed company"). A head followed by "of" says its kind there ("a good-faith range of compensation" is
    a pay range): the word before it does not make it another kind."""
    words = term_set(text)
    for run in _runs(text):
        stems = [stem(w) if _content(w) else "" for w in run]
        for m, head in asked:
            n = len(head)
            if m in words:
                continue
            for i in range(1, len(stems) - n + 1):
                if tuple(stems[i : i + n]) != head or not stems[i - 1] or stems[i - 1] == m:
                    continue
                if i + n < len(run) and run[i + n].lower() == "of":
                    continue
                return True
    return False


def overlap(query_terms: set[str], text: str) -> float:
    """Share of the query's terms that the text contains (0..1)."""
    if not query_terms:
        return 0.0
    return len(query_terms & term_set(text)) / len(query_terms)


BULLET = re.compile(r"^([-*+]|\d+[.)])\s+")
"""A Markdown list marker at the start of a line."""


SENTENCE_OPENING = re.compile(r"[A-Z][a-z]")
"""A list item that opens with a capitalised word is a sentence of its own ("- Banks and insurers."); one that
opens otherwise ("- up to ...", "- £40 for ...", "- EUR 40 for ...") goes on with its lead-in."""


def clean_passage(text: str) -> str:
    """Passage text without Markdown headings, bullets or emphasis, one paragraph per line. A list whose items go
    on with the sentence that introduces them ("The maximum fines are: - up to EUR 800,000 for ...; - up to ...",
    "a fixed sum ... which depends on the size of the debt: - £40 for a debt of less than £1,000; - ...") is one
    sentence, on the line of its lead-in: an item alone would start mid-sentence, or lose what its figure is; so
    is a list that goes on, unbulleted and in lower case, on the line after its lead-in ("It does not apply to:" then
    "persons under 18 ...; apprentices ...")."""
    lines: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        bullet = BULLET.match(stripped)
        stripped = stripped[bullet.end() if bullet else 0 :].replace("**", "").replace("__", "")
        after_lead = lines and (
            lines[-1][-1:] in ":;," if bullet else lines[-1].endswith(":") and stripped[0].islower()
        )
        if after_lead and not SENTENCE_OPENING.match(stripped):
            lines[-1] = f"{lines[-1]} {stripped}"
        else:
            lines.append(stripped)
    return "\n".join(lines)


LIST_ITEMS = 2
"""Items a sentence must list after its lead-in (`list_items`) to be read as a list."""


def list_items(sentence: str) -> tuple[str, list[str]] | None:
    """The lead-in and items of a sentence that lists at least LIST_ITEMS items after a colon, separated by
    semicolons ("The Rule does not apply, among other cases, to: the minimum payment exemption: ...; a fractional
    franchise: ...; leased departments ..."), each item without its closing mark; None for any other sentence."""
    lead, colon, rest = sentence.partition(": ")
    if not colon or not rest or not lead[:1].isupper():
        return None
    items = [i.strip() for i in rest.rstrip(".;").split("; ")]
    if len(items) < LIST_ITEMS or not all(items):
        return None
    return f"{lead}:", items


def cut_list(text: str) -> str | None:
    """The list a passage ends in when the passage ends before the list does (its last item closes with a
    semicolon and the next passage goes on with the rest): `sentences` leaves it out, as it ends no sentence."""
    paragraphs = clean_passage(text).splitlines()
    last = _segment(paragraphs[-1])[-1:] if paragraphs else ()
    return last[0] if last and last[0].endswith(";") and list_items(last[0]) else None


@lru_cache(maxsize=8192)
def _segment(paragraph: str) -> tuple[str, ...]:
    parts: list[str] = []
    with _SEGMENTER_LOCK:
        raw_parts = _SEGMENTER.segment(paragraph)
    for raw in raw_parts:
        piece = raw.strip()
        if not piece:
            continue
        if parts and (_ABBREVIATION_TAIL.search(parts[-1]) and piece[:1].isdigit()):
            parts[-1] = f"{parts[-1]} {piece}"
        else:
            parts.append(piece)
    return tuple(parts)


def sentence_starts(text: str) -> set[int]:
    """Offsets in the text at which its sentences begin, as the segmenter splits them."""
    starts: set[int] = set()
    at = 0
    for para in text.splitlines():
        for piece in _segment(para) if para.strip() else ():
            found = text.find(piece, at)
            if found >= 0:
                starts.add(found)
                at = found + len(piece)
    return starts


def sentences(text: str) -> list[str]:
    """Whole sentences of a passage, in order; headings and short label lines are left out."""
    out: list[str] = []
    for para in clean_passage(text).splitlines():
        if para[-1] not in ".!?:;" and not para.endswith((".)", "!)", "?)")) and len(para.split()) <= 12:
            continue  # a short line without a full stop is a heading ("CDD triggers before 2026 (regulation 27)")
        for s in _segment(para):
            if len(s) >= 25 and s[-1] in ".!?)\"'":
                out.append(s)
    return out


OPEN_LEAD = r"who|whom|whose|what|which|why|how|(?:by|since|until|till)\s+when"
"""Words by which a leading phrase asks an open question ("Within how long, and with whom, must she report ...?")."""
YES_NO = re.compile(
    rf"(?:^\s*|^(?:(?!\b(?:{OPEN_LEAD})\b)[^?]){{0,80}}?,\s*)(?:{AUXILIARIES})\s+(?!you\b)\w+",
    re.I,
)
"""A question (or a part of one) that opens with an auxiliary verb, or does so after a leading phrase ("After the
2025 rule, must a Delaware LLC report ...?"), asks for a yes or a no; not after a phrase that asks an open question
("Within how long, and with whom, must she report ...?")."""


REPORTED = re.compile(
    r"\b(?:says?|said|(?:tells?|told)(?: us| me| (?:our|my|the)(?: \w+){1,2} that)|claims?|claimed|believes?|"
    r"thinks?|argues?|argued|insists?|assured? us|"
    r"assures us|suggests?|suggested|advised(?: us)?|advises(?: us)?|reckons?|maintains?)\s+(?:that\s+)?"
    r"(?P<claim>[^.!?]+?)[.!]?\s*$",
    re.I,
)
"""A statement reporting what someone holds ("Our legal team says the EU has brought in ..."): a premise to check,
not a fact of the asker's own."""
CHECKED = re.compile(
    r"^\s*(?:(?:is|was)\s+(?:that|this|it|he|she|they)\s+(?:(?:really|still)\s+)?(?:true|right|correct|so|accurate|"
    r"the case)|(?:are|is)\s+(?:they|he|she)\s+(?:(?:really|still)\s+)?right|(?:can|may|could|should)\s+(?:we|i)\s+(?:safely\s+)?"
    r"rely\s+on\s+(?:that|this|it|(?:his|her|their)\s+(?:advice|view|word)))\b",
    re.I,
)
"""A question asking whether a reported premise holds ("Is that true", "Can we rely on that")."""


LIST_MARK = r"\(?(?:\d{1,2}|[a-h]|i{1,3}|iv|vi{0,3})\)\s+"
"""How a question numbers what it asks: "(1) ", "2) ", "(b) ", "(ii) "."""
NEXT_LISTED = re.compile(rf"(?<=\?)\s+(?={LIST_MARK})")
"""Where one numbered question ends and the next begins ("... employees? (2) must we tell ...?")."""
LIST_LEAD = re.compile(rf"^(?:[^?:]{{0,80}}:\s*)?{LIST_MARK}")
"""What goes before a numbered question's words ("Yes or no for each: (1) ", "(2) "): the question is what follows."""
DASHED_QUESTION = re.compile(rf"\s+[-\u2013\u2014]\s+(?=(?:{AUXILIARIES})\s+\w[^?]*\?\s*$)", re.I)
"""A dash that sets a question off from the facts before it ("We have 12-month non-competes for traders - are they
unlawful because of their length?"): two sentences, the question one of its own."""


def question_sentences(question: str) -> list[str]:
    """The sentences of a question as typed (short ones too: `sentences` keeps only a passage's whole sentences),
    a reported premise and the question whether it holds read as one yes/no ("Our legal team says the EU has
    brought in X. Is that true, and what binds us?": "Is it true that the EU has brought in X, and what binds
    us?"), so the premise is checked against the sources and not taken as the asker's own facts."""
    parts = [
        LIST_LEAD.sub("", e)
        for para in question.splitlines()
        if para.strip()
        for p in _segment(para)
        for q in DASHED_QUESTION.split(p)
        for e in NEXT_LISTED.split(q)
    ]
    out: list[str] = []
    for part in parts:
        reported = REPORTED.search(out[-1]) if out and not out[-1].rstrip().endswith("?") else None
        checked = CHECKED.match(part)
        if reported and checked:
            out[-1] = f"Is it true that {reported.group('claim').strip()}{part[checked.end() :]}"
        else:
            out.append(part)
    return out


def yes_no_sentence(question: str) -> str | None:
    """The sentence of the question that asks for a yes or a no (the first that opens as one), or None."""
    return next((p for p in question_sentences(question) if YES_NO.search(p)), None)


EITHER_OR = re.compile(rf"(?:,\s*|\s+)or\s+(?:{AUXILIARIES})\s", re.I)
"""A question that asks which of two holds ("Can a company keep its policy private, or must it publish it?"): a Yes
or a No to its first half is no answer to it."""
PREDICATE_GOES_ON = r"(?!(?:to|be|been|being|not)\b)"
"""After an auxiliary, words that go on a predicate, never open a question ("have to", "must be paid", "may not")."""
CLAUSE_SPLIT = re.compile(
    rf",\s+(?:(?:and|or)\s+)?(?=(?:{AUXILIARIES})\s+{PREDICATE_GOES_ON})"
    rf"|\s+(?:and|or)\s+(?=(?:{AUXILIARIES})\s+{PREDICATE_GOES_ON})",
    re.I,
)
"""Where a question asks a further yes/no ("..., and must its bank still collect ...?", "Is her dismissal unfair,
is the compensation capped ...?"); not where a list inside it ends before its verb ("By when did websites, and
mobile apps, have to comply?": "have to" is no question), nor where a predicate goes on ("how much of the leave is
non-transferable and must be paid?")."""


OPEN_FRONTED = re.compile(
    rf"^(?:(?!\b(?:{AUXILIARIES})\b)[^?]){{0,80}}?\b(?:{OPEN_LEAD})\b(?:(?!\b(?:{AUXILIARIES})\b)[^?]){{0,80}}?,\s*"
    rf"(?=(?:{AUXILIARIES})\s)",
    re.I,
)
"""An open question whose asking words come first, split by commas from its verb ("Within how long, and with whom
or through which system, must she report ...?"): the verb after them asks no further yes or no. The asking words
lie before that verb ("Under EU law, do we have to notify ..., through which channel?" opens as a yes/no)."""


def yes_no_parts(question: str) -> list[str]:
    """The yes/no parts a question asks, in order, none reaching into the next sentence ("Must we notify the
    regulator? Is there a fine?" asks two): each sentence split where a further yes/no opens (`CLAUSE_SPLIT`); a
    leading phrase that asks nothing goes with the clause after it ("After the 2025 rule, must ...?"), an open
    question before one does not ("What heading must the notice carry, and may we call it ...?"), nor does the
    verb of an open question whose asking words come first (`OPEN_FRONTED`). The whole question when none opens
    as a yes/no."""
    out: list[str] = []
    for sentence in question_sentences(question):
        fronted = OPEN_FRONTED.match(sentence)
        parts = [p for p in CLAUSE_SPLIT.split(sentence[fronted.end() if fronted else 0 :]) if p.strip()]
        if fronted:
            parts = parts[1:]
        elif len(parts) > 1 and not YES_NO.search(parts[0]):
            asks_open = re.search(rf"\b(?:{OPEN_LEAD}|when|where)\b", parts[0], re.I)
            parts = parts[1:] if asks_open else [f"{parts[0]}, {parts[1]}", *parts[2:]]
        out += [p for p in parts if YES_NO.search(p)]
    return out or [question]


def trailing_yes_no(question: str) -> str | None:
    """The yes/no a question asks after an open one, in the same sentence ("How long does a worker have to bring a
    claim, and is compensation capped?") or in the next ("What happened to public access? Can anyone still search a
    register today?"), facts the question sets out first aside ("A director bought shares. Within how many days
    must she notify ..., and does the company then have to publish it?"); None when its first question is a yes/no
    (facts followed by a yes/no are `questions_on_facts`)."""
    asked = question_sentences(question)
    while len(asked) > 1 and not asked[0].rstrip().endswith("?") and not YES_NO.search(asked[0]):
        asked = asked[1:]  # facts set out first ("A director bought shares. Within how many days ..., and does ...?")
    if not asked or YES_NO.search(asked[0]) or not asked[0].rstrip().endswith("?"):
        return None
    for n, sentence in enumerate(asked):
        if n and YES_NO.search(sentence):
            return sentence.strip()
        fronted = OPEN_FRONTED.match(sentence)  # "Within how long, and with whom, must she report ...?": its verb
        later = [p.strip() for p in CLAUSE_SPLIT.split(sentence[fronted.end() if fronted else 0 :])[1:] if p.strip()]
        if later:
            return later[0]
    return None


def asks_yes_no(question: str) -> bool:
    """Whether the question's wording asks a yes or no: it opens with an auxiliary verb (`YES_NO`), asks one after
    facts it sets out, or after an open question."""
    first = next(iter(question_sentences(question)), "")  # a reported premise checked: "Is it true that ...?"
    return bool(
        YES_NO.search(question) or YES_NO.search(first) or questions_on_facts(question) or trailing_yes_no(question)
    )


def questions_on_facts(question: str) -> list[str]:
    """The yes/no questions asked after facts the question sets out ("Our subsidiary has 120 employees. Does it
    need an internal channel?"): a statement comes first, and a later sentence ending in a question mark opens as a
    yes/no question does (none when the question opens with a question). Whether rules apply to those facts (120
    employees against a threshold of 50, a Mexican company against an exemption for domestic ones) is for the
    analyst or a model to judge."""
    parts = question_sentences(question)
    if not _opens_with_facts(parts):
        return []
    return [p for p in parts[1:] if p.rstrip().endswith("?") and YES_NO.search(p)]


def _opens_with_facts(parts: list[str]) -> bool:
    """Whether a question's sentences open with a statement and go on to more."""
    return len(parts) > 1 and not YES_NO.search(parts[0]) and not parts[0].rstrip().endswith("?")


def facts_set_out(question: str) -> str:
    """The statements a question makes besides its questions ("Our subsidiary has 120 employees."), when it opens
    with one; empty otherwise."""
    parts = question_sentences(question)
    if not _opens_with_facts(parts):
        return ""
    return " ".join(p for p in parts if not p.rstrip().endswith("?"))


WH_PART = re.compile(
    r"(?:,|\band\b|;)\s*(?=(?:(?:by|in|from|to|for|with|within|until|at|on|under|of|through|via)\s+)?"
    r"(?:who|whom|whose|what|which|when|where|why|how)\b)",
    re.I,
)
"""Where a yes/no sentence goes on to ask an open question ("Does X require ..., who brings the cases ...?", "...,
and by when must ...?")."""


@lru_cache(maxsize=256)
def yes_no_text(question: str) -> str:
    """The question without the open questions it asks: the facts it sets out and its yes/no parts, each up to an
    open question it goes on to ask ("Do we have to record working hours in Germany, and how long must we keep the
    records? ... how long must the rest be between two working days?": the two days are asked of the open part).
    What a verdict's sentence must state is read from this."""
    kept = []
    for sentence in question_sentences(question):
        if YES_NO.search(sentence):
            kept.append(WH_PART.split(sentence, maxsplit=1)[0].strip())
        elif not sentence.rstrip().endswith("?"):
            kept.append(sentence.strip())
    trailing = trailing_yes_no(question)
    return " ".join((*kept, trailing) if trailing else kept)


def questions_asked(question: str) -> str:
    """The question without the facts it sets out before asking (`facts_set_out`): what a yes or no answers."""
    parts = question_sentences(question)
    if not _opens_with_facts(parts):
        return question
    return " ".join(p for p in parts if p.rstrip().endswith("?"))


DEFINED_ASKED = re.compile(
    r"\bhow (?:is|are) (?:an? |the )?(?P<a>[\w -]{2,40}?) defined\b|"
    r"\b(?:definition|meaning) of (?:an? |the )?(?P<b>[\w -]{2,40}?)(?=\s*(?:[?,;.]|\b(?:and|or|in|under)\b|$))|"
    r"\b(?:what|who) counts as (?:an? |the )?(?P<c>[\w -]{2,40}?)(?=\s*(?:[?,;.]|\b(?:and|or|in|under)\b|$))",
    re.I,
)
"""Where a question asks what a term means; the named group holds the term."""


def defined_terms(question: str) -> list[set[str]]:
    """The terms whose definition the question asks ("how is a microenterprise defined?", "the definition of a
    beneficial owner", "what counts as a large undertaking"), each as its set of words."""
    return [term_set(next(g for g in m.groups() if g)) for m in DEFINED_ASKED.finditer(question)]


DEFINING = re.compile(r"^(?:an? |the )?(?P<term>(?:[\w-]+ ){0,4}?[\w-]+) (?:is|are|means?|refers? to)\b", re.I)
"""A sentence that opens by saying what its subject is ("A microenterprise is an enterprise which ...")."""


def defines(sentence: str, term: set[str]) -> bool:
    """Whether the sentence opens by defining the term (`DEFINING`, its subject the term's words)."""
    m = DEFINING.match(sentence.strip())
    return bool(m and term and term <= term_set(m.group("term")))


FACT_SUBJECT = re.compile(
    r"^\W*(?:(?:we|i)\s+(?:are|am|run|operate|own|manage)\s+)?(?:our|my|a|an|the|their|this|one)\s+"
    r"(?P<phrase>(?:[\w-]+\s+){0,3}?[\w-]+?)(?:['\u2019]s)?\s+(?=(?:of|in|at|with|from|for|based|that|which|who|"
    r"whose|is|are|was|were|has|have|had|will|would|and|\w+s|\w+ed)\b)",
    re.I,
)
"""The noun phrase a statement of facts opens with ("Our Canadian retailer sells toys.", "We run a business in
Ireland."): who the facts are about."""
REFERS_BACK = re.compile(
    r"^\W*(?:must|does|do|did|is|are|was|has|have|can|could|should|will|would|may|need|shall)\s+(?:it|we|they|"
    r"she|he|i)\b",
    re.I,
)
"""A yes/no asked of the facts' subject by a pronoun ("Must it report ...?", "Is she protected ...?")."""


def referred_subject(question: str) -> str | None:
    """The noun the question's yes/no refers back to by a pronoun: the head of the noun phrase its facts open with
    ("Our Canadian retailer sells toys. Must it report ...?": retailer). A rule answers it only if it names that
    subject: "A manufacturer or importer must report ..." says nothing of a retailer. None when the yes/no names its
    own subject ("Is her dismissal unfair?") or the facts open with no noun ("We import cotton goods ...")."""
    asked = yes_no_sentence(question)
    statements = facts_set_out(question)
    if not asked or not statements or not REFERS_BACK.match(asked):
        return None
    m = FACT_SUBJECT.match(statements)
    return terms(m.group("phrase"))[-1] if m and terms(m.group("phrase")) else None


VAGUE_SIZE = re.compile(
    r"\b(?:small|smaller|large|larger|micro|medium[- ]sized|mid-sized|tiny|few|big|bigger|major|minor|modest)\b", re.I
)
"""Words that size a subject without a number ("a small firm"): a rule's threshold would have to be held against
them."""


WHEN_SAID = re.compile(
    r"\b(?:(?:last|this|past|previous)\s+(?:day|week|month|quarter|year|summer|winter|spring|autumn)s?|"
    r"ago|yesterday|today|recently|already|long|late|early)\b",
    re.I,
)
"""When something happened, said in words ("last week", "two months ago", "recently"): a time a rule's period
would have to be held against."""
WHEN_PLANNED = re.compile(
    r"\b(?:next|coming|upcoming)\s+(?P<unit>day|week|month|quarter|year|summer|winter|spring|autumn)s?\b|"
    r"\b(?P<word>tomorrow|soon)\b",
    re.I,
)
"""When the asker means to act, said in words ("want to start selling next quarter"): the law as it will stand
then, which differs from today's only where a rule changes in between (`planned_within`)."""
PLANNED_DAYS = {"day": 2, "tomorrow": 2, "week": 14, "month": 62, "quarter": 184, "soon": 366, "year": 731}
"""The farthest a time the asker plans for lies ahead, in days ("next year" may mean up to two years on)."""


def planned_within(statements: str) -> int | None:
    """Days ahead the farthest time the facts plan for may lie ("next quarter": 184), None when they plan none."""
    days = [
        PLANNED_DAYS.get((m.group("unit") or m.group("word")).lower(), PLANNED_DAYS["year"] // 2)
        for m in WHEN_PLANNED.finditer(statements)
    ]
    return max(days) if days else None


def measures_facts(statements: str) -> bool:
    """Whether facts a question sets out state something a rule's figure, threshold, date or period would have to
    be held against (an amount, a count, a date or year, a period, or a size or a time in words). Facts that only
    say who and where ("Our company is established in Germany.") the plan takes in as the question's places and
    subject, so its yes or no is asked of the rules as any other is."""
    return bool(
        figures(statements)
        or counts(statements)
        or counted_nouns(statements)
        or date_spans(statements, month_year=True)
        or period_lengths(statements)
        or re.search(r"\b(?:19|20)\d\d\b", statements)
        or VAGUE_SIZE.search(statements)
        or WHEN_SAID.search(statements)
    )


OWN_COUNT = re.compile(
    r"\b(?:with|has|have|having|employs?|employing)\s+(?:about\s+|around\s+|some\s+|over\s+|under\s+|only\s+|just\s+)?"
    rf"(?:\d[\d,]*|{WORD_COUNT})\s+(?!(?:days?|weeks?|months?|years?|hours?|business|working|calendar|of)\b)[a-z]+",
    re.I,
)
"""A number the question gives of its own subject inside the yes/no ("Is a Spanish company with 30 employees
required to ...?", "a firm that has 120 staff"): a fact to hold against a rule, as one set out before it is."""


def states_own_count(sentence: str) -> bool:
    """Whether a yes/no sentence gives a number of its own subject (`OWN_COUNT`) or a bounded count ("small
    companies with fewer than 50 workers"): either is held against a threshold the rule sets."""
    return bool(OWN_COUNT.search(sentence) or counts(sentence))


OWN_EVENT = re.compile(
    r"\b(?:signed|entered into|concluded|made|agreed|executed|hired|employed|dismissed|terminated|laid off|"
    r"issued|sold|bought|placed|started|incorporated|registered)\b[^.?!,;]{0,40}?\b(?:in|on|before|after|since)\s+"
    rf"(?:(?:\d{{1,2}}\s+)?(?:{'|'.join(MONTH_NAMES)})\s+(?:\d{{1,2}},?\s+)?)?(?P<year>(?:19|20)\d\d)\b",
    re.I,
)
"""An event of the question's own subject with its date ("a non-compete signed by an employee in March 2022",
"an agreement entered into on 1 May 2024")."""


def own_event_date(sentence: str) -> date | None:
    """The last day of the date a yes/no sentence gives an event of its own subject (`OWN_EVENT`: "signed ... in
    March 2022" -> 31 March 2022), or None."""
    m = OWN_EVENT.search(sentence)
    if m is None:
        return None
    spans = date_spans(m.group(0), month_year=True)
    if not spans:
        return date(int(m.group("year")), 12, 31)
    last = spans[-1]
    return date(last.year, last.month, last.day or calendar.monthrange(last.year, last.month)[1])


def dates_own_past_event(sentence: str, as_of: date) -> bool:
    """Whether a yes/no sentence dates an event of its own subject before the as-of date ("is a non-compete signed
    in March 2022 still enforceable?"): whether a rule reaches it turns on that date against the rule's own
    ("applies to agreements entered into on or after July 1, 2023"), which the rule engine does not compare, so
    the yes/no is on the facts set out even when it asks what "still" holds. An event dated from the as-of date on
    falls under the rules as they now stand."""
    when = own_event_date(sentence)
    return when is not None and when < as_of


DEMONSTRATIVE = re.compile(
    r"\b(?:this|these|those)\s+\w+|\bthat\s+(?!the\b|a\b|an\b|it\b|its\b|they\b|their\b|he\b|she\b|there\b|is\b|"
    r"are\b|was\b|were\b|has\b|have\b|had\b|will\b|would\b|can\b|may\b|must\b|should\b|all\b|any\b|each\b|"
    r"every\b|no\b|not\b)(?![a-z]+(?:[^s\W]s|ed)\b)[a-z]+",
    re.I,
)
"""A demonstrative noun phrase ("that figure", "these rules") points back to an earlier sentence too; "that"
before a verb in -s or -ed opens a relative clause ("a maker that breaches the rules", "a firm that failed to
report"), which needs nothing before it."""


PAIR_OPENER = re.compile(r"^(?:both|either|neither)\b", re.I)
COORDINATED = re.compile(r"\b(?:and|or|nor)\b", re.I)
PAIR_VERB = re.compile(rf"\b(?:{AUXILIARIES}|need|apply|applies)\b", re.I)


def _pair_back(text: str) -> bool:
    """Whether the sentence opens with "both", "either" or "neither" for two things said before it ("Both conditions
    of the relevant pair must be met", "Neither may pay interest"), not for two it names ("Both the importer and
    the distributor must ...", "Neither the order nor the guidelines repealed ...")."""
    opener = PAIR_OPENER.match(text)
    if opener is None:
        return False
    head = PAIR_VERB.split(text[opener.end() :], maxsplit=1)[0]
    return not COORDINATED.search(head)


def is_anaphoric(sentence: str) -> bool:
    """Whether the sentence opens with a pronoun or connective (or "both" of two things said before it), or has a
    demonstrative in its first eight words, that needs an earlier sentence."""
    text = sentence.strip()
    return (
        bool(ANAPHORIC_OPENERS.match(text))
        or bool(ORDINAL_BACK.match(text))
        or _pair_back(text)
        or bool(DEMONSTRATIVE.search(" ".join(text.split()[:8])))
    )


def refers_back(before: str, after: str) -> bool:
    """Whether `after` points back to `before` with a demonstrative naming something `before` states ("struck
    these civil fines down" after "provided for a civil fine of up to EUR 10 million"), anywhere in the sentence."""
    said = term_set(before)
    return any(term_set(m.group(0).split(maxsplit=1)[-1]) & said for m in DEMONSTRATIVE.finditer(after))


def normalised(text: str) -> str:
    """The text lower-cased with its white space collapsed: what `same_sentence` compares."""
    return " ".join(text.lower().split())


def same_sentence(a: str, b: str) -> bool:
    """Equal after case and white space are normalised."""
    return normalised(a) == normalised(b)


def quote_in(quote: str, passage: str) -> bool:
    """Whether the quote occurs in the passage (case, white space and Markdown emphasis normalised)."""
    q = normalised(quote)
    return bool(q) and q in normalised(clean_passage(passage))
