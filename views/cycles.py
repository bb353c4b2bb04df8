"""Cycles: how the answer moved from cycle to cycle, from the session's audit records and its per-cycle timings,
against the threshold the session started with (its settings snapshot)."""

import pandas as pd
import streamlit as st

from core.domain.safe_markdown import md_escape
from core.service import SessionStatus
from ui import shared
from ui.charts import score_figure, status_figure, type_figure
from ui.diffs import ADDED, CHANGED, REMOVED, cycle_claim_diff
from ui.frames import cycle_frame, label
from ui.outcome import outcome_markdown
from ui.tables import WRAP_ROW_HEIGHT, decision_frame

CHANGE_BADGES = {ADDED: ":green-badge[added]", REMOVED: ":red-badge[removed]", CHANGED: ":orange-badge[changed]"}

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
    finished = result.status == SessionStatus.completed
    st.info(outcome_markdown(result.outcome), icon=":material/flag:" if finished else ":material/pending:")

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
    if len(history) == 1:
        only = history[0]
        counts = ", ".join(f"{n} {label(k)}" for k, n in only.status_counts.items() if n) or "none"
        st.markdown(
            f"This session has one critiqued cycle (cycle {only.cycle_number}): its answer scored "
            f"**{only.overall_score:.2f}** against the threshold of {threshold:.2f}, with "
            f"{len(only.deficiencies_found)} deficiencies found (by status: {counts}). Charts and the answer's "
            "changes need a second cycle to compare with."
        )
    else:
        st.plotly_chart(score_figure(history, threshold), key="score-chart")
        by_status, by_type = status_figure(history), type_figure(history)
        if by_status is None or by_type is None:
            st.caption("No cycle of this session found a deficiency, so there is nothing to chart by status or type.")
        else:
            status_col, type_col = st.columns(2)
            status_col.plotly_chart(by_status, key="status-chart")
            type_col.plotly_chart(by_type, key="type-chart")

    st.markdown("#### Cycle records")
    st.dataframe(
        cycle_frame(history, node_seconds),
        hide_index=True,
        row_height=WRAP_ROW_HEIGHT,
        column_config={
            "score": st.column_config.NumberColumn(format="%.2f"),
            "decisions": st.column_config.TextColumn(width="medium"),
        },
    )
    decisions = decision_frame(history, result.identified_deficiencies)
    if not decisions.empty:
        st.markdown("#### Review decisions")
        st.dataframe(
            decisions,
            hide_index=True,
            row_height=WRAP_ROW_HEIGHT,
            column_config={
                "deficiency": st.column_config.TextColumn(width="large"),
                "note": st.column_config.TextColumn(width="large"),
            },
        )
    if node_seconds:
        st.markdown("#### Seconds per step and cycle")
        st.caption(
            "A step counts towards the cycle whose critique follows it; the steps after the last critique "
            "count towards that cycle."
        )
        st.dataframe(pd.DataFrame.from_dict(node_seconds, orient="index").rename_axis("cycle").round(3).fillna(0))

    if len(history) > 1:
        st.markdown("#### Answer changes between cycles")
        cycles = [r.cycle_number for r in history]
        before_col, after_col = st.columns(2)
        before = before_col.selectbox("From cycle", cycles, index=0)
        after = after_col.selectbox("To cycle", cycles, index=len(cycles) - 1)
        changes = cycle_claim_diff(history, before, after) if before != after else []
        if before == after:
            st.caption("Pick two different cycles to compare.")
        elif not changes:
            st.caption(f"The answer did not change between cycle {before} and cycle {after}.")
        else:
            summary = {kind: sum(c.change == kind for c in changes) for kind in CHANGE_BADGES}
            st.caption(", ".join(f"{n} claim(s) {kind}" for kind, n in summary.items() if n) + ".")
            head = st.columns([1, 5, 5])
            head[1].markdown(f"**Cycle {before}**")
            head[2].markdown(f"**Cycle {after}**")
            for change in changes:
                with st.container(border=True):
                    kind, old, new = st.columns([1, 5, 5])
                    kind.markdown(CHANGE_BADGES[change.change])
                    old.markdown(f":red[{md_escape(change.before)}]" if change.before else "—")
                    new.markdown(f":green[{md_escape(change.after)}]" if change.after else "—")
