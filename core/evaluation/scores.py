"""How a run of one strategy on one question is scored (fact coverage, residual deficiencies, plan items answered,
readability counts) and how the scores of a questions file add up to a report and its table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from core.domain.answer import Answer, Claim, claim_id, render_markdown, verdict_words
from core.domain.plan import ANY_JURISDICTION, MAX_WORDS, Aspect, ResearchPlan, item_id
from core.domain.records import Citation, Deficiency
from core.engines.text import is_anaphoric, sentences
from core.evaluation.facts import Fact, detection_recall, fact_coverage, fact_found, fact_label, residual_summary
from core.evaluation.questions import EvalQuestion
from core.loop.deps import names_of, source_names

AVERAGED_FIELDS: tuple[str, ...] = (
    "fact_coverage",
    "facts_found",
    "facts_expected",
    "residual_count",
    "residual_severity",
    "resolved",
    "retrievals",
    "critic_calls",
    "cycles",
    "wall_s",
    "detection_recall",
    "plan_items",
    "plan_items_answered",
    "answer_words",
    "words_per_item",
    "duplicate_sentences",
    "cut_sentences",
    "certified_incomplete",
    "false_residuals",
    "wrong_verdicts",
    "over_budget",
)
SUMMED_FIELDS: tuple[str, ...] = tuple(
    f for f in AVERAGED_FIELDS if f not in ("fact_coverage", "detection_recall", "words_per_item")
)


@dataclass
class RunOutcome:
    """What one strategy produced for one question, before scoring."""

    strategy: str
    answer: Answer
    plan: ResearchPlan | None
    residual: list[Deficiency]
    detected: list[Deficiency]
    resolved: int
    retrievals: int
    critic_calls: int
    cycles: int
    wall_s: float
    stop_reason: str = ""
    score: float = 0.0
    answered: int = 0
    citations: list[Citation] = field(default_factory=list)


@dataclass
class QuestionScore:
    """One question's scored outcome (the `questions[]` entry of `eval --json`)."""

    label: str
    question: str
    as_of: str | None
    fact_coverage: float | None
    facts_found: int
    facts_expected: int
    facts_missing: list[str]
    residual_count: int
    residual_severity: float
    residual_types: dict[str, int]
    resolved: int
    retrievals: int
    critic_calls: int
    cycles: int
    wall_s: float
    detected_types: list[str]
    detection_recall: float | None
    expected_types_missed: list[str]
    stop_reason: str
    plan_items: int = 0
    plan_items_answered: int = 0
    answer_words: int = 0
    words_per_item: float | None = None
    duplicate_sentences: int = 0
    cut_sentences: int = 0
    certified_incomplete: bool = False
    false_residuals: int | None = None
    """Residual deficiencies left on a question whose complete answer is in the corpus (None: not such a question)."""
    facts_verdict_left: bool = False
    """The yes/no the question asks on facts it sets out is left open and disclosed (the rule engine does not
    apply rules to a question's facts): one of the residuals counted above, if the question is complete."""
    wrong_verdicts: int | None = None
    """Verdicts that differ from the expected ones (None: the question expects no verdict)."""
    verdicts: dict[str, str] = field(default_factory=dict)
    word_budget: int = 0
    over_budget: bool = False
    fact_words: int | None = None
    """Words of the fewest claims that still state every expected fact the answer states (see `fact_words`): how
    short a ranking that kept only fact-bearing sentences would make this answer."""
    answer: str = field(repr=False, default="")

    def to_json(self, *, with_answer: bool = False) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "answer"}
        if with_answer:
            out["answer"] = self.answer
        return out


