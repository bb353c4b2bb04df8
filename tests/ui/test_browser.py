"""The workbench in a real browser: a `streamlit run` server driven by Playwright in Debian's Chromium.

Covers what AppTest cannot: the live status box, the data editor, rendered plotly charts, file downloads and a
page reload. Screenshots of every page go to test-artifacts/ (git-ignored). The scenarios run as one early job
(tests/early.py): they start when collection ends, beside the in-process tests, and the two tests read the outcome.
"""

from __future__ import annotations

import io
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

from tests import early
from tests.ui.support import CLEARED_ENV, Q1, REPO_ROOT
from ui.board import FINISHED_ORDER

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO_ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
NOTE = "checked against the FinCEN rule text"
PAGES = ("Research", "Inbox", "Deficiencies", "Cycles", "Export", "Corpus", "Sessions")
VISITED: set[str] = set()
"""The pages opened from the sidebar so far."""
APP = "[data-testid='stApp']"
RUN_STARTS_MS = 300

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed at /usr/bin/chromium (apt-get install chromium)"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve(tmp: Path) -> Iterator[str]:
    """`streamlit run app.py` on a fresh data dir (the app indexes the sample corpus on first start); its URL. The
    server's log is `tmp/server.log`."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in CLEARED_ENV}
    env.update(WORKBENCH_DATA_DIR=str(tmp / "data"), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    log = (tmp / "server.log").open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
        ],
        cwd=REPO_ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp / "server.log").read_text()
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "streamlit did not answer /_stcore/health within 60 s"
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@contextmanager
def browse(requests: list[str]) -> Iterator[object]:
    """A Chromium page; every URL it requests is appended to `requests`."""
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
        context.set_default_timeout(60_000)
        page = context.new_page()
        page.on("request", lambda request: requests.append(request.url))
        yield page
        context.close()
        browser.close()


def settle(page: object) -> None:
    """Wait until the app has finished the script run the last action started, if it started one: the app's root
    names its run state (`data-test-script-state`), and a run starts within RUN_STARTS_MS of the action or not
    at all."""
    with suppress(PlaywrightTimeout):
        page.wait_for_selector(f"{APP}:not([data-test-script-state='notRunning'])", timeout=RUN_STARTS_MS)
    page.wait_for_selector(f"{APP}[data-test-script-state='notRunning']", timeout=120_000)


def shot(page: object, name: str) -> None:
    """A screenshot of the whole page (the app scrolls inside its own container, so grow the viewport first)."""
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": 1440, "height": max(1000, min(height + 80, 6000))})
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    page.set_viewport_size({"width": 1440, "height": 1000})


def go(page: object, title: str) -> None:
    """Open a page from the sidebar navigation."""
    VISITED.add(title)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
    page.wait_for_selector(f"h1:has-text('{title if title != 'Deficiencies' else 'Deficiency board'}')")
    settle(page)


def download(page: object, label: str) -> bytes:
    with page.expect_download() as info:
        page.get_by_test_id("stDownloadButton").filter(has_text=label).get_by_role("button").click()
    return Path(info.value.path()).read_bytes()


@contextmanager
def screenshot_on_failure(page: object) -> Iterator[None]:
    """Leave test-artifacts/failure.png behind when a browser step fails."""
    try:
        yield
    except BaseException:
        shot(page, "failure")
        raise


@dataclass
class BrowserRun:
    """What the browser job saw: each scenario's error (None when it passed), every URL requested, the app's
    address and the server's log."""

    q1_error: BaseException | None
    rest_error: BaseException | None
    requests: list[str]
    url: str
    server_log: str


def attempt(page: object, scenario: Callable[[], None]) -> BaseException | None:
    """Run one scenario; its error (test-artifacts/failure.png shows the page then), or None."""
    try:
        with screenshot_on_failure(page):
            scenario()
    except Exception as exc:
        return exc
    return None


def run_in_the_browser(tmp: Path) -> BrowserRun:
    """The Q1 scenario, then every page it did not open, in one browser against one fresh server."""
    requests: list[str] = []
    with serve(tmp) as url, browse(requests) as page:
        q1_error = attempt(page, lambda: q1_scenario(url, page))
        rest_error = attempt(page, lambda: open_the_other_pages(url, page))
    return BrowserRun(q1_error, rest_error, requests, url, (tmp / "server.log").read_text())


if CHROMIUM.exists():
    early.job("browser", run_in_the_browser)


@pytest.mark.early("browser")
def test_q1_from_question_to_downloads() -> None:
    """Q1 from the question to the downloads in a real browser (an early job: it runs beside the tests before
    it); the server logs no traceback."""
    run = early.outcome("browser")
    if run.q1_error is not None:
        raise run.q1_error
    assert "Traceback" not in run.server_log, run.server_log


@pytest.mark.early("browser")
def test_nothing_is_fetched_from_another_host() -> None:
    """Air-gapped use: every page (and the tab icon) loads from the app's own address only. The requests of the
    Q1 scenario count too, so only the pages it did not open are opened after it."""
    run = early.outcome("browser")
    if run.rest_error is not None:
        raise run.rest_error
    own = urlsplit(run.url).netloc
    outside = sorted(
        {
            url
            for url in run.requests
            if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).netloc != own
        }
    )
    assert run.requests
    assert outside == []


def q1_scenario(server: str, page: object) -> None:
    """Q1 from the question to the downloads, then a reload and a fresh visit."""
    # a deep link as the server's very first request still runs app.py (first-start indexing, sidebar)
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
    grid = page.get_by_test_id("stDataFrame").first
    box = grid.bounding_box()
    page.mouse.click(box["x"] + 30, box["y"] + 35 + 36)
    page.keyboard.press("ArrowRight")  # the decision column
    page.keyboard.press("Enter")
    page.wait_for_timeout(400)
    page.keyboard.type("dismissed")
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    page.keyboard.press("Escape")
    page.wait_for_selector("text=(not yet submitted)")
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
    grid = page.get_by_test_id("stDataFrame").first
    box = grid.bounding_box()
    page.mouse.click(box["x"] + 30, box["y"] + 35 + 17)
    for _ in range(FINISHED_ORDER.index("note")):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    page.keyboard.type(NOTE)
    page.wait_for_timeout(200)
    page.keyboard.press("Enter")
    page.wait_for_timeout(500)
    page.get_by_label("Reason").fill("source check")
    page.get_by_test_id("stFormSubmitButton").filter(has_text="Save annotations").click()
    page.wait_for_selector("text=Saved 1 annotation(s) by analyst")
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
