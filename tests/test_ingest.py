"""Ingest: every input format, broken files, malformed front matter, chunking, and batch behaviour."""

from __future__ import annotations

import itertools
import json
from datetime import date
from pathlib import Path

import pytest

from core.documents import DocStatus
from core.retrieval import ingest as ingest_mod
from core.retrieval import readers
from core.retrieval.chunking import chunk_text
from core.retrieval.errors import CorpusFormatError, IngestError
from core.retrieval.ingest import ensure_sample_corpus, ingest_paths
from core.retrieval.readers import read_file

DATA = Path(__file__).parent / "data"

XY_DOC = """---
id: xy-payments-act-2021
title: XY Payments Act 2021
jurisdiction: XY
status: in_force
published: 2021-03-01
effective: 2021-07-01
superseded_by: xy-payments-act-2027
topics: [cdd, beneficial ownership]
thresholds:
  - {name: beneficial_ownership, value: 30, unit: percent, comparator: ">=", applies_to: payment institution}
exemptions:
  - {entity: listed company, rule: exempt from beneficial ownership identification}
review_cycle: 2024-01-01
owner_team: compliance
---
# XY Payments Act 2021

## Beneficial ownership

Payment institutions in XY identify every person holding 30 percent or more.

## Occasional transactions

Customer due diligence applies to occasional transactions of XYD 5,000 or more.
"""


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


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


def test_enormous_pdf_text_is_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(readers, "MAX_TEXT_CHARS", 50)
    with pytest.raises(IngestError, match=r"tiny\.pdf: text is too large \(\d+ characters; the limit is 50\)"):
        read_file(DATA / "tiny.pdf", {"jurisdiction": "XY"})


# -- malformed front matter ---------------------------------------------------------------------------------

BASE = {"id": "xy-1", "title": "XY one", "jurisdiction": "XY"}


def front(**changes: str | None) -> str:
    fields = {**BASE, **changes}
    lines = [f"{k}: {v}" for k, v in fields.items() if v is not None]
    return "---\n" + "\n".join(lines) + "\n---\nBody text.\n"


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
        (front(effective="2027-13-01"), "key 'effective': '2027-13-01' is not an ISO date"),
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


# -- chunking -----------------------------------------------------------------------------------------------


def test_chunking_respects_size_overlap_and_headings() -> None:
    para = " ".join(f"w{i}" for i in range(150))
    text = f"# Title\n\nShort intro.\n\n## Long section\n\n{para}\n\n{para}\n\n## Tail\n\nLast words here."
    passages = chunk_text(text, max_words=60, overlap_words=10)
    assert all(len(p.text.split()) <= 60 for p in passages)
    assert passages[0].heading == "Title" and passages[1].heading == "Long section"
    for prev, nxt in itertools.pairwise(passages):
        if nxt.heading == prev.heading == "Long section":
            assert nxt.text.split()[:10] == prev.text.split()[-10:]
    every_word = " ".join(p.text for p in passages).split()
    assert {f"w{i}" for i in range(150)} <= set(every_word)


def test_small_sections_are_merged() -> None:
    passages = chunk_text("# A\n\none two\n\n# B\n\nthree four\n\n# C\n\nfive", max_words=60, overlap_words=10)
    assert len(passages) == 1 and passages[0].heading == "A"


# -- batches (need a store) ---------------------------------------------------------------------------------


