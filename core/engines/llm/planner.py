"""The LLM planner: the model's research plan merged onto the offline planner's, validated in Python."""

from __future__ import annotations

from dataclasses import replace

from core.domain.gazetteer import Place, country_name, covered_by, iso_country, occurrences, own_law, read_places
from core.domain.plan import (
    ANY_JURISDICTION,
    Aspect,
    PlanItem,
    PlannedJurisdiction,
    ResearchPlan,
    comparison_item,
    item_id,
    verdict_item,
)
from core.engines.base import EngineContext, Planner, PlanResult
from core.engines.llm.client import LlmClient, LlmUnavailableError, add_usage, with_counts
from core.engines.llm.prompts import PLAN_SYSTEM, plan_prompt
from core.engines.llm.schemas import PlanOut
from core.engines.text import asks_yes_no

MAX_ENTITY_TYPES = 8
OPEN_ASPECTS = (Aspect.verdict, Aspect.comparison)
"""Aspects an item may ask across jurisdictions (jurisdiction `*`) even when the question names some."""


def place_name(code: str) -> str:
    """A readable name for a jurisdiction code: the country's name where the code stands for one, else the code."""
    iso = iso_country(code.split("-")[0])
    return (country_name(iso) if iso else None) or code


def names_place(words: str, code: str, ctx: EngineContext) -> bool:
    """Whether the gazetteer (or the corpus' own names and aliases of a jurisdiction) maps `words` to `code`:
    "FinCEN" names the jurisdiction whose documents FinCEN issued, not whichever code the model put beside it."""
    return any(p.code == code or code in p.wider for p in read_places(words, ctx.catalog).places)


def corpus_entities(ctx: EngineContext) -> set[str]:
    """The entity types the corpus' documents declare (their exemptions and applicability rules), lower-cased."""
    return {e.entity.lower().replace("_", " ") for doc in ctx.catalog.all() for e in doc.exemptions}


class _Codes:
    """Jurisdiction codes a plan may use: the corpus' own, or ISO 3166 alpha-2 countries (mapped onto the corpus
    code when the corpus holds that country under another code, e.g. GB -> UK), or the code of the one place the
    gazetteer reads in a name a model wrote where a code belongs ("Quebec" -> CA-QC)."""

    def __init__(self, ctx: EngineContext):
        self._catalog = ctx.catalog
        self.corpus = set(ctx.catalog.jurisdictions())
        self._lower = {c.lower(): c for c in self.corpus}
        self._by_iso = {iso: c for c in self.corpus if (iso := iso_country(c))}
        self.covers = covered_by(ctx.catalog)
        self._named: dict[str, Place] = {}  # the places read from names given as codes, by their code

    def valid(self, raw: str) -> str | None:
        """The code `raw` stands for, or None when it is neither a corpus code, an ISO alpha-2 country nor a name
        the gazetteer reads as exactly one place."""
        key = raw.strip()
        if key.lower() in self._lower:
            return self._lower[key.lower()]
        if len(key) == 2 and country_name(key.upper()):
            return self._by_iso.get(key.upper(), key.upper())
        read = read_places(key, self._catalog) if len(key) > 2 else None
        if read is None or len(read.places) != 1 or read.unclear:
            return None
        place = read.places[0]
        self._named[place.code] = place
        return place.code

    def planned(self, code: str, named_as: tuple[str, ...]) -> PlannedJurisdiction:
        """A new planned jurisdiction; whether the corpus holds it is computed here, never taken from the model."""
        in_corpus = code in self.corpus
        place = self._named.get(code)
        wider = place.wider if place else ()
        return PlannedJurisdiction(
            code=code,
            name=place.name if place else place_name(code),
            named_as=named_as,
            in_corpus=in_corpus,
            via=None if in_corpus else (wider[0] if wider else self.covers.get(code)),
            wider=() if in_corpus and not place else wider,
        )


