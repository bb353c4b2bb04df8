"""Errors of the retrieval layer: bad input files, bad front matter, and a store another process holds."""

from __future__ import annotations


class RetrievalError(Exception):
    """Base class of every error the retrieval layer raises on purpose."""


class IngestError(RetrievalError):
    """One input file cannot be ingested; the message names the file and says why."""

    def __init__(self, source: str, reason: str):
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason


class CorpusFormatError(IngestError):
    """Front matter (or a .jsonl line's metadata) is malformed; the message names the file and the key."""

    def __init__(self, source: str, key: str, problem: str):
        super().__init__(source, f"key '{key}': {problem}")
        self.key = key
        self.problem = problem


class StoreError(RetrievalError):
    """The store itself cannot be used (locked, damaged, unreachable, closed): no file of a batch can go in, so
    ingest stops instead of reporting it once per file."""


class StoreLockedError(StoreError):
    """The embedded Qdrant shard is locked by another process (the app or the CLI)."""


class StoreDamagedError(StoreError):
    """The embedded Qdrant shard cannot be opened for a reason other than a lock (e.g. damaged files)."""


class StoreUnavailableError(StoreError):
    """The Qdrant server does not answer (or refuses the request); the message names QDRANT_URL and the reason."""


class InvalidCollectionError(RetrievalError, ValueError):
    """A collection name that is not an identifier (it would name a path outside the store's directory)."""


class StoreClosedError(StoreError):
    """A store was used after `close()`; open a new one with `open_store`."""


def shown_path(path: object) -> str:
    """A path as text that can be printed and stored: a file name that is not valid UTF-8 (Python keeps its bytes
    as lone surrogates) shows those bytes as \\xNN escapes."""
    text = str(path)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate that is no escaped byte
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
