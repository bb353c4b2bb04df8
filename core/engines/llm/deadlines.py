"""Limits of model calls: a wall-clock deadline per request and a circuit breaker across calls.

A per-read timeout does not bound a request: a server that sends one byte every few seconds never trips it. So
each attempt runs on a worker thread the caller abandons at its budget (`run_within`), and the HTTP client ends
the abandoned request itself once the budget has passed (`deadline_http_client`), so no connection is held
for long after. The breaker stops calling a server that has lost several calls in a row.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import httpx
import openai

R = TypeVar("R")


class DeadlineExceeded(openai.APITimeoutError):
    """An attempt ran past its wall-clock budget (raised by the caller's watchdog, not by a read timeout)."""

    def __init__(self, budget_s: float):
        super().__init__(httpx.Request("POST", "http://deadline.invalid"))  # type: ignore[arg-type]  # openai types name its vendored httpx
        self.budget_s = budget_s


# ------------------------------------------------------------------------------------- deadline per request

_DEADLINE_KEY = "workbench_deadline"
_BUDGET: contextvars.ContextVar[float | None] = contextvars.ContextVar("llm_attempt_budget", default=None)
"""The budget `run_within` gives the attempt running in this context (it may be less than the client's)."""


class _DeadlineStream(httpx.SyncByteStream):
    """A response body that stops with a timeout once the request's wall-clock deadline has passed."""

    def __init__(self, inner: Any, deadline: float):
        self.inner, self.deadline = inner, deadline

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.inner:
            if time.monotonic() > self.deadline:
                raise httpx.ReadTimeout("total deadline of the model request exceeded")
            yield chunk

    def close(self) -> None:
        self.inner.close()


def deadline_http_client(budget_s: float) -> httpx.Client:
    """An httpx client whose every request ends within about its budget of wall-clock time (the attempt's, else
    `budget_s`): connect, write and read timeouts are capped at the budget, and the body stops at the deadline
    even if bytes keep trickling in. This also ends a request the caller has already abandoned, so no connection
    outlives its budget for long."""

    def stamp(request: httpx.Request) -> None:
        budget = _BUDGET.get() or budget_s
        request.extensions[_DEADLINE_KEY] = time.monotonic() + budget
        timeout = dict(request.extensions.get("timeout") or {})
        request.extensions["timeout"] = {
            k: budget if v is None else min(v, budget)
            for k, v in {**dict.fromkeys(("connect", "read", "write", "pool")), **timeout}.items()
        }

    def bound(response: httpx.Response) -> None:
        response.stream = _DeadlineStream(response.stream, response.request.extensions[_DEADLINE_KEY])

    return httpx.Client(event_hooks={"request": [stamp], "response": [bound]})


def run_within(fn: Callable[[], R], budget_s: float) -> R:
    """`fn()` on a worker thread, abandoned with `DeadlineExceeded` when it has not returned within `budget_s`.
    The worker runs in a copy of the caller's context, so tracing and callback configuration carry over, and its
    HTTP requests are bounded by the same budget (see `deadline_http_client`)."""
    box: dict[str, Any] = {}
    context = contextvars.copy_context()
    context.run(_BUDGET.set, budget_s)

    def work() -> None:
        try:
            box["value"] = context.run(fn)
        except BaseException as exc:
            box["error"] = exc

    worker = threading.Thread(target=work, name="llm-call", daemon=True)
    worker.start()
    worker.join(budget_s)
    if worker.is_alive():
        raise DeadlineExceeded(budget_s)
    if "error" in box:
        raise box["error"]
    return box["value"]


# ------------------------------------------------------------------------------------------ circuit breaker


class CircuitBreaker:
    """Counts consecutive calls lost to an outage; open at `threshold` (0 = never) until `cooldown_s` passed."""

    def __init__(self, threshold: int, cooldown_s: float, clock: Callable[[], float] = time.monotonic):
        self.threshold, self.cooldown_s, self._clock = threshold, cooldown_s, clock
        self.failures = 0
        self._opened_at: float | None = None
        self._lock = threading.Lock()

    def blocked(self) -> str | None:
        """Why a call must not be made now, or None. After the cooldown one trial call is let through."""
        with self._lock:
            if self._opened_at is None:
                return None
            waited = self._clock() - self._opened_at
            if waited >= self.cooldown_s:
                self._opened_at = self._clock()  # half-open: this call is the trial, the others keep failing fast
                return None
            return (
                f"circuit open after {self.failures} consecutive unavailable calls; "
                f"next try in {self.cooldown_s - waited:.0f} s"
            )

    def record(self, outage: bool) -> None:
        """Record how a call ended: lost to an outage, or answered (even by a refusal or a bad reply)."""
        with self._lock:
            if not outage:
                self.failures, self._opened_at = 0, None
                return
            self.failures += 1
            if self.threshold and self.failures >= self.threshold:
                self._opened_at = self._clock()
