"""Language-neutral text helpers the offline engine and the critics share: tokens, sentences, citations, figures, dates."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Iterable

STOPWORDS = frozenset(
    """a an the and or of to in on for by with under from at as is are was were be been being this that these those
    it its their there which what who whom whose when where how does do did can could may might must shall should
    will would than then also any all each other such into about between after before over same not no nor only
    own so very just both more most some if but because while per via""".split()
)

CITATION_RE = re.compile(r"\[([A-Za-z0-9][A-Za-z0-9_.\-]*)\]")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
_WORD_RE = re.compile(r"[A-Za-z0-9]+")
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]


def stem(word: str) -> str:
    """A light suffix stripper: enough to match 'businesses' with 'business' and 'services' with 'service'."""
    w = word.lower()
    for suffix in ("nesses", "ness", "ies", "sses", "es", "s", "ing", "ed"):
        if len(w) > len(suffix) + (2 if suffix == "s" else 3) and w.endswith(suffix) and not w.endswith("ss"):
            if suffix == "ies":
                return w[:-3] + "y"
            if suffix == "sses":
                return w[:-2]
            if suffix == "es" and not w.endswith(("ses", "xes", "ches", "shes")):
                return w[:-1]
            if suffix == "nesses":
                return w[:-2]
            return w[: -len(suffix)]
    return w


def terms(text: str) -> list[str]:
    """Content-word stems of a text, in order."""
    return [stem(w) for w in _WORD_RE.findall(text) if w.lower() not in STOPWORDS and len(w) > 1]


def term_set(text: str) -> set[str]:
    """Distinct content-word stems of a text."""
    return set(terms(text))


def overlap(query_terms: set[str], text: str) -> float:
    """Share of the query's terms that the text contains (0..1)."""
    if not query_terms:
        return 0.0
    return len(query_terms & term_set(text)) / len(query_terms)


def clean_passage(text: str) -> str:
    """Passage text without Markdown headings, bullets or emphasis, one paragraph per line."""
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        stripped = re.sub(r"^([-*+]|\d+[.)])\s+", "", stripped)
        lines.append(stripped.replace("**", "").replace("__", ""))
    return "\n".join(lines)


_ABBREVIATIONS = re.compile(r"(?:\b(?:U\.S|U\.K|e\.g|i\.e|No|Art|Arts|Reg|Dir|para|p|pp|cf|vs|Inc|Ltd|Co)\.)$")


def _split_sentences(para: str) -> list[str]:
    parts: list[str] = []
    for piece in _SENTENCE_RE.split(para):
        if parts and _ABBREVIATIONS.search(parts[-1]):
            parts[-1] = f"{parts[-1]} {piece}"
        else:
            parts.append(piece)
    return parts


def sentences(text: str) -> list[str]:
    """Split a passage into sentences (headings and bullets become plain sentences)."""
    out: list[str] = []
    for para in clean_passage(text).splitlines():
        if para[-1] not in ".!?:;)" and len(para.split()) <= 12:
            continue
        for s in _split_sentences(para):
            s = s.strip()
            if len(s) >= 25:
                out.append(s if s[-1] in ".!?:" else s + ".")
    return out


def best_sentences(text: str, query: str, n: int, min_overlap: float = 0.0) -> list[tuple[float, str]]:
    """The `n` sentences of `text` that share most terms with `query`, best first, with their overlap."""
    q = term_set(query)
    scored = [(overlap(q, s), s) for s in sentences(text)]
    scored = [x for x in scored if x[0] > min_overlap]
    scored.sort(key=lambda x: -x[0])
    return scored[:n]


def cited_ids(text: str) -> list[str]:
    """Document IDs cited as `[doc-id]` in a text, in order of first appearance."""
    seen: dict[str, None] = {}
    for m in CITATION_RE.finditer(text):
        seen.setdefault(m.group(1), None)
    return list(seen)


def strip_citations(text: str) -> str:
    """The text without its `[doc-id]` markers."""
    return re.sub(r"\s*" + CITATION_RE.pattern, "", text).strip()


@dataclass(frozen=True)
class Section:
    """A `## heading` block of an answer and its sentences."""

    heading: str
    sentences: tuple[str, ...]

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


def answer_sections(answer: str) -> list[Section]:
    """Sections of an answer in the workbench's format: `## heading` lines followed by sentences."""
    sections: list[Section] = []
    heading = ""
    buf: list[str] = []
    for line in answer.splitlines():
        if line.startswith("#"):
            if buf or heading:
                sections.append(Section(heading, tuple(_answer_sentences(buf))))
            heading = line.lstrip("#").strip()
            buf = []
        else:
            buf.append(line)
    if buf or heading:
        sections.append(Section(heading, tuple(_answer_sentences(buf))))
    return sections


