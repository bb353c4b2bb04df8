"""Corpus commands of `python -m core`: `ingest` and `search` (docs/cli.md).

Input is validated before the store or the embedding model is opened, so bad input fails fast with exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.cli.errors import CliError
from core.config import Settings, get_settings
from core.domain import safe_json
from core.domain.documents import Hit, SearchFilter

if TYPE_CHECKING:
    from core.retrieval.ingest import IngestReport
    from core.retrieval.store import Store

MAX_K = 100
SNIPPET_CHARS = 240
SHOWN_IDS = 5
PROGRESS_EVERY_S = 5.0
"""Longest silence of an ingest on stderr: the progress line is repeated at least this often."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `ingest` and `search` sub-commands."""
    ingest = sub.add_parser("ingest", help="index corpus files (.md, .txt, .pdf, .jsonl) or directories")
    ingest.add_argument("paths", nargs="+", metavar="PATH", help="files or directories (searched recursively)")
    ingest.add_argument("--collection", help="collection name (default: WORKBENCH_COLLECTION)")
    ingest.add_argument(
        "--reset",
        action="store_true",
        help="rebuild the collection from these files only; the new collection replaces the old one only when "
        "every file went in (the old corpus stays otherwise, exit 2)",
    )
    ingest.add_argument(
        "--allow-partial",
        action="store_true",
        help="with --reset: rebuild from the files that went in even when others failed (exit 1)",
    )
    ingest.add_argument(
        "--replace",
        action="store_true",
        help="replace documents whose id is already indexed with other content (recorded with who and when)",
    )
    ingest.add_argument("--jurisdiction", help="jurisdiction for files without front matter (front matter always wins)")
    ingest.set_defaults(handler=run_ingest)

    search = sub.add_parser("search", help="hybrid search over the corpus")
    search.add_argument("text", nargs="?", metavar="TEXT", help="the query")
    search.add_argument(
        "--queries",
        metavar="FILE.jsonl",
        help='many queries, one {"id","text"} per line; prints one JSON line {"id","hits"} per query',
    )
    search.add_argument("--collection", help="collection name (default: WORKBENCH_COLLECTION)")
    search.add_argument("-k", type=int, default=10, help="number of hits (default 10)")
    search.add_argument("--jurisdiction", action="append", default=[], help="only these jurisdictions (repeatable)")
    search.add_argument("--as-of", metavar="YYYY-MM-DD", help="leave out documents not yet effective at this date")
    search.add_argument("--mode", choices=("hybrid", "dense", "sparse"), default="hybrid", help="default hybrid")
    search.add_argument("--json", action="store_true", help="print the ranked hits as JSON")
    search.set_defaults(handler=run_search)


def run_ingest(args: argparse.Namespace) -> int:
    """`ingest PATH...`: one line per file, the summary last; exit 1 when some files failed (the others are
    ingested), 2 when none could be ingested. With `--reset` the rebuilt collection is swapped in only when every
    file went in (or some did and `--allow-partial` is given); otherwise the old corpus stays and the exit is 2."""
    from core.retrieval.errors import RetrievalError
    from core.retrieval.ingest import expand_paths, ingest_paths

    settings = get_settings()
    collection = _collection(args.collection)
    if args.allow_partial and not args.reset:
        raise CliError("--allow-partial only applies to --reset (a plain ingest always keeps the files that went in)")
    files, _ = expand_paths(args.paths)
    if not files:
        missing = ", ".join(args.paths)
        raise CliError(f"nothing to ingest: no .md, .txt, .pdf or .jsonl files at {missing}")
    defaults = {"jurisdiction": args.jurisdiction} if args.jurisdiction else None
    progress = _Progress(sys.stderr.isatty())

    def ingest(target: Store) -> IngestReport:
        return ingest_paths(
            target,
            args.paths,
            defaults=defaults,
            settings=settings,
            replace=args.replace,
            actor=f"cli:{_user()}",
            progress=progress,
        )

    try:
        store = _open(settings, collection)
        report, kept = _rebuild(store, ingest, args.allow_partial) if args.reset else (ingest(store), False)
    except RetrievalError as exc:
        raise CliError(str(exc)) from None
    finally:
        progress.end()
    for r in report.results:
        if r.ok:
            print(f"ok     {r.path} -> {_ids(r.doc_ids)} ({r.chunks} passages)")
        else:
            print(f"error  {r.error}")
    summary = report.summary() if not kept else f"{report.summary()}; the rebuild was discarded"
    print(f"{summary}; collection '{store.collection}' now holds {store.count()} passages")
    if not report.succeeded:
        raise CliError("no file could be ingested (see the errors above)")
    n, total = len(report.failed), len(report.results)
    if kept:
        raise CliError(
            f"--reset kept the old corpus: {n} of {total} files failed (see above); fix them, or add "
            "--allow-partial to rebuild from the files that went in"
        )
    if args.reset and report.failed and not args.allow_partial:  # a store without an atomic rebuild
        raise CliError(
            f"--reset could not keep the old corpus (a Qdrant server collection is emptied before it is rebuilt): "
            f"it holds the files that went in; {n} of {total} files failed (see above)"
        )
    return 1 if report.failed else 0


