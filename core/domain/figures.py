"""Figures, currencies, comparators and dates in text: the one normalisation the critic, drafter and scorer share.

Currencies are ISO 4217 codes. Codes come from pycountry; symbols (`$`, `C$`, `HK$`, `€`, `£`, `¥` ...) and their
candidate currencies from iso4217parse. An ambiguous symbol is resolved with the jurisdiction of the text it
stands in (`$` in a Canadian source is CAD), else to the candidate used by the most countries.
"""

from __future__ import annotations

import math
import operator
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import NamedTuple

import iso4217parse
import pycountry

Comparator = str
"""One of `>`, `>=`, `<`, `<=` (what a figure's wording implies)."""

COMPARATOR_BEFORE: tuple[tuple[str, Comparator], ...] = (
    (r"up to|not exceeding|(?:no|not) (?:more|greater) than|at most|a maximum of|maximum of|capped at", "<="),
    (r"at least|(?:no|not) (?:less|fewer) than|a minimum of|minimum of", ">="),
    (r"more than|greater than|exceeding|exceeds|in excess of|over|above", ">"),
    (r"less than|fewer than|below|under", "<"),
)
"""Words before a figure and the comparator they mean, the negated ones first ("not more than GBP 30,000" is at most
that, not more than it)."""
COMPARATOR_AFTER: tuple[tuple[str, Comparator], ...] = (
    (r"or more|or above|or higher|and above|and over|or greater|plus", ">="),
    (r"or less|or below|or lower|and below", "<="),
)
"""Words after a figure and the comparator they mean."""

MONTH_NAMES = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
"""The months' English names, lower case, in order."""
MONTH_NUMBER = {
    **{m: i + 1 for i, m in enumerate(MONTH_NAMES)},
    **{m[:3]: i + 1 for i, m in enumerate(MONTH_NAMES)},
    "sept": 9,
}
"""Month names and their usual abbreviations (lower case) -> month number."""
_MONTH_RE = "|".join(sorted(MONTH_NUMBER, key=len, reverse=True))
DATE_DMY = re.compile(
    rf"\b(?P<day>[0-3]?\d)(?:st|nd|rd|th)?\s+(?P<month>{_MONTH_RE})\.?,?\s+(?P<year>(?:19|20)\d\d)\b", re.I
)
DATE_MDY = re.compile(
    rf"\b(?P<month>{_MONTH_RE})\.?\s+(?P<day>[0-3]?\d)(?:st|nd|rd|th)?,?\s+(?P<year>(?:19|20)\d\d)\b", re.I
)
DATE_ISO = re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>[01]\d)-(?P<day>[0-3]\d)\b")
DATE_MY = re.compile(rf"\b(?P<month>{_MONTH_RE})\.?\s+(?P<year>(?:19|20)\d\d)\b", re.I)
"""Day-month-year, month-day-year, ISO and month-year dates (groups `day`, `month`, `year`)."""
YEARLY_DATE = re.compile(
    rf"\b(?:[0-3]?\d(?:st|nd|rd|th)?\s+(?:{_MONTH_RE})|(?:{_MONTH_RE})\.?\s+[0-3]?\d(?:st|nd|rd|th)?)\b"
    r"(?!\.?,?\s+(?:19|20)\d\d)",
    re.I,
)
"""A day of the year without its year ("31 May", "September 30"): a date that comes back every year."""


def yearly_dates(text: str) -> list[str]:
    """The days of the year a text names without a year ("on or before 31 May of each year")."""
    return [m.group(0) for m in YEARLY_DATE.finditer(text)]


def days_of_year(text: str) -> set[tuple[int, int]]:
    """(day, month) of every date a text names, with or without its year ("30 September", "1 July 2020")."""
    out = {(d.day, d.month) for d in dates(text)}
    for found in yearly_dates(text):
        day = re.search(r"\d+", found)
        month = re.search(_MONTH_RE, found, re.I)
        if day and month:
            out.add((int(day.group(0)), _month(month.group(0))))
    return out