def score(q: EvalQuestion, outcome: RunOutcome, threshold: float) -> QuestionScore:
    """Score one strategy's outcome against the question's expectations.

    `certified_incomplete`: the run ended at or above the quality threshold, or with nothing open, while a plan
    item stayed unanswered: the worst outcome, an incomplete answer presented as complete."""
    shown = render_markdown(outcome.answer, outcome.plan, names_of(outcome.plan), source_names(outcome.citations))
    hint = [j.split("-")[0] for j in q.jurisdictions]
    cov = fact_coverage(shown, q.expected_facts, hint)
    res = residual_summary(outcome.residual)
    detected = sorted({d.deficiency_type.value for d in outcome.detected})
    expected = [t.value for t in q.expected_deficiency_types]
    items = len(outcome.plan.items) if outcome.plan else 0
    words = outcome.answer.word_count()
    budget = outcome.plan.word_budget() if outcome.plan else MAX_WORDS
    stated = verdict_words(outcome.answer.verdict)
    incomplete = outcome.answered < items
    certified = incomplete and (
        outcome.score >= threshold or outcome.stop_reason in ("no_open_deficiencies", "no_deficiencies_found")
    )
    return QuestionScore(
        label=q.label,
        question=q.question,
        as_of=q.as_of.isoformat() if q.as_of else None,
        fact_coverage=cov.ratio,
        facts_found=len(cov.found),
        facts_expected=cov.expected,
        facts_missing=list(cov.missing),
        residual_count=res.count,
        residual_severity=res.severity,
        residual_types=res.by_type,
        resolved=outcome.resolved,
        retrievals=outcome.retrievals,
        critic_calls=outcome.critic_calls,
        cycles=outcome.cycles,
        wall_s=round(outcome.wall_s, 4),
        detected_types=detected,
        detection_recall=detection_recall(expected, detected),
        expected_types_missed=[t for t in expected if t not in detected],
        stop_reason=outcome.stop_reason,
        plan_items=items,
        plan_items_answered=outcome.answered,
        answer_words=words,
        words_per_item=round(words / items, 1) if items else None,
        duplicate_sentences=duplicate_sentences(outcome.answer),
        cut_sentences=cut_sentences(outcome.answer),
        certified_incomplete=certified,
        false_residuals=res.count if q.complete_in_corpus else None,
        facts_verdict_left=bool(outcome.plan and outcome.plan.verdict_on_facts)
        and any(d.subject == item_id(ANY_JURISDICTION, Aspect.verdict) for d in outcome.residual),
        wrong_verdicts=wrong_verdicts(q.expected_verdict, stated),
        verdicts=stated,
        word_budget=budget,
        over_budget=words > budget,
        fact_words=fact_words(outcome, [f for f in q.expected_facts if f and fact_label(f) in cov.found], hint),
        answer=shown,
    )


def fact_words(outcome: RunOutcome, found: Sequence[Fact], hint: Sequence[str]) -> int:
    """Words left when every claim that no stated fact needs is taken out, longest first (a greedy upper bound on
    the fewest): the gap between this and `answer_words` is what sentence ranking, not the word budget, decides."""
    answer = outcome.answer
    names, sources = names_of(outcome.plan), source_names(outcome.citations)
    for code, claim in sorted(answer.claims(), key=lambda located: -len(located[1].text.split())):
        if claim.kind == "disclosure":
            continue
        trial = answer.without(claim_id(code, claim))
        shown = render_markdown(trial, outcome.plan, names, sources)
        if all(fact_found(shown, f, hint) for f in found):
            answer = trial
    return answer.word_count()


def wrong_verdicts(expected: str | dict[str, str] | None, stated: dict[str, str]) -> int | None:
    """How many expected verdicts the answer states otherwise. A verdict the answer does not give (a disclosed
    gap) is not wrong; one stated for the whole question counts against each jurisdiction's expected verdict, and
    so does one word stated for every jurisdiction where the question expects one per part (or per other
    jurisdictions): the answer took the question as asking one thing."""
    if expected is None:
        return None
    first = stated.get(ANY_JURISDICTION) or next(iter(stated.values()), None)
    if isinstance(expected, str):
        return int(first is not None and first != expected)
    whole = stated.get(ANY_JURISDICTION)
    if whole is None and not set(stated) & set(expected) and len(set(stated.values())) == 1:
        whole = first  # one word for every place it names answers each part asked: "ES: No." to "(1) ... (2) ...?"
    said = {code: stated.get(code) or whole for code in expected}
    return sum(1 for code, word in expected.items() if said[code] is not None and said[code] != word)


