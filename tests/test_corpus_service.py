"""What the pages read of the corpus goes through the service: emptiness, size, catalog and search."""

from __future__ import annotations

from pathlib import Path

from core.config import Settings
from core.retrieval.store import Store
from core.service import SEARCH_MODES, UPLOAD_TYPES, Workbench


def test_corpus_stats_catalog_and_search(sample_store: Store, tmp_path: Path) -> None:
    wb = Workbench(Settings(data_dir=tmp_path, collection=sample_store.collection, qdrant_url=None), store=sample_store)
    stats = wb.corpus_stats()
    assert stats.documents == len(sample_store.documents()) == len(wb.catalog())
    assert stats.passages == sample_store.count() and not wb.corpus_empty()
    assert stats.jurisdictions == wb.catalog().jurisdictions() and "SG" in stats.jurisdictions
    hits = wb.search("beneficial ownership threshold", k=5, jurisdictions=["SG"])
    assert hits and {h.jurisdiction for h in hits} == {"SG"}
    assert len(wb.search("beneficial ownership threshold", k=3, mode="sparse")) == 3
    assert set(SEARCH_MODES) == {"hybrid", "dense", "sparse"} and {"md", "pdf", "jsonl"} <= set(UPLOAD_TYPES)


def test_an_empty_collection_is_empty(tmp_path: Path, embedder: object) -> None:
    wb = Workbench(Settings(data_dir=tmp_path, qdrant_url=None))
    try:
        assert wb.corpus_empty("nothing_here")
        assert wb.corpus_stats("nothing_here").documents == 0
    finally:
        wb.store("nothing_here").close()
