"""Bad input through the service, each refused (or cleaned) with a message that says what is wrong.

Covered elsewhere and not repeated here: malformed front matter key by key, and non-UTF-8 / corrupt files at the
reader (tests/test_ingest_readers.py); an empty question, a bad approval policy and a bad as-of date at the CLI, exit code
2 with one line (tests/loop/test_cli_loop.py); an empty corpus for every evaluation strategy
(tests/eval/test_strategies.py).
"""

from __future__ import annotations

import uuid
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.config import Settings
from core.persistence.checkpoints import Persistence, memory_persistence
from core.retrieval.errors import CorpusFormatError, IngestError
from core.retrieval.ingest import ingest_paths
from core.retrieval.readers import read_file
from core.service import InputError, Workbench
from tests.fakes import KeywordStore
from tests.loop.corpora import RU_QUESTION, ruritania_corpus

AS_OF = "2026-11-30"
XY_LAW = b"---\nid: xy-law\ntitle: XY law\njurisdiction: XY\n---\n# XY law\nPayment firms disclose owners above 25%.\n"


@pytest.fixture
def wb(tmp_path: Path, persistence: Persistence) -> Workbench:
    """A workbench over the test corpus, on SQLite and Postgres (NUL bytes and JSON columns differ there)."""
    return Workbench(Settings(data_dir=tmp_path), store=KeywordStore(ruritania_corpus()), persistence=persistence)


@pytest.fixture
def real_wb(tmp_path: Path, embedder: Any) -> Iterator[Workbench]:
    """A workbench on a fresh, empty Qdrant Edge store (for uploads and the empty corpus)."""
    w = Workbench(
        Settings(data_dir=tmp_path, qdrant_url=None, qdrant_api_key=None, max_upload_mb=1),
        persistence=memory_persistence(),
    )
    yield w
    w.store().close()


def pdf(content: bytes, pages: int = 1) -> bytes:
    """A minimal PDF whose pages all draw one Flate-compressed content stream."""
    stream = zlib.compress(content, 9)
    kids = " ".join(f"{4 + i} 0 R" for i in range(pages))
    font = f"{4 + pages} 0 R".encode()
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode(),
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    objs += [
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R /Resources << /Font << /F1 "
        + font
        + b" >> >> >>"
    ] * pages
    objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for n, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


# -- questions -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("", "the question is empty: type a regulatory question"),
        (" \t\n ", "the question is empty: type a regulatory question"),
        ("\x00\x07\x1b", "the question is empty: type a regulatory question"),
        ("\u200b\u200c\u200d\u2060\ufeff \u200b", "the question is empty: type a regulatory question"),
        ("x" * 20_000, "the question has 20000 characters; the limit is 4000: shorten it"),
    ],
)
def test_bad_questions_are_refused_with_a_clear_message(wb: Workbench, question: str, message: str) -> None:
    user = f"u-{uuid.uuid4().hex[:8]}"
    with pytest.raises(InputError) as info:
        wb.start(question, as_of=AS_OF, user_id=user)
    assert str(info.value) == message
    assert wb.sessions(user_id=user) == []  # nothing half-created


def test_control_characters_are_dropped_everywhere_text_is_stored(wb: Workbench) -> None:
    dirty = "What owner disclosure\x00 threshold applies\x07 in Ruritania\x1b and in Xylandia?\x7f"
    user = f"alice-{uuid.uuid4().hex[:8]}"  # the Postgres database is shared by the whole test run
    paused = wb.start(dirty, as_of=AS_OF, user_id=user)
    assert paused.question == "What owner disclosure  threshold applies  in Ruritania  and in Xylandia?"
    assert [s.question for s in wb.sessions(user_id=user)] == [paused.question]
    decisions = {
        p["id"]: {"action": "reject", "note": "not\x00 relevant\x1b"} for p in paused.pending_review["proposals"]
    }
    done = wb.resume(paused.thread_id, {"cycle": 0, "decisions": decisions, "reviewer": "al\x00ice"})
    assert done.status == "completed"
    target = done.residual_deficiencies[0].id
    after = wb.annotate(
        done.thread_id, target, editor="bo\x00b", reason="accepted\x07 risk", note="ok\x00", accepted_risk=True
    )
    assert next(d for d in after.identified_deficiencies if d.id == target).analyst_note == "ok "
    with pytest.raises(InputError, match="editor's name and a reason"):
        wb.annotate(done.thread_id, target, editor="\x00", reason="x")
    with pytest.raises(InputError, match="severity must be one of low, medium, high, critical, not 'urgent'"):
        wb.annotate(done.thread_id, target, editor="bob", reason="x", severity="urgent")


