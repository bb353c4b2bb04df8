"""Fixtures of the UI tests (AppTest and browser).

ui_data_dir     session: a data dir whose default collection holds the sample corpus (a copy of the session
                `sample_data_dir` of tests/conftest.py).
app_env         the environment the app reads (WORKBENCH_DATA_DIR = ui_data_dir, offline engine, no servers),
                with the app's cached Workbench cleared before and after the test.
app             an AppTest of app.py in that environment (not yet run).
alone_env       like app_env, on a data dir of the test's own (no session of another test in it: a Run of Q1 there
                never meets the duplicate prompt of a Q1 another test asked a moment ago).
wb              a Workbench on the app's data dir, to set up sessions and check what the pages did.
q1_paused / q1_done     Q1 of questions/q1-q6.yaml started through the service: paused at its first review / finished.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.config import Settings
from core.domain.records import AnalystDeficiency
from core.service import RunResult, Workbench
from tests.ui.support import APP, Q1, Q1_AS_OF, offline_env
from ui.shared import workbench


@pytest.fixture(scope="session")
def ui_data_dir(tmp_path_factory: pytest.TempPathFactory, copy_sample_data: Callable[[Path], Path]) -> Path:
    """The sample corpus in the default collection of a session-wide data dir."""
    return copy_sample_data(tmp_path_factory.mktemp("ui") / "data")


@pytest.fixture
def app_env(monkeypatch: pytest.MonkeyPatch, ui_data_dir: Path) -> Iterator[Path]:
    """The app's environment on the shared data dir, with a fresh cached Workbench."""
    offline_env(monkeypatch, ui_data_dir)
    workbench.clear()
    yield ui_data_dir
    workbench.clear()


@pytest.fixture
def alone_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, copy_sample_data: Callable[[Path], Path]
) -> Iterator[Path]:
    """The app's environment on a fresh copy of the sample data dir."""
    data_dir = copy_sample_data(tmp_path / "data")
    offline_env(monkeypatch, data_dir)
    workbench.clear()
    yield data_dir
    workbench.clear()


@pytest.fixture
def app(app_env: Path) -> AppTest:
    """app.py under AppTest (call .run() to load it)."""
    return AppTest.from_file(str(APP), default_timeout=60)


@pytest.fixture
def wb(app_env: Path) -> Workbench:
    """The service on the app's data dir."""
    return Workbench(Settings())


@pytest.fixture
def q1_paused(wb: Workbench) -> RunResult:
    """Q1 waiting for its first review."""
    result = wb.start(Q1, as_of=Q1_AS_OF, approve="manual")
    assert result.status == "awaiting_review"
    return result


@pytest.fixture
def q1_done(wb: Workbench) -> RunResult:
    """Q1 run to the end with every correction approved by policy."""
    result = wb.start(Q1, as_of=Q1_AS_OF, approve="all")
    assert result.status == "completed"
    return result


@pytest.fixture
def q1_residual(wb: Workbench, q1_done: RunResult) -> RunResult:
    """Q1 finished, with one residual: a deficiency the analyst added after the run (the loop leaves none)."""
    added = AnalystDeficiency(
        deficiency_type="missing_exemption",
        subject="MSB agents",
        description="Agents of money service businesses are not covered.",
        suggested_correction_query="money service business agents",
        severity="high",
        affected_section="US",
    )
    result = wb.add_residual(q1_done.thread_id, added, editor="analyst", reason="seen in review")
    assert len(result.residual_deficiencies) == 1
    return result
