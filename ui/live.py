"""Live progress drawn while a long service call runs: the status box of a loop run, the bar of an ingest, and the
run's log kept with the tab so that it can be shown again after the rerun."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from core.domain.safe_markdown import md_escape
from core.service import ProgressEvent, RunResult, SessionStatus
from ui.frames import status_line

RUN_LOG_KEY = "run-log"
NODE_NAMES = {
    "plan": "Plan",
    "retrieve": "Retrieve",
    "draft": "Draft",
    "critique": "Critique",
    "review": "Review",
    "correct": "Correction retrieval",
    "revise": "Revise",
    "finalize": "Finalize",
}


class _Live:
    """Calls st.* from inside a long service call; a click meanwhile is held until the call returns.

    Streamlit raises its rerun/stop request at the next st.* call, as a BaseException that is not an Exception (so
    that `except Exception` lets it through). Raised inside a progress callback it would cut the run off between
    two steps, so it is kept and raised again once the service call has returned. Errors (Exception) and the
    interpreter's own exits (KeyboardInterrupt, SystemExit, GeneratorExit) pass through at once.
    """

    def __init__(self) -> None:
        self._held: BaseException | None = None

    def _guard(self, draw: Callable[[], Any]) -> None:
        try:
            draw()
        except (Exception, KeyboardInterrupt, SystemExit, GeneratorExit):
            raise
        except BaseException as exc:
            self._held = exc

    def _release(self) -> None:
        if self._held is not None:
            raise self._held


class LiveBar(_Live):
    """A progress bar fed by `progress(done, total, label)` callbacks (ingest)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self._text = text
        self._slot = st.empty()
        self._slot.progress(0.0, text=text)

    def __call__(self, done: int, total: int, name: str) -> None:
        self._guard(lambda: self._slot.progress(done / max(total, 1), text=f"{self._text} {done}/{total}: {name}"))

    def finish(self) -> None:
        """Remove the bar, then act on a click held during the call."""
        self._guard(self._slot.empty)
        self._release()


class LiveProgress(_Live):
    """An st.status box showing each finished loop step as it happens."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.lines: list[str] = []
        self._box = st.status(text, expanded=True)

    def __call__(self, event: ProgressEvent) -> None:
        line = event_line(event)
        self.lines.append(line)

        def draw() -> None:
            self._box.markdown(line)
            self._box.update(label=line)

        self._guard(draw)

    def finish(self, result: RunResult) -> None:
        """Close the box, keep the log with the session and rerun (or act on a held click)."""
        text = outcome_line(result)
        st.session_state.setdefault(RUN_LOG_KEY, {})[result.thread_id] = (text, self.lines)
        self._guard(lambda: self._box.update(label=text, state="complete", expanded=False))
        self._release()
        st.rerun()

    def fail(self, message: str) -> None:
        """Mark the box failed and say why once, below it (the message may quote input: escaped)."""
        done = "The run stopped" if self.lines else "The run did not start"
        self._guard(lambda: self._box.update(label=done, state="error", expanded=bool(self.lines)))
        self._guard(lambda: st.error(md_escape(message)))
        self._release()


def event_line(event: ProgressEvent) -> str:
    """One progress line: cycle, step and what it did."""
    step = NODE_NAMES.get(event.node, event.node)
    where = f"Cycle {event.cycle} · " if event.cycle >= 0 and event.node != "critique" else ""
    return f"{where}**{step}**: {md_escape(event.detail)}"


def outcome_line(result: RunResult) -> str:
    """Where a run left the session."""
    if result.status == SessionStatus.awaiting_review and result.pending_review:
        n = len(result.pending_review["proposals"])
        return f"Paused for review at cycle {result.pending_review['cycle']}: {n} proposed correction{'s' * (n != 1)}"
    if result.status == SessionStatus.completed:
        return f"Finished: {result.outcome.badge}"
    return status_line(result).capitalize()


def show_run_log(thread_id: str) -> None:
    """The progress log of this tab's last run on the session, collapsed."""
    entry = st.session_state.get(RUN_LOG_KEY, {}).get(thread_id)
    if entry:
        text, lines = entry
        with st.status(f"Last run: {text}", state="complete", expanded=False):
            for line in lines:
                st.markdown(line)