def test_edited_queries_and_notes_are_capped(wb: Workbench) -> None:
    paused = wb.start(RU_QUESTION, as_of=AS_OF)
    target = paused.pending_review["proposals"][0]["id"]
    others = {p["id"]: {"action": "approve"} for p in paused.pending_review["proposals"][1:]}
    too_long_query = {"cycle": 0, target: {"action": "edit", "query": "q" * 4001}, **others}
    with pytest.raises(
        InputError,
        match=rf"the edited query of {target} has 4001 characters; the limit is 4000 "
        r"\(WORKBENCH_MAX_QUERY_CHARS\): shorten it",
    ):
        wb.resume(paused.thread_id, too_long_query)
    with pytest.raises(InputError, match=rf"the note on {target} has 4001 characters; the limit is 4000"):
        wb.resume(paused.thread_id, {"cycle": 0, target: {"action": "reject", "note": "n" * 4001}, **others})
    added = {
        "deficiency_type": "missing_jurisdiction",
        "subject": "SG",
        "description": "d",
        "suggested_correction_query": "x" * 4001,
    }
    with pytest.raises(InputError, match="the query of added row 1 has 4001 characters"):
        wb.resume(
            paused.thread_id, {"cycle": 0, "decisions": {target: {"action": "approve"}, **others}, "added": [added]}
        )
    assert wb.show(paused.thread_id).status == "awaiting_review"  # nothing applied
    done = wb.resume(paused.thread_id, {"cycle": 0, target: {"action": "reject", "note": "n" * 4000}, **others})
    assert done.status == "completed"
    with pytest.raises(InputError, match="the note has 4001 characters; the limit is 4000"):
        wb.annotate(done.thread_id, target, editor="bob", reason="r", note="n" * 4001)


def test_review_decisions_take_strict_types_and_errors_name_the_field_and_value(wb: Workbench) -> None:
    paused = wb.start(RU_QUESTION, as_of=AS_OF)
    target = paused.pending_review["proposals"][0]["id"]
    rest = {p["id"]: {"action": "approve"} for p in paused.pending_review["proposals"][1:]}
    row = {"deficiency_type": "missing_jurisdiction", "subject": "SG", "description": "d"}
    cases = [
        ({"cycle": False, target: {"action": "approve"}}, "cycle: Input should be a valid integer (got False)"),
        ({"cycle": 0.0, target: {"action": "approve"}}, "cycle: Input should be a valid integer (got 0.0)"),
        ({"cycle": 0, "decisions": rest, "stop": "yes"}, "stop: Input should be a valid boolean (got 'yes')"),
        (
            {"cycle": 0, target: {"action": "edit"}},
            f'decisions.{target}: an edit needs the edited correction query ("query")',
        ),
        (
            {"cycle": 0, target: {"action": "edit", "query": "\x00\x00 \x07"}},
            f"decisions.{target}.query: an edited correction query must not be empty (or only control characters) "
            "(got '\\x00\\x00 \\x07')",
        ),
        (
            {"cycle": 0, target: {"action": "aprove"}},
            f"decisions.{target}.action: Input should be 'approve', 'edit', 'reject', 'confirm' or 'reopen' (got 'aprove')",
        ),
        (
            {"cycle": 0, target: {"action": "approve", "severity": "urgent"}},
            f"decisions.{target}.severity: Input should be 'low', 'medium', 'high' or 'critical' (got 'urgent')",
        ),
        (
            {
                "cycle": 0,
                "decisions": rest,
                "added": [{**row, "deficiency_type": "typo", "suggested_correction_query": "q"}],
            },
            "added[0].deficiency_type: Input should be 'outdated_source', ",
        ),
        (
            {"cycle": 0, "decisions": rest, "added": [{**row, "suggested_correction_query": "\x00"}]},
            "added[0].suggested_correction_query: must not be empty (or only control characters) (got '\\x00')",
        ),
    ]
    for payload, message in cases:
        with pytest.raises(InputError) as info:
            wb.resume(paused.thread_id, {**payload, **({} if "decisions" in payload else rest)})
        assert str(info.value).startswith(f"invalid review decisions: {message}"), payload
    assert wb.show(paused.thread_id).status == "awaiting_review"  # nothing applied


