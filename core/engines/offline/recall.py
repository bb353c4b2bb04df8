"""Plan recall: every place, authority, regulator or instrument the question names is checked against the plan.

A name is a run of capitalised words or acronyms ("the Atlantis Gaming Commission", "under MiCA", "Xylandia's
regulator"). It counts as naming a body, an instrument or a place when it carries a head word of one (English
words for kinds of bodies and instruments, not legal facts), stands where a place or an instrument stands ("in
X", "under X", the subject of "Has X ...?") or is a possessive. Such a name is understood when the gazetteer
placed it or when its distinctive words are the corpus' own (its documents' titles, authorities, instruments,
citations and aliases); what is left is disclosed ("the question names X; the corpus holds nothing under it") and
listed as not understood.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from core.domain.documents import Catalog
from core.domain.figures import MONTH_NUMBER, currency_codes
from core.domain.gazetteer import PLACE_POSITION, SUBJECT_POSITION, is_place_name, read_places
from core.engines.text import STOPWORDS, sentence_starts, stem


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


BODY_WORDS = _word_set(
    "authority authorities commission agency bureau office department ministry board council bank regulator "
    "supervisor supervisory superintendent service services network court tribunal parliament treasury "
    "administration unit centre center institute registry registrar commissioner ombudsman government senate "
    "congress assembly directorate inspectorate secretariat committee"
)
"""English head words of the names of bodies: a capitalised name ending in one names an authority."""
INSTRUMENT_WORDS = _word_set(
    "act acts regulation regulations directive directives rule rules code law laws ordinance decree statute "
    "guidance guidelines guideline notice notices order standard standards recommendation recommendations "
    "convention treaty bill circular handbook rulebook sourcebook framework regime amendment instrument "
    "decision"
)
"""English head words of the names of instruments ("the Zeta Accord" has none, so it needs a place position)."""
QUESTION_OPENERS = _word_set(
    "what which who whom how why when where is are does do did can could should must may will would has have had "
    "was were compare explain describe list give summarise summarize tell under after before since in for "
    "according within from by until during to with on at as if once given"
)
"""Words a question opens with that are never a name."""
PROVISION_WORDS = _word_set(
    "article articles section sections part chapter annex schedule paragraph recital appendix clause title"
)
"""Words that point into an instrument ('under Article 52'): a reference, not a name to be placed."""
CONNECTORS = frozenset({"of", "for", "the", "and", "on", "de", "des", "du", "la", "le", "&"})
_TOKEN = re.compile(r"[A-Za-z][\w.&/-]*(?:['\u2019]s)?|\d[\d/.-]*")


@dataclass(frozen=True)
class Unplanned:
    """A name the plan does not cover; `place` when it stands where a place does and names no body or instrument."""

    text: str
    place: bool
    within: str = ""
    """For a city read as its country: the parts of that country the corpus holds law of, which the plan cannot
    tell it lies in ("a part of Canada (the corpus holds law of Ontario, Quebec)")."""


@dataclass(frozen=True)
class Name:
    """A run of capitalised words in the question: its text, where it starts and ends."""

    text: str
    start: int
    end: int
    possessive: bool


PLURAL_ACRONYM = re.compile(r"[A-Z]{2,}s")
"""Initials in the plural ("NFTs", "CASPs"): a kind of thing, never a place, wherever the question puts them."""
SENTENCE_STOP = re.compile(r"(?<![.\s])(?<!\b[A-Za-z])\.$")
"""A full stop ending a word that is no abbreviation ("Montreal.", not "U.S." or "S.A."): the sentence's, not the
name's."""


def _capital(token: str) -> bool:
    return token[0].isupper() or (len(token) > 1 and any(c.isupper() for c in token[1:]))


