"""Store behaviour on every backend (Qdrant Edge, qdrant-client local mode, and a Qdrant server when
WORKBENCH_TEST_QDRANT_URL is set): search, filters, re-ingest, metadata, facets; plus the Edge-only process
registry and lock handling."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path

import pytest

from core.config import Settings
from core.domain.documents import Chunk, DocStatus, DocumentMeta, SearchFilter, Threshold
from core.retrieval import edge_store as edge_module
from core.retrieval import embeddings
from core.retrieval import registry as store_module
from core.retrieval.errors import InvalidCollectionError, StoreClosedError, StoreLockedError
from core.retrieval.ingest import ingest_paths
from core.retrieval.registry import close_all, open_store
from core.retrieval.store import Store
from tests.conftest import STORE_BACKENDS
from tests.fakes import KeywordStore

TOPIC = "customer due diligence"


def make_doc(
    doc_id: str,
    jurisdiction: str = "XY",
    status: str = "in_force",
    effective: date | None = None,
    texts: tuple[str, ...] = (),
    **meta: object,
) -> tuple[DocumentMeta, list[Chunk]]:
    m = DocumentMeta(
        id=doc_id, title=f"Title of {doc_id}", jurisdiction=jurisdiction, status=status, effective=effective, **meta
    )
    texts = texts or (f"{doc_id} sets {TOPIC} rules for payment institutions.",)
    return m, [Chunk(doc_id=doc_id, chunk_index=i, text=t, heading=f"Part {i}") for i, t in enumerate(texts)]


CORPUS = [
    make_doc("xy-old", "XY", "superseded", date(2015, 1, 1), superseded_by=("xy-new",)),
    make_doc("xy-new", "XY", "in_force", date(2027, 7, 10)),
    make_doc("zz-rule", "ZZ", "in_force", date(2020, 6, 30)),
    make_doc("zz-undated", "ZZ", "proposed", None),
    make_doc("qq-bad", "QQ", "erroneous", date(2020, 6, 30)),
]


@pytest.fixture(scope="module", params=STORE_BACKENDS)
def filled(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    backend_settings,
    embedder,
    drop_collection,
) -> Iterator[Store]:
    """CORPUS indexed once per backend for the read-only tests of this module."""
    s = open_store(backend_settings(request.param, tmp_path_factory.mktemp("filled"), "filled"))
    s.upsert_documents(CORPUS)
    yield s
    if request.param == "qdrant":
        drop_collection(s)
    s.close()


def doc_ids(hits) -> set[str]:
    return {h.doc_id for h in hits}


def test_search_returns_declared_status_title_and_chunk_text(filled: Store) -> None:
    hits = filled.search(f"{TOPIC} xy-old", k=5)
    assert len(hits) == 5 and doc_ids(hits) == {m.id for m, _ in CORPUS}
    old = next(h for h in hits if h.doc_id == "xy-old")
    assert (old.status, old.title, old.jurisdiction) == ("superseded", "Title of xy-old", "XY")
    assert (old.chunk_id, old.chunk_index, old.heading) == ("xy-old#0", 0, "Part 0")
    assert old.text == CORPUS[0][1][0].text
    assert hits == sorted(hits, key=lambda h: -h.score)


FILTER_CASES = [
    (SearchFilter(jurisdictions=("XY",)), {"xy-old", "xy-new"}),
    (SearchFilter(jurisdictions=("ZZ", "QQ")), {"zz-rule", "zz-undated", "qq-bad"}),
    (SearchFilter(statuses=("in_force",)), {"xy-new", "zz-rule"}),
    (SearchFilter(statuses=(DocStatus.erroneous, DocStatus.proposed)), {"qq-bad", "zz-undated"}),
    (SearchFilter(doc_ids=("xy-old", "qq-bad")), {"xy-old", "qq-bad"}),
    (SearchFilter(exclude_doc_ids=("xy-old", "qq-bad")), {"xy-new", "zz-rule", "zz-undated"}),
    (SearchFilter(as_of=date(2020, 6, 29)), {"xy-old", "zz-undated"}),
    (SearchFilter(as_of=date(2020, 6, 30)), {"xy-old", "zz-rule", "zz-undated", "qq-bad"}),
    (
        SearchFilter(jurisdictions=("XY", "ZZ"), as_of=date(2026, 11, 30), statuses=("in_force", "superseded")),
        {"xy-old", "zz-rule"},
    ),
    (SearchFilter(jurisdictions=("NOPE",)), set()),
]
"""The filter rules every store keeps: the real backends and the unit tests' fake alike."""
FILTER_IDS = [
    "jur",
    "jur-many",
    "status",
    "status-enum",
    "doc-ids",
    "exclude",
    "as-of-before",
    "as-of-on-date",
    "combined",
    "none",
]