def test_a_duplicated_analyst_row_is_one_deficiency_corrected_once(wb: Workbench) -> None:
    row = {
        "deficiency_type": "missing_jurisdiction",
        "subject": "Xylandia",
        "description": "Xylandia not covered",
        "suggested_correction_query": "Xylandia owner disclosure threshold",
    }

    def run(rows: list[dict[str, str]]) -> Any:
        paused = wb.start(RU_QUESTION, as_of=AS_OF)
        decisions = {p["id"]: {"action": "reject"} for p in paused.pending_review["proposals"]}
        return wb.resume(paused.thread_id, {"cycle": 0, "decisions": decisions, "added": rows, "stop": False})

    once, twice = run([row]), run([row, dict(row, description="the same row, pasted again")])
    assert once.metrics["retrievals"] == twice.metrics["retrievals"]
    added_ids = [d.id for d in twice.identified_deficiencies if d.origin == "analyst"]
    assert len(added_ids) == len(set(added_ids)) == 1
    assert [d.description for d in twice.identified_deficiencies if d.origin == "analyst"] == ["Xylandia not covered"]


def test_a_question_naming_no_known_jurisdiction_still_runs(wb: Workbench) -> None:
    r = wb.start("What owner disclosure threshold applies in Atlantis?", as_of=AS_OF, approve="all")
    assert r.status == "completed" and r.termination_reason
    assert r.final_answer and r.evaluation_history


