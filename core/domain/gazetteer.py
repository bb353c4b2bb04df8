"""Jurisdiction names in a question: countries, demonyms and subdivisions from maintained libraries, plus the
corpus' own jurisdiction codes, authorities and instrument names.

Countries and subdivisions come from pycountry (ISO 3166-1 and -2); demonyms and alternative spellings from
countryinfo. Jurisdictions that are not countries (a supranational body such as the EU, or FATF standards) are
known from the corpus: their code, the documents' authorities and aliases. A country whose law comes from such
a body (an EU member state) is found through the `covers` list the corpus declares for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import countryinfo
import pycountry

from core.domain.documents import Catalog

SUBDIVISION_TYPES = frozenset(
    {
        "State",
        "Province",
        "Canton",
        "Emirate",
        "Land",
        "Territory",
        "Federal territory",
        "Federal district",
        "Autonomous community",
        "Autonomous province",
        "Country",
        "Special administrative region",
    }
)
"""ISO 3166-2 subdivision kinds whose names a question may use for a place (not districts or municipalities)."""


@dataclass(frozen=True)
class Place:
    """A jurisdiction named in a question."""

    code: str
    name: str
    named_as: str
    start: int
    in_corpus: bool
    via: str | None = None


@dataclass(frozen=True)
class _Entry:
    code: str
    name: str
    names: tuple[str, ...]
    case_sensitive_names: tuple[str, ...]


@lru_cache(maxsize=1)
def _countries() -> dict[str, _Entry]:
    """ISO alpha-2 -> names (pycountry) and demonym and spellings (countryinfo); a demonym shared by several
    countries goes to the most populous of them ("Chinese" is China, not Hong Kong)."""
    info: dict[str, dict[str, Any]] = {}
    for c in countryinfo.all_countries():
        data: dict[str, Any] = dict(c.info())
        code = (data.get("ISO") or {}).get("alpha2")
        if code and int(data.get("population") or 0) >= int(info.get(code, {}).get("population") or 0):
            info[code] = data  # Wales and Scotland carry GB too: the whole country is the most populous entry
    demonym_owner: dict[str, tuple[int, str]] = {}
    for code, data in info.items():
        dem = (data.get("demonym") or "").strip()
        if dem:
            pop = int(data.get("population") or 0)
            if dem not in demonym_owner or pop > demonym_owner[dem][0]:
                demonym_owner[dem] = (pop, code)
    out: dict[str, _Entry] = {}
    for country in pycountry.countries:
        code = country.alpha_2
        data = info.get(code, {})
        given = {
            country.name,
            getattr(country, "official_name", None),
            getattr(country, "common_name", None),
            data.get("name"),
        }
        given |= {s for s in data.get("altSpellings") or [] if len(s) > 3 and s[0].isupper()}
        names: set[str] = {n for n in given if isinstance(n, str) and n.isascii()}
        dem = (data.get("demonym") or "").strip()
        if dem and demonym_owner.get(dem, (0, ""))[1] == code and dem.isascii():
            names.add(dem)
        codes = tuple(s for s in data.get("altSpellings") or [] if s.isupper() and len(s) in (2, 3) and s.isascii())
        short = getattr(country, "common_name", None) or country.name
        out[code] = _Entry(code=code, name=short, names=tuple(sorted(names)), case_sensitive_names=codes)
    return out


@lru_cache(maxsize=1)
def _subdivisions() -> dict[str, tuple[str, str]]:
    """Subdivision name -> (its ISO 3166-2 code, its country's alpha-2)."""
    out: dict[str, tuple[str, str]] = {}
    for s in pycountry.subdivisions:
        if s.type in SUBDIVISION_TYPES and len(s.name) >= 4 and s.name.isascii() and s.name[0].isupper():
            out.setdefault(s.name, (s.code, s.country_code))
    return out


def country_name(code: str) -> str | None:
    """The short English name of an ISO 3166-1 alpha-2 country, or None."""
    entry = _countries().get(code.upper())
    return entry.name if entry else None


def iso_country(code: str) -> str | None:
    """The ISO alpha-2 country a jurisdiction code stands for (`UK` is GB), or None (EU, INT, ...)."""
    if code in _countries():
        return code
    for entry in _countries().values():
        if code in entry.case_sensitive_names:
            return entry.code
    return None


def currency_hint(code: str) -> tuple[str, ...]:
    """Countries whose currency an ambiguous symbol in this jurisdiction's text most likely means."""
    country = iso_country(code.split("-")[0])
    return (country,) if country else ()


@lru_cache(maxsize=4096)
def name_re(name: str, case_sensitive: bool) -> re.Pattern[str]:
    """A name as a whole phrase (not inside a longer word or hyphenated term), with an optional possessive."""
    return re.compile(r"(?<![\w-])" + re.escape(name) + r"(?:'s)?(?![\w-])", 0 if case_sensitive else re.I)


def _phrase(name: str, text: str, case_sensitive: bool) -> list[int]:
    return [m.start() for m in name_re(name, case_sensitive).finditer(text)]


@lru_cache(maxsize=1)
def _static_re() -> tuple[re.Pattern[str], dict[str, tuple[str, str]]]:
    """One pattern over every country name, demonym and subdivision name -> (name, country alpha-2)."""
    table: dict[str, tuple[str, str]] = {}
    for sub, (_, iso) in _subdivisions().items():
        table[sub] = (sub, iso)
    for iso, entry in _countries().items():
        for n in entry.names:
            table[n] = (n, iso)
    names = sorted(table, key=len, reverse=True)
    return re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in names) + r")(?:'s)?(?![\w-])"), table