def duplicate_sentences(answer: Answer) -> int:
    """Sentences the answer states more than once."""
    seen: dict[str, int] = {}
    for _, claim in answer.claims():
        for s in sentences(claim.text):
            key = " ".join(s.lower().split())
            seen[key] = seen.get(key, 0) + 1
    return sum(n - 1 for n in seen.values() if n > 1)


def cut_sentences(answer: Answer) -> int:
    """Claims that stop mid-sentence (no closing punctuation), open with a lower-case fragment, or open with a
    pronoun or connective whose antecedent is not before it."""

    def cut(claim: Claim) -> bool:
        text = claim.said.strip()
        first = sentences(text)[:1]
        return bool(text) and (
            text[-1] not in ".!?)\"'"
            or text[0].islower()
            or (claim.kind == "finding" and bool(first) and is_anaphoric(first[0]))
        )

    return sum(1 for _, c in answer.claims() if cut(c))


@dataclass
class EvalReport:
    """All questions of one strategy, with means and totals."""

    strategy: str
    rows: list[QuestionScore]

    def summary(self) -> dict[str, Any]:
        """`{"count", "fact_coverage_overall", "mean": {...}, "total": {...}}`; ratios are averaged, not summed,
        and questions without expectations (None) are left out of a mean."""
        mean: dict[str, float | None] = {}
        total: dict[str, float | None] = {}
        for name in AVERAGED_FIELDS:
            values = [getattr(r, name) for r in self.rows if getattr(r, name) is not None]
            mean[name] = round(sum(values) / len(values), 4) if values else None
            if name in SUMMED_FIELDS:
                total[name] = round(sum(values), 4)
        facts_expected = total["facts_expected"] or 0
        return {
            "count": len(self.rows),
            "fact_coverage_overall": round((total["facts_found"] or 0) / facts_expected, 4) if facts_expected else None,
            "mean": mean,
            "total": total,
        }

    def to_json(self, *, with_answers: bool = False) -> dict[str, Any]:
        """The `python -m core eval --json` object."""
        return {
            "strategy": self.strategy,
            "questions": [r.to_json(with_answer=with_answers) for r in self.rows],
            "summary": self.summary(),
        }


def format_table(report: EvalReport) -> list[str]:
    """Plain-text table of a report, one line per question plus a total line."""
    head = f"{'id':<6} {'facts':>7} {'cover':>6} {'resid':>5} {'sev':>6} {'resolv':>6} {'retr':>5} {'crit':>5} {'cyc':>4} {'wall_s':>7}  stop"
    lines = [head, "-" * len(head)]
    for r in report.rows:
        cover = "-" if r.fact_coverage is None else f"{r.fact_coverage:.2f}"
        lines.append(
            f"{r.label:<6} {r.facts_found:>3}/{r.facts_expected:<3} {cover:>6} {r.residual_count:>5} "
            f"{r.residual_severity:>6.2f} {r.resolved:>6} {r.retrievals:>5} {r.critic_calls:>5} {r.cycles:>4} "
            f"{r.wall_s:>7.2f}  {r.stop_reason}"
        )
    s = report.summary()
    t = s["total"]
    cover = "-" if s["fact_coverage_overall"] is None else f"{s['fact_coverage_overall']:.2f}"
    lines.append("-" * len(head))
    lines.append(
        f"{'total':<6} {int(t['facts_found'] or 0):>3}/{int(t['facts_expected'] or 0):<3} {cover:>6} "
        f"{int(t['residual_count'] or 0):>5} {t['residual_severity'] or 0:>6.2f} {int(t['resolved'] or 0):>6} "
        f"{int(t['retrievals'] or 0):>5} {int(t['critic_calls'] or 0):>5} {int(t['cycles'] or 0):>4} "
        f"{t['wall_s'] or 0:>7.2f}"
    )
    return lines
