"""The LLM planner: the model's research plan merged onto the offline planner's, validated in Python."""

from __future__ import annotations

import re
from dataclasses import replace

from core.engines.base import EngineContext, Planner, PlanResult
from core.engines.llm.client import LlmClient, LlmUnavailableError, add_usage
from core.engines.llm.prompts import PLAN_SYSTEM, plan_prompt
from core.engines.llm.schemas import PlanOut
from core.gazetteer import country_name, covered_by, iso_country
from core.plan import ANY_JURISDICTION, Aspect, PlanItem, PlannedJurisdiction, ResearchPlan, item_id

MAX_ENTITY_TYPES = 8
OPEN_ASPECTS = (Aspect.verdict, Aspect.comparison)
"""Aspects an item may ask across jurisdictions (jurisdiction `*`) even when the question names some."""


def place_name(code: str) -> str:
    """A readable name for a jurisdiction code: the country's name where the code stands for one, else the code."""
    iso = iso_country(code.split("-")[0])
    return (country_name(iso) if iso else None) or code


def _named(words: str, question: str) -> bool:
    return bool(words.strip()) and re.search(r"(?<!\w)" + re.escape(words.strip()) + r"(?!\w)", question,
                                             re.I) is not None


class _Codes:
    """Jurisdiction codes a plan may use: the corpus' own, or ISO 3166 alpha-2 countries (mapped onto the corpus
    code when the corpus holds that country under another code, e.g. GB -> UK)."""

    def __init__(self, ctx: EngineContext):
        self.corpus = set(ctx.catalog.jurisdictions())
        self._lower = {c.lower(): c for c in self.corpus}
        self._by_iso = {iso: c for c in self.corpus if (iso := iso_country(c))}
        self.covers = covered_by(ctx.catalog)

    def valid(self, raw: str) -> str | None:
        """The code `raw` stands for, or None when it is neither a corpus code nor an ISO alpha-2 country."""
        key = raw.strip()
        if key.lower() in self._lower:
            return self._lower[key.lower()]
        if len(key) == 2 and country_name(key.upper()):
            return self._by_iso.get(key.upper(), key.upper())
        return None

    def planned(self, code: str, named_as: tuple[str, ...]) -> PlannedJurisdiction:
        """A new planned jurisdiction; whether the corpus holds it is computed here, never taken from the model."""
        in_corpus = code in self.corpus
        return PlannedJurisdiction(code=code, name=place_name(code), named_as=named_as, in_corpus=in_corpus,
                                   via=None if in_corpus else self.covers.get(code))


def merge_plan(floor: ResearchPlan, out: PlanOut, ctx: EngineContext) -> tuple[ResearchPlan, tuple[str, ...]]:
    """The model's plan merged onto the floor plan, and a note for everything of the model's that was dropped.

    The merge rule: the floor (the offline planner's plan, built from the gazetteer and the corpus metadata) is
    never reduced. Its jurisdictions and items all stay as they are, so the model can add jurisdictions, items
    and entity types but never silently drop a jurisdiction the gazetteer found. What the model adds is checked:
    a jurisdiction must be a corpus code or an ISO 3166 alpha-2 country and be named by words that occur in the
    question; an item must name a planned jurisdiction (or `*` when the question names none, or for a verdict or
    comparison); ids come from `item_id()`; `in_corpus`, `via` and `answerable` are computed in Python.
    """
    codes = _Codes(ctx)
    question = floor.question
    notes: list[str] = []
    places = {j.code: j for j in floor.jurisdictions}
    for pj in out.jurisdictions:
        code = codes.valid(pj.code)
        if code is None:
            notes.append(f"llm planner: dropped jurisdiction {pj.code[:20]!r}: not a corpus or ISO 3166 code")
            continue
        words = tuple(dict.fromkeys(w.strip() for w in pj.named_as if _named(w, question)))
        if not words:
            notes.append(f"llm planner: dropped jurisdiction {code}: the question does not name it")
            continue
        known = places.get(code)
        places[code] = (known.model_copy(update={"named_as": tuple(dict.fromkeys((*known.named_as, *words)))})
                        if known else codes.planned(code, words))

    items = {i.id: i for i in floor.items}
    for it in out.items:
        aspect = Aspect(it.aspect)
        raw = it.jurisdiction.strip()
        code = ANY_JURISDICTION if raw == ANY_JURISDICTION else codes.valid(raw)
        if code == ANY_JURISDICTION and places and aspect not in OPEN_ASPECTS:
            code = None
        if code is None or (code != ANY_JURISDICTION and code not in places):
            notes.append(f"llm planner: dropped item {raw[:20]}:{aspect.value}: jurisdiction not in the plan")
            continue
        new_id = item_id(code, aspect)
        if new_id in items or not it.ask.strip():
            continue
        place = places.get(code)
        items[new_id] = PlanItem(id=new_id, jurisdiction=code, aspect=aspect, ask=it.ask.strip(),
                                 query=it.query.strip() or it.ask.strip(),
                                 answerable=place is None or place.in_corpus or place.via is not None)

    order = {code: n for n, code in enumerate([*places, ANY_JURISDICTION])}
    aspects = list(Aspect)
    ranked = sorted(items.values(), key=lambda i: (order.get(i.jurisdiction, len(order)), aspects.index(i.aspect)))
    entities = list(floor.entity_types)
    for e in out.entity_types:
        if e.strip() and e.strip().lower() not in {x.lower() for x in entities} and len(entities) < MAX_ENTITY_TYPES:
            entities.append(e.strip())
    plan = floor.model_copy(update={
        "jurisdictions": tuple(places.values()), "entity_types": tuple(entities), "items": tuple(ranked),
        "yes_no": floor.yes_no or out.yes_no, "comparison": floor.comparison or (out.comparison and len(places) > 1),
        "planner": "llm",
    })
    return plan, tuple(notes)


class LlmPlanner:
    """Plans through the model on top of the fallback planner's plan, which is also the plan used when the model
    is unavailable (see `merge_plan` for what the model may change)."""

    name = "llm"

    def __init__(self, client: LlmClient, fallback: Planner):
        self.client = client
        self.fallback = fallback

    def plan(self, question: str, ctx: EngineContext) -> PlanResult:
        """The merged plan; the fallback's alone, with a note, when the model cannot be reached."""
        floor = self.fallback.plan(question, ctx)
        names = {code: place_name(code) for code in ctx.catalog.jurisdictions()}
        try:
            out, usage, notes = self.client.call("llm planner", PlanOut, PLAN_SYSTEM,
                                                 plan_prompt(question, floor.plan, names, ctx))
        except LlmUnavailableError as exc:
            note = f"llm planner unavailable ({exc.reason}); the {self.fallback.name} planner's plan is used"
            return replace(floor, usage=add_usage(floor.usage, exc.usage), notes=(*exc.notes, *floor.notes, note))
        plan, dropped = merge_plan(floor.plan, out, ctx)
        return PlanResult(plan=plan, usage=add_usage(floor.usage, usage), notes=(*floor.notes, *notes, *dropped))
