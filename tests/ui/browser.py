"""Driving the app in Debian's Chromium: a `streamlit run` server on a fresh data dir, a Playwright page, and the
steps every browser scenario takes (open a page from the sidebar, wait for the app's script run, screenshot,
download)."""

from __future__ import annotations

import shutil
import socket
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

from tests import early
from tests.forkserver import session_server
from tests.sample_data import sample_data
from tests.ui.support import CLEARED_ENV, REPO_ROOT

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
VISITED: set[str] = set()
"""The pages opened from the sidebar so far."""
APP = "[data-testid='stApp']"
RUN_STARTS_MS = 300


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve(tmp: Path) -> Iterator[str]:
    """`streamlit run app.py` on a copy of the sample data (ingested once per test run, tests/sample_data.py;
    the app's own first-start indexing is tested with AppTest in tests/ui/test_pages.py); its URL. The server's log
    is `tmp/server.log`."""
    port = free_port()
    data = shutil.copytree(sample_data(tmp / "sample"), tmp / "data")
    env = {k: v for k, v in early.environment().items() if k not in CLEARED_ENV}
    env.update(WORKBENCH_DATA_DIR=str(data), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    # forked from the session's fork server, which has imported the app (torch and sentence-transformers: about
    # 5 s of CPU a fresh interpreter would spend again); stderr, where Streamlit logs, is the server's log
    server = session_server(REPO_ROOT, early.environment())
    child = server.spawn(
        [
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
        env=env,
        cwd=REPO_ROOT,
        stderr=tmp / "server.log",
    )
    threading.Thread(target=child.stdout.read, daemon=True).start()  # its banner; a full pipe would block it
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert not child.exited(), (tmp / "server.log").read_text()
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "streamlit did not answer /_stcore/health within 60 s"
            time.sleep(0.3)
        yield url
    finally:
        child.stop()


@contextmanager
def browse(requests: list[str]) -> Iterator[object]:
    """A Chromium page; every URL it requests is appended to `requests`."""
    ARTIFACTS.mkdir(exist_ok=True)
    p = _started_playwright()
    try:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
        context.set_default_timeout(60_000)
        page = context.new_page()
        page.on("request", lambda request: requests.append(request.url))
        yield page
        context.close()
        browser.close()
    finally:
        p.stop()


def _started_playwright() -> Any:
    """Playwright, started from this job's thread (its driver copies os.environ: `early.retried`)."""
    return early.retried(lambda: sync_playwright().start(), (KeyError,))


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


NAV_TRIES = 3


def go(page: object, title: str) -> None:
    """Open a page from the sidebar navigation, once the app is idle; a click the app drops while it redraws the
    sidebar (seen on a loaded machine: the page never changed) is repeated, up to NAV_TRIES clicks."""
    VISITED.add(title)
    heading = f"h1:has-text('{title if title != 'Deficiencies' else 'Deficiency board'}')"
    settle(page)
    for attempt_no in range(1, NAV_TRIES + 1):
        page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
        try:
            page.wait_for_selector(heading, timeout=30_000)
            break
        except PlaywrightTimeout:
            if attempt_no == NAV_TRIES:
                raise
            settle(page)
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


def attempt(page: object, scenario: Callable[[], None]) -> BaseException | None:
    """Run one scenario; its error (test-artifacts/failure.png shows the page then), or None."""
    try:
        with screenshot_on_failure(page):
            scenario()
    except Exception as exc:
        return exc
    return None
