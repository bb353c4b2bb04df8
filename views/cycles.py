"""Cycles: how the answer moved from cycle to cycle, from the session's audit records and its per-cycle timings,
against the threshold the session started with (its settings snapshot)."""

import pandas as pd
import streamlit as st

from core.safe_markdown import md_escape
from ui import shared
from ui.charts import score_figure, status_figure, type_figure
from ui.frames import answer_diff, cycle_frame, status_line

wb = shared.workbench()
result = shared.current_result(wb)

st.title("Cycles")

if result is None:
    shared.no_session_hint()
elif not result.evaluation_history:
    st.info("No cycle has been critiqued yet in this session.")
else:
    history = result.evaluation_history
    node_seconds = result.metrics.get("node_seconds", {})
    if result.status == "completed":
        st.info(f"**Why the loop stopped:** {md_escape(result.termination_text)}", icon=":material/flag:")
    else:
        st.info(f"The loop is not finished: {status_line(result)}.", icon=":material/pending:")

    if result.settings is not None:
        threshold = result.settings.quality_threshold
        with st.expander("Settings this session started with"):
            st.table(pd.DataFrame(result.settings.rows(), columns=["setting", "value"]).set_index("setting"))
    else:
        threshold = wb.settings.quality_threshold
        st.caption(
            f"This session started before its settings were kept with it: the threshold line shows today's "
            f"setting ({threshold:.2f}), which may differ from the one the session ran under."
        )
    st.plotly_chart(score_figure(history, threshold), key="score-chart")
    by_status, by_type = st.columns(2)
    by_status.plotly_chart(status_figure(history), key="status-chart")
    by_type.plotly_chart(type_figure(history), key="type-chart")

    st.markdown("#### Cycle records")
    st.dataframe(
        cycle_frame(history, node_seconds),
        hide_index=True,
        column_config={"score": st.column_config.NumberColumn(format="%.2f")},
    )
    if node_seconds:
        st.markdown("#### Seconds per step and cycle")
        st.caption(
            "A step counts towards the cycle whose critique follows it; the steps after the last critique "
            "count towards that cycle."
        )
        st.dataframe(pd.DataFrame.from_dict(node_seconds, orient="index").rename_axis("cycle").round(3).fillna(0))

    st.markdown("#### Answer changes between cycles")
    cycles = [r.cycle_number for r in history]
    before_col, after_col = st.columns(2)
    before = before_col.selectbox("From cycle", cycles, index=0)
    after = after_col.selectbox("To cycle", cycles, index=len(cycles) - 1)
    diff = answer_diff(history, before, after)
    if diff:
        st.code(diff, language="diff", wrap_lines=True)
    else:
        st.caption(f"The answer critiqued in cycle {before} and in cycle {after} is the same.")
