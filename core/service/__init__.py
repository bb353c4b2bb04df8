"""The one API that the pages and the CLI use: start, resume, show, sessions, annotate, branch, export, and the
corpus (size, catalog, search, uploads).

The Workbench is assembled from parts with one job each: `runs` (start, review, continue, branch), `sessions`
(read, list, annotate, export, delete, with per-user access) and `corpus` (what the pages read of the corpus, and
uploads), over `base` (wiring, session entries, the run lock and its heartbeat). What the pages need of the
retrieval layer (document types, statuses, search modes, its error class) is re-exported here, so they import
nothing below the service."""

from core.documents import Catalog, Chunk, DocStatus, DocumentMeta, Hit, Provenance
from core.inputs import InputError, validate_as_of, validate_question
from core.results import ProgressEvent, RunResult, SessionSummary
from core.retrieval.errors import RetrievalError
from core.retrieval.query import SEARCH_MODES
from core.service.base import SESSIONS_NS, RunLockLostError, SessionBusyError, SessionNotFoundError, thread_lock
from core.service.corpus import SINGLE_USER, UPLOAD_TYPES, Corpus, CorpusStats, DocumentAccessError, Passage
from core.service.runs import Runs
from core.service.sessions import Sessions


class Workbench(Runs, Sessions, Corpus):
    """Facade over graph, store and persistence. Create once per process (the app caches it)."""


__all__ = [
    "SEARCH_MODES",
    "SESSIONS_NS",
    "SINGLE_USER",
    "UPLOAD_TYPES",
    "Catalog",
    "Chunk",
    "CorpusStats",
    "DocStatus",
    "DocumentAccessError",
    "DocumentMeta",
    "Hit",
    "InputError",
    "Passage",
    "ProgressEvent",
    "Provenance",
    "RetrievalError",
    "RunLockLostError",
    "RunResult",
    "SessionBusyError",
    "SessionNotFoundError",
    "SessionSummary",
    "Workbench",
    "thread_lock",
    "validate_as_of",
    "validate_question",
]
