"""Corpus document metadata: YAML front matter split-off and validation into `DocumentMeta`.

python-frontmatter finds the `---` fences; the YAML between them is loaded by `core.domain.safe_yaml` (no aliases, no
deep nesting, dates as text) and validated by the pydantic model `FrontMatter`. Every error names the file and
the offending key (`CorpusFormatError`), so an analyst can fix the source.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime
from typing import Annotated, Any

from frontmatter.default_handlers import YAMLHandler
from pydantic import BaseModel, BeforeValidator, ValidationError
from pydantic_core import ErrorDetails, PydanticCustomError

from core.domain.documents import DocStatus, DocumentMeta, Exemption, Threshold
from core.domain.inputs import parse_day
from core.domain.safe_yaml import YamlInputError, load_yaml
from core.retrieval.errors import CorpusFormatError, IngestError

REQUIRED_KEYS = ("id", "title", "jurisdiction")
KNOWN_KEYS = frozenset(DocumentMeta.model_fields) - {"extra", "provenance"}
"""Front-matter keys validated into `DocumentMeta`. A file's own `provenance` (and `verified`) lands in `extra`:
ingest records how a document arrived, the file cannot say so itself."""

MAX_ID_CHARS = 200
"""Cap on a document id (and a .jsonl passage id): ids are shown, cited and stored in every chunk's payload."""
_DOC_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]*")
_JURISDICTION = re.compile(r"[A-Za-z0-9]{2,5}(-[A-Za-z0-9]{1,6})?")
"""A code of 2 to 5 letters or digits (EU, US, SG, INT), optionally with a subdivision or market after '-' (US-NY,
CA-ON: ISO 3166-2; AE-ADGM: a market that needs a declared `jurisdiction_name`)."""
_FENCES = YAMLHandler()


