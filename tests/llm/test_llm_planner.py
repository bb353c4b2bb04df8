"""The LLM engine over the loopback server: the request shape of a structured call, and the planner's
validation of the model's plan and its merge with the floor plan."""

from __future__ import annotations

from collections.abc import Callable

from core.config import Settings
from core.domain.documents import DocumentMeta
from core.domain.plan import Aspect
from core.engines.llm import LlmClient, LlmPlanner
from core.engines.llm.schemas import FindingsOut
from tests.llm.conftest import FloorPlanner, engine_ctx
from tests.llm.loopback import LoopbackLLM, closed_port, structured, user_text


def test_requests_have_the_structured_output_shape(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """Model, temperature 0, an output token cap, a strict json_schema response format, system then user; usage
    per call."""
    llm_server.push(structured({"deficiencies": []}, prompt_tokens=11, completion_tokens=7))
    value, usage, notes = LlmClient(llm_settings(llm_max_tokens=333)).call("test", FindingsOut, "sys", "usr")
    req = llm_server.requests[0]
    assert (req["model"], req["temperature"], req["max_completion_tokens"]) == ("loopback-model", 0, 333)
    assert req["max_tokens"] == 333  # local servers (llama-cpp-python) read only the legacy name
    fmt = req["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "FindingsOut"
    assert fmt["json_schema"]["strict"] is True and fmt["json_schema"]["schema"]["additionalProperties"] is False
    assert [m["role"] for m in req["messages"]] == ["system", "user"]
    assert value.deficiencies == [] and (usage.llm_calls, usage.prompt_tokens, usage.completion_tokens) == (1, 11, 7)
    assert notes == ()


PLAN_QUESTION = "Is the owner disclosure threshold for a payment firm in Ruritania higher than in Xylandia or Brazil?"


def test_the_planners_structured_output_becomes_a_research_plan_with_validated_jurisdictions(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """Codes are corpus or ISO 3166 codes named by the question's own words; in_corpus is computed; ids come
    from item_id(); items of unknown jurisdictions are dropped; the floor's jurisdictions and items stay."""
    llm_server.push(
        structured(
            {
                "jurisdictions": [
                    {"code": "xy", "named_as": ["Xylandia"]},
                    {"code": "br", "named_as": ["Brazil"]},
                    {"code": "ZZ", "named_as": ["Ruritania"]},
                    {"code": "FR", "named_as": ["France"]},
                    {"code": "RU", "named_as": ["the Ruritanian Republic"]},
                ],
                "entity_types": ["Payment firm", "e-money issuer"],
                "yes_no": True,
                "comparison": True,
                "items": [
                    {"jurisdiction": "XY", "aspect": "threshold", "ask": "XY threshold", "query": "Xylandia threshold"},
                    {"jurisdiction": "BR", "aspect": "threshold", "ask": "BR threshold", "query": "Brazil threshold"},
                    {"jurisdiction": "RU", "aspect": "threshold", "ask": "model ask", "query": "model query"},
                    {"jurisdiction": "FR", "aspect": "scope", "ask": "FR scope", "query": "France scope"},
                    {"jurisdiction": "*", "aspect": "scope", "ask": "anything", "query": "anything"},
                    {"jurisdiction": "*", "aspect": "verdict", "ask": "yes or no", "query": ""},
                ],
            }
        )
    )
    result = LlmPlanner(LlmClient(llm_settings()), fallback=FloorPlanner()).plan(PLAN_QUESTION, engine_ctx())
    plan = result.plan
    assert plan.planner == "llm" and plan.yes_no and plan.comparison
    assert [(j.code, j.named_as, j.in_corpus) for j in plan.jurisdictions] == [
        ("RU", ("Ruritania",), True),
        ("XY", ("Xylandia",), True),
        ("BR", ("Brazil",), False),
    ]
    assert plan.jurisdiction("BR").name == "Brazil"
    assert [(i.id, i.answerable) for i in plan.items] == [
        ("RU:threshold", True),
        ("XY:threshold", True),
        ("BR:threshold", False),
        ("*:verdict", True),
        ("*:comparison", True),
    ]
    assert plan.item("RU:threshold").ask == "floor ask"  # the floor's item is never replaced
    assert plan.entity_types == ("payment firm",)
    notes = " | ".join(result.notes)
    assert "dropped entity type 'e-money issuer': neither in the question nor in the corpus" in notes
    assert "dropped jurisdiction 'ZZ': not a corpus or ISO 3166 code" in notes
    assert "dropped jurisdiction FR: the question does not name it" in notes
    # the floor's Ruritania, which the model names by words the question lacks ("a customer in Munich" planned as
    # Germany, named by the model "Germany"), stays planned: no note says it was dropped
    assert "dropped jurisdiction RU" not in notes
    assert "dropped item FR:scope" in notes and "dropped item *:scope" in notes
    assert "Found by the gazetteer: RU named as 'Ruritania'" in user_text(llm_server.requests[0])


def test_added_jurisdictions_follow_the_offline_planners_item_conventions(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """A member state is asked of the bloc whose law applies there plus one unanswerable item for its own law;
    a jurisdiction added without items gets the floor's aspects; a country without sources one disclosed item."""
    bloc = DocumentMeta(id="bloc-reg", title="Bloc Regulation", jurisdiction="BL", extra={"covers": ["DE"]})
    question = "What owner disclosure threshold applies to a German or a Chilean payment firm, or one in Xylandia?"
    llm_server.push(
        structured(
            {
                "jurisdictions": [
                    {"code": "DE", "named_as": ["German"]},
                    {"code": "XY", "named_as": ["Xylandia"]},
                    {"code": "CL", "named_as": ["Chilean"]},
                ],
                "entity_types": [],
                "yes_no": False,
                "comparison": False,
                "items": [
                    {
                        "jurisdiction": "DE",
                        "aspect": "threshold",
                        "ask": "the threshold for a German firm",
                        "query": "owner disclosure threshold",
                    }
                ],
            }
        )
    )
    plan = LlmPlanner(LlmClient(llm_settings()), fallback=FloorPlanner()).plan(question, engine_ctx(extra=(bloc,))).plan
    de = plan.jurisdiction("DE")
    assert de is not None and (de.in_corpus, de.via) == (False, "BL")
    assert [(i.id, i.answerable, bool(i.query)) for i in plan.items] == [
        ("RU:threshold", True, True),
        ("DE:threshold", False, False),
        ("XY:threshold", True, True),
        ("CL:threshold", False, False),
        ("BL:threshold", True, True),
    ]
    assert plan.answer_codes() == ["RU", "BL", "XY"]


def test_a_place_the_model_names_where_a_code_belongs_is_read_by_the_gazetteer(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """SmolLM2 wrote "Quebec" as the code, and the plan dropped it as "not a corpus or ISO 3166 code": a name the
    gazetteer reads as one place stands for that place's code, answered from its own documents and its country's;
    a name it cannot place is still dropped."""
    quebec = DocumentMeta(id="qc-act", title="Quebec Act", jurisdiction="CA-QC")
    question = "What owner disclosure threshold applies to a payment firm in Quebec?"
    llm_server.push(
        structured(
            {
                "jurisdictions": [
                    {"code": "Quebec", "named_as": ["Quebec"]},
                    {"code": "Atlantis", "named_as": ["Quebec"]},
                ],
                "entity_types": [],
                "yes_no": False,
                "comparison": False,
                "items": [{"jurisdiction": "Quebec", "aspect": "threshold", "ask": "QC threshold", "query": "q"}],
            }
        )
    )
    ctx = engine_ctx(extra=(quebec,))
    result = LlmPlanner(LlmClient(llm_settings()), fallback=FloorPlanner()).plan(question, ctx)
    qc = result.plan.jurisdiction("CA-QC")
    assert qc is not None and (qc.named_as, qc.in_corpus, qc.name) == (("Quebec",), True, "Quebec")
    assert result.plan.item("CA-QC:threshold") is not None
    notes = " | ".join(result.notes)
    assert "'Quebec'" not in notes and "dropped jurisdiction 'Atlantis': not a corpus or ISO 3166 code" in notes


def test_the_model_cannot_make_an_open_question_a_yes_no(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """SmolLM2 flagged "Within how many days ...?" as yes/no and the drafter answered it "Yes.": the flag follows
    the question's wording, and the model's is dropped with a note."""
    question = "Within how many days must a payment firm in Ruritania report its owners?"
    llm_server.push(
        structured({"jurisdictions": [], "entity_types": [], "yes_no": True, "comparison": False, "items": []})
    )
    result = LlmPlanner(LlmClient(llm_settings()), fallback=FloorPlanner()).plan(question, engine_ctx())
    assert not result.plan.yes_no
    assert not any(i.aspect == Aspect.verdict for i in result.plan.items)
    assert "llm planner: dropped the yes/no flag: the question's wording asks no yes or no" in result.notes


def test_the_model_cannot_drop_the_jurisdictions_the_gazetteer_found(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """An empty model plan leaves the floor plan as it was (but marked as planned by the llm planner)."""
    llm_server.push(
        structured({"jurisdictions": [], "entity_types": [], "yes_no": False, "comparison": False, "items": []})
    )
    floor = FloorPlanner().plan(PLAN_QUESTION, engine_ctx()).plan
    plan = LlmPlanner(LlmClient(llm_settings()), fallback=FloorPlanner()).plan(PLAN_QUESTION, engine_ctx()).plan
    assert plan.jurisdictions == floor.jurisdictions and plan.items == floor.items and plan.planner == "llm"


def test_an_unavailable_planner_model_leaves_the_floor_plan_with_a_note(llm_settings: Callable[..., Settings]) -> None:
    """The plan is still made, by the floor planner alone, and the note says why."""
    settings = llm_settings(openai_base_url=f"http://127.0.0.1:{closed_port()}/v1", llm_max_retries=0)
    result = LlmPlanner(LlmClient(settings), fallback=FloorPlanner()).plan(PLAN_QUESTION, engine_ctx())
    assert result.plan.planner == "offline" and [j.code for j in result.plan.jurisdictions] == ["RU"]
    assert result.notes[-1] == "llm planner unavailable (connection failed); the floor planner's plan is used"
