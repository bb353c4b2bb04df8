"""How model calls fail: the errors the client raises, which failures are retried or count as an outage, and
the short names notes and records give them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from contextlib import suppress

import openai
from langchain_core.exceptions import ModelRefusalError
from urllib3.exceptions import InvalidHeader
from urllib3.util import Retry

from core.engines.base import Usage
from core.engines.llm.deadlines import DeadlineExceeded
from core.engines.llm.modes import FormatRefusedError


class MalformedOutputError(ValueError):
    """The model's reply is not strictly valid JSON for the schema (partial, malformed or of the wrong shape)."""


class TruncatedOutputError(ValueError):
    """The reply stopped at its token limit (the SDK raises `LengthFinishReasonError` only for parsed replies)."""


class ContextFullError(TruncatedOutputError):
    """The reply stopped before its own token limit because prompt and reply filled the server's context: the
    prompt was longer than its estimate. The same prompt would stop at the same place, so it is not retried; the
    client learns the server's count and fits the prompt again."""

    def __init__(self, served_prompt_tokens: int):
        super().__init__(f"the prompt ({served_prompt_tokens} tokens at the server) left the reply too little context")
        self.served_prompt_tokens = served_prompt_tokens


class LlmUnavailableError(RuntimeError):
    """Every attempt failed, the call is not worth retrying, or the breaker is open. `component` names it for
    `degraded_llm`."""

    component = "llm"

    def __init__(self, role: str, reason: str, attempts: int, usage: Usage, notes: Sequence[str]):
        super().__init__(f"{role}: {reason} (after {attempts} attempt{'s' if attempts != 1 else ''})")
        self.role, self.reason, self.attempts, self.usage, self.notes = role, reason, attempts, usage, tuple(notes)


RETRY_ON: tuple[type[BaseException], ...] = (
    openai.APIConnectionError,
    openai.RateLimitError,
    openai.InternalServerError,
    openai.LengthFinishReasonError,
    TruncatedOutputError,
    MalformedOutputError,
)
"""Failures worth another attempt. Refusals, content filters and other 4xx are not: they would repeat. Timeouts
(an `APIConnectionError` too) are not either: see `retried`."""


def retried(exc: BaseException) -> bool:
    """Whether a failed attempt is tried again: one of `RETRY_ON`, but never a timeout. A server that did not
    answer within the attempt's budget may still be working on the abandoned request (llama-cpp-python finishes
    a non-streaming request whatever the client does), so a retry inside the same deadline window would queue
    behind it: a timed-out call is one failure. A reply cut by a full context is not either: the same prompt would
    fill it again."""
    return isinstance(exc, RETRY_ON) and not isinstance(exc, (openai.APITimeoutError, ContextFullError))


RETRY_NUDGE_TOKENS = 48
"""Tokens the prompt budget keeps for the line a retry adds (`retry_nudge`)."""


def cut(exc: BaseException) -> bool:
    """Whether an attempt failed because its reply reached its token limit."""
    return isinstance(exc, (openai.LengthFinishReasonError, TruncatedOutputError))


CUT_ATTEMPTS = 2
"""Replies cut at their length limit after which a call stops: the second was asked, by the retry's nudge, for a
shorter reply and still ran to the limit, so the model does not shorten it (measured: a 135M model ran its critic
reply to the limit four times running, 70 s for nothing)."""


def retry_nudge(exc: BaseException) -> str | None:
    """The line a retry after an unusable reply adds to the prompt, or None for other failures. At temperature 0
    the same request gives the same reply, so a retry that resends it unchanged would fail the same way; the line
    says what was wrong (a local server's prompt cache still reuses everything before it)."""
    if isinstance(exc, ContextFullError):
        return None
    if cut(exc):
        return "Your previous reply was cut off at its length limit. Reply with one shorter JSON object: fewer items."
    if isinstance(exc, MalformedOutputError):
        return "Your previous reply was not valid JSON for the schema. Reply with one JSON object only, no other text."
    return None


OUTAGE: tuple[type[BaseException], ...] = (
    openai.APITimeoutError,
    openai.APIConnectionError,
    openai.RateLimitError,
    openai.InternalServerError,
)
"""Failures that say the server is not serving; only calls lost to these count towards the breaker."""


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
    if isinstance(exc, ContextFullError):
        return "context full"
    if cut(exc):
        return "truncated output"
    if isinstance(exc, MalformedOutputError):
        return "malformed output"
    if isinstance(exc, FormatRefusedError):
        return f"{exc.mode} refused"
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


def strip_fences(text: str) -> str:
    """The JSON inside a Markdown code fence, or the text as it is."""
    match = re.fullmatch(r"\s*```(?:json)?\s*(.*?)\s*```\s*", text, re.S)
    return match.group(1) if match else text
