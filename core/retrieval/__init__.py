"""Corpus retrieval: Qdrant stores (embedded Qdrant Edge, or a Qdrant server), embedders, ingest, chunking.

Entry points (import them from their modules; this package imports nothing, so `models` stays cheap):
    registry.open_store(settings, collection=None) -> Store   one instance per shard/collection per process
    registry.close_all()                                      also registered with atexit
    ingest.ingest_paths(store, paths, defaults=None, settings=None, progress=None, replace=False, actor="local")
        -> IngestReport
    names.validate_collection(name) -> str                 the one check of collection names (CLI, service, stores)
    ingest.ensure_sample_corpus(store, settings=None, progress=None) -> IngestReport | None
    readers.read_file(path, defaults=None, chunk_words=180, overlap_words=30) -> list[ParsedDocument]
    corpus_format.parse_document_meta(mapping, source) -> DocumentMeta
    errors: IngestError, CorpusFormatError, StoreLockedError, StoreDamagedError, StoreUnavailableError,
            InvalidCollectionError, StoreClosedError (all RetrievalError)
"""
