"""Corpus: the indexed documents (each one's full text, provenance, verification and, for uploads, deletion), a
search box, and uploads with metadata for files without front matter."""

from collections.abc import Callable
from datetime import date

import pandas as pd
import streamlit as st

from core.domain.safe_markdown import md_escape
from core.service import SEARCH_MODES, SINGLE_USER, UPLOAD_TYPES, Catalog, DocStatus, DocumentAccessError
from ui import evidence, live, shared
from ui.frames import (
    JURISDICTION_HELP,
    frame_records,
    jurisdiction_hints,
    label,
    needs_metadata,
    upload_defaults,
    with_iso_codes,
)
from ui.tables import FLAG_COLORS, FLAGS, WRAP_ROW_HEIGHT, document_frame, flag_label, grid_height, hit_heading

DOC_STATUSES = [s.value for s in DocStatus]
SNIPPET_CHARS = 600
DOCUMENT_COLUMNS = {
    "id": st.column_config.TextColumn("ID", width=170, pinned=True),
    "title": st.column_config.TextColumn("Title", width=300),
    "flags": st.column_config.MultiselectColumn(
        "Flags",
        options=FLAGS,
        color=list(FLAG_COLORS.values()),
        format_func=flag_label,
        width=130,
        help="A status to beware of today (erroneous, proposed, superseded, repealed) and uploads nobody verified",
    ),
    "status today": st.column_config.TextColumn("Status today", width=110),
    "verified": st.column_config.TextColumn("Verified", width=130),
    "source": st.column_config.TextColumn("Source", width=170),
    "topics": st.column_config.TextColumn("Topics", width="medium"),
}
DOCUMENT_GRID_HEIGHT = 760
"""About ten wrapped rows before the list scrolls."""

wb = shared.workbench()


def documents_tab(catalog: Catalog, jurisdictions: list[str]) -> None:
    """The document table with its provenance (flags, verification, source) and filters; the rows ticked in
    it are verified at once."""
    documents = catalog.all()
    text_col, jur_col, status_col, flag_col = st.columns([2, 1, 1, 1], vertical_alignment="bottom")
    contains = text_col.text_input("Filter by id or title", placeholder="e.g. AMLR")
    wanted_jurisdictions = jur_col.multiselect("Jurisdiction", jurisdictions)
    wanted_statuses = status_col.multiselect("Status today", [label(s) for s in DOC_STATUSES])
    flagged_only = flag_col.toggle(
        "Only flagged",
        help="Documents with text addressed to a model, erroneous, proposed, superseded or repealed documents and "
        "unverified uploads",
    )
    table = document_frame(documents, {d.id: catalog.status_at(d.id, date.today()).value for d in documents})
    if contains:
        needle = contains.lower()
        table = table[
            table["id"].str.lower().str.contains(needle, regex=False)
            | table["title"].str.lower().str.contains(needle, regex=False)
        ]
    if wanted_jurisdictions:
        table = table[table["jurisdiction"].isin(wanted_jurisdictions)]
    if wanted_statuses:
        table = table[table["status today"].isin(wanted_statuses)]
    if flagged_only:
        table = table[table["flags"].map(bool)]
    picked = st.dataframe(
        table,
        hide_index=True,
        column_config=DOCUMENT_COLUMNS,
        on_select="rerun",
        selection_mode="multi-row",
        key="corpus-table",
        row_height=WRAP_ROW_HEIGHT,
        height=grid_height(len(table), cap=DOCUMENT_GRID_HEIGHT),
    )
    st.caption(
        f"{len(table)} of {len(documents)} documents. 'Status today' applies the documents' dates and "
        "successors to today's date; a session judges them at its own as-of date. Tick rows to verify "
        "several documents at once."
    )
    chosen = [table.iloc[i]["id"] for i in picked.selection.rows if i < len(table)]
    unverified = [i for i in chosen if not catalog.get(i).provenance.verified]  # type: ignore[union-attr]
    if unverified:
        user = shared.user_id()
        if st.button(f"Mark {len(unverified)} selected document(s) verified", icon=":material/verified:"):
            act(lambda: wb.verify_documents(unverified, user), f"{', '.join(unverified)}: marked verified by {user}.")
    document_view(catalog, list(table["id"]))


