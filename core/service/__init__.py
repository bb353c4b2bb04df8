"""The one API that the pages and the CLI use: start, resume, show, sessions, annotate, branch, export, uploads.

The Workbench is assembled from parts with one job each: `runs` (start, review, continue, branch), `sessions`
(read, list, annotate, export, delete, with per-user access) and `uploads` (the corpus), over `base` (wiring,
session entries and the run lock)."""

from core.inputs import InputError, validate_as_of, validate_question
from core.results import ProgressEvent, RunResult, SessionSummary
from core.service.base import SESSIONS_NS, RunLockLostError, SessionBusyError, SessionNotFoundError, thread_lock
from core.service.runs import Runs
from core.service.sessions import Sessions
from core.service.uploads import Uploads


class Workbench(Runs, Sessions, Uploads):
    """Facade over graph, store and persistence. Create once per process (the app caches it)."""


__all__ = [
    "SESSIONS_NS",
    "InputError",
    "ProgressEvent",
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
