"""`python -m core ingest|search`: `ingest` once in a real subprocess (the happy path and its exit code), everything
else in-process through `main()`, which shares the test session's embedding model."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from core.cli.dispatch import main
from core.config import get_settings
from core.retrieval.registry import open_store
from core.retrieval.store import Store
from tests import early
from tests.cli import fresh_core, fresh_env

XY = """---
id: xy-bo
title: XY beneficial ownership notice
jurisdiction: XY
effective: 2021-01-01
---
# XY notice

Payment firms in XY identify owners holding 30 percent or more.
"""
ZZ = """---
id: zz-cash
title: ZZ cash rule
jurisdiction: ZZ
effective: 2030-01-01
---
# ZZ rule

ZZ traders may not accept cash above ZZD 9,000.
"""


@pytest.fixture
def use_data_dir(monkeypatch: pytest.MonkeyPatch, opened_stores: list[Store]) -> Iterator[Callable[[Path], Path]]:
    """path -> path: make the in-process CLI use `path` through WORKBENCH_DATA_DIR (every other WORKBENCH_* and
    QDRANT_* variable cleared); the stores it opened are closed afterwards. Ingest progress lines (every 5 s) are
    held back, so that stderr does not depend on the machine's speed; the progress test sets its own interval."""
    from core.cli import corpus as cli_corpus

    monkeypatch.setattr(cli_corpus, "PROGRESS_EVERY_S", 3600.0)

    def use(path: Path) -> Path:
        for key in [k for k in os.environ if k.startswith(("WORKBENCH_", "QDRANT_"))]:
            monkeypatch.delenv(key)
        monkeypatch.setenv("WORKBENCH_DATA_DIR", str(path))
        get_settings.cache_clear()
        return path

    yield use
    get_settings.cache_clear()


@pytest.fixture
def data_dir(tmp_path: Path, use_data_dir: Callable[[Path], Path]) -> Path:
    """A fresh data dir the in-process CLI uses."""
    return use_data_dir(tmp_path / "data")


def ingest_in_a_fresh_process(tmp: Path) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    """`python -m core ingest` on a folder of two good documents, a plain-text memo and a broken file: the
    process's result, the folder and the data dir."""
    corpus, data = tmp / "corpus", tmp / "data"
    corpus.mkdir()
    (corpus / "xy.md").write_text(XY, encoding="utf-8")
    (corpus / "zz.md").write_text(ZZ, encoding="utf-8")
    (corpus / "qq-memo.txt").write_text("QQ remitters verify every customer.", encoding="utf-8")
    (corpus / "broken.md").write_text(
        "---\nid: b\ntitle: B\njurisdiction: XY\nstatus: maybe\n---\nText.\n", encoding="utf-8"
    )
    return fresh_core(fresh_env(data), "ingest", str(corpus), "--jurisdiction", "QQ"), corpus, data


early.job("cli-ingest", ingest_in_a_fresh_process)


