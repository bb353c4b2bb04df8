"""The embedded default backend: Qdrant Edge (qdrant-edge-py, pinned 0.9.0), one shard directory per collection."""

from __future__ import annotations

import glob
import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import qdrant_edge as qe
from filelock import FileLock

from core.domain.documents import SearchFilter
from core.retrieval.embeddings import embedding_dim
from core.retrieval.errors import StoreDamagedError, StoreLockedError
from core.retrieval.names import validate_collection
from core.retrieval.query import DENSE, RRF_K, SPARSE, QueryPlan, prefetch_limit
from core.retrieval.store import HIT_FIELDS, INTEGER_FIELDS, KEYWORD_FIELDS, STAMP_ID, BaseStore, date_key

_PAGE = 256
_CONFIG_FILE = "edge_config.json"
_STAGING = ".staging-"
_RETIRED = ".retired-"
_NOT_STAMP = qe.Filter(must_not=[qe.HasIdCondition({STAMP_ID})])


class EdgeStore(BaseStore):
    """A corpus store on an in-process Qdrant Edge shard. Open it through `open_store`, never twice per path.

    A rebuild (`staging`, `reset`) writes a new shard in a hidden directory beside this one and swaps it in with
    two renames; a process killed in between leaves the old shard renamed aside, and the next open puts it back.
    Opening and swapping take a lock file beside the shard (`.<collection>.swap.lock`), so no other process opens
    the shard, or puts a retired one back, while a swap is under way.

    A collection that does not exist yet is created by the first write, never by a read: until then it reads as
    empty (`exists()` is False) and nothing is created on disk, not even the directory or the lock file.
    """

    atomic_rebuild = True

    def __init__(
        self,
        path: Path,
        collection: str,
        model_name: str,
        on_close: Callable[[BaseStore], None] | None = None,
        create: bool = False,
    ):
        super().__init__(validate_collection(collection), model_name, on_close)
        self.path = Path(path)
        self._config = qe.EdgeConfig(
            vectors={DENSE: qe.EdgeVectorParams(size=embedding_dim(model_name), distance=qe.Distance.Cosine)},
            sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        )
        self._hit_payload = qe.PayloadSelector.Include(HIT_FIELDS)
        self._shard: qe.EdgeShard | None = self._open() if create or self._on_disk() else None

    def _open(self) -> qe.EdgeShard:
        with self._swap_lock():
            return self._load()

    def _on_disk(self) -> bool:
        """Whether the shard exists (or a swap cut off between its renames left it renamed aside)."""
        return self.path.exists() or any(self.path.parent.glob(f".{glob.escape(self.path.name)}{_RETIRED}*"))

    def _reading(self) -> qe.EdgeShard | None:
        """The shard for a read; None while the collection does not exist (another process may create it)."""
        self._check_open()
        if self._shard is None and self._on_disk():
            self._shard = self._open()
        return self._shard

    def _writing(self) -> qe.EdgeShard:
        """The shard for a write, created on the first one."""
        self._check_open()
        if self._shard is None:
            self._shard = self._open()
        return self._shard

    def exists(self) -> bool:
        return self._reading() is not None

    @contextmanager
    def _swap_lock(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(self.path.parent / f".{self.collection}.swap.lock"):
            yield

    def _load(self) -> qe.EdgeShard:
        """Open (or create) the shard; the caller holds the swap lock."""
        self._restore_retired()
        try:
            if (self.path / _CONFIG_FILE).exists():
                shard = qe.EdgeShard.load(str(self.path), self._config)
            else:
                self.path.mkdir(parents=True, exist_ok=True)
                shard = qe.EdgeShard.create(str(self.path), self._config)
        except Exception as exc:  # the binding raises plain Exception; tell a held lock from other failures
            if "WouldBlock" in str(exc):
                raise StoreLockedError(
                    f"the data dir {self.path.parent.parent} is in use by another process (the app?): its Qdrant "
                    f"store {self.path.name!r} is locked. Stop that process, or point WORKBENCH_DATA_DIR at "
                    "another directory."
                ) from exc
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise StoreDamagedError(
                f"the Qdrant store {self.path} cannot be opened ({reason}); if its files are damaged, move the "
                "directory aside and ingest the corpus again"
            ) from exc
        self._remove_leftovers()
        indexed = shard.info().payload_schema
        for field in KEYWORD_FIELDS:
            if field not in indexed:
                shard.update(qe.UpdateOperation.create_field_index(field, qe.PayloadSchemaType.Keyword))
        for field in INTEGER_FIELDS:
            if field not in indexed:
                params = qe.IntegerIndexParams(lookup=True, range=True)
                shard.update(qe.UpdateOperation.create_field_index(field, params))
        return shard

    def count(self) -> int:
        shard = self._reading()
        return 0 if shard is None else shard.count(qe.CountRequest(exact=True, filter=_NOT_STAMP))

    def reset(self) -> None:
        """Swap in an empty shard (atomic: a killed reset leaves the old corpus)."""
        with self.staging():
            pass

    @contextmanager
    def staging(self) -> Iterator[BaseStore]:
        """A new, empty shard beside this one; swapped in when the block ends, discarded when it raises."""
        self._writing()  # the collection's own shard, held while the new one is built
        staged_path = self._sibling(_STAGING)
        staged = EdgeStore(staged_path, self.collection, self._model_name, create=True)
        try:
            yield staged
        except BaseException:
            staged.close()
            shutil.rmtree(staged_path, ignore_errors=True)
            raise
        staged.close()
        self._swap_in(staged_path)

    def _swap_in(self, staged_path: Path) -> None:
        """Replace this shard's directory by `staged_path` with two renames, then reopen."""
        retired = self._sibling(_RETIRED)
        shard = self._writing()
        with self._swap_lock():
            shard.flush()
            shard.close()
            os.rename(self.path, retired)
            os.rename(staged_path, self.path)
            self._shard = self._load()
        shutil.rmtree(retired, ignore_errors=True)

    def _sibling(self, kind: str) -> Path:
        return self.path.parent / f".{self.path.name}{kind}{uuid.uuid4().hex[:12]}"

    def _restore_retired(self) -> None:
        """A swap cut off between its two renames left no shard but the old one renamed aside: put it back."""
        if self.path.exists():
            return
        retired = sorted(self.path.parent.glob(f".{self.path.name}{_RETIRED}*"), key=lambda p: p.stat().st_mtime)
        if retired:
            os.rename(retired[-1], self.path)

    def _remove_leftovers(self) -> None:
        """Delete staging and retired directories of rebuilds that were cut off (we hold the shard lock now, so
        no other process is rebuilding this collection)."""
        for kind in (_STAGING, _RETIRED):
            for leftover in self.path.parent.glob(f".{self.path.name}{kind}*"):
                shutil.rmtree(leftover, ignore_errors=True)

    def _upsert(self, points: list[tuple[str, list[float], qe.SparseVector, dict[str, Any]]]) -> None:
        self._writing().update(
            qe.UpdateOperation.upsert_points(
                [qe.Point(pid, {DENSE: dense, SPARSE: sparse}, payload) for pid, dense, sparse, payload in points]
            )
        )

    def _write_stamp(self, pid: str, payload: dict[str, Any]) -> None:
        self._writing().update(qe.UpdateOperation.upsert_points([qe.Point(pid, {}, payload)]))

    def _delete_from(self, doc_id: str, first_index: int) -> None:
        must = [qe.FieldCondition(key="doc_id", match=qe.MatchValue(doc_id))]
        if first_index:
            must.append(qe.FieldCondition(key="chunk_index", range=qe.RangeFloat(gte=first_index)))
        self._writing().update(qe.UpdateOperation.delete_points_by_filter(qe.Filter(must=must)))

    def _request(self, plan: QueryPlan, k: int, flt: SearchFilter | None) -> qe.QueryRequest:
        f = _filter(flt)
        if plan.dense is not None and plan.sparse is not None:
            limit = prefetch_limit(k)
            return qe.QueryRequest(
                limit=k,
                prefetches=[
                    qe.Prefetch(limit=limit, query=qe.Query.Nearest(plan.dense, using=DENSE), filter=f),
                    qe.Prefetch(limit=limit, query=qe.Query.Nearest(plan.sparse, using=SPARSE), filter=f),
                ],
                query=qe.Fusion.Rrf(k=RRF_K),
                with_payload=self._hit_payload,
            )
        vector, using = (plan.dense, DENSE) if plan.dense is not None else (plan.sparse, SPARSE)
        return qe.QueryRequest(
            limit=k, query=qe.Query.Nearest(vector, using=using), filter=f, with_payload=self._hit_payload
        )

    def _query(self, plan: QueryPlan, k: int, flt: SearchFilter | None) -> list[tuple[float, dict[str, Any]]]:
        shard = self._reading()
        return [] if shard is None else [(p.score, p.payload) for p in shard.query(self._request(plan, k, flt))]

    def _query_batch(
        self, plans: list[QueryPlan], k: int, flt: SearchFilter | None
    ) -> list[list[tuple[float, dict[str, Any]]]]:
        shard = self._reading()
        if shard is None or not plans:
            return [[] for _ in plans]
        batch = qe.QueryBatchRequest([self._request(p, k, flt) for p in plans])
        return [[(p.score, p.payload) for p in res] for res in shard.query_batch(batch)]

    def _scroll(self, doc_id: str | None, first_chunk_only: bool, fields: list[str]) -> list[dict[str, Any]]:
        shard = self._reading()
        if shard is None:
            return []
        must = []
        if doc_id is not None:
            must.append(qe.FieldCondition(key="doc_id", match=qe.MatchValue(doc_id)))
        if first_chunk_only:
            must.append(qe.FieldCondition(key="chunk_index", match=qe.MatchValue(0)))
        f = qe.Filter(must=must) if must else None
        out: list[dict[str, Any]] = []
        offset = None
        while True:
            records, offset = shard.scroll(
                qe.ScrollRequest(offset=offset, limit=_PAGE, filter=f, with_payload=qe.PayloadSelector.Include(fields))
            )
            out.extend(r.payload or {} for r in records)
            if offset is None:
                return out

    def _retrieve(self, pid: str, fields: list[str]) -> dict[str, Any] | None:
        shard = self._reading()
        if shard is None:
            return None
        records = shard.retrieve([pid], with_payload=qe.PayloadSelector.Include(fields), with_vector=False)
        return records[0].payload if records else None

    def _facet(self, key: str) -> dict[str, int]:
        shard = self._reading()
        if shard is None:
            return {}
        first = qe.Filter(must=[qe.FieldCondition(key="chunk_index", match=qe.MatchValue(0))])
        response = shard.facet(qe.FacetRequest(key=key, limit=10_000, exact=True, filter=first))
        return {str(h.value): h.count for h in response}

    def _close_engine(self) -> None:
        if self._shard is not None:
            self._shard.flush()
            self._shard.close()


def _filter(flt: SearchFilter | None) -> qe.Filter | None:
    """The Edge filter of a SearchFilter: keyword matches, exclusions, and `effective <= as_of` (undated pass)."""
    if flt is None:
        return None
    must: list[Any] = []
    must_not: list[Any] = []
    for key, values in (("jurisdiction", flt.jurisdictions), ("status", flt.statuses), ("doc_id", flt.doc_ids)):
        if values:
            must.append(qe.FieldCondition(key=key, match=qe.MatchAny([getattr(v, "value", v) for v in values])))
    if flt.exclude_doc_ids:
        must_not.append(qe.FieldCondition(key="doc_id", match=qe.MatchAny(list(flt.exclude_doc_ids))))
    if flt.as_of is not None:
        must_not.append(qe.FieldCondition(key="effective", range=qe.RangeFloat(gt=date_key(flt.as_of))))
    if not must and not must_not:
        return None
    return qe.Filter(must=must or None, must_not=must_not or None)
