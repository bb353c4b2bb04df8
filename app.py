"""Compliance Research Workbench: page setup, sign-in, the shared sidebar and the navigation over the pages."""

from pathlib import Path

import streamlit as st

from ui import shared

ICON = Path(__file__).parent / "ui" / "static" / "icon.png"
"""The tab icon, bundled: a `:material/...:` page icon is fetched from fonts.gstatic.com, which an air-gapped
browser cannot reach (the in-page Material icons come with Streamlit's own font)."""

st.set_page_config(page_title="Compliance Research Workbench", page_icon=str(ICON), layout="wide")

shared.new_rerun()
user = shared.require_user()
wb = shared.workbench()
shared.ensure_corpus(wb)
shared.sync_session(wb, user)

page = st.navigation(
    [
        st.Page("views/research.py", title="Research", icon=":material/travel_explore:", default=True),
        st.Page("views/inbox.py", title="Inbox", icon=":material/inbox:"),
        st.Page("views/deficiencies.py", title="Deficiencies", icon=":material/rule:"),
        st.Page("views/cycles.py", title="Cycles", icon=":material/monitoring:"),
        st.Page("views/export.py", title="Export", icon=":material/download:"),
        st.Page("views/corpus.py", title="Corpus", icon=":material/library_books:"),
        st.Page("views/sessions.py", title="Sessions", icon=":material/history:"),
    ]
)
shared.sidebar(wb, shared.current_result(wb))
shared.show_flash()
page.run()
