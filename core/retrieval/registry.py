"""The process-wide registry of open stores: `open_store(settings)` returns the embedded Qdrant Edge store (a shard
directory under the data dir) unless `QDRANT_URL` is set, then a qdrant-client store. One store object per shard
directory / server collection per process: Qdrant Edge locks its directory, so a second open would fail."""

from __future__ import annotations

import atexit
import threading

from core.config import Settings
from core.retrieval.names import validate_collection
from core.retrieval.store import BaseStore, Store

_registry: dict[str, BaseStore] = {}
_registry_lock = threading.Lock()


def open_store(settings: Settings, collection: str | None = None) -> Store:
    """The store for `collection` (default `settings.collection`): Qdrant Edge under the data dir, or a Qdrant
    server when `settings.qdrant_url` is set. The same instance is returned while it is open.

    Raises StoreLockedError when another process holds the embedded shard, InvalidCollectionError for a name that
    is not an identifier.
    """
    name = validate_collection(settings.collection if collection is None else collection)
    if settings.qdrant_url:
        key = f"server:{settings.qdrant_url}|{name}"
    else:
        key = f"edge:{(settings.qdrant_path / name).resolve()}"
    with _registry_lock:
        store = _registry.get(key)
        if store is None:
            store = _registry[key] = _create(settings, name, key)
        return store


def close_all() -> None:
    """Close every open store (registered with atexit so shard locks and WALs are released cleanly)."""
    with _registry_lock:
        stores = list(_registry.values())
    for store in stores:
        store.close()


def _create(settings: Settings, name: str, key: str) -> BaseStore:
    def forget(store: BaseStore) -> None:
        with _registry_lock:
            if _registry.get(key) is store:
                del _registry[key]

    if settings.qdrant_url:
        from core.retrieval.server_store import ServerStore, connect

        client = connect(settings.qdrant_url, settings.qdrant_api_key)
        return ServerStore(client, name, settings.embedding_model, on_close=forget, owns_client=True)
    from core.retrieval.edge_store import EdgeStore

    return EdgeStore(settings.qdrant_path / name, name, settings.embedding_model, on_close=forget)


atexit.register(close_all)
