"""Jurisdiction names in a question: countries, subdivisions and supranational unions as the world knows them
(core/domain/world.py), plus the corpus' own jurisdiction codes, authorities and aliases.

One rule matches a name in a text (`occurrences`): an upper-case code (US, EU, US-NY, AMLR) as a whole word and
in capitals only, so "Tell us" names no country; any other name as a whole phrase in any case. A place is
answered from its own documents and from those of every wider jurisdiction the corpus holds: a member state
from its union's, a state or province from its country's (and the country's union's). A document's `covers`
list adds such a wider jurisdiction where world knowledge has none (a fictional bloc); it is never needed for a
real union. Codes that name one country (ISO 3166's GB and its reserved alias UK) are one jurisdiction.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from core.domain.documents import Catalog
from core.domain.world import (
    Subdivision,
    countries,
    country_codes,
    folded,
    jurisdiction_key,
    place_named,
    subdivision_codes,
    subdivisions,
    unions,
    unions_of,
)

PLACE_POSITION = re.compile(
    r"(?:\b(?:in|under|for|from|across|between|and|or|of|to|versus|vs\.?|about|at|within|throughout|outside|"
    r"inside|than)|,)\s+(?:the\s+)?$",
    re.I,
)
"""What precedes a name where a place stands ("in Quebec", "about Bavaria", "under the Act")."""
SUBJECT_POSITION = re.compile(
    r"(?:^|[.?!;:]\s+)(?:has|have|had|does|do|did|is|are|was|were|can|could|will|would|should|must|may|might)"
    r"\s+(?:the\s+)?$",
    re.I,
)
"""What opens a yes/no question before its subject ("Has Britain ...", "Does the Bundesbank ..."): a name there
names who or where the question is about, as one after "in" or "under" does (not one before a number: "Does
the EUR 75,000 limit ...")."""
CODE_POSITION = re.compile(PLACE_POSITION.pattern.replace(r"(?:the\s+)?$", r"the\s+$"), re.I)
"""What precedes a bare ISO code of a country the corpus does not hold ("in the US", "across the UAE"): a
two-letter code elsewhere is too often a word in capitals (IT, IS, NO) to be read as a place."""

ORIGIN = re.compile(
    r"\b(?:(?:import|sourc|buy|bought|purchas)\w*\b[^,.;]{0,60}?\bfrom(?:\s+(?:an?|the|our|its|their))?"
    r"(?:\s+(?!(?:and|or|but|then|to|sell\w*)\b)[a-z-]+){0,3}?(?:\s+(?:in|based in|located in))?"
    r"|(?:made|manufactured|produced) in)\s+$",
    re.I,
)
"""Words before a place that say goods come from there ("we import the heaters from a manufacturer in", "made
in"): the question asks about the law where they are sold, not there."""
COMPARED = re.compile(r"\b(?:like|unlike|as in|similar to|as (?:does|do|did|has|have))\s+(?:the\s+)?$", re.I)
"""Words before a place named as a model to compare with ("Australia now has a scheme ..., like the EU", "a duty
like the EU's", "as in the EU"): a yes/no is not asked of it."""
OWN_ORIGIN = re.compile(
    r"^(?:'s)?\s+(?:[a-z-]+\s+){0,2}?(?:makers?|manufacturers?|producers?|compan(?:y|ies)|firms?|brands?|retailers?|"
    r"sellers?|exporters?|start-?ups?)\b"
)
"""Words after a place's name or adjective that make it where the asker's business is from ("We are a Japanese snack
maker starting to sell in Germany", "a US company"): not the law asked where the question names another place."""
LANGUAGE_BEFORE = re.compile(r"\b(?:in|into|from)\s+(?:plain\s+)?$", re.I)
LANGUAGE_AFTER = re.compile(r"\s*(?:$|[.,;:?!)]|\s(?:and|or|with|as|only|in|for|to|on|at|by|than|but)\b)")
"""A demonym between these ("written in French?", "into German and ...") names a language, not a country."""


@dataclass(frozen=True)
class Place:
    """A jurisdiction named in a question. `code` is the corpus code where the corpus holds it (else the ISO or
    union code); `wider` the corpus jurisdictions whose law also applies there, nearest first; `via` the first."""

    code: str
    name: str
    named_as: str
    start: int
    in_corpus: bool
    wider: tuple[str, ...] = ()
    parts: tuple[str, ...] = ()
    """Corpus codes of this country's subdivisions that answer for it (see `_parts`), planned after it."""

    @property
    def via(self) -> str | None:
        """The nearest wider corpus jurisdiction, if any."""
        return self.wider[0] if self.wider else None


@dataclass(frozen=True)
class Unclear:
    """A place name the question uses that could be more than one place, and why (its span in the question)."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class PlacesRead:
    """What a question names as places: those understood, and names that stay ambiguous."""

    places: tuple[Place, ...]
    unclear: tuple[Unclear, ...] = ()
    named: tuple[tuple[int, int], ...] = ()
    """Every span where the question names a place read, a second name of one included ("the UK ... in Britain")."""

    def spans(self) -> list[tuple[int, int]]:
        """Where the question names a place, understood or not."""
        firsts = [(p.start, p.start + len(p.named_as)) for p in self.places]
        return list(dict.fromkeys([*firsts, *self.named])) + [(u.start, u.end) for u in self.unclear]


@lru_cache(maxsize=4096)
def _name_re(name: str) -> re.Pattern[str]:
    code = name == name.upper() and any(c.isalpha() for c in name)
    # a compound adjective names the place ("EU-listed", "UK-based"); a code joined to another ("US-NY") does not
    return re.compile(r"(?<![\w-])" + re.escape(name) + r"(?:['\u2019]s)?(?!\w|-[^a-z])", 0 if code else re.I)


def occurrences(name: str, text: str) -> list[tuple[int, int]]:
    """Where a name occurs in a text, as (start, end) spans with any possessive ("New York's"). An upper-case
    code or acronym matches in capitals only, as a whole word; any other name as a whole phrase in any case."""
    name = name.strip()
    return [m.span() for m in _name_re(name).finditer(text)] if name else []


def without_names(text: str, names: Iterable[str]) -> str:
    """The text with every occurrence of the names taken out (longest first), spaces closed up."""
    for name in sorted(set(names), key=len, reverse=True):
        for start, end in reversed(occurrences(name, text)):
            text = text[:start] + " " + text[end:]
    return " ".join(text.split())


def country_name(code: str) -> str | None:
    """The short English name of an ISO 3166-1 alpha-2 country, or None."""
    entry = countries().get(code.upper())
    return entry.name if entry else None


def jurisdiction_name(code: str) -> str:
    """A readable name for a jurisdiction code: its union's, country's or subdivision's name, else the code."""
    key = jurisdiction_key(code)
    if key in unions():
        return unions()[key].name
    sub = subdivision_codes().get(key)
    return sub.name if sub else (country_name(key) or code)


def names_listed(codes: Sequence[str]) -> str:
    """Jurisdictions' names as a list in prose ("California and Oregon", "Alberta, Ontario and Quebec")."""
    names = [jurisdiction_name(c) for c in codes]
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def own_law(code: str) -> str:
    """How a place's own law is called: a country's "national" law; a state's, province's or union's "own" law."""
    national = len(code) == 2 and code.isalpha()
    return "its own national law" if national else "its own law"


def iso_country(code: str) -> str | None:
    """The ISO alpha-2 country a jurisdiction code stands for (`UK` is GB), or None (EU, INT, ...)."""
    return code if code in countries() else country_codes().get(code)


def is_place_code(text: str) -> bool:
    """Whether the text is a country (ISO 3166 alpha-2, or an alias such as UK) or union code (EU, EEA)."""
    code = text.upper()
    return code in _union_lookup() or iso_country(code) is not None


def same_jurisdiction(a: str, b: str) -> bool:
    """Whether two codes name one jurisdiction (GB and UK do)."""
    return a == b or jurisdiction_key(a) == jurisdiction_key(b)


@lru_cache(maxsize=1)
def _union_lookup() -> dict[str, str]:
    return {k: u.code for u in unions().values() for k in (u.code, *u.codes, *(n.lower() for n in u.names))}


def iso_code(typed: str) -> str | None:
    """The ISO 3166 (or union) code for what an analyst typed as a jurisdiction: a code alias (UK -> GB), a
    country, union or subdivision name (Germany -> DE, European Union -> EU, Quebec -> CA-QC); None when the
    text is already that code or names nothing the gazetteer knows (INT, a market code)."""
    text = typed.strip()
    code = re.fullmatch(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,3})?", text) is not None
    subs = subdivisions().get(text, ())
    found = (
        _union_lookup().get(text.upper() if code else text.lower())
        or (jurisdiction_key(text.upper()) if code else None)
        or next((c.code for c in countries().values() if text.lower() in {n.lower() for n in c.names}), None)
        or (subs[0].code if len(subs) == 1 else None)
    )
    return found if found and found != text else None


