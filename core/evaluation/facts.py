"""Scoring of a final answer against a question's expectations: fact coverage, residual deficiencies, detection.

Pure functions, no I/O: usable from the CLI (`python -m core eval`), the benchmark and the UI.

Fact matching normalises both the answer and the expected fact to a token sequence and looks for the fact's
tokens as a contiguous run in the answer's tokens. Dates and currency or percentage figures are read by
core.domain.figures, the same parser the critic uses, and written as canonical tokens:

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
from functools import lru_cache

from core.domain.answer import GAP_HEADINGS, RESIDUAL_HEADING
from core.domain.figures import COMPARATOR_TOKEN, Figure, date_spans, figures
from core.domain.records import Deficiency, DeficiencyType
from core.engines.text import stem

Fact = str | Sequence[str]
"""An expected fact: one wording, or several alternative wordings of the same fact."""

RESIDUAL_HEADING_RE = re.compile(
    rf"^#+\s*(?:{'|'.join(re.escape(h) for h in (RESIDUAL_HEADING, *GAP_HEADINGS))})", re.I | re.M
)
"""Where the answer's own statements end: the disclosure of what the corpus could not answer and of the residual
deficiencies are the workbench's words, not facts the answer states."""
_CITATION_RE = re.compile(r"\[[A-Za-z0-9][A-Za-z0-9_.\-]*\]")

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
_TOKEN_RE = re.compile(r"\d{4}-\d{2}(?:-\d{2})?|\d+(?:\.\d+)*%?|[a-z]+|%")


# ---------------------------------------------------------------------------------------------- normalising


def answer_body(answer: str) -> str:
    """The answer without the gaps and the "Residual deficiencies" disclosure (the workbench's words, not the
    answer's)."""
    m = RESIDUAL_HEADING_RE.search(answer or "")
    return (answer or "")[: m.start()].rstrip() if m else (answer or "")


def _canonical_figure(f: Figure) -> str:
    """A currency or percentage figure as tokens: the comparator first, then `25%` or `eur 10000`."""
    value = f"{f.value:.0f}" if f.value == int(f.value) else f"{f.value:g}"
    figure = f"{value}%" if f.unit == "percent" else f"{f.unit.lower()} {value}"
    return f" {COMPARATOR_TOKEN[f.comparator]} {figure} " if f.comparator else f" {figure} "


def _canonical_spans(text: str, hint: Sequence[str]) -> tuple[str, list[str]]:
    """The text with every date and every currency or percentage figure (read by core.domain.figures, the
    parser the critic uses) replaced by a placeholder, and the canonical tokens of each placeholder."""
    spans: list[tuple[int, int, str]] = [(d.start, d.end, f" {d.iso} ") for d in date_spans(text, month_year=True)]
    for f in figures(text, hint):
        if f.unit == "days" or any(s < f.end and f.start < e for s, e, _ in spans):
            continue
        spans.append((f.start, f.end, _canonical_figure(f)))
    out: list[str] = []
    canon: list[str] = []
    last = 0
    for start, end, tokens in sorted(spans):
        if start < last:
            continue
        out.append(text[last:start] + f" \ue000{len(canon)}\ue001 ")
        canon.append(tokens)
        last = end
    out.append(text[last:])
    return "".join(out), canon


_PLACEHOLDER_RE = re.compile("\ue000(\\d+)\ue001")


def normalise(text: str, hint: Sequence[str] = ()) -> str:
    """Canonical text for fact matching (see the module docstring); tokens are separated by single spaces.
    `hint` (ISO 3166 alpha-2 codes) resolves an ambiguous currency sign as the critic does (`$` in Canada)."""
    t = _CITATION_RE.sub(" ", text or "")
    t = t.replace("\u00a0", " ").replace("\u202f", " ").replace("\u2009", " ").replace("\u2019", "'")
    t = t.replace("+", " plus ").replace("&", " and ")
    t, canon = _canonical_spans(t, tuple(hint))
    t = t.lower()
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
    t = re.sub(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?![\d])", lambda m: m.group(0).replace(",", ""), t)
    t = _PLACEHOLDER_RE.sub(lambda m: canon[int(m.group(1))], t)
    return " ".join(tokens_of(t))


def tokens_of(canonical: str) -> list[str]:
    """Tokens of already-canonical text: ISO dates, numbers (with a trailing %), stemmed words."""
    out = []
    for tok in _TOKEN_RE.findall(canonical):
        if tok.isalpha():
            tok = _NUMBER_WORDS.get(tok, stem(tok))
        out.append(tok)
    return out


@lru_cache(maxsize=4096)
def _fact_tokens(fact: str, hint: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(normalise(fact, hint).split())


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


def fact_found(answer: str, fact: Fact, hint: Sequence[str] = (), *, _tokens: Sequence[str] | None = None) -> bool:
    """Whether the answer states the fact (any of its alternative wordings), after normalisation; `hint` is the
    question's countries, for currency signs."""
    hints = tuple(hint)
    tokens = _tokens if _tokens is not None else normalise(answer_body(answer), hints).split()
    wordings = [fact] if isinstance(fact, str) else list(fact)
    return any(_contains(tokens, _fact_tokens(w, hints)) for w in wordings if w and w.strip())


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


def fact_coverage(answer: str, facts: Iterable[Fact], hint: Sequence[str] = ()) -> FactCoverage:
    """Fact coverage of an answer (its residual-deficiency disclosure is not counted as the answer); `hint` is the
    question's countries (ISO 3166 alpha-2), for currency signs."""
    tokens = normalise(answer_body(answer), hint).split()
    found: list[str] = []
    missing: list[str] = []
    for fact in facts:
        (found if fact_found(answer, fact, hint, _tokens=tokens) else missing).append(fact_label(fact))
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
