"""The benchmark's own logic (targets, tables, the block of docs/benchmarks.md) on reports from the tiny corpus."""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path

import pytest

from core.evaluation.strategies import EvalQuestion, evaluate
from tests.eval.corpus import QUESTION
from tests.loop.corpora import AS_OF

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_quality", ROOT / "tests" / "bench" / "quality_report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def reports(make_workbench):
    wb = make_workbench()
    qs = [EvalQuestion(label="F1", question=QUESTION, as_of=AS_OF, expected_facts=("more than 25%", "20% or more"))]
    return {name: evaluate(wb, qs, name) for name in ("single", "retry", "loop")}


def test_targets_report_pass_fail_with_evidence(bench, reports) -> None:
    checks = bench.targets(reports)
    assert [name for name, _, _ in checks] == [
        "loop residual severity <= 1/2 of single pass",
        "loop leaves less residual severity than both baselines",
        "loop covers more expected facts than both baselines",
        "loop uses no more retrieval calls than naive retry",
        "loop covers at least 85% of the expected facts",
        "no question certified incomplete (ended at the threshold or with nothing open, an item unanswered)",
        "no duplicate or cut sentence",
        "words per plan item at most 60 on every question",
        "no answer over its word budget (60 per item, at most 450 for up to three jurisdictions)",
        "the claims that carry the facts found fit the word budget (the rest is sentence ranking's to drop)",
        "no false residual on the questions whose complete answer is in the corpus",
        "no wrong verdict",
    ]
    totals = {k: r.summary()["total"] for k, r in reports.items()}
    assert checks[0][1] is (totals["loop"]["residual_severity"] <= totals["single"]["residual_severity"] / 2 + 1e-9)
    assert all(isinstance(ok, bool) and evidence for _, ok, evidence in checks)


def test_a_verdict_on_a_question_naming_none_is_listed_for_a_person_to_check(bench, reports) -> None:
    # the bench had counted wrong verdicts only where a question names its expected one: a "Yes." read from
    # "No EU regulation ... requires ..." on such a question passed unseen
    loop = reports["loop"]
    loop.rows[0] = dataclasses.replace(loop.rows[0], verdicts={"*": "yes"}, wrong_verdicts=None)
    name, passed, evidence = bench.targets(reports)[-1]
    assert name == "no wrong verdict" and passed
    assert "verdicts on questions naming none, not checked: F1 (yes)" in evidence


def test_docs_block_is_generated_and_replaced(bench, reports, tmp_path: Path) -> None:
    readme = tmp_path / "benchmarks.md"
    readme.write_text(
        f"# X\n\n## Does the loop help?\n\n{bench.START}\n(not yet measured)\n{bench.END}\n\ntail\n", encoding="utf-8"
    )
    context = {
        "date": "2026-11-30",
        "engine": "offline",
        "corpus": "tiny",
        "chunks": 4,
        "max_cycles": 4,
        "retrieval_k": 8,
    }
    body = bench.doc_block(reports, "q.yaml", context)
    bench.update_doc(readme, body)
    bench.update_doc(readme, body)  # idempotent
    text = readme.read_text(encoding="utf-8")
    assert text.count(bench.START) == 1 and text.endswith("\n\ntail\n")
    assert "(not yet measured)" not in text
    assert "| single pass |" in text and "| naive retry |" in text and "| stateful loop |" in text
    assert "loop residual severity <= 1/2 of single pass" in text
    assert "**How to run.**" in text


def test_chart_html_is_written(bench, reports, tmp_path: Path) -> None:
    lines = bench.write_chart(reports, tmp_path, png=False)  # PNG needs a headless browser: left to the benchmark
    assert (tmp_path / "quality.html").stat().st_size > 1000
    assert lines == [f"chart: {tmp_path / 'quality.html'}"]


def test_a_questions_file_names_its_own_corpus_with_file_equals_corpus() -> None:
    spec = importlib.util.spec_from_file_location("bench_quality_main", ROOT / "tests" / "bench" / "quality.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pair = module._file_and_corpus
    assert pair("questions/a.yaml=questions/corpora/a", None) == ("questions/a.yaml", "questions/corpora/a")
    assert pair("questions/b.yaml", "core/corpus") == ("questions/b.yaml", "core/corpus")
    assert pair("questions/c.yaml", None) == ("questions/c.yaml", None)
    assert module.main(["questions/q1-q6.yaml=/nonexistent/corpus"]) == 2


def test_a_file_whose_questions_name_their_corpora_is_answered_from_each(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("bench_quality_groups", ROOT / "tests" / "bench" / "quality.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    from core.evaluation.questions import load_questions

    mixed = tmp_path / "mixed.yaml"
    mixed.write_text(
        "- {id: M1, question: 'Is it a?', corpus: corpora/a}\n"
        "- {id: M2, question: 'Is it b?', corpus: corpora/b}\n"
        "- {id: M3, question: 'Is it a too?', corpus: corpora/a}\n",
        encoding="utf-8",
    )
    plain = tmp_path / "plain.yaml"
    plain.write_text("- {id: P1, question: 'Is it c?'}\n", encoding="utf-8")
    files = {str(mixed): load_questions(mixed), str(plain): load_questions(plain)}
    groups = module._groups([(str(mixed), None), (str(plain), "corpora/c")], files)
    by_corpus = {c: {Path(f).name: [q.label for q in qs] for f, qs in g.items()} for c, g in groups.items()}
    assert by_corpus == {
        str(tmp_path / "corpora/a"): {"mixed.yaml": ["M1", "M3"]},
        str(tmp_path / "corpora/b"): {"mixed.yaml": ["M2"]},
        "corpora/c": {"plain.yaml": ["P1"]},
    }
    assert module.main([str(mixed)]) == 2  # the folders the questions name do not exist: said, nothing run
