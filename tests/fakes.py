"""Unit-test fakes: an in-memory keyword store with the store interface (never used outside unit tests)."""

from __future__ import annotations

from core.domain.documents import Catalog, Chunk, DocumentMeta, Hit, SearchFilter
from core.engines.text import term_set


class KeywordStore:
    """Ranks chunks by shared content words; honours the same filters as the real stores."""

    def __init__(self, docs: list[tuple[DocumentMeta, list[str]]]):
        self._meta = {m.id: m for m, _ in docs}
        self._chunks = {
            m.id: [Chunk(doc_id=m.id, chunk_index=i, text=t) for i, t in enumerate(texts)] for m, texts in docs
        }
        self.queries: list[tuple[str, SearchFilter | None]] = []

    def count(self) -> int:
        return sum(len(c) for c in self._chunks.values())

    def exists(self) -> bool:
        return True

    def catalog(self) -> Catalog:
        return Catalog(self._meta.values())

    def documents(self) -> list[DocumentMeta]:
        return list(self._meta.values())

    def chunks(self, doc_id: str) -> list[Chunk]:
        return list(self._chunks.get(doc_id, []))

    def search(self, query: str, k: int = 10, flt: SearchFilter | None = None, mode: str = "hybrid") -> list[Hit]:
        self.queries.append((query, flt))
        q = term_set(query)
        scored = []
        for doc_id, chunks in self._chunks.items():
            meta = self._meta[doc_id]
            if flt is not None and not _passes(meta, flt):
                continue
            for c in chunks:
                score = len(q & term_set(c.text)) / max(1, len(q))
                if score > 0:
                    scored.append((score, c, meta))
        scored.sort(key=lambda x: (-x[0], x[1].chunk_id))
        return [
            Hit(
                doc_id=m.id,
                chunk_id=c.chunk_id,
                chunk_index=c.chunk_index,
                score=s,
                title=m.title,
                jurisdiction=m.jurisdiction,
                status=m.status.value,
                text=c.text,
            )
            for s, c, m in scored[:k]
        ]

    def search_many(
        self, queries: list[str], k: int = 10, flt: SearchFilter | None = None, mode: str = "hybrid"
    ) -> list[list[Hit]]:
        return [self.search(q, k=k, flt=flt, mode=mode) for q in queries]


def _passes(meta: DocumentMeta, flt: SearchFilter) -> bool:
    if flt.jurisdictions and meta.jurisdiction not in flt.jurisdictions:
        return False
    if flt.statuses and meta.status.value not in flt.statuses:
        return False
    if flt.doc_ids and meta.id not in flt.doc_ids:
        return False
    if meta.id in flt.exclude_doc_ids:
        return False
    return not (flt.as_of and meta.effective and meta.effective > flt.as_of)
