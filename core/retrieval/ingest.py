"""Batch ingest: expand paths, read and chunk each file, embed in large batches, upsert per document.

A bad file is reported (FileResult.error) while the rest of the batch still goes in; `IngestReport.summary()`
gives the closing line. `ensure_sample_corpus` fills an empty store with the bundled sample corpus on first start.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.config import Settings, get_settings
from core.domain.documents import ArrivalKind, Chunk, DocumentMeta, Provenance
from core.domain.instructions import has_instructions
from core.retrieval.errors import IngestError, StoreError, shown_path
from core.retrieval.readers import SUPPORTED_SUFFIXES, ParsedDocument, read_file
from core.retrieval.store import Store, point_payload

ProgressCallback = Callable[[int, int, str], None]
"""progress(done, total, label): called as each file starts and as it ends, with the number of files finished so far
and the file's name; inside a large file every few thousand lines read or documents checked, and between embedding
batches (label `name (n of m documents)`)."""

SAMPLE_CORPUS_DIR = Path(__file__).resolve().parent.parent / "corpus"
PROVENANCE_KEYS = ("replaced_by", "replaced_at")
"""`DocumentMeta.extra` keys recording who replaced a document that was already indexed, and when (UTC)."""
EMBED_BATCH_CHUNKS = 64
"""Chunks embedded per model call across files: per-file calls of a few chunks cost about twice the CPU; 64 keeps
ingest near raw encode speed while progress still moves every few files."""
CHECK_PROGRESS_DOCS = 1_000
"""Documents of one file checked against the store between two progress calls."""


@dataclass(frozen=True)
class FileResult:
    """Outcome of one input file."""

    path: str
    doc_ids: tuple[str, ...] = ()
    chunks: int = 0
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the file was indexed."""
        return self.error is None


@dataclass(frozen=True)
class IngestReport:
    """Per-file outcomes of one ingest batch."""

    results: tuple[FileResult, ...]

    @property
    def succeeded(self) -> list[FileResult]:
        """Files that were indexed."""
        return [r for r in self.results if r.ok]

    @property
    def failed(self) -> list[FileResult]:
        """Files that were refused, each with its error."""
        return [r for r in self.results if not r.ok]

    @property
    def documents(self) -> int:
        """Documents indexed."""
        return sum(len(r.doc_ids) for r in self.results)

    @property
    def chunks(self) -> int:
        """Chunks (points) written."""
        return sum(r.chunks for r in self.results)

    def summary(self) -> str:
        """One closing line, e.g. 'ingested 19 documents (84 passages) from 19 files; 1 file failed'."""
        files = len(self.succeeded)
        line = (
            f"ingested {self.documents} document{'s' * (self.documents != 1)} ({self.chunks} passages) "
            f"from {files} file{'s' * (files != 1)}"
        )
        if self.failed:
            n = len(self.failed)
            line += f"; {n} file{'s' * (n != 1)} failed"
        return line


def expand_paths(paths: Iterable[str | Path]) -> tuple[list[Path], list[FileResult]]:
    """Files to ingest (directories expanded recursively to supported files, sorted) and errors for bad paths."""
    files: list[Path] = []
    errors: list[FileResult] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.is_file()
                and p.suffix.lower() in SUPPORTED_SUFFIXES
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
            if not found:
                kinds = ", ".join(SUPPORTED_SUFFIXES)
                shown = shown_path(path)
                errors.append(FileResult(shown, error=f"{shown}: no {kinds} files in this directory"))
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            errors.append(FileResult(shown_path(path), error=f"{shown_path(path)}: no such file or directory"))
    return files, errors


