"""What can be kept of a reply cut at its length limit: the complete items before the one being written.

A small local model may write findings or claims until its reply limit; retried, it writes them again. The schema
names where such a reply was writing (`CUT_PATH`: the list of records, and the list inside its last record, ...);
the last record on that path was cut, so it is dropped and the rest is validated as usual. A schema without a
`CUT_PATH`, a reply with no complete record, or one that does not validate is not salvaged.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from langchain_core.utils.json import parse_partial_json
from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)
_OPEN_FENCE = re.compile(r"^\s*```(?:json)?\s*")


def _records(obj: Any, path: tuple[str, ...]) -> list[Any] | None:
    """The list at the end of `path`, following each list's last element; None when the path is not there."""
    node = obj
    for key in path[:-1]:
        items = node.get(key) if isinstance(node, dict) else None
        if not isinstance(items, list) or not items:
            return None
        node = items[-1]
    last = node.get(path[-1]) if isinstance(node, dict) else None
    return last if isinstance(last, list) else None


def _count(obj: Any, path: tuple[str, ...]) -> int:
    """Records on `path` across every parent, not only the last one."""
    if not path:
        return 1
    items = obj.get(path[0]) if isinstance(obj, dict) else None
    return sum(_count(i, path[1:]) for i in items) if isinstance(items, list) else 0


def salvage(schema: type[M], text: str) -> tuple[M, int] | None:
    """The reply with the record it was cut in dropped, and how many complete records it keeps; None when
    nothing can be kept."""
    path: tuple[str, ...] = getattr(schema, "CUT_PATH", ())
    if not path:
        return None
    try:
        obj = parse_partial_json(_OPEN_FENCE.sub("", text).removesuffix("```"))
    except ValueError:
        return None
    records = _records(obj, path)
    if not records:
        return None
    records.pop()
    kept = _count(obj, path)
    if not kept:
        return None
    try:
        return schema.model_validate(obj), kept
    except ValidationError:
        return None
