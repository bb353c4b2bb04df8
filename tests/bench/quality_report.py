"""The quality benchmark's report (tests/bench/quality.py): the targets, the tables, the block of docs/benchmarks.md
and the chart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.domain.plan import MAX_WORDS, WORDS_PER_ITEM
from core.evaluation.scores import EvalReport
from tests.bench.doc_blocks import markers, replace_block

ORDER = ("single", "retry", "loop")
LABELS = {"single": "single pass", "retry": "naive retry", "loop": "stateful loop"}
START, END = markers("quality")


# ------------------------------------------------------------------------------------------------ targets


def targets(reports: dict[str, EvalReport]) -> list[tuple[str, bool, str]]:
    """The issue's three targets: (name, passed, evidence)."""
    t = {k: r.summary()["total"] for k, r in reports.items()}
    loop, single, retry = t["loop"], t["single"], t["retry"]
    out = []
    limit = single["residual_severity"] / 2
    out.append(
        (
            "loop residual severity <= 1/2 of single pass",
            loop["residual_severity"] <= limit + 1e-9,
            f"{loop['residual_severity']:.2f} vs limit {limit:.2f} (single {single['residual_severity']:.2f})",
        )
    )
    out.append(
        (
            "loop leaves less residual severity than both baselines",
            loop["residual_severity"] < single["residual_severity"]
            and loop["residual_severity"] < retry["residual_severity"],
            f"{loop['residual_severity']:.2f} vs single {single['residual_severity']:.2f}, "
            f"retry {retry['residual_severity']:.2f}",
        )
    )
    out.append(
        (
            "loop covers more expected facts than both baselines",
            loop["facts_found"] > single["facts_found"] and loop["facts_found"] > retry["facts_found"],
            f"{int(loop['facts_found'])} vs single {int(single['facts_found'])}, retry {int(retry['facts_found'])} "
            f"(of {int(loop['facts_expected'])})",
        )
    )
    out.append(
        (
            "loop uses no more retrieval calls than naive retry",
            loop["retrievals"] <= retry["retrievals"],
            f"{int(loop['retrievals'])} vs retry {int(retry['retrievals'])}",
        )
    )
    rows = reports["loop"].rows
    cover = reports["loop"].summary()["fact_coverage_overall"]
    out.append(
        (
            "loop covers at least 85% of the expected facts",
            cover is not None and cover >= 0.85 - 1e-9,
            f"{cover:.1%}" if cover is not None else "no expected facts",
        )
    )
    certified = [r.label for r in rows if r.certified_incomplete]
    out.append(
        (
            "no question certified incomplete (ended at the threshold or with nothing open, an item unanswered)",
            not certified,
            ", ".join(certified) or "none",
        )
    )
    broken = [r.label for r in rows if r.duplicate_sentences or r.cut_sentences]
    out.append(("no duplicate or cut sentence", not broken, ", ".join(broken) or "none"))
    wordy = max((r.words_per_item or 0.0 for r in rows), default=0.0)
    out.append(
        (
            f"words per plan item at most {WORDS_PER_ITEM} on every question",
            wordy <= WORDS_PER_ITEM,
            f"largest {wordy:.0f}",
        )
    )
    long = [f"{r.label} ({r.answer_words}/{r.word_budget})" for r in rows if r.over_budget]
    out.append(
        (
            f"no answer over its word budget ({WORDS_PER_ITEM} per item, at most {MAX_WORDS} for up to three "
            "jurisdictions)",
            not long,
            ", ".join(long) or f"longest {max((r.answer_words for r in rows), default=0)} words",
        )
    )
    measured = [r for r in rows if r.fact_words is not None]
    tight = [f"{r.label} ({r.fact_words}/{r.word_budget})" for r in measured if r.fact_words > r.word_budget]
    out.append(
        (
            "the claims that carry the facts found fit the word budget (the rest is sentence ranking's to drop)",
            not tight,
            ", ".join(tight)
            or f"{sum(r.fact_words for r in measured)} of {sum(r.answer_words for r in measured)} words carry them",
        )
    )
    false = [
        f"{r.label} ({r.false_residuals}{', incl. the yes/no on its facts left to the analyst' if r.facts_verdict_left else ''})"
        for r in rows
        if r.false_residuals
    ]
    complete = sum(1 for r in rows if r.false_residuals is not None)
    out.append(
        (
            "no false residual on the questions whose complete answer is in the corpus",
            not false,
            ", ".join(false) or f"none on {complete} complete question(s)",
        )
    )
    wrong = [f"{r.label} (said {r.verdicts or 'nothing'})" for r in rows if r.wrong_verdicts]
    asked = sum(1 for r in rows if r.wrong_verdicts is not None)
    # a verdict on a question that names no expected one is checked by no one: listed, for a person to read
    unchecked = [
        f"{r.label} ({', '.join(r.verdicts.values())})" for r in rows if r.wrong_verdicts is None and r.verdicts
    ]
    evidence = ", ".join(wrong) or f"none on {asked} yes/no question(s)"
    if unchecked:
        evidence += f"; verdicts on questions naming none, not checked: {', '.join(unchecked)}"
    out.append(("no wrong verdict", not wrong, evidence))
    return out


