"""The store interface and the shared collection layout (queries: core.retrieval.query; the registry of open stores:
core.retrieval.registry).

Layout (both backends): one point per chunk, id = uuid5(doc id + chunk index); named vectors `dense` (MiniLM,
cosine) and `bm25` (sparse, IDF modifier); payload `doc_id`, `chunk_index`, `text`, `heading`, `title`,
`jurisdiction`, `status` (declared), `effective` (int YYYYMMDD, absent when undated), `meta` (passage metadata,
.jsonl only) and, on chunk 0 only, `document` (the serialised `DocumentMeta`). Keyword indexes on doc_id,
jurisdiction and status; integer indexes on chunk_index and effective. One reserved point (`STAMP_ID`, no vectors)
carries the catalog version that writes renew, so the catalog is cached per store object.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import date
from typing import (
    TYPE_CHECKING,
    Any,
    Protocol,
    runtime_checkable,
)

from core.domain.documents import Catalog, Chunk, DocumentMeta, Hit, SearchFilter, chunk_id
from core.retrieval.embeddings import Embedder, get_embedder
from core.retrieval.errors import StoreClosedError
from core.retrieval.query import TIE_MARGIN, QueryPlan, SearchMode, check_mode, query_plan, ranked

if TYPE_CHECKING:
    import qdrant_edge as qe

FACET_KEYS: tuple[str, ...] = ("jurisdiction", "status")
KEYWORD_FIELDS: tuple[str, ...] = ("doc_id", "jurisdiction", "status")
INTEGER_FIELDS: tuple[str, ...] = ("chunk_index", "effective")
HIT_FIELDS: list[str] = ["doc_id", "chunk_index", "text", "heading", "title", "jurisdiction", "status", "meta"]
CHUNK_FIELDS: list[str] = ["doc_id", "chunk_index", "text", "heading", "meta"]
_POINT_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "urn:compliance-research-workbench:chunk")
STAMP_ID = str(uuid.uuid5(_POINT_NAMESPACE, "catalog-version"))
"""A reserved point without vectors whose payload `catalog_version` every ingest or delete renews, so that each
process and replica knows when its cached catalog is out of date (no search finds it; `count` leaves it out)."""
STAMP_FIELD = "catalog_version"


def point_id(doc_id: str, chunk_index: int) -> str:
    """Deterministic point id of a chunk, so re-ingesting a document overwrites its points."""
    return str(uuid.uuid5(_POINT_NAMESPACE, chunk_id(doc_id, chunk_index)))


def date_key(d: date) -> int:
    """A date as the integer YYYYMMDD stored in the payload (range-filterable on both backends)."""
    return d.year * 10000 + d.month * 100 + d.day


@runtime_checkable
class Store(Protocol):
    """What the app, the service and the CLI may call on a corpus store (both backends)."""

    collection: str
    atomic_rebuild: bool

    def upsert_document(self, meta: DocumentMeta, chunks: Sequence[Chunk]) -> int: ...
    def upsert_documents(self, docs: Sequence[tuple[DocumentMeta, Sequence[Chunk]]]) -> int: ...
    def delete_document(self, doc_id: str) -> None: ...
    def reset(self) -> None: ...
    def staging(self) -> AbstractContextManager[Store]: ...
    def count(self) -> int: ...
    def exists(self) -> bool: ...
    def search(
        self, query: str, k: int = 10, flt: SearchFilter | None = None, mode: SearchMode = "hybrid"
    ) -> list[Hit]: ...
    def search_many(
        self, queries: Sequence[str], k: int = 10, flt: SearchFilter | None = None, mode: SearchMode = "hybrid"
    ) -> list[list[Hit]]: ...
    def documents(self) -> list[DocumentMeta]: ...
    def catalog(self) -> Catalog: ...
    def get_document(self, doc_id: str) -> DocumentMeta | None: ...
    def facets(self, key: str) -> dict[str, int]: ...
    def chunks(self, doc_id: str) -> list[Chunk]: ...
    def close(self) -> None: ...


class BaseStore(ABC):
    """Embedding, payload layout and hit building shared by both backends; subclasses run the engine calls."""

    atomic_rebuild = False
    """Whether `staging` builds aside and swaps in (a failed rebuild keeps the old corpus) or empties this store."""

    def __init__(self, collection: str, model_name: str, on_close: Callable[[BaseStore], None] | None = None):
        self.collection = collection
        self._model_name = model_name
        self._on_close = on_close
        self._closed = False
        self._catalog: tuple[str, Catalog] | None = None
        """The catalog as last built, with the catalog version it was built at."""

    @property
    def embedder(self) -> Embedder:
        """The process-wide embedder (loaded on first use, so metadata-only callers never load the model)."""
        return get_embedder(self._model_name)

    # -- writes -------------------------------------------------------------------------------------------
    def upsert_document(self, meta: DocumentMeta, chunks: Sequence[Chunk]) -> int:
        """Index one document's chunks, replacing its previous version; returns the number of chunks written."""
        return self.upsert_documents([(meta, chunks)])

    def upsert_documents(self, docs: Sequence[tuple[DocumentMeta, Sequence[Chunk]]]) -> int:
        """Index several documents with one batched embedding pass; returns the number of chunks written."""
        self._check_open()
        if not docs:
            return 0
        for meta, chunks in docs:
            _check_chunks(meta, chunks)
        texts = [embedding_text(meta, c) for meta, chunks in docs for c in chunks]
        dense = self.embedder.dense(texts)
        sparse = self.embedder.sparse_documents(texts)
        written = 0
        for meta, chunks in docs:
            n = len(chunks)
            self.upsert_vectors(meta, chunks, dense[written : written + n], sparse[written : written + n])
            written += n
        return written

    def upsert_vectors(
        self,
        meta: DocumentMeta,
        chunks: Sequence[Chunk],
        dense: Sequence[Sequence[float]],
        sparse: Sequence[qe.SparseVector],
    ) -> int:
        """Write one document with precomputed vectors and drop its chunks beyond the new length."""
        self._check_open()
        _check_chunks(meta, chunks)
        points = [
            (point_id(meta.id, c.chunk_index), list(d), s, point_payload(meta, c))
            for c, d, s in zip(chunks, dense, sparse, strict=True)
        ]
        self._upsert(points)
        self._delete_from(meta.id, len(chunks))
        self._renew_catalog_version()
        return len(points)

    def delete_document(self, doc_id: str) -> None:
        """Remove every chunk of a document (no-op when absent, and in a collection that does not exist)."""
        self._check_open()
        if not self.exists():
            return
        self._delete_from(doc_id, 0)
        self._renew_catalog_version()

    @contextmanager
    def staging(self) -> Iterator[BaseStore]:
        """A store to rebuild the collection into (`ingest --reset`). This default has no atomic swap: it empties
        this store and yields it; the Edge store overrides it with a shard built aside and swapped in."""
        self.reset()
        yield self

    # -- reads --------------------------------------------------------------------------------------------
    def search(
        self, query: str, k: int = 10, flt: SearchFilter | None = None, mode: SearchMode = "hybrid"
    ) -> list[Hit]:
        """Top-k chunks for a query: dense + BM25 fused with RRF (`hybrid`), or one of them alone."""
        check_mode(mode)
        dense = self.embedder.dense_query(query) if mode != "sparse" else None
        sparse = self.embedder.sparse_query(query) if mode != "dense" else None
        return self.search_vectors(dense, sparse, k, flt, mode)

    def search_many(
        self, queries: Sequence[str], k: int = 10, flt: SearchFilter | None = None, mode: SearchMode = "hybrid"
    ) -> list[list[Hit]]:
        """`search` for many queries: one batched embedding pass and one batched engine call."""
        check_mode(mode)
        self._check_open()
        if not queries:
            return []
        dense: list[list[float] | None] = (
            list(self.embedder.dense(queries)) if mode != "sparse" else [None] * len(queries)
        )
        sparse = [self.embedder.sparse_query(q) if mode != "dense" else None for q in queries]
        plans = [query_plan(d, s, mode) for d, s in zip(dense, sparse)]
        runnable = [i for i, p in enumerate(plans) if p is not None]
        results: list[list[Hit]] = [[] for _ in queries]
        batch = self._query_batch([plans[i] for i in runnable], k + TIE_MARGIN, flt)  # type: ignore[misc]
        for i, scored in zip(runnable, batch):
            results[i] = ranked(scored, k)
        return results

    def search_vectors(
        self,
        dense: Sequence[float] | None,
        sparse: qe.SparseVector | None,
        k: int = 10,
        flt: SearchFilter | None = None,
        mode: SearchMode = "hybrid",
    ) -> list[Hit]:
        """Search with precomputed query vectors (the engine part of `search`; also used by the benchmark)."""
        check_mode(mode)
        self._check_open()
        plan = query_plan(dense, sparse, mode)
        if plan is None:
            return []
        return ranked(self._query(plan, k + TIE_MARGIN, flt), k)

    def documents(self) -> list[DocumentMeta]:
        """Full metadata of every indexed document, in id order."""
        self._check_open()
        docs = [DocumentMeta.model_validate(p["document"]) for p in self._scroll(None, True, ["document"])]
        return sorted(docs, key=lambda d: d.id)

    def catalog(self) -> Catalog:
        """The date-aware catalog over every indexed document, cached: one point lookup tells whether a write
        here, in another process or in another replica has changed the corpus since it was built. The version is
        read before the documents and renewed after each write, so a catalog can be rebuilt needlessly, never
        kept stale. A collection that does not exist has an empty catalog (and is not created by asking)."""
        self._check_open()
        if not self.exists():
            return Catalog([])
        version = self._catalog_version() or self._renew_catalog_version()
        cached = self._catalog
        if cached is not None and cached[0] == version:
            return cached[1]
        catalog = Catalog(self.documents())
        self._catalog = (version, catalog)
        return catalog

    def _catalog_version(self) -> str | None:
        """The collection's catalog version; None where no write has set one yet (a new or reset collection)."""
        payload = self._retrieve(STAMP_ID, [STAMP_FIELD])
        return payload.get(STAMP_FIELD) if payload else None

    def _renew_catalog_version(self) -> str:
        version = uuid.uuid4().hex
        self._write_stamp(STAMP_ID, {STAMP_FIELD: version})
        return version

    def get_document(self, doc_id: str) -> DocumentMeta | None:
        """Metadata of one document, or None when it is not indexed."""
        self._check_open()
        payload = self._retrieve(point_id(doc_id, 0), ["document"])
        return DocumentMeta.model_validate(payload["document"]) if payload else None

    def chunks(self, doc_id: str) -> list[Chunk]:
        """A document's chunks in order (empty when the document is not indexed)."""
        self._check_open()
        payloads = sorted(self._scroll(doc_id, False, CHUNK_FIELDS), key=lambda p: p["chunk_index"])
        return [
            Chunk(
                doc_id=p["doc_id"],
                chunk_index=p["chunk_index"],
                text=p["text"],
                heading=p.get("heading", ""),
                metadata=p.get("meta") or {},
            )
            for p in payloads
        ]

    def facets(self, key: str) -> dict[str, int]:
        """Number of documents per value of `key` (`jurisdiction` or `status`), for the corpus page."""
        if key not in FACET_KEYS:
            raise ValueError(f"facets are available for {', '.join(FACET_KEYS)}, not {key!r}")
        self._check_open()
        return dict(sorted(self._facet(key).items()))

    def close(self) -> None:
        """Release the engine (and the shard lock); the registry forgets this store."""
        if self._closed:
            return
        self._closed = True
        self._close_engine()
        if self._on_close is not None:
            self._on_close(self)

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosedError(f"store for collection {self.collection!r} is closed; call open_store() again")

    # -- engine primitives --------------------------------------------------------------------------------
    @abstractmethod
    def count(self) -> int:
        """Number of indexed chunks (points other than the catalog version's)."""

    @abstractmethod
    def exists(self) -> bool:
        """Whether the collection exists; one that does not reads as empty and is created by the first write."""

    @abstractmethod
    def reset(self) -> None:
        """Drop every point and recreate the empty collection with the same layout."""

    @abstractmethod
    def _upsert(self, points: list[tuple[str, list[float], qe.SparseVector, dict[str, Any]]]) -> None: ...

    @abstractmethod
    def _write_stamp(self, pid: str, payload: dict[str, Any]) -> None:
        """Upsert a point without vectors (the catalog version)."""

    @abstractmethod
    def _delete_from(self, doc_id: str, first_index: int) -> None:
        """Delete the document's points whose chunk_index >= first_index."""

    @abstractmethod
    def _query(self, plan: QueryPlan, k: int, flt: SearchFilter | None) -> list[tuple[float, dict[str, Any]]]: ...

    @abstractmethod
    def _query_batch(
        self, plans: list[QueryPlan], k: int, flt: SearchFilter | None
    ) -> list[list[tuple[float, dict[str, Any]]]]: ...

    @abstractmethod
    def _scroll(self, doc_id: str | None, first_chunk_only: bool, fields: list[str]) -> list[dict[str, Any]]: ...

    @abstractmethod
    def _retrieve(self, pid: str, fields: list[str]) -> dict[str, Any] | None: ...

    @abstractmethod
    def _facet(self, key: str) -> dict[str, int]:
        """Counts of documents (chunk 0 points) per value of an indexed keyword field."""

    @abstractmethod
    def _close_engine(self) -> None: ...


