"""Scoring of a final answer against a question's expectations: fact coverage, residual deficiencies, detection.

Pure functions, no I/O: usable from the CLI (`python -m core eval`), the benchmark and the UI.

Fact matching normalises both the answer and the expected fact to a token sequence and looks for the fact's
tokens as a contiguous run in the answer's tokens:

- amounts: `€10,000`, `EUR 10 000`, `10,000 euros` and `EUR 10k` are all `eur 10000`; every ISO 4217 code is a
  currency, and symbols become codes through core.domain.figures (`$` and `US$` are `usd`, `A$` `aud`, `HK$` `hkd`,
  `£` `gbp`, `S$` `sgd`);
- percentages: `25%`, `25 %`, `25 percent`, `25 per cent` are all `25%`;
- comparators next to a figure become one token before it: `25% or more` = `at least 25 percent` (`ge 25%`),
  `more than 25%` = `exceeding 25 percent` = `over 25%` (`gt 25%`). A fact without a comparator (`25%`)
  matches the figure with any comparator; `25% or more` does not match `more than 25%`;
- dates: `10 July 2027`, `10 Jul 2027`, `July 10, 2027` and `2027-07-10` are all `2027-07-10`; a month-year
  fact (`July 2027`) matches any day of that month;
- citations and words: case- and space-insensitive (`31 CFR 1010.230` = `31 C.F.R. § 1010.230` =
  `31cfr1010.230`; `Art 52(2)` = `Article 52(2)`), light stemming (`officials` = `official`), small number
  words as digits (`one` = `1`), `+` as `plus`.

A fact may also be a list of alternative wordings; it counts as found when any of them is found.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial

from core.domain.answer import GAP_HEADING, RESIDUAL_HEADING
from core.domain.figures import (
    COMPARATOR_AFTER,
    COMPARATOR_BEFORE,
    COMPARATOR_TOKEN,
    DATE_DMY,
    DATE_ISO,
    DATE_MDY,
    DATE_MY,
    MONTH_NUMBER,
    currency_codes,
    currency_symbols,
)
from core.domain.records import Deficiency, DeficiencyType
from core.engines.text import stem

Fact = str | Sequence[str]
"""An expected fact: one wording, or several alternative wordings of the same fact."""

RESIDUAL_HEADING_RE = re.compile(rf"^#+\s*(?:{re.escape(RESIDUAL_HEADING)}|{re.escape(GAP_HEADING)})", re.I | re.M)
"""Where the answer's own statements end: the disclosure of what the corpus could not answer and of the residual
deficiencies are the workbench's words, not facts the answer states."""
_CITATION_RE = re.compile(r"\[[A-Za-z0-9][A-Za-z0-9_.\-]*\]")

_CUR = "(?:" + "|".join(sorted((c.lower() for c in currency_codes()), key=len, reverse=True)) + ")"
_SYMBOLS = sorted(currency_symbols().items(), key=lambda kv: len(kv[0]), reverse=True)
_CUR_PAIR = rf"{_CUR}(?:\s*/\s*{_CUR})?"
_NUMBER_WORDS = {
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
}
_FIGURE = rf"(?:{_CUR_PAIR}\s*\d[\d.]*|\d[\d.]*%)"
_CMP_BEFORE = [
    (re.compile(rf"\b(?:{words})\s+(?={_FIGURE})"), f"{COMPARATOR_TOKEN[cmp]} ") for words, cmp in COMPARATOR_BEFORE
]
_CMP_AFTER = [
    (re.compile(rf"(?<![\w.])({_FIGURE})\s+(?:{words})\b"), COMPARATOR_TOKEN[cmp]) for words, cmp in COMPARATOR_AFTER
]
_TOKEN_RE = re.compile(r"\d{4}-\d{2}(?:-\d{2})?|\d+(?:\.\d+)*%?|[a-z]+|%")


# ---------------------------------------------------------------------------------------------- normalising


def answer_body(answer: str) -> str:
    """The answer without the gaps and the "Residual deficiencies" disclosure (the workbench's words, not the
    answer's)."""
    m = RESIDUAL_HEADING_RE.search(answer or "")
    return (answer or "")[: m.start()].rstrip() if m else (answer or "")