def currency_hint(code: str) -> tuple[str, ...]:
    """Countries whose currency an ambiguous symbol in this jurisdiction's text most likely means."""
    country = iso_country(code.split("-")[0])
    return (country,) if country else ()


@lru_cache(maxsize=1)
def _place_names() -> frozenset[str]:
    names = {n.lower() for c in countries().values() for n in c.names}
    return frozenset(names | {n.lower() for u in unions().values() for n in u.names})


def is_place_name(text: str) -> bool:
    """Whether the text is, as a whole, a country, demonym or union name (any case) or a subdivision name."""
    text = text.strip()
    return text.lower() in _place_names() or text in subdivisions()


def corpus_names(catalog: Catalog) -> dict[str, set[str]]:
    """Per corpus jurisdiction code: the names its documents give it (authorities, aliases)."""
    out: dict[str, set[str]] = {}
    for doc in catalog.all():
        names = out.setdefault(doc.jurisdiction, set())
        names.update(a for a in doc.aliases if len(a) > 2)
        if doc.authority:
            names.add(doc.authority)
            names.update(authority_names(doc.authority))
    return out


def authority_names(authority: str) -> list[str]:
    """The names an authority field gives one body: its parts between commas and brackets, each of two words
    or more or an acronym ("Financial Crimes Enforcement Network (FinCEN), U.S. Department of the Treasury"
    -> the network, FinCEN, the department)."""
    parts = [p.strip() for p in re.split(r"[(),;]", authority) if p.strip()]
    return [p for p in parts if len(p) > 2 and (" " in p or any(c.isupper() for c in p[1:]))]