# -------------------------------------------------------------------------------------------------- tables


def comparison_rows(reports: dict[str, EvalReport]) -> list[list[str]]:
    """One row per strategy: the figures the issue asks for, totals over all questions."""
    rows = []
    for name in ORDER:
        s = reports[name].summary()
        t, m = s["total"], s["mean"]
        cover = s["fact_coverage_overall"]
        recall = m["detection_recall"]
        rows.append(
            [
                LABELS[name],
                f"{int(t['facts_found'])}/{int(t['facts_expected'])} ({cover:.0%})" if cover is not None else "-",
                f"{int(t['residual_count'])}",
                f"{t['residual_severity']:.2f}",
                f"{int(t['resolved'])}",
                f"{int(t['retrievals'])}",
                f"{int(t['critic_calls'])}",
                f"{int(t['cycles'])}",
                f"{t['wall_s']:.2f}",
                f"{recall:.2f}" if recall is not None else "-",
                f"{int(t['plan_items_answered'])}/{int(t['plan_items'])}",
                f"{max((r.words_per_item or 0.0 for r in reports[name].rows), default=0.0):.0f}",
                f"{int(t['duplicate_sentences'])}/{int(t['cut_sentences'])}",
                f"{int(t['certified_incomplete'])}",
                f"{int(t['false_residuals'] or 0)}",
                f"{int(t['wrong_verdicts'] or 0)}",
                f"{int(t['over_budget'] or 0)}",
            ]
        )
    return rows


HEADERS = [
    "strategy",
    "facts covered",
    "residual deficiencies",
    "residual severity",
    "resolved",
    "retrieval calls",
    "critic calls",
    "cycles",
    "wall time (s)",
    "detection recall",
    "plan items answered",
    "max words per item",
    "duplicate/cut sentences",
    "certified incomplete",
    "false residuals",
    "wrong verdicts",
    "answers over budget",
]


def per_question_rows(reports: dict[str, EvalReport]) -> list[list[str]]:
    """One row per question: coverage and residual severity of each strategy side by side."""
    rows = []
    for i, q in enumerate(reports["loop"].rows):
        cells = [q.label]
        for name in ORDER:
            r = reports[name].rows[i]
            cells.append(f"{r.facts_found}/{r.facts_expected}")
        for name in ORDER:
            cells.append(f"{reports[name].rows[i].residual_severity:.2f}")
        for name in ORDER:
            cells.append(str(reports[name].rows[i].retrievals))
        loop = reports["loop"].rows[i]
        cells += [f"{loop.plan_items_answered}/{loop.plan_items}", f"{loop.answer_words}", loop.stop_reason]
        rows.append(cells)
    return rows


PER_Q_HEADERS = (
    ["question"]
    + [f"facts {LABELS[n]}" for n in ORDER]
    + [f"severity {LABELS[n]}" for n in ORDER]
    + [f"retrievals {LABELS[n]}" for n in ORDER]
    + ["loop: items answered", "loop: words", "loop: stop"]
)


