"""The workbench in a real browser: a `streamlit run` server driven by Playwright in Debian's Chromium.

Covers what AppTest cannot: the live status box, the data editor, rendered plotly charts, file downloads and a
page reload. Screenshots of every page go to test-artifacts/ (git-ignored). The scenarios run as two early jobs
(tests/early.py), each with a server and a browser of its own (the Q1 scenario; the analyst's desk and an upload
carried to the exports): they start when collection ends, beside the in-process tests, and the tests read their
outcomes.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests import early
from tests.ui.browser import CHROMIUM, VISITED, PlaywrightTimeout, attempt, browse, download, go, serve, settle, shot
from tests.ui.desk_more import upload_to_export_scenario
from tests.ui.desk_scenarios import desk_scenario
from tests.ui.support import Q1
from ui.board import FINISHED_ORDER, PAUSED_ORDER

NOTE = "checked against the FinCEN rule text"
EDIT_TRIES = 5
GRID_TRIES = 3
"""Times the paused board's keyed decision is entered before the staged marker must show."""
PAGES = ("Research", "Inbox", "Deficiencies", "Cycles", "Export", "Corpus", "Sessions")

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed at /usr/bin/chromium (apt-get install chromium)"
)


@dataclass
class BrowserRun:
    """What one browser job saw: each scenario's error (None when it passed, keyed by scenario), every URL
    requested, the app's address and the server's log."""

    errors: dict[str, BaseException | None]
    requests: list[str]
    url: str
    server_log: str

    def raise_error(self, scenario: str) -> None:
        """Raise the scenario's error, if it had one."""
        if self.errors[scenario] is not None:
            raise self.errors[scenario]


def _in_the_browser(tmp: Path, scenarios: dict[str, Callable[[str, object], None]]) -> BrowserRun:
    """The scenarios in order, in one browser against one fresh server."""
    requests: list[str] = []
    errors: dict[str, BaseException | None] = {}
    with serve(tmp) as url, browse(requests) as page:
        for name, scenario in scenarios.items():
            errors[name] = attempt(page, lambda scenario=scenario: scenario(url, page))
    return BrowserRun(errors, requests, url, (tmp / "server.log").read_text())


def q1_in_the_browser(tmp: Path) -> BrowserRun:
    """The Q1 scenario, then every page it did not open."""
    return _in_the_browser(tmp, {"q1": q1_scenario, "rest": open_the_other_pages})


def desk_in_the_browser(tmp: Path) -> BrowserRun:
    """The analyst's desk, then an upload carried to the exports (a server of their own: on two workers the two
    browser jobs run side by side)."""
    return _in_the_browser(tmp, {"desk": desk_scenario, "more": upload_to_export_scenario})


if CHROMIUM.exists():
    early.job("browser", q1_in_the_browser, long=True)
    early.job("browser-desk", desk_in_the_browser, long=True)


@pytest.mark.early("browser")
def test_q1_from_question_to_downloads() -> None:
    """Q1 from the question to the downloads in a real browser (an early job: it runs beside the tests before
    it); the server logs no traceback."""
    run = early.outcome("browser")
    run.raise_error("q1")
    assert "Traceback" not in run.server_log, run.server_log


@pytest.mark.early("browser-desk")
def test_the_analysts_desk() -> None:
    """Corpus provenance and badges, a second Run asked first, a residual added from the board after the run,
    decisions in words and a branch marked with its parent (tests/ui/desk_scenarios.py)."""
    run = early.outcome("browser-desk")
    run.raise_error("desk")
    assert "Traceback" not in run.server_log, run.server_log


@pytest.mark.early("browser-desk")
def test_from_an_upload_to_the_exports() -> None:
    """Two notes uploaded, a question on them, deficiencies added while paused and confirmed (in the next review,
    and after the run), a claim struck, and Word and Markdown exports free of codes and stray markup
    (tests/ui/desk_more.py)."""
    early.outcome("browser-desk").raise_error("more")


@pytest.mark.early("browser")
@pytest.mark.early("browser-desk")
def test_nothing_is_fetched_from_another_host() -> None:
    """Air-gapped use: every page (and the tab icon) loads from the app's own address only. The requests of every
    scenario count, so only the pages the Q1 scenario did not open are opened after it."""
    run = early.outcome("browser")
    run.raise_error("rest")
    outside: set[str] = set()
    for job in (run, early.outcome("browser-desk")):
        assert job.requests
        own = urlsplit(job.url).netloc
        outside |= {
            url
            for url in job.requests
            if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).netloc != own
        }
    assert sorted(outside) == []


