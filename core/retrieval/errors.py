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


class StoreLockedError(RetrievalError):
    """The embedded Qdrant shard is locked by another process (the app or the CLI)."""


class StoreDamagedError(RetrievalError):
    """The embedded Qdrant shard cannot be opened for a reason other than a lock (e.g. damaged files)."""


class StoreUnavailableError(RetrievalError):
    """The Qdrant server does not answer (or refuses the request); the message names QDRANT_URL and the reason."""


class InvalidCollectionError(RetrievalError, ValueError):
    """A collection name that is not an identifier (it would name a path outside the store's directory)."""


class StoreClosedError(RetrievalError):
    """A store was used after `close()`; open a new one with `open_store`."""
