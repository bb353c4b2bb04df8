"""Retrieval quality over the bundled sample corpus: a known question, and recall@5 on a labelled query set."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from pathlib import Path

from core.domain.documents import Hit, SearchFilter
from core.retrieval.ingest import SAMPLE_CORPUS_DIR
from core.retrieval.store import Store

QUERIES_FILE = Path(__file__).parent / "retrieval_queries.jsonl"
RECALL_AT = 5
CHUNKS_FETCHED = 40  # enough chunks to see RECALL_AT distinct documents


def top_docs(hits: list[Hit], n: int) -> list[str]:
    """Distinct document ids in rank order, first n."""
    seen: list[str] = []
    for h in hits:
        if h.doc_id not in seen:
            seen.append(h.doc_id)
    return seen[:n]


def test_sample_corpus_is_fully_indexed(sample_store: Store) -> None:
    expected = {p.stem for p in SAMPLE_CORPUS_DIR.glob("*.md")}
    assert {d.id for d in sample_store.documents()} == expected
    assert sum(sample_store.facets("jurisdiction").values()) == len(expected)


def test_fincen_cdd_threshold_question_ranks_the_cdd_rule_top_3(sample_store: Store) -> None:
    hits = sample_store.search("What is the beneficial ownership threshold under FinCEN's CDD Rule?", k=CHUNKS_FETCHED)
    assert "us-fincen-cdd-2016" in top_docs(hits, 3)


def test_as_of_leaves_out_documents_not_yet_effective(sample_store: Store) -> None:
    query = "beneficial ownership threshold under the EU AML Regulation 2024/1624"
    assert "eu-amlr-2024-1624" in top_docs(sample_store.search(query, k=CHUNKS_FETCHED), 3)
    before = sample_store.search(query, k=CHUNKS_FETCHED, flt=SearchFilter(as_of=date(2026, 11, 30)))
    assert "eu-amlr-2024-1624" not in {h.doc_id for h in before}


def test_hybrid_recall_at_5_is_at_least_dense_and_sparse(
    sample_store: Store, report_line: Callable[[str], None]
) -> None:
    rows = [json.loads(line) for line in QUERIES_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= 20
    known = {d.id for d in sample_store.documents()}
    assert {doc for r in rows for doc in r["relevant"]} <= known, "labelled set names a document the corpus lacks"
    recall: dict[str, float] = {}
    for mode in ("hybrid", "dense", "sparse"):
        results = sample_store.search_many([r["text"] for r in rows], k=CHUNKS_FETCHED, mode=mode)
        per_query = [
            len(set(r["relevant"]) & set(top_docs(hits, RECALL_AT))) / len(r["relevant"])
            for r, hits in zip(rows, results)
        ]
        recall[mode] = sum(per_query) / len(per_query)
    line = f"recall@{RECALL_AT} over {len(rows)} labelled queries: " + ", ".join(
        f"{m} {v:.4f}" for m, v in recall.items()
    )
    print(line)
    report_line(line)
    assert recall["hybrid"] >= recall["dense"], line
    assert recall["hybrid"] >= recall["sparse"], line
