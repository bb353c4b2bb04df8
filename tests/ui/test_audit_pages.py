"""The audit trail on the pages: the reviewer's name survives a reload through the URL, the Cycles page draws the
threshold the session started with, and the Export page verifies cycle records and human acts together."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from core.config import Settings
from core.service import SESSIONS_NS, Workbench
from tests.inert import unescape
from tests.ui.support import APP, Q1, Q1_AS_OF, open_session

CYCLES, EXPORT = "views/cycles.py", "views/export.py"


def _your_name(app: AppTest) -> str:
    return str(next(t for t in app.sidebar.text_input if t.label == "Your name").value)


def test_the_reviewer_name_comes_back_from_the_url(app: AppTest) -> None:
    app.run()
    assert _your_name(app) == "analyst"
    reloaded = AppTest.from_file(str(APP), default_timeout=60)
    reloaded.query_params["reviewer"] = "dana"
    reloaded.run()
    assert not reloaded.exception, reloaded.exception
    assert _your_name(reloaded) == "dana" and reloaded.session_state["reviewer"] == "dana"


def _threshold_line(app: AppTest) -> float:
    spec = json.loads(app.get("plotly_chart")[0].proto.spec)
    return float(next(shape["y0"] for shape in spec["layout"]["shapes"] if shape.get("y0") == shape.get("y1")))


def test_cycles_page_draws_the_threshold_the_session_started_with(app: AppTest, app_env: object) -> None:
    strict = Workbench(Settings(quality_threshold=0.6))
    done = strict.start(Q1, as_of=Q1_AS_OF, approve="all")
    open_session(app, done.thread_id, CYCLES)
    assert _threshold_line(app) == 0.6
    assert "before its settings were kept" not in unescape(" ".join(str(c.value) for c in app.caption))

    entry = dict(strict.persistence.store.get(SESSIONS_NS, done.thread_id).value)
    entry.pop("settings")
    strict.persistence.store.put(SESSIONS_NS, done.thread_id, entry, index=False)
    app.run()
    assert _threshold_line(app) == 0.85  # today's setting, said so
    assert "before its settings were kept" in unescape(" ".join(str(c.value) for c in app.caption))


def test_export_page_verifies_the_human_acts_too(app: AppTest, wb: Workbench) -> None:
    done = wb.start(Q1, as_of=Q1_AS_OF, approve="none")
    wb.annotate(done.thread_id, done.residual_deficiencies[0].id, editor="erin", reason="known gap", note="seen")
    open_session(app, done.thread_id, EXPORT)
    assert "1 human act verified" in unescape(" ".join(str(s.value) for s in app.success))
    preview = unescape(" ".join(str(m.value) for m in app.markdown))
    assert "Human acts" in preview and "erin" in preview and "known gap" in preview
