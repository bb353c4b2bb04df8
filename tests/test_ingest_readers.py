"""Ingest, reading one file: every input format, broken files and malformed front matter."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from core.domain.documents import DocStatus
from core.retrieval import readers
from core.retrieval.errors import CorpusFormatError, IngestError
from core.retrieval.readers import read_file
from tests.ingest_docs import XY_DOC, front, write

DATA = Path(__file__).parent / "data"


# -- formats ------------------------------------------------------------------------------------------------


def test_markdown_with_front_matter(tmp_path: Path) -> None:
    [doc] = read_file(write(tmp_path, "xy.md", XY_DOC))
    m = doc.meta
    assert (m.id, m.title, m.jurisdiction, m.status) == (
        "xy-payments-act-2021",
        "XY Payments Act 2021",
        "XY",
        DocStatus.in_force,
    )
    assert m.effective == date(2021, 7, 1) and m.published == date(2021, 3, 1)
    assert m.superseded_by == ("xy-payments-act-2027",)
    assert m.thresholds[0].value == 30 and m.thresholds[0].applies_to == ("payment institution",)
    assert m.exemptions[0].entity == "listed company"
    assert m.extra == {"review_cycle": "2024-01-01", "owner_team": "compliance"}
    assert m.source_path == str(tmp_path / "xy.md")
    assert [c.chunk_index for c in doc.chunks] == list(range(len(doc.chunks)))
    assert "30 percent or more" in " ".join(c.text for c in doc.chunks)
    assert "review_cycle" not in doc.chunks[0].text  # front matter is metadata, not text


def test_markdown_without_front_matter_takes_defaults(tmp_path: Path) -> None:
    path = write(
        tmp_path, "My Notes v2.md", "Intro line.\n\n# XY guidance on remittance\n\nRemitters verify all customers.\n"
    )
    [doc] = read_file(path, {"jurisdiction": "XY", "status": "proposed"})
    assert doc.meta.id == "My-Notes-v2"
    assert doc.meta.title == "XY guidance on remittance"
    assert doc.meta.status == DocStatus.proposed
    with pytest.raises(CorpusFormatError, match=r"My Notes v2\.md: key 'jurisdiction': missing"):
        read_file(path)


def test_front_matter_wins_over_defaults(tmp_path: Path) -> None:
    [doc] = read_file(write(tmp_path, "xy.md", XY_DOC), {"jurisdiction": "ZZ", "authority": "XY Central Bank"})
    assert doc.meta.jurisdiction == "XY" and doc.meta.authority == "XY Central Bank"


def test_plain_text(tmp_path: Path) -> None:
    path = write(tmp_path, "zz-circular.txt", "# not a heading in text files\n\nZZ money changers keep records.")
    [doc] = read_file(path, {"jurisdiction": "ZZ"})
    assert (doc.meta.id, doc.meta.title, doc.meta.jurisdiction) == ("zz-circular", "zz-circular", "ZZ")
    assert "money changers" in doc.chunks[0].text


def test_pdf(tmp_path: Path) -> None:
    [doc] = read_file(DATA / "tiny.pdf", {"jurisdiction": "XY"})
    assert doc.meta.id == "tiny" and doc.meta.title == "XY Payments Notice 7"
    assert "30 percent or more" in doc.chunks[0].text


def test_jsonl_groups_passages_and_keeps_metadata(tmp_path: Path) -> None:
    rows = [
        {
            "id": "p1",
            "text": "Wire transfers above XYD 1,000 carry originator data.",
            "doc_id": "xy-wire",
            "title": "XY Wire Rule",
            "jurisdiction": "XY",
            "effective": "2022-01-01",
            "section": "4.1",
        },
        {
            "id": "p2",
            "text": "Crypto transfers carry it regardless of amount.",
            "doc_id": "xy-wire",
            "section": "4.2",
            "page": 7,
        },
        {"id": 3, "text": "A standalone ZZ passage.", "jurisdiction": "ZZ"},
    ]
    path = write(tmp_path, "passages.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n\n")
    wire, single = read_file(path)
    assert (wire.meta.id, wire.meta.title, wire.meta.effective) == ("xy-wire", "XY Wire Rule", date(2022, 1, 1))
    assert [c.metadata for c in wire.chunks] == [
        {"passage_id": "p1", "section": "4.1"},
        {"passage_id": "p2", "section": "4.2", "page": 7},
    ]
    assert (single.meta.id, single.meta.jurisdiction, single.meta.title) == ("3", "ZZ", "3")


# -- broken files -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("empty.md", "", "no text to index"),
        ("blank.txt", "  \n\n ", "no text to index"),
        ("only-front.md", "---\nid: a\ntitle: A\njurisdiction: XY\n---\n\n", "empty apart from front matter"),
        ("latin1.txt", "Beh\xf6rde".encode("latin-1"), r"not UTF-8 text \(byte 0xf6 at offset 3\)"),
        ("corrupt.pdf", b"%PDF-1.4\nthis is not really a pdf", "not a readable PDF"),
        ("notes.docx", b"PK\x03\x04", "unsupported file type '.docx'"),
        (
            "bad.jsonl",
            '{"id": "a", "text": "ok", "jurisdiction": "XY"}\n{"id": "b", "text": oops}\n',
            r"bad\.jsonl:2: line 2 is not valid JSON",
        ),
        ("list.jsonl", '["id", "text"]\n', r"list\.jsonl:1: line 1 must be a JSON object"),
        ("notext.jsonl", '{"id": "a", "jurisdiction": "XY"}\n', r"notext\.jsonl:1: key 'text'"),
        ("nojur.jsonl", '{"id": "a", "text": "t"}\n', r"nojur\.jsonl: key 'jurisdiction': missing for document 'a'"),
        (
            "deep.jsonl",
            '{"id": "a", "text": "t", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n",
            r"deep\.jsonl:1: line 1: JSON nested 100001 levels deep; the limit is 32",
        ),
        (
            "longid.jsonl",
            '{"id": "' + "p" * 201 + '", "text": "t", "jurisdiction": "XY"}\n',
            r"longid\.jsonl:1: key 'id': 'p{40}'… is 201 characters long; the limit is 200; use a shorter passage id",
        ),
        (
            "longdoc.jsonl",
            '{"id": "a", "doc_id": "' + "d" * 201 + '", "text": "t", "jurisdiction": "XY"}\n',
            r"longdoc\.jsonl:1: key 'doc_id': 'd{40}'… is 201 characters long; the limit is 200",
        ),
        (
            "latin1.jsonl",
            b'{"id": "a", "text": "ok"}\n' + '{"id": "b", "text": "Beh\xf6rde"}\n'.encode("latin-1"),
            r"latin1\.jsonl:2: line 2 is not UTF-8 text \(byte 0xf6 at column 25\)",
        ),
        (
            "alias.md",
            "---\nid: a\ntitle: &t A\njurisdiction: XY\ntopics: [*t]\n---\nBody\n",
            r"front matter uses a YAML anchor or alias \(line 3\); anchors and aliases are not allowed",
        ),
        (
            "selfref.md",
            "---\nid: a\ntitle: A\njurisdiction: XY\ntopics: &a [*a]\n---\nBody\n",
            "front matter uses a YAML anchor or alias",
        ),
        (
            "nested.md",
            "---\nid: a\ntitle: A\njurisdiction: XY\nx: " + "[" * 5000 + "]" * 5000 + "\n---\nBody\n",
            r"front matter is nested more than 16 levels deep \(line 5\)",
        ),
    ],
)
def test_broken_file_is_a_clear_error(tmp_path: Path, name: str, content: str | bytes, message: str) -> None:
    path = write(tmp_path, name, content)
    with pytest.raises(IngestError, match=message) as info:
        read_file(path, {"jurisdiction": "XY"} if name.endswith((".txt", ".pdf")) else None)
    assert str(info.value).startswith(str(path))


def test_a_country_code_that_yaml_1_1_reads_as_a_boolean_stays_the_code(tmp_path: Path) -> None:
    # Norway's ISO code, unquoted: PyYAML's YAML 1.1 booleans would make it False and the document unreadable
    doc = read_file(write(tmp_path, "no-act.md", front(id="no-act", jurisdiction="NO")))[0]
    assert doc.meta.jurisdiction == "NO"


def test_enormous_pdf_text_is_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(readers, "MAX_TEXT_CHARS", 50)
    with pytest.raises(IngestError, match=r"tiny\.pdf: text is too large \(\d+ characters; the limit is 50\)"):
        read_file(DATA / "tiny.pdf", {"jurisdiction": "XY"})


# -- malformed front matter ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content, message",
    [
        ("---\nid: [unclosed\ntitle: x\n---\nBody\n", r"front matter is not valid YAML \(line \d+\)"),
        ("---\nid: a\ntitle: b\nBody without closing fence\n", "has no closing '---' line"),
        ("---\n- a\n- b\n---\nBody\n", "front matter must be a YAML mapping"),
        (front(id=None), "key 'id': missing"),
        (front(title=None), "key 'title': missing"),
        (front(jurisdiction='""'), "key 'jurisdiction': missing"),
        (front(id="'has space'"), "key 'id': 'has space' is not a document id"),
        pytest.param(
            front(id="x" * 100_000),
            r"key 'id': 'x{40}'… is 100,000 characters long; the limit is 200; use a shorter document id",
            id="id-of-100000-characters",
        ),
        (front(effective="2027-13-01"), "key 'effective': '2027-13-01' is not an ISO date"),
        (front(effective="'20270101'"), "key 'effective': '20270101' is not an ISO date"),
        (front(effective="2027-W01-1"), "key 'effective': '2027-W01-1' is not an ISO date"),
        (front(published="soon"), "key 'published': 'soon' is not an ISO date"),
        (front(status="outdated"), "key 'status': 'outdated' is not one of: in_force, not_yet_applicable"),
        (front(topics="{a: 1}"), "key 'topics': must be a text or a list of texts"),
        (front(thresholds="25 percent"), "key 'thresholds': must be a list of mappings"),
        (front(thresholds="[25]"), r"key 'thresholds\[0\]': must be a mapping"),
        (front(thresholds="[{name: bo, unit: percent}]"), r"key 'thresholds\[0\]\.value': missing \(required\)"),
        (
            front(thresholds="[{name: bo, value: lots}]"),
            r"key 'thresholds\[0\]\.value': Input should be a valid number",
        ),
        (front(thresholds="[{name: bo, value: 25, comparator: about}]"), r"key 'thresholds\[0\]\.comparator'"),
        (front(exemptions="[{entity: bank}]"), r"key 'exemptions\[0\]\.rule': missing \(required\)"),
        (front(exemptions="{entity: bank, rule: x}"), "key 'exemptions': must be a list of mappings"),
    ],
)
def test_malformed_front_matter_names_file_and_key(tmp_path: Path, content: str, message: str) -> None:
    path = write(tmp_path, "core/corpus/x.md", content)
    with pytest.raises(IngestError, match=message) as info:
        read_file(path)
    assert str(info.value).startswith(f"{path}: ")
