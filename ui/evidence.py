"""Evidence on screen: the passage each claim quotes, with the quoted sentence in bold, and the document behind it
(title, status at the as-of date, effective dates, how it arrived and whether an analyst verified it).

Every passage, title and name is untrusted text: it is escaped (`md_escape`) before any Markdown of ours (the
bold around the quoted sentence) is put around it. The pages reach the corpus only through the service.
"""

from __future__ import annotations

import re
from datetime import date

import streamlit as st

from core.domain.answer import UNVERIFIED_MARK, Claim
from core.domain.records import Deficiency
from core.domain.safe_markdown import md_escape
from core.service import (
    Catalog,
    DocumentMeta,
    Passage,
    Provenance,
    RunResult,
    SessionStatus,
    Workbench,
    claim_id,
)
from ui import acts

ARRIVALS = {"bundled": "Bundled sample corpus", "path": "Ingested from a file", "upload": "Uploaded"}
LABEL_WORDS = 16


def highlighted(text: str, quote: str) -> tuple[str, bool]:
    """The passage as inert Markdown with the quoted sentence in bold (matched ignoring runs of whitespace), and
    whether the sentence was found in it."""
    words = quote.split()
    found = re.search(r"\s+".join(map(re.escape, words)), text) if words else None
    if found is None:
        return md_escape(text), False
    before, match, after = text[: found.start()], found.group(0), text[found.end() :]
    return f"{md_escape(before)}**{md_escape(match)}**{md_escape(after)}", True


def provenance_line(p: Provenance) -> str:
    """How the document arrived and who verified it, as inert Markdown."""
    parts = [ARRIVALS[p.kind]]
    if p.actor:
        parts.append(f"by {md_escape(p.actor)}")
    if p.at:
        parts.append(f"on {p.at.date().isoformat()}")
    if p.source and p.kind != "bundled":
        parts.append(f"({md_escape(p.source)})")
    line = " ".join(parts)
    if p.verified:
        who = f" by {md_escape(p.verified_by)}" if p.verified_by else ""
        when = f" on {p.verified_at.date().isoformat()}" if p.verified_at else ""
        return f"{line} · verified{who}{when}"
    return f"{line} · **not verified by an analyst**"


def document_line(doc: DocumentMeta, catalog: Catalog, as_of: date | None) -> str:
    """Title, status at the as-of date and effective dates of a document, as inert Markdown."""
    status = catalog.status_at(doc.id, as_of) if as_of and doc.id in catalog else doc.status
    dates = f"effective {doc.effective.isoformat()}" if doc.effective else "no effective date"
    if doc.applies_until:
        dates += f", applies until {doc.applies_until.isoformat()}"
    when = f"at {as_of.isoformat()}" if as_of else "declared"
    citation = f", {md_escape(doc.citation)}" if doc.citation else ""
    return (
        f"**{md_escape(doc.title)}**{citation}  \n{md_escape(doc.id)} · {status.value.replace('_', ' ')} {when} · "
        f"{dates}  \n{provenance_line(doc.provenance)}"
    )


def show_passage(passage: Passage | None, quote: str, catalog: Catalog, as_of: date | None) -> None:
    """One cited passage: its document, then its text with `quote` in bold."""
    if passage is None:
        st.warning("This passage is no longer in the corpus (its document was deleted or replaced).")
        return
    if passage.document is not None:
        st.markdown(document_line(passage.document, catalog, as_of))
    body, found = highlighted(passage.chunk.text, quote)
    with st.container(border=True):
        st.markdown(body)
    st.caption(f"Passage {md_escape(passage.chunk.chunk_id)}")
    if quote and not found:
        st.caption(f"Quoted sentence, not found verbatim in this passage: {md_escape(quote)}")


def show_metadata_source(doc: DocumentMeta | None, catalog: Catalog, as_of: date | None) -> None:
    """A source cited for what its metadata says (dates, successors), not for a passage."""
    if doc is None:
        st.warning("This document is no longer in the corpus.")
        return
    st.markdown(document_line(doc, catalog, as_of))
    st.caption("Cited for its metadata (dates, status, successors), not for a passage.")


def claim_label(claim: Claim, unverified: tuple[str, ...]) -> str:
    """An expander label: the claim's opening words, its sources and the unverified-upload mark."""
    words = claim.text.split()
    text = " ".join(words[:LABEL_WORDS]) + (" …" if len(words) > LABEL_WORDS else "")
    mark = f" {UNVERIFIED_MARK}" if claim.rests_on(unverified) else ""
    return md_escape(f"{text} [{', '.join(claim.doc_ids)}]{mark}")


def claim_evidence(wb: Workbench, result: RunResult) -> None:
    """One expander per claim of the answer; expanded, it shows each passage the claim quotes, and (once the run
    has finished) a form to strike the claim from the answer."""
    answer = result.answer
    claims = [(code, c) for code, c in answer.claims() if c.citations] if answer is not None else []
    if not claims:
        st.caption("The answer quotes no passage.")
        return
    catalog = wb.catalog()
    passages = wb.passages(q.chunk_id for _, c in claims for q in c.citations if q.chunk_id)
    for n, (code, claim) in enumerate(claims):
        with st.expander(claim_label(claim, answer.unverified_doc_ids), key=f"evidence-{result.thread_id}-{n}"):  # type: ignore[union-attr]
            for quote in claim.citations:
                if not quote.chunk_id:  # a statement drawn from the document's metadata (e.g. its dates)
                    show_metadata_source(catalog.get(quote.doc_id), catalog, result.as_of)
                    continue
                show_passage(passages[quote.chunk_id], quote.quote, catalog, result.as_of)
            if result.status == SessionStatus.completed:
                acts.strike_form(wb, result, claim_id(code, claim))


def deficiency_evidence(wb: Workbench, result: RunResult, deficiency: Deficiency) -> None:
    """For a review card: the flagged claim (`affected_text`) and, per document in `evidence_doc_ids`, the
    passages it quotes from that document (else the passages the answer quotes from it), the quoted sentence in
    bold; for a document the answer does not quote, its passage closest to the flagged claim."""
    if deficiency.affected_text:
        st.markdown(f"**Flagged claim:** {md_escape(deficiency.affected_text)}")
    if not deficiency.evidence_doc_ids:
        st.caption("The critic named no document as evidence.")
        return
    catalog = wb.catalog()
    claims = [c for _, c in result.answer.claims()] if result.answer is not None else []
    flagged = [c for c in claims if deficiency.affected_text and c.text in deficiency.affected_text]
    quoted = {
        doc_id: [q for c in flagged for q in c.citations if q.doc_id == doc_id and q.chunk_id]
        or [q for c in claims for q in c.citations if q.doc_id == doc_id and q.chunk_id]
        for doc_id in deficiency.evidence_doc_ids
    }
    passages = wb.passages(q.chunk_id for quotes in quoted.values() for q in quotes)
    for doc_id, quotes in quoted.items():
        if quotes:
            for q in {q.chunk_id: q for q in reversed(quotes)}.values():  # the first quote of each passage
                show_passage(passages[q.chunk_id], q.quote, catalog, result.as_of)
            continue
        chunks = wb.document_chunks(doc_id)
        if not chunks:
            st.warning(f"{md_escape(doc_id)} is not in the corpus.")
            continue
        wanted = _words(deficiency.affected_text or deficiency.description)
        best = max(chunks, key=lambda c: len(wanted & _words(c.text)))
        show_passage(Passage(chunk=best, document=catalog.get(doc_id)), "", catalog, result.as_of)


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))