def split_front_matter(text: str, source: str) -> tuple[dict[str, Any] | None, str]:
    """Split `---`-fenced YAML front matter from the body; (None, text) when the file has none."""
    if not _FENCES.detect(text):
        return None, text
    try:
        raw, body = _FENCES.split(text)
    except ValueError:
        raise IngestError(source, "front matter starts with '---' but has no closing '---' line") from None
    try:
        data = load_yaml(raw, first_line=text[: text.index(raw)].count("\n") + 1)
    except YamlInputError as exc:
        raise IngestError(source, f"front matter {exc}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise IngestError(source, f"front matter must be a YAML mapping of keys, got {type(data).__name__}")
    return {str(k): v for k, v in data.items()}, body.removeprefix("\n")


# ------------------------------------------------------------------------------------------------ validation


def _problem(text: str) -> PydanticCustomError:
    return PydanticCustomError("front_matter", "{problem}", {"problem": text})


def _describe(value: Any) -> str:
    return "a list" if isinstance(value, list) else "a mapping" if isinstance(value, dict) else repr(value)


def _required(value: Any) -> str:
    if value is None or (isinstance(value, str) and not value.strip()):
        raise _problem("missing (required: id, title, jurisdiction)")
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise _problem(f"must be text, got {_describe(value)}")
    return str(value).strip()


def _doc_id(value: Any) -> Any:
    value = _required(value)
    if len(value) > MAX_ID_CHARS:
        raise _problem(f"{too_long(value, MAX_ID_CHARS)}; use a shorter document id")
    if not _DOC_ID.fullmatch(value):
        raise _problem(f"{value!r} is not a document id (letters, digits, '.', '_', '-', ':'; no spaces)")
    return value


def too_long(value: str, limit: int) -> str:
    """`'abc…' is 100,000 characters long; the limit is 200`, quoting only the start of the value."""
    return f"{value[:40]!r}… is {len(value):,} characters long; the limit is {limit}"


def _jurisdiction(value: Any) -> Any:
    value = _required(value)
    if not _JURISDICTION.fullmatch(value):
        raise _problem(
            f"{value!r} is not a jurisdiction code (2 to 5 letters or digits, optionally '-' and a "
            "subdivision or market, e.g. EU, US, SG, INT, US-NY, AE-ADGM)"
        )
    return value


def _text(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        raise _problem(f"must be text, got {_describe(value)}")
    return None if value is None else str(value)


def _iso_date(value: Any) -> Any:
    if value is None or isinstance(value, date):
        return value.date() if isinstance(value, datetime) else value
    if isinstance(value, str):
        try:
            return parse_day(value.strip())
        except ValueError:
            pass
    raise _problem(f"{value!r} is not an ISO date (YYYY-MM-DD)")


def _status(value: Any) -> Any:
    if value is None:
        return DocStatus.in_force
    try:
        return DocStatus(str(value).strip())
    except ValueError:
        allowed = ", ".join(s.value for s in DocStatus)
        raise _problem(f"{value!r} is not one of: {allowed}") from None


def _text_list(value: Any) -> Any:
    items = [] if value is None else [value] if isinstance(value, str) else value
    if not isinstance(items, list) or any(isinstance(v, (list, dict)) or v is None for v in items):
        raise _problem(f"must be a text or a list of texts, got {_describe(value)}")
    return tuple(str(v) for v in items)


def _records_of(model: type[BaseModel]) -> tuple[BeforeValidator, BeforeValidator]:
    """Validators of a list of `model` mappings and of each item, with messages that list the keys."""
    keys = ", ".join(model.model_fields)

    def records(value: Any) -> Any:
        if value is None:
            return ()
        if not isinstance(value, list):
            raise _problem(f"must be a list of mappings with keys {keys}, got {_describe(value)}")
        return value

    def record(value: Any) -> Any:
        if not isinstance(value, dict):
            raise _problem(f"must be a mapping with keys {keys}, got {_describe(value)}")
        return value

    return BeforeValidator(records), BeforeValidator(record)


_THRESHOLDS, _THRESHOLD = _records_of(Threshold)
_EXEMPTIONS, _EXEMPTION = _records_of(Exemption)
Text = Annotated[str | None, BeforeValidator(_text)]
Day = Annotated[date | None, BeforeValidator(_iso_date)]
Texts = Annotated[tuple[str, ...], BeforeValidator(_text_list)]


class FrontMatter(BaseModel):
    """The front-matter keys `DocumentMeta` knows and what each must hold."""

    id: Annotated[str, BeforeValidator(_doc_id)]
    title: Annotated[str, BeforeValidator(_required)]
    jurisdiction: Annotated[str, BeforeValidator(_jurisdiction)]
    jurisdiction_name: Text = None
    authority: Text = None
    instrument: Text = None
    citation: Text = None
    published: Day = None
    effective: Day = None
    applies_until: Day = None
    status: Annotated[DocStatus, BeforeValidator(_status)] = DocStatus.in_force
    superseded_by: Texts = ()
    applies_to: Texts = ()
    topics: Texts = ()
    aliases: Texts = ()
    thresholds: Annotated[tuple[Annotated[Threshold, _THRESHOLD], ...], _THRESHOLDS] = ()
    exemptions: Annotated[tuple[Annotated[Exemption, _EXEMPTION], ...], _EXEMPTIONS] = ()
    source_path: Text = None


def _key(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as the front-matter key path: `thresholds[0].value`."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}" if out else str(part)
    return out


def _message(err: ErrorDetails) -> str:
    if err["type"] == "missing":
        return "missing (required: id, title, jurisdiction)" if len(err["loc"]) == 1 else "missing (required)"
    if err["type"] == "front_matter":
        return err["msg"]
    return f"{err['msg']} (got {err.get('input')!r})"


def parse_document_meta(data: Mapping[str, Any], source: str) -> DocumentMeta:
    """Validate a front-matter mapping into `DocumentMeta`; unknown keys are kept in `extra`. The first error
    raises CorpusFormatError naming the key."""
    known = {k: v for k, v in data.items() if k in KNOWN_KEYS}
    try:
        front = FrontMatter.model_validate(known)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise CorpusFormatError(source, _key(err["loc"]), _message(err)) from None
    fields = dict(front)
    fields["jurisdiction_name"] = _jurisdiction_name(
        front.jurisdiction, (front.jurisdiction_name or "").strip() or None, source
    )
    fields["extra"] = {k: _plain(v) for k, v in data.items() if k not in KNOWN_KEYS}
    return DocumentMeta(**fields)


def _jurisdiction_name(code: str, declared: str | None, source: str) -> str | None:
    """The jurisdiction's name: as declared, else pycountry's for an ISO 3166-2 subdivision; a subdivision or
    market code that pycountry does not know must declare it (`jurisdiction_name`), so a typo is not a new place."""
    if declared or "-" not in code:
        return declared
    import pycountry  # imported on use: its code tables take a moment to load

    known = pycountry.subdivisions.get(code=code.upper())
    if known is None:
        raise CorpusFormatError(
            source,
            "jurisdiction_name",
            f"missing: {code!r} is not an ISO 3166-2 subdivision, so declare what it names "
            "(e.g. jurisdiction: AE-ADGM with jurisdiction_name: Abu Dhabi Global Market)",
        )
    return str(known.name)


def _plain(value: Any) -> Any:
    """YAML scalars that JSON cannot hold (dates) become ISO strings, so `extra` survives the payload."""
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
