"""Settings sources: the environment first, then Streamlit's secrets file (read without Streamlit)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from core.config import Settings, describe_settings_error
from core.domain.records import Severity


def secrets(tmp_path: Path, text: str) -> None:
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text(text, encoding="utf-8")


def test_secrets_fill_what_the_environment_leaves_unset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Environment names or field names, any case; tables such as [auth] are Streamlit's and skipped; an aliased
    setting (OPENAI_API_KEY) is read under its alias."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WORKBENCH_MAX_CYCLES", "7")
    monkeypatch.delenv("WORKBENCH_QUALITY_THRESHOLD", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    secrets(
        tmp_path,
        'WORKBENCH_MAX_CYCLES = 2\nquality_threshold = 0.9\nOPENAI_API_KEY = "sk-x"\n'
        'blocking_severity = "High"\n[auth]\nclient_id = "x"\n',
    )
    s = Settings()
    assert (s.max_cycles, s.quality_threshold, s.openai_api_key) == (7, 0.9, "sk-x")
    assert s.blocking_severity is Severity.high


def test_no_secrets_file_and_a_broken_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert Settings().max_cycles == Settings.model_fields["max_cycles"].default
    secrets(tmp_path, "max_cycles = [unclosed\n")
    with pytest.raises(ValueError, match=r"secrets\.toml is not valid TOML"):
        Settings()


def test_engine_and_severity_take_only_known_names() -> None:
    assert Settings(engine=" LLM ").engine == "llm" and Settings(engine="").engine is None
    with pytest.raises(ValidationError, match="unknown engine: use one of offline, llm, hybrid"):
        Settings(engine="turbo")
    with pytest.raises(ValidationError, match="unknown severity: use one of low, medium, high, critical"):
        Settings(blocking_severity="urgent")


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("WORKBENCH_QUALITY_THRESHOLD", "nan", "Input should be a finite number"),
        ("WORKBENCH_QUALITY_THRESHOLD", "1.5", "Input should be less than or equal to 1"),
        ("WORKBENCH_QUALITY_THRESHOLD", "-0.1", "Input should be greater than or equal to 0"),
        ("WORKBENCH_PLATEAU_EPSILON", "inf", "Input should be a finite number"),
        ("WORKBENCH_LLM_TIMEOUT_S", "inf", "Input should be a finite number"),
        ("WORKBENCH_MAX_QUERY_CHARS", "-5", "Input should be greater than or equal to 1"),
        ("WORKBENCH_RETRIEVAL_K", "0", "Input should be greater than or equal to 1"),
        ("WORKBENCH_CORRECTION_K", "0", "Input should be greater than or equal to 1"),
        ("WORKBENCH_CHUNK_WORDS", "0", "Input should be greater than or equal to 1"),
        ("WORKBENCH_CHUNK_OVERLAP_WORDS", "180", "must be less than WORKBENCH_CHUNK_WORDS (180)"),
        ("WORKBENCH_MAX_UPLOAD_MB", "0", "Input should be greater than or equal to 1"),
        ("WORKBENCH_PLATEAU_CYCLES", "0", "Input should be greater than or equal to 1"),
        ("WORKBENCH_UNRESOLVABLE_AFTER", "0", "Input should be greater than or equal to 1"),
        ("WORKBENCH_LLM_MAX_RETRIES", "-1", "Input should be greater than or equal to 0"),
    ],
)
def test_settings_out_of_range_or_not_finite_are_refused_naming_the_variable(
    variable: str, value: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValidationError) as info:
        Settings()
    assert describe_settings_error(info.value) == f"invalid setting {variable}={value!r}: {message}"
