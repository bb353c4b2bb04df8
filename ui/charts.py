"""Plotly figures of a session's cycles: score against the threshold, deficiencies by status and by type."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import plotly.graph_objects as go

from core.domain.records import EvaluationCycleRecord
from ui.frames import STATUSES, TYPES, label

STATUS_COLORS: dict[str, str] = {
    "open": "#d1495b",
    "addressed": "#edae49",
    "resolved": "#2a9d8f",
    "unresolvable": "#6a4c93",
    "dismissed": "#8d99ae",
}
_LAYOUT = {
    "height": 360,
    "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
    "legend": {"orientation": "h", "y": -0.28, "yanchor": "top"},
}


def _cycle_axis(history: Sequence[EvaluationCycleRecord]) -> dict[str, object]:
    """An x axis with one tick per cycle and half a cycle of room each side (never from -1)."""
    cycles = [r.cycle_number for r in history]
    return {"title": "cycle", "tickvals": cycles, "range": [min(cycles) - 0.5, max(cycles) + 0.5]}


def score_figure(history: Sequence[EvaluationCycleRecord], threshold: float) -> go.Figure:
    """Quality score per cycle with the stopping threshold as a dashed line."""
    cycles = [r.cycle_number for r in history]
    fig = go.Figure(
        go.Scatter(
            x=cycles,
            y=[r.overall_score for r in history],
            mode="lines+markers",
            name="score",
            line={"color": "#1d4e89", "width": 3},
            marker={"size": 9},
        )
    )
    fig.add_hline(
        y=threshold,
        line_dash="dash",
        line_color="#d1495b",
        annotation_text=f"threshold {threshold:.2f}",
        annotation_position="bottom right",
    )
    fig.update_layout(
        title="Quality score per cycle",
        xaxis=_cycle_axis(history),
        yaxis={"title": "score", "range": [0, 1.05]},
        showlegend=False,
        **_LAYOUT,
    )
    return fig


def status_figure(history: Sequence[EvaluationCycleRecord]) -> go.Figure | None:
    """Deficiencies by lifecycle status after each critique, stacked (None when no cycle has any)."""
    return _stacked("Deficiencies by status", history, lambda r: r.status_counts, STATUSES, STATUS_COLORS)


def type_figure(history: Sequence[EvaluationCycleRecord]) -> go.Figure | None:
    """Deficiencies by type after each critique, stacked (None when no cycle has any)."""
    return _stacked("Deficiencies by type", history, lambda r: r.type_counts, TYPES, {})


def _stacked(
    title: str,
    history: Sequence[EvaluationCycleRecord],
    counts: Callable[[EvaluationCycleRecord], Mapping[str, int]],
    keys: Sequence[str],
    colors: Mapping[str, str],
) -> go.Figure | None:
    cycles = [r.cycle_number for r in history]
    fig = go.Figure()
    for key in keys:
        values = [counts(r).get(key, 0) for r in history]
        if any(values):
            fig.add_trace(go.Bar(x=cycles, y=values, name=label(key), marker_color=colors.get(key)))
    if not fig.data:
        return None
    most = max(sum(counts(r).get(key, 0) for key in keys) for r in history)
    fig.update_layout(
        title=title,
        barmode="stack",
        xaxis=_cycle_axis(history),
        yaxis={"title": "deficiencies", "dtick": max(1, math.ceil(most / 8))},
        **_LAYOUT,
    )
    return fig
