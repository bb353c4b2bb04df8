"""The model client: structured calls with bounded retries, a wall-clock deadline and a circuit breaker.

Every model call goes through `LlmClient.call`. It asks for structured output in the configured mode, or under
`auto` in the first mode the server accepts (core.engines.llm.modes). Each attempt runs under a total wall-clock
budget (connect to last byte, not per read), so a server that drips a byte every few seconds cannot hold the
loop; the whole call, retries and waits included, stops at `llm_deadline_s`. A timed-out attempt is not retried:
the server may still be working on it (a local server with one slot would queue the retry behind it), so it is
one failure, not several queued requests. After `llm_breaker_after` consecutive calls lost to an outage
(timeouts, refused connections, 429, 5xx) the breaker opens and further calls fail at once until
`llm_breaker_cooldown_s` has passed; then one trial call decides. A refused format does not count. Each failure
ends as `LlmUnavailableError`, which the engines turn into a fallback with a note; every call, answered or not,
is kept as a `ModelCall` in the usage it returns.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

import httpx
import openai
from langchain_core.exceptions import ModelRefusalError
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import Runnable
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, SecretStr, ValidationError
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, stop_before_delay

from core.config import Settings
from core.domain.records import ModelCall
from core.engines.base import Usage
from core.engines.llm.budget import Room
from core.engines.llm.deadlines import CircuitBreaker, deadline_http_client, run_within
from core.engines.llm.failures import (
    CUT_ATTEMPTS,
    OUTAGE,
    RETRY_NUDGE_TOKENS,
    RETRY_ON,
    ContextFullError,
    LlmUnavailableError,
    MalformedOutputError,
    TruncatedOutputError,
    cut,
    reason,
    retried,
    retry_after_s,
    retry_nudge,
    strip_fences,
)
from core.engines.llm.modes import (
    MODES,
    FormatRefusedError,
    StructuredMode,
    candidates,
    refusal_of,
    reply_message,
    reply_text,
    runnable,
    schema_instruction,
)
from core.engines.llm.salvage import salvage
from core.engines.llm.tokens import MESSAGE_OVERHEAD, counter_for, server_count

M = TypeVar("M", bound=BaseModel)
F = TypeVar("F")


def parsed(text: str) -> Any:
    """The JSON value of a reply. Control characters inside strings (a raw line break, which small models write
    and grammar-constrained servers let through) are accepted; anything else that is not JSON is refused."""
    return json.loads(text, strict=False)


def local_server(base_url: str | None) -> bool:
    """Whether the base URL is a server other than OpenAI's own API (which refuses the legacy `max_tokens` for
    some models)."""
    host = httpx.URL(base_url).host if base_url else "api.openai.com"
    return not host.endswith("openai.com")


def add_usage(a: Usage, b: Usage) -> Usage:
    """Sum of two usages, their calls in order."""
    return Usage(
        a.llm_calls + b.llm_calls,
        a.prompt_tokens + b.prompt_tokens,
        a.completion_tokens + b.completion_tokens,
        (*a.calls, *b.calls),
    )


def with_counts(usage: Usage, *, dropped: int = 0, left_out: int = 0) -> Usage:
    """The usage with what validation dropped and the budget left out added to its last call."""
    if not usage.calls or not (dropped or left_out):
        return usage
    last = usage.calls[-1]
    done = last.model_copy(update={"dropped": last.dropped + dropped, "left_out": last.left_out + left_out})
    return Usage(usage.llm_calls, usage.prompt_tokens, usage.completion_tokens, (*usage.calls[:-1], done))


def _cut_short(schema: type[M], usage: Usage, reply_tokens: int, text: str) -> tuple[M, Usage, str] | None:
    """A reply that stopped at a length limit: `ContextFullError` when it stopped before its own limit (prompt and
    reply filled the context), else its complete records with a note (`core.engines.llm.salvage`), else None (the
    caller raises it as truncated)."""
    if usage.prompt_tokens and usage.completion_tokens < reply_tokens:
        full = ContextFullError(usage.prompt_tokens)
        full.usage = usage  # type: ignore[attr-defined]
        raise full
    kept = salvage(schema, text) if text else None
    if kept is None:
        return None
    note = (
        f"the reply reached the {reply_tokens}-token limit; kept its {kept[1]} complete record(s), dropped the cut one"
    )
    return kept[0], usage, note


def part(role: str) -> str:
    """The part of the engine a role names: `llm drafter` -> drafter."""
    return role.removeprefix("llm ").strip()


# ------------------------------------------------------------------------------------------------ client


def ended_by(exc: BaseException) -> str:
    """Why a call's attempt ended, for notes and the call's reason: a timed-out attempt is never retried, so the
    HTTP read timeout and the deadline timer, which end it at the same moment under load in either order, both
    name the deadline."""
    why = reason(exc)
    return "deadline" if why == "timeout" else why


class LlmClient:
    """One chat model for planner, drafter and critic: structured calls, bounded retries, usage accounting.

    Retrying is tenacity's: at most `llm_max_retries` more attempts, only on `RETRY_ON`, none whose wait would end
    past `llm_deadline_s` (`stop_before_delay`), each wait the Retry-After asked for or exponential backoff from
    `llm_backoff_s`, never more than `llm_max_wait_s`. The SDK's own retries stay off (`max_retries=0`): they
    sleep up to two minutes on a Retry-After, know no call deadline, keep retrying on a worker thread the caller
    has abandoned, and hide the failed attempts from the notes and the breaker. Each reply is bounded by
    `llm_max_tokens` and by what the prompt leaves of `llm_context_tokens`. `sleep` and `clock` (the breaker's)
    are injectable for tests.
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
        self.max_tokens = settings.llm_max_tokens
        self.context_tokens = settings.llm_context_tokens
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
        self.server = (settings.openai_base_url or "openai", settings.llm_model)
        self.legacy_max_tokens = local_server(settings.openai_base_url)
        """Also send `max_tokens`: llama-cpp-python and other local servers ignore `max_completion_tokens` (the
        name langchain-openai sends) and would otherwise generate until the context is full."""
        self.structured = settings.llm_structured
        self.tokens = counter_for(self.server, settings.llm_tokenizer)
        self.count_url = settings.openai_base_url
        self.attempts = 1 + max(0, settings.llm_max_retries)
        self.deadline_s = settings.llm_deadline_s
        self.backoff_s = settings.llm_backoff_s
        self.max_wait_s = settings.llm_max_wait_s
        self.breaker = CircuitBreaker(settings.llm_breaker_after, settings.llm_breaker_cooldown_s, clock)
        self._sleep = sleep
        self._runnables: dict[tuple[type[BaseModel], StructuredMode, int], Runnable] = {}

    @property
    def reply_reserve(self) -> int:
        """Tokens kept for the reply when a prompt is fitted: `llm_max_tokens`, at most a third of the context."""
        return min(self.max_tokens, self.context_tokens // 3)

    @property
    def prompt_budget(self) -> int:
        """Tokens a prompt (system and user message) may take: the context less the reply's reserve."""
        return self.context_tokens - self.reply_reserve

    def room(self, system: str, schema: type[BaseModel]) -> Room:
        """The tokens the user message of a call may take: the prompt budget less the system prompt, with the
        schema it states unless the server is known to take json_schema."""
        instruction = "" if self.mode() == "json_schema" else schema_instruction(schema)
        return Room(
            self.tokens, self.prompt_budget - self.tokens.messages(system + instruction, "") - RETRY_NUDGE_TOKENS
        )

    def _served(self, system: str, user: str) -> int | None:
        """The prompt's tokens as the server counts them (with the chat template's overhead), when it counts them
        (`core.engines.llm.tokens.server_count`); None for the OpenAI API itself and servers without a count."""
        if self.count_url is None:
            return None
        counted = server_count(self.count_url, self.server[1], f"{system}\n{user}")
        return None if counted is None else counted + 2 * MESSAGE_OVERHEAD

    def mode(self) -> str:
        """The structured-output mode calls use now: the configured one, or under auto the one that worked."""
        return MODES.get(self.server) or self.structured

    def _runnable(self, schema: type[BaseModel], mode: StructuredMode, max_tokens: int) -> Runnable:
        key = (schema, mode, max_tokens)
        if key not in self._runnables:
            limits: dict[str, Any] = {"max_tokens": max_tokens}  # sent as max_completion_tokens
            if self.legacy_max_tokens:
                limits["extra_body"] = {"max_tokens": max_tokens}
            chat = self.chat.model_copy(update=limits)  # a copy, not a binding: structured output keeps them
            self._runnables[key] = runnable(chat, schema, mode)
        return self._runnables[key]

    def fitted_call(
        self, role: str, schema: type[M], system: str, build: Callable[[Room], tuple[str, F]]
    ) -> tuple[M, Usage, tuple[str, ...], F]:
        """`call` with a user prompt that `build` fits into this call's room, and fits again (once) when the server
        counts it longer than its estimate and the reply finds the context full; also returns what `build` made
        beside the prompt (what the budget shortened and left out) for the prompt that was answered."""
        built = [build(self.room(system, schema))]

        def again() -> str:
            built.append(build(self.room(system, schema)))
            return built[-1][0]

        value, usage, notes = self.call(role, schema, system, built[0][0], rebuild=again)
        return value, usage, notes, built[-1][1]

    def call(
        self, role: str, schema: type[M], system: str, user: str, *, rebuild: Callable[[], str] | None = None
    ) -> tuple[M, Usage, tuple[str, ...]]:
        """The validated reply, the usage of every completion received (with one `ModelCall`), and notes on
        failed attempts and refused modes. A reply cut short by a full context teaches the token counter the
        server's count; with `rebuild` the prompt is then made again to the new room and sent once more."""
        if why := self.breaker.blocked():
            failed = ModelCall(role=part(role), outcome="failed", reason="circuit open")
            raise LlmUnavailableError(role, "circuit open", 0, Usage(calls=(failed,)), (f"{role}: {why}",))
        usage, notes, attempts, started = Usage(), [], 0, time.monotonic()
        tried: list[str] = []
        for mode in candidates(self.structured, MODES.get(self.server)):
            prompt = system + (schema_instruction(schema) if mode != "json_schema" else "")
            while True:
                estimate = self.tokens.messages(prompt, user)
                counted = self._served(prompt, user)
                if counted is not None:
                    self.tokens.learn(self.tokens.raw_messages(prompt, user), counted)
                    if counted > self.prompt_budget and rebuild is not None:
                        notes.append(
                            f"{role}: the server counts the prompt at {counted} tokens against an estimate of "
                            f"{estimate}; fitted again to the server's count"
                        )
                        user, rebuild = rebuild(), None
                        continue
                    estimate = counted
                reply_tokens = max(64, min(self.max_tokens, self.context_tokens - estimate))
                try:
                    value, spent, more, n = self._attempts(role, schema, prompt, user, mode, reply_tokens)
                except FormatRefusedError as exc:
                    tried.append(mode)
                    attempts += 1
                    usage = add_usage(usage, Usage(getattr(exc, "llm_calls", 0)))
                    notes.append(f"{role}: the server refused the {mode} mode ({exc.detail[:120]})")
                    if MODES.get(self.server) == mode:
                        MODES.forget(self.server)
                    break
                except LlmUnavailableError as exc:
                    served = exc.__cause__.served_prompt_tokens if isinstance(exc.__cause__, ContextFullError) else 0
                    if served:
                        self.tokens.learn(self.tokens.raw_messages(prompt, user), served)
                    if served and rebuild is not None:
                        attempts += exc.attempts
                        usage = add_usage(usage, exc.usage)
                        notes += [
                            *exc.notes,
                            f"{role}: the prompt took {served} tokens at the server against an estimate of "
                            f"{estimate}; fitted again to the server's count",
                        ]
                        user, rebuild = rebuild(), None
                        continue
                    failed = ModelCall(
                        role=part(role),
                        outcome="failed",
                        mode=mode,
                        reason=exc.reason,
                        attempts=attempts + exc.attempts,
                        prompt_tokens=usage.prompt_tokens + exc.usage.prompt_tokens,
                        completion_tokens=usage.completion_tokens + exc.usage.completion_tokens,
                        prompt_estimate=estimate,
                        seconds=round(time.monotonic() - started, 3),
                    )
                    lost = add_usage(add_usage(usage, exc.usage), Usage(calls=(failed,)))
                    raise LlmUnavailableError(
                        role, exc.reason, attempts + exc.attempts, lost, (*notes, *exc.notes)
                    ) from exc
                MODES.put(self.server, mode)
                if spent.prompt_tokens:
                    self.tokens.learn(self.tokens.raw_messages(prompt, user), spent.prompt_tokens)
                spent = add_usage(usage, spent)
                answered = ModelCall(
                    role=part(role),
                    outcome="answered",
                    mode=mode,
                    attempts=attempts + n,
                    prompt_tokens=spent.prompt_tokens,
                    completion_tokens=spent.completion_tokens,
                    prompt_estimate=estimate,
                    seconds=round(time.monotonic() - started, 3),
                )
                return value, add_usage(spent, Usage(calls=(answered,))), (*notes, *more)
        why = f"structured output refused ({', '.join(tried)})"
        failed = ModelCall(role=part(role), outcome="failed", reason=why, attempts=attempts)
        raise LlmUnavailableError(role, why, attempts, add_usage(usage, Usage(calls=(failed,))), notes)

    def _attempts(
        self, role: str, schema: type[M], system: str, user: str, mode: StructuredMode, reply_tokens: int
    ) -> tuple[M, Usage, list[str], int]:
        """One call in one mode: the reply, its usage, notes on failed attempts and the attempts made. Raises
        `FormatRefusedError` when the server refuses the mode (not retried, not counted by the breaker) and
        `LlmUnavailableError` when every attempt failed."""
        messages: list[Any] = [SystemMessage(system), HumanMessage(user)]
        retrying = Retrying(
            stop=stop_after_attempt(self.attempts) | stop_before_delay(self.deadline_s),
            wait=self._wait,
            retry=retry_if_exception(lambda exc: retried(exc) and not (cut(exc) and cuts >= CUT_ATTEMPTS)),
            sleep=self._sleep,
            reraise=True,
        )
        usage, notes, attempt, cuts = Usage(), [], 0, 0
        try:
            for trial in retrying:
                with trial:
                    state = trial.retry_state
                    attempt = state.attempt_number
                    left = state.start_time + self.deadline_s - time.monotonic()
                    try:
                        value, spent, said = run_within(
                            partial(self._once, schema, messages, mode, reply_tokens),
                            max(0.01, min(self.attempt_s, left)),
                        )
                        if said:
                            notes.append(f"{role}: {said}")
                    except FormatRefusedError:
                        raise
                    except Exception as exc:
                        usage = add_usage(usage, getattr(exc, "usage", Usage()))
                        was_cut = cut(exc)
                        cuts += was_cut
                        if (nudge := retry_nudge(exc)) is not None:
                            # at temperature 0 the same request gives the same reply: the retry says what failed
                            messages = [SystemMessage(system), HumanMessage(f"{user}\n\n{nudge}")]
                        detail = "" if isinstance(exc, RETRY_ON) else f": {str(exc)[:200]}"
                        notes.append(f"{role}: attempt {attempt} failed: {ended_by(exc)}{detail}")
                        if was_cut and cuts == CUT_ATTEMPTS and attempt < self.attempts:
                            notes.append(
                                f"{role}: asked for a shorter reply, the model ran to the limit again: no more attempts"
                            )
                        raise
        except FormatRefusedError as exc:
            exc.llm_calls = attempt - 1  # type: ignore[attr-defined]
            raise
        except Exception as exc:
            self.breaker.record(isinstance(exc, OUTAGE))
            raise LlmUnavailableError(role, ended_by(exc), attempt, usage, notes) from exc
        self.breaker.record(False)
        if attempt > 1:
            notes.append(f"{role}: recovered on attempt {attempt}")
        return value, add_usage(usage, spent), notes, attempt

    def _wait(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        asked = retry_after_s(error) if error is not None else None
        wanted = asked if asked is not None else self.backoff_s * 2 ** (state.attempt_number - 1)
        return min(self.max_wait_s, wanted)

    def _once(
        self, schema: type[M], messages: list[Any], mode: StructuredMode, reply_tokens: int
    ) -> tuple[M, Usage, str]:
        """One request: the validated reply, its usage and a note ('' unless a cut reply was salvaged)."""
        try:
            out = self._runnable(schema, mode, reply_tokens).invoke(messages)
        except openai.LengthFinishReasonError as exc:
            u = exc.completion.usage
            spent = Usage(1, u.prompt_tokens, u.completion_tokens) if u else Usage(1)
            text = exc.completion.choices[0].message.content if exc.completion.choices else None
            if (kept := _cut_short(schema, spent, reply_tokens, text or "")) is not None:
                return kept
            exc.usage = spent  # type: ignore[attr-defined]
            raise
        except openai.APIStatusError as exc:
            if (refused := refusal_of(exc, mode)) is not None:
                raise refused from exc
            raise
        raw = reply_message(out)
        meta = getattr(raw, "usage_metadata", None) or {}
        usage = Usage(1, int(meta.get("input_tokens", 0)), int(meta.get("output_tokens", 0)))
        error = out.get("parsing_error") if isinstance(out, dict) else None
        if isinstance(error, ModelRefusalError):
            error.usage = usage  # type: ignore[attr-defined]
            raise error
        if raw.response_metadata.get("finish_reason") == "length":
            if (kept := _cut_short(schema, usage, reply_tokens, reply_text(raw, mode))) is not None:
                return kept
            limit = TruncatedOutputError(f"the reply reached the {reply_tokens}-token limit")
            limit.usage = usage  # type: ignore[attr-defined]
            raise limit
        try:
            return schema.model_validate(parsed(strip_fences(reply_text(raw, mode)))), usage, ""
        except (ValidationError, ValueError) as exc:
            failure = MalformedOutputError(f"reply is not valid {schema.__name__} JSON: {str(exc).splitlines()[0]}")
            failure.usage = usage  # type: ignore[attr-defined]
            raise failure from exc
