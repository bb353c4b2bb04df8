"""Settings from the environment (and Streamlit secrets fed in by the app), one object for the whole process."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from core.limits import MAX_CYCLES

ENGINE_NAMES = ("offline", "llm", "hybrid")
SEVERITY_NAMES = ("low", "medium", "high", "critical")
"""The values WORKBENCH_ENGINE and WORKBENCH_BLOCKING_SEVERITY accept (the engine factory and core.state.Severity
define the same sets; settings are checked here so a typo fails at start with the variable's name)."""


class Settings(BaseSettings):
    """Every tunable of the workbench. Environment variables use the `WORKBENCH_` prefix unless aliased."""

    model_config = SettingsConfigDict(env_prefix="WORKBENCH_", extra="ignore", populate_by_name=True)

    data_dir: Path = Path("./data")
    collection: str = "regulatory"
    qdrant_url: str | None = Field(default=None, validation_alias="QDRANT_URL")
    qdrant_api_key: str | None = Field(default=None, validation_alias="QDRANT_API_KEY")
    database_url: str | None = None
    db_pool_size: int = Field(default=20, ge=2)

    embedding_model: str = "all-MiniLM-L6-v2"
    chunk_words: int = 180
    chunk_overlap_words: int = 30
    max_upload_mb: int = 50
    max_query_chars: int = 4000

    engine: str | None = None
    openai_api_key: str | None = Field(default=None, validation_alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(default=None, validation_alias="OPENAI_BASE_URL")
    llm_model: str = "gpt-4o-mini"
    llm_timeout_s: float = Field(default=60.0, gt=0)
    llm_max_retries: int = 3
    llm_backoff_s: float = 1.0
    llm_max_wait_s: float = 20.0
    llm_budget_calls: int = 0
    llm_budget_tokens: int = 0
    llm_deadline_s: float = Field(default=90.0, gt=0)
    llm_breaker_after: int = Field(default=3, ge=0)
    llm_breaker_cooldown_s: float = Field(default=300.0, ge=0)
    llm_max_tokens: int = Field(default=4096, ge=1)
    llm_max_claims: int = Field(default=40, ge=1)
    llm_max_findings: int = Field(default=20, ge=0)

    retrieval_k: int = 8
    correction_k: int = 4
    max_cycles: int = Field(default=4, ge=0, le=MAX_CYCLES)
    quality_threshold: float = 0.85
    blocking_severity: str = "medium"
    plateau_epsilon: float = 0.01
    plateau_cycles: int = 2
    unresolvable_after: int = 2

    @field_validator("data_dir")
    @classmethod
    def _a_directory(cls, v: Path) -> Path:
        if v.exists() and not v.is_dir():
            raise ValueError(f"{v} exists and is not a directory")
        return v

    @field_validator("engine", mode="before")
    @classmethod
    def _known_engine(cls, v: object) -> object:
        if isinstance(v, str):
            v = v.strip().lower() or None
            if v is not None and v not in ENGINE_NAMES:
                raise ValueError(f"unknown engine: use one of {', '.join(ENGINE_NAMES)}")
        return v

    @field_validator("blocking_severity", mode="before")
    @classmethod
    def _known_severity(cls, v: object) -> object:
        if isinstance(v, str):
            v = v.strip().lower()
            if v not in SEVERITY_NAMES:
                raise ValueError(f"unknown severity: use one of {', '.join(SEVERITY_NAMES)}")
        return v

    @property
    def checkpoint_path(self) -> Path:
        """SQLite file holding checkpoints and the session store."""
        return self.data_dir / "checkpoints.sqlite"

    @property
    def qdrant_path(self) -> Path:
        """Directory holding the embedded Qdrant Edge shards, one sub-directory per collection."""
        return self.data_dir / "qdrant"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once."""
    return Settings()


def describe_settings_error(exc: ValidationError) -> str:
    """One line naming the environment variable of the first invalid setting (its value only when not a secret)."""
    err = exc.errors()[0]
    field = str(err["loc"][0]) if err["loc"] else ""
    info = Settings.model_fields.get(field)
    alias = info.validation_alias if info is not None and isinstance(info.validation_alias, str) else None
    name = alias or f"WORKBENCH_{field.upper()}"
    secret = field.endswith(("_key", "_url"))
    shown = "" if secret or "input" not in err else f"={err['input']!r}"
    message = str(err["msg"]).removeprefix("Value error, ")
    return f"invalid setting {name}{shown}: {message}"