def merge_plan(floor: ResearchPlan, out: PlanOut, ctx: EngineContext) -> tuple[ResearchPlan, tuple[str, ...]]:
    """The model's plan merged onto the floor plan, and a note for everything of the model's that was dropped.

    The merge rule: the floor (the offline planner's plan, built from the gazetteer and the corpus metadata) is
    never reduced. Its jurisdictions and items all stay as they are, so the model can add jurisdictions, items
    and entity types but never silently drop a jurisdiction the gazetteer found. What the model adds is checked:
    a jurisdiction must be a corpus code, an ISO 3166 alpha-2 country or a name the gazetteer reads as one place,
    and be named by words that occur in the question; an item must name a planned jurisdiction (or `*` when the question names none, or for a verdict or
    comparison); ids come from `item_id()`; `in_corpus`, `via` and `answerable` are computed in Python. Items
    follow the offline planner's conventions: a member state's items are asked of the bloc whose law applies
    there, plus one unanswerable item for its own national law; a jurisdiction the corpus holds nothing for gets
    one unanswerable item, disclosed as a gap; a jurisdiction the model adds without items gets the aspects the
    floor asks of the others; a yes/no or comparison question gets its verdict or comparison item. Whether the
    question asks a yes or no is the wording's (`asks_yes_no`): a model's yes/no flag on an open question ("Within
    how many days must ...?") is dropped with a note, as it drew a "Yes." the question never asked for.
    """
    codes = _Codes(ctx)
    notes: list[str] = []
    places = {j.code: j for j in floor.jurisdictions}
    for pj in out.jurisdictions:
        code = codes.valid(pj.code)
        if code is None:
            notes.append(f"llm planner: dropped jurisdiction {pj.code[:20]!r}: not a corpus or ISO 3166 code")
            continue
        words = tuple(dict.fromkeys(w.strip() for w in pj.named_as if occurrences(w, floor.question)))
        if not words:
            if code not in places:  # the floor's own place named otherwise by the model: nothing is dropped
                notes.append(f"llm planner: dropped jurisdiction {code}: the question does not name it")
            continue
        words = tuple(w for w in words if names_place(w, code, ctx))
        if not words:
            said = ", ".join(repr(w) for w in pj.named_as)[:80]
            notes.append(f"llm planner: dropped jurisdiction {code}: the gazetteer does not map {said} to it")
            continue
        known = places.get(code)
        places[code] = (
            known.model_copy(update={"named_as": tuple(dict.fromkeys((*known.named_as, *words)))})
            if known
            else codes.planned(code, words)
        )
    items = _Items(floor, places)
    for it in out.items:
        aspect = it.aspect
        raw = it.jurisdiction.strip()
        code = ANY_JURISDICTION if raw == ANY_JURISDICTION else codes.valid(raw)
        if code == ANY_JURISDICTION and places and aspect not in OPEN_ASPECTS:
            code = None
        if code is None or (code != ANY_JURISDICTION and code not in places):
            notes.append(f"llm planner: dropped item {raw[:20]}:{aspect.value}: jurisdiction not in the plan")
            continue
        if it.ask.strip():
            items.add(code, aspect, it.ask.strip(), it.query.strip() or it.ask.strip())
        else:
            notes.append(f"llm planner: dropped item {raw[:20]}:{aspect.value}: it asks nothing")
    for code in places:
        items.cover(code)
    yes_no = floor.yes_no or (out.yes_no and asks_yes_no(floor.question))
    if out.yes_no and not yes_no:  # a verdict item on "Within how many days must ...?" drew a "Yes." from the drafter
        notes.append("llm planner: dropped the yes/no flag: the question's wording asks no yes or no")
    comparison = floor.comparison or (out.comparison and len(places) > 1)
    items.open_questions(yes_no, comparison)
    entities = list(floor.entity_types)
    declared = corpus_entities(ctx)
    for e in out.entity_types:
        kind = e.strip()
        if not kind or kind.lower() in {x.lower() for x in entities}:
            continue
        if not occurrences(kind, floor.question) and kind.lower() not in declared:
            notes.append(f"llm planner: dropped entity type {kind[:40]!r}: neither in the question nor in the corpus")
        elif len(entities) >= MAX_ENTITY_TYPES:
            notes.append(f"llm planner: dropped entity type {kind[:40]!r}: beyond the cap of {MAX_ENTITY_TYPES}")
        else:
            entities.append(kind)
    plan = floor.model_copy(
        update={
            "jurisdictions": tuple(places.values()),
            "entity_types": tuple(entities),
            "items": items.ranked(),
            "yes_no": yes_no,
            "comparison": comparison,
            "planner": "llm",
        }
    )
    return plan, tuple(notes)


