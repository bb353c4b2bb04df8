"""`python -m core eval` in-process through core.cli.dispatch.main, on the tiny FD/SV corpus (no model load)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import core.cli.eval
from core.cli.dispatch import main
from core.evaluation.scores import AVERAGED_FIELDS, SUMMED_FIELDS
from tests.eval.corpus import QUESTION, ROW_KEYS

QUESTIONS = f"""
- id: F1
  question: "{QUESTION}"
  as_of: 2026-11-30
  jurisdictions: [FD, SV]
  expected_facts: ["more than 25%", "20% or more", "EUR 5,000"]
  expected_deficiency_types: [outdated_source]
- question: Which owner identification threshold applies to a remitter in Sylvania?
  as_of: 2026-11-30
  expected_facts: ["20 percent or more"]
"""


@pytest.fixture
def questions(tmp_path: Path) -> Path:
    p = tmp_path / "q.yaml"
    p.write_text(QUESTIONS, encoding="utf-8")
    return p


@pytest.fixture
def wired(monkeypatch: pytest.MonkeyPatch, make_workbench):
    """Point the command at a Workbench over the tiny corpus; returns a holder of the workbenches made."""
    made = []

    def factory(settings):
        wb = make_workbench()
        made.append(wb)
        return wb

    monkeypatch.setattr(core.cli.eval, "make_workbench", factory)
    return made


@pytest.mark.parametrize("strategy", ["loop", "single", "retry"])
def test_json_output_shape(questions: Path, wired, capsys: pytest.CaptureFixture[str], strategy: str) -> None:
    assert main(["eval", str(questions), "--strategy", strategy, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["strategy"] == strategy
    assert len(data["questions"]) == 2
    for row in data["questions"]:
        assert set(row) >= ROW_KEYS
        assert 0 <= row["fact_coverage"] <= 1
        assert "answer" not in row
    first = data["questions"][0]
    assert first["question"] == QUESTION and "EUR 5,000" in first["facts_missing"]
    summary = data["summary"]
    assert summary["count"] == 2
    assert set(summary["mean"]) == set(AVERAGED_FIELDS) and set(summary["total"]) == set(SUMMED_FIELDS)
    assert summary["total"]["retrievals"] == sum(r["retrievals"] for r in data["questions"])


def test_default_strategy_is_the_loop_and_text_output(
    questions: Path, wired, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", str(questions)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("strategy: loop")
    assert "F1" in out and "Q2" in out and "total" in out and "F1 missing: EUR 5,000" in out
    assert "[eval] F1" in err


def test_answers_flag_includes_answer_texts(questions: Path, wired, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(questions), "--strategy", "single", "--json", "--answers"]) == 0
    rows = json.loads(capsys.readouterr().out)["questions"]
    assert "## FD" in rows[0]["answer"]


def test_max_cycles_reaches_the_strategy(questions: Path, wired, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(questions), "--strategy", "retry", "--max-cycles", "1", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["questions"]
    assert rows[0]["retrievals"] == 2 and rows[0]["cycles"] == 1


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    return lines[0]


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--strategy", "twice"], "--strategy 'twice' is not one of loop, single, retry"),
        (["--max-cycles", "99"], "--max-cycles must be between 0 and 50"),
    ],
)
def test_bad_options_exit_2(questions: Path, wired, capsys, args, expected) -> None:
    assert main(["eval", str(questions), *args]) == 2
    assert expected in _one_line_error(capsys)
    assert wired == []  # rejected before any store is opened


def test_missing_and_malformed_questions_files_exit_2(tmp_path: Path, wired, capsys) -> None:
    assert main(["eval", str(tmp_path / "none.yaml")]) == 2
    assert "does not exist" in _one_line_error(capsys)
    bad = tmp_path / "bad.yaml"
    bad.write_text("- question: ok\n- expected_facts: [x]\n", encoding="utf-8")
    assert main(["eval", str(bad), "--json"]) == 2
    assert f"{bad}: entry 2: key 'question': missing" in _one_line_error(capsys)
    assert wired == []


def test_empty_corpus_exits_2(questions: Path, monkeypatch: pytest.MonkeyPatch, make_workbench, capsys) -> None:
    monkeypatch.setattr(core.cli.eval, "make_workbench", lambda settings: make_workbench(docs=[]))
    assert main(["eval", str(questions)]) == 2
    assert "corpus is empty" in _one_line_error(capsys)


def test_too_long_question_exits_2(tmp_path: Path, wired, capsys) -> None:
    p = tmp_path / "long.yaml"
    p.write_text("- question: " + "x" * 5000 + "\n", encoding="utf-8")
    assert main(["eval", str(p)]) == 2
    assert "the limit is" in _one_line_error(capsys)
