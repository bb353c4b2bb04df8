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
    QDRANT_* variable cleared); the stores it opened are closed afterwards."""

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


@pytest.mark.parametrize("name", ["..", ".", "../../x", "/tmp/elsewhere", "a/b", ".hidden", "", "x" * 65, "a b"])
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
