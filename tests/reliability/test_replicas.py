"""Replicas starting together: on a fresh Postgres database all of them set up the schema, and a Qdrant collection
that another replica created meanwhile is used as it is."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[2]
OPEN = "import sys; from core.persistence.checkpoints import _postgres; _postgres(sys.argv[1]).close(); print('up')"


def test_replicas_starting_together_on_a_fresh_database_all_set_up_the_schema(pg_url: str) -> None:
    name = f"replicas_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        url = pg_url.rsplit("/", 1)[0] + f"/{name}"
        replicas = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN, url], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            for _ in range(4)
        ]
        outcomes = [r.communicate(timeout=120) for r in replicas]
        assert [r.returncode for r in replicas] == [0] * 4, [err[-500:] for _, err in outcomes]
        assert [out.strip() for out, _ in outcomes] == ["up"] * 4
        with psycopg.connect(url) as conn:
            tables = {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        assert {"checkpoints", "checkpoint_writes", "store"} <= tables
    finally:
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_a_collection_created_by_another_replica_meanwhile_is_used_as_it_is(embedder: object) -> None:
    """Two replicas see no collection, both create it: the second one's 'already exists' is not an error."""
    from qdrant_client import QdrantClient

    from core.retrieval.server_store import ServerStore

    client = QdrantClient(location=":memory:")
    first = ServerStore(client, "shared", "all-MiniLM-L6-v2")
    real_exists = client.collection_exists
    stale = {"seen": False}

    def exists_once_stale(name: str) -> bool:
        if not stale["seen"]:
            stale["seen"] = True
            return False
        return real_exists(name)

    client.collection_exists = exists_once_stale  # type: ignore[method-assign]
    second = ServerStore(client, "shared", "all-MiniLM-L6-v2")
    assert stale["seen"] and second.count() == first.count() == 0
