"""Constants and helpers shared by the UI tests and the UI benchmark."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

REPO_ROOT = Path(__file__).resolve().parents[2]
APP = REPO_ROOT / "app.py"
Q1 = (
    "Compare CDD requirements for money service businesses under EU AMLR 2024 and FinCEN's CDD Rule, "
    "focusing on beneficial ownership thresholds."
)
Q1_AS_OF = "2026-11-30"
CLEARED_ENV = (
    "QDRANT_URL",
    "QDRANT_API_KEY",
    "WORKBENCH_DATABASE_URL",
    "WORKBENCH_ENGINE",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "WORKBENCH_COLLECTION",
    "WORKBENCH_MAX_CYCLES",
    "WORKBENCH_QUALITY_THRESHOLD",
)


def offline_env(monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> None:
    """Point the app at `data_dir` on the embedded backends and the offline engine."""
    for name in CLEARED_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(data_dir))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


def open_session(app: AppTest, thread_id: str, page: str | None = None) -> AppTest:
    """Load the app with `?session=<thread_id>` (as a reload would), then switch to `page`."""
    app.query_params["session"] = thread_id
    app.run()
    if page:
        app.switch_page(page)
        app.run()
    assert not app.exception, app.exception
    return app
