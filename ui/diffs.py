"""The answer's changes between two cycles, claim by claim, for the Cycles page.

A cycle record keeps the answer it critiqued as Markdown only (not its typed claims), so claims are the answer's
sentences: each non-empty line, split after `.`, `!`, `?` or a citation's `]` before a capital (so `art. 3` stays
whole, and a sentence keeps the `[doc-id]` citations that follow it). No Streamlit here.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.domain.records import EvaluationCycleRecord

ADDED, REMOVED, CHANGED = "added", "removed", "changed"
SIMILAR = 0.5
"""Two sentences at least this similar (difflib ratio) are one changed claim; less similar ones are a removed and
an added claim."""
MOVED_SIMILAR = 0.8
"""A removed and an added claim apart from each other are one (moved) claim when at least this alike (`_likeness`):
the same text is no change, a slightly different one is a changed claim."""
_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?\]])\s+(?=[A-Z\"'(])")


@dataclass(frozen=True)
class ClaimChange:
    """One claim that differs: its text before and after ('' on the side where it does not exist)."""

    change: str
    before: str
    after: str


def claims(answer: str) -> list[str]:
    """The answer's sentences in order (headings and table rows count as one each)."""
    out: list[str] = []
    for line in answer.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith(("#", "|")):
            out.append(line)
        else:
            out.extend(s.strip() for s in _SENTENCE_SPLIT_RE.split(line) if s.strip())
    return out


def claim_diff(before: str, after: str) -> list[ClaimChange]:
    """The claims added, removed and changed from `before` to `after`, in the answer's order ([] when equal)."""
    old, new = claims(before), claims(after)
    out: list[ClaimChange] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        olds, news = old[i1:i2], new[j1:j2]
        while olds and news:
            a, b = olds.pop(0), news.pop(0)
            if difflib.SequenceMatcher(a=a, b=b).ratio() >= SIMILAR:
                out.append(ClaimChange(CHANGED, a, b))
            else:
                out.extend((ClaimChange(REMOVED, a, ""), ClaimChange(ADDED, "", b)))
        out.extend(ClaimChange(REMOVED, a, "") for a in olds)
        out.extend(ClaimChange(ADDED, "", b) for b in news)
    return _moved(out)


def _moved(changes: list[ClaimChange]) -> list[ClaimChange]:
    """Pair each removed claim with the most similar added one elsewhere (at least MOVED_SIMILAR): an identical
    pair drops out, a similar one becomes one changed claim where it now stands."""
    out = list(changes)
    for removed in [c for c in changes if c.change == REMOVED]:
        added = [c for c in out if c.change == ADDED]
        ratios = [(_likeness(removed.before, c.after), i) for i, c in enumerate(added)]
        if not ratios or max(ratios)[0] < MOVED_SIMILAR:
            continue
        ratio, best = max(ratios)
        target = added[best]
        out.remove(removed)
        at = out.index(target)
        if ratio == 1.0:
            del out[at]
        else:
            out[at] = ClaimChange(CHANGED, removed.before, target.after)
    return out


def cycle_claim_diff(history: Sequence[EvaluationCycleRecord], before: int, after: int) -> list[ClaimChange]:
    """`claim_diff` of the answers critiqued in two cycles of a session."""
    answers = {r.cycle_number: r.answer for r in history}
    return claim_diff(answers[before], answers[after])


def _likeness(a: str, b: str) -> float:
    """How alike two claims are: the better of their character similarity and the overlap of their words (a list
    whose items were reordered keeps its words)."""
    words_a, words_b = set(a.lower().split()), set(b.lower().split())
    overlap = len(words_a & words_b) / len(words_a | words_b) if words_a | words_b else 1.0
    return 1.0 if a == b else max(difflib.SequenceMatcher(a=a, b=b).ratio(), min(overlap, 0.99))