def names_in(question: str) -> list[Name]:
    """Runs of capitalised words and acronyms (joined by "of", "for", "the" ..., years and numbers allowed after
    a word); a sentence's first word starts a run only when it is no ordinary question or stop word, and month
    names are dates, not names."""
    out: list[Name] = []
    run: list[re.Match[str]] = []

    def close() -> None:
        while run and (run[-1].group().lower() in CONNECTORS or run[-1].group()[0].isdigit()):
            run.pop()
        if run:
            last = run[-1].group()
            end = run[-1].end() - (1 if SENTENCE_STOP.search(last) else 0)  # "... in Montreal." names Montreal
            out.append(Name(question[run[0].start() : end], run[0].start(), end, _possessive(last)))
        run.clear()

    starts = sentence_starts(question)
    for m in _TOKEN.finditer(question):
        token = m.group()
        bare = re.sub(r"['\u2019]s$", "", token)
        gap = question[run[-1].end() : m.start()] if run else ""
        if run and (gap.strip() not in ("", ",") or "," in gap or _possessive(run[-1].group()) or m.start() in starts):
            close()  # a name ends at a comma, at its possessive, with its sentence ("the European Union. Within")
        first = not question[: m.start()].strip() or question[: m.start()].rstrip()[-1] in ".?!:;"
        if bare.lower() in MONTH_NUMBER or (first and bare.lower() in STOPWORDS | QUESTION_OPENERS):
            close()
        elif _capital(bare) or (run and (bare.lower() in CONNECTORS or token[0].isdigit())):
            run.append(m)
        else:
            close()
    close()
    return out


def _apart(name: Name, spans: list[tuple[int, int]], question: str) -> list[Name]:
    """The name split where "and" or "or" joins a place the gazetteer read to another name ("Canada and Westeros"
    is Canada and Westeros, each placed or disclosed on its own); a place whose own name has "and" in it ("Trinidad
    and Tobago") is one span and stays whole."""
    for s, e in spans:
        if not (name.start <= s and e <= name.end) or (s, e) == (name.start, name.end):
            continue
        after = re.match(r"\s+(?:and|or)\s+(?:the\s+)?", question[e : name.end])
        if after:
            rest = e + after.end()
            head = Name(question[name.start : e], name.start, e, False)
            return [head, *_apart(Name(question[rest : name.end], rest, name.end, name.possessive), spans, question)]
        before = re.search(r"\s+(?:and|or)\s+$", question[name.start : s])
        if before:
            cut = name.start + before.start()
            head = Name(question[name.start : cut], name.start, cut, False)
            return [*_apart(head, spans, question), Name(question[s : name.end], s, name.end, name.possessive)]
    return [name]


COORDINATED = re.compile(r"(\S+)\s*(?:,|\band\b|\bor\b)\s+(?:the\s+)?$", re.I)
"""The word before the "and", "or" or comma a name follows."""


def _joined_to_common(before: str) -> bool:
    """Whether a name follows "and", "or" or a comma that joins it to a common noun ("her card and PIN"): a place
    position only beside another name ("Germany and Xylandia")."""
    m = COORDINATED.search(before)
    return m is not None and not _capital(m.group(1).strip("(\"'\u2019"))


def _possessive(token: str) -> bool:
    return bool(re.search(r"['\u2019]s$", token))


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z][A-Za-z0-9]*", text)


ACRONYM_WORDS = 3
"""Capitalised words a name needs for its initials to be an acronym worth reading ("Family and Medical Leave Act":
FMLA); two-letter initials ("Employment Insurance") name too many things."""


def acronyms(text: str) -> list[str]:
    """The initials of each name a text writes in capitalised words, joining words aside ("Family and Medical Leave
    Act" -> "FMLA", "Personal Information Protection and Electronic Documents Act" -> "PIPEDA"): how an act is
    usually called, though its document's title spells it out. Read within each part of a title (split at colons,
    dashes, brackets and commas) so a place before a colon is not part of the act's name."""
    out: list[str] = []
    for part in re.split(r"[:;,()\u2013\u2014]|\s-\s", text):
        run: list[str] = []
        for word in [*part.split(), ""]:
            if word[:1].isupper() and word.isalpha():
                run.append(word)
            elif word.lower() in CONNECTORS and run:
                continue
            else:
                if len(run) >= ACRONYM_WORDS:
                    out.append("".join(w[0].upper() for w in run))
                run = []
    return list(dict.fromkeys(out))


