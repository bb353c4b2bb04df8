"""The prompt budget: passages fitted into what `WORKBENCH_LLM_CONTEXT_TOKENS` leaves for a prompt.

Passages come in priority order (the caller ranks them: best passage of each plan item first, then the second
of each, ...). Each goes in whole while it fits; one that does not fit whole is shortened to its most relevant
whole sentences (the sentences its quotes come from are kept first), and one of which not even that fits is
left out. The prompt then says what was shortened and left out, so the model (and the record) know the
material was cut, not missing from the corpus.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from core.engines.llm.tokens import TokenCounter
from core.engines.text import overlap, quote_in, sentences, term_set

NOTE_RESERVE = 120
"""Tokens kept for the line that reports what was left out."""
NOTE_IDS = 6
"""Passages that line names of each kind; the rest are counted."""


def _ids(chunk_ids: Sequence[str]) -> str:
    named = ", ".join(chunk_ids[:NOTE_IDS])
    more = len(chunk_ids) - NOTE_IDS
    return f"{named} and {more} more" if more > 0 else named


@dataclass(frozen=True)
class Room:
    """How many tokens a user message may take, and the counter that measures them."""

    counter: TokenCounter
    tokens: int


@dataclass(frozen=True)
class Passage:
    """One passage to show: its ids, text, the quotes that must survive shortening and the words it serves."""

    chunk_id: str
    body: str
    keep: tuple[str, ...] = ()
    about: str = ""
    """What the passage was retrieved for (the plan item's ask and query), to rank its sentences."""


@dataclass
class Fitted:
    """The passages as they go into the prompt, and what the budget shortened or left out."""

    shown: list[tuple[Passage, str]] = field(default_factory=list)
    shortened: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)

    @property
    def cut(self) -> int:
        """Passages shortened or left out."""
        return len(self.shortened) + len(self.left_out)

    def note(self) -> str:
        """The line telling the model what the budget cut ('' when nothing was), naming at most `NOTE_IDS`
        passages of each kind."""
        parts = []
        if self.shortened:
            parts.append(f"shortened to their most relevant sentences: {_ids(self.shortened)}")
        if self.left_out:
            parts.append(f"left out: {_ids(self.left_out)}")
        return ("To fit the prompt budget, passages were " + "; ".join(parts) + ".") if parts else ""


def shortened(p: Passage, fits: Callable[[str], bool]) -> str | None:
    """The passage's kept and most relevant sentences, in passage order, as many as `fits` allows; None when not
    even the first of them fits."""
    said = sentences(p.body) or [p.body]
    wanted = term_set(p.about)
    must = [i for i, s in enumerate(said) if any(quote_in(q, s) or quote_in(s, q) for q in p.keep)]
    rest = sorted((i for i in range(len(said)) if i not in must), key=lambda i: -overlap(wanted, said[i]))
    chosen: list[int] = []
    for i in [*must, *rest]:
        if fits(" … ".join(said[j] for j in sorted([*chosen, i]))):
            chosen.append(i)
    if not chosen:
        return None
    return " … ".join(said[j] for j in sorted(chosen))


def _fits(p: Passage, render: Callable[[Passage, str], str], counter: TokenCounter, room: int) -> Callable[[str], bool]:
    return lambda body: counter.count(render(p, body)) + 1 <= room


def fit(
    passages: Sequence[Passage], render: Callable[[Passage, str], str], counter: TokenCounter, tokens: int
) -> Fitted:
    """The passages within `tokens` (less the note's reserve), each rendered by `render(passage, body)`."""
    left = tokens - NOTE_RESERVE
    out = Fitted()
    for p in passages:
        whole = render(p, p.body)
        cost = counter.count(whole) + 1
        if cost <= left:
            out.shown.append((p, whole))
            left -= cost
            continue
        body = shortened(p, _fits(p, render, counter, left))
        if body is None:
            out.left_out.append(p.chunk_id)
            continue
        text = render(p, body)
        out.shown.append((p, text))
        out.shortened.append(p.chunk_id)
        left -= counter.count(text) + 1
    return out


def round_robin(groups: Sequence[Sequence[Passage]]) -> list[Passage]:
    """Each group's first passage, then each one's second, ...; a passage already taken is not repeated."""
    out: list[Passage] = []
    seen: set[str] = set()
    for rank in range(max((len(g) for g in groups), default=0)):
        for g in groups:
            if rank < len(g) and g[rank].chunk_id not in seen:
                seen.add(g[rank].chunk_id)
                out.append(g[rank])
    return out
