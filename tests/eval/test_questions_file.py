"""Questions-file parsing: the format, unknown keys, and clear errors naming the file, the entry and the key."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from core.domain.records import DeficiencyType
from core.evaluation.questions import QuestionsFileError, load_questions, parse_questions

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "questions.yaml"
    p.write_text(text, encoding="utf-8")
    return p


def test_full_entry_and_defaults(tmp_path: Path) -> None:
    p = write(
        tmp_path,
        """
- question: What applies in FD?
  as_of: 2026-11-30
  jurisdictions: [FD, SV]
  expected_facts: ["25% or more", ["not adopted", "has not been adopted"], 2027]
  expected_deficiency_types: [outdated_source, incorrect_threshold]
  notes: a note
  reviewer: someone          # unknown keys are ignored
- question: "  Second question?  "
  as_of: "2026-01-02"
""",
    )
    q1, q2 = load_questions(p)
    assert q1.label == "Q1" and q1.question == "What applies in FD?" and q1.as_of == date(2026, 11, 30)
    assert q1.jurisdictions == ("FD", "SV")
    assert q1.expected_facts == ("25% or more", ("not adopted", "has not been adopted"), "2027")
    assert q1.expected_deficiency_types == (DeficiencyType.outdated_source, DeficiencyType.incorrect_threshold)
    assert q1.notes == "a note"
    assert q2.label == "Q2" and q2.question == "Second question?" and q2.as_of == date(2026, 1, 2)
    assert q2.expected_facts == () and q2.jurisdictions == ()


def test_expected_verdicts_and_complete_questions(tmp_path: Path) -> None:
    p = write(
        tmp_path,
        """
- question: Has FD raised it?
  expected_verdict: "No"
  complete_in_corpus: true
- question: Has each of them raised it?
  expected_verdict: {FD: yes, SV: no}
- question: What applies?
""",
    )
    one, each, plain = load_questions(p)
    assert one.expected_verdict == "no" and one.complete_in_corpus
    assert each.expected_verdict == {"FD": "yes", "SV": "no"} and not each.complete_in_corpus
    assert plain.expected_verdict is None and not plain.complete_in_corpus


def test_the_shipped_questions_file_parses() -> None:
    qs = load_questions(ROOT / "questions" / "q1-q6.yaml")
    assert [q.label for q in qs] == ["Q1", "Q2", "Q3", "Q4", "Q5", "Q6"]
    assert all(q.as_of == date(2026, 11, 30) and q.expected_facts and q.expected_deficiency_types for q in qs)
    assert {j for q in qs for j in q.jurisdictions} <= {"EU", "US", "UK", "INT", "SG"}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", "the file is empty"),
        ("question: x", "expected a YAML list of questions, got a mapping"),
        ("[]", "holds no questions"),
        ("- just a string", "entry 1: expected a mapping"),
        ("- {as_of: 2026-01-01}", "entry 1: key 'question': missing"),
        ("- question: ''", "entry 1: key 'question': must be non-empty text"),
        ("- question: ok\n- question: [a, b]", "entry 2: key 'question'"),
        ("- question: ok\n  as_of: 30/11/2026", "entry 1: key 'as_of'"),
        ("- question: ok\n  as_of: 2026-13-01", "entry 1: key 'as_of'"),
        ("- question: ok\n  jurisdictions: {EU: 1}", "entry 1: key 'jurisdictions'"),
        ("- question: ok\n  jurisdictions: [EU, 3]", "entry 1: key 'jurisdictions': item 2"),
        ("- question: ok\n  expected_facts: 25%", "entry 1: key 'expected_facts'"),
        ("- question: ok\n  expected_facts: ['', x]", "entry 1: key 'expected_facts': item 1"),
        ("- question: ok\n  expected_facts: [{a: 1}]", "entry 1: key 'expected_facts': item 1"),
        ("- question: ok\n  expected_deficiency_types: [wrong_type]", "unknown type 'wrong_type'"),
        ("- question: ok\n  notes: [1, 2]", "entry 1: key 'notes'"),
        ("- question: a\n  id: X\n- question: b\n  id: X", "entry 2: key 'id': duplicate"),
        ("- question: [unclosed", "not valid YAML (line 1)"),
        ("- question: ok\n  expected_verdict: maybe", "key 'expected_verdict': expected 'yes' or 'no', got 'maybe'"),
        ("- question: ok\n  expected_verdict: {}", "key 'expected_verdict': expected 'yes', 'no' or a mapping"),
        ("- question: ok\n  expected_verdict: {EU: perhaps}", "key 'expected_verdict'"),
        ("- question: ok\n  complete_in_corpus: sure", "key 'complete_in_corpus': expected true or false"),
        ("- question: ok\n  corpus: [a, b]", "key 'corpus': expected a folder path on one line"),
    ],
)
def test_malformed_files_name_file_entry_and_key(tmp_path: Path, text: str, expected: str) -> None:
    p = write(tmp_path, text)
    with pytest.raises(QuestionsFileError) as err:
        load_questions(p)
    message = str(err.value)
    assert str(p) in message and expected in message
    assert "\n" not in message


def test_missing_and_non_utf8_files(tmp_path: Path) -> None:
    with pytest.raises(QuestionsFileError, match="does not exist"):
        load_questions(tmp_path / "nope.yaml")
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes("- question: caf\xe9".encode("latin-1"))
    with pytest.raises(QuestionsFileError, match="not UTF-8"):
        load_questions(bad)


def test_parse_questions_accepts_already_parsed_data() -> None:
    (q,) = parse_questions([{"question": "Q?", "expected_facts": ["EUR 1,000"]}], "inline")
    assert q.expected_facts == ("EUR 1,000",)
    with pytest.raises(QuestionsFileError, match="^inline: entry 1"):
        parse_questions([{"id": "x"}], "inline")
