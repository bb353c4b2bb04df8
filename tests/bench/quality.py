"""Does the loop help? Single pass vs naive retry vs the stateful loop on one or more questions files.

    python tests/bench/quality.py QUESTIONS_FILE[=CORPUS_DIR]... [--corpus DIR] [--collection NAME]
                                  [--max-cycles N] [--out DIR] [--update-docs] [--strict]

`FILE=CORPUS_DIR` answers that file from its own corpus folder, ingested into a temporary data dir of its own
(e.g. `questions/market-abuse.yaml=questions/corpora/market-abuse`); a bare FILE uses `--corpus DIR`, or, when
every question of the file names its own corpus folder (`corpus:`, as `questions/verdicts-extra.yaml` does), each
question is answered from its own; the file is reported as one.

All three strategies run on the same engine, store and settings (core.evaluation.strategies). Prints, per file, one table per
strategy and a comparison, checks the targets (pass/fail: residual severity, coverage against both baselines and
at least 85%, retrieval calls, no question certified incomplete, no duplicate or cut sentence, at most 120 words
per plan item), writes a plotly chart per file (HTML, and PNG when kaleido can render here) and the raw results as
JSON into test-artifacts/. With `--corpus DIR` the corpus is
ingested into a fresh temporary data dir first (nothing of yours is touched); otherwise the configured
WORKBENCH_DATA_DIR / collection is used. `--update-docs` replaces the `bench:quality` block of docs/benchmarks.md
with the generated table. `--strict` exits 1 when a target fails.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from contextlib import nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.config import Settings, get_settings  # noqa: E402
from core.evaluation.questions import QuestionsFileError, load_questions  # noqa: E402
from core.evaluation.scores import EvalReport, format_table  # noqa: E402
from core.evaluation.strategies import evaluate  # noqa: E402
from tests.bench.doc_blocks import BENCHMARKS_DOC  # noqa: E402
from tests.bench.quality_report import (  # noqa: E402
    HEADERS,
    LABELS,
    ORDER,
    comparison_rows,
    doc_block,
    targets,
    text_table,
    update_doc,
    write_chart,
)


def _settings(args: argparse.Namespace, tmp: str | None) -> Settings:
    if tmp is None:
        return get_settings()
    return Settings(data_dir=Path(tmp), qdrant_url=None, qdrant_api_key=None, database_url=None)


def _file_and_corpus(arg: str, default: str | None) -> tuple[str, str | None]:
    """`FILE=CORPUS` names the corpus folder a questions file is answered from; a bare FILE uses `--corpus`."""
    path, sep, corpus = arg.partition("=")
    return path, (corpus if sep and corpus else default)


def _groups(pairs: list[tuple[str, str | None]], files: dict[str, list[Any]]) -> dict[str | None, dict[str, list[Any]]]:
    """The questions to answer from each corpus folder, by file: a file's own (`FILE=CORPUS`, `--corpus`), else
    each question's (`corpus:`) when every question names one, else the configured collection (None)."""
    groups: dict[str | None, dict[str, list[Any]]] = {}
    for path, corpus in pairs:
        questions = files[path]
        if corpus is None and all(q.corpus for q in questions):
            for q in questions:
                groups.setdefault(q.corpus, {}).setdefault(path, []).append(q)
        else:
            groups.setdefault(corpus, {})[path] = questions
    return groups