class _Items:
    """The plan items being merged: the floor's, then what the model adds, by the offline planner's conventions."""

    def __init__(self, floor: ResearchPlan, places: dict[str, PlannedJurisdiction]):
        self.floor, self.places = floor, places
        self.items = {i.id: i for i in floor.items}
        self.topic = " ".join(floor.topic_terms) or floor.question
        self.aspects = list(dict.fromkeys(i.aspect for i in floor.items if i.aspect not in OPEN_ASPECTS)) or [
            Aspect.obligation
        ]

    def add(self, code: str, aspect: Aspect, ask: str, query: str) -> None:
        """An item unless its id exists; a member state's goes to its bloc, one of a country without sources is
        unanswerable."""
        place = self.places.get(code)
        if place is not None and not place.in_corpus:
            if place.via:
                self.add(place.via, aspect, ask.replace(place.name, f"{place.via} law applying in {place.name}"), query)
                self._national(place, aspect)
            else:
                self._put(
                    PlanItem(
                        id=item_id(code, aspect), jurisdiction=code, aspect=aspect, ask=ask, query="", answerable=False
                    )
                )
            return
        self._put(PlanItem(id=item_id(code, aspect), jurisdiction=code, aspect=aspect, ask=ask, query=query))

    def cover(self, code: str) -> None:
        """Items for a planned jurisdiction that has none: the aspects the floor asks of the others."""
        place = self.places[code]
        target = place.via if place.via and not place.in_corpus else code
        if any(i.jurisdiction in (code, target) for i in self.items.values()):
            return
        if not place.in_corpus and not place.via:
            labels = ", ".join(a.label for a in self.aspects)
            self.add(code, self.aspects[0], f"{place.name}: {labels} on {self.topic}", "")
            return
        for aspect in self.aspects:
            self.add(code, aspect, f"{place.name}: {aspect.label} on {self.topic}", f"{self.topic} {place.name}")

    def open_questions(self, yes_no: bool, comparison: bool) -> None:
        """The verdict item of a yes/no question and the comparison item of a comparing one."""
        answerable = any(i.answerable and i.jurisdiction != ANY_JURISDICTION for i in self.items.values())
        if yes_no:
            self._put(verdict_item(self.floor.question, answerable))
        if comparison:
            self._put(comparison_item(self.places, answerable))

    def ranked(self) -> tuple[PlanItem, ...]:
        """Items by the plan's jurisdiction order (cross-jurisdiction items last), then by aspect."""
        order = {code: n for n, code in enumerate([*self.places, ANY_JURISDICTION])}
        aspects = list(Aspect)
        return tuple(
            sorted(self.items.values(), key=lambda i: (order.get(i.jurisdiction, len(order)), aspects.index(i.aspect)))
        )

    def _national(self, place: PlannedJurisdiction, aspect: Aspect) -> None:
        ask = f"{place.name}: {own_law(place.code)} (the corpus holds {place.via} sources, which apply there)"
        self._put(
            PlanItem(
                id=item_id(place.code, aspect),
                jurisdiction=place.code,
                aspect=aspect,
                ask=ask,
                query="",
                answerable=False,
            )
        )

    def _put(self, item: PlanItem) -> None:
        self.items.setdefault(item.id, item)


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
            out, usage, notes = self.client.call(
                "llm planner", PlanOut, PLAN_SYSTEM, plan_prompt(question, floor.plan, names, ctx)
            )
        except LlmUnavailableError as exc:
            note = f"llm planner unavailable ({exc.reason}); the {self.fallback.name} planner's plan is used"
            return replace(floor, usage=add_usage(floor.usage, exc.usage), notes=(*exc.notes, *floor.notes, note))
        plan, dropped = merge_plan(floor.plan, out, ctx)
        usage = with_counts(usage, dropped=len(dropped))
        return PlanResult(plan=plan, usage=add_usage(floor.usage, usage), notes=(*floor.notes, *notes, *dropped))
