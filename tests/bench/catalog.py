"""Catalog benchmark (a script, not a test): `store.catalog()` served from its cache (one point lookup of the
catalog version) against building it (scroll every document's payload and validate it), which is what every
draft, critique and revision paid before the cache.

Documents are synthetic, with metadata shaped like the sample corpus' (thresholds, exemptions, topics), written
with precomputed random vectors (no embedding model needed). Backends: Qdrant Edge and qdrant-client local mode.

Usage: python tests/bench/catalog.py [--docs 19 500 2000] [--runs 50]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import qdrant_edge as qe  # noqa: E402

from core.domain.documents import Catalog, Chunk, DocumentMeta  # noqa: E402
from core.retrieval.edge_store import EdgeStore  # noqa: E402
from core.retrieval.server_store import ServerStore, connect  # noqa: E402
from core.retrieval.store import BaseStore  # noqa: E402

MODEL = "all-MiniLM-L6-v2"
DIM = 384


def document(i: int) -> DocumentMeta:
    """A document with the metadata a real one carries."""
    return DocumentMeta.model_validate(
        {
            "id": f"doc-{i:05d}",
            "title": f"Regulation {i} on customer due diligence",
            "jurisdiction": f"J{i % 40}",
            "authority": "Authority",
            "instrument": f"Instrument {i}",
            "citation": f"Reg. {i}/2024",
            "published": "2024-06-19",
            "effective": "2027-07-10",
            "status": "in_force",
            "superseded_by": [f"doc-{i + 1:05d}"] if i % 7 == 0 else [],
            "applies_to": ["bank", "msb", "casp"],
            "topics": ["cdd", "beneficial ownership", "thresholds"],
            "aliases": [f"R{i}"],
            "thresholds": [
                {
                    "name": "beneficial ownership",
                    "value": 25,
                    "unit": "percent",
                    "comparator": ">=",
                    "applies_to": ["bank"],
                },
                {"name": "occasional transaction", "value": 10000, "unit": "EUR", "comparator": ">="},
            ],
            "exemptions": [{"entity": "credit union", "rule": "exempt below 1,000 members"}],
        }
    )


def fill(store: BaseStore, n: int) -> None:
    rng = random.Random(7)
    for i in range(n):
        meta = document(i)
        chunks = [Chunk(doc_id=meta.id, chunk_index=0, text=f"Passage of document {i}.")]
        dense = [[rng.uniform(-1, 1) for _ in range(DIM)]]
        sparse = [qe.SparseVector([i % 5000], [1.0])]
        store.upsert_vectors(meta, chunks, dense, sparse)


def median_ms(call: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def measure(name: str, store: BaseStore, n: int, runs: int) -> tuple[str, int, float, float]:
    fill(store, n)
    assert len(store.catalog()) == n
    built = median_ms(lambda: Catalog(store.documents()), max(5, runs // 5))
    cached = median_ms(store.catalog, runs)
    store.close()
    return name, n, built, cached


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, nargs="+", default=[19, 500, 2000])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="catalog-bench-") as tmp:
        for n in args.docs:
            rows.append(measure("Qdrant Edge", EdgeStore(Path(tmp) / f"edge-{n}", f"edge{n}", MODEL), n, args.runs))
            client = connect(":memory:")
            rows.append(measure("qdrant-client local mode", ServerStore(client, f"server{n}", MODEL), n, args.runs))
            client.close()
    print("| backend | documents | built ms (median) | cached ms (median) | ratio |")
    print("|---|---:|---:|---:|---:|")
    for name, n, built, cached in rows:
        print(f"| {name} | {n} | {built:.2f} | {cached:.3f} | {built / cached:.0f}x |")


if __name__ == "__main__":
    main()