COMPARATOR_TOKEN = {">": "gt", ">=": "ge", "<": "lt", "<=": "le"}
"""A comparator as one word, for token-based matching."""


# ----------------------------------------------------------------------------------------------- currencies


@lru_cache(maxsize=1)
def currency_codes() -> frozenset[str]:
    """Every ISO 4217 code pycountry knows."""
    return frozenset(c.alpha_3 for c in pycountry.currencies)


@lru_cache(maxsize=1)
def _symbols() -> dict[str, tuple[str, ...]]:
    """Symbol -> candidate codes, for symbols that are not plain words (`$`, `C$`, `HK$`, `€`, `£`, `¥` ...)."""
    table: dict[str, list[str]] = {}
    for code in sorted(currency_codes()):
        cur = iso4217parse.by_alpha3(code)
        for sym in cur.symbols if cur else []:
            if sym and any(unicodedata.category(ch) == "Sc" for ch in sym) and not any(ch.isspace() for ch in sym):
                table.setdefault(sym, []).append(code)
    return {k: tuple(v) for k, v in table.items()}


@lru_cache(maxsize=1)
def _words() -> dict[str, tuple[str, ...]]:
    """Currency words after an amount (`euros`, `dollars`, `pounds`, `yen`, `francs`, and whole names such as `US
    dollars` or `Canadian dollars`) -> candidate codes, from each currency's name and its last word."""
    table: dict[str, list[str]] = {}
    for cur in pycountry.currencies:
        name = cur.name.lower()
        word = name.split()[-1]
        if name.startswith("pound"):
            word = "pound"
        if word.isalpha() and len(word) >= 3:
            table.setdefault(word, []).append(cur.alpha_3)
        if " " in name and all(part.isalpha() for part in name.split()):
            table.setdefault(name, []).append(cur.alpha_3)
    return {k: tuple(v) for k, v in table.items()}


@lru_cache(maxsize=1)
def _country_count() -> dict[str, int]:
    counts: dict[str, int] = {}
    for code in currency_codes():
        cur = iso4217parse.by_alpha3(code)
        counts[code] = len(cur.countries) if cur else 0
    return counts


@lru_cache(maxsize=256)
def _country_currencies(country: str) -> frozenset[str]:
    found = iso4217parse.by_country(country) or []
    return frozenset(c.alpha3 for c in found)


def resolve_currency(candidates: Iterable[str], hint: Iterable[str] = ()) -> str:
    """One code from candidates: the one used in a hinted country (ISO 3166 alpha-2), else the most widely used."""
    cands = list(dict.fromkeys(candidates))
    if len(cands) == 1:
        return cands[0]
    for country in hint:
        local = [c for c in cands if c in _country_currencies(country)]
        if local:
            return local[0]
    counts = _country_count()
    return max(cands, key=lambda c: (counts.get(c, 0), -cands.index(c)))


def currency_symbols() -> dict[str, str]:
    """Each currency symbol with the code it means when nothing hints at a country (`$` is USD)."""
    return {sym: resolve_currency(codes) for sym, codes in _symbols().items()}


def _symbol_pattern() -> str:
    symbols = sorted(_symbols(), key=len, reverse=True)
    return "|".join(re.escape(s) for s in symbols)


_NUM = r"\d{1,3}(?:[,\u202f\u00a0 ]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"


def _number(written: str) -> float:
    """The value of a number `_NUM` matched, thousands separators dropped ("1,500" -> 1500.0), or of a count
    written in words (`COUNT_WORDS`: "two" -> 2.0)."""
    word = COUNT_WORDS.get(written.lower())
    return float(word) if word is not None else float(re.sub(r"[,\u202f\u00a0 ]", "", written))


_SCALE = r"(?:\s?(?P<{}>k|m|million|bn|billion)\b)?"


