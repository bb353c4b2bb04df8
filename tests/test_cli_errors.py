"""The CLI's "exit 2, one line" contract for failures of the environment: a store held by the app, unreachable
backends, damaged or truncated files, bad settings, arguments and output paths. In-process `main()`; the only
second process is the one holding the embedded store."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.cli.dispatch import main
from core.config import Settings, get_settings
from core.persistence import checkpoints as persistence_module
from core.persistence.checkpoints import PersistenceError, _sqlite, open_persistence
from core.retrieval.registry import open_store
from core.service import Workbench
from tests.fakes import KeywordStore
from tests.loop.corpora import RU_QUESTION, ruritania_corpus

AS_OF = "2026-11-30"
XY = "---\nid: xy-bo\ntitle: XY notice\njurisdiction: XY\n---\nPayment firms in XY identify owners above 30 percent.\n"


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    """The settings the in-process CLI reads (WORKBENCH_DATA_DIR on a tmp dir, nothing else configured)."""
    for key in [k for k in os.environ if k.startswith(("WORKBENCH_", "QDRANT_"))]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    yield get_settings()
    get_settings.cache_clear()


def session(settings: Settings, approve: str = "all") -> str:
    """A session in the data dir's SQLite file, run on the test corpus (no vector store involved)."""
    wb = Workbench(settings, store=KeywordStore(ruritania_corpus()), persistence=open_persistence(settings))
    return wb.start(RU_QUESTION, as_of=AS_OF, approve=approve).thread_id