def covered_by(catalog: Catalog) -> dict[str, str]:
    """Country code -> the corpus jurisdiction whose law applies there (from the documents' `covers` lists)."""
    out: dict[str, str] = {}
    for doc in catalog.all():
        for code in doc.extra.get("covers") or ():
            out.setdefault(jurisdiction_key(str(code).upper()), doc.jurisdiction)
    return out


class _Corpus:
    """The corpus' codes by the jurisdiction they stand for, and what lies wider than a place."""

    def __init__(self, catalog: Catalog):
        self.codes = set(catalog.jurisdictions())
        self.by_key: dict[str, str] = {}
        for code in sorted(self.codes, key=lambda c: (jurisdiction_key(c) != c, c)):
            self.by_key.setdefault(jurisdiction_key(code), code)  # the ISO code itself first, then an alias
        self.covers = covered_by(catalog)
        self.countries = {k.split("-")[0] for k in self.by_key}

    def wider(self, key: str) -> tuple[str, ...]:
        """Corpus codes whose law applies in the place `key`, nearest first: its country, its unions, a bloc
        whose documents declare they cover it."""
        country = key.split("-")[0] if "-" in key else None
        chain = [country] if country else []
        iso = country or (key if key in countries() else None)
        chain += list(unions_of(iso)) if iso else []
        chain += [c for c in (self.covers.get(key), iso and self.covers.get(iso)) if c]
        out = [self.by_key.get(jurisdiction_key(c), c if c in self.codes else "") for c in chain]
        return tuple(dict.fromkeys(c for c in out if c and c != self.by_key.get(key)))

    def place(self, key: str, name: str, named_as: str, start: int) -> Place:
        code = self.by_key.get(key, key)
        return Place(code, name, named_as, start, code in self.codes, self.wider(key))


