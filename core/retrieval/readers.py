"""Read one corpus file (.md, .txt, .pdf, .jsonl) into documents: metadata plus chunks.

Markdown may carry YAML front matter (see corpus_format). Files without it take their metadata from the
caller's `defaults` (a DocumentMeta-like mapping): id from the file stem, title from the first heading or the
stem, and a jurisdiction the caller must supply. Every failure is an IngestError naming the file.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.domain import safe_json
from core.domain.documents import Chunk, DocumentMeta
from core.retrieval.chunking import chunk_text, first_heading
from core.retrieval.corpus_format import KNOWN_KEYS, MAX_ID_CHARS, parse_document_meta, split_front_matter, too_long
from core.retrieval.errors import CorpusFormatError, IngestError, shown_path

MAX_TEXT_CHARS = 2_000_000
"""Cap on the text of one document (a .md/.txt/.pdf file after extraction, or one document of a .jsonl file):
larger inputs are refused rather than half-indexed."""

MAX_PASSAGE_CHARS = 200_000
"""Cap on the text of one .jsonl passage (one line)."""

MAX_PDF_PAGES = 5_000
MAX_PDF_CONTENT_BYTES = 256_000_000
"""Caps on a PDF's page count and on its decompressed page content: a few kilobytes of compressed streams can
expand to gigabytes (a decompression bomb), so such a file is refused before it ties up a worker for minutes."""

PROGRESS_LINES = 2_000
"""Lines of a .jsonl file between two progress calls (`read_file(on_line=...)`)."""

SUPPORTED_SUFFIXES = (".md", ".markdown", ".txt", ".pdf", ".jsonl")
_JSONL_STRUCTURAL = ("id", "text", "doc_id")


@dataclass(frozen=True)
class ParsedDocument:
    """A document ready to index."""

    meta: DocumentMeta
    chunks: list[Chunk]


def read_file(
    path: Path,
    defaults: Mapping[str, Any] | None = None,
    chunk_words: int = 180,
    overlap_words: int = 30,
    on_line: Callable[[int], None] | None = None,
) -> list[ParsedDocument]:
    """Parse and chunk one file; a .jsonl file may hold several documents. `on_line(n)`, when given, is called
    every few thousand lines of a .jsonl file (ingest progress within one large file)."""
    source = readable_name(path)
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise IngestError(source, f"unsupported file type {suffix or '(none)'!r}; use .md, .txt, .pdf or .jsonl")
    if suffix == ".jsonl":
        return _read_jsonl(path, defaults or {}, chunk_words, overlap_words, on_line)
    if suffix == ".pdf":
        text, pdf_title = _pdf_text(path)
        front = None
        derived = {"title": pdf_title or path.stem}
    else:
        text = _utf8_text(path)
        front, text = split_front_matter(text, source) if suffix != ".txt" else (None, text)
        derived = {"title": (first_heading(text) if suffix != ".txt" else None) or path.stem}
    if not text.strip():
        what = "the file is empty apart from front matter" if front else "the file is empty"
        raise IngestError(source, f"no text to index ({what})")
    if front is None:
        data = {"id": stem_id(path), **derived, **(defaults or {})}
        if not data.get("jurisdiction"):
            raise CorpusFormatError(
                source,
                "jurisdiction",
                "missing: a file without front matter needs a jurisdiction from the caller "
                "(e.g. `python -m core ingest --jurisdiction XY ...`)",
            )
    else:
        data = {**(defaults or {}), **front}
    meta = parse_document_meta({**data, "source_path": (defaults or {}).get("source_path") or source}, source)
    chunks = [
        Chunk(doc_id=meta.id, chunk_index=i, text=p.text, heading=p.heading)
        for i, p in enumerate(chunk_text(text, chunk_words, overlap_words))
    ]
    return [ParsedDocument(meta, chunks)]


def readable_name(path: Path) -> str:
    """The path as text; IngestError when the file name is not valid UTF-8 (it could be neither stored as the
    document's source nor printed)."""
    shown = shown_path(path)
    if shown != str(path):
        raise IngestError(shown, "the file name is not valid UTF-8 text: rename the file")
    return shown


def stem_id(path: Path) -> str:
    """A document id from a file name: the stem with anything but letters, digits, '.', '_', '-' turned to '-'."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", path.stem).strip("-._") or "document"


def _utf8_text(path: Path) -> str:
    raw = path.read_bytes()
    if len(raw) > 4 * MAX_TEXT_CHARS:
        limit = f"the limit is {MAX_TEXT_CHARS:,} characters"
        raise IngestError(str(path), f"file is too large ({len(raw):,} bytes; {limit})")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(
            str(path), f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); re-save the file as UTF-8"
        ) from None
    _check_size(str(path), len(text))
    return text


def _check_size(source: str, chars: int) -> None:
    if chars > MAX_TEXT_CHARS:
        limit = f"the limit is {MAX_TEXT_CHARS:,}"
        raise IngestError(source, f"text is too large ({chars:,} characters; {limit}); split the file")


class _PdfNotes(logging.Handler):
    """pypdf's logged warnings ("EOF marker not found", ...) kept for the PDF this thread is reading, so they go
    into the file's error message instead of onto stderr (with a handler on the `pypdf` logger, logging's
    last-resort printer stays quiet)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self._local = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        notes = getattr(self._local, "notes", None)
        if notes is not None and len(notes) < 5:
            notes.append(record.getMessage().strip())

    @contextmanager
    def collect(self) -> Iterator[list[str]]:
        """The warnings pypdf logs in this thread inside the block."""
        notes: list[str] = []
        self._local.notes = notes
        try:
            yield notes
        finally:
            self._local.notes = None