def one_line_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run the CLI, expect exit 2 and exactly one line on stderr; return that line without 'error: '."""
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err.removeprefix("error: ").rstrip("\n")


def test_show_and_export_work_while_the_app_holds_the_store_and_the_rest_fail_in_one_line(
    settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    done = session(settings)
    paused = session(settings, approve="manual")
    open_store(settings).reset()  # the shard exists, as it does once the app has started
    open_store(settings).close()
    hold = "import sys, qdrant_edge as qe; s = qe.EdgeShard.load(sys.argv[1]); print('ready', flush=True); sys.stdin.read()"
    holder = subprocess.Popen(
        [sys.executable, "-c", hold, str(settings.qdrant_path / settings.collection)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        assert main(["show", done, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["status"] == "completed"
        assert main(["export", done, "--format", "md"]) == 0
        assert capsys.readouterr().out.startswith("#")
        doc = tmp_path / "xy.md"
        doc.write_text(XY, encoding="utf-8")
        decisions = tmp_path / "decisions.json"
        decisions.write_text(json.dumps({"cycle": 0, "decisions": {}, "stop": True}), encoding="utf-8")
        in_use = f"the data dir {settings.data_dir} is in use by another process (the app?)"
        for argv in (
            ["run", RU_QUESTION, "--approve", "all"],
            ["search", "owners"],
            ["ingest", str(doc)],
            ["resume", paused, "--decisions", str(decisions)],
        ):
            assert one_line_error(capsys, *argv).startswith(in_use), argv
        assert main(["show", paused, "--json"]) == 0  # the refused resume changed nothing
        assert json.loads(capsys.readouterr().out)["status"] == "awaiting_review"
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)


def test_export_to_a_missing_directory_or_an_unwritable_path(
    settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tid = session(settings)
    missing = tmp_path / "no" / "such" / "dir" / "out.md"
    assert one_line_error(capsys, "export", tid, "--format", "md", "-o", str(missing)) == (
        f"cannot write {missing}: No such file or directory"
    )
    (tmp_path / "file.txt").write_text("x")
    blocked = tmp_path / "file.txt" / "out.md"
    assert one_line_error(capsys, "export", tid, "--format", "md", "-o", str(blocked)) == (
        f"cannot write {blocked}: Not a directory"
    )


def test_export_refuses_a_symbolic_link_to_a_file_elsewhere(
    settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tid = session(settings)
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    victim = elsewhere / "precious.txt"
    victim.write_text("precious", encoding="utf-8")
    link = out / "report.md"
    link.symlink_to(victim)
    assert one_line_error(capsys, "export", tid, "--format", "md", "-o", str(link)) == (
        f"{link} is a symbolic link to {victim}, outside {out}: not followed; give the file's own path"
    )
    assert victim.read_text(encoding="utf-8") == "precious"
    inside = out / "latest.md"
    inside.symlink_to(out / "report-v2.md")  # a link within the chosen directory is followed
    assert main(["export", tid, "--format", "md", "-o", str(inside)]) == 0
    assert (out / "report-v2.md").read_text(encoding="utf-8").startswith("#") and inside.is_symlink()


def test_decisions_with_a_bom_are_accepted_and_deep_ones_refused(
    settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tid = session(settings, approve="manual")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert one_line_error(capsys, "resume", tid, "--decisions", str(deep)) == (
        f"decisions file {deep} is not valid JSON: JSON nested 100000 levels deep; the limit is 32"
    )
    assert main(["show", tid, "--json"]) == 0
    proposals = json.loads(capsys.readouterr().out)["pending_review"]["proposals"]
    bom = tmp_path / "bom.json"
    bom.write_bytes(
        b"\xef\xbb\xbf" + json.dumps({"cycle": 0, **{p["id"]: {"action": "reject"} for p in proposals}}).encode()
    )
    assert main(["resume", tid, "--decisions", str(bom), "--json"]) == 0  # rejections need no retrieval
    assert json.loads(capsys.readouterr().out)["status"] == "completed"


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("WORKBENCH_MAX_CYCLES", "abc", "invalid setting WORKBENCH_MAX_CYCLES='abc': Input should be a valid integer"),
        ("WORKBENCH_ENGINE", "turbo", "invalid setting WORKBENCH_ENGINE='turbo': unknown engine: use one of offline"),
        (
            "WORKBENCH_BLOCKING_SEVERITY",
            "urgent",
            "invalid setting WORKBENCH_BLOCKING_SEVERITY='urgent': unknown "
            "severity: use one of low, medium, high, critical",
        ),
        (
            "WORKBENCH_DATA_DIR",
            "{file}",
            "invalid setting WORKBENCH_DATA_DIR='{file}': {file} exists and is not a directory",
        ),
    ],
)
@pytest.mark.parametrize("argv", [["sessions"], ["search", "owners"], ["show", "abc"]])
def test_invalid_settings_are_one_line(
    variable: str,
    value: str,
    message: str,
    argv: list[str],
    settings: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    file = tmp_path / "a-file"
    file.write_text("x")
    monkeypatch.setenv(variable, value.format(file=file))
    get_settings.cache_clear()
    assert one_line_error(capsys, *argv).startswith(message.format(file=file))


def test_unreachable_postgres_and_qdrant_fail_fast_in_one_line(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("WORKBENCH_DATABASE_URL", "postgresql://workbench:secret@127.0.0.1:1/workbench")
    get_settings.cache_clear()
    started = time.monotonic()
    line = one_line_error(capsys, "sessions")
    assert time.monotonic() - started < persistence_module.POSTGRES_CONNECT_TIMEOUT_S + 2
    assert line.startswith("cannot reach the database at WORKBENCH_DATABASE_URL: ") and "secret" not in line
    monkeypatch.delenv("WORKBENCH_DATABASE_URL")
    monkeypatch.setenv("QDRANT_URL", "http://127.0.0.1:1")
    get_settings.cache_clear()
    assert one_line_error(capsys, "search", "owners").startswith("cannot reach the Qdrant server at QDRANT_URL: ")


def test_a_damaged_checkpoint_database_is_one_line(settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    tid = session(settings)
    conn = sqlite3.connect(settings.checkpoint_path)
    conn.execute("UPDATE checkpoints SET type = 'msgpack+zlib', checkpoint = x'00112233'")
    conn.commit()
    conn.close()
    assert one_line_error(capsys, "show", tid).startswith("a stored checkpoint cannot be decompressed (")

    other = settings.data_dir.parent / "other"
    other.mkdir()
    (other / "checkpoints.sqlite").write_bytes(b"this is not a database at all" * 200)
    os.environ["WORKBENCH_DATA_DIR"] = str(other)  # restored by the settings fixture's monkeypatch
    get_settings.cache_clear()
    assert one_line_error(capsys, "sessions").startswith(
        "the checkpoint database cannot be read (file is not a database)"
    )


def test_a_zero_length_checkpoint_file_is_refused_not_taken_for_a_new_database(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    settings.data_dir.mkdir(parents=True)
    settings.checkpoint_path.write_bytes(b"")
    line = one_line_error(capsys, "sessions")
    assert line.startswith(f"the checkpoint database {settings.checkpoint_path} is empty (0 bytes): it was truncated")
    assert settings.checkpoint_path.stat().st_size == 0  # left as found
    with pytest.raises(PersistenceError, match="is empty"):
        _sqlite(settings)
    settings.checkpoint_path.unlink()
    _sqlite(settings).close()  # a missing file is a new database, as before
    assert settings.checkpoint_path.stat().st_size > 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["search", "caf\udce9"], r"argument 2 (caf\xe9) is not valid UTF-8 text"),
        (["run"], "python -m core run: the following arguments are required: question (see --help)"),
        (["export", "x", "--format", "pdf"], "python -m core export: argument --format: invalid choice: 'pdf'"),
        (["frobnicate"], "python -m core: argument command: invalid choice: 'frobnicate'"),
    ],
)
def test_bad_arguments_are_one_line_not_a_usage_block(
    argv: list[str], message: str, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    assert one_line_error(capsys, *argv).startswith(message)


def test_a_damaged_qdrant_store_is_one_line(settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    open_store(settings).reset()  # the shard exists
    open_store(settings).close()
    shard = settings.qdrant_path / settings.collection
    (shard / "edge_config.json").write_text("garbage{", encoding="utf-8")
    assert one_line_error(capsys, "search", "owners").startswith(f"the Qdrant store {shard} cannot be opened (")