def is_place_name(text: str) -> bool:
    """Whether the text is, as a whole, a country, demonym or subdivision name (from the libraries)."""
    pattern, _ = _static_re()
    m = pattern.fullmatch(text.strip())
    return m is not None


def corpus_names(catalog: Catalog) -> dict[str, set[str]]:
    """Per corpus jurisdiction code: the names its documents give it (authorities, aliases)."""
    out: dict[str, set[str]] = {}
    for doc in catalog.all():
        names = out.setdefault(doc.jurisdiction, set())
        names.update(a for a in doc.aliases if len(a) > 2)
        if doc.authority:
            names.add(doc.authority)
    return out


def covered_by(catalog: Catalog) -> dict[str, str]:
    """Country code -> the corpus jurisdiction whose law applies there (from the documents' `covers` lists)."""
    out: dict[str, str] = {}
    for doc in catalog.all():
        for code in doc.extra.get("covers") or ():
            out.setdefault(str(code).upper(), doc.jurisdiction)
    return out


def find_places(question: str, catalog: Catalog) -> list[Place]:
    """The jurisdictions a question names, in the order it names them, each once.

    Corpus codes match case-sensitively; corpus names, countries and demonyms as whole words; subdivisions
    (capitalised, e.g. Delaware, Ontario) stand for their country. A country the corpus has no source for is
    still returned (in_corpus False), so the answer can say the corpus holds nothing on it.
    """
    corpus_codes = set(catalog.jurisdictions())
    iso_of_corpus = {code: iso_country(code) for code in corpus_codes}
    corpus_by_iso = {iso: code for code, iso in iso_of_corpus.items() if iso}
    covers = covered_by(catalog)
    found: dict[str, Place] = {}
    taken: list[tuple[int, int]] = []

    def add(code: str, name: str, named: str, start: int, in_corpus: bool, via: str | None = None) -> None:
        end = start + len(named)
        if any(s <= start < e or s < end <= e for s, e in taken):
            return
        taken.append((start, end))
        if code not in found or start < found[code].start:
            found[code] = Place(code=code, name=name, named_as=named, start=start, in_corpus=in_corpus, via=via)

    candidates: list[tuple[int, str, str, str, bool]] = []
    for code in corpus_codes:
        iso = iso_of_corpus[code]
        entry = _countries().get(iso) if iso else None
        name = entry.name if entry else code
        for pos in _phrase(code, question, True):
            candidates.append((pos, code, code, code, True))
        names = set(corpus_names(catalog).get(code, set()))
        if entry:
            names |= set(entry.names)
            for alt in entry.case_sensitive_names:
                candidates.extend((pos, alt, code, name, True) for pos in _phrase(alt, question, True))
        for n in names:
            candidates.extend((pos, n, code, name, True) for pos in _phrase(n, question, False))
    pattern, table = _static_re()
    for m in pattern.finditer(question):
        named, iso = table[m.group(1)]
        entry = _countries().get(iso)
        candidates.append((m.start(), named, iso, entry.name if entry else iso, iso in corpus_by_iso))
    candidates.sort(key=lambda c: (c[0], -len(c[1])))
    for pos, named, code, name, _in_corpus in candidates:
        code = corpus_by_iso.get(code, code)
        via = covers.get(code) if code not in corpus_codes else None
        add(code, name, named, pos, code in corpus_codes, via)
    return sorted(found.values(), key=lambda p: p.start)