def own_acronym(title: str, instrument: str = "", code: str = "") -> list[str]:
    """The acronym of the name a document opens with: its title's, a place (or its jurisdiction's `code`) before a
    colon aside ("United States: Family and Medical Leave Act - ..." -> "FMLA"), and its instrument's first; not of
    an act it names further on ("... Reporting Requirements under the Corporate Transparency Act" is not the CTA
    itself)."""
    before = title.split(":")[0].strip()
    placed = ":" in title and (is_place_name(before) or before.upper() == code.upper())
    name = title.split(":", 1)[1] if placed else title
    out = []
    for text in (name, instrument):
        first = re.match(r"\s*((?:[A-Z][A-Za-z]*|of|and|for|the|on)(?:\s+(?:[A-Z][A-Za-z]*|of|and|for|the|on))*)", text)
        out += acronyms(first.group(1)) if first else []
    return list(dict.fromkeys(out))


def corpus_words(catalog: Catalog) -> set[str]:
    """Every word of the corpus' own names: titles, authorities, instruments, citations, aliases, subdivision
    names, and the acronyms of the titles' and instruments' names (stemmed, lower case)."""
    out: set[str] = set()
    for doc in catalog.all():
        for text in (doc.title, doc.authority, doc.instrument, doc.citation, doc.jurisdiction_name, *doc.aliases):
            out.update(stem(w.lower()) for w in _words(text or ""))
        out.update(stem(a.lower()) for a in own_acronym(doc.title, doc.instrument or "", doc.jurisdiction))
    return out


def unplanned(question: str, spans: Iterable[tuple[int, int]], catalog: Catalog) -> list[Unplanned]:
    """The names of bodies, instruments or places in the question that neither the gazetteer read (`spans`:
    where it found places) nor the corpus knows by its own words, in the order the question names them."""
    spans = list(spans)
    read = {question[s:e].lower() for s, e in spans}  # a place named twice is read once ("the US ... US Section 16")
    known = corpus_words(catalog)
    out: dict[str, Unplanned] = {}
    for name in (part for n in names_in(question) for part in _apart(n, spans, question)):
        if name.text in currency_codes():  # "GBP 40 million" names an amount, not a body or place
            continue
        head, dash, tail = name.text.partition("-")
        if dash and tail.islower() and (head.lower() in read or read_places(head, catalog).places):
            continue  # "EU-wide", "UK-based": a place made an adjective, read where the question names it again
        within = re.match(r",\s*", question[name.end :])
        if within and any(s == name.end + within.end() for s, _ in spans):
            continue  # "in Manhattan and Buffalo, New York": places within the place read right after them
        words = [w for w in _words(name.text) if w.lower() not in CONNECTORS]
        heads = {w.lower() for w in words} & (BODY_WORDS | INSTRUMENT_WORDS)
        before = question[: name.start]
        subject = bool(SUBJECT_POSITION.search(before)) and not re.match(r"\s*\d", question[name.end :])
        positioned = (bool(PLACE_POSITION.search(before)) and not _joined_to_common(before)) or subject
        if not (heads or positioned or name.possessive):
            continue
        rest = re.sub(r"['\u2019]s$", "", question[name.start : name.end])
        for s, e in sorted(spans, reverse=True):
            if s < name.end and name.start < e:
                rest = rest[: max(0, s - name.start)] + " " + rest[max(0, e - name.start) :]
        generic = CONNECTORS | BODY_WORDS | INSTRUMENT_WORDS | PROVISION_WORDS | STOPWORDS
        distinct = [
            w
            for w in _words(rest)
            if w.lower() not in generic | read and w not in currency_codes() and not is_place_name(w)
        ]  # "in Germany and EUR 300 million": the code names an amount
        if distinct and not all(stem(w.lower()) in known for w in distinct):
            text = re.sub(r"['\u2019]s$", "", name.text)
            out.setdefault(text, Unplanned(text, positioned and not heads and not PLURAL_ACRONYM.fullmatch(text)))
    return list(out.values())
