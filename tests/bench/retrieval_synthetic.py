"""Synthetic compliance-like text and a synthetic index for the retrieval benchmark (tests/bench/retrieval.py)."""

from __future__ import annotations

import random
from datetime import date, timedelta

import numpy as np

from core.domain.documents import Chunk, DocumentMeta
from core.retrieval.embeddings import get_embedder
from core.retrieval.store import BaseStore

WORDS = [
    "customer",
    "due",
    "diligence",
    "beneficial",
    "owner",
    "ownership",
    "control",
    "prong",
    "threshold",
    "percent",
    "shares",
    "voting",
    "rights",
    "legal",
    "entity",
    "trust",
    "partnership",
    "payment",
    "institution",
    "money",
    "transmitter",
    "remittance",
    "bureau",
    "de",
    "change",
    "crypto",
    "asset",
    "service",
    "provider",
    "wallet",
    "transfer",
    "funds",
    "originator",
    "beneficiary",
    "travel",
    "rule",
    "occasional",
    "transaction",
    "cash",
    "limit",
    "register",
    "registry",
    "access",
    "legitimate",
    "interest",
    "journalist",
    "supervisor",
    "authority",
    "directive",
    "regulation",
    "notice",
    "rule",
    "order",
    "exemption",
    "listed",
    "company",
    "subsidiary",
    "account",
    "opening",
    "verification",
    "identification",
    "record",
    "keeping",
    "report",
    "suspicious",
    "activity",
    "currency",
    "exchange",
    "agent",
    "licence",
    "registration",
    "enhanced",
    "simplified",
    "risk",
    "assessment",
    "politically",
    "exposed",
    "person",
    "sanctions",
    "screening",
    "monitoring",
    "senior",
    "managing",
    "official",
    "nominee",
    "director",
    "shareholder",
    "indirect",
    "chain",
    "multiplication",
    "delegated",
    "act",
    "transposition",
    "deadline",
    "application",
    "date",
    "repealed",
    "superseded",
    "amended",
    "erroneous",
    "proposed",
    "guidance",
    "interpretive",
    "note",
]
JURISDICTIONS = ["EU", "US", "UK", "SG", "XY", "ZZ"]
STATUSES = ["in_force", "in_force", "in_force", "superseded", "proposed", "erroneous"]


def sentence(rng: random.Random, n: int) -> str:
    words = rng.choices(WORDS, weights=[1 / (i + 1) ** 0.6 for i in range(len(WORDS))], k=n)
    if rng.random() < 0.5:
        words.insert(
            rng.randrange(n), f"{rng.choice(['EUR', 'USD', 'GBP', 'SGD'])} {rng.choice([1000, 3000, 10000, 15000])}"
        )
    if rng.random() < 0.5:
        words.insert(rng.randrange(n), f"{rng.choice([10, 15, 25, 50])} percent")
    return " ".join(words).capitalize() + "."


def paragraph(rng: random.Random, words: int) -> str:
    out, n = [], 0
    while n < words:
        k = rng.randint(10, 24)
        out.append(sentence(rng, k))
        n += k
    return " ".join(out)


def build_index(store: BaseStore, n_points: int, chunks_per_doc: int, base: int) -> None:
    """n_points synthetic chunks; dense vectors mix precomputed embeddings of `base` varied texts (fast to build)."""
    rng = random.Random(11)
    nprng = np.random.default_rng(11)
    embedder = get_embedder()
    base_texts = [paragraph(rng, rng.randint(25, 60)) for _ in range(base)]
    base_vecs = np.asarray(embedder.dense(base_texts), dtype=np.float32)
    for d in range(n_points // chunks_per_doc):
        meta = DocumentMeta(
            id=f"syn-{d:05d}",
            title=f"Synthetic document {d}",
            jurisdiction=rng.choice(JURISDICTIONS),
            status=rng.choice(STATUSES),
            effective=date(2010, 1, 1) + timedelta(days=rng.randrange(6000)),
        )
        chunks, dense, texts = [], [], []
        for c in range(chunks_per_doc):
            a, b = rng.randrange(base), rng.randrange(base)
            text = f"{base_texts[a]} {base_texts[b][:160]}"
            v = 0.8 * base_vecs[a] + 0.2 * base_vecs[b] + nprng.normal(0, 0.02, base_vecs.shape[1])
            chunks.append(Chunk(doc_id=meta.id, chunk_index=c, text=text))
            dense.append((v / np.linalg.norm(v)).tolist())
            texts.append(f"{meta.title}\n{text}")
        store.upsert_vectors(meta, chunks, dense, embedder.sparse_documents(texts))