def ingest_paths(
    store: Store,
    paths: Iterable[str | Path],
    defaults: Mapping[str, Any] | None = None,
    settings: Settings | None = None,
    progress: ProgressCallback | None = None,
    defaults_for: Callable[[Path], Mapping[str, Any] | None] | None = None,
    replace: bool = False,
    actor: str = "local",
    kind: ArrivalKind = "path",
) -> IngestReport:
    """Ingest files and directories into `store`.

    `defaults` (a DocumentMeta-like mapping, e.g. {"jurisdiction": "XY"}) fills keys the files do not declare;
    files without front matter need at least a jurisdiction from it; `defaults_for(path)`, when given, supplies
    them per file instead (uploads). A document id seen twice in one batch is an error for the second file, and
    a file over `settings.max_upload_mb` is refused unread. A document id already in the store is refused for
    its file unless the content is the same (idempotent re-ingest) or `replace` is set; a replacement records
    `actor` and the time in the document's `extra` (PROVENANCE_KEYS), so a curated document never changes silently.

    Each new or replacing document records its `Provenance`: `kind` (`path` or `upload`; files of the bundled
    sample corpus are always `bundled`), `actor`, the time and its source (see `arrival`).
    """
    settings = settings or get_settings()
    files, results = expand_paths(paths)
    batch = _Batch(store, len(files), progress)
    seen: dict[str, str] = {}
    for path in files:
        name = shown_path(path)
        batch.tick(Path(name).name)
        try:
            check_file_size(name, path.stat().st_size, settings)
            given = defaults_for(path) if defaults_for is not None else defaults
            on_line = batch.ticker(Path(name).name, "line")
            docs = read_file(path, given, settings.chunk_words, settings.chunk_overlap_words, on_line)
            docs = [ParsedDocument(arrival(d.meta, path, kind, actor, d.chunks), d.chunks) for d in docs]
            _claim_ids(name, docs, seen)
            _check_storable(name, docs)
            docs, new_ids = _check_existing(store, name, docs, replace, actor, batch)
        except StoreError:
            raise
        except Exception as exc:  # anything wrong with one file fails that file alone
            batch.fail(name, _reason(name, exc))
            continue
        batch.add(name, docs, new_ids)
    batch.flush()
    results.extend(batch.results)
    order = {shown_path(p): i for i, p in enumerate(files)}
    return IngestReport(tuple(sorted(results, key=lambda r: order.get(r.path, -1))))


class _Batch:
    """Documents queued for the next embedding call across files, and the outcome of each file so far.

    A failed embedding or write is retried file by file, so it fails only the file it comes from; that file's new
    documents are deleted again, and the rest of the batch goes in."""

    def __init__(self, store: Store, total: int, progress: ProgressCallback | None):
        self.store = store
        self.total = total
        self.progress = progress
        self.done = 0
        self.results: list[FileResult] = []
        self.queued: list[tuple[str, ParsedDocument]] = []
        self.queued_chunks = 0
        self.finished: list[tuple[str, list[ParsedDocument]]] = []
        self.new_ids: dict[str, list[str]] = {}
        self.failed: dict[str, str] = {}

    def tick(self, label: str) -> None:
        """Report progress: files finished so far, and what is under way."""
        if self.progress is not None:
            self.progress(self.done, self.total, label)

    def ticker(self, label: str, what: str) -> Callable[[int], None]:
        """A callback(n) that reports `label (what n)` as progress (e.g. the lines read of one large file)."""

        def tick(n: int) -> None:
            self.tick(f"{label} ({what} {n:,})")

        return tick

    def fail(self, name: str, error: str) -> None:
        """A file refused before any of it was queued."""
        self.results.append(FileResult(name, error=error))
        self.done += 1
        self.tick(Path(name).name)

    def add(self, name: str, docs: list[ParsedDocument], new_ids: list[str]) -> None:
        """Queue a file's documents, embedding and writing whenever a batch is full."""
        self.new_ids[name] = new_ids
        for n, d in enumerate(docs, start=1):
            if name in self.failed:  # an earlier batch of this file could not be stored
                break
            self.queued.append((name, d))
            self.queued_chunks += len(d.chunks)
            if self.queued_chunks >= EMBED_BATCH_CHUNKS:
                self.flush()
                if n < len(docs):  # a large .jsonl file: progress within it
                    self.tick(f"{Path(name).name} ({n:,} of {len(docs):,} documents)")
        self.finished.append((name, docs))

    def flush(self) -> None:
        """Embed and write what is queued; record the files whose documents are all written (or failed)."""
        if self.queued:
            self._write()
        for name, docs in self.finished:
            if name in self.failed:
                self.results.append(FileResult(name, error=self.failed[name]))
            else:
                self.results.append(FileResult(name, tuple(d.meta.id for d in docs), sum(len(d.chunks) for d in docs)))
            self.done += 1
            self.tick(Path(name).name)
        self.finished.clear()

    def _write(self) -> None:
        try:
            self.store.upsert_documents([(d.meta, d.chunks) for _, d in self.queued])
        except StoreError:
            raise
        except Exception:  # find the file it comes from: write the batch again file by file
            by_file: dict[str, list[ParsedDocument]] = {}
            for name, d in self.queued:
                by_file.setdefault(name, []).append(d)
            for name, docs in by_file.items():
                try:
                    self.store.upsert_documents([(d.meta, d.chunks) for d in docs])
                except StoreError:
                    raise
                except Exception as exc:
                    self.failed[name] = self._undo(name, exc)
        self.queued.clear()
        self.queued_chunks = 0

    def _undo(self, name: str, exc: Exception) -> str:
        """Delete the documents the failed file added (it fails whole); the file's error message."""
        reason = f"{name}: could not be stored ({_why(exc)})"
        try:
            for doc_id in self.new_ids.get(name, []):
                self.store.delete_document(doc_id)
        except Exception as undo:
            return f"{reason}; some of its documents may be indexed ({_why(undo)}): ingest the file again"
        return reason


