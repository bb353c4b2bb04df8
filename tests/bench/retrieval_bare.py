"""Bare engine queries with the store's request shape, the baseline of the retrieval benchmark's query latency
(tests/bench/retrieval.py): Qdrant Edge and qdrant-client's local mode."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.retrieval.query import DENSE, RRF_K, SPARSE, prefetch_limit
from core.retrieval.store import HIT_FIELDS


def edge_bare(store: Any) -> Callable[[Any, Any, str], Any]:
    """A prepared bare EdgeShard.query with the store's request shape (the shard is locked: use the store's handle)."""
    import qdrant_edge as qe

    shard = store._shard
    payload = qe.PayloadSelector.Include(HIT_FIELDS)

    def prepare(dense: Any, sparse: Any, jurisdiction: str) -> Callable[[], Any]:
        f = qe.Filter(must=[qe.FieldCondition(key="jurisdiction", match=qe.MatchAny([jurisdiction]))])
        request = qe.QueryRequest(
            limit=10,
            prefetches=[
                qe.Prefetch(limit=prefetch_limit(10), query=qe.Query.Nearest(dense, using=DENSE), filter=f),
                qe.Prefetch(limit=prefetch_limit(10), query=qe.Query.Nearest(sparse, using=SPARSE), filter=f),
            ],
            query=qe.Fusion.Rrf(k=RRF_K),
            with_payload=payload,
        )
        return lambda: [(p.score, p.payload) for p in shard.query(request)]

    return prepare


def client_bare(store: Any) -> Callable[[Any, Any, str], Any]:
    """A prepared bare qdrant-client query_points with the store's request shape."""
    from qdrant_client import models

    client, collection = store.client, store.collection

    def prepare(dense: Any, sparse: Any, jurisdiction: str) -> Callable[[], Any]:
        f = models.Filter(must=[models.FieldCondition(key="jurisdiction", match=models.MatchAny(any=[jurisdiction]))])
        sv = models.SparseVector(indices=sparse.indices, values=sparse.values)
        prefetch = [
            models.Prefetch(query=dense, using=DENSE, limit=prefetch_limit(10), filter=f),
            models.Prefetch(query=sv, using=SPARSE, limit=prefetch_limit(10), filter=f),
        ]
        query = models.RrfQuery(rrf=models.Rrf(k=RRF_K))
        payload = models.PayloadSelectorInclude(include=HIT_FIELDS)
        return lambda: [
            (p.score, p.payload)
            for p in client.query_points(
                collection, prefetch=prefetch, query=query, limit=10, with_payload=payload
            ).points
        ]

    return prepare