def _candidates(
    question: str, catalog: Catalog, corpus: _Corpus, also: Iterable[str] = ()
) -> list[tuple[int, int, str, str, str]]:
    """(start, end, named as, key, name) for every name of a place the question uses, and for the names in `also`
    that name a country by its name pattern or a city (`place_named`); subdivisions come later."""
    out: list[tuple[int, int, str, str, str]] = []

    def add(name: str, key: str, label: str, written: bool = False, demonym: bool = False) -> None:
        """`written`: a one-word name from the libraries counts only capitalised ("Turkey", not "turkey");
        `demonym`: "in French" at a clause's end names a language, not a place."""
        spans = occurrences(name, question)
        if written and " " not in name:
            spans = [(s, e) for s, e in spans if question[s].isupper()]
        if demonym:
            spans = [
                (s, e)
                for s, e in spans
                if not (LANGUAGE_BEFORE.search(question[:s]) and LANGUAGE_AFTER.match(question[e:]))
            ]
        out.extend((s, e, _bare(question[s:e]), key, label) for s, e in spans)

    for name in also:
        key = place_named(name)
        if key in countries():
            add(name, key, countries()[key].name, written=True)
        elif key in subdivision_codes():
            add(name, key, subdivision_codes()[key].name, written=True)
    names = corpus_names(catalog)
    given_by: dict[str, set[str]] = {}
    for code, given in names.items():
        for n in given:
            given_by.setdefault(n, set()).add(jurisdiction_key(code))
    for code in corpus.codes:
        key = jurisdiction_key(code)
        label = country_name(key) or (unions()[key].name if key in unions() else code)
        # a name two jurisdictions' documents give ("Office of the Whistleblower", the OSC's and the SEC's) names neither
        own = {n for n in names.get(code, set()) if len(given_by[n]) == 1}
        for n in {code, *own}:
            add(n, key, label)
    for union in unions().values():
        for n in (*union.names, *union.codes):
            add(n, union.code, union.name, written=True)
    for country in countries().values():
        for n in country.names:
            add(n, country.code, country.name, written=True, demonym=n == country.demonym)
        held = country.code in corpus.countries
        for code in country.codes:
            if held or code not in (country.code, country.alpha_3):
                add(code, country.code, country.name)
            else:
                for s, e in occurrences(code, question):
                    if CODE_POSITION.search(question[:s]):
                        out.append((s, e, code, country.code, country.name))
    return out


def _bare(named: str) -> str:
    return re.sub(r"['\u2019]s$", "", named)


@lru_cache(maxsize=1)
def _subdivision_re() -> re.Pattern[str]:
    names = sorted(subdivisions(), key=len, reverse=True)
    return re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in names) + r")(['\u2019]s)?(?![\w-])")


