"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for the LLM engine tests.

It implements `POST /v1/chat/completions` as langchain-openai uses it for structured output in the three modes
(`response_format: {"type": "json_schema", "json_schema": {...}}`, `{"type": "json_object", "schema": {...}}`,
or one forced tool), accepts the modes in `formats` and refuses the others with `refusal` (by default the way
llama-cpp-python refuses json_schema: HTTP 500 naming response_format), and answers from a per-test script:
valid JSON, malformed or truncated JSON, refusals, slow or dripping replies, 429 with Retry-After, 5xx. When the
script is empty, an optional `FakeModel` answers from the request itself, so whole loops can run against it.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PATH = "/v1/chat/completions"


@dataclass(frozen=True)
class Reply:
    """One scripted HTTP response; `delay_s` is waited before answering (interrupted when the server stops);
    `drip_s` > 0 sends the headers at once and then the body one byte every `drip_s` seconds."""

    status: int = 200
    body: dict[str, Any] | str = ""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    drip_s: float = 0.0


def completion(
    content: str | None,
    *,
    finish_reason: str = "stop",
    refusal: str | None = None,
    prompt_tokens: int = 120,
    completion_tokens: int = 40,
    delay_s: float = 0.0,
) -> Reply:
    """A chat.completion object with one choice and a usage block."""
    body = {
        "id": "chatcmpl-loopback",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "loopback-model",
        "choices": [
            {
                "index": 0,
                "finish_reason": finish_reason,
                "logprobs": None,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }
    return Reply(body=body, delay_s=delay_s)


def structured(obj: dict[str, Any], **kw: Any) -> Reply:
    """A completion whose content is `obj` as JSON, i.e. a well-formed structured output."""
    return completion(json.dumps(obj), **kw)


def error(status: int, message: str, headers: dict[str, str] | None = None) -> Reply:
    """An OpenAI-style error response."""
    return Reply(
        status=status,
        body={"error": {"message": message, "type": "loopback_error", "code": status}},
        headers=headers or {},
    )


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released), for connection-refused tests."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SCHEMA_KEYS = {"deficiencies": "FindingsOut", "jurisdictions": "PlanOut", "sections": "AnswerOut"}
"""The schema a request asks for, told by a top-level property (json_object requests carry no schema name)."""
LLAMA_REFUSAL = (
    "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  Input should be 'text' or "
    "'json_object' [type=literal_error, input_value='json_schema', input_type=str]"
)


def request_mode(request: dict[str, Any]) -> str:
    """json_schema, json_object, tools or text: how the request asks for structured output."""
    fmt = request.get("response_format") or {}
    if fmt.get("type") in ("json_schema", "json_object"):
        return str(fmt["type"])
    return "tools" if request.get("tools") else "text"


def schema_name(request: dict[str, Any]) -> str:
    """The name of the schema a structured request asks for, in any mode."""
    fmt = request.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return str(fmt["json_schema"]["name"])
    if request.get("tools"):
        return str(request["tools"][0]["function"]["name"])
    props = (fmt.get("schema") or {}).get("properties", {})
    return next((name for key, name in SCHEMA_KEYS.items() if key in props), "")


def as_tool_call(reply: Reply, name: str) -> Reply:
    """A scripted completion turned into the forced tool call of a `tools` request (its content the arguments)."""
    if not isinstance(reply.body, dict) or "choices" not in reply.body:
        return reply
    body = json.loads(json.dumps(reply.body))
    message = body["choices"][0]["message"]
    arguments, message["content"] = message.get("content") or "", None
    message["tool_calls"] = [
        {"id": "call-loopback", "type": "function", "function": {"name": name, "arguments": arguments}}
    ]
    if body["choices"][0]["finish_reason"] == "stop":
        body["choices"][0]["finish_reason"] = "tool_calls"
    return Reply(reply.status, body, reply.headers, reply.delay_s, reply.drip_s)


class LoopbackLLM:
    """The server: a queue of scripted replies, the requests it received, and an optional fallback model."""

    def __init__(
        self,
        model: Callable[[dict[str, Any]], Reply] | None = None,
        *,
        formats: tuple[str, ...] = ("json_schema", "json_object", "tools"),
        refusal: Reply | None = None,
        token_count: Callable[[str], int] | None = None,
    ):
        self.requests: list[dict[str, Any]] = []
        self.token_count = token_count
        """When set, `POST /extras/tokenize/count` answers `{"count": token_count(input)}` the way
        llama-cpp-python's server does; otherwise that route is a 404 (as on servers without it)."""
        self.counted: list[str] = []
        self.paths: list[str] = []
        """The path of every POST received, in order (count routes included)."""
        self.refused: list[dict[str, Any]] = []
        """Requests answered with the refusal of their format (not in `requests`, not taken from the script)."""
        self.formats = formats
        self.refusal = refusal or error(500, LLAMA_REFUSAL)
        self.model = model
        self._script: deque[Reply] = deque()
        self.aborted = threading.Event()
        """Set when a client hung up on a reply still being sent (a deadline or timeout gave up on it)."""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        """The OPENAI_BASE_URL of this server."""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def push(self, *replies: Reply) -> None:
        """Queue replies, answered in order before the fallback model is asked."""
        with self._lock:
            self._script.extend(replies)

    def schemas(self) -> list[str]:
        """The structured-output schema name of every request answered, in order."""
        return [schema_name(r) for r in self.requests]

    def modes(self) -> list[str]:
        """The structured-output mode of every request answered, in order."""
        return [request_mode(r) for r in self.requests]

    def close(self) -> None:
        """Stop serving and wake any reply that is still waiting out its delay."""
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self._script:
                return self._script.popleft()
        if self.model is not None:
            return self.model(request)
        return error(500, "loopback script exhausted")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                server.paths.append(self.path)
                if self.path == "/extras/tokenize/count" and server.token_count is not None:
                    text = str(json.loads(raw).get("input", ""))
                    server.counted.append(text)
                    return self._send(Reply(body={"count": server.token_count(text)}))
                if self.path != PATH:
                    return self._send(error(404, f"no route {self.path}"))
                try:
                    request = json.loads(raw)
                except json.JSONDecodeError:
                    return self._send(error(400, "request body is not JSON"))
                mode = request_mode(request)
                if mode not in server.formats:
                    server.refused.append(request)
                    return self._send(server.refusal)
                if not schema_name(request):
                    return self._send(error(400, f"a {mode} request without a schema this server knows"))
                reply = server._next(request)
                if mode == "tools":
                    reply = as_tool_call(reply, schema_name(request))
                if reply.delay_s and server._stop.wait(reply.delay_s):
                    return None
                return self._send(reply)

            def _send(self, reply: Reply) -> None:
                data = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                payload = data.encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    if not reply.drip_s:
                        self.wfile.write(payload)
                        return
                    for i in range(len(payload)):
                        if server._stop.wait(reply.drip_s):
                            return
                        self.wfile.write(payload[i : i + 1])
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    server.aborted.set()  # the client gave up (timeout test): nothing left to answer

            def log_message(self, format: str, *args: Any) -> None:
                return None

        return Handler


# ------------------------------------------------------------------------------------------- a fake model

_DOC_RE = re.compile(r"<document ([^>]*)>\n?(.*?)\n?</document>", re.S)
_ATTR_RE = re.compile(r'(\w+)="([^"]*)"')
_GROUP_RE = re.compile(r"^Passages for (\S+) \(", re.M)
_AGAIN_RE = re.compile(r"^Also for this item, shown above: (.+)$", re.M)
_ANSWER_RE = re.compile(r"<current_answer>\n?(.*?)\n?</current_answer>", re.S)
_CLAIM_RE = re.compile(r"^c\d+ \[([^\]]+)\] items=(\S*): (.*)$")
_CITE_RE = re.compile(r'^\s+cites (\S+): "(.*)"$')
EMPTY_PLAN: dict[str, Any] = {
    "jurisdictions": [],
    "entity_types": [],
    "yes_no": False,
    "comparison": False,
    "items": [],
}


def user_text(request: dict[str, Any]) -> str:
    """The last user message of a chat request."""
    return [m["content"] for m in request["messages"] if m["role"] == "user"][-1]


def system_text(request: dict[str, Any]) -> str:
    """The system message of a chat request."""
    return next(m["content"] for m in request["messages"] if m["role"] == "system")


def first_sentence(text: str) -> str:
    """The first sentence of a passage, as a cooperative model would quote it."""
    flat = " ".join(text.split())
    match = re.search(r"^(.{20,}?[.!?])(\s|$)", flat)
    return (match.group(1) if match else flat)[:300]


def documents(text: str) -> list[tuple[dict[str, str], str, str]]:
    """(tag attributes, body, plan item ids of its groups or evidence) of every <document> in a prompt, in
    order; a passage named again in a later group ("Also for this item, shown above: ...") answers that too."""
    groups = [(m.start(), m.group(1)) for m in _GROUP_RE.finditer(text)]
    again: dict[str, list[str]] = {}
    for m in _AGAIN_RE.finditer(text):
        group = next((g for pos, g in reversed(groups) if pos < m.start()), "")
        for chunk_id in m.group(1).split(", "):
            again.setdefault(chunk_id, []).append(group)
    out = []
    for m in _DOC_RE.finditer(text):
        attrs = dict(_ATTR_RE.findall(m.group(1)))
        group = next((g for pos, g in reversed(groups) if pos < m.start()), "")
        items = attrs.get("plan_items") or ", ".join(x for x in [group, *again.get(attrs["chunk_id"], [])] if x)
        out.append((attrs, m.group(2), items))
    return out


def claim(text: str, items: list[str], chunk_id: str, quote: str) -> dict[str, Any]:
    """One claim of an AnswerOut reply."""
    return {"text": text, "plan_item_ids": items, "citations": [{"chunk_id": chunk_id, "quote": quote}]}


class FakeModel:
    """Answers structured-output requests the way a cooperative model would, from the prompt alone.

    Plans: nothing added to the floor plan. Drafts: the first sentence of each passage, quoted, as one claim per
    section answering every item the passage was given for, minus `skip_jurisdictions` on the first draft; a
    "Yes." verdict on the first passage for a yes/no question. Revisions: the current claims plus the first
    sentence of each evidence passage. Critiques: the next scripted item of `findings`, a list of deficiencies or
    a raw `Reply` (none once they run out).
    """

    def __init__(
        self, skip_jurisdictions: tuple[str, ...] = (), findings: list[list[dict[str, Any]] | Reply] | None = None
    ):
        self.skip = set(skip_jurisdictions)
        self.findings = deque(findings or [])
        self.drafts = 0

    def __call__(self, request: dict[str, Any]) -> Reply:
        name = schema_name(request)
        text = user_text(request)
        if name == "FindingsOut":
            found = self.findings.popleft() if self.findings else []
            return found if isinstance(found, Reply) else structured({"deficiencies": found})
        if name == "PlanOut":
            return structured(EMPTY_PLAN)
        sections: dict[str, list[dict[str, Any]]] = {}
        answer = _ANSWER_RE.search(text)
        for code, c in _current_claims(answer.group(1) if answer else ""):
            sections.setdefault(code, []).append(c)
        skip = self.skip if not answer and self.drafts == 0 else set()
        self.drafts += not answer
        verdict = None
        for attrs, body, item in documents(text):
            code = attrs.get("jurisdiction", "")
            if code in skip or not item:
                continue
            quote = first_sentence(body)
            if verdict is None and "Kind: yes/no question" in text:
                verdict = claim(f"Yes. {quote}", [], attrs["chunk_id"], quote)
            same = next((c for c in sections.get(code, []) if c["text"] == quote), None)
            if same is None:
                sections.setdefault(code, []).append(claim(quote, [], attrs["chunk_id"], quote))
                same = sections[code][-1]
            same["plan_item_ids"] = list(dict.fromkeys([*same["plan_item_ids"], *item.split(", ")]))
        return structured(
            {"verdict": verdict, "sections": [{"jurisdiction": k, "claims": v} for k, v in sections.items()]}
        )


def _current_claims(block: str) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for line in block.splitlines():
        if m := _CLAIM_RE.match(line):
            items = [i for i in m.group(2).split(",") if i and i != "none"]
            out.append((m.group(1), {"text": m.group(3), "plan_item_ids": items, "citations": []}))
        elif (m := _CITE_RE.match(line)) and out:
            out[-1][1]["citations"].append({"chunk_id": m.group(1), "quote": m.group(2)})
    return [(code, c) for code, c in out if code != "verdict"]
