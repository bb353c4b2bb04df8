"""The offline engine's verifiers and drafter on corpora the tests build (nothing keyed to the sample corpus)."""

from __future__ import annotations

from datetime import date

from core.engines.base import EngineContext
from core.engines.offline import OfflineCritic, OfflineDrafter, requested_jurisdictions
from core.engines.text import figures
from core.retrieval.models import Catalog, DocumentMeta, Threshold
from core.state import DeficiencyType, Evidence
from tests.fakes import KeywordStore
from tests.loop.corpora import AS_OF, RU_QUESTION, ruritania_corpus

T = DeficiencyType


def ctx(extra: list[tuple[DocumentMeta, list[str]]] = (), as_of: date = AS_OF) -> EngineContext:
    corpus = ruritania_corpus() + list(extra)
    texts = {m.id: "\n".join(t) for m, t in corpus}
    return EngineContext(catalog=Catalog(m for m, _ in corpus), as_of=as_of, doc_text=lambda i: texts.get(i, ""))


def found(answer: str, question: str = RU_QUESTION, c: EngineContext | None = None) -> dict[tuple[str, str], str]:
    result = OfflineCritic().critique(question, answer, [], c or ctx())
    return {(d.deficiency_type.value, d.subject): d.description for d in result.deficiencies}


GOOD_RU = (
    "## RU\nApplicability: Payments Code applies only from 1 January 2028; until then Payments Act apply. [ru-code-2028] [ru-act-2010]\n"
    "Under the Payments Act, owner disclosure applies to each person holding more than 30% of a payment firm. [ru-act-2010]\n"
    "Under the Payments Act, savings clubs with fewer than fifty members are exempt from owner disclosure. [ru-act-2010]\n"
    "Under the Payments Code, owner disclosure applies to each person holding 20% or more of a payment firm. [ru-code-2028]\n\n"
    "## XY\nIn Xylandia, owner disclosure applies to each person holding 25% or more of a payment firm. [xy-guidance]"
)


def test_a_correct_answer_has_no_deficiencies() -> None:
    result = OfflineCritic().critique(RU_QUESTION, GOOD_RU, [], ctx())
    assert result.deficiencies == [] and result.score == 1.0


def test_requested_jurisdictions_come_from_codes_aliases_and_authorities() -> None:
    cat = ctx().catalog
    assert requested_jurisdictions(RU_QUESTION, cat) == ["RU", "XY"]
    assert requested_jurisdictions("What does the Payments Code say?", cat) == ["RU"]
    assert requested_jurisdictions("what about xy in lower case?", cat) == []


def test_outdated_source_erroneous_and_not_yet_applicable() -> None:
    out = found(GOOD_RU.replace("[ru-act-2010]\nUnder the Payments Act, savings", "[ru-blog-wrong]\nUnder the Payments Act, savings"))
    assert (T.outdated_source.value, "ru-blog-wrong") in out
    no_pred = GOOD_RU.replace("## RU\nApplicability: Payments Code applies only from 1 January 2028; until then Payments Act apply. [ru-code-2028] [ru-act-2010]\n", "## RU\nUnder the Payments Code, owner disclosure applies at 20% or more. [ru-code-2028]\n").replace("[ru-act-2010]", "[ru-code-2028]")
    out = found(no_pred)
    assert (T.outdated_source.value, "ru-code-2028") in out
    assert (T.insufficient_specificity.value, "ru-code-2028:application_date") in out
    later = found(no_pred, c=ctx(as_of=date(2028, 6, 1)))
    assert (T.outdated_source.value, "ru-code-2028") not in later


def test_missing_jurisdiction() -> None:
    out = found(GOOD_RU.split("\n\n## XY")[0])
    assert (T.missing_jurisdiction.value, "XY") in out


def test_incorrect_threshold_comparator_unsupported_and_from_wrong_source() -> None:
    worded = GOOD_RU.replace("more than 30% of a payment firm. [ru-act-2010]", "30% or more of a firm's shares. [ru-act-2010]")
    assert (T.incorrect_threshold.value, "RU:owner_disclosure") in found(worded)
    invented = GOOD_RU.replace("more than 30% of a payment firm. [ru-act-2010]", "more than 45% of a firm's shares. [ru-act-2010]")
    assert (T.incorrect_threshold.value, "RU:percent:45") in found(invented)
    wrong = GOOD_RU + "\n\n## RU\nRuritania owner disclosure applies to each person holding 10% or more of a payment firm, says a blog. [ru-blog-wrong]"
    desc = found(wrong)[(T.incorrect_threshold.value, "RU:owner_disclosure")]
    assert "10%" in desc and "more than 30%" in desc