@lru_cache(maxsize=1)
def _figure_re() -> re.Pattern[str]:
    codes = "|".join(sorted(currency_codes()))
    words = "|".join(sorted(_words(), key=len, reverse=True))
    pre = rf"(?P<pre>(?:{codes})\b(?:\s?/\s?(?:{codes})\b)?|{_symbol_pattern()})"
    post = rf"(?P<post>%|percent\b|per cent\b|percentage points?\b|(?:{codes})\b|(?i:{words})s?\b|(?:calendar |business )?days\b)"
    return re.compile(
        rf"{pre}\s?(?P<num1>{_NUM}){_SCALE.format('scale1')}|(?<![\w.])(?P<num2>{_NUM}){_SCALE.format('scale2')}\s?{post}"
    )


_CMP_BEFORE = [(re.compile(rf"\b(?:{words})\s*$", re.I), cmp) for words, cmp in COMPARATOR_BEFORE]
_NOT_A_COMPARATOR = r"(?!\s+(?:than\b|\d|(?:one|two|three|four|five|six|seven|eight|nine|ten)\b))"
""""more than" is not "or more"; "50% plus one" is an amount, not "50% or more"."""
_CMP_AFTER = [(re.compile(rf"^\s*(?:{words})\b{_NOT_A_COMPARATOR}", re.I), cmp) for words, cmp in COMPARATOR_AFTER]


PERCENTAGE_POINTS = "percentage points"
"""The unit of a margin over a reference rate ("the reference rate plus at least 8 percentage points"): not a
percentage of anything, so never the same figure as "8%"."""


@dataclass(frozen=True)
class Figure:
    """A number with a unit (`percent`, `PERCENTAGE_POINTS`, `days` or an ISO 4217 code) and the comparator its
    wording implies."""

    value: float
    unit: str
    comparator: Comparator | None
    text: str
    start: int = 0
    end: int = 0
    """Where the figure stands in the text, comparator words included (`at least EUR 10,000`)."""

    @property
    def key(self) -> tuple[str, float]:
        """Unit and value, for comparing figures whatever their wording."""
        return self.unit, self.value


_HOLDS: dict[str, Callable[[float, float], bool]] = {
    ">": operator.gt,
    ">=": operator.ge,
    "<": operator.lt,
    "<=": operator.le,
}


def within(value: float, unit: str, stated: Sequence[Figure]) -> bool:
    """Whether a text's bounds of this unit take in the value: at least one bound, and every one holds ("USD 2,500
    or more but less than USD 10,000" takes in USD 5,000; "less than USD 2,500" does not)."""
    bounds = [(f.comparator, f.value) for f in stated if f.unit == unit and f.comparator is not None]
    return bool(bounds) and all(_HOLDS[cmp](value, bound) for cmp, bound in bounds)


def _symbol_currency(symbol: str, hint: tuple[str, ...]) -> str:
    """`C$` is NIO to iso4217parse, but in a Canadian text it is the dollar sign with a prefix: with a hint, the
    candidates of the bare sign (`$`) count too."""
    exact = _symbols().get(symbol, ("USD",))
    bare = _symbols().get(symbol[-1], ()) if len(symbol) > 1 else ()
    for country in hint:
        local = [c for c in (*exact, *bare) if c in _country_currencies(country)]
        if local:
            return local[0]
    return resolve_currency(exact)


def _units(m: re.Match[str], hint: tuple[str, ...]) -> list[str]:
    if m.group("pre"):
        out = []
        for part in re.split(r"\s?/\s?", m.group("pre").strip()):
            if part in currency_codes():
                out.append(part)
            else:
                out.append(_symbol_currency(part, hint))
        return out
    post = m.group("post").lower()
    if post in ("%", "percent", "per cent"):
        return ["percent"]
    if post.startswith("percentage point"):
        return [PERCENTAGE_POINTS]
    if post.endswith("days"):
        return ["days"]
    if post.upper() in currency_codes():
        return [post.upper()]
    word = post if post in _words() else post[:-1]
    return [resolve_currency(_words().get(word, ("USD",)), hint)]


