"""The corpus side of the Workbench: what the pages read of a collection (size, catalog, search), the bundled
sample corpus and analysts' uploads. The pages reach the corpus only through these methods."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from core.domain.documents import Catalog, Chunk, DocumentMeta, Hit, SearchFilter
from core.domain.instructions import has_instructions
from core.retrieval.query import SearchMode
from core.retrieval.readers import SUPPORTED_SUFFIXES
from core.service.base import WorkbenchBase

Progress = Callable[[int, int, str], None] | None

UPLOAD_TYPES: tuple[str, ...] = tuple(s.lstrip(".") for s in SUPPORTED_SUFFIXES)
"""File types ingest reads, as upload widgets name them (no dot)."""


class CorpusStats(BaseModel):
    """The size of a collection, as the sidebar and the Corpus page show it."""

    documents: int
    passages: int
    jurisdictions: list[str]


SINGLE_USER = "local"
"""The user id of single-user mode (no login): that user may delete any upload."""


class DocumentAccessError(PermissionError):
    """A change to a document that this user may not make (or a document the corpus does not hold)."""


class Passage(BaseModel):
    """One indexed passage with its document's metadata, for showing the evidence of a claim."""

    chunk: Chunk
    document: DocumentMeta | None


class Corpus(WorkbenchBase):
    """The corpus part of the Workbench."""

    def corpus_empty(self, collection: str | None = None) -> bool:
        """Whether the collection holds no passage (RetrievalError when its store cannot be opened)."""
        return self.store(collection).count() == 0

    def catalog(self, collection: str | None = None) -> Catalog:
        """Every indexed document's metadata, with each one's status at any date (cached by the store)."""
        return self.store(collection).catalog()

    def corpus_stats(self, collection: str | None = None) -> CorpusStats:
        """Documents, passages and jurisdiction codes of the collection."""
        store = self.store(collection)
        catalog = store.catalog()
        return CorpusStats(documents=len(catalog), passages=store.count(), jurisdictions=catalog.jurisdictions())

    def search(
        self,
        query: str,
        *,
        k: int = 10,
        jurisdictions: Sequence[str] = (),
        mode: SearchMode = "hybrid",
        collection: str | None = None,
    ) -> list[Hit]:
        """The top k passages for a query (hybrid dense + BM25, or one of them), optionally in some
        jurisdictions only."""
        flt = SearchFilter(jurisdictions=tuple(jurisdictions)) if jurisdictions else None
        return self.store(collection).search(query, k=k, flt=flt, mode=mode)

    def passage(self, chunk_id: str, collection: str | None = None) -> Passage | None:
        """The passage with this chunk id (`doc-id#index`) and its document, or None when the corpus does not hold
        it (e.g. the document was deleted or replaced by a shorter one since the answer cited it)."""
        return self.passages([chunk_id], collection)[chunk_id]

    def passages(self, chunk_ids: Iterable[str], collection: str | None = None) -> dict[str, Passage | None]:
        """`passage` for each chunk id, reading each document's passages once (a page shows every passage an
        answer quotes: one store read per document, not per quote)."""
        wanted = list(dict.fromkeys(chunk_ids))
        store = self.store(collection)
        catalog = store.catalog()
        by_doc: dict[str, dict[int, Chunk]] = {}
        out: dict[str, Passage | None] = {}
        for chunk_id in wanted:
            doc_id, _, index = chunk_id.rpartition("#")
            if not doc_id or not index.isdigit():
                out[chunk_id] = None
                continue
            if doc_id not in by_doc:
                by_doc[doc_id] = {c.chunk_index: c for c in store.chunks(doc_id)}
            chunk = by_doc[doc_id].get(int(index))
            out[chunk_id] = None if chunk is None else Passage(chunk=chunk, document=catalog.get(doc_id))
        return out

    def document_chunks(self, doc_id: str, collection: str | None = None) -> list[Chunk]:
        """A document's passages in order (its full indexed text); empty when it is not indexed."""
        return self.store(collection).chunks(doc_id)

    def instructed_passages(self, doc_id: str, collection: str | None = None) -> list[str]:
        """Chunk ids of a document's passages that address a model or reader with instructions ("ignore previous
        instructions", "SYSTEM: ..."): the engines never make them claims; the Corpus page flags the document."""
        return [c.chunk_id for c in self.store(collection).chunks(doc_id) if has_instructions(c.text)]

    def delete_document(self, doc_id: str, user_id: str, collection: str | None = None) -> None:
        """Remove an uploaded document. Only uploads can be deleted, by their uploader or in single-user mode;
        the bundled corpus and path ingests (`python -m core ingest`) are refused (DocumentAccessError)."""
        store = self.store(collection)
        doc = store.get_document(doc_id)
        if doc is None:
            raise DocumentAccessError(f"no document {doc_id!r} in the corpus")
        if doc.provenance.kind != "upload":
            raise DocumentAccessError(
                f"{doc_id!r} is not an upload ({doc.provenance.kind}); only uploads can be deleted"
            )
        if user_id != SINGLE_USER and doc.provenance.actor != user_id:
            raise DocumentAccessError(f"{doc_id!r} was uploaded by another user; only its uploader can delete it")
        store.delete_document(doc_id)

    def verify_document(
        self, doc_id: str, user_id: str, collection: str | None = None, *, actor: str | None = None
    ) -> DocumentMeta:
        """Record that `actor` (the reviewer's name; `user_id` when none is given) has checked the document against
        its source (who and when, in its provenance). With logins, an uploader cannot verify their own upload: a
        second analyst must."""
        return self.verify_documents([doc_id], user_id, collection, actor=actor)[0]

    def verify_documents(
        self, doc_ids: Sequence[str], user_id: str, collection: str | None = None, *, actor: str | None = None
    ) -> list[DocumentMeta]:
        """Verify several documents at once (`verify_document`'s rules for each), written in one batch. Nothing is
        written when one of them is refused: the error names every refused document."""
        store = self.store(collection)
        now = datetime.now(UTC).replace(microsecond=0)
        verified, refused = [], []
        for doc_id in dict.fromkeys(doc_ids):
            doc = store.get_document(doc_id)
            if doc is None:
                refused.append(f"no document {doc_id!r} in the corpus")
            elif user_id != SINGLE_USER and doc.provenance.kind == "upload" and doc.provenance.actor == user_id:
                refused.append(f"{doc_id!r} is your own upload; another analyst must verify it")
            else:
                provenance = doc.provenance.model_copy(
                    update={"verified": True, "verified_by": actor or user_id, "verified_at": now}
                )
                verified.append(doc.model_copy(update={"provenance": provenance}))
        if refused:
            raise DocumentAccessError("; ".join(refused))
        store.upsert_documents([(doc, store.chunks(doc.id)) for doc in verified])
        return verified

    def ensure_sample_corpus(self, progress: Progress = None) -> Any:
        """Ingest the bundled sample corpus into an empty default collection; None when it holds documents."""
        from core.retrieval.ingest import ensure_sample_corpus

        return ensure_sample_corpus(self.store(), self.settings, progress)

    def ingest_uploads(
        self,
        files: list[tuple[str, bytes, dict[str, Any]]],
        *,
        progress: Progress = None,
        collection: str | None = None,
        replace: bool = False,
        user_id: str = "local",
        actor: str | None = None,
    ) -> Any:
        """Ingest uploaded files `(name, content, metadata defaults)` as one batch (a document id used by two
        uploads is refused for the second); one IngestReport with per-file errors that name the upload.

        An upload whose document id is already indexed with other content is refused unless `replace` is set.
        Every upload and replacement records who made it (`actor`, the reviewer's name; `user_id` when none is
        given) and the time in the document's provenance."""
        from core.retrieval.errors import IngestError
        from core.retrieval.ingest import FileResult, IngestReport, check_file_size, ingest_paths

        store = self.store(collection)
        total = len(files)
        results: dict[int, FileResult] = {}
        with tempfile.TemporaryDirectory(prefix="workbench-upload-") as tmp:
            written: dict[str, tuple[int, str, dict[str, Any]]] = {}
            for i, (name, content, defaults) in enumerate(files):
                display = Path(name).name or f"upload-{i + 1}"
                try:
                    check_file_size(display, len(content), self.settings)
                except IngestError as exc:
                    results[i] = FileResult(display, error=str(exc))
                    continue
                path = Path(tmp) / str(i) / display
                path.parent.mkdir()
                path.write_bytes(content)
                written[str(path)] = (i, display, defaults or {})

            def named(text: str) -> str:
                for tmp_path, (_, display, _) in written.items():
                    text = text.replace(tmp_path, display)
                return text

            refused = len(results)
            if progress is not None:
                for n, i in enumerate(sorted(results), start=1):
                    progress(n, total, results[i].path)
            report = ingest_paths(
                store,
                [Path(p) for p in written],
                settings=self.settings,
                defaults_for=lambda p: {**written[str(p)][2], "source_path": f"upload:{written[str(p)][1]}"},
                progress=None if progress is None else lambda done, _t, label: progress(refused + done, total, label),
                replace=replace,
                actor=actor or user_id,
                kind="upload",
            )
            for r in report.results:
                i, display, _ = written[r.path]
                results[i] = FileResult(display, r.doc_ids, r.chunks, named(r.error) if r.error else None)
        return IngestReport(tuple(results[i] for i in sorted(results)))
