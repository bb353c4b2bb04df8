"""The one API that the pages and the CLI use: start, resume, show, sessions, annotate, branch, export, and the
corpus (size, catalog, search, uploads).

The Workbench is assembled from parts with one job each: `runs` (start, review, continue, branch), `sessions`
(read, list, export, delete, with per-user access), `amend` (annotate, confirm an added deficiency, strike a claim,
after the run), `corpus` (what the pages read of the corpus, and
uploads) and `staging` (board edits kept until the review is answered), over `base` (wiring, session entries, the run lock and its heartbeat). What the pages need of the
retrieval layer (document types, statuses, search modes, its error class) and the stop reasons' short labels are
re-exported here, so they import nothing below the service."""

from core.domain.answer import claim_id
from core.domain.documents import Catalog, Chunk, DocStatus, DocumentMeta, Hit, Provenance
from core.domain.inputs import InputError, validate_as_of, validate_question
from core.domain.outcome import Outcome, SessionStatus
from core.domain.results import ProgressEvent, RunResult, SessionSummary
from core.domain.stop_reasons import REASON_CODES, reason_label
from core.retrieval.errors import RetrievalError
from core.retrieval.query import SEARCH_MODES
from core.service.amend import Amendments
from core.service.base import SESSIONS_NS, RunLockLostError, SessionBusyError, SessionNotFoundError, thread_lock
from core.service.corpus import SINGLE_USER, UPLOAD_TYPES, Corpus, CorpusStats, DocumentAccessError, Passage
from core.service.runs import Runs
from core.service.staging import StagedEdits, Staging


class Workbench(Runs, Amendments, Corpus, Staging):
    """Facade over graph, store and persistence. Create once per process (the app caches it)."""


__all__ = [
    "REASON_CODES",
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
    "Outcome",
    "Passage",
    "ProgressEvent",
    "Provenance",
    "RetrievalError",
    "RunLockLostError",
    "RunResult",
    "SessionBusyError",
    "SessionNotFoundError",
    "SessionStatus",
    "SessionSummary",
    "StagedEdits",
    "Workbench",
    "claim_id",
    "reason_label",
    "thread_lock",
    "validate_as_of",
    "validate_question",
]