def _run_group(
    args: argparse.Namespace,
    corpus: str | None,
    files: dict[str, list[Any]],
    results: dict[str, dict[str, EvalReport]],
    contexts: dict[str, dict[str, Any]],
) -> int:
    """Every strategy on each questions file against one corpus (ingested into its own temporary data dir)."""
    from core.persistence.checkpoints import memory_persistence
    from core.service import Workbench

    with tempfile.TemporaryDirectory(prefix="bench-quality-") if corpus else nullcontext() as tmp:
        settings = _settings(args, tmp)
        wb = Workbench(settings, persistence=memory_persistence())
        store = wb.store(args.collection)
        corpus_label = corpus or f"collection '{args.collection or settings.collection}' in {settings.data_dir}"
        if corpus:
            from core.retrieval.ingest import ingest_paths

            report = ingest_paths(store, [corpus], settings=settings)
            if report.failed:
                print(
                    f"error: could not ingest {len(report.failed)} file(s): {report.failed[0].error}", file=sys.stderr
                )
                return 2
            print(f"ingested {report.documents} documents from {corpus} into a temporary data dir")
        if store.count() == 0:
            print("error: the corpus is empty; ingest it first or pass --corpus DIR", file=sys.stderr)
            return 2
        store.search("warm-up", k=1)  # load the embedding model before any strategy is timed
        for path, questions in files.items():
            reports = results.setdefault(path, {})
            for name in ORDER:
                started = time.perf_counter()
                report = evaluate(wb, questions, name, collection=args.collection, max_cycles=args.max_cycles)
                print(f"\n== {path}: {LABELS[name]} ({name}), {time.perf_counter() - started:.2f}s")
                print("\n".join(format_table(report)))
                earlier = reports.get(name)  # the file's questions answered from another corpus before
                reports[name] = EvalReport(name, [*earlier.rows, *report.rows]) if earlier else report
            context = contexts.setdefault(path, {"corpus": "", "chunks": 0})
            context.update(
                {
                    "date": datetime.now(UTC).strftime("%Y-%m-%d"),
                    "engine": wb.engine_name,
                    "corpus": ", ".join(filter(None, [context["corpus"], f"`{corpus}`" if corpus else corpus_label])),
                    "chunks": context["chunks"] + store.count(),
                    "max_cycles": settings.max_cycles if args.max_cycles is None else args.max_cycles,
                    "retrieval_k": settings.retrieval_k,
                }
            )
        if corpus:
            store.close()  # release the temporary shard before its directory is removed
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tests/bench/quality.py", description=__doc__.splitlines()[0])
    parser.add_argument("questions_files", metavar="QUESTIONS_FILE[=CORPUS_DIR]", nargs="+")
    parser.add_argument("--corpus", metavar="DIR", help="ingest DIR into a fresh temporary data dir and use that")
    parser.add_argument("--collection", default=None)
    parser.add_argument("--max-cycles", type=int, default=None)
    parser.add_argument(
        "--out", default=str(ROOT / "test-artifacts"), help="artifact directory (default test-artifacts/)"
    )
    parser.add_argument(
        "--update-docs", action="store_true", help="rewrite the bench:quality block of docs/benchmarks.md"
    )
    parser.add_argument("--doc", default=str(BENCHMARKS_DOC), help=argparse.SUPPRESS)
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target fails")
    args = parser.parse_args(argv)

    pairs = [_file_and_corpus(arg, args.corpus) for arg in args.questions_files]
    try:
        files = {f: load_questions(f) for f, _ in pairs}
    except QuestionsFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    groups = _groups(pairs, files)
    missing = sorted(c for c in groups if c and not Path(c).is_dir())
    if missing:
        print(f"error: corpus folder {missing[0]} does not exist", file=sys.stderr)
        return 2

    results: dict[str, dict[str, EvalReport]] = {}
    contexts: dict[str, dict[str, Any]] = {}
    for corpus, group in groups.items():
        code = _run_group(args, corpus, group, results, contexts)
        if code:
            return code
    results = {path: results[path] for path in files if path in results}  # in the order the files were given
    for path, reports in results.items():  # a file answered from several corpora: its questions in its order
        order = {q.label: i for i, q in enumerate(files[path])}
        for name, report in reports.items():
            reports[name] = EvalReport(name, sorted(report.rows, key=lambda r: order[r.label]))

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    passed = True
    blocks = []
    dump: dict[str, Any] = {"files": {}}
    for i, (path, reports) in enumerate(results.items()):
        print(f"\n== {path}: comparison (totals over all questions)")
        print(text_table(HEADERS, comparison_rows(reports)))
        print(f"\n== {path}: targets")
        checks = targets(reports)
        for name, ok, evidence in checks:
            print(f"{'PASS' if ok else 'FAIL'}  {name}: {evidence}")
        passed = passed and all(ok for _, ok, _ in checks)
        dump["files"][path] = {
            "context": contexts[path],
            "targets": [{"name": n, "passed": ok, "evidence": e} for n, ok, e in checks],
            "strategies": {k: r.to_json(with_answers=True) for k, r in reports.items()},
        }
        blocks.append(
            f"#### `{path}`\n\n" + doc_block(reports, path, contexts[path], with_how_to=i == len(results) - 1)
        )
        for line in write_chart(reports, out / Path(path).stem):
            print(line)
    (out / "quality.json").write_text(json.dumps(dump, ensure_ascii=False, indent=2), encoding="utf-8")
    print(f"\nresults: {out / 'quality.json'}")
    if args.update_docs:
        update_doc(Path(args.doc), "\n\n".join(blocks))
    if args.strict and not passed:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