def test_missing_exemption_for_the_entity_the_question_names() -> None:
    without = GOOD_RU.replace("Under the Payments Act, savings clubs with fewer than fifty members are exempt from owner disclosure. [ru-act-2010]\n", "")
    assert (T.missing_exemption.value, "ru-act-2010:savings club") in found(without)
    assert (T.missing_exemption.value, "ru-act-2010:savings club") not in found(without, question="What owner disclosure threshold applies in Ruritania and Xylandia?")


def test_contradictory_in_force_sources_on_the_same_threshold() -> None:
    rival = DocumentMeta(id="xy-circular", title="Xylandia circular", jurisdiction="XY", effective=date(2020, 1, 1),
                         thresholds=(Threshold(name="owner_disclosure", value=15, unit="percent", comparator=">="),))
    answer = GOOD_RU + "\nA Xylandia circular sets owner disclosure at 15% or more. [xy-circular]"
    out = found(answer, c=ctx([(rival, ["A Xylandia circular sets owner disclosure at 15% or more."])]))
    assert (T.contradictory_sources.value, "XY:owner_disclosure") in out


def test_insufficient_specificity_for_uncited_requirements_and_missing_figures() -> None:
    out = found(GOOD_RU + "\nFirms must also keep records of their owners.")
    assert any(k[0] == T.insufficient_specificity.value and k[1].startswith("claim:") for k in out)
    vague = GOOD_RU.replace("In Xylandia, owner disclosure applies to each person holding 25% or more of a payment firm.",
                            "In Xylandia, owner disclosure applies to significant holders of a payment firm.")
    assert (T.insufficient_specificity.value, "xy-guidance:owner_disclosure") in found(vague)


def test_drafter_builds_cited_sections_and_revision_replaces_the_wrong_source() -> None:
    store = KeywordStore(ruritania_corpus())
    c = EngineContext(catalog=store.catalog(), as_of=AS_OF, doc_text=lambda i: "\n".join(x.text for x in store.chunks(i)))
    draft = OfflineDrafter().draft(RU_QUESTION, store.search(RU_QUESTION, k=8), c)
    assert draft.answer.startswith("## RU") and "## XY" in draft.answer
    assert {x.doc_id for x in draft.citations} >= {"ru-act-2010", "xy-guidance"}
    critique = OfflineCritic().critique(RU_QUESTION, draft.answer, [], c)
    bad = next(d for d in critique.deficiencies if d.deficiency_type == T.outdated_source and d.subject == "ru-blog-wrong")
    ev = [Evidence(deficiency_id=bad.id, query="q", doc_id="ru-act-2010", chunk_id="ru-act-2010#0", title="t", jurisdiction="RU",
                   status="in_force", snippet="Under the Payments Act, owner disclosure applies to each person holding more than 30% of a payment firm.",
                   score=1.0, cycle=0)]
    revised = OfflineDrafter().revise(RU_QUESTION, draft.answer, [bad], ev, c)
    assert "ru-blog-wrong" not in revised.answer and "[ru-act-2010]" in revised.answer


def test_figures_read_comparators_and_units() -> None:
    got = [(f.value, f.unit, f.comparator) for f in figures("more than 25% or EUR 15,000 or more, up to USD 3k, within 14 days")]
    assert got == [(25.0, "percent", ">"), (15000.0, "EUR", ">="), (3000.0, "USD", "<="), (14.0, "days", None)]


def test_an_answer_that_cites_nothing_is_critical_and_an_off_topic_question_ends_unresolved() -> None:
    out = found("## RU\nNo retrieved source covers this jurisdiction.", question="What is the capital of Atlantis?")
    assert (T.insufficient_specificity.value, "answer:no cited source") in out
    from pathlib import Path

    from core.config import Settings
    from core.persistence import memory_persistence
    from core.service import Workbench

    wb = Workbench(Settings(data_dir=Path("unused")), store=KeywordStore(ruritania_corpus()), persistence=memory_persistence())
    r = wb.start("What is the capital of Atlantis?", as_of="2026-11-30", approve="all")
    assert r.quality_score < 1.0 and r.residual_deficiencies
    assert r.termination_reason == "only_unresolvable_remaining"