def test_batch_reports_bad_files_and_ingests_the_rest(store, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    write(corpus, "good.md", XY_DOC)
    write(corpus, "sub/other.txt", "ZZ money changers keep records for five years.")
    write(corpus, "broken.md", front(effective="2027-13-01"))
    write(corpus, "zz-dup.md", XY_DOC.replace("title: XY Payments Act 2021", "title: Copy"))
    write(corpus, "ignored.csv", "a,b\n")
    write(corpus, ".hidden/secret.md", XY_DOC)
    calls: list[tuple[int, int, str]] = []
    report = ingest_paths(
        store, [corpus, tmp_path / "missing.md"], defaults={"jurisdiction": "ZZ"}, progress=lambda *a: calls.append(a)
    )
    by_name = {Path(r.path).name: r for r in report.results}
    assert set(by_name) == {"missing.md", "broken.md", "zz-dup.md", "good.md", "other.txt"}
    assert by_name["good.md"].doc_ids == ("xy-payments-act-2021",) and by_name["other.txt"].ok
    assert "no such file or directory" in by_name["missing.md"].error
    assert "key 'effective': '2027-13-01' is not an ISO date" in by_name["broken.md"].error
    assert "duplicate document id 'xy-payments-act-2021' (already in" in by_name["zz-dup.md"].error
    assert [c[:2] for c in calls] == [(i, 4) for i in range(1, 5)]
    assert report.summary() == f"ingested 2 documents ({report.chunks} chunks) from 2 files; 3 files failed"
    assert store.get_document("xy-payments-act-2021").title == "XY Payments Act 2021"
    assert store.count() == report.chunks


def test_ensure_sample_corpus_only_fills_an_empty_store(store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sample = tmp_path / "sample"
    write(sample, "xy.md", XY_DOC)
    monkeypatch.setattr(ingest_mod, "SAMPLE_CORPUS_DIR", sample)
    calls: list[tuple[int, int, str]] = []
    report = ensure_sample_corpus(store, progress=lambda *a: calls.append(a))
    assert report is not None and report.documents == 1 and calls == [(1, 1, "xy.md")]
    assert ensure_sample_corpus(store) is None


def test_a_reused_document_id_is_refused_without_replace_and_recorded_with_it(store, tmp_path: Path) -> None:
    write(tmp_path / "v1", "xy.md", XY_DOC)
    assert ingest_paths(store, [tmp_path / "v1"]).succeeded
    assert ingest_paths(store, [tmp_path / "v1" / "xy.md"]).succeeded  # the same content again: idempotent
    changed = XY_DOC.replace("title: XY Payments Act 2021", "title: Forged act").replace("30 percent", "50 percent")
    write(tmp_path / "v2", "other.md", front(id="zz-other", jurisdiction="ZZ"))
    forged = write(tmp_path / "v2", "xy-forged.md", changed)

    report = ingest_paths(store, [tmp_path / "v2"])
    errors = {Path(r.path).name: r.error for r in report.results}
    assert errors["other.md"] is None  # the rest of the batch still goes in
    assert errors["xy-forged.md"].startswith(
        f"{forged}: document id 'xy-payments-act-2021' is already in the corpus with other content (from "
    )
    assert "--replace" in errors["xy-forged.md"]
    kept = store.get_document("xy-payments-act-2021")
    assert kept.title == "XY Payments Act 2021" and "replaced_by" not in kept.extra
    assert store.get_document("zz-other") is not None

    replaced = ingest_paths(store, [forged], replace=True, actor="alice")
    assert replaced.succeeded and not replaced.failed
    new = store.get_document("xy-payments-act-2021")
    assert new.title == "Forged act" and new.extra["replaced_by"] == "alice"
    assert date.fromisoformat(new.extra["replaced_at"][:10]) == date.today()
    assert "50 percent" in " ".join(c.text for c in store.chunks(new.id))
    assert ingest_paths(store, [forged]).succeeded  # identical again: accepted, and the provenance stays
    assert store.get_document(new.id).extra["replaced_by"] == "alice"


def alias_bomb(levels: int = 6) -> str:
    """Front matter of a few hundred bytes whose nested aliases expand to 9**levels strings."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "---\nid: bomb\ntitle: Bomb\njurisdiction: XY\n" + "\n".join(lines) + "\n---\nBody.\n"


def test_an_alias_bomb_and_deep_json_fail_alone_in_a_batch(store, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    bomb = write(corpus, "bomb.md", alias_bomb())
    assert len(bomb.read_bytes()) < 600
    deep = "[" * 50_000 + "]" * 50_000
    write(corpus, "deep.jsonl", '{"id": "d", "text": "t", "jurisdiction": "XY", "m": ' + deep + "}\n")
    write(corpus, "good.md", XY_DOC)
    report = ingest_paths(store, [corpus])
    errors = {Path(r.path).name: r.error for r in report.results}
    assert errors["good.md"] is None
    assert (
        errors["bomb.md"] == f"{bomb}: front matter uses a YAML anchor or alias (line 5); anchors and aliases "
        "are not allowed: write the values out"
    )
    assert "JSON nested 50001 levels deep" in errors["deep.jsonl"]
    assert [d.id for d in store.documents()] == ["xy-payments-act-2021"]


def test_a_jsonl_corpus_is_capped_per_passage_and_per_document_not_per_file(
    store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(readers, "MAX_TEXT_CHARS", 2_000)
    monkeypatch.setattr(readers, "MAX_PASSAGE_CHARS", 500)
    monkeypatch.setattr(ingest_mod, "EMBED_BATCH_CHUNKS", 8)
    passage = "Payment firms verify the identity of every owner above the threshold. " * 5  # ~360 characters
    rows = [{"id": f"p{i}", "doc_id": f"xy-{i // 4}", "text": passage, "jurisdiction": "XY"} for i in range(40)]
    big = write(tmp_path, "big.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    assert len(big.read_text(encoding="utf-8")) > 10_000  # five times the cap, which is per document now
    calls: list[tuple[int, int, str]] = []
    report = ingest_paths(store, [big], progress=lambda *a: calls.append(a))
    assert not report.failed and report.documents == 10 and store.count() == 40
    assert (0, 1, "big.jsonl (2 of 10 documents)") in calls and calls[-1] == (1, 1, "big.jsonl")

    same_doc = [{"id": f"q{i}", "doc_id": "xy-long", "text": passage, "jurisdiction": "XY"} for i in range(6)]
    long_doc = write(tmp_path, "long.jsonl", "".join(json.dumps(r) + "\n" for r in same_doc))
    with pytest.raises(
        IngestError,
        match=r"long\.jsonl:6: document 'xy-long' is over 2,000 characters of text by "
        r"line 6; split it into several documents \(doc_id\)",
    ):
        read_file(long_doc)
    long_passage = write(tmp_path, "passage.jsonl", json.dumps({"id": "a", "text": "x" * 501, "jurisdiction": "XY"}))
    with pytest.raises(
        CorpusFormatError,
        match=r"passage\.jsonl:1: key 'text': passage is 501 characters long; "
        r"the limit is 500 per passage",
    ):
        read_file(long_passage)