@pytest.mark.parametrize("mode", ["hybrid", "dense", "sparse"])
@pytest.mark.parametrize("flt, expected", FILTER_CASES, ids=FILTER_IDS)
def test_filters(filled: Store, flt: SearchFilter, expected: set[str], mode: str) -> None:
    assert doc_ids(filled.search(TOPIC, k=10, flt=flt, mode=mode)) == expected


@pytest.mark.parametrize("flt, expected", FILTER_CASES, ids=FILTER_IDS)
def test_the_fake_store_filters_as_the_real_backends_do(flt: SearchFilter, expected: set[str]) -> None:
    fake = KeywordStore([(m, [c.text for c in chunks]) for m, chunks in CORPUS])
    assert doc_ids(fake.search(TOPIC, k=10, flt=flt)) == expected
    assert doc_ids(fake.search_many([TOPIC], k=10, flt=flt)[0]) == expected


def test_search_many_matches_search_in_every_mode(filled: Store) -> None:
    queries = [TOPIC, "payment institutions in ZZ", "zz-rule"]
    for mode in ("hybrid", "dense", "sparse"):
        flt = SearchFilter(exclude_doc_ids=("qq-bad",))
        many = filled.search_many(queries, k=3, flt=flt, mode=mode)
        single = [filled.search(q, k=3, flt=flt, mode=mode) for q in queries]
        for batched, alone in zip(many, single):  # batched encoding differs in the last float bits: near-ties may swap
            assert batched[0].chunk_id == alone[0].chunk_id
            assert [h.score for h in batched] == pytest.approx([h.score for h in alone], abs=1e-3)


def test_stop_word_query_falls_back_to_dense(filled: Store) -> None:
    assert filled.search("the of and", k=3, mode="sparse") == []
    assert len(filled.search("the of and", k=3)) == 3
    assert filled.search_many(["the of and", TOPIC], k=2, mode="sparse")[0] == []
    with pytest.raises(ValueError, match="search mode must be one of"):
        filled.search(TOPIC, mode="fuzzy")  # type: ignore[arg-type]


def test_reingest_replaces_and_shorter_version_drops_stale_chunks(store: Store) -> None:
    texts = ("alpha passage on wire transfers", "beta passage on crypto custody", "gamma passage on zebra farming")
    long_doc = make_doc("xy-long", texts=texts)
    assert store.upsert_document(*long_doc) == 3
    assert store.upsert_document(*long_doc) == 3
    assert store.count() == 3
    short = make_doc("xy-long", texts=("alpha passage, revised",))
    store.upsert_document(*short)
    assert store.count() == 1
    assert [c.text for c in store.chunks("xy-long")] == ["alpha passage, revised"]
    assert doc_ids(store.search("zebra farming", k=5, mode="sparse")) == set()


def test_reingest_of_files_is_idempotent(store: Store, tmp_path: Path, make_settings: Callable[..., Settings]) -> None:
    body = "\n\n".join(f"## Part {i}\n\n" + " ".join(f"word{i}x{j}" for j in range(50)) for i in range(4))
    path = tmp_path / "xy-long.md"
    path.write_text(f"---\nid: xy-long\ntitle: XY long\njurisdiction: XY\n---\n{body}\n", encoding="utf-8")
    small = make_settings(chunk_words=40, chunk_overlap_words=5)
    first = ingest_paths(store, [path], settings=small)
    count = store.count()
    assert count == first.chunks > 2
    ingest_paths(store, [path], settings=small)
    assert store.count() == count
    path.write_text(
        "---\nid: xy-long\ntitle: XY long\njurisdiction: XY\n---\nNow one short paragraph.\n", encoding="utf-8"
    )
    ingest_paths(store, [path], settings=small, replace=True)
    assert store.count() == 1