def _iso(m: re.Match[str], with_day: bool = True) -> str:
    month = m.group("month").lower().rstrip(".")
    number = MONTH_NUMBER.get(month) or int(month)
    if with_day:
        return f" {m.group('year')}-{number:02d}-{int(m.group('day')):02d} "
    return f" {m.group('year')}-{number:02d} "


def _valid_date(m: re.Match[str]) -> bool:
    month = m.group("month").lower().rstrip(".")
    number = MONTH_NUMBER.get(month) or int(month)
    return 1 <= number <= 12 and 1 <= int(m.group("day")) <= 31


def normalise(text: str) -> str:
    """Canonical text for fact matching (see the module docstring); tokens are separated by single spaces."""
    t = _CITATION_RE.sub(" ", text or "")
    t = t.replace("\u00a0", " ").replace("\u202f", " ").replace("\u2009", " ").replace("\u2019", "'")
    t = t.lower()
    # dates (before any number handling, so "10 July 2027" is not read as a figure)
    t = DATE_DMY.sub(lambda m: _iso(m) if _valid_date(m) else m.group(0), t)
    t = DATE_MDY.sub(lambda m: _iso(m) if _valid_date(m) else m.group(0), t)
    t = DATE_ISO.sub(lambda m: _iso(m) if _valid_date(m) else m.group(0), t)
    t = DATE_MY.sub(lambda m: _iso(m, with_day=False), t)
    # ranges written with dashes read as "to"
    t = re.sub(r"\s*[\u2013\u2014]\s*", " to ", t)
    # legal abbreviations
    t = re.sub(r"c\.\s*f\.\s*r\.?", " cfr ", t)
    t = re.sub(r"u\.\s*s\.\s*c\.?", " usc ", t)
    t = re.sub(r"\bu\.\s*s\.(?=\s|$|[^a-z])", " us ", t)
    t = t.replace("§", " ")
    t = re.sub(r"\barts?\.?\s*(?=\d)", "article ", t)
    t = re.sub(r"\bregs?\.?\s*(?=\d)", "regulation ", t)
    t = re.sub(r"\b(?:sec|s)\.\s*(?=\d)", "section ", t)
    t = re.sub(r"\br\.\s*(?=\d)", "recommendation ", t)
    # currencies: symbols and words become codes before the amount
    for symbol, code in _SYMBOLS:
        t = t.replace(symbol.lower(), f" {code.lower()} ")
    t = re.sub(r"\bus dollars?\b", " usd ", t)
    t = re.sub(r"\b(?:euros?)\b", " eur ", t)
    t = re.sub(r"\bdollars?\b", " usd ", t)
    t = re.sub(r"\bpounds?(?: sterling)?\b", " gbp ", t)
    t = re.sub(r"\s+", " ", t)
    # thousands separators: 10,000 / 10 000 (space only right after a currency code)
    t = re.sub(
        rf"\b({_CUR}) (\d{{1,3}}(?: \d{{3}})+)(?![\d,])", lambda m: f"{m.group(1)} {m.group(2).replace(' ', '')}", t
    )
    t = re.sub(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?![\d])", lambda m: m.group(0).replace(",", ""), t)
    t = re.sub(r"(\d+)\.0+(?![\d])", r"\1", t)
    # amounts written number-first: "10000 eur" -> "eur 10000"
    t = re.sub(rf"(?<![\w.])(\d+(?:\.\d+)?) ?({_CUR})\b", r"\2 \1", t)
    # scaled amounts: "eur 10k", "usd 5 million"
    t = re.sub(
        rf"\b({_CUR}) ?(\d+(?:\.\d+)?) ?(k|m|million|bn|billion)\b",
        lambda m: f"{m.group(1)} {_scaled(m.group(2), m.group(3))}",
        t,
    )
    t = re.sub(rf"\b({_CUR}) ?(?=\d)", r"\1 ", t)
    # percentages
    t = re.sub(r"(\d+(?:\.\d+)?)\s*(?:%|percent\b|per cent\b|pct\b)", r"\1%", t)
    t = t.replace("+", " plus ").replace("&", " and ")
    # comparators: one token before the figure
    for rx, token in _CMP_AFTER:
        t = rx.sub(partial(_prefixed, token), t)
    for rx, token in _CMP_BEFORE:
        t = rx.sub(token, t)
    return " ".join(tokens_of(t))


