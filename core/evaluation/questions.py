"""Questions files for `python -m core eval` and the quality benchmark: a YAML list of questions, each with the
facts a correct answer states and the deficiency types the critic should detect, validated by a pydantic model whose
errors name the entry and key."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ValidationError
from pydantic_core import PydanticCustomError

from core.domain.inputs import parse_day
from core.domain.records import DeficiencyType
from core.domain.safe_yaml import YamlInputError, load_yaml
from core.evaluation.facts import Fact

Verdicts = str | dict[str, str] | None
"""An expected verdict: "yes", "no", or one per jurisdiction code."""
VERDICT_WORDS = ("yes", "no")


class QuestionsFileError(ValueError):
    """A questions file that cannot be used; the message names the file, the entry and the key."""


@dataclass(frozen=True)
class EvalQuestion:
    """One entry of a questions file."""

    label: str
    question: str
    as_of: date | None = None
    jurisdictions: tuple[str, ...] = ()
    expected_facts: tuple[Fact, ...] = ()
    expected_deficiency_types: tuple[DeficiencyType, ...] = ()
    notes: str = ""
    expected_verdict: Verdicts = None
    """"yes" or "no" for a yes/no question; a mapping jurisdiction -> "yes"/"no" for "yes or no for each"."""
    complete_in_corpus: bool = False
    """The full correct answer is in the corpus (no superseded, proposed or erroneous source needed): any residual
    deficiency left at the end is a false residual."""
    corpus: str | None = None
    """The corpus folder this question is answered from, when its file mixes corpora (`corpus:` in the file, read
    relative to the file's folder); None when the whole file is answered from one corpus."""


def load_questions(path: str | Path) -> list[EvalQuestion]:
    """Read and validate a questions file (a YAML list of mappings; unknown keys are ignored)."""
    p = Path(path)
    if not p.is_file():
        raise QuestionsFileError(f"questions file {p} does not exist")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise QuestionsFileError(f"{p}: not UTF-8 text") from None
    try:
        data = load_yaml(text)
    except YamlInputError as exc:
        raise QuestionsFileError(f"{p}: the file {exc}") from None
    return [replace(q, corpus=str(p.parent / q.corpus)) if q.corpus else q for q in parse_questions(data, str(p))]


def parse_questions(data: Any, source: str = "questions") -> list[EvalQuestion]:
    """Validate already-parsed YAML data into questions; every error names the source, the entry and the key."""
    if data is None:
        raise QuestionsFileError(f"{source}: the file is empty; expected a YAML list of questions")
    if not isinstance(data, list):
        raise QuestionsFileError(f"{source}: expected a YAML list of questions, got a {_kind(data)}")
    if not data:
        raise QuestionsFileError(f"{source}: the list holds no questions")
    out = []
    labels: set[str] = set()
    for n, entry in enumerate(data, start=1):
        q = _parse_entry(entry, n, source)
        if q.label in labels:
            raise QuestionsFileError(f"{source}: entry {n}: key 'id': duplicate id {q.label!r}")
        labels.add(q.label)
        out.append(q)
    return out


def _problem(text: str) -> PydanticCustomError:
    return PydanticCustomError("questions_file", "{problem}", {"problem": text})


def _question(value: Any) -> Any:
    if not isinstance(value, str) or not value.strip():
        raise _problem("must be non-empty text")
    return value.strip()


def _label(value: Any) -> Any:
    if not isinstance(value, (str, int)) or isinstance(value, bool) or not str(value).strip():
        raise _problem("must be a short text label")
    return str(value).strip()


def _as_of(value: Any) -> Any:
    if value is None or isinstance(value, date):
        return value
    if not isinstance(value, str):
        raise _problem(f"expected an ISO date (YYYY-MM-DD), got {value!r}")
    try:
        return parse_day(value.strip())
    except ValueError:
        raise _problem(f"{value!r} is not an ISO date (YYYY-MM-DD)") from None


def _listed(what: str, *, single: bool = True) -> Callable[[Any], Any]:
    """A list of `what`; a single string counts as a one-item list when `single`; anything else is refused."""

    def check(value: Any) -> Any:
        value = [] if value is None else [value] if single and isinstance(value, str) else value
        if not isinstance(value, list):
            raise _problem(f"expected a list of {what}, got a {_kind(value)}")
        return value

    return check


def _word(value: Any) -> Any:
    if not isinstance(value, str) or not value.strip():
        raise _problem(f"must be a non-empty string, got {value!r}")
    return value.strip()


def _fact(value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, list) and value and all(isinstance(a, str) and a.strip() for a in value):
        return tuple(a.strip() for a in value)
    raise _problem(f"must be a non-empty string or a list of alternative strings, got {value!r}")


def _deficiency_type(value: Any) -> Any:
    try:
        return DeficiencyType(_word(value))
    except ValueError:
        allowed = ", ".join(x.value for x in DeficiencyType)
        raise _problem(f"unknown type {value!r}; use one of {allowed}") from None


def _notes(value: Any) -> Any:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _problem(f"expected text, got a {_kind(value)}")
    return value.strip()


def _folder(value: Any) -> Any:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or "\n" in value:
        raise _problem("expected a folder path on one line")
    return value.strip()


def _verdict_word(value: Any) -> str:
    word = str(value).strip().lower() if isinstance(value, (str, bool)) else ""
    word = {"true": "yes", "false": "no"}.get(word, word)
    if word not in VERDICT_WORDS:
        raise _problem(f"expected 'yes' or 'no', got {value!r}")
    return word


def _expected_verdict(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, dict):
        if not value:
            raise _problem("expected 'yes', 'no' or a mapping jurisdiction -> 'yes'/'no', got an empty mapping")
        return {str(k).strip(): _verdict_word(v) for k, v in value.items()}
    return _verdict_word(value)


def _flag(value: Any) -> Any:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise _problem(f"expected true or false, got {value!r}")
    return value


class QuestionEntry(BaseModel):
    """One entry of a questions file as written; unknown keys are ignored."""

    question: Annotated[str, BeforeValidator(_question)]
    id: Annotated[str | None, BeforeValidator(_label)] = None
    as_of: Annotated[date | None, BeforeValidator(_as_of)] = None
    jurisdictions: Annotated[list[Annotated[str, BeforeValidator(_word)]], BeforeValidator(_listed("strings"))] = []
    expected_facts: Annotated[
        list[Annotated[str | tuple[str, ...], BeforeValidator(_fact)]],
        BeforeValidator(_listed("short strings", single=False)),
    ] = []
    expected_deficiency_types: Annotated[
        list[Annotated[DeficiencyType, BeforeValidator(_deficiency_type)]], BeforeValidator(_listed("strings"))
    ] = []
    notes: Annotated[str, BeforeValidator(_notes)] = ""
    expected_verdict: Annotated[str | dict[str, str] | None, BeforeValidator(_expected_verdict)] = None
    complete_in_corpus: Annotated[bool, BeforeValidator(_flag)] = False
    corpus: Annotated[str | None, BeforeValidator(_folder)] = None


def _parse_entry(entry: Any, n: int, source: str) -> EvalQuestion:
    where = f"{source}: entry {n}"
    if not isinstance(entry, dict):
        raise QuestionsFileError(f"{where}: expected a mapping with at least a 'question' key, got a {_kind(entry)}")
    try:
        e = QuestionEntry.model_validate({str(k): v for k, v in entry.items()})
    except ValidationError as exc:
        err = exc.errors()[0]
        key, *rest = err["loc"]
        item = f"item {int(rest[0]) + 1}: " if rest else ""
        problem = "missing (required)" if err["type"] == "missing" else err["msg"]
        raise QuestionsFileError(f"{where}: key '{key}': {item}{problem}") from None
    return EvalQuestion(
        label=e.id or f"Q{n}",
        question=e.question,
        as_of=e.as_of,
        jurisdictions=tuple(e.jurisdictions),
        expected_facts=tuple(e.expected_facts),
        expected_deficiency_types=tuple(dict.fromkeys(e.expected_deficiency_types)),
        notes=e.notes,
        expected_verdict=e.expected_verdict,
        complete_in_corpus=e.complete_in_corpus,
        corpus=e.corpus,
    )


def _kind(value: Any) -> str:
    return {dict: "mapping", list: "list", str: "string", int: "number", float: "number", bool: "boolean"}.get(
        type(value), type(value).__name__
    )