def _reason(name: str, exc: Exception) -> str:
    """The per-file message of a failure while reading or checking a file."""
    if isinstance(exc, IngestError):
        return str(exc)
    if isinstance(exc, RecursionError):
        return f"{name}: nested too deeply to read"
    if isinstance(exc, OSError):
        return f"{name}: cannot be read ({exc.strerror or exc})"
    return f"{name}: cannot be read ({_why(exc)})"


def _why(exc: BaseException) -> str:
    """An exception as `Type: first line of its message`, shortened."""
    lines = str(exc).strip().splitlines()
    text = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
    return text if len(text) <= 300 else text[:299] + "…"


def _check_storable(name: str, docs: Sequence[ParsedDocument]) -> None:
    """Refuse a document whose text or metadata cannot be stored as UTF-8 JSON (a lone surrogate, e.g. from a
    `\\udce9` escape in a .jsonl line), before anything of the batch is written."""
    for d in docs:
        for c in d.chunks:
            try:
                json.dumps(point_payload(d.meta, c), ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError as exc:
                bad = exc.object[exc.start : exc.end]
                raise IngestError(
                    name,
                    f"document {d.meta.id!r} holds text that is not valid Unicode (the lone surrogate {bad!r}); "
                    "fix the source",
                ) from None


def ensure_sample_corpus(
    store: Store, settings: Settings | None = None, progress: ProgressCallback | None = None
) -> IngestReport | None:
    """On first start: ingest the bundled sample corpus (core/corpus/*.md) when the store is empty.

    Returns the report, or None when the store already holds documents.
    """
    if store.count() > 0:
        return None
    return ingest_paths(store, sorted(SAMPLE_CORPUS_DIR.glob("*.md")), settings=settings, progress=progress)


def arrival(
    meta: DocumentMeta, path: Path, kind: ArrivalKind, actor: str, chunks: Sequence[Chunk] = ()
) -> DocumentMeta:
    """`meta` with the provenance of this ingest, and the passages of `chunks` that instruct a model. The bundled
    corpus is verified; a path ingest is verified unless its front matter says `verified: false`; an upload is
    never verified by its own content."""
    now = datetime.now(UTC).replace(microsecond=0)
    if path.resolve().is_relative_to(SAMPLE_CORPUS_DIR):
        found = Provenance(kind="bundled", at=now, source=meta.source_path, verified=True)
    elif kind == "upload":
        found = Provenance(kind="upload", actor=actor, at=now, source=meta.source_path)
    else:
        verified = meta.extra.get("verified") is not False
        found = Provenance(
            kind="path",
            actor=actor,
            at=now,
            source=meta.source_path,
            verified=verified,
            verified_by=actor if verified else None,
            verified_at=now if verified else None,
        )
    instructed = tuple(c.chunk_id for c in chunks if has_instructions(c.text))
    return meta.model_copy(update={"provenance": found.model_copy(update={"instructed": instructed})})


def check_file_size(source: str, size: int, settings: Settings) -> None:
    """Refuse a file larger than the upload limit (`WORKBENCH_MAX_UPLOAD_MB`) before reading it."""
    limit = settings.max_upload_mb * 1024 * 1024
    if size > limit:
        raise IngestError(
            source,
            f"file is too large ({size / 1024 / 1024:.1f} MB; the limit is {settings.max_upload_mb} MB, "
            "WORKBENCH_MAX_UPLOAD_MB): split it or raise the limit",
        )


def _check_existing(
    store: Store, name: str, docs: list[ParsedDocument], replace: bool, actor: str, batch: _Batch
) -> tuple[list[ParsedDocument], list[str]]:
    """The file's documents, with provenance on those that replace an indexed one, and the ids that are new to the
    store; IngestError naming the file and the id when a different document with that id is indexed and `replace`
    is not set."""
    out = []
    new_ids = []
    for n, d in enumerate(docs, start=1):
        if n % CHECK_PROGRESS_DOCS == 0:
            batch.tick(f"{Path(name).name} (checking {n:,} of {len(docs):,} documents)")
        existing = store.get_document(d.meta.id)
        if existing is None:
            out.append(d)
            new_ids.append(d.meta.id)
            continue
        if _same_content(existing, store, d):  # idempotent; how it first arrived and earlier replacements stay
            kept = {k: existing.extra[k] for k in PROVENANCE_KEYS if k in existing.extra}
            update = {"extra": {**d.meta.extra, **kept}, "provenance": existing.provenance}
            out.append(ParsedDocument(d.meta.model_copy(update=update), d.chunks))
            continue
        if not replace:
            raise IngestError(
                name,
                f"document id {d.meta.id!r} is already in the corpus with other content "
                f"(from {existing.source_path or 'an earlier ingest'}); nothing was changed. To replace it, "
                "ingest again with the replace option (`python -m core ingest --replace`, or 'Replace existing "
                "documents' on the Corpus page)",
            )
        now = datetime.now(UTC).isoformat(timespec="seconds")
        extra = {**d.meta.extra, "replaced_by": actor, "replaced_at": now}
        out.append(ParsedDocument(d.meta.model_copy(update={"extra": extra}), d.chunks))
    return out, new_ids


def _same_content(existing: DocumentMeta, store: Store, new: ParsedDocument) -> bool:
    """Whether `new` is what is indexed already, apart from where it was read from and its provenance."""

    def comparable(meta: DocumentMeta) -> dict[str, Any]:
        data = meta.model_dump(mode="json", exclude={"source_path", "provenance"})
        data["extra"] = {k: v for k, v in data["extra"].items() if k not in PROVENANCE_KEYS}
        return data

    if comparable(existing) != comparable(new.meta):
        return False
    indexed = [(c.text, c.heading, c.metadata) for c in store.chunks(existing.id)]
    return indexed == [(c.text, c.heading, c.metadata) for c in new.chunks]


def _claim_ids(name: str, docs: Sequence[ParsedDocument], seen: dict[str, str]) -> None:
    """Record the file's document ids for this batch; a repeat is an error naming the earlier file."""
    for d in docs:
        if d.meta.id in seen:
            earlier = seen[d.meta.id]
            raise IngestError(name, f"duplicate document id {d.meta.id!r} (already in {earlier} in this batch)")
    for d in docs:
        seen[d.meta.id] = name