def _prefixed(token: str, m: re.Match[str]) -> str:
    return f"{token} {m.group(1)}"


def _scaled(number: str, scale: str) -> str:
    factor = {"k": 1_000, "m": 1_000_000, "million": 1_000_000, "bn": 1_000_000_000, "billion": 1_000_000_000}[scale]
    value = float(number) * factor
    return f"{value:.0f}" if value == int(value) else f"{value:g}"


def tokens_of(canonical: str) -> list[str]:
    """Tokens of already-canonical text: ISO dates, numbers (with a trailing %), stemmed words."""
    out = []
    for tok in _TOKEN_RE.findall(canonical):
        if tok.isalpha():
            tok = _NUMBER_WORDS.get(tok, stem(tok))
        out.append(tok)
    return out


@lru_cache(maxsize=4096)
def _fact_tokens(fact: str) -> tuple[str, ...]:
    return tuple(normalise(fact).split())


def _token_eq(fact_tok: str, answer_tok: str) -> bool:
    if fact_tok == answer_tok:
        return True
    # a month-year fact matches any day of that month
    return len(fact_tok) == 7 and fact_tok[4] == "-" and answer_tok.startswith(fact_tok + "-")


def _contains(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    if not needle:
        return False
    n = len(needle)
    return any(all(_token_eq(needle[j], haystack[i + j]) for j in range(n)) for i in range(len(haystack) - n + 1))


def fact_label(fact: Fact) -> str:
    """How a fact is shown in reports: its first wording."""
    return fact if isinstance(fact, str) else (next(iter(fact)) if fact else "")


def fact_found(answer: str, fact: Fact, *, _tokens: Sequence[str] | None = None) -> bool:
    """Whether the answer states the fact (any of its alternative wordings), after normalisation."""
    tokens = _tokens if _tokens is not None else normalise(answer_body(answer)).split()
    wordings = [fact] if isinstance(fact, str) else list(fact)
    return any(_contains(tokens, _fact_tokens(w)) for w in wordings if w and w.strip())


# ------------------------------------------------------------------------------------------------ scoring


@dataclass(frozen=True)
class FactCoverage:
    """Which expected facts an answer states."""

    found: tuple[str, ...]
    missing: tuple[str, ...]

    @property
    def expected(self) -> int:
        return len(self.found) + len(self.missing)

    @property
    def ratio(self) -> float | None:
        """Share of expected facts found (0..1), None when nothing was expected."""
        return round(len(self.found) / self.expected, 4) if self.expected else None


def fact_coverage(answer: str, facts: Iterable[Fact]) -> FactCoverage:
    """Fact coverage of an answer (its residual-deficiency disclosure is not counted as the answer)."""
    tokens = normalise(answer_body(answer)).split()
    found: list[str] = []
    missing: list[str] = []
    for fact in facts:
        (found if fact_found(answer, fact, _tokens=tokens) else missing).append(fact_label(fact))
    return FactCoverage(found=tuple(found), missing=tuple(missing))


@dataclass(frozen=True)
class ResidualSummary:
    """Deficiencies left in a final answer: how many and how heavy (summed severity weights)."""

    count: int
    severity: float
    by_type: dict[str, int]


def residual_summary(deficiencies: Iterable[Deficiency]) -> ResidualSummary:
    """Count and summed severity weight (low 0.02 .. critical 0.2) of residual deficiencies."""
    items = list(deficiencies)
    by_type: dict[str, int] = {}
    for d in items:
        by_type[d.deficiency_type.value] = by_type.get(d.deficiency_type.value, 0) + 1
    return ResidualSummary(
        count=len(items),
        severity=round(sum(d.severity.weight for d in items), 4),
        by_type=dict(sorted(by_type.items())),
    )


def detection_recall(
    expected: Iterable[DeficiencyType | str], detected: Iterable[DeficiencyType | str]
) -> float | None:
    """Share of the expected deficiency types that were detected during the run; None when none were expected."""
    want = {DeficiencyType(t).value for t in expected}
    if not want:
        return None
    seen = {DeficiencyType(t).value for t in detected}
    return round(len(want & seen) / len(want), 4)
