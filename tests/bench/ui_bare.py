"""The UI benchmark's bare pages (tests/bench/ui.py): each page's widgets filled with literals, so they do no data
work, in an app with the same navigation and sidebar."""

from __future__ import annotations

BARE_APP = """
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from datetime import date

st.set_page_config(page_title="bare", layout="wide")

def body():
{body}

page = st.navigation([st.Page(body, title="Bare", default=True), st.Page(lambda: None, title="Other", url_path="o")])
with st.sidebar:
    st.markdown("Engine: **offline**")
    st.markdown("Corpus: **19** documents · 68 passages")
    st.markdown("Session `x` :green-badge[completed]")
    st.caption("question")
    st.button("New question")
    st.divider()
    st.text_input("Your name", value="analyst", key="reviewer")
    st.caption("Single-user mode")
page.run()
"""

QUESTION_FORM = """
    st.title("Research")
    with st.expander("New research question"):
        with st.form("ask"):
            st.text_area("Question")
            a, b, c = st.columns(3)
            a.date_input("As of", value=date(2026, 11, 30))
            b.number_input("Max", 0, 50, 4)
            c.selectbox("Approval", ["manual", "all"])
            st.form_submit_button("Run")
    st.subheader("question")
    st.markdown(":orange-badge[status] · session `x`")
    cols = st.columns(4)
    for col in cols:
        col.metric("m", "1")
"""


def bare_body(page: str, paused: bool, counts: dict[str, int]) -> str:
    """The page's widgets with literal content (indented as a function body)."""
    if page == "research" and paused:
        return (
            QUESTION_FORM
            + f"""
    queue, draft = st.columns([3, 2])
    with draft:
        st.markdown("**Draft**")
        with st.container(height=640, border=True):
            st.markdown("answer")
    with queue:
        st.info("paused")
        with st.form("review"):
            for i in range({counts["proposals"]}):
                with st.container(border=True):
                    st.markdown(":red-badge[high] **type** · subject")
                    st.markdown("description")
                    st.caption("id")
                    st.radio("Decision", ["a", "e", "r"], horizontal=True, key=f"a{{i}}")
                    st.text_area("Correction query", value="q", height=68, key=f"q{{i}}")
                    st.text_input("Note", key=f"n{{i}}")
            x, y, z = st.columns(3)
            x.form_submit_button("Submit")
            y.form_submit_button("Approve all")
            z.form_submit_button("Stop")
"""
        )
    if page == "research":
        return (
            QUESTION_FORM
            + f"""
    st.info("why")
    with st.container(border=True):
        st.error("residual")
        for i in range({counts["residual"]}):
            st.markdown(":red-badge[high] **type** (status): description")
    st.markdown("#### Answer")
    with st.container(border=True):
        st.markdown("answer")
    st.markdown("#### Citations")
    st.dataframe(pd.DataFrame(columns=["document", "title", "jurisdiction", "status", "effective", "citation"]))
    st.caption("stale")
"""
        )
    board_head = """
    st.title("Deficiency board")
    for col in st.columns(5):
        col.metric("status", 1)
    frame = pd.DataFrame(columns=["id", "type", "subject", "description", "severity", "status", "attempts",
                                  "correction query", "origin", "first seen", "note", "accepted risk"])
"""
    if page == "deficiencies" and paused:
        return (
            board_head
            + """
    st.info("paused")
    st.data_editor(frame, key="board", num_rows="add", hide_index=True, height=560)
    a, b = st.columns([1, 4])
    b.button("Discard edits")
    a.button("Resume with these edits")
"""
        )
    if page == "deficiencies":
        return (
            board_head
            + """
    st.caption("finished")
    with st.form("annotate"):
        st.data_editor(frame, key="board", hide_index=True, height=560)
        a, b = st.columns(2)
        a.text_input("Editor", value="analyst")
        b.text_input("Reason")
        st.form_submit_button("Save annotations")
"""
        )
    if page == "cycles":
        return """
    st.title("Cycles")
    st.info("why")
    st.plotly_chart(go.Figure(), key="score-chart")
    a, b = st.columns(2)
    a.plotly_chart(go.Figure(), key="status-chart")
    b.plotly_chart(go.Figure(), key="type-chart")
    st.markdown("#### Cycle records")
    st.dataframe(pd.DataFrame(columns=["cycle", "score"]), hide_index=True)
    st.markdown("#### Answer changes between cycles")
    a, b = st.columns(2)
    a.selectbox("From cycle", [0, 1])
    b.selectbox("To cycle", [0, 1], index=1)
    st.code("diff", language="diff", wrap_lines=True)
"""
    if page == "export":
        return """
    st.title("Export")
    st.success("audit")
    st.caption("formats")
    a, b, c = st.columns(3)
    a.download_button("Markdown", b"md", file_name="x.md", on_click="ignore")
    b.download_button("JSON", lambda: b"{}", file_name="x.json", on_click="ignore")
    c.download_button("Word (DOCX)", lambda: b"", file_name="x.docx", on_click="ignore")
    st.markdown("#### Preview")
    with st.container(border=True, height=720):
        st.markdown("export")
"""
    if page == "corpus":
        return """
    st.title("Corpus")
    for col in st.columns(3):
        col.metric("n", 1)
    browse, search, upload = st.tabs(["Documents", "Search", "Add documents"])
    with browse:
        a, b, c = st.columns([2, 1, 1])
        a.text_input("Filter")
        b.multiselect("Jurisdiction", ["EU"])
        c.multiselect("Status", ["in force"])
        st.dataframe(pd.DataFrame(columns=["id", "title", "jurisdiction"]), hide_index=True)
        st.caption("n of n")
    with search:
        with st.form("corpus-search"):
            a, b, c = st.columns([4, 1, 1])
            a.text_input("Search the corpus")
            b.number_input("Results", 1, 30, 8)
            c.selectbox("Mode", ["hybrid"])
            st.multiselect("Only in jurisdictions", ["EU"])
            st.form_submit_button("Search")
    with upload:
        st.caption("formats")
        st.file_uploader("Documents", accept_multiple_files=True)
"""
    return """
    st.title("Sessions")
    st.dataframe(pd.DataFrame(columns=["question", "status", "score"]), hide_index=True)
    st.selectbox("Session", ["a", "b"])
    a, b, c = st.columns(3, border=True)
    with a:
        st.markdown("**Open**")
        st.caption("open")
        st.button("Open session")
    with b:
        st.markdown("**Branch**")
        st.selectbox("Cycle", [0, 1])
        st.button("Branch")
    with c:
        st.markdown("**Delete**")
        st.caption("delete")
        st.button("Delete…")
"""
