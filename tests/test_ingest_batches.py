"""Ingest, batches into a store: bad files beside good ones, the sample corpus, reused ids, caps per document."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from core.retrieval import ingest as ingest_mod
from core.retrieval import readers
from core.retrieval.errors import CorpusFormatError, IngestError
from core.retrieval.ingest import ensure_sample_corpus, ingest_paths
from core.retrieval.readers import read_file
from tests.ingest_docs import XY_DOC, front, write


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
    done = [c[0] for c in calls]  # each file as it starts and as it ends
    assert done == sorted(done) and set(done) == {0, 1, 2, 3, 4} and {c[1] for c in calls} == {4}
    assert report.summary() == f"ingested 2 documents ({report.chunks} passages) from 2 files; 3 files failed"
    assert store.get_document("xy-payments-act-2021").title == "XY Payments Act 2021"
    assert store.count() == report.chunks


def test_ensure_sample_corpus_only_fills_an_empty_store(store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sample = tmp_path / "sample"
    write(sample, "xy.md", XY_DOC)
    monkeypatch.setattr(ingest_mod, "SAMPLE_CORPUS_DIR", sample)
    calls: list[tuple[int, int, str]] = []
    report = ensure_sample_corpus(store, progress=lambda *a: calls.append(a))
    assert report is not None and report.documents == 1 and calls == [(0, 1, "xy.md"), (1, 1, "xy.md")]
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


def test_a_large_jsonl_file_reports_progress_while_read_and_checked(
    store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(readers, "PROGRESS_LINES", 10)
    monkeypatch.setattr(ingest_mod, "CHECK_PROGRESS_DOCS", 10)
    rows = [{"id": f"p{i}", "text": f"Passage {i} on owners.", "jurisdiction": "XY"} for i in range(25)]
    many = write(tmp_path, "many.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    calls: list[tuple[int, int, str]] = []
    report = ingest_paths(store, [many], progress=lambda *a: calls.append(a))
    assert report.documents == 25
    labels = [c[2] for c in calls]
    assert labels[:3] == ["many.jsonl", "many.jsonl (line 10)", "many.jsonl (line 20)"]
    assert "many.jsonl (checking 10 of 25 documents)" in labels and "many.jsonl (checking 20 of 25 documents)" in labels