_PDF_NOTES = _PdfNotes()
logging.getLogger("pypdf").addHandler(_PDF_NOTES)


def _pdf_text(path: Path) -> tuple[str, str | None]:
    """Extracted text and metadata title of a PDF; refuses corrupt, encrypted, text-less or enormous files, with
    what pypdf warned about on the way."""
    with _PDF_NOTES.collect() as notes:
        try:
            return _read_pdf(path)
        except IngestError as exc:
            if not notes:
                raise
            said = "; ".join(dict.fromkeys(notes))
            raise IngestError(exc.source, f"{exc.reason} (pypdf: {said})") from None


def _read_pdf(path: Path) -> tuple[str, str | None]:
    from pypdf import PdfReader

    source = str(path)
    pages: list[str] = []
    total = 0
    try:
        reader = PdfReader(path)
        if reader.is_encrypted and not reader.decrypt(""):
            raise IngestError(source, "PDF is encrypted; save an unencrypted copy and ingest that")
        if len(reader.pages) > MAX_PDF_PAGES:
            raise IngestError(source, f"PDF has {len(reader.pages):,} pages; the limit is {MAX_PDF_PAGES:,}: split it")
        content = 0
        for number, page in enumerate(reader.pages, start=1):
            content += _content_bytes(page)
            if content > MAX_PDF_CONTENT_BYTES:
                raise IngestError(
                    source,
                    f"PDF page content expands to over {MAX_PDF_CONTENT_BYTES // 1_000_000:,} MB by page "
                    f"{number} (a decompression bomb?); refused",
                )
            text = page.extract_text() or ""
            total += len(text)
            _check_size(source, total)
            pages.append(text)
        title = reader.metadata.title if reader.metadata else None
    except IngestError:
        raise
    except Exception as exc:  # pypdf raises many exception types on malformed input
        raise IngestError(source, f"not a readable PDF ({type(exc).__name__}: {exc})") from None
    text = "\n\n".join(pages)
    if not text.strip():
        raise IngestError(source, "the PDF has no extractable text (scanned images?); OCR it first")
    return text, (title.strip() or None) if isinstance(title, str) else None


def _content_bytes(page: Any) -> int:
    """Decompressed size of a page's content streams (pypdf keeps the decoded data, so extraction reuses it)."""
    contents = page.get("/Contents")
    if contents is None:
        return 0
    contents = contents.get_object()
    streams = contents if isinstance(contents, list) else [contents]
    return sum(len(s.get_object().get_data()) for s in streams if hasattr(s.get_object(), "get_data"))


