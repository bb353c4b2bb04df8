"""CLI commands of the evaluation loop: run, resume, show, sessions, export."""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from pathlib import Path
from typing import Any

from core.cli.errors import CliError
from core.domain import safe_json
from core.domain.wording import words
from core.service import (
    InputError,
    ProgressEvent,
    RunResult,
    SessionBusyError,
    SessionNotFoundError,
    SessionStatus,
    Workbench,
)


def register(sub: Any) -> None:
    """Add the loop's sub-commands to the `python -m core` parser."""
    run = sub.add_parser("run", help="ask a question and run the evaluation loop")
    run.add_argument("question")
    run.add_argument("--approve", default="manual", help="all | none | manual | severity>=low|medium|high|critical")
    run.add_argument("--max-cycles", type=int, default=None)
    run.add_argument("--as-of", default=None, help="YYYY-MM-DD (default: today)")
    run.add_argument("--collection", default=None)
    run.add_argument("--json", action="store_true")
    run.set_defaults(handler=_run)

    resume = sub.add_parser("resume", help="answer a pending review from a decisions file, or continue a cut-off run")
    resume.add_argument("thread_id")
    resume.add_argument(
        "--decisions",
        default=None,
        help='JSON file: {"cycle": N, "decisions": {...}, "added": [...], "stop": false} or '
        '{"cycle": N, deficiency_id: {action, query, note}}, N being the review answered (action: approve, edit, '
        "reject; confirm or reopen for a deficiency you added whose correction ran); "
        "without it, a run cut off by a crash continues from its last checkpoint",
    )
    resume.add_argument("--json", action="store_true")
    resume.set_defaults(handler=_resume)

    show = sub.add_parser("show", help="show a session")
    show.add_argument("thread_id")
    show.add_argument("--json", action="store_true")
    show.set_defaults(handler=_show)

    sessions = sub.add_parser("sessions", help="list sessions")
    sessions.add_argument("--json", action="store_true")
    sessions.set_defaults(handler=_sessions)

    export = sub.add_parser("export", help="export a session")
    export.add_argument("thread_id")
    export.add_argument("--format", required=True, choices=["md", "json", "docx"])
    export.add_argument("-o", "--output", default=None, help="file to write (default: stdout; required for docx)")
    export.set_defaults(handler=_export)


def _workbench() -> Workbench:
    return Workbench()


def _guard(fn: Any) -> Any:
    def run(args: argparse.Namespace) -> int:

        try:
            return fn(args)
        except (InputError, SessionBusyError) as exc:
            raise CliError(str(exc)) from exc
        except SessionNotFoundError as exc:
            raise CliError(str(exc)) from exc

    return run


def _progress(event: ProgressEvent) -> None:
    print(f"[{event.node}] {event.detail}", file=sys.stderr)


@_guard
def _run(args: argparse.Namespace) -> int:
    result = _workbench().start(
        args.question,
        as_of=args.as_of,
        max_cycles=args.max_cycles,
        approve=args.approve,
        collection=args.collection,
        on_event=None if args.json else _progress,
    )
    _print_result(result, args.json)
    return 0


@_guard
def _resume(args: argparse.Namespace) -> int:

    wb = _workbench()
    if args.decisions is None:
        result = wb.continue_run(args.thread_id, on_event=None if args.json else _progress)
        _print_result(result, args.json)
        return 0
    path = Path(args.decisions)
    if not path.is_file():
        raise CliError(f"decisions file {path} does not exist")
    try:
        decisions = safe_json.loads(path.read_text(encoding="utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:  # a BOM is fine; bad UTF-8, bad JSON, too deep are not
        raise CliError(f"decisions file {path} is not valid JSON: {exc}") from None
    result = wb.resume(args.thread_id, decisions, on_event=None if args.json else _progress)
    _print_result(result, args.json)
    return 0


@_guard
def _show(args: argparse.Namespace) -> int:
    _print_result(_workbench().show(args.thread_id), args.json)
    return 0


@_guard
def _sessions(args: argparse.Namespace) -> int:
    items = _workbench().sessions()
    if args.json:
        print(json.dumps([s.model_dump(mode="json") for s in items], indent=2))
        return 0
    if not items:
        print("no sessions yet")
    for s in items:
        score = f"{s.quality_score:.2f}" if s.quality_score is not None else "-"
        print(f"{s.thread_id}  {s.created_at}  score {score:<5} {s.outcome.badge}")
        print(f"    {s.question[:100]}")
        print(f"    {s.outcome.headline}")
    return 0


@_guard
def _export(args: argparse.Namespace) -> int:

    data = _workbench().export(args.thread_id, args.format)
    if args.output:
        _write_export(args.output, data)
        print(f"wrote {args.output} ({len(data)} bytes)", file=sys.stderr)
    elif args.format == "docx":
        raise CliError("docx is binary: give -o FILE")
    else:
        sys.stdout.write(data.decode("utf-8"))
    return 0


def _write_export(target: str, data: bytes) -> None:
    """Write an export to `target`. A symbolic link there is followed only when it points inside the directory
    chosen (by real path), so an export never overwrites a file elsewhere; O_NOFOLLOW refuses a link that appears
    after the check."""
    path = Path(target)
    if path.is_symlink():
        real, chosen = path.resolve(), path.parent.resolve()
        if not real.is_relative_to(chosen):
            raise CliError(
                f"{target} is a symbolic link to {real}, outside {chosen}: not followed; give the file's own path"
            )
        path = real
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o666)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise CliError(f"{target} is a symbolic link: not followed; give the file's own path") from None
        raise CliError(f"cannot write {target}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)


def _print_result(result: RunResult, as_json: bool) -> None:
    if as_json:
        out = result.to_json()
        out["termination_reason"] = result.termination_reason
        out["outcome"] = result.outcome.model_dump(mode="json")
        print(json.dumps(out, indent=2, default=str))
        return
    outcome = result.outcome
    print(f"session {result.thread_id}: {outcome.badge} (engine {result.engine})")
    print(outcome.headline)
    print(f"deficiencies: {outcome.counts.line()}")
    if result.status == SessionStatus.awaiting_review and result.pending_review:
        print(f"\nCurrent answer (cycle {result.pending_review['cycle']}):\n{result.current_answer}\n")
        print("Proposed corrections awaiting review:")
        for p in result.pending_review["proposals"]:
            print(f"  {p['id']}  [{p['severity']}] {words(p['deficiency_type'])}: {p['description']}")
            print(f"      query: {p['query'] or '(none: the revision uses the corpus metadata, no retrieval)'}")
        for p in result.pending_review.get("confirmations", []):
            print(f"  {p['id']}  you added this ({p['description']}); its correction ran: is it resolved?")
            print('      answer with {"action": "confirm"} (resolved) or {"action": "reopen"} (retry its correction)')
        print(
            f"\nAnswer with: python -m core resume {result.thread_id} --decisions FILE.json "
            f'(the file names this review: "cycle": {result.pending_review["cycle"]})'
        )
        return
    print(f"\n{result.final_answer or result.current_answer}\n")
    score = f"{result.quality_score:.2f}" if result.quality_score is not None else "-"
    print(f"quality score {score}; cycles: {len(result.evaluation_history)}")
    if outcome.reason:
        print(f"why the loop stopped: {outcome.reason}")
