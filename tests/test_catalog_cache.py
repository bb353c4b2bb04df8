"""The catalog is cached per store object and rebuilt when the corpus changed: by a write through the same store,
through another store object on the same collection (another process or replica), or by a reset."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from core.retrieval.registry import open_store
from core.retrieval.server_store import ServerStore, connect
from core.retrieval.store import STAMP_ID, BaseStore, Store
from tests.test_retrieval import CORPUS, make_doc


class Scrolls:
    """Counts the full scrolls a store makes to build its catalog."""

    def __init__(self, store: Any, monkeypatch: pytest.MonkeyPatch):
        self.n = 0
        scroll = store._scroll

        def counted(doc_id: str | None, first_chunk_only: bool, fields: list[str]) -> list[dict[str, Any]]:
            if doc_id is None:
                self.n += 1
            return scroll(doc_id, first_chunk_only, fields)

        monkeypatch.setattr(store, "_scroll", counted)


def ids(store: Store) -> list[str]:
    return [d.id for d in store.catalog().all()]


def test_the_catalog_is_built_once_until_a_write(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    store.upsert_documents(CORPUS[:3])
    scrolls = Scrolls(store, monkeypatch)
    first = store.catalog()
    assert store.catalog() is first and scrolls.n == 1
    store.upsert_document(*CORPUS[3])
    assert ids(store) == sorted(d.id for d, _ in CORPUS[:4]) and scrolls.n == 2
    store.delete_document(CORPUS[0][0].id)
    assert CORPUS[0][0].id not in ids(store) and scrolls.n == 3
    assert store.catalog() is store.catalog() and scrolls.n == 3
    assert store.count() == sum(len(chunks) for _, chunks in CORPUS[1:4])  # the version point is not a chunk
    assert all(h.doc_id for h in store.search("payment institutions", k=20))  # nor a search hit


@pytest.fixture
def two_replicas(embedder: object) -> Iterator[tuple[BaseStore, BaseStore]]:
    """Two store objects on one collection of one Qdrant (qdrant-client local mode), as two replicas have."""
    client = connect(":memory:")
    first = ServerStore(client, "shared", "all-MiniLM-L6-v2")
    second = ServerStore(client, "shared", "all-MiniLM-L6-v2")
    yield first, second
    client.close()


def test_a_second_store_object_sees_an_ingest_and_a_delete_through_the_first(
    two_replicas: tuple[BaseStore, BaseStore],
) -> None:
    first, second = two_replicas
    first.upsert_documents(CORPUS[:2])
    assert ids(second) == sorted(d.id for d, _ in CORPUS[:2])
    first.upsert_document(*CORPUS[2])
    assert CORPUS[2][0].id in ids(second)
    first.delete_document(CORPUS[0][0].id)
    assert CORPUS[0][0].id not in ids(second)
    first.reset()
    assert ids(second) == []


def test_an_edge_reset_and_a_rebuild_are_seen_by_the_cached_catalog(make_settings: Any, embedder: object) -> None:
    store = open_store(make_settings())
    try:
        store.upsert_documents(CORPUS[:2])
        assert len(store.catalog()) == 2
        with store.staging() as staged:
            staged.upsert_document(*make_doc("only-new"))
        assert ids(store) == ["only-new"]
        store.reset()
        assert ids(store) == []
    finally:
        store.close()


def test_a_collection_from_before_catalog_versions_gets_one_on_first_read(store: Store) -> None:
    store.upsert_documents(CORPUS[:2])
    _drop_stamp(store)
    assert store._catalog_version() is None
    assert len(store.catalog()) == 2 and store._catalog_version() is not None


def _drop_stamp(store: Any) -> None:
    if hasattr(store, "_shard"):
        import qdrant_edge as qe

        store._shard.update(qe.UpdateOperation.delete_points([STAMP_ID]))
    else:
        from qdrant_client import models

        store.client.delete(store.collection, models.PointIdsList(points=[STAMP_ID]), wait=True)