@pytest.mark.parametrize(
    ("as_of", "message"),
    [
        ("1700-01-01", "as-of date 1700-01-01 is outside 1990-01-01.."),
        ("3000-01-01", "as-of date 3000-01-01 is outside 1990-01-01.."),
        ("30/11/2026", "as-of date '30/11/2026' is not a date in YYYY-MM-DD form"),
        ("2026-W01-1", "as-of date '2026-W01-1' is not a date in YYYY-MM-DD form"),
        ("20260101", "as-of date '20260101' is not a date in YYYY-MM-DD form"),
        ("2026-01-01\n", "as-of date '2026-01-01\\n' is not a date in YYYY-MM-DD form"),
    ],
)
def test_as_of_dates_far_in_the_past_or_future_are_refused(wb: Workbench, as_of: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        wb.start(RU_QUESTION, as_of=as_of)
    assert str(info.value).startswith(message)


def test_the_as_of_range_bounds_are_accepted(wb: Workbench) -> None:
    assert wb.start(RU_QUESTION, as_of="1990-01-01", approve="none").status == "completed"


# -- corpus and uploads -------------------------------------------------------------------------------------


def test_an_empty_corpus_is_refused_before_a_session_exists(real_wb: Workbench) -> None:
    with pytest.raises(
        InputError,
        match=r"the corpus is empty: collection 'regulatory' does not exist; ingest documents first "
        r"\(python -m core ingest PATH",
    ):
        real_wb.start(RU_QUESTION, as_of=AS_OF)
    assert real_wb.sessions() == []
    assert not real_wb.settings.qdrant_path.exists()  # asking created no collection


def test_uploads_report_each_bad_file_by_its_name(real_wb: Workbench) -> None:
    bomb = pdf(b"q Q\n" * 17_000_000, pages=6)  # 74 KB that decompresses to 68 MB per page
    expanding = pdf((b"BT /F1 12 Tf 10 10 Td (" + b"A" * 1000 + b") Tj ET\n") * 300, pages=10)  # 3 KB -> 3 M chars
    files = [
        ("a.md", XY_LAW, {}),
        ("latin1.txt", "Behörde prüft".encode("latin-1"), {"jurisdiction": "XY"}),
        ("broken.pdf", b"%PDF-1.4\nthis is not really a pdf", {"jurisdiction": "XY"}),
        ("bomb.pdf", bomb, {"jurisdiction": "XY"}),
        ("expanding.pdf", expanding, {"jurisdiction": "XY"}),
        ("big.txt", b"word " * 300_000, {"jurisdiction": "XY"}),
        ("badfront.md", b"---\nid: x\ntitle: X\njurisdiction: XY\neffective: soon\n---\nText.\n", {}),
        ("b.md", XY_LAW.replace(b"title: XY law", b"title: Copy of the XY law"), {}),
        (
            "place.md",
            XY_LAW.replace(b"id: xy-law", b"id: other").replace(
                b"jurisdiction: XY", b"jurisdiction: Ruritania Republic"
            ),
            {},
        ),
        ("no-jur.txt", b"Some text without a jurisdiction.", {}),
    ]
    seen: list[tuple[int, int, str]] = []
    report = real_wb.ingest_uploads(files, progress=lambda *a: seen.append(a))
    errors = {r.path: r.error for r in report.results}
    assert list(errors) == [name for name, _, _ in files]  # one result per upload, in upload order
    assert errors["a.md"] is None
    assert errors["latin1.txt"] == "latin1.txt: not UTF-8 text (byte 0xf6 at offset 3); re-save the file as UTF-8"
    assert errors["broken.pdf"].startswith("broken.pdf: not a readable PDF (")
    assert errors["bomb.pdf"] == (
        "bomb.pdf: PDF page content expands to over 256 MB by page 4 (a decompression bomb?); refused"
    )
    assert errors["expanding.pdf"] == (
        "expanding.pdf: text is too large (2,100,000 characters; the limit is 2,000,000); split the file"
    )
    assert errors["big.txt"] == (
        "big.txt: file is too large (1.4 MB; the limit is 1 MB, WORKBENCH_MAX_UPLOAD_MB): split it or raise the limit"
    )
    assert errors["badfront.md"] == "badfront.md: key 'effective': 'soon' is not an ISO date (YYYY-MM-DD)"
    assert errors["b.md"] == "b.md: duplicate document id 'xy-law' (already in a.md in this batch)"
    assert errors["place.md"] == (
        "place.md: key 'jurisdiction': 'Ruritania Republic' is not a jurisdiction code "
        "(2 to 5 letters or digits, optionally '-' and a subdivision or market, e.g. EU, US, "
        "SG, INT, US-NY, AE-ADGM)"
    )
    assert errors["no-jur.txt"].startswith("no-jur.txt: key 'jurisdiction': missing")
    assert not any("workbench-upload-" in (e or "") for e in errors.values())  # no temp paths leak into messages
    done = [s[0] for s in seen]  # each file as it starts and as it ends
    assert done == sorted(done) and set(done) == set(range(1, len(files) + 1)) and {s[1] for s in seen} == {len(files)}
    store = real_wb.store()
    assert [d.id for d in store.documents()] == ["xy-law"]
    assert store.get_document("xy-law").title == "XY law"  # the duplicate did not replace the first upload


def test_an_upload_reusing_a_curated_id_needs_the_replace_option(real_wb: Workbench) -> None:
    forged = XY_LAW.replace(b"title: XY law", b"title: Forged law").replace(b"25%", b"90%")
    assert not real_wb.ingest_uploads([("law.md", XY_LAW, {})]).failed
    assert not real_wb.ingest_uploads([("law.md", XY_LAW, {})]).failed  # identical: idempotent
    report = real_wb.ingest_uploads([("forged.md", forged, {}), ("other.md", XY_LAW.replace(b"xy-law", b"xy-2"), {})])
    assert report.results[0].error.startswith(
        "forged.md: document id 'xy-law' is already in the corpus with other content (from upload:law.md)"
    )
    assert report.results[1].ok
    assert real_wb.store().get_document("xy-law").title == "XY law"
    with pytest.raises(InputError, match="is not a collection name"):
        real_wb.ingest_uploads([("forged.md", forged, {})], collection="../elsewhere")
    assert not real_wb.ingest_uploads([("forged.md", forged, {})], replace=True, user_id="alice@example.org").failed
    doc = real_wb.store().get_document("xy-law")
    assert doc.title == "Forged law" and doc.extra["replaced_by"] == "alice@example.org" and doc.extra["replaced_at"]


def test_ingest_from_disk_refuses_oversize_files_unread(tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    big.write_bytes(b"---\nid: big\ntitle: Big\njurisdiction: XY\n---\n" + b"word " * 250_000)

    class NoWrites(KeywordStore):
        def upsert_documents(self, docs: Any) -> int:
            raise AssertionError("nothing should be written")

    report = ingest_paths(NoWrites([]), [big], settings=Settings(data_dir=tmp_path, max_upload_mb=1))
    assert report.failed[0].error == (
        f"{big}: file is too large (1.2 MB; the limit is 1 MB, WORKBENCH_MAX_UPLOAD_MB): split it or raise the limit"
    )


@pytest.mark.parametrize("code", ["EU", "US", "UK", "SG", "INT", "XY", "de", "ABCDE", "G7"])
def test_jurisdiction_codes_of_two_to_five_letters_or_digits_are_accepted(tmp_path: Path, code: str) -> None:
    path = tmp_path / "doc.md"
    path.write_text(f"---\nid: d\ntitle: D\njurisdiction: {code}\n---\nText.\n", encoding="utf-8")
    assert read_file(path)[0].meta.jurisdiction == code


@pytest.mark.parametrize(
    ("code", "name"), [("US-NY", "New York"), ("CA-ON", "Ontario"), ("us-de", "Delaware"), ("GB-ENG", "England")]
)
def test_iso_3166_2_subdivisions_are_accepted_with_their_name(tmp_path: Path, code: str, name: str) -> None:
    path = tmp_path / "doc.md"
    path.write_text(f"---\nid: d\ntitle: D\njurisdiction: {code}\n---\nText.\n", encoding="utf-8")
    meta = read_file(path)[0].meta
    assert (meta.jurisdiction, meta.jurisdiction_name) == (code, name)


def test_a_market_code_pycountry_does_not_know_needs_a_declared_name(tmp_path: Path) -> None:
    path = tmp_path / "adgm.md"
    path.write_text("---\nid: d\ntitle: D\njurisdiction: AE-ADGM\n---\nText.\n", encoding="utf-8")
    with pytest.raises(
        CorpusFormatError,
        match=r"key 'jurisdiction_name': missing: 'AE-ADGM' is not an ISO 3166-2 "
        r"subdivision, so declare what it names",
    ) as info:
        read_file(path)
    assert str(info.value).startswith(f"{path}: ")
    path.write_text(
        "---\nid: d\ntitle: D\njurisdiction: AE-ADGM\njurisdiction_name: Abu Dhabi Global Market\n---\nText.\n",
        encoding="utf-8",
    )
    meta = read_file(path)[0].meta
    assert (meta.jurisdiction, meta.jurisdiction_name) == ("AE-ADGM", "Abu Dhabi Global Market")
    rows = tmp_path / "adgm.jsonl"
    rows.write_text(
        '{"id": "p1", "text": "FSRA rules.", "jurisdiction": "AE-ADGM", "jurisdiction_name": "ADGM"}\n',
        encoding="utf-8",
    )
    assert read_file(rows)[0].meta.jurisdiction_name == "ADGM"


@pytest.mark.parametrize("code", ["E", "ABCDEF", "US-", "US-NY-X", "E U", "Ruritania", "'E.U.'", '"EU\\nX"'])
def test_unknown_jurisdiction_forms_are_refused_naming_file_and_key(tmp_path: Path, code: str) -> None:
    path = tmp_path / "doc.md"
    path.write_text(f"---\nid: d\ntitle: D\njurisdiction: {code}\n---\nText.\n", encoding="utf-8")
    with pytest.raises(CorpusFormatError, match=r"key 'jurisdiction': .* is not a jurisdiction code") as info:
        read_file(path)
    assert str(info.value).startswith(f"{path}: ") and info.value.key == "jurisdiction"


def test_a_pdf_with_too_many_pages_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.retrieval import readers

    monkeypatch.setattr(readers, "MAX_PDF_PAGES", 3)
    path = tmp_path / "many.pdf"
    path.write_bytes(pdf(b"BT /F1 12 Tf 10 10 Td (Owner disclosure) Tj ET", pages=4))
    with pytest.raises(IngestError, match=r"many\.pdf: PDF has 4 pages; the limit is 3: split it"):
        read_file(path, {"jurisdiction": "XY"})
