"""`python -m core eval QUESTIONS_FILE [--strategy loop|single|retry] [--collection NAME] [--max-cycles N] [--json]`.

Runs one answering strategy over every question of a questions file on the configured engine and corpus and
scores it (core.evaluation.strategies, core.evaluation.facts). Loop runs use in-memory checkpoints, so evaluation sessions never
appear in the analyst's session list. The questions file is validated before the store is opened.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from core.cli.errors import CliError
from core.config import Settings, get_settings
from core.domain.limits import MAX_CYCLES
from core.evaluation.questions import QuestionsFileError, load_questions
from core.evaluation.scores import QuestionScore, format_table
from core.evaluation.strategies import STRATEGY_NAMES, evaluate


def register(sub: Any) -> None:
    """Add the `eval` sub-command."""
    p = sub.add_parser("eval", help="score an answering strategy (loop, single, retry) on a questions file")
    p.add_argument(
        "questions_file", metavar="QUESTIONS_FILE", help="YAML list of {question, as_of, expected_facts, ...}"
    )
    p.add_argument(
        "--strategy",
        default="loop",
        metavar="loop|single|retry",
        help="loop = stateful loop with every correction approved (default); single = draft plus one "
        "critique; retry = naive re-drafts with a wider retrieval and no deficiency state",
    )
    p.add_argument("--collection", default=None, help="collection name (default: WORKBENCH_COLLECTION)")
    p.add_argument(
        "--max-cycles",
        type=int,
        default=None,
        help="correction cycles (loop) or re-drafts (retry); default WORKBENCH_MAX_CYCLES",
    )
    p.add_argument("--answers", action="store_true", help="with --json: include each answer text")
    p.add_argument("--json", action="store_true", help="print one JSON object: strategy, questions[], summary")
    p.set_defaults(handler=run_eval)


def make_workbench(settings: Settings) -> Any:
    """The workbench the command evaluates with (tests replace this to inject a store)."""
    from core.persistence.checkpoints import memory_persistence
    from core.service import Workbench

    return Workbench(settings, persistence=memory_persistence())


def run_eval(args: argparse.Namespace) -> int:
    """Validate the input, run the strategy over every question, print a table or the JSON object."""
    from core.domain.inputs import InputError
    from core.retrieval.errors import RetrievalError

    if args.strategy not in STRATEGY_NAMES:
        raise CliError(f"--strategy {args.strategy!r} is not one of {', '.join(STRATEGY_NAMES)}")
    if args.max_cycles is not None and not 0 <= args.max_cycles <= MAX_CYCLES:
        raise CliError(f"--max-cycles must be between 0 and {MAX_CYCLES}, got {args.max_cycles}")
    try:
        questions = load_questions(args.questions_file)
    except QuestionsFileError as exc:
        raise CliError(str(exc)) from None
    settings = get_settings()
    try:
        wb = make_workbench(settings)
        on_result = None if args.json else _progress
        report = evaluate(
            wb, questions, args.strategy, collection=args.collection, max_cycles=args.max_cycles, on_result=on_result
        )
    except (InputError, RetrievalError) as exc:
        raise CliError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None
    if args.json:
        print(json.dumps(report.to_json(with_answers=args.answers), ensure_ascii=False, indent=2))
        return 0
    print(f"strategy: {report.strategy}  engine: {getattr(wb, 'engine_name', '?')}  questions: {len(report.rows)}")
    for line in format_table(report):
        print(line)
    summary = report.summary()
    mean = summary["mean"]
    recall = "-" if mean["detection_recall"] is None else f"{mean['detection_recall']:.2f}"
    cover = "-" if summary["fact_coverage_overall"] is None else f"{summary['fact_coverage_overall']:.2f}"
    print(f"fact coverage {cover} overall; mean detection recall {recall}")
    for r in report.rows:
        if r.facts_missing:
            print(f"{r.label} missing: " + "; ".join(r.facts_missing))
    return 0


def _progress(row: QuestionScore) -> None:
    cover = "-" if row.fact_coverage is None else f"{row.fact_coverage:.2f}"
    print(
        f"[eval] {row.label}: coverage {cover}, residual {row.residual_count} ({row.residual_severity:.2f}), "
        f"{row.wall_s:.2f}s",
        file=sys.stderr,
    )