def _read_jsonl(
    path: Path,
    defaults: Mapping[str, Any],
    chunk_words: int,
    overlap_words: int,
    on_line: Callable[[int], None] | None = None,
) -> list[ParsedDocument]:
    """One passage per line: `id`, `text`, optional `doc_id` (passages sharing it form one document), optional
    document metadata (`title`, `jurisdiction`, ... taken from the document's first line); any other key is
    passage metadata kept in the chunk payload.

    Read line by line: the caps are per passage (MAX_PASSAGE_CHARS) and per document (MAX_TEXT_CHARS), not per
    file, so a large corpus goes in as one file (the file size is bounded by WORKBENCH_MAX_UPLOAD_MB)."""
    source = str(path)
    docs: dict[str, tuple[dict[str, Any], list[Chunk]]] = {}
    sizes: dict[str, int] = {}
    for lineno, line in _jsonl_lines(path):
        if on_line is not None and lineno % PROGRESS_LINES == 0:
            on_line(lineno)
        where = f"{source}:{lineno}"
        row = _jsonl_row(line, where, lineno)
        pid, text = row.get("id"), row.get("text")
        if not isinstance(pid, (str, int)) or isinstance(pid, bool) or not str(pid).strip():
            raise CorpusFormatError(where, "id", "missing or not a string/integer passage id")
        if len(str(pid)) > MAX_ID_CHARS:
            raise CorpusFormatError(where, "id", f"{too_long(str(pid), MAX_ID_CHARS)}; use a shorter passage id")
        if not isinstance(text, str) or not text.strip():
            raise CorpusFormatError(where, "text", "missing or empty passage text")
        if len(text) > MAX_PASSAGE_CHARS:
            raise CorpusFormatError(
                where,
                "text",
                f"passage is {len(text):,} characters long; the limit is {MAX_PASSAGE_CHARS:,} per passage",
            )
        doc_id = str(row.get("doc_id") or pid).strip()
        if len(doc_id) > MAX_ID_CHARS:
            raise CorpusFormatError(where, "doc_id", f"{too_long(doc_id, MAX_ID_CHARS)}; use a shorter document id")
        sizes[doc_id] = sizes.get(doc_id, 0) + len(text)
        if sizes[doc_id] > MAX_TEXT_CHARS:
            raise IngestError(
                where,
                f"document {doc_id!r} is over {MAX_TEXT_CHARS:,} characters of text by line "
                f"{lineno}; split it into several documents (doc_id)",
            )
        if doc_id not in docs:
            meta_keys = {k: v for k, v in row.items() if k in KNOWN_KEYS and k != "id"}
            docs[doc_id] = (
                {
                    "title": doc_id,
                    **defaults,
                    **meta_keys,
                    "id": doc_id,
                    "source_path": defaults.get("source_path") or source,
                },
                [],
            )
        data, chunks = docs[doc_id]
        extra = {k: v for k, v in row.items() if k not in KNOWN_KEYS and k not in _JSONL_STRUCTURAL}
        for passage in chunk_text(text, chunk_words, overlap_words):
            chunks.append(
                Chunk(
                    doc_id=doc_id,
                    chunk_index=len(chunks),
                    text=passage.text,
                    heading=passage.heading,
                    metadata={"passage_id": str(pid), **extra},
                )
            )
    if not docs:
        raise IngestError(source, "no passages (the file is empty)")
    out = []
    for data, chunks in docs.values():
        if not data.get("jurisdiction"):
            raise CorpusFormatError(
                source,
                "jurisdiction",
                f"missing for document {data['id']!r}: give it on the document's first line "
                "or as a default from the caller",
            )
        out.append(ParsedDocument(parse_document_meta(data, source), chunks))
    return out


def _jsonl_lines(path: Path) -> Iterator[tuple[int, str]]:
    """The non-blank lines of a UTF-8 file with their numbers, read one at a time (a BOM on line 1 is dropped)."""
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise IngestError(
                    f"{path}:{lineno}",
                    f"line {lineno} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at column "
                    f"{exc.start + 1}); re-save the file as UTF-8",
                ) from None
            if line.strip():
                yield lineno, line


def _jsonl_row(line: str, where: str, lineno: int) -> dict[str, Any]:
    """One line as a JSON object; IngestError for malformed or too deeply nested JSON."""
    try:
        row = safe_json.loads(line)
    except safe_json.JsonDepthError as exc:
        raise IngestError(where, f"line {lineno}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise IngestError(where, f"line {lineno} is not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(row, dict):
        raise IngestError(where, f"line {lineno} must be a JSON object with 'id' and 'text'")
    return row