def _subdivision_candidates(
    question: str, corpus: _Corpus, others: list[tuple[int, int, str, str, str]]
) -> tuple[list[tuple[int, int, str, str, str]], list[Unclear]]:
    """Subdivisions the question names, in capitals as names are written, and names left ambiguous.

    A subdivision counts when the corpus holds it or its country, or the question names its country; otherwise
    only a name of several words ("New York"), one in a place position ("in Quebec") or a possessive
    ("Quebec's") counts, so that a capitalised word at a sentence's start or inside an organisation's name
    ("Central", "Delta") is no place. A name that is also a country's (Georgia) is the country unless the corpus
    holds the subdivision or the question names its country; one that several countries share (Punjab) needs
    such a hint, or it is reported as unclear when it stands in a place position. A subdivision the corpus
    holds nothing under is a place of its own only where the question asks about it ("in Ontario", "New York's
    regulator", "Does Ontario require ...?"); used as an attribute ("a Delaware LLC") it stands for its country.
    """
    text = folded(question)
    text = text if len(text) == len(question) else question
    out: list[tuple[int, int, str, str, str]] = []
    unclear: list[Unclear] = []
    for m in _subdivision_re().finditer(text):
        start, end, name = m.start(), m.end(), m.group(1)
        named = {k for s, e, _, k, _ in others if "-" not in k and (e <= start or s >= end)}
        before = question[:start]
        positioned = bool(PLACE_POSITION.search(before) or SUBJECT_POSITION.search(before))
        subs = subdivisions()[name]
        hinted = [s for s in subs if s.code in corpus.by_key or s.country in named]
        fitting = hinted or [s for s in subs if s.country in corpus.countries]
        if name.lower() in _place_names() and not hinted:
            continue
        if len(subs) > 1 and len(fitting) != 1:
            if positioned:
                where = ", ".join(sorted(country_name(s.country) or s.country for s in subs))
                unclear.append(Unclear(start, end, f"{_bare(question[start:end])} (a subdivision of {where})"))
            continue
        sub = fitting[0] if fitting else subs[0]
        if not fitting and " " not in name and not positioned and not m.group(2):
            continue
        if sub.code in corpus.by_key or positioned or m.group(2):
            out.append((start, end, _bare(question[start:end]), sub.code, sub.name))
        else:  # "a Delaware LLC": a company's home, not a place asked about, where the corpus has no law of it
            out.append((start, end, _bare(question[start:end]), sub.country, country_name(sub.country) or sub.country))
    held = {a: sub for a, sub in _adjective_forms().items() if sub.code in corpus.by_key}
    for a, sub in held.items():  # "a Californian employer": the state the corpus holds, in its adjective form
        out.extend(
            (s, e, question[s:e], sub.code, sub.name) for s, e in occurrences(a, question) if question[s].isupper()
        )
    return out, unclear


@lru_cache(maxsize=1)
def _adjective_forms() -> dict[str, Subdivision]:
    """The adjective of each one-word subdivision name that has only one ("Californian", "Texan", "Ontarian"):
    English forms it by adding -n to a name in -a, replacing a final -s by -n and a final -o by -ian. A form that is
    a country's name or demonym ("Georgian") is left to the country."""
    out: dict[str, Subdivision] = {}
    for name, subs in subdivisions().items():
        if " " in name or len(name) < 5 or len(subs) != 1:
            continue
        form = (
            name + "n"
            if name.endswith("a")
            else name[:-1] + "n"
            if name.endswith("s")
            else (name[:-1] + "ian" if name.endswith("o") else "")
        )
        if form and form.lower() not in _place_names() and form not in subdivisions():
            out[form] = subs[0]
    return out


def read_places(question: str, catalog: Catalog, also: Sequence[str] = ()) -> PlacesRead:
    """The jurisdictions a question names, in the order it names them, each once, and the names it leaves unclear;
    `also`: names the caller found in a place's position that the libraries do not know ("Has Britain raised
    ...?", "a customer in Munich"), each read as the country whose name pattern it matches or as the city it
    names (`place_named`), if any.

    A place the corpus holds nothing for is still returned (in_corpus False), so the answer can say so; where the
    names overlap, the longest wins ("New Jersey" over "Jersey"), and a subdivision over a country it shares a
    name with once the question or the corpus says which is meant.
    """
    corpus = _Corpus(catalog)
    cands = _candidates(question, catalog, corpus, also)
    subs, unclear = _subdivision_candidates(question, corpus, cands)
    taken: list[tuple[int, int]] = []
    found: dict[str, Place] = {}
    asked: set[str] = set()  # named at least once as more than where the asker's business is from (`OWN_ORIGIN`)
    for start, end, named, key, label in sorted(subs + cands, key=lambda c: (c[0], c[0] - c[1], "-" not in c[3])):
        if any(s < end and start < e for s, e in taken):
            continue
        taken.append((start, end))
        if ORIGIN.search(re.split(r"[.?!;]\s", question[:start])[-1]):
            continue  # "we import the heaters from a manufacturer in China": where goods come from, not the law asked
        place = corpus.place(key, label, named, start)
        found.setdefault(place.code, place)
        if not (_qualifies(named) and OWN_ORIGIN.match(question[end:])):
            asked.add(place.code)
    # "We are a Japanese snack maker starting to sell in Germany": Japan is not asked; "a German listed company ...
    # Has the EU changed ...?" asks of Germany, whose union's law the EU's is; "Must a Japanese maker ...?" of Japan
    found = {c: p for c, p in found.items() if c in asked or not asked or any(_related(c, a) for a in asked)}
    places: list[Place] = []
    for place in sorted(found.values(), key=lambda p: p.start):
        parts = [] if place.named_as in also else _parts(place, question, corpus, found, taken)  # a city: not all
        places += [replace(place, parts=tuple(p.code for p in parts)), *parts]
    return PlacesRead(tuple(places), tuple(dict.fromkeys(unclear)), tuple(sorted(taken)))