def test_delete_document_and_reset(store: Store) -> None:
    store.upsert_documents(CORPUS)
    store.delete_document("xy-old")
    assert store.get_document("xy-old") is None and store.chunks("xy-old") == []
    assert store.count() == len(CORPUS) - 1
    store.delete_document("never-there")
    store.reset()
    assert store.count() == 0 and store.documents() == []
    store.upsert_document(*CORPUS[0])
    assert store.count() == 1


def test_documents_round_trip_full_metadata(store: Store) -> None:
    meta, chunks = make_doc(
        "xy-rich",
        effective=date(2021, 7, 1),
        published=date(2021, 3, 1),
        topics=("cdd",),
        thresholds=(Threshold(name="beneficial_ownership", value=30, unit="percent", applies_to=("bank",)),),
        extra={"review_cycle": "2024-01-01", "nested": {"a": [1, 2]}},
        texts=("one", "two"),
    )
    store.upsert_document(meta, chunks)
    store.upsert_documents(CORPUS)
    assert store.get_document("xy-rich") == meta
    assert [d.id for d in store.documents()] == sorted([meta.id] + [m.id for m, _ in CORPUS])
    catalog = store.catalog()
    assert catalog.status_at("xy-old", date(2026, 11, 30)) == DocStatus.in_force  # successor not yet effective
    assert catalog.status_at("xy-old", date(2027, 8, 1)) == DocStatus.superseded
    assert store.chunks("xy-rich") == chunks


def test_facets_count_documents(store: Store) -> None:
    store.upsert_documents([*CORPUS, make_doc("xy-multi", texts=("a", "b", "c"))])
    assert store.facets("jurisdiction") == {"QQ": 1, "XY": 3, "ZZ": 2}
    assert store.facets("status") == {"erroneous": 1, "in_force": 3, "proposed": 1, "superseded": 1}
    with pytest.raises(ValueError, match="facets are available for"):
        store.facets("title")


def test_chunk_numbering_is_checked(store: Store) -> None:
    meta, _ = make_doc("xy-x")
    with pytest.raises(ValueError, match="numbered 0..n-1"):
        store.upsert_document(meta, [Chunk(doc_id="xy-x", chunk_index=1, text="t")])
    with pytest.raises(ValueError, match="has no chunks"):
        store.upsert_document(meta, [])


# -- Edge only: registry, persistence, locks ----------------------------------------------------------------


def edge_settings(make_settings: Callable[..., Settings]) -> Settings:
    return make_settings(collection="reg")


def test_registry_returns_one_store_per_directory(
    make_settings: Callable[..., Settings], embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "_registry", {})  # close_all() below must not close other tests' stores
    settings = edge_settings(make_settings)
    first = open_store(settings)
    assert open_store(settings) is first
    assert open_store(settings, "other") is not first
    first.upsert_document(*CORPUS[0])
    first.close()
    with pytest.raises(StoreClosedError):
        first.count()
    reopened = open_store(settings)
    assert reopened is not first and reopened.count() == 1  # persisted on disk
    close_all()
    assert open_store(settings) is not reopened
    close_all()


def test_server_backend_is_chosen_by_qdrant_url(make_settings: Callable[..., Settings]) -> None:
    from core.retrieval.server_store import ServerStore

    s = open_store(make_settings(qdrant_url=":memory:", collection="chosen"))
    assert isinstance(s, ServerStore) and isinstance(s, Store)
    s.close()