def _answer_sentences(lines: list[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        line = re.sub(r"^([-*+]|\d+[.)])\s+", "", line.strip())
        if not line:
            continue
        parts = re.split(r"(?<=[.!?])\s+(?=[A-Z0-9])|(?<=\])\s+(?=[A-Z])", line)
        out.extend(p.strip() for p in parts if p.strip())
    return out


@dataclass(frozen=True)
class Figure:
    """A number with a unit found in text, with the comparator its wording implies (None when unstated)."""

    value: float
    unit: str
    comparator: str | None
    text: str


_CURRENCY_CODES = {"EUR": "EUR", "€": "EUR", "USD": "USD", "US$": "USD", "$": "USD", "GBP": "GBP", "£": "GBP",
                   "SGD": "SGD", "S$": "SGD"}
_CURRENCY_WORDS = {"euro": "EUR", "euros": "EUR", "dollars": "USD", "dollar": "USD", "pounds": "GBP"}
_NUM = r"\d{1,3}(?:[,\u202f ]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_FIGURE_RE = re.compile(
    r"(?P<pre>(?:S\$|US\$|EUR|USD|GBP|SGD|[€£$])(?:/(?:EUR|USD|GBP|SGD))?\s?)(?P<num1>" + _NUM + r")(?P<k1>\s?(?:k|m|million)\b)?"
    r"|(?P<num2>" + _NUM + r")\s?(?P<post>%|percent\b|per cent\b|EUR\b|USD\b|GBP\b|SGD\b|euros?\b|dollars?\b|pounds\b|days\b|calendar days\b)"
)
_BEFORE = [
    (re.compile(r"(more than|greater than|exceeding|exceeds|in excess of|over|above)\s*$", re.I), ">"),
    (re.compile(r"(at least|not less than|no less than|minimum of)\s*$", re.I), ">="),
    (re.compile(r"(up to|not exceeding|no more than|at most|maximum of|capped at|below|under|less than)\s*$", re.I), "<="),
]
_AFTER = [
    (re.compile(r"^\s*(or more|or above|or higher|and above|and over|or greater|plus)(?!\s+than)", re.I), ">="),
    (re.compile(r"^\s*(or less|or below|and below)", re.I), "<="),
]


def figures(text: str) -> list[Figure]:
    """Percentages, amounts and day counts in a text, with the comparator implied by the words around them."""
    out: list[Figure] = []
    for m in _FIGURE_RE.finditer(text):
        raw = m.group("num1") or m.group("num2")
        value = float(re.sub(r"[,\u202f ]", "", raw))
        units: list[str]
        if m.group("pre"):
            units = [_CURRENCY_CODES.get(code, "USD") for code in m.group("pre").strip().split("/")]
            scale = (m.group("k1") or "").strip().lower()
            value *= {"k": 1_000, "m": 1_000_000, "million": 1_000_000}.get(scale, 1)
        else:
            post = m.group("post").lower()
            if post in ("%", "percent", "per cent"):
                units = ["percent"]
            elif post.endswith("days"):
                units = ["days"]
            else:
                units = [_CURRENCY_CODES.get(post.upper()) or _CURRENCY_WORDS.get(post, post.upper())]
        before = text[max(0, m.start() - 30): m.start()]
        after = text[m.end(): m.end() + 20]
        comparator = None
        for rx, comp in _BEFORE:
            if rx.search(before):
                comparator = comp
        for rx, comp in _AFTER:
            if rx.search(after):
                comparator = comp
        out.extend(Figure(value=value, unit=unit, comparator=comparator, text=m.group(0)) for unit in units)
    return out


def date_variants(d: date) -> list[str]:
    """Ways an answer may write a date: '10 July 2027', 'July 10, 2027', '10 Jul 2027', '2027-07-10'."""
    month = _MONTHS[d.month - 1]
    return [f"{d.day} {month} {d.year}", f"{month} {d.day}, {d.year}", f"{d.day} {month[:3]} {d.year}",
            d.isoformat(), f"{month} {d.year}"]


def mentions_date(text: str, d: date) -> bool:
    """Whether the text states the date in any usual form."""
    return any(v.lower() in text.lower() for v in date_variants(d))


def format_date(d: date) -> str:
    """The answer's date style: '10 July 2027'."""
    return f"{d.day} {_MONTHS[d.month - 1]} {d.year}"


def has_number_or_date(text: str) -> bool:
    """Whether a sentence carries any figure or year."""
    return bool(figures(text)) or bool(re.search(r"\b(19|20)\d{2}\b", text))


REQUIREMENT_RE = re.compile(r"\b(must|shall|required|requires|obliged|obligation|has to|have to|need to|mandatory)\b", re.I)


def phrase_in(haystack: str, needles: Iterable[str]) -> list[str]:
    """The needles that occur in the haystack as whole words or phrases (case-insensitive)."""
    found = []
    for n in needles:
        if n and re.search(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])", haystack, re.I):
            found.append(n)
    return found