def document_view(catalog: Catalog, ids: list[str]) -> None:
    """One document: its facts and provenance, verification, deletion of an upload, and its full text."""
    for kind, message in st.session_state.pop("document-messages", []):
        getattr(st, kind)(message)
    doc_id = st.selectbox(
        "Read a document",
        ids,
        index=None,
        placeholder="Choose a document to read its full text",
        format_func=lambda i: f"{i} — {catalog.get(i).title}" if catalog.get(i) else i,  # type: ignore[union-attr]
        key="corpus-document",
    )
    doc = catalog.get(doc_id) if doc_id else None
    if doc is None:
        return
    user = shared.user_id()
    st.markdown(evidence.document_line(doc, catalog, date.today()))
    actions = st.container(horizontal=True)
    if not doc.provenance.verified and actions.button("Mark verified", icon=":material/verified:"):
        who = shared.reviewer()
        act(lambda: wb.verify_document(doc.id, user, actor=who), f"{doc.id} is marked verified by {who}.")
    if doc.provenance.kind == "upload" and (user == SINGLE_USER or doc.provenance.actor == user):
        sure = actions.checkbox("Confirm deletion", key=f"confirm-delete-{doc.id}")
        if actions.button("Delete this upload", icon=":material/delete:", disabled=not sure):
            act(lambda: wb.delete_document(doc.id, user), f"{doc.id} is deleted from the corpus.")
    chunks = wb.document_chunks(doc.id)
    instructed = wb.instructed_passages(doc.id)
    if instructed:
        st.warning(
            f"This document contains text addressed to a model or reader ({', '.join(instructed)}): the engines "
            "never use such sentences as claims. Check the source before relying on it.",
            icon=":material/gpp_maybe:",
        )
    st.caption(f"Full text: {len(chunks)} passage(s)")
    with st.container(height=480, border=True):
        for chunk in chunks:
            st.caption(
                f"Passage {md_escape(chunk.chunk_id)}" + (f" · {md_escape(chunk.heading)}" if chunk.heading else "")
            )
            st.markdown(md_escape(chunk.text))


def act(change: Callable[[], object], done: str) -> None:
    """Run a document change, keep its outcome for the next run (escaped), and rerun."""
    try:
        change()
        message = ("success", md_escape(done))
    except DocumentAccessError as exc:
        message = ("error", md_escape(str(exc)))
    st.session_state["document-messages"] = [message]
    st.rerun()


def search_tab(catalog: Catalog, jurisdictions: list[str]) -> None:
    """A hybrid (or dense / BM25) search over the passages, each hit with badges for a status to beware of and
    an unverified upload."""
    with st.form("corpus-search"):
        query_col, k_col, mode_col = st.columns([4, 1, 1])
        query = query_col.text_input("Search the corpus", placeholder="beneficial ownership threshold")
        k = k_col.number_input("Results", min_value=1, max_value=30, value=8)
        mode = mode_col.selectbox("Mode", SEARCH_MODES)
        in_jurisdictions = st.multiselect("Only in jurisdictions", jurisdictions)
        searched = st.form_submit_button("Search", icon=":material/search:")
    if searched and query.strip():
        st.session_state["corpus-hits"] = (query, wb.search(query, k=int(k), jurisdictions=in_jurisdictions, mode=mode))
    if "corpus-hits" in st.session_state:
        shown_query, hits = st.session_state["corpus-hits"]
        st.caption(f"{len(hits)} passage(s) for “{md_escape(shown_query)}”")
        for hit in hits:
            with st.container(border=True):
                passage = f" · passage {md_escape(hit.passage_id)}" if hit.passage_id is not None else ""
                doc = catalog.get(hit.doc_id)
                st.markdown(
                    f"{hit_heading(hit.title, hit.status, doc.provenance if doc else None)}  \n"
                    f"{md_escape(hit.chunk_id)}{passage} · {md_escape(hit.jurisdiction)} · "
                    f"{label(hit.status)} · score {hit.score:.3f}"
                )
                if hit.metadata:
                    st.caption(" · ".join(f"{md_escape(str(k))}: {md_escape(str(v))}" for k, v in hit.metadata.items()))
                text = hit.text if len(hit.text) <= SNIPPET_CHARS else hit.text[:SNIPPET_CHARS] + "…"
                st.markdown(md_escape(text))