@pytest.mark.early("cli-ingest")
def test_ingest_and_search_through_the_real_command(
    tmp_path: Path, use_data_dir: Callable[[Path], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The one `ingest` in a fresh process (an early job: it runs beside the tests before it), then searches
    in-process on the data dir it wrote."""
    ingest, corpus, data = early.outcome("cli-ingest")
    assert ingest.returncode == 1, ingest.stderr  # one file failed; the others are ingested
    assert f"ok     {corpus / 'xy.md'} -> xy-bo (1 passages)" in ingest.stdout
    assert f"error  {corpus / 'broken.md'}: key 'status': 'maybe' is not one of" in ingest.stdout
    assert ingest.stdout.splitlines()[-1] == (
        "ingested 3 documents (3 passages) from 3 files; 1 file failed; collection 'regulatory' now holds 3 passages"
    )

    # the same data dir in-process (the subprocess has exited, so the shard is free)
    use_data_dir(data)
    assert (
        main(
            ["search", "owners holding 30 percent", "--json", "-k", "2", "--jurisdiction", "XY", "--jurisdiction", "QQ"]
        )
        == 0
    )
    hits = json.loads(capsys.readouterr().out)
    assert [h["doc_id"] for h in hits] == ["xy-bo", "qq-memo"]
    assert set(hits[0]) >= {"doc_id", "chunk_id", "score", "title", "jurisdiction", "status", "text"}
    assert hits[0]["chunk_id"] == "xy-bo#0" and "30 percent or more" in hits[0]["text"]

    queries = tmp_path / "q.jsonl"
    queries.write_text(
        '{"id": "a", "text": "cash above ZZD 9,000"}\n\n{"id": 2, "text": "owners 30 percent"}\n', encoding="utf-8"
    )
    assert main(["search", "--queries", str(queries), "-k", "1", "--as-of", "2026-11-30"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["id"] for line in lines] == ["a", 2]
    assert "zz-cash" not in {h["doc_id"] for line in lines for h in line["hits"]}  # effective 2030: filtered out
    assert lines[1]["hits"][0]["doc_id"] == "xy-bo"

    assert main(["search", "cash above ZZD 9,000", "-k", "1"]) == 0
    text = capsys.readouterr().out
    assert text.startswith(" 1. ZZ cash rule  [ZZ · in_force]  zz-cash#0  score ") and "    § ZZ rule" in text


def test_bad_input_exits_2_with_one_line_on_stderr(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "   "]) == 2
    out, err = capsys.readouterr()
    assert err == "error: query is empty\n" and out == ""


@pytest.mark.parametrize(
    "argv, queries_file, message",
    [
        (["search", ""], None, "query is empty"),
        (["search", "x" * 21], None, "query is 21 characters long; the limit is 20"),
        (["search"], None, "give either a query TEXT or --queries"),
        (["search", "x", "--queries", "{q}"], '{"id": 1, "text": "a"}\n', "give either a query TEXT or --queries"),
        (
            ["search", "--queries", "{q}"],
            '{"id": 1, "text": "ok"}\n{"id": 2, "text": oops}\n',
            "q.jsonl:2: not valid JSON",
        ),
        (
            ["search", "--queries", "{q}"],
            '{"id": 1, "query": "wrong key"}\n',
            'q.jsonl:1: expected an object with "id" and "text"',
        ),
        (["search", "--queries", "{q}"], '{"id": 1, "text": ""}\n', "q.jsonl:1: text is empty"),
        (["search", "--queries", "{q}"], "\n\n", "holds no queries"),
        (
            ["search", "--queries", "{q}"],
            '{"id": 1, "text": "a", "x": ' + "[" * 50_000 + "]" * 50_000 + "}\n",
            "q.jsonl:1: JSON nested 50001 levels deep; the limit is 32",
        ),
        (["search", "--queries", "missing.jsonl"], None, "queries file missing.jsonl does not exist"),
        (["search", "x", "-k", "0"], None, "-k must be between 1 and 100"),
        (["search", "x", "--as-of", "2026-02-30"], None, "--as-of '2026-02-30' is not a date"),
        (["search", "x", "--as-of", "2026-W01-1"], None, "--as-of '2026-W01-1' is not a date in the form YYYY-MM-DD"),
        (["search", "x", "--as-of", "20260101"], None, "--as-of '20260101' is not a date in the form YYYY-MM-DD"),
        (["search", "anything"], None, "collection 'regulatory' in"),
        (["ingest", "no/such/dir", "nope.md"], None, "nothing to ingest"),
        (["ingest", "{q}"], "not json\n", "no file could be ingested"),
    ],
)
def test_bad_input_cases(
    argv: list[str],
    queries_file: str | None,
    message: str,
    tmp_path: Path,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("WORKBENCH_MAX_QUERY_CHARS", "20")
    get_settings.cache_clear()
    q = tmp_path / "q.jsonl"
    if queries_file is not None:
        q.write_text(queries_file, encoding="utf-8")
    assert main([a.replace("{q}", str(q)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("error: ") and err.count("\n") == 1


@pytest.mark.parametrize(
    "name", ["..", ".", "../../x", "/tmp/elsewhere", "a/b", ".hidden", "", "x" * 65, "a b", "abc\n", "abc\r"]
)
@pytest.mark.parametrize("command", ["ingest", "search", "run"])
def test_a_collection_that_is_not_an_identifier_is_refused_before_anything_is_touched(
    name: str, command: str, tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "xy.md"
    doc.write_text(XY, encoding="utf-8")
    data_dir.mkdir()
    (data_dir / "checkpoints.sqlite").write_bytes(b"precious")
    argv = {
        "ingest": ["ingest", str(doc), "--reset"],
        "search": ["search", "owners"],
        "run": ["run", "Who discloses owners in XY?", "--approve", "all"],
    }[command]
    assert main([*argv, "--collection", name]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "is not a collection name" in err
    assert sorted(p.name for p in data_dir.iterdir()) == ["checkpoints.sqlite"]  # nothing created or deleted
    assert (data_dir / "checkpoints.sqlite").read_bytes() == b"precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "xy.md"]


def test_a_reset_whose_files_all_fail_keeps_the_old_corpus(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad = tmp_path / "xy.md", tmp_path / "bad.md"
    good.write_text(XY, encoding="utf-8")
    bad.write_text("---\nid: b\ntitle: B\njurisdiction: XY\nstatus: maybe\n---\nText.\n", encoding="utf-8")
    assert main(["ingest", str(good)]) == 0
    assert main(["ingest", str(bad), "--reset"]) == 2
    out, err = capsys.readouterr()
    assert "collection 'regulatory' now holds 1 passages" in out.splitlines()[-1]
    assert err == "error: no file could be ingested (see the errors above)\n"
    store = open_store(get_settings())
    assert [d.id for d in store.documents()] == ["xy-bo"]
    zz = tmp_path / "zz.md"
    zz.write_text(ZZ, encoding="utf-8")
    assert main(["ingest", str(zz), "--reset"]) == 0
    assert [d.id for d in store.documents()] == ["zz-cash"]  # the same store object sees the rebuilt shard
    leftovers = sorted(p.name for p in (data_dir / "qdrant").iterdir())
    assert leftovers == [".regulatory.swap.lock", "regulatory"]  # no staging or retired directories


def test_ingest_replace_flag_replaces_a_reused_id_and_records_who(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, forged = tmp_path / "xy.md", tmp_path / "forged.md"
    first.write_text(XY, encoding="utf-8")
    forged.write_text(
        XY.replace("30 percent", "75 percent").replace("title: XY beneficial", "title: Forged"), encoding="utf-8"
    )
    assert main(["ingest", str(first)]) == 0
    capsys.readouterr()
    assert main(["ingest", str(forged)]) == 2
    out = capsys.readouterr().out
    assert f"error  {forged}: document id 'xy-bo' is already in the corpus with other content" in out
    assert open_store(get_settings()).get_document("xy-bo").title == "XY beneficial ownership notice"
    assert main(["ingest", str(forged), "--replace"]) == 0
    doc = open_store(get_settings()).get_document("xy-bo")
    assert doc.title == "Forged ownership notice" and doc.extra["replaced_by"].startswith("cli:")
    assert doc.extra["replaced_at"]


def test_search_json_keeps_a_jsonl_passage_id_and_metadata(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {
            "id": "art-4.1",
            "doc_id": "xy-wire",
            "title": "XY wire rule",
            "jurisdiction": "XY",
            "page": 7,
            "section": "4.1",
            "text": "Wire transfers above XYD 1,000 carry originator data.",
        },
        {"id": "md-1", "doc_id": "zz-note", "jurisdiction": "ZZ", "text": "ZZ traders keep cash ledgers."},
    ]
    corpus = tmp_path / "p.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (tmp_path / "xy.md").write_text(XY, encoding="utf-8")
    assert main(["ingest", str(corpus), str(tmp_path / "xy.md")]) == 0
    capsys.readouterr()
    assert main(["search", "wire transfers originator data", "--json", "-k", "3"]) == 0
    hits = {h["doc_id"]: h for h in json.loads(capsys.readouterr().out)}
    assert hits["xy-wire"]["passage_id"] == "art-4.1" and hits["xy-wire"]["metadata"] == {"page": 7, "section": "4.1"}
    assert hits["xy-bo"]["passage_id"] is None and hits["xy-bo"]["metadata"] == {}
    assert main(["search", "wire transfers originator data", "-k", "1"]) == 0
    assert "xy-wire#0  passage art-4.1  score " in capsys.readouterr().out


def test_a_file_name_that_is_not_utf8_fails_alone_and_the_rest_goes_in(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "caf\udce9-\udcff.md").write_text(ZZ, encoding="utf-8")  # the bytes caf\xe9-\xff.md on disk
    (corpus / "xy.md").write_text(XY, encoding="utf-8")
    assert main(["ingest", str(corpus)]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"error  {corpus}/caf\\xe9-\\xff.md: the file name is not valid UTF-8 text: rename the file",
        f"ok     {corpus / 'xy.md'} -> xy-bo (1 passages)",
        "ingested 1 document (1 passages) from 1 file; 1 file failed; collection 'regulatory' now holds 1 passages",
    ]
    assert err == ""
    assert [d.id for d in open_store(get_settings()).documents()] == ["xy-bo"]


def test_any_failure_while_reading_or_storing_one_file_fails_that_file_alone(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from core.retrieval import readers
    from core.retrieval.store import BaseStore

    surrogate = tmp_path / "surrogate.jsonl"
    surrogate.write_text('{"id": "p1", "doc_id": "qq-s", "jurisdiction": "QQ", "text": "caf\\udce9"}\n', "utf-8")
    odd = tmp_path / "odd.md"
    odd.write_text(XY.replace("xy-bo", "xy-odd"), encoding="utf-8")
    (tmp_path / "xy.md").write_text(XY, encoding="utf-8")
    (tmp_path / "zz.md").write_text(ZZ, encoding="utf-8")
    read = readers.read_file

    def read_file(path: Path, *args: object) -> object:
        if path == odd:
            raise KeyError("a reader bug")
        return read(path, *args)

    write = BaseStore.upsert_vectors

    def upsert_vectors(self: BaseStore, meta: object, *args: object) -> int:
        if meta.id == "zz-cash":  # type: ignore[attr-defined]
            raise RuntimeError("disk full\nsecond line")
        return write(self, meta, *args)

    monkeypatch.setattr("core.retrieval.ingest.read_file", read_file)
    monkeypatch.setattr(BaseStore, "upsert_vectors", upsert_vectors)
    files = [surrogate, odd, tmp_path / "xy.md", tmp_path / "zz.md"]
    assert main(["ingest", *map(str, files)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"error  {surrogate}: document 'qq-s' holds text that is not valid Unicode (the lone surrogate '\\udce9'); "
        "fix the source",
        f"error  {odd}: cannot be read (KeyError: 'a reader bug')",
        f"ok     {tmp_path / 'xy.md'} -> xy-bo (1 passages)",
        f"error  {tmp_path / 'zz.md'}: could not be stored (RuntimeError: disk full)",
        "ingested 1 document (1 passages) from 1 file; 3 files failed; collection 'regulatory' now holds 1 passages",
    ]
    assert [d.id for d in open_store(get_settings()).documents()] == ["xy-bo"]  # nothing of the failed files


def test_an_unforeseen_error_is_one_line_and_exit_2(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from core.service import Workbench

    def broken(self: Workbench, **_: object) -> None:
        raise TypeError("unsupported operand\nwith a second line")

    monkeypatch.setattr(Workbench, "sessions", broken)
    assert main(["sessions"]) == 2
    assert capsys.readouterr().err == (
        "error: unexpected TypeError: unsupported operand (a bug: please report it with the command)\n"
    )


def test_a_reset_with_a_failing_file_keeps_the_old_corpus_unless_partial_is_allowed(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xy, zz, pdf = tmp_path / "xy.md", tmp_path / "zz.md", tmp_path / "broken.pdf"
    xy.write_text(XY, encoding="utf-8")
    zz.write_text(ZZ, encoding="utf-8")
    pdf.write_bytes(b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n")  # cut off: no %%EOF marker
    assert main(["ingest", str(xy)]) == 0
    capsys.readouterr()
    assert main(["ingest", "--reset", str(pdf), str(zz)]) == 2
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"error  {pdf}: not a readable PDF (PdfStreamError: Stream has ended unexpectedly) (pypdf: EOF marker "
        "not found)",
        f"ok     {zz} -> zz-cash (1 passages)",
        "ingested 1 document (1 passages) from 1 file; 1 file failed; the rebuild was discarded; collection "
        "'regulatory' now holds 1 passages",
    ]
    assert err == (
        "error: --reset kept the old corpus: 1 of 2 files failed (see above); fix them, or add --allow-partial "
        "to rebuild from the files that went in\n"
    )
    store = open_store(get_settings())
    assert [d.id for d in store.documents()] == ["xy-bo"]
    assert main(["ingest", "--reset", "--allow-partial", str(pdf), str(zz)]) == 1
    assert [d.id for d in store.documents()] == ["zz-cash"]
    capsys.readouterr()
    assert main(["ingest", "--allow-partial", str(zz)]) == 2
    assert "--allow-partial only applies to --reset" in capsys.readouterr().err


def test_commands_that_only_read_create_no_collection(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", "owners", "--collection", "CON"]) == 2
    assert capsys.readouterr().err == (
        f"error: collection 'CON' in {data_dir} does not exist; run `python -m core ingest --collection CON PATH` "
        "first\n"
    )
    assert main(["run", "Who discloses owners in XY?", "--approve", "all", "--collection", "nosuchcoll"]) == 2
    assert capsys.readouterr().err.startswith(
        "error: the corpus is empty: collection 'nosuchcoll' does not exist; ingest documents first"
    )
    assert not (data_dir / "qdrant").exists()
    (tmp_path / "xy.md").write_text(XY, encoding="utf-8")
    assert main(["ingest", str(tmp_path / "xy.md"), "--collection", "CON"]) == 0  # the first write creates it
    assert main(["search", "owners", "--collection", "CON", "-k", "1"]) == 0
    assert sorted(p.name for p in (data_dir / "qdrant").iterdir()) == [".CON.swap.lock", "CON"]


def test_ingest_prints_progress_while_one_slow_step_runs(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import time

    from core.cli import corpus as cli_corpus
    from core.retrieval import ingest as ingest_mod

    read = ingest_mod.read_file

    def slow_read(*args: object) -> object:
        time.sleep(1.0)  # one step longer than the progress interval: a huge .jsonl, a slow PDF
        return read(*args)

    monkeypatch.setattr(cli_corpus, "PROGRESS_EVERY_S", 0.2)
    monkeypatch.setattr(ingest_mod, "read_file", slow_read)
    (tmp_path / "xy.md").write_text(XY, encoding="utf-8")
    assert main(["ingest", str(tmp_path / "xy.md")]) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    # while the one slow read runs: a loaded machine may first print "starting" lines while the store opens
    assert sum(line.startswith("ingest: 0/1 files: xy.md (") for line in lines) >= 3, err
    assert out.splitlines()[0] == f"ok     {tmp_path / 'xy.md'} -> xy-bo (1 passages)"


def test_a_reset_on_a_qdrant_server_says_it_could_not_keep_the_old_corpus(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QDRANT_URL", ":memory:")  # qdrant-client's local mode: a server store, no atomic rebuild
    get_settings.cache_clear()
    xy, zz, bad = tmp_path / "xy.md", tmp_path / "zz.md", tmp_path / "bad.md"
    xy.write_text(XY, encoding="utf-8")
    zz.write_text(ZZ, encoding="utf-8")
    bad.write_text("---\nid: b\ntitle: B\njurisdiction: XY\nstatus: maybe\n---\nText.\n", encoding="utf-8")
    assert main(["ingest", str(xy)]) == 0
    capsys.readouterr()
    assert main(["ingest", "--reset", str(bad), str(zz)]) == 2
    assert capsys.readouterr().err == (
        "error: --reset could not keep the old corpus (a Qdrant server collection is emptied before it is "
        "rebuilt): it holds the files that went in; 1 of 2 files failed (see above)\n"
    )
    assert [d.id for d in open_store(get_settings()).documents()] == ["zz-cash"]


def test_the_ok_line_of_a_file_with_many_documents_names_the_first_few(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [{"id": f"p{i}", "text": f"Owners of firm {i}.", "jurisdiction": "XY"} for i in range(8)]
    many = tmp_path / "many.jsonl"
    many.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["ingest", str(many)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"ok     {many} -> p0, p1, p2, p3, p4 and 3 more (8 passages)"
