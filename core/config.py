"""Settings from the environment, then Streamlit secrets (`.streamlit/secrets.toml`), one object for the whole
process."""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import Field, ValidationError, ValidationInfo, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from core.domain.audit import SettingsSnapshot
from core.domain.limits import MAX_CYCLES
from core.domain.records import Severity

EngineName = Literal["offline", "llm", "hybrid"]
"""The engines WORKBENCH_ENGINE names (core.engines.factory builds them)."""
ENGINE_NAMES: tuple[str, ...] = get_args(EngineName)
StructuredSetting = Literal["auto", "json_schema", "json_object", "tools"]
"""How model calls ask for structured output (core.engines.llm.modes); auto tries each and remembers."""
STRUCTURED_NAMES: tuple[str, ...] = get_args(StructuredSetting)
SEVERITY_NAMES: tuple[str, ...] = tuple(s.value for s in Severity)
SECRETS_FILE = Path(".streamlit/secrets.toml")
"""Where Streamlit reads the app's secrets (relative to the working directory, as Streamlit does)."""


class StreamlitSecretsSource(PydanticBaseSettingsSource):
    """Top-level keys of Streamlit's secrets file as settings, below the environment in priority.

    Keys may be environment names (`WORKBENCH_MAX_CYCLES`, `OPENAI_API_KEY`) or field names, in any case; tables
    (`[auth]`) are Streamlit's own and are skipped. Read with tomllib, so core/ needs no Streamlit. A file that is
    not valid TOML fails with its path, as it would in Streamlit.
    """

    def __init__(self, settings_cls: type[BaseSettings], path: Path = SECRETS_FILE):
        super().__init__(settings_cls)
        self.path = path

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        """Unused: `__call__` maps the whole file at once."""
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        if not self.path.is_file():
            return {}
        try:
            secrets = tomllib.loads(self.path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"{self.path} is not valid TOML: {exc}") from None
        fields = self.settings_cls.model_fields
        out: dict[str, Any] = {}
        for key, value in secrets.items():
            name = key.lower().removeprefix("workbench_")
            if name in fields and not isinstance(value, dict):
                alias = fields[name].validation_alias
                out[alias if isinstance(alias, str) else name] = value
        return out


def _one_of(v: object, names: tuple[str, ...], what: str) -> object:
    """A name given as text, stripped and lower-cased, refused with the names allowed when it is none of them."""
    if isinstance(v, str):
        v = v.strip().lower()
        if v not in names:
            raise ValueError(f"unknown {what}: use one of {', '.join(names)}")
    return v