def upload_tab() -> None:
    """Upload files, give metadata to those without front matter, ingest with progress and per-file errors."""
    for kind, message in st.session_state.pop("ingest-messages", []):
        getattr(st, kind)(message)
    st.caption(
        "Markdown with YAML front matter carries its own metadata (id, title, jurisdiction, status, dates, "
        "thresholds; see docs/corpus.md). Files without it (.txt, .pdf, plain .md) need at least a jurisdiction "
        "below. A document id that is already indexed with other content is refused unless 'Replace "
        "existing documents' is ticked. Every upload is recorded with your user id and the time, and stays "
        "unverified (claims resting only on it are marked in answers) until an analyst marks it verified."
    )
    generation = st.session_state.get("upload-generation", 0)
    files = st.file_uploader(
        "Documents",
        type=list(UPLOAD_TYPES),
        accept_multiple_files=True,
        max_upload_size=wb.settings.max_upload_mb,
        key=f"upload-{generation}",
    )
    if not files:
        return
    bare = [f for f in files if needs_metadata(f.name, f.getvalue())]
    defaults: dict[str, dict] = {}
    if bare:
        st.markdown("**Metadata for files without front matter**")
        blank = pd.DataFrame(
            {
                "file": [f.name for f in bare],
                "jurisdiction": "",
                "title": "",
                "status": DocStatus.in_force.value,
                "effective": pd.Series([pd.NaT] * len(bare), dtype="datetime64[ns]"),
            }
        )
        meta = st.data_editor(
            blank,
            key=f"upload-meta-{generation}",
            hide_index=True,
            disabled=["file"],
            column_config={
                "file": st.column_config.TextColumn("File"),
                "jurisdiction": st.column_config.TextColumn("Jurisdiction", required=True, help=JURISDICTION_HELP),
                "title": st.column_config.TextColumn("Title", help="Defaults to the first heading or the file name"),
                "status": st.column_config.SelectboxColumn("Status", options=DOC_STATUSES, required=True),
                "effective": st.column_config.DateColumn("Effective", format="YYYY-MM-DD"),
            },
        )
        typed = {row["file"]: upload_defaults(row) for row in frame_records(meta)}
        for hint in jurisdiction_hints(typed):
            st.caption(md_escape(hint))
        defaults = with_iso_codes(typed)
    missing = [name for name, d in defaults.items() if not d.get("jurisdiction")]
    if missing:
        st.caption("Still needs a jurisdiction: " + ", ".join(md_escape(m) for m in missing))
    replace = st.checkbox(
        "Replace existing documents",
        key=f"upload-replace-{generation}",
        help="Overwrite documents whose id is already indexed with other content",
    )
    if st.button(f"Ingest {len(files)} file(s)", type="primary", icon=":material/upload:", disabled=bool(missing)):
        bar = live.LiveBar("Indexing…")
        report = wb.ingest_uploads(
            [(f.name, f.getvalue(), defaults.get(f.name, {})) for f in files],
            progress=bar,
            replace=replace,
            user_id=shared.user_id(),
            actor=shared.reviewer(),
        )
        messages = [("success", report.summary())] if report.succeeded else []
        messages += [("error", md_escape(r.error or "")) for r in report.failed]
        st.session_state["ingest-messages"] = messages
        st.session_state["upload-generation"] = generation + 1
        bar.finish()
        st.rerun()


catalog = wb.catalog()
stats = wb.corpus_stats()
jurisdictions = stats.jurisdictions

st.title("Corpus")
docs_col, passages_col, jur_col = st.columns(3)
docs_col.metric("Documents", stats.documents)
passages_col.metric("Passages", stats.passages)
jur_col.metric("Jurisdictions", len(jurisdictions))

browse, search, upload = st.tabs(["Documents", "Search", "Add documents"], key="corpus-tab", on_change="rerun")
if browse.open:
    with browse:
        documents_tab(catalog, jurisdictions)
if search.open:
    with search:
        search_tab(catalog, jurisdictions)
if upload.open:
    with upload:
        upload_tab()
