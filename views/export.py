"""Export: the answer with its residual deficiencies, citations, human acts and audit check (cycle records and human
acts in one chain), as Markdown, JSON or Word."""

import streamlit as st

from core.domain.audit import chain_head, verify_chain
from core.domain.safe_markdown import md_escape
from core.service import SessionStatus
from ui import shared
from ui.outcome import outcome_markdown

MIME = {
    "md": "text/markdown",
    "json": "application/json",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}

wb = shared.workbench()
result = shared.current_result(wb)

st.title("Export")

if result is None:
    shared.no_session_hint()
else:
    tid = result.thread_id
    ok, message = verify_chain(result.audit_records)
    if ok:
        st.success(f"Audit chain intact: {md_escape(message)}.", icon=":material/verified_user:")
        st.caption(f"Chain head: `{chain_head(result.audit_records) or 'none'}`")
    else:
        st.error(f"Audit chain broken: {md_escape(message)}. The export says so too.", icon=":material/gpp_bad:")
    if result.status != SessionStatus.completed:
        st.warning("This session has not finished: the export is provisional and says so.", icon=":material/pending:")

    st.markdown(outcome_markdown(result.outcome))
    st.caption(
        "Every format carries the answer, its citations, the cycle records, every human act (who, when, what "
        "changed, why), the settings the session started with, the termination reason, the struck claims and the "
        "residual deficiencies counted above."
    )
    who = shared.reviewer()
    markdown = wb.export_result(result, "md", exported_by=who)
    downloads = (
        ("Markdown", "md", markdown, ":material/description:"),
        ("JSON", "json", lambda: wb.export_result(result, "json", exported_by=who), ":material/data_object:"),
        ("Word (DOCX)", "docx", lambda: wb.export_result(result, "docx", exported_by=who), ":material/article:"),
    )
    for col, (title, fmt, data, icon) in zip(st.columns(3), downloads):
        col.download_button(
            title,
            data,
            file_name=f"workbench-{tid}.{fmt}",
            mime=MIME[fmt],
            icon=icon,
            on_click="ignore",
            width="stretch",
        )

    st.markdown("#### Preview")
    with st.container(border=True, height=720):  # the export escapes every untrusted text it embeds
        st.markdown(markdown.decode("utf-8"))
