"""Corpus document metadata: YAML front matter split-off and validation into `DocumentMeta`.

Every error names the file and the offending key (`CorpusFormatError`), so an analyst can fix the source.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any, Mapping

import yaml
from pydantic import BaseModel, ValidationError

from core.retrieval.errors import CorpusFormatError, IngestError
from core.retrieval.models import DocStatus, DocumentMeta, Exemption, Threshold

REQUIRED_KEYS = ("id", "title", "jurisdiction")
DATE_KEYS = ("published", "effective", "applies_until")
STRING_KEYS = ("authority", "instrument", "citation")
LIST_KEYS = ("superseded_by", "applies_to", "topics", "aliases")
KNOWN_KEYS = frozenset(DocumentMeta.model_fields) - {"extra"}


class _FrontMatterLoader(yaml.CSafeLoader):
    """Safe YAML that leaves dates as text, so a bad date becomes our error naming the key, not a crash."""


_FrontMatterLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.CSafeLoader.yaml_implicit_resolvers.items()
}

MAX_FRONT_MATTER_DEPTH = 16
"""Deepest nesting of lists and mappings in front matter (thresholds and exemptions use 3)."""

_DOC_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]*$")
_JURISDICTION = re.compile(r"^[A-Za-z0-9]{2,5}(-[A-Za-z0-9]{1,6})?$")
"""A code of 2 to 5 letters or digits (EU, US, SG, INT), optionally with a subdivision or market after '-' (US-NY,
CA-ON: ISO 3166-2; AE-ADGM: a market that needs a declared `jurisdiction_name`)."""
_FENCE = re.compile(r"^---[ \t]*$")
_FENCE_END = re.compile(r"^(---|\.\.\.)[ \t]*$")


def split_front_matter(text: str, source: str) -> tuple[dict[str, Any] | None, str]:
    """Split `---`-fenced YAML front matter from the body; (None, text) when the file has none."""
    lines = text.splitlines(keepends=True)
    if not lines or not _FENCE.match(lines[0].rstrip("\r\n")):
        return None, text
    for end in range(1, len(lines)):
        if _FENCE_END.match(lines[end].rstrip("\r\n")):
            break
    else:
        raise IngestError(source, "front matter starts with '---' but has no closing '---' line")
    raw = "".join(lines[1:end])
    try:
        _check_structure(raw, source)
        data = yaml.load(raw, Loader=_FrontMatterLoader)  # noqa: S506 (a safe loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise IngestError(source, f"front matter is not valid YAML{where}: {problem}") from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise IngestError(source, f"front matter must be a YAML mapping of keys, got {type(data).__name__}")
    return {str(k): v for k, v in data.items()}, "".join(lines[end + 1 :])


def _check_structure(raw: str, source: str) -> None:
    """Refuse anchors and aliases (a few hundred bytes of nested aliases expand to gigabytes, and a self-reference
    recurses without end) and nesting deeper than MAX_FRONT_MATTER_DEPTH, from the event stream, before any value
    is built."""
    depth = 0
    for event in yaml.parse(raw, Loader=yaml.CSafeLoader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            line = event.start_mark.line + 2
            raise IngestError(source, f"front matter uses a YAML anchor or alias (line {line}); anchors and aliases "
                                      "are not allowed: write the values out")
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_FRONT_MATTER_DEPTH:
                raise IngestError(source, f"front matter is nested more than {MAX_FRONT_MATTER_DEPTH} levels deep "
                                          f"(line {event.start_mark.line + 2})")
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1


def parse_document_meta(data: Mapping[str, Any], source: str) -> DocumentMeta:
    """Validate a front-matter mapping into `DocumentMeta`; unknown keys are kept in `extra`."""
    fields: dict[str, Any] = {}
    for key in REQUIRED_KEYS:
        value = data.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            raise CorpusFormatError(source, key, "missing (required: id, title, jurisdiction)")
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise CorpusFormatError(source, key, f"must be text, got {_describe(value)}")
        fields[key] = str(value).strip()
    if not _DOC_ID.match(fields["id"]):
        raise CorpusFormatError(
            source, "id", f"{fields['id']!r} is not a document id (letters, digits, '.', '_', '-', ':'; no spaces)"
        )
    if data.get("jurisdiction_name") is not None:
        fields["jurisdiction_name"] = _text(data["jurisdiction_name"], source, "jurisdiction_name").strip() or None
    name = _jurisdiction_name(fields["jurisdiction"], fields.get("jurisdiction_name"), source)
    if name is not None:
        fields["jurisdiction_name"] = name
    for key in STRING_KEYS:
        if data.get(key) is not None:
            fields[key] = _text(data[key], source, key)
    for key in DATE_KEYS:
        if data.get(key) is not None:
            fields[key] = _iso_date(data[key], source, key)
    if data.get("status") is not None:
        fields["status"] = _status(data["status"], source)
    for key in LIST_KEYS:
        if data.get(key) is not None:
            fields[key] = _text_list(data[key], source, key)
    if data.get("thresholds") is not None:
        fields["thresholds"] = _records(data["thresholds"], source, "thresholds", Threshold)
    if data.get("exemptions") is not None:
        fields["exemptions"] = _records(data["exemptions"], source, "exemptions", Exemption)
    if data.get("source_path") is not None:
        fields["source_path"] = _text(data["source_path"], source, "source_path")
    fields["extra"] = {k: _plain(v) for k, v in data.items() if k not in KNOWN_KEYS}
    return DocumentMeta(**fields)


def _jurisdiction_name(code: str, declared: str | None, source: str) -> str | None:
    """The jurisdiction's name: as declared, else pycountry's for an ISO 3166-2 subdivision; a subdivision or
    market code that pycountry does not know must declare it (`jurisdiction_name`), so a typo is not a new place."""
    if not _JURISDICTION.match(code):
        raise CorpusFormatError(
            source, "jurisdiction",
            f"{code!r} is not a jurisdiction code (2 to 5 letters or digits, optionally '-' and a subdivision or "
            "market, e.g. EU, US, SG, INT, US-NY, AE-ADGM)",
        )
    if declared or "-" not in code:
        return declared
    import pycountry  # imported on use: its code tables take a moment to load

    known = pycountry.subdivisions.get(code=code.upper())
    if known is None:
        raise CorpusFormatError(
            source, "jurisdiction_name",
            f"missing: {code!r} is not an ISO 3166-2 subdivision, so declare what it names "
            "(e.g. jurisdiction: AE-ADGM with jurisdiction_name: Abu Dhabi Global Market)",
        )
    return str(known.name)


def _describe(value: Any) -> str:
    return "a list" if isinstance(value, list) else "a mapping" if isinstance(value, dict) else repr(value)


def _text(value: Any, source: str, key: str) -> str:
    if isinstance(value, (list, dict)):
        raise CorpusFormatError(source, key, f"must be text, got {_describe(value)}")
    return str(value)


def _iso_date(value: Any, source: str, key: str) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise CorpusFormatError(source, key, f"{value!r} is not an ISO date (YYYY-MM-DD)")


def _status(value: Any, source: str) -> DocStatus:
    try:
        return DocStatus(str(value).strip())
    except ValueError:
        allowed = ", ".join(s.value for s in DocStatus)
        raise CorpusFormatError(source, "status", f"{value!r} is not one of: {allowed}") from None


def _text_list(value: Any, source: str, key: str) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or any(isinstance(v, (list, dict)) or v is None for v in items):
        raise CorpusFormatError(source, key, f"must be a text or a list of texts, got {_describe(value)}")
    return tuple(str(v) for v in items)


def _records(value: Any, source: str, key: str, model: type[BaseModel]) -> tuple[Any, ...]:
    expected = ", ".join(model.model_fields)
    if not isinstance(value, list):
        raise CorpusFormatError(source, key, f"must be a list of mappings with keys {expected}, got {_describe(value)}")
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            problem = f"must be a mapping with keys {expected}, got {_describe(item)}"
            raise CorpusFormatError(source, f"{key}[{i}]", problem)
        try:
            out.append(model.model_validate(item))
        except ValidationError as exc:
            err = exc.errors()[0]
            sub = ".".join(str(p) for p in err["loc"])
            problem = "missing (required)" if err["type"] == "missing" else f"{err['msg']} (got {err.get('input')!r})"
            raise CorpusFormatError(source, f"{key}[{i}].{sub}", problem) from None
    return tuple(out)


def _plain(value: Any) -> Any:
    """YAML scalars that JSON cannot hold (dates) become ISO strings, so `extra` survives the payload."""
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