def figures(text: str, hint: Iterable[str] = ()) -> list[Figure]:
    """Percentages, margins in percentage points, amounts and day counts in a text, with the comparator implied by
    the words around them.

    `hint` is a list of ISO 3166 alpha-2 countries whose currency an ambiguous symbol most likely means."""
    hints = tuple(hint)
    out: list[Figure] = []
    for m in _figure_re().finditer(text):
        raw = m.group("num1") or m.group("num2")
        value = _number(raw)
        scale = (m.group("scale1") or m.group("scale2") or "").lower()
        value *= {"k": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}.get(scale, 1)
        window = max(0, m.start() - 30)
        before = text[window : m.start()]
        after = text[m.end() : m.end() + 24]
        comparator = None
        start, end = m.start(), m.end()
        said = [(found.start(), cmp) for rx, cmp in _CMP_BEFORE if (found := rx.search(before))]
        if said:  # the longest wording decides: "not less than" is at least, "not exceeding" at most
            at, comparator = min(said, key=lambda s: s[0])
            start = window + at
        for rx, cmp in _CMP_AFTER:
            if found := rx.search(after):
                comparator, end = cmp, m.end() + found.end()
        out.extend(
            Figure(value=value, unit=u, comparator=comparator, text=m.group(0).strip(), start=start, end=end)
            for u in _units(m, hints)
        )
    return out


def compatible(a: Figure, b: Figure) -> bool:
    """Same figure, and the comparators do not contradict each other (an unstated comparator fits any)."""
    if a.key != b.key:
        return False
    return a.comparator is None or b.comparator is None or a.comparator == b.comparator


# ------------------------------------------------------------------------------------------------------ dates


def _valid(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


@dataclass(frozen=True)
class DateSpan:
    """A date stated in a text, with its place; `day` is None for a month-year date ('July 2027')."""

    year: int
    month: int
    day: int | None
    start: int
    end: int

    @property
    def iso(self) -> str:
        """'2027-07-10', or '2027-07' for a month-year date."""
        return f"{self.year}-{self.month:02d}" + (f"-{self.day:02d}" if self.day else "")


def _month(name: str) -> int:
    name = name.lower().rstrip(".")
    return MONTH_NUMBER.get(name) or int(name)


def date_spans(text: str, month_year: bool = False) -> list[DateSpan]:
    """Full dates in a text ('10 July 2027', 'July 10, 2027', '10 Jul 2027', '2027-07-10') in order, and with
    `month_year` also month-year dates ('July 2027') that no full date covers."""
    found: list[DateSpan] = []
    for rx in (DATE_DMY, DATE_MDY, DATE_ISO):
        for m in rx.finditer(text):
            year, month, day = int(m.group("year")), _month(m.group("month")), int(m.group("day"))
            if 1 <= month <= 12 and _valid(year, month, day):
                found.append(DateSpan(year, month, day, m.start(), m.end()))
    if month_year:
        for m in DATE_MY.finditer(text):
            if not any(s.start <= m.start() < s.end or m.start() <= s.start < m.end() for s in found):
                found.append(DateSpan(int(m.group("year")), _month(m.group("month")), None, m.start(), m.end()))
    return sorted(found, key=lambda s: s.start)


def dates(text: str) -> list[date]:
    """Full dates in a text ('10 July 2027', 'July 10, 2027', '10 Jul 2027', '2027-07-10'), in order."""
    return [date(s.year, s.month, s.day) for s in date_spans(text) if s.day]


def format_date(d: date) -> str:
    """The answer's date style: '10 July 2027'."""
    return f"{d.day} {MONTH_NAMES[d.month - 1].capitalize()} {d.year}"


def mentions_date(text: str, d: date) -> bool:
    """Whether the text states the date in any usual form."""
    return d in dates(text)


# ---------------------------------------------------------------------------------------------------- periods

COUNT_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fourteen": 14,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "forty-five": 45,
    "fifty": 50,
    "sixty": 60,
    "ninety": 90,
    "hundred": 100,
}
"""Counts written in words, as periods state them ("within three business days")."""
_COUNT = r"(?<![\d.,])(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)|" + "|".join(
    sorted(COUNT_WORDS, key=len, reverse=True)
)
"""A count in digits (a whole one: "37.5 hours" is no 5 hours, "1,000 hours" no 0) or in words."""