def _ids(doc_ids: tuple[str, ...]) -> str:
    """A file's document ids for its `ok` line; a .jsonl of thousands of documents names the first few."""
    if len(doc_ids) <= SHOWN_IDS:
        return ", ".join(doc_ids)
    return f"{', '.join(doc_ids[:SHOWN_IDS])} and {len(doc_ids) - SHOWN_IDS:,} more"


class _Discarded(Exception):
    """Raised inside a rebuild so the staged collection is discarded; carries the report."""

    def __init__(self, report: IngestReport):
        super().__init__("rebuild discarded")
        self.report = report


def _rebuild(store: Store, ingest: Callable[[Store], IngestReport], allow_partial: bool) -> tuple[IngestReport, bool]:
    """`--reset`: ingest into a collection built aside, swapped in only when every file went in (with
    `allow_partial`, when at least one did). The report, and whether the old corpus was kept (only a store
    with an atomic rebuild can keep it)."""
    if not store.atomic_rebuild:
        with store.staging() as staged:
            return ingest(staged), False
    try:
        with store.staging() as staged:
            report = ingest(staged)
            if not report.succeeded or (report.failed and not allow_partial):
                raise _Discarded(report)
    except _Discarded as discarded:
        return discarded.report, True
    return report, False


class _Progress:
    """Ingest progress on stderr. On a terminal one line is rewritten in place as files go; elsewhere (a log, a
    pipe) a line is printed every PROGRESS_EVERY_S. A background ticker repeats the latest state at least every
    PROGRESS_EVERY_S whatever one step takes (a .jsonl of 100,000 lines, a slow PDF), so an ingest is never
    silent for long; one that ends sooner prints nothing off a terminal."""

    def __init__(self, tty: bool) -> None:
        self.tty = tty
        self.state = "starting"
        self.started = self.last = time.monotonic()
        self.drawn = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick, name="ingest-progress", daemon=True)
        self._ticker.start()

    def __call__(self, done: int, total: int, label: str) -> None:
        with self._lock:
            self.state = f"{done}/{total} files: {label}"
            if self.tty:
                self._draw()

    def _tick(self) -> None:
        while not self._stop.wait(PROGRESS_EVERY_S / 20):
            with self._lock:
                if time.monotonic() - self.last >= PROGRESS_EVERY_S * 0.9:  # wakes late: never over the interval
                    self._draw()

    def _draw(self) -> None:
        """Print the state with the time so far (the caller holds the lock)."""
        line = f"{self.state} ({time.monotonic() - self.started:.0f} s)"
        if self.tty:
            print(f"\r\033[K{line}", end="", file=sys.stderr, flush=True)
            self.drawn = True
        else:
            print(f"ingest: {line}", file=sys.stderr, flush=True)
        self.last = time.monotonic()

    def end(self) -> None:
        """Stop the ticker and finish a line drawn in place, so what follows starts on a line of its own."""
        self._stop.set()
        self._ticker.join()
        if self.drawn:
            print(file=sys.stderr)
            self.drawn = False


def _collection(name: str | None) -> str | None:
    """A `--collection` value checked as an identifier before anything is opened (None: the configured one)."""
    from core.retrieval.names import validate_collection

    if name is None:
        return None
    try:
        return validate_collection(name)
    except ValueError as exc:
        raise CliError(f"--collection {exc}") from None


