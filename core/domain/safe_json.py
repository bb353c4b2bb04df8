"""JSON from files and lines people supply, with a bound on nesting depth.

The standard parser recurses once per nesting level, so a line of 100,000 `[` raises RecursionError (and a few
hundred levels can still overflow whatever walks the result). `loads` counts the depth first, outside strings,
and refuses deeper input with a ValueError that says so, so one bad input fails alone with a clear message.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_JSON_DEPTH = 32
"""Deepest nesting of arrays and objects accepted: real corpus lines, queries and decisions use 4 or fewer."""

_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")


class JsonDepthError(ValueError):
    """JSON nested deeper than allowed."""


def nesting_depth(text: str) -> int:
    """The deepest nesting of `[`/`{` in `text`, not counting brackets inside strings."""
    depth = deepest = 0
    for m in _BRACKETS.finditer(_STRINGS.sub('""', text)):
        if m.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def loads(text: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """`json.loads` that raises JsonDepthError for input nested deeper than `max_depth` (json.JSONDecodeError,
    a ValueError too, for malformed input)."""
    depth = nesting_depth(text)
    if depth > max_depth:
        raise JsonDepthError(f"JSON nested {depth} levels deep; the limit is {max_depth}")
    return json.loads(text)