def _count_value(count: str) -> float:
    """The value of a `_COUNT` match: digits with their thousands separators and decimals, or a count word."""
    word = count.lower()
    return float(COUNT_WORDS[word]) if word in COUNT_WORDS else float(word.replace(",", ""))


PERIOD = re.compile(
    rf"\b(?:(?:with)?in|no later than|not later than|at (?:the )?latest|up to|for|at least|before|after)?\s*"
    rf"(?P<count>{_COUNT})(?:\s*\(\d+\))?[\s-]+(?:calendar |business |working |banking |trading |clear )?"
    r"(?P<unit>hour|day|week|month|year)s?\b",
    re.I,
)
"""A period of time in words or digits ("within three business days", "30 days", "for five years")."""
_ORDINAL = r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th)"
ORDINAL_PERIOD = re.compile(
    rf"\b(?:(?:by|before|on|until|no later than|not later than)\s+)?(?:the end of\s+)?the\s+(?:{_ORDINAL})\s+"
    r"(?:calendar |business |working |banking |trading )?(?:day|week|month|year)\s+(?:after|following|from)\b",
    re.I,
)
"""A period counted to an ordinal day ("before the end of the second business day following", "on the tenth day
after")."""


def periods(text: str) -> list[str]:
    """The periods of time a text states, as written ("within three business days", "five years", "before the end
    of the second business day following"), in order."""
    spans = sorted([*PERIOD.finditer(text), *ORDINAL_PERIOD.finditer(text)], key=lambda m: m.start())
    return [" ".join(m.group(0).split()) for m in spans]


FREQUENCY = re.compile(
    rf"\b(?:every|each|once (?:a|per|every)|per)\s+(?:(?P<count>{_COUNT}|other)\s+)?"
    r"(?:calendar |business |working |financial )?(?P<unit>year|month|quarter|week|day)s?\b|"
    r"\b(?P<adverb>annual(?:ly)?|yearly|monthly|quarterly|weekly|daily)\b",
    re.I,
)
"""How often something recurs ("every year", "every three years", "annually", "per day")."""
_EVERY = {
    "annual": "year",
    "annually": "year",
    "yearly": "year",
    "monthly": "month",
    "quarterly": "quarter",
    "weekly": "week",
    "daily": "day",
}


def frequencies(text: str) -> set[tuple[float, str]]:
    """How often the text says something recurs, as (count, unit): "every three years" (3, "year"), "annually"
    (1, "year"), "every other month" (2, "month")."""
    out: set[tuple[float, str]] = set()
    for m in FREQUENCY.finditer(text):
        if m.group("adverb"):
            out.add((1.0, _EVERY[m.group("adverb").lower()]))
            continue
        count = (m.group("count") or "1").lower()
        n = 2.0 if count == "other" else _count_value(count)
        out.add((n, m.group("unit").lower()))
    return out


def period_lengths(text: str) -> set[tuple[float, str]]:
    """The lengths of the periods a text states as (count, unit), whether in words or digits and whatever the
    kind of day: "within three business days" and "3 days" are both (3, "day")."""
    return {_length(m) for m in PERIOD.finditer(text)}


def _length(m: re.Match[str]) -> tuple[float, str]:
    """(count, unit) of a `PERIOD` match, its count read from digits or words."""
    return _count_value(m.group("count")), m.group("unit").lower()


_PERIOD_BELOW = re.compile(
    r"\b(?:less than|under|fewer than|shorter than|below|at most|up to|no more than|not more than|not exceeding|"
    r"no longer than|(?:with)?in|no later than|not later than|a maximum of|"
    r"(?:may|must|shall|can|will|does|do)\s+not\s+(?:exceed|extend\s+beyond|last\s+(?:more|longer)\s+than))\s*$",
    re.I,
)
_PERIOD_ABOVE = re.compile(
    r"\b(?:more than|over|longer than|exceeding|beyond|at least|no less than|not less than|a minimum of|"
    r"no shorter than)\s*$",
    re.I,
)