def _user() -> str:
    """Who runs the CLI, for the provenance of replaced documents."""
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def run_search(args: argparse.Namespace) -> int:
    """`search TEXT` or `search --queries FILE.jsonl`."""
    from core.retrieval.errors import RetrievalError

    settings = get_settings()
    if (args.text is None) == (args.queries is None):
        raise CliError("give either a query TEXT or --queries FILE.jsonl (not both)")
    if not 1 <= args.k <= MAX_K:
        raise CliError(f"-k must be between 1 and {MAX_K}, got {args.k}")
    flt = SearchFilter(jurisdictions=tuple(args.jurisdiction), as_of=_as_of(args.as_of))
    collection = _collection(args.collection)
    if args.queries is not None:
        queries = _read_queries(Path(args.queries), settings.max_query_chars)
    else:
        queries = [(None, _check_query(args.text, settings.max_query_chars, "query"))]
    try:
        store = _open(settings, collection)
        if store.count() == 0:
            raise CliError(_nothing_to_search(store, settings))
        results = store.search_many([q for _, q in queries], k=args.k, flt=flt, mode=args.mode)
    except RetrievalError as exc:
        raise CliError(str(exc)) from None
    if args.queries is not None:
        for (qid, _), hits in zip(queries, results):
            print(json.dumps({"id": qid, "hits": [_hit_json(h) for h in hits]}, ensure_ascii=False))
    elif args.json:
        print(json.dumps([_hit_json(h) for h in results[0]], ensure_ascii=False, indent=2))
    else:
        _print_hits(results[0])
    return 0


def _nothing_to_search(store: Store, settings: Settings) -> str:
    """Why a search cannot run: the collection does not exist, or it is empty."""
    where = "on the Qdrant server at QDRANT_URL" if settings.qdrant_url else f"in {settings.data_dir}"
    named = "" if store.collection == settings.collection else f" --collection {store.collection}"
    state = "is empty" if store.exists() else "does not exist"
    return f"collection '{store.collection}' {where} {state}; run `python -m core ingest{named} PATH` first"


def _open(settings: Settings, collection: str | None) -> Store:
    from core.retrieval.registry import open_store  # imported on use: `--help` and input errors stay fast

    return open_store(settings, collection)


def _check_query(text: Any, max_chars: int, what: str) -> str:

    if not isinstance(text, str) or not text.strip():
        raise CliError(f"{what} is empty")
    if len(text) > max_chars:
        raise CliError(f"{what} is {len(text)} characters long; the limit is {max_chars} (WORKBENCH_MAX_QUERY_CHARS)")
    return text.strip()


def _as_of(value: str | None) -> date | None:
    from core.domain.inputs import parse_day

    if value is None:
        return None
    try:
        return parse_day(value)
    except ValueError:
        raise CliError(f"--as-of {value!r} is not a date in the form YYYY-MM-DD") from None


def _read_queries(path: Path, max_chars: int) -> list[tuple[Any, str]]:
    """All (id, text) pairs of a queries file, validated up front so one bad line fails the whole run."""

    if not path.is_file():
        raise CliError(f"queries file {path} does not exist")
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError:
        raise CliError(f"queries file {path} is not UTF-8 text") from None
    queries: list[tuple[Any, str]] = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = safe_json.loads(line)
        except safe_json.JsonDepthError as exc:
            raise CliError(f"{path}:{lineno}: {exc}") from None
        except json.JSONDecodeError as exc:
            raise CliError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
        if not isinstance(row, dict) or "id" not in row or "text" not in row:
            raise CliError(f'{path}:{lineno}: expected an object with "id" and "text"')
        queries.append((row["id"], _check_query(row["text"], max_chars, f"{path}:{lineno}: text")))
    if not queries:
        raise CliError(f"queries file {path} holds no queries")
    return queries


def _hit_json(h: Hit) -> dict[str, Any]:
    return {
        "doc_id": h.doc_id,
        "chunk_id": h.chunk_id,
        "score": round(h.score, 6),
        "title": h.title,
        "jurisdiction": h.jurisdiction,
        "status": h.status,
        "heading": h.heading,
        "passage_id": h.passage_id,
        "metadata": h.metadata,
        "text": h.text,
    }


def _print_hits(hits: list[Hit]) -> None:
    if not hits:
        print("no hits")
        return
    for rank, h in enumerate(hits, start=1):
        snippet = " ".join(h.text.split())
        if len(snippet) > SNIPPET_CHARS:
            snippet = snippet[: SNIPPET_CHARS - 1].rstrip() + "…"
        passage = f"  passage {h.passage_id}" if h.passage_id is not None else ""
        print(f"{rank:>2}. {h.title}  [{h.jurisdiction} · {h.status}]  {h.chunk_id}{passage}  score {h.score:.4f}")
        if h.heading:
            print(f"    § {h.heading}")
        print(f"    {snippet}")