class Settings(BaseSettings):
    """Every tunable of the workbench. Environment variables use the `WORKBENCH_` prefix unless aliased."""

    model_config = SettingsConfigDict(
        env_prefix="WORKBENCH_", extra="ignore", populate_by_name=True, allow_inf_nan=False
    )
    """`allow_inf_nan=False`: no setting takes nan or inf (a threshold of nan would never be met)."""

    data_dir: Path = Path("./data")
    collection: str = "regulatory"
    qdrant_url: str | None = Field(default=None, validation_alias="QDRANT_URL")
    qdrant_api_key: str | None = Field(default=None, validation_alias="QDRANT_API_KEY")
    database_url: str | None = None
    db_pool_size: int = Field(default=20, ge=2)

    embedding_model: str = "all-MiniLM-L6-v2"
    chunk_words: int = Field(default=180, ge=1)
    chunk_overlap_words: int = Field(default=30, ge=0)
    max_upload_mb: int = Field(default=50, ge=1)
    max_query_chars: int = Field(default=4000, ge=1)

    engine: EngineName | None = None
    openai_api_key: str | None = Field(default=None, validation_alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(default=None, validation_alias="OPENAI_BASE_URL")
    llm_model: str = "gpt-4o-mini"
    llm_timeout_s: float = Field(default=60.0, gt=0)
    llm_max_retries: int = Field(default=3, ge=0)
    llm_backoff_s: float = Field(default=1.0, ge=0)
    llm_max_wait_s: float = Field(default=20.0, ge=0)
    llm_budget_calls: int = Field(default=0, ge=0)
    llm_budget_tokens: int = Field(default=0, ge=0)
    llm_deadline_s: float = Field(default=90.0, gt=0)
    llm_breaker_after: int = Field(default=3, ge=0)
    llm_breaker_cooldown_s: float = Field(default=300.0, ge=0)
    llm_max_tokens: int = Field(default=4096, ge=1)
    llm_max_claims: int = Field(default=40, ge=1)
    llm_max_findings: int = Field(default=20, ge=0)
    llm_structured: StructuredSetting = "auto"
    llm_context_tokens: int = Field(default=8192, ge=1024)
    llm_tokenizer: Path | None = None
    """A tokenizer.json (Hugging Face `tokenizers` format) to count prompt tokens with; default: the one shipped
    with the embedding model's package."""

    retrieval_k: int = Field(default=8, ge=1)
    correction_k: int = Field(default=4, ge=1)
    max_cycles: int = Field(default=4, ge=0, le=MAX_CYCLES)
    quality_threshold: float = Field(default=0.85, ge=0, le=1)
    blocking_severity: Severity = Severity.medium
    plateau_epsilon: float = Field(default=0.01, ge=0)
    plateau_cycles: int = Field(default=2, ge=1)
    unresolvable_after: int = Field(default=2, ge=1)

    @field_validator("data_dir")
    @classmethod
    def _a_directory(cls, v: Path) -> Path:
        if v.exists() and not v.is_dir():
            raise ValueError(f"{v} exists and is not a directory")
        return v

    @field_validator("chunk_overlap_words")
    @classmethod
    def _overlap_below_chunk(cls, v: int, info: ValidationInfo) -> int:
        words = info.data.get("chunk_words")
        if words is not None and v >= words:
            raise ValueError(f"must be less than WORKBENCH_CHUNK_WORDS ({words})")
        return v

    @field_validator("engine", mode="before")
    @classmethod
    def _known_engine(cls, v: object) -> object:
        if isinstance(v, str) and not v.strip():
            return None
        return _one_of(v, ENGINE_NAMES, "engine")

    @field_validator("llm_structured", mode="before")
    @classmethod
    def _known_structured(cls, v: object) -> object:
        return _one_of(v, STRUCTURED_NAMES, "structured-output mode")

    @field_validator("llm_tokenizer")
    @classmethod
    def _a_tokenizer_file(cls, v: Path | None) -> Path | None:
        if v is not None and not v.is_file():
            raise ValueError(f"{v} is not a file (expected a tokenizer.json)")
        return v

    @field_validator("blocking_severity", mode="before")
    @classmethod
    def _known_severity(cls, v: object) -> object:
        return _one_of(v, SEVERITY_NAMES, "severity")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Arguments, then the environment, then Streamlit's secrets file."""
        return init_settings, env_settings, StreamlitSecretsSource(settings_cls), dotenv_settings, file_secret_settings

    @property
    def checkpoint_path(self) -> Path:
        """SQLite file holding checkpoints and the session store."""
        return self.data_dir / "checkpoints.sqlite"

    @property
    def qdrant_path(self) -> Path:
        """Directory holding the embedded Qdrant Edge shards, one sub-directory per collection."""
        return self.data_dir / "qdrant"

    def snapshot(self, engine: str, max_cycles: int) -> SettingsSnapshot:
        """These settings' rules for a session with `engine` and `max_cycles`, to keep with the session."""
        return SettingsSnapshot(
            quality_threshold=self.quality_threshold,
            blocking_severity=self.blocking_severity.value,
            plateau_epsilon=self.plateau_epsilon,
            plateau_cycles=self.plateau_cycles,
            max_cycles=max_cycles,
            unresolvable_after=self.unresolvable_after,
            engine=engine,
            model="" if engine == "offline" else self.llm_model,
        )

    def with_rules_of(self, snapshot: SettingsSnapshot) -> Settings:
        """These settings with a snapshot's termination rules, so a session resumed later runs by the rules it
        started with (the engines stay those of the process)."""
        return self.model_copy(
            update={
                "quality_threshold": snapshot.quality_threshold,
                "blocking_severity": Severity(snapshot.blocking_severity),
                "plateau_epsilon": snapshot.plateau_epsilon,
                "plateau_cycles": snapshot.plateau_cycles,
                "unresolvable_after": snapshot.unresolvable_after,
            }
        )


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