def period_sides(text: str) -> set[tuple[float, str, str]]:
    """The periods a text bounds from one side, as (count, unit, side): "below" for "less than five years",
    "within 7 days", "up to three months"; "above" for "at least five years", "more than 30 days"."""
    out: set[tuple[float, str, str]] = set()
    for m in PERIOD.finditer(text):
        side = _side(text, m)
        if side:
            out.add((*_length(m), side))
    return out


def _side(text: str, m: re.Match[str]) -> str | None:
    """The side the words before a `PERIOD` match bound it from: "below" ("within", "up to"), "above" ("at least",
    "more than"), or None."""
    before = text[max(0, m.start() - 30) : m.start("count")]
    return "below" if _PERIOD_BELOW.search(before) else "above" if _PERIOD_ABOVE.search(before) else None


DAYS_IN = {"hour": (1 / 24, 1 / 24), "day": (1, 1), "week": (7, 7), "month": (28, 31), "year": (365, 366)}
"""How many calendar days a unit of a period spans, at least and at most (a month is 28 to 31)."""
COUNTED_DAYS = re.compile(r"\b(?:business|working|banking|trading|clear)\s+(?:hour|day|week)s?\b", re.I)


class TimedPeriod(NamedTuple):
    """A period a text states, in calendar days at least and at most ("at least one month before": 28 to 31 days),
    the side it is bounded from ("above" for a minimum, "below" for a limit, None for neither) and the word after
    it ("before", "after", "of")."""

    low: float
    high: float
    side: str | None
    then: str
    counted: bool
    """Whether it counts business (working, banking) days, which no calendar length converts."""
    text: str
    """Its words ("14 days", "one month")."""
    event: str
    """The words after `then`: what it is counted from ("the contract is signed")."""


def timed_periods(text: str) -> list[TimedPeriod]:
    """The periods a text states (`PERIOD`), in calendar days, each with its side (`period_sides`) and the word
    after it."""
    out: list[TimedPeriod] = []
    for m in PERIOD.finditer(text):
        side = _side(text, m)
        count, unit = _length(m)
        low, high = DAYS_IN[unit]
        after = re.match(r"[^\w.?!;]*(\w+)((?:[^\w.?!;]+\w+){0,8})", text[m.end() :])  # within its sentence
        then, event = (after.group(1).lower(), after.group(2)) if after else ("", "")
        words = text[m.start("count") : m.end()]
        out.append(TimedPeriod(count * low, count * high, side, then, bool(COUNTED_DAYS.search(words)), words, event))
    return out


MULTIPLE = re.compile(rf"\b(?:(?:{_COUNT})\s+times|twice|double|treble|triple)\s+(?:the|its|any|their)\b", re.I)
"""A measure stated as a multiple of another amount ("up to three times the profit gained", "twice the loss")."""


def multiples(text: str) -> list[str]:
    """The multiples of another amount a text states ("three times the", "twice the"), as written, in order."""
    return [" ".join(m.group(0).split()) for m in MULTIPLE.finditer(text)]


# ----------------------------------------------------------------------------------------------------- counts