def test_store_locked_by_another_process_is_a_clear_error(make_settings: Callable[..., Settings]) -> None:
    settings = edge_settings(make_settings)
    open_store(settings).reset()  # the shard exists
    open_store(settings).close()
    shard_dir = settings.qdrant_path / "reg"
    hold = "import sys, qdrant_edge as qe; s = qe.EdgeShard.load(sys.argv[1]); print('ready', flush=True); sys.stdin.read()"
    holder = subprocess.Popen(
        [sys.executable, "-c", hold, str(shard_dir)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreLockedError) as info:
            open_store(settings)
        message = str(info.value)
        assert message.startswith(f"the data dir {settings.data_dir} is in use by another process (the app?)")
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    s = open_store(settings)  # free again once the other process is gone
    s.close()


@pytest.mark.parametrize("name", ["..", "../x", "/abs", "a/b", ".x", "-x", "", "a" * 65])
@pytest.mark.parametrize("backend", ["edge", "server"])
def test_both_stores_refuse_a_collection_that_is_not_an_identifier(
    name: str, backend: str, make_settings: Callable[..., Settings], tmp_path: Path
) -> None:
    from core.retrieval.edge_store import EdgeStore
    from core.retrieval.server_store import ServerStore, connect

    settings = make_settings(qdrant_url=":memory:" if backend == "server" else None)
    with pytest.raises(InvalidCollectionError, match="is not a collection name"):
        open_store(settings, name)
    with pytest.raises(InvalidCollectionError):
        if backend == "server":
            ServerStore(connect(":memory:"), name, settings.embedding_model)
        else:
            EdgeStore(tmp_path / "shard", name, settings.embedding_model)
    assert not settings.data_dir.exists() and not (tmp_path / "shard").exists()


def test_an_edge_reset_is_swapped_in_whole_or_not_at_all(
    make_settings: Callable[..., Settings], embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = edge_settings(make_settings)
    s = open_store(settings)
    s.upsert_documents(CORPUS[:2])
    with pytest.raises(RuntimeError, match="killed"), s.staging() as staged:
        staged.upsert_document(*CORPUS[2])
        raise RuntimeError("killed while ingesting")
    assert sorted(d.id for d in s.documents()) == ["xy-new", "xy-old"]

    renames: list[tuple[str, str]] = []
    real_rename = edge_module.os.rename

    def rename_then_die(src: object, dst: object) -> None:  # the process dies between the two renames
        renames.append((str(src), str(dst)))
        if len(renames) == 2:
            raise SystemExit("killed")
        real_rename(src, dst)

    monkeypatch.setattr(edge_module, "os", type("os", (), {"rename": staticmethod(rename_then_die)}))
    with pytest.raises(SystemExit):
        s.reset()
    monkeypatch.undo()
    shards = settings.qdrant_path
    assert not (shards / "reg").exists()
    assert len(list(shards.glob(".reg.retired-*"))) == len(list(shards.glob(".reg.staging-*"))) == 1
    s._closed = True  # the "dead" process's store; a new process opens the collection afresh
    store_module._registry.clear()
    reopened = open_store(settings)
    assert sorted(d.id for d in reopened.documents()) == ["xy-new", "xy-old"]  # the old corpus, not an empty one
    assert sorted(p.name for p in shards.iterdir()) == [".reg.swap.lock", "reg"]  # leftovers removed
    reopened.reset()
    assert reopened.count() == 0 and sorted(p.name for p in shards.iterdir()) == [".reg.swap.lock", "reg"]
    reopened.close()


class _CountingModel:
    """A stand-in for the sentence-transformers model that counts the texts it encodes (unit test of the cache)."""

    def __init__(self) -> None:
        self.encoded: list[str] = []

    def get_embedding_dimension(self) -> int:
        return 2

    def encode(self, texts: list[str], **_: object) -> list[list[float]]:
        self.encoded += texts
        return [[float(len(t)), 1.0] for t in texts]


def test_a_text_encoded_lately_is_not_encoded_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Passages ingested again and queries asked again come from the cache; the cache keeps the most recently
    used CACHED_TEXTS texts, and the vectors equal what the model gave."""
    monkeypatch.setattr(embeddings, "CACHED_TEXTS", 3)
    model = _CountingModel()
    e = embeddings.Embedder(model, embeddings.bm25())  # type: ignore[arg-type]
    first = e.dense(["a", "bb", "a"])
    assert first == [[1.0, 1.0], [2.0, 1.0], [1.0, 1.0]] and model.encoded == ["a", "bb"]
    assert e.dense(["bb", "ccc"]) == [[2.0, 1.0], [3.0, 1.0]] and model.encoded == ["a", "bb", "ccc"]
    assert e.dense_query("a") == [1.0, 1.0] and model.encoded == ["a", "bb", "ccc"]
    e.dense(["dddd"])  # four texts: the least recently used one ("bb") goes
    e.dense(["bb"])
    assert model.encoded == ["a", "bb", "ccc", "dddd", "bb"]
