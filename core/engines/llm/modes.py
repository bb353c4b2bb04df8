"""Structured-output modes: how a call asks the server for JSON of a schema, and how the reply is read back.

OpenAI-compatible servers differ in what they accept. `json_schema` is OpenAI's strict structured output;
`json_object` is JSON mode with the schema passed in the request (`response_format={"type": "json_object",
"schema": ...}`, as llama-cpp-python and vLLM take it) and stated in the system prompt; `tools` forces one tool
call whose arguments are the reply. `auto` tries them in that order and remembers, per base URL and model, the
first one the server accepted, for the rest of the process. Every mode validates into the same pydantic model.
A server that refuses a format (HTTP 400/422, or a 500 whose body names the response format) has answered a
configuration question, not had an outage: the refusal is not retried and does not count towards the breaker.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Literal, get_args

import openai
from langchain_core.exceptions import ContextOverflowError
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_function
from pydantic import BaseModel

StructuredMode = Literal["json_schema", "json_object", "tools"]
STRUCTURED_MODES: tuple[StructuredMode, ...] = get_args(StructuredMode)
"""The modes `auto` tries, in this order."""

_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "tool_choice", "tools", "schema", "format")


class FormatRefusedError(ValueError):
    """The server refused the structured-output mode of the request (it does not support it)."""

    def __init__(self, mode: str, detail: str):
        super().__init__(f"the server refused {mode}: {detail[:200]}")
        self.mode, self.detail = mode, detail


def refusal_of(exc: BaseException, mode: str) -> FormatRefusedError | None:
    """The format refusal `exc` stands for, or None: a 400, 422 or 500 whose body names the response format, the
    schema or the tools (llama-cpp-python answers an unknown format with a 500), and is not about the context
    length. Any other 4xx stays an error that would repeat; any other 5xx an outage."""
    if isinstance(exc, ContextOverflowError) or not isinstance(exc, openai.APIStatusError):
        return None
    text = f"{exc.message} {json.dumps(exc.body, default=str)}".lower()
    if exc.status_code in (400, 422, 500) and "context" not in text and any(w in text for w in _FORMAT_WORDS):
        return FormatRefusedError(mode, exc.message)
    return None


def strict_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The schema as an OpenAI strict function: name, description and JSON schema parameters."""
    return dict(convert_to_openai_function(schema, strict=True))


def schema_instruction(schema: type[BaseModel]) -> str:
    """What the system prompt adds in `json_object` and `tools` mode: the schema the reply must validate against,
    without its descriptions (the system prompt's rules say what the fields mean; the request carries the whole
    schema), to keep every prompt short."""
    body = json.dumps(_bare(strict_schema(schema)["parameters"]), separators=(",", ":"))
    return f"\nReply with one JSON object, nothing else, that validates against this JSON schema:\n{body}"


def _bare(node: Any) -> Any:
    """A JSON schema without its descriptions, titles and `additionalProperties: false` (every field is required
    and listed; extra keys fail validation anyway)."""
    if isinstance(node, dict):
        return {
            k: {name: _bare(sub) for name, sub in v.items()} if k == "properties" else _bare(v)
            for k, v in node.items()
            if k not in ("description", "title", "additionalProperties")
        }
    if isinstance(node, list):
        return [_bare(v) for v in node]
    return node


def runnable(chat: BaseChatModel, schema: type[BaseModel], mode: StructuredMode) -> Runnable:
    """The chat model bound to ask for `schema` in `mode`; its output is read with `reply_text`."""
    fn = strict_schema(schema)
    if mode == "json_schema":
        fmt = {"name": fn["name"], "description": fn.get("description", ""), "schema": fn["parameters"], "strict": True}
        return chat.with_structured_output(fmt, method="json_schema", include_raw=True)
    if mode == "json_object":
        return chat.bind(response_format={"type": "json_object", "schema": fn["parameters"]})
    tool = {"type": "function", "function": {k: fn[k] for k in ("name", "description", "parameters") if k in fn}}
    return chat.bind(tools=[tool], tool_choice={"type": "function", "function": {"name": fn["name"]}})


def reply_message(out: Any) -> AIMessage:
    """The model's message of a runnable's output (json_schema mode wraps it with the parse result)."""
    return out["raw"] if isinstance(out, dict) else out


def reply_text(message: AIMessage, mode: StructuredMode) -> str:
    """The JSON text of a reply: the content, or in `tools` mode the arguments of the first tool call (the content
    when the server wrote the call as plain JSON instead)."""
    if mode != "tools":
        return message.text
    if message.tool_calls:
        return json.dumps(message.tool_calls[0]["args"])
    if message.invalid_tool_calls:
        return str(message.invalid_tool_calls[0].get("args") or "")
    return message.text


class ModeMemory:
    """The mode each (base URL, model) accepted, for the life of the process."""

    def __init__(self) -> None:
        self._modes: dict[tuple[str, str], StructuredMode] = {}
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> StructuredMode | None:
        """The mode that worked for this server and model, or None when none is known yet."""
        with self._lock:
            return self._modes.get(key)

    def put(self, key: tuple[str, str], mode: StructuredMode) -> None:
        """Remember the mode that worked."""
        with self._lock:
            self._modes[key] = mode

    def forget(self, key: tuple[str, str]) -> None:
        """Forget what worked (the server refused it after all, e.g. it was restarted with other options)."""
        with self._lock:
            self._modes.pop(key, None)


MODES = ModeMemory()
"""The process' memory of modes that worked."""


def candidates(setting: str, known: StructuredMode | None) -> tuple[StructuredMode, ...]:
    """The modes to try, in order: the configured one alone; for `auto`, the one known to work first, then the
    others in `STRUCTURED_MODES` order."""
    if setting != "auto":
        return (setting,)  # type: ignore[return-value]
    if known is None:
        return STRUCTURED_MODES
    return (known, *(m for m in STRUCTURED_MODES if m != known))
