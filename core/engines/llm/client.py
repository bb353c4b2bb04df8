"""The model client: strict structured calls with bounded retries, a wall-clock deadline and a circuit breaker.

Every model call goes through `LlmClient.call`. Each attempt runs under a total wall-clock budget (connect to last
byte, not per read), so a server that drips a byte every few seconds cannot hold the loop; the whole call,
retries and waits included, stops at `llm_deadline_s`. After `llm_breaker_after` consecutive calls lost to an
outage (timeouts, refused connections, 429, 5xx) the breaker opens and further calls fail at once until
`llm_breaker_cooldown_s` has passed; then one trial call decides. Each failure ends as `LlmUnavailableError`,
which the engines turn into a fallback with a note.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import Any, TypeVar

import openai
from langchain_core.exceptions import ModelRefusalError
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_function
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, SecretStr, ValidationError
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt, stop_before_delay
from urllib3.exceptions import InvalidHeader
from urllib3.util import Retry

from core.config import Settings
from core.engines.base import Usage
from core.engines.llm.deadlines import CircuitBreaker, DeadlineExceeded, deadline_http_client, run_within

M = TypeVar("M", bound=BaseModel)


class MalformedOutputError(ValueError):
    """The model's reply is not strictly valid JSON for the schema (partial, malformed or of the wrong shape)."""


class LlmUnavailableError(RuntimeError):
    """Every attempt failed, the call is not worth retrying, or the breaker is open. `component` names it for
    `degraded_llm`."""

    component = "llm"

    def __init__(self, role: str, reason: str, attempts: int, usage: Usage, notes: Sequence[str]):
        super().__init__(f"{role}: {reason} (after {attempts} attempt{'s' if attempts != 1 else ''})")
        self.role, self.reason, self.attempts, self.usage, self.notes = role, reason, attempts, usage, tuple(notes)


RETRY_ON: tuple[type[BaseException], ...] = (
    openai.APITimeoutError,
    openai.APIConnectionError,
    openai.RateLimitError,
    openai.InternalServerError,
    openai.LengthFinishReasonError,
    MalformedOutputError,
)
"""Failures worth another attempt. Refusals, content filters and other 4xx are not: they would repeat."""

OUTAGE: tuple[type[BaseException], ...] = (
    openai.APITimeoutError,
    openai.APIConnectionError,
    openai.RateLimitError,
    openai.InternalServerError,
)
"""Failures that say the server is not serving; only calls lost to these count towards the breaker."""


def add_usage(a: Usage, b: Usage) -> Usage:
    """Sum of two usages."""
    return Usage(
        a.llm_calls + b.llm_calls, a.prompt_tokens + b.prompt_tokens, a.completion_tokens + b.completion_tokens
    )


def response_format(schema: type[BaseModel]) -> dict[str, Any]:
    """The strict `json_schema` response format of a pydantic schema."""
    fn = convert_to_openai_function(schema, strict=True)
    return {"name": fn["name"], "description": fn.get("description", ""), "schema": fn["parameters"], "strict": True}


def reason(exc: BaseException) -> str:
    """A short, stable name of a failure for notes and tests."""
    if isinstance(exc, DeadlineExceeded):
        return "deadline"
    if isinstance(exc, openai.APITimeoutError):
        return "timeout"
    if isinstance(exc, openai.APIConnectionError):
        return "connection failed"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}"
    if isinstance(exc, openai.LengthFinishReasonError):
        return "truncated output"
    if isinstance(exc, MalformedOutputError):
        return "malformed output"
    if isinstance(exc, (ModelRefusalError, openai.ContentFilterFinishReasonError)):
        return "refusal"
    return type(exc).__name__