def _parts(
    place: Place, question: str, corpus: _Corpus, found: dict[str, Place], taken: list[tuple[int, int]]
) -> list[Place]:
    """The corpus' subdivisions of a country the question names, as places of their own, where they answer for it:
    when the corpus holds no law of the country as a whole ("Is there a packaging EPR law in the United States?"
    with only California's and Oregon's), or when the question asks of its subdivisions by their kind ("Which US
    states require ...?", "in which Canadian provinces"); none where the question names one of them itself."""
    country = jurisdiction_key(place.code)
    if "-" in country or country not in countries() or place.named_as in subdivisions():
        return []  # "an Ontario company" is read as Canada, and names one province, not every one
    held = sorted(c for c in corpus.codes if jurisdiction_key(c).startswith(f"{country}-"))
    if not held or any(jurisdiction_key(c).startswith(f"{country}-") for c in found):
        return []
    if place.in_corpus and not _kind_asked(question, {_kind(c) for c in held}, taken):
        return []
    return [corpus.place(jurisdiction_key(c), jurisdiction_name(c), place.named_as, place.start) for c in held]


def _kind(code: str) -> str:
    sub = subdivision_codes().get(jurisdiction_key(code))
    return sub.kind if sub else ""


def _kind_asked(question: str, kinds: set[str], taken: list[tuple[int, int]]) -> bool:
    """Whether the question asks of subdivisions by the plural of their kind after a word that asks which or how
    many ("Which US states ...", "in which Canadian provinces", "Do all states ..."), outside a place's name ("the
    United States"): "the $2.13 tipped wage in states that allow it" only qualifies the federal rule."""
    plurals = [re.sub(r"y$", "ie", k.lower()) + "s" for k in kinds if k and k != "Country"]
    for m in re.finditer(rf"\b(?:{'|'.join(map(re.escape, plurals))})\b", question, re.I) if plurals else ():
        if not any(s <= m.start() < e for s, e in taken) and KIND_ASKED.search(question[: m.start()]):
            return True
    return False


KIND_ASKED = re.compile(r"\b(?:which|what|each|every|all|individual|different|how many)(?:\s+[\w.'-]+){0,2}\s+$", re.I)
"""Words before the plural of a kind of subdivision that ask of them one by one ("which US states")."""


@lru_cache(maxsize=1)
def _demonyms() -> frozenset[str]:
    """The countries' demonyms, lower-cased ("japanese", "german")."""
    return frozenset(c.demonym.lower() for c in countries().values() if c.demonym)


def _qualifies(named: str) -> bool:
    """Whether a place is named as a word qualifying a noun: a demonym ("a Japanese maker") or a code ("a US
    company"), not its name ("Do both Germany and Spain require companies ...?")."""
    return named.lower() in _demonyms() or (named.isupper() and len(named) <= 3)


def _related(a: str, b: str) -> bool:
    """Whether one of two jurisdictions answers for the other: the same, a subdivision and its country, or a country
    and its union."""
    home_a, home_b = a.split("-")[0], b.split("-")[0]
    return same_jurisdiction(home_a, home_b) or home_b in unions_of(home_a) or home_a in unions_of(home_b)