_COUNT_BEFORE = (
    "more than|fewer than|less than|at least|at most|up to|no more than|not more than|a minimum of|exceeding"
)
_COUNT_AFTER = "or more|or fewer|or less|or above"
WORD_COUNT = r"\b(?i:" + "|".join(sorted((w for w in COUNT_WORDS if len(w) > 2), key=len, reverse=True)) + r")\b"
"""A count in words ("at least one employee", "two staff"); "a" and "an" count nothing here."""
_COUNTED = re.compile(
    rf"(?:\b(?P<before>(?i:{_COUNT_BEFORE}))\s+(?P<n1>{_NUM}|{WORD_COUNT})"
    rf"|(?<![\d.,/])(?P<n2>{_NUM}|{WORD_COUNT})\s+(?P<after>(?i:{_COUNT_AFTER}))"
    rf"|(?:\b(?i:between)\s+(?P<lo>{_NUM})\s+(?i:and)|(?<![\d.,/])(?P<lo2>{_NUM})\s*(?i:to|-|\u2013))\s*(?P<hi>{_NUM}))"
    r"\s+(?P<noun>[a-z][a-z-]+)\b"
)
_COUNTED_NOUN_FIRST = re.compile(
    rf"\b(?P<noun>[a-z][a-z-]+)\s+of\s+(?:(?P<before>(?i:{_COUNT_BEFORE}))\s+(?P<n1>{_NUM})"
    rf"|(?<![\d.,/])(?P<n2>{_NUM})\s+(?P<after>(?i:{_COUNT_AFTER})))"
)
"""A bounded count whose noun comes first ("a total population of 50,000 or more", "a membership of more than
500")."""
_NOT_COUNTED = frozenset(
    (
        "must",
        "may",
        "shall",
        "will",
        "can",
        "should",
        "would",
        "could",
        "need",
        "needs",
        "is",
        "are",
        "was",
        "were",
        "be",
        "in",
        "of",
        "for",
        "to",
        "and",
        "or",
        "on",
        "at",
        "by",
        "per",
        "from",
        "with",
        "than",
        "the",
        "a",
        "an",
    )
)
"""Words after a bounded number that are not what it counts ("USD 1,000 or more must ...")."""


def _amounts_and_periods(text: str) -> list[tuple[int, int]]:
    """Where the text states a figure or a period: a number there is not a count."""
    return [(f.start, f.end) for f in figures(text)] + [(m.start(), m.end()) for m in PERIOD.finditer(text)]


def _counted(text: str) -> list[re.Match[str]]:
    taken = _amounts_and_periods(text)
    out = [
        m
        for m in _COUNTED.finditer(text)
        if m.group("noun") not in _NOT_COUNTED and not any(s < m.end() and m.start() < e for s, e in taken)
    ]
    spans = [m.span() for m in out] + taken
    for m in _COUNTED_NOUN_FIRST.finditer(text):
        start, end = m.span("n1" if m.group("n1") else "n2")  # its number, not the noun before, must be free
        if m.group("noun") not in _NOT_COUNTED and not any(s < end and start < e for s, e in spans):
            out.append(m)
    return sorted(out, key=lambda m: m.start())


def counts(text: str) -> list[str]:
    """The bounded counts a text states, as written ("50 or more workers", "fewer than 10,000 inhabitants", "50 to
    249 employees"): thresholds of headcount, members or units that are neither amounts nor periods (`figures`
    and `periods` read those, and a number one of them reads is not a count)."""
    return [" ".join(m.group(0).split()) for m in _counted(text)]


_ABOVE = frozenset({"more than", "exceeding"})
_AT_LEAST = frozenset({"at least", "a minimum of", "or more", "or above"})


def count_bounds(text: str) -> list[tuple[float, float]]:
    """The range of numbers each bounded count of a text admits, ends included ("more than 300 employees":
    301 and up; "300 or fewer": up to 300; "50 to 249": 50 to 249), in order."""
    return [(lo, hi) for lo, hi, _ in counted_bounds(text)]


def counted_bounds(text: str) -> list[tuple[float, float, str]]:
    """`count_bounds` with the noun each bound counts ("50 or more workers": (50, inf, "workers"))."""
    out: list[tuple[float, float, str]] = []
    for m in _counted(text):
        noun = m.group("noun").lower()
        if m.groupdict().get("hi"):  # a range ("50 to 249"); a count with its noun first has none
            out.append((_number(m.group("lo") or m.group("lo2")), _number(m.group("hi")), noun))
            continue
        n = _number(m.group("n1") or m.group("n2"))
        said = " ".join((m.group("before") or m.group("after")).lower().split())
        if said in _ABOVE:
            out.append((n + 1, math.inf, noun))
        elif said in _AT_LEAST:
            out.append((n, math.inf, noun))
        elif said in ("fewer than", "less than"):
            out.append((-math.inf, n - 1, noun))
        else:
            out.append((-math.inf, n, noun))
    return out


