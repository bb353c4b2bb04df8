"""The pages talk only to the service, use only Streamlit's public API, and read the open session once per rerun."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.service import RunResult, Workbench
from tests.ui.support import APP

RESEARCH, BOARD, CYCLES, EXPORT, CORPUS, SESSIONS = (
    f"views/{name}.py" for name in ("research", "deficiencies", "cycles", "export", "corpus", "sessions")
)
UI_FILES = [APP, *sorted((APP.parent / "ui").glob("*.py")), *sorted((APP.parent / "views").glob("*.py"))]
BELOW_THE_SERVICE = (
    "core.retrieval",
    "core.engines",
    "core.loop.graph",
    "core.loop.deps",
    "core.persistence.checkpoints",
    "core.persistence.run_locks",
    "core.loop.termination",
)


def imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
    return modules


@pytest.mark.parametrize("path", UI_FILES, ids=lambda p: str(p.relative_to(APP.parent)))
def test_the_ui_imports_nothing_below_the_service_and_no_streamlit_internals(path: Path) -> None:
    modules = imported_modules(path)
    assert not {m for m in modules if m.startswith(BELOW_THE_SERVICE)}
    assert not {m for m in modules if m.startswith("streamlit.") and not m.startswith("streamlit.column_config")}


@pytest.mark.parametrize("page", [RESEARCH, BOARD, CYCLES, EXPORT, CORPUS, SESSIONS])
@pytest.mark.parametrize("session", ["q1_paused", "q1_done"])
def test_one_page_render_reads_the_session_once(
    app: AppTest, page: str, session: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    result: RunResult = request.getfixturevalue(session)
    reads: list[str] = []
    show = Workbench.show

    def counted(self: Workbench, thread_id: str, **kwargs: object) -> RunResult:
        reads.append(thread_id)
        return show(self, thread_id, **kwargs)

    monkeypatch.setattr(Workbench, "show", counted)
    app.query_params["session"] = result.thread_id
    app.run()  # a fresh load: the session is taken from the URL
    assert not app.exception, app.exception
    assert reads == [result.thread_id]
    reads.clear()
    app.switch_page(page).run()
    assert not app.exception, app.exception
    assert reads == [result.thread_id]
