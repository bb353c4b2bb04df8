"""The scale-out backend: a Qdrant server (or qdrant-client's local mode in tests) through qdrant-client.

Same collection layout and query shape as the Edge store; BM25 sparse vectors come from `qdrant_edge.Bm25`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import qdrant_edge as qe
from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ApiException

from core.domain.documents import SearchFilter
from core.retrieval.embeddings import embedding_dim
from core.retrieval.errors import StoreUnavailableError
from core.retrieval.names import validate_collection
from core.retrieval.query import DENSE, RRF_K, SPARSE, QueryPlan, prefetch_limit
from core.retrieval.store import HIT_FIELDS, INTEGER_FIELDS, KEYWORD_FIELDS, STAMP_ID, BaseStore, date_key

_PAGE = 256
_UPSERT_BATCH = 512
_NOT_STAMP = models.Filter(must_not=[models.HasIdCondition(has_id=[STAMP_ID])])


def connect(url: str, api_key: str | None = None) -> QdrantClient:
    """A client for `url`; ":memory:" gives qdrant-client's in-process local mode (tests)."""
    if url == ":memory:":
        return QdrantClient(location=":memory:")
    return QdrantClient(url=url, api_key=api_key)


class ServerStore(BaseStore):
    """A corpus store in one collection of a Qdrant server (or a local-mode client)."""

    def __init__(
        self,
        client: QdrantClient,
        collection: str,
        model_name: str,
        on_close: Callable[[BaseStore], None] | None = None,
        owns_client: bool = False,
    ):
        super().__init__(validate_collection(collection), model_name, on_close)
        self.client = client
        self._owns_client = owns_client
        self._dim = embedding_dim(model_name)
        self._hit_payload = models.PayloadSelectorInclude(include=HIT_FIELDS)
        self._exists = False
        self.exists()  # fails fast when the server does not answer

    def exists(self) -> bool:
        """Whether the collection is on the server (asked again until it is: another process may create it); a
        read never creates it, the first write does."""
        self._check_open()
        if not self._exists:
            try:
                self._exists = self.client.collection_exists(self.collection)
            except ApiException as exc:
                raise StoreUnavailableError(f"cannot reach the Qdrant server at QDRANT_URL: {exc}") from None
        return self._exists

    def _writable(self) -> None:
        """Create the collection on the first write."""
        if self.exists():
            return
        try:
            self._create_collection()
        except Exception:
            if not self.client.collection_exists(self.collection):
                raise
        self._exists = True

    def _create_collection(self) -> None:
        self.client.create_collection(
            self.collection,
            vectors_config={DENSE: models.VectorParams(size=self._dim, distance=models.Distance.COSINE)},
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
        )
        with warnings.catch_warnings():  # local mode ignores payload indexes and warns; a server uses them
            warnings.filterwarnings("ignore", message="Payload indexes have no effect")
            for field in KEYWORD_FIELDS:
                self.client.create_payload_index(self.collection, field, models.PayloadSchemaType.KEYWORD)
            for field in INTEGER_FIELDS:
                self.client.create_payload_index(self.collection, field, models.PayloadSchemaType.INTEGER)

    def count(self) -> int:
        if not self.exists():
            return 0
        return self.client.count(self.collection, count_filter=_NOT_STAMP, exact=True).count

    def reset(self) -> None:
        if self.exists():
            self.client.delete_collection(self.collection)
        self._create_collection()
        self._exists = True

    def _upsert(self, points: list[tuple[str, list[float], qe.SparseVector, dict[str, Any]]]) -> None:
        structs = [
            models.PointStruct(
                id=pid,
                vector={DENSE: dense, SPARSE: models.SparseVector(indices=sparse.indices, values=sparse.values)},
                payload=payload,
            )
            for pid, dense, sparse, payload in points
        ]
        self._writable()
        for start in range(0, len(structs), _UPSERT_BATCH):
            self.client.upsert(self.collection, structs[start : start + _UPSERT_BATCH], wait=True)

    def _write_stamp(self, pid: str, payload: dict[str, Any]) -> None:
        self._writable()
        self.client.upsert(self.collection, [models.PointStruct(id=pid, vector={}, payload=payload)], wait=True)

    def _delete_from(self, doc_id: str, first_index: int) -> None:
        must: list[models.Condition] = [models.FieldCondition(key="doc_id", match=models.MatchValue(value=doc_id))]
        if first_index:
            must.append(models.FieldCondition(key="chunk_index", range=models.Range(gte=first_index)))
        self._writable()
        self.client.delete(self.collection, models.FilterSelector(filter=models.Filter(must=must)), wait=True)

    def _request(self, plan: QueryPlan, k: int, flt: SearchFilter | None) -> models.QueryRequest:
        f = _filter(flt)
        if plan.dense is not None and plan.sparse is not None:
            limit = prefetch_limit(k)
            return models.QueryRequest(
                prefetch=[
                    models.Prefetch(query=list(plan.dense), using=DENSE, limit=limit, filter=f),
                    models.Prefetch(query=_sparse(plan.sparse), using=SPARSE, limit=limit, filter=f),
                ],
                query=models.RrfQuery(rrf=models.Rrf(k=RRF_K)),
                limit=k,
                with_payload=self._hit_payload,
            )
        query: Any
        if plan.dense is not None:
            query, using = list(plan.dense), DENSE
        elif plan.sparse is not None:
            query, using = _sparse(plan.sparse), SPARSE
        else:
            raise ValueError("a query plan holds a dense or a sparse vector")
        return models.QueryRequest(query=query, using=using, filter=f, limit=k, with_payload=self._hit_payload)

    def _query(self, plan: QueryPlan, k: int, flt: SearchFilter | None) -> list[tuple[float, dict[str, Any]]]:
        return self._query_batch([plan], k, flt)[0]

    def _query_batch(
        self, plans: list[QueryPlan], k: int, flt: SearchFilter | None
    ) -> list[list[tuple[float, dict[str, Any]]]]:
        if not plans or not self.exists():
            return [[] for _ in plans]
        responses = self.client.query_batch_points(self.collection, [self._request(p, k, flt) for p in plans])
        return [[(p.score, p.payload or {}) for p in res.points] for res in responses]

    def _scroll(self, doc_id: str | None, first_chunk_only: bool, fields: list[str]) -> list[dict[str, Any]]:
        if not self.exists():
            return []
        must: list[models.Condition] = []
        if doc_id is not None:
            must.append(models.FieldCondition(key="doc_id", match=models.MatchValue(value=doc_id)))
        if first_chunk_only:
            must.append(models.FieldCondition(key="chunk_index", match=models.MatchValue(value=0)))
        f = models.Filter(must=must) if must else None
        out: list[dict[str, Any]] = []
        offset = None
        while True:
            records, offset = self.client.scroll(
                self.collection, scroll_filter=f, limit=_PAGE, offset=offset, with_payload=fields, with_vectors=False
            )
            out.extend(r.payload or {} for r in records)
            if offset is None:
                return out

    def _retrieve(self, pid: str, fields: list[str]) -> dict[str, Any] | None:
        if not self.exists():
            return None
        records = self.client.retrieve(self.collection, [pid], with_payload=fields, with_vectors=False)
        return (records[0].payload or {}) if records else None

    def _facet(self, key: str) -> dict[str, int]:
        if not self.exists():
            return {}
        first = models.Filter(must=[models.FieldCondition(key="chunk_index", match=models.MatchValue(value=0))])
        response = self.client.facet(self.collection, key=key, facet_filter=first, limit=10_000, exact=True)
        return {str(h.value): h.count for h in response.hits}

    def _close_engine(self) -> None:
        if self._owns_client:
            self.client.close()


def _sparse(v: qe.SparseVector) -> models.SparseVector:
    return models.SparseVector(indices=v.indices, values=v.values)


def _filter(flt: SearchFilter | None) -> models.Filter | None:
    """The qdrant-client filter of a SearchFilter (same semantics as the Edge store's)."""
    if flt is None:
        return None
    must: list[models.Condition] = []
    must_not: list[models.Condition] = []
    for key, values in (("jurisdiction", flt.jurisdictions), ("status", flt.statuses), ("doc_id", flt.doc_ids)):
        if values:
            match = models.MatchAny(any=[getattr(v, "value", v) for v in values])
            must.append(models.FieldCondition(key=key, match=match))
    if flt.exclude_doc_ids:
        must_not.append(models.FieldCondition(key="doc_id", match=models.MatchAny(any=list(flt.exclude_doc_ids))))
    if flt.as_of is not None:
        must_not.append(models.FieldCondition(key="effective", range=models.Range(gt=date_key(flt.as_of))))
    if not must and not must_not:
        return None
    return models.Filter(must=must or None, must_not=must_not or None)