def point_payload(meta: DocumentMeta, chunk: Chunk) -> dict[str, Any]:
    """The payload of a chunk's point (see the layout above)."""
    payload: dict[str, Any] = {
        "doc_id": meta.id,
        "chunk_index": chunk.chunk_index,
        "text": chunk.text,
        "heading": chunk.heading,
        "title": meta.title,
        "jurisdiction": meta.jurisdiction,
        "status": meta.status.value,
    }
    if meta.effective is not None:
        payload["effective"] = date_key(meta.effective)
    if chunk.metadata:
        payload["meta"] = chunk.metadata
    if chunk.chunk_index == 0:
        payload["document"] = meta.model_dump(mode="json")
    return payload


def embedding_text(meta: DocumentMeta, chunk: Chunk) -> str:
    """What gets embedded for a chunk: the document title gives short passages their context."""
    return f"{meta.title}\n{chunk.text}"


def _check_chunks(meta: DocumentMeta, chunks: Sequence[Chunk]) -> None:
    if not chunks:
        raise ValueError(f"document {meta.id!r} has no chunks to index")
    if [c.chunk_index for c in chunks] != list(range(len(chunks))) or {c.doc_id for c in chunks} != {meta.id}:
        raise ValueError(f"chunks of {meta.id!r} must belong to it and be numbered 0..n-1 in order")
