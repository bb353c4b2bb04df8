"""Collection names: identifiers only, because the embedded store turns a name into a directory under the data dir.

`validate_collection` is the one check every entry point uses (CLI, service, both stores); a name like `..` or
`/some/dir` must never reach a path join or a server call.
"""

from __future__ import annotations

import re

from core.retrieval.errors import InvalidCollectionError

MAX_COLLECTION_CHARS = 64
_COLLECTION = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


def validate_collection(name: object) -> str:
    """`name` unchanged when it is a collection identifier (letters, digits, '_', '-'; starting with a letter or
    digit; at most 64 characters); InvalidCollectionError naming the problem otherwise."""
    if not isinstance(name, str) or not _COLLECTION.fullmatch(name) or len(name) > MAX_COLLECTION_CHARS:
        raise InvalidCollectionError(
            f"{name!r} is not a collection name: use letters, digits, '_' and '-' (starting with a letter or "
            f"digit, at most {MAX_COLLECTION_CHARS} characters)"
        )
    return name
