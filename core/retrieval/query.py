"""How a search runs on either backend: the search modes, the vectors a query uses, the RRF parameters and how
scored points become ranked hits."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from core.domain.documents import Hit, chunk_id

if TYPE_CHECKING:
    import qdrant_edge as qe

SearchMode = Literal["hybrid", "dense", "sparse"]
SEARCH_MODES: tuple[str, ...] = ("hybrid", "dense", "sparse")
DENSE = "dense"
SPARSE = "bm25"
RRF_K = 60


def prefetch_limit(k: int) -> int:
    """Candidates each hybrid prefetch hands to RRF."""
    return max(4 * k, 40)


class QueryPlan:
    """The vectors one query runs with: both (RRF fusion), or just one of them."""

    __slots__ = ("dense", "sparse")

    def __init__(self, dense: Sequence[float] | None, sparse: qe.SparseVector | None):
        self.dense = dense
        self.sparse = sparse


def check_mode(mode: str) -> None:
    if mode not in SEARCH_MODES:
        raise ValueError(f"search mode must be one of {', '.join(SEARCH_MODES)}, not {mode!r}")


def query_plan(dense: Sequence[float] | None, sparse: qe.SparseVector | None, mode: str) -> QueryPlan | None:
    """Which vectors to query with; a query of only stop words has no BM25 terms and falls back to dense."""
    if sparse is not None and not sparse.indices:
        sparse = None
    if mode == "dense" or (mode == "hybrid" and sparse is None):
        return QueryPlan(dense, None) if dense is not None else None
    if mode == "sparse":
        return QueryPlan(None, sparse) if sparse is not None else None
    return QueryPlan(dense, sparse)


TIE_MARGIN = 4
"""Extra results fetched so that hits tied on their fused score are cut at k in a fixed order."""


def ranked(scored: list[tuple[float, dict[str, Any]]], k: int) -> list[Hit]:
    """The top k hits, ties broken by document id and chunk position: RRF gives equal scores to passages at mirrored
    ranks, and the engine returns such ties in no fixed order, so without this the same query could retrieve
    different passages from one call to the next."""
    hits = [hit_of(score, payload) for score, payload in scored]
    hits.sort(key=lambda h: (-round(h.score, 9), h.doc_id, h.chunk_index))
    return hits[:k]


def hit_of(score: float, p: dict[str, Any]) -> Hit:
    meta = dict(p.get("meta") or {})
    passage_id = meta.pop("passage_id", None)
    return Hit(
        doc_id=p["doc_id"],
        chunk_id=chunk_id(p["doc_id"], p["chunk_index"]),
        chunk_index=p["chunk_index"],
        score=score,
        title=p["title"],
        jurisdiction=p["jurisdiction"],
        status=p["status"],
        text=p["text"],
        heading=p.get("heading", ""),
        passage_id=None if passage_id is None else str(passage_id),
        metadata=meta,
    )