def q1_scenario(server: str, page: object) -> None:
    """Q1 from the question to the downloads, then a reload and a fresh visit."""
    # a deep link as the server's very first request still runs app.py (the sidebar)
    page.goto(f"{server}/corpus")
    page.wait_for_selector("h1:has-text('Corpus')", timeout=180_000)
    settle(page)
    sidebar = page.get_by_test_id("stSidebar").inner_text()
    assert "19 documents" in sidebar and "Engine: offline" in sidebar and "Single-user mode" in sidebar
    shot(page, "06-corpus")
    go(page, "Research")

    # ask Q1 as of 2026-11-30 with manual approval
    page.get_by_label("Question").fill(Q1)
    page.get_by_role("spinbutton", name="year, Answer correct as of").click()
    page.keyboard.type("20261130")
    page.keyboard.press("Escape")
    page.get_by_test_id("stFormSubmitButton").filter(has_text="Run").click()
    page.wait_for_selector("text=Paused after cycle 0", timeout=120_000)
    settle(page)
    assert "?session=" in page.url
    thread_id = page.url.split("session=")[1].split("&")[0]
    assert "2026-11-30" in page.get_by_test_id("stMain").inner_text()

    # the paused board: a decision set in the grid is staged on the server, survives a reload, and is discarded
    go(page, "Deficiencies")
    for attempt_no in range(1, GRID_TRIES + 1):  # on a loaded machine the grid has dropped a keyed edit
        grid = page.get_by_test_id("stDataFrame").first
        box = grid.bounding_box()
        page.mouse.click(box["x"] + 30, box["y"] + 35 + 36)
        for _ in range(PAUSED_ORDER.index("decision")):  # the decision column
            page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
        page.wait_for_timeout(400)
        page.keyboard.type("dismissed")
        page.keyboard.press("Enter")
        page.wait_for_timeout(300)
        page.keyboard.press("Escape")
        try:
            page.wait_for_selector("text=(not yet submitted)", timeout=30_000)
            break
        except PlaywrightTimeout:
            if attempt_no == GRID_TRIES:
                raise
            settle(page)
    settle(page)
    page.reload()
    page.wait_for_selector("text=(not yet submitted)", timeout=120_000)
    settle(page)
    assert "Staged for the next resume" in page.get_by_test_id("stMain").inner_text()
    shot(page, "08-board-staged")
    page.get_by_role("button", name="Discard staged edits").click()
    page.wait_for_function("() => !document.body.innerText.includes('not yet submitted')", timeout=30_000)
    settle(page)
    go(page, "Research")

    # the review queue: no card is decided in advance, so Submit waits; Enter in a note submits nothing
    submit = page.get_by_role("button", name="Submit decisions")
    main = page.get_by_test_id("stMain")
    page.wait_for_selector("text=/[0-9]+ of [0-9]+ cards undecided/")  # the cards are drawn after the draft
    cards = main.get_by_test_id("stRadio").count()
    assert submit.is_disabled() and f"{cards} of {cards} cards undecided" in main.inner_text()
    main.get_by_test_id("stRadio").last.get_by_text("Reject").click()
    settle(page)
    note = main.get_by_label("Note").last
    note.fill("out of scope for this memo")
    note.press("Enter")
    settle(page)
    assert "Paused after cycle 0" in main.inner_text() and note.input_value() == "out of scope for this memo"
    assert submit.is_disabled() == (cards > 1)
    shot(page, "01-research-review-queue")
    # approve every undecided card and submit, until the run finishes
    cycle = 0
    for _ in range(10):
        for query in main.get_by_label("Correction query").all():
            if not query.input_value().strip():
                query.fill("beneficial ownership threshold")
                query.press("Tab")
                settle(page)
        for radio in main.get_by_test_id("stRadio").all():
            if not radio.locator("input:checked").count():
                radio.get_by_text("Approve").click()
                settle(page)
        submit.click()
        # the next pause, not the answered one: its text stays on the page while the resumed run starts
        page.wait_for_selector(f"text=/Paused after cycle (?!{cycle}:)[0-9]+:|Why the loop stopped/", timeout=120_000)
        settle(page)
        if page.get_by_text("Why the loop stopped").count():
            break
        cycle = int(re.search(r"Paused after cycle ([0-9]+):", main.inner_text())[1])
    main = page.get_by_test_id("stMain").inner_text()
    assert "Why the loop stopped" in main
    assert "Residual deficiencies:" in main or "No residual deficiencies" in main
    shot(page, "02-research-answer")

    # a claim expands to the passage it quotes, the supporting sentence in bold
    evidence = page.locator(f".st-key-evidence-{thread_id}-0")
    evidence.locator("summary").click()
    evidence.locator("strong").first.wait_for()
    assert evidence.locator("strong").count() >= 2  # the document's title and the quoted sentence
    assert "effective" in evidence.inner_text() and "2026-11-30" in evidence.inner_text()  # dates, status at as-of

    # the board: annotate a deficiency (note) with editor and reason
    go(page, "Deficiencies")
    saved = page.locator("text=Saved 1 annotation(s) by analyst")
    for attempt_no in range(1, EDIT_TRIES + 1):  # an edit a loaded page did not take ("Nothing changed") is redone
        grid = page.get_by_test_id("stDataFrame").first
        box = grid.bounding_box()
        page.mouse.click(box["x"] + 30, box["y"] + 35 + 17)
        page.wait_for_timeout(200 * attempt_no)
        for _ in range(FINISHED_ORDER.index("note")):
            page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
        page.wait_for_timeout(300 * attempt_no)
        page.keyboard.type(NOTE)
        page.wait_for_timeout(200 * attempt_no)
        page.keyboard.press("Enter")
        page.wait_for_timeout(500 * attempt_no)
        page.get_by_label("Reason").fill("source check")
        page.get_by_test_id("stFormSubmitButton").filter(has_text="Save annotations").click()
        saved.or_(page.locator("text=Nothing changed on the board.")).first.wait_for(timeout=60_000)
        if saved.count() or attempt_no == EDIT_TRIES:
            break
        page.reload()  # a fresh grid: the cell a missed click left selected is not where the next one starts
        page.wait_for_selector("h1:has-text('Deficiency board')", timeout=120_000)
        settle(page)
    saved.wait_for(timeout=1_000)
    settle(page)
    shot(page, "03-deficiency-board")

    # the charts render
    go(page, "Cycles")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=\"stPlotlyChart\"] .main-svg').length >= 3")
    assert page.locator(".js-plotly-plot").count() == 3
    assert "threshold 0.85" in page.get_by_test_id("stPlotlyChart").first.inner_text()
    shot(page, "04-cycles")

    # each export format downloads, with the residual deficiencies and the annotation
    go(page, "Export")
    assert "Audit chain intact" in page.get_by_test_id("stMain").inner_text()
    shot(page, "05-export")
    markdown = download(page, "Markdown").decode("utf-8")
    assert markdown.startswith("# Compliance research export") and "## Residual deficiencies" in markdown
    assert "out of scope for this memo" in markdown  # the rejection, in the cycle records
    exported = json.loads(download(page, "JSON"))
    assert exported["thread_id"] == thread_id and exported["audit"]["verified"] is True
    assert any(d["analyst_note"] == NOTE for d in exported["identified_deficiencies"])
    annotation = next(a for a in exported["human_acts"] if a["kind"] == "annotation")
    assert (annotation["actor"], annotation["reason"], annotation["new"]) == ("analyst", "source check", NOTE)
    assert exported["audit"]["covers"]["human_acts"] >= 1 and exported["audit"]["chain_head"]
    assert "source check" in markdown and exported["audit"]["chain_head"] in markdown
    assert all(d["id"] in markdown for d in exported["residual_deficiencies"])
    docx = download(page, "Word (DOCX)")
    with zipfile.ZipFile(io.BytesIO(docx)) as z:
        document = z.read("word/document.xml").decode("utf-8")
    assert "Residual deficiencies" in document and "out of scope for this memo" in document
    assert "Human acts" in document and "source check" in document

    # a reload keeps the session; a fresh visit finds it on the Sessions page
    page.reload()
    page.wait_for_selector("h1:has-text('Export')")
    settle(page)
    assert thread_id in page.get_by_test_id("stSidebar").inner_text()
    assert "Audit chain intact" in page.get_by_test_id("stMain").inner_text()
    page.goto(server)
    page.wait_for_selector("h1:has-text('Research')")
    settle(page)
    assert "No session open" in page.get_by_test_id("stSidebar").inner_text()
    go(page, "Sessions")
    assert page.get_by_label("Session", exact=True).input_value().startswith("Compare CDD requirements")
    shot(page, "07-sessions")
    page.get_by_role("button", name="Open session").click()
    page.wait_for_selector("text=Why the loop stopped")
    settle(page)
    assert f"session={thread_id}" in page.url


def open_the_other_pages(url: str, page: object) -> None:
    """Open every page the Q1 scenario did not (all of them when it stopped before opening one)."""
    if not VISITED:
        page.goto(url)
        page.wait_for_selector("h1:has-text('Research')", timeout=180_000)
        settle(page)
    for title in PAGES:
        if title not in VISITED:
            go(page, title)
    page.wait_for_timeout(500)