def retry_after_s(exc: BaseException) -> float | None:
    """The wait a 429/503 response asks for: OpenAI's `retry-after-ms`, else `Retry-After` (seconds or an HTTP
    date, parsed by urllib3; a value it rejects means no wait was asked for)."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    if ms := headers.get("retry-after-ms"):
        with suppress(ValueError):
            return float(ms) / 1000
    if value := headers.get("retry-after"):
        with suppress(InvalidHeader):
            return float(Retry().parse_retry_after(value))
    return None


def _strip_fences(text: str) -> str:
    match = re.fullmatch(r"\s*```(?:json)?\s*(.*?)\s*```\s*", text, re.S)
    return match.group(1) if match else text


# ------------------------------------------------------------------------------------------------ client


class LlmClient:
    """One chat model for planner, drafter and critic: structured calls, bounded retries, usage accounting.

    Retrying is tenacity's: at most `llm_max_retries` more attempts, only on `RETRY_ON`, none whose wait would end
    past `llm_deadline_s` (`stop_before_delay`), each wait the Retry-After asked for or exponential backoff from
    `llm_backoff_s`, never more than `llm_max_wait_s`. The SDK's own retries stay off (`max_retries=0`): they
    sleep up to two minutes on a Retry-After, know no call deadline, keep retrying on a worker thread the caller
    has abandoned, and hide the failed attempts from the notes and the breaker. `max_tokens` bounds every reply.
    `sleep` and `clock` (the breaker's) are injectable for tests.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ):
        key = settings.openai_api_key or "not-needed"  # local OpenAI-compatible servers accept any key
        self.attempt_s = settings.llm_timeout_s
        self.chat = ChatOpenAI(
            model=settings.llm_model,
            temperature=0,
            timeout=self.attempt_s,
            max_retries=0,
            max_completion_tokens=settings.llm_max_tokens,
            base_url=settings.openai_base_url,
            api_key=SecretStr(key),
            http_client=deadline_http_client(self.attempt_s),
            http_socket_options=(),
        )
        self.attempts = 1 + max(0, settings.llm_max_retries)
        self.deadline_s = settings.llm_deadline_s
        self.backoff_s = settings.llm_backoff_s
        self.max_wait_s = settings.llm_max_wait_s
        self.breaker = CircuitBreaker(settings.llm_breaker_after, settings.llm_breaker_cooldown_s, clock)
        self._sleep = sleep
        self._runnables: dict[type[BaseModel], Runnable] = {}

    def _runnable(self, schema: type[BaseModel]) -> Runnable:
        if schema not in self._runnables:
            self._runnables[schema] = self.chat.with_structured_output(
                response_format(schema), method="json_schema", include_raw=True
            )
        return self._runnables[schema]

    def call(self, role: str, schema: type[M], system: str, user: str) -> tuple[M, Usage, tuple[str, ...]]:
        """The validated reply, the usage of every completion received, and notes on failed attempts."""
        if why := self.breaker.blocked():
            raise LlmUnavailableError(role, "circuit open", 0, Usage(), (f"{role}: {why}",))
        messages = [SystemMessage(system), HumanMessage(user)]
        retrying = Retrying(
            stop=stop_after_attempt(self.attempts) | stop_before_delay(self.deadline_s),
            wait=self._wait,
            retry=retry_if_exception_type(RETRY_ON),
            sleep=self._sleep,
            reraise=True,
        )
        usage, notes, attempt, cut = Usage(), [], 0, False
        try:
            for trial in retrying:
                with trial:
                    state = trial.retry_state
                    attempt = state.attempt_number
                    left = state.start_time + self.deadline_s - time.monotonic()
                    cut = left < self.attempt_s  # this attempt ends at the call's deadline, not its own timeout
                    try:
                        value, spent = run_within(
                            lambda: self._once(schema, messages), max(0.01, min(self.attempt_s, left))
                        )
                    except Exception as exc:
                        usage = add_usage(usage, getattr(exc, "usage", Usage()))
                        detail = "" if isinstance(exc, RETRY_ON) else f": {str(exc)[:200]}"
                        # an attempt cut to the call's deadline ends by the deadline, whichever timer fires first
                        why = "deadline" if cut and reason(exc) == "timeout" else reason(exc)
                        notes.append(f"{role}: attempt {attempt} failed: {why}{detail}")
                        raise
        except Exception as exc:
            self.breaker.record(isinstance(exc, OUTAGE))
            # a timeout with retries left, or on an attempt cut short, is the call's deadline running out
            stopped = reason(exc) == "timeout" and (cut or attempt < self.attempts)
            raise LlmUnavailableError(role, "deadline" if stopped else reason(exc), attempt, usage, notes) from exc
        self.breaker.record(False)
        if attempt > 1:
            notes.append(f"{role}: recovered on attempt {attempt}")
        return value, add_usage(usage, spent), tuple(notes)

    def _wait(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        asked = retry_after_s(error) if error is not None else None
        wanted = asked if asked is not None else self.backoff_s * 2 ** (state.attempt_number - 1)
        return min(self.max_wait_s, wanted)

    def _once(self, schema: type[M], messages: list[Any]) -> tuple[M, Usage]:
        try:
            out = self._runnable(schema).invoke(messages)
        except openai.LengthFinishReasonError as exc:
            u = exc.completion.usage
            exc.usage = Usage(1, u.prompt_tokens, u.completion_tokens) if u else Usage(1)  # type: ignore[attr-defined]
            raise
        raw = out["raw"]
        meta = getattr(raw, "usage_metadata", None) or {}
        usage = Usage(1, int(meta.get("input_tokens", 0)), int(meta.get("output_tokens", 0)))
        error = out.get("parsing_error")
        if isinstance(error, ModelRefusalError):
            error.usage = usage  # type: ignore[attr-defined]
            raise error
        try:
            return schema.model_validate_json(_strip_fences(raw.text)), usage
        except ValidationError as exc:
            failure = MalformedOutputError(f"reply is not valid {schema.__name__} JSON: {str(exc).splitlines()[0]}")
            failure.usage = usage  # type: ignore[attr-defined]
            raise failure from exc
