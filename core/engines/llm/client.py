"""The model client: strict structured calls with bounded retries, a wall-clock deadline and a circuit breaker.

Every model call goes through `LlmClient.call`. Each attempt runs under a total wall-clock budget (connect to last
byte, not per read), so a server that drips a byte every few seconds cannot hold the loop; the whole call,
retries and waits included, stops at `llm_deadline_s`. After `llm_breaker_after` consecutive calls lost to an
outage (timeouts, refused connections, 429, 5xx) the breaker opens and further calls fail at once until
`llm_breaker_cooldown_s` has passed; then one trial call decides. Each failure ends as `LlmUnavailableError`,
which the engines turn into a fallback with a note.
"""

from __future__ import annotations

import email.utils
import re
import time
from datetime import datetime, timezone
from typing import Any, Callable, Sequence, TypeVar

import openai
from langchain_core.exceptions import ModelRefusalError
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_function
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, SecretStr, ValidationError

from core.config import Settings
from core.engines.base import Usage
from core.engines.llm.limits import CircuitBreaker, DeadlineExceeded, deadline_http_client, run_within

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
    openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError,
)
"""Failures that say the server is not serving; only calls lost to these count towards the breaker."""


def add_usage(a: Usage, b: Usage) -> Usage:
    """Sum of two usages."""
    return Usage(a.llm_calls + b.llm_calls, a.prompt_tokens + b.prompt_tokens,
                 a.completion_tokens + b.completion_tokens)


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
    """The wait a 429/503 response asks for (`retry-after-ms` or `Retry-After` in seconds or as a date)."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    if ms := headers.get("retry-after-ms"):
        try:
            return float(ms) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def _strip_fences(text: str) -> str:
    match = re.fullmatch(r"\s*```(?:json)?\s*(.*?)\s*```\s*", text, re.S)
    return match.group(1) if match else text


# ------------------------------------------------------------------------------------------------ client


class LlmClient:
    """One chat model for planner, drafter and critic: structured calls, bounded retries, usage accounting.

    The SDK's own retries are off (`max_retries=0`) so that retrying happens here, bounded by `llm_max_retries`
    and `llm_deadline_s`, with exponential backoff from `llm_backoff_s`; a Retry-After is respected but no single
    wait exceeds `llm_max_wait_s`. `max_tokens` bounds every reply.
    """

    def __init__(self, settings: Settings, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic):
        key = settings.openai_api_key or "not-needed"  # local OpenAI-compatible servers accept any key
        self.attempt_s = settings.llm_timeout_s
        self.chat = ChatOpenAI(model=settings.llm_model, temperature=0, timeout=self.attempt_s, max_retries=0,
                               max_tokens=settings.llm_max_tokens, base_url=settings.openai_base_url,
                               api_key=SecretStr(key), http_client=deadline_http_client(self.attempt_s),
                               http_socket_options=())
        self.attempts = 1 + max(0, settings.llm_max_retries)
        self.deadline_s = settings.llm_deadline_s
        self.backoff_s = settings.llm_backoff_s
        self.max_wait_s = settings.llm_max_wait_s
        self.breaker = CircuitBreaker(settings.llm_breaker_after, settings.llm_breaker_cooldown_s, clock)
        self._sleep, self._clock = sleep, clock
        self._runnables: dict[type[BaseModel], Runnable] = {}

    def _runnable(self, schema: type[BaseModel]) -> Runnable:
        if schema not in self._runnables:
            self._runnables[schema] = self.chat.with_structured_output(
                response_format(schema), method="json_schema", include_raw=True)
        return self._runnables[schema]

    def call(self, role: str, schema: type[M], system: str, user: str) -> tuple[M, Usage, tuple[str, ...]]:
        """The validated reply, the usage of every completion received, and notes on failed attempts."""
        if why := self.breaker.blocked():
            raise LlmUnavailableError(role, "circuit open", 0, Usage(), (f"{role}: {why}",))
        messages = [SystemMessage(system), HumanMessage(user)]
        end = self._clock() + self.deadline_s
        usage, notes, attempt = Usage(), [], 0
        while True:
            attempt += 1
            budget = max(0.01, min(self.attempt_s, end - self._clock()))
            try:
                value, spent = run_within(lambda: self._once(schema, messages), budget)
            except Exception as exc:  # noqa: BLE001 - every failure is classified, retried or reported below
                usage = add_usage(usage, getattr(exc, "usage", Usage()))
                detail = "" if isinstance(exc, RETRY_ON) else f": {str(exc)[:200]}"
                notes.append(f"{role}: attempt {attempt} failed: {reason(exc)}{detail}")
                wait = self._wait(attempt, retry_after_s(exc))
                if not isinstance(exc, RETRY_ON) or attempt >= self.attempts or self._clock() + wait >= end:
                    self.breaker.record(isinstance(exc, OUTAGE))
                    raise LlmUnavailableError(role, reason(exc), attempt, usage, notes) from exc
                self._sleep(wait)
                continue
            self.breaker.record(False)
            if attempt > 1:
                notes.append(f"{role}: recovered on attempt {attempt}")
            return value, add_usage(usage, spent), tuple(notes)

    def _wait(self, attempt: int, asked: float | None) -> float:
        wanted = asked if asked is not None else self.backoff_s * 2 ** (attempt - 1)
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