YEAR_WRITTEN = re.compile(r"(?:19|20)\d\d")
"""A number written as a year is read as one ("the 2023 rules"), not as a count."""
_STATED_COUNT = re.compile(rf"(?<![\d.,/])(?P<n>{_NUM}|{WORD_COUNT})\s+(?P<noun>[a-z][a-z-]+)\b")


OWN_AGE = re.compile(r"\b(\d{1,2})[- ]years?[- ]olds?\b|\baged (\d{1,2})\b(?!\s*(?:to|and|or|-)\b)", re.I)
"""An age a text gives of its subject ("16-year-old helpers", "a worker aged 16")."""
AGE_BOUND = re.compile(
    r"\b(?:aged|age)\s+(?P<lo>\d{1,2})\s*(?:to|-|and)\s*(?P<hi>\d{1,2})\b"
    r"|\b(?:aged\s+)?(?P<from>\d{1,2})\s+(?:and|or)\s+(?:over|above|older)\b"
    r"|\b(?:under|below|younger than)(?:\s+the\s+age\s+of)?\s+(?P<under>\d{1,2})\b"
    r"(?!\s*(?:%|percent\b|per\b)|\s+(?!(?:years?|and|or|who|whose|which|that|in|at|on|with|from|for|to|may|must|"
    r"can|are|is|were|was|have|has|do|does)\b)[a-z])",
    re.I,
)
"""An age bound a rule sets ("employees under 17", "aged 17 to 18", "aged 21 and over"); not a count ("under 25
employees") or a share ("under 5%")."""


def stated_ages(text: str) -> set[float]:
    """The ages a text gives of its own subject ("16-year-old seasonal helpers": 16)."""
    return {float(a or b) for a, b in OWN_AGE.findall(text)}


def age_bounds(text: str) -> list[tuple[float, float]]:
    """The ages each age bound of a text admits, ends included ("under 17": up to 16; "aged 17 to 18")."""
    out: list[tuple[float, float]] = []
    for m in AGE_BOUND.finditer(text):
        if m.group("lo"):
            out.append((float(m.group("lo")), float(m.group("hi"))))
        elif m.group("from"):
            out.append((float(m.group("from")), math.inf))
        else:
            out.append((0.0, float(m.group("under")) - 1))
    return out


def stated_counts(text: str) -> set[float]:
    """The plain counts a text states of its own subject ("a firm with 80 staff", "1,500 employees"): numbers
    before a noun that no figure, period, date or bounded count reads."""
    return {n for n, _ in counted_nouns(text)}


def counted_nouns(text: str) -> list[tuple[float, str]]:
    """`stated_counts` with the noun each counts, in order ("1,500 employees": (1500, "employees"))."""
    return [(_number(m.group("n")), m.group("noun").lower()) for m in _stated_counts(text)]


def count_spans(text: str) -> list[tuple[int, int]]:
    """Where the text states the number of a plain count of its own subject (`stated_counts`: "two" in "two staff",
    "80" in "80 employees")."""
    return [m.span("n") for m in _stated_counts(text)]


def blanked(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """The text with each of these (non-overlapping) spans replaced by a space: what is left to read as words
    once its figures or counts are held apart."""
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + " " + text[end:]
    return text


def _stated_counts(text: str) -> list[re.Match[str]]:
    taken = _amounts_and_periods(text)
    taken += [(d.start, d.end) for d in date_spans(text, month_year=True)] + [
        (m.start(), m.end()) for m in _COUNTED.finditer(text)
    ]
    return [
        m
        for m in _STATED_COUNT.finditer(text)
        if m.group("noun") not in _NOT_COUNTED
        and not YEAR_WRITTEN.fullmatch(m.group("n"))
        and not any(s <= m.start() < e for s, e in taken)
    ]