def markdown_table(headers: list[str], rows: list[list[str]]) -> str:
    """A GitHub Markdown table."""
    lines = [
        "| " + " | ".join(headers) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(headers))) + "|",
    ]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def text_table(headers: list[str], rows: list[list[str]]) -> str:
    """A fixed-width table for the terminal."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    fmt = lambda cells: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))  # noqa: E731
    return "\n".join([fmt(headers), "  ".join("-" * w for w in widths), *(fmt(r) for r in rows)])


def doc_block(
    reports: dict[str, EvalReport], questions_file: str, context: dict[str, Any], with_how_to: bool = True
) -> str:
    """The docs/benchmarks.md text of one questions file (the section between the bench:quality markers holds one per file)."""
    checks = targets(reports)
    n = len(reports["loop"].rows)
    lines = [
        f"Generated by `tests/bench/quality.py` on {context['date']} — {n} questions from `{questions_file}`, "
        f"{context['engine']} engine, corpus: {context['corpus']} ({context['chunks']} passages), "
        f"max cycles {context['max_cycles']}, retrieval k {context['retrieval_k']}. Totals over all questions; "
        "residual severity sums the severity weights (low 0.02, medium 0.05, high 0.12, critical 0.2) of what is "
        "left unresolved in each final answer.",
        "",
        markdown_table(HEADERS, comparison_rows(reports)),
        "",
        "Targets:",
        "",
    ]
    lines += [f"- {'PASS' if ok else 'FAIL'}: {name} — {evidence}" for name, ok, evidence in checks]
    lines += [
        "",
        "<details><summary>Per question</summary>",
        "",
        markdown_table(PER_Q_HEADERS, per_question_rows(reports)),
        "",
        "</details>",
    ]
    if not with_how_to:
        return "\n".join(lines)
    lines += [
        "",
        "**How to run.** `python tests/bench/quality.py questions/q1-q6.yaml questions/heldout.yaml --corpus "
        "core/corpus` ingests the "
        "sample corpus into a throwaway data dir, runs the three strategies on the same engine and corpus — "
        "single pass (retrieve, draft, one critique, no correction), naive retry (re-draft up to max-cycles times "
        "with a wider retrieval each time, k, 2k, 3k, …, and no memory of earlier deficiencies) and the stateful "
        "loop with every correction approved — prints the tables and the targets, and writes "
        "`test-artifacts/quality.html`, `.png` and `.json`; add `--update-docs` to regenerate this block. "
        "Any questions file in the same format can be scored one strategy at a time with "
        "`python -m core eval FILE [--strategy loop|single|retry] [--json]` against the configured corpus. "
        "Detection recall is the share of each question's expected deficiency types (the mistakes a naive answer "
        "makes) that the critic reported during the run; the drafter no longer makes several of them (it never "
        "cites a source its metadata calls erroneous), so there is less to detect. "
        "Fact coverage counts the expected facts stated in the answer (its claims, comparison table and source "
        "lines; not the gaps or the residual-deficiency disclosure), with normalised matching of amounts, "
        "percentages, comparators, dates and citations. Plan items answered, words per plan item, duplicate and "
        "cut sentences and `certified_incomplete` (a run that ended at or above the threshold, or with nothing "
        "open, while a plan item was unanswered) come from `python -m core eval --json`.",
    ]
    return "\n".join(lines)


def update_doc(doc: Path, body: str) -> None:
    """Replace the block between the bench:quality markers of `doc` (docs/benchmarks.md)."""
    replace_block("quality", body, doc)


# --------------------------------------------------------------------------------------------------- chart


def write_chart(reports: dict[str, EvalReport], out: Path, *, png: bool = True) -> list[str]:
    """Plotly chart (HTML always, PNG when asked and kaleido can render); returns lines to print."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    labels = [r.label for r in reports["loop"].rows]
    fig = make_subplots(
        rows=2,
        cols=2,
        subplot_titles=(
            "Fact coverage (share of expected facts)",
            "Residual severity (summed weights)",
            "Retrieval calls",
            "Critic calls",
        ),
    )
    colors = {"single": "#9e9e9e", "retry": "#f0a030", "loop": "#2a6fdb"}
    for name in ORDER:
        rows = reports[name].rows
        common = {"name": LABELS[name], "marker_color": colors[name], "legendgroup": name}
        fig.add_trace(go.Bar(x=labels, y=[r.fact_coverage or 0 for r in rows], **common), row=1, col=1)
        fig.add_trace(go.Bar(x=labels, y=[r.residual_severity for r in rows], showlegend=False, **common), row=1, col=2)
        fig.add_trace(go.Bar(x=labels, y=[r.retrievals for r in rows], showlegend=False, **common), row=2, col=1)
        fig.add_trace(go.Bar(x=labels, y=[r.critic_calls for r in rows], showlegend=False, **common), row=2, col=2)
    fig.update_layout(
        barmode="group",
        title="Does the loop help? Single pass vs naive retry vs stateful loop",
        height=720,
        width=1100,
        template="plotly_white",
    )
    fig.update_yaxes(range=[0, 1], row=1, col=1)
    out.mkdir(parents=True, exist_ok=True)
    html, png_path = out / "quality.html", out / "quality.png"
    fig.write_html(str(html), include_plotlyjs=True)
    lines = [f"chart: {html}"]
    if not png:
        return lines
    try:
        fig.write_image(str(png_path), scale=1)
        lines.append(f"chart: {png_path}")
    except Exception as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        lines.append(
            f"PNG not written: kaleido could not render in this environment ({type(exc).__name__}: {first[:200]}); "
            f"the HTML chart above has the same content"
        )
    return lines
