"""How the offline drafter and revisers choose sentences for a plan item: the candidates, how they are scored
(topic words weighted by rarity, stems, acronyms, the asked figure and entity) and how they are picked within the
item's word and sentence budget."""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from core.domain.answer import Answer, Claim, Quote
from core.domain.figures import (
    WORD_COUNT,
    age_bounds,
    count_bounds,
    figures,
    period_sides,
    stated_ages,
    stated_counts,
)
from core.domain.gazetteer import currency_hint, same_jurisdiction
from core.domain.instructions import has_instructions
from core.domain.plan import ANY_JURISDICTION, Aspect, PlanItem, ResearchPlan
from core.engines.base import EngineContext
from core.engines.offline.relevance import (
    ASKED_FIGURE,
    DURATION_BOUND,
    asked_figures,
    feature,
    min_relevance,
    phrases,
    rarity,
    relevance,
    said_terms,
    subject_best,
    topic_share,
    topical_sentence,
)
from core.engines.offline.sources import ENDED, usable
from core.engines.text import (
    ORDINAL_BACK,
    cut_list,
    defined_terms,
    defines,
    is_anaphoric,
    list_items,
    refers_back,
    same_sentence,
    sentences,
    term_set,
    terms,
)

ENTITY_SOURCE = 0.5
"""A source that declares it applies to the entity type the question names, and a sentence that names it (in
words or by its initials, "MSBs"), speak to that entity's duties."""
ANCHOR = 0.8
"""A passage that states the very figure the question asks about is where the context of the answer is."""
WORDS_PER_ITEM = 112
"""Most words the claims drafted for one plan item may take (the plan's word budget usually allows fewer, see
`item_budget`): coverage must come from the right sentences, not from pasting passages."""
MIN_WORDS_PER_ITEM = 112
"""Words every item may say, whatever the plan's word budget (`ResearchPlan.word_budget`, 60 per item) allows.
Measured on the quality bench (stateful loop): with the plan's budget (2-3 sentences per item) q1-q6 fell from
63/73 to 53/73 facts; at 75 words and 4 sentences q1-q6 gave 60/73 and heldout 145/175 (from 156/175); at 112
words and 6 sentences neither regresses. Until the ranking picks fact-dense sentences, coverage wins and the
bench reports the answers over budget."""
SENTENCES_PER_ITEM = 6
SENTENCES_PER_DOCUMENT = 2
"""Per item, so that a question naming several instruments of one jurisdiction hears from each."""
HISTORY_SENTENCES = 1
"""Sentences one item takes from a document no longer in force when a source in force answers it too, besides
those stating its end: what the rules were is context; what they are now is the answer, even where the question
names the old act."""


@dataclass(frozen=True)
class Candidate:
    """A sentence (with its predecessor when it needs one) that may answer a plan item."""

    score: float
    text: str
    quotes: tuple[Quote, ...]
    doc_id: str
    jurisdiction: str
    history: bool
    follow: str = ""
    """The next sentence of the passage when it goes on about the same thing (the second half of a rule)."""
    lead: str = ""
    """The lead-in of the list the candidate quotes (a whole list, or one item after its lead-in), else ""."""
    item_said: int = 0
    """Topic words the list item states itself (its lead-in aside): an item stating none goes on in no list."""
    item_at: int = -1
    """Its item's place in the list (`Unit.at`)."""


DUTY = re.compile(r"\b(?:must|shall|(?:is|are) required|(?:has|have|needs?) to|(?:is|are) due|obliged)\b", re.I)
DUTY_ASKED = re.compile(
    r"\b(?:by when|within how \w+|how (?:long|soon|quickly|fast|many \w+))\s+(?:must|shall)\b", re.I
)
OWN_COUNT_FITS = ANCHOR
"""A sentence whose bound admits the count the question gives of its own subject is about the question's facts,
as one stating the asked figure is."""
BOUND_FITS = ANCHOR
"""A sentence setting the most a period may last ("may not exceed 12 months") where the question asks the longest
allowed (`DURATION_BOUND`): it states the bound asked, as an anchoring figure does."""
DUTY_BY = 0.5
"""Asked within how long something must be done, a sentence saying what must be done by when ("must be reported on
Form 4 before the end of the second business day") answers before one where a period only passes ("no trade may
take place until 90 days after the plan is adopted"). Asked how long one can do something (a right: "within how
long can a homeowner cancel"), no such preference: a duty bonus there cost the three-year limit of CC5."""
DEFINES_ASKED = 1.0
"""Asked how a term is defined ("how is a microenterprise defined?"), the sentence that opens by saying what it is
("A microenterprise is an enterprise which employs fewer than 10 persons ...") is the answer, before sentences
listing what a law covers."""
TOPICAL_DOCUMENT = 0.75
"""A document stating at least this share of the subject words the most topical document at hand states is about
the question: its sentences that show the item's feature (a figure, a period) answer it even in the document's own
words ("consolidated revenue of at least AUD 100 million" for "size thresholds that trigger disclosure duties").
Measured on the quality bench (stateful loop): supply chain 65 -> 69 of 90 facts, consumer credit 59 -> 60,
heldout residual severity 1.82 -> 1.70, nothing lower; at 1.0 the same, at 0.5 one heldout fact more and longer
answers."""
WIDER_TOPICAL = 0.65
"""A wider jurisdiction's document stating at least this share of the subject words the most topical document
states speaks for the named place beside its own law (the EU's consumer credit directive, 6 of 13 words, beside
Germany's civil code, 9; the EU whistleblowing directive, 8 of 11, beside Germany's act); below it, it is on
another matter (federal conflict-minerals filings, 3 of 5, beside California's slavery disclosure act). Measured
on the quality bench: at 0.75 (`TOPICAL_DOCUMENT`) consumer credit lost a fact (the EU directive's new scope for a
German loan); at 0.65 no file loses one, and answers on a state or member state shrink by half or more (WB7 729 ->
323 words, SC4 459 -> 247, PT7 405 -> 177)."""
CONTINUES = 3
"""Content words a following sentence must share with a chosen one to be its continuation."""


QUALIFIER = re.compile(
    r"\b(?:no|not|never|none|struck|annull?\w*|repeal\w*|invalidat\w*|revoked|withdrawn|however|except\w*|"
    r"unless|only|but)\b",
    re.I,
)
"""Words by which a sentence limits or undoes what it refers back to."""


def qualified_by(before: str, after: str) -> bool:
    """Whether `after` limits or undoes what `before` states, pointing back to it ("The bill provided for a civil
    fine of up to EUR 10 million." "The Constitutional Council struck these civil fines down, so the law contains
    no fine."): `before` is never quoted without it. (The limit may be quoted alone: it says what holds.)"""
    return refers_back(before, after) and bool(QUALIFIER.search(after))


@dataclass(frozen=True)
class Unit:
    """What a candidate is made of: a sentence of a passage, or one item of a list with its lead-in (`units`);
    `quotes` are the verbatim passage texts it is read from."""

    text: str
    quotes: tuple[str, ...]
    lead: str = ""
    """The lead-in of the list it quotes (`list_items`), else ""."""
    before: int = -1
    """The index of the unit before it in the passage (for an item of a list, the one before the list), or -1."""
    at: int = -1
    """Its place in its list, for an item of a list; else -1."""


COUNTED_SET = re.compile(rf"(?:{WORD_COUNT}|\b\d+\b)(?:(?:\s+\w+)?\s+\w+s\b|-\w+)")
"""A lead-in that counts what it lists ("at least two of the following three conditions", "set in three tiers",
"where three elements are present", "a five-step process"): the items are read together, and the list is quoted
whole."""


def units(text: str) -> list[Unit]:
    """The passage's sentences, a list (`list_items`) split into its items, each quoted after its lead-in ("The Rule
    does not apply, among other cases, to: … the large-franchisee exemption: a franchisee ... at $5 million."): the
    item that answers, not 160 words of exemptions, and each item judged on its own. A list whose lead-in counts
    its items (`COUNTED_SET`) stays whole, unless the passage ends before the list does (`cut_list`)."""
    out: list[Unit] = []
    cut = cut_list(text)
    for sent in [*sentences(text), *([cut] if cut else [])]:
        listed = list_items(sent)
        whole = listed is not None and bool(COUNTED_SET.search(listed[0]))
        before = len(out) - 1
        if listed is None or (whole and sent != cut):
            out.append(Unit(sent, (sent,), listed[0] if listed else "", before))
            continue
        lead, items = listed
        out += [
            Unit(f"{lead} {'… ' if k else ''}{item}.", (lead, item), lead, before, k) for k, item in enumerate(items)
        ]
    return out


def doc_units(doc_id: str, ctx: EngineContext) -> list[Unit]:
    """The units of each passage of a document in order, each once (passages overlap): a list split over two
    passages is read item by item from each, not as the text the overlap repeats."""
    out: dict[str, Unit] = {}
    for k in itertools.count():
        chunk = ctx.chunk(f"{doc_id}#{k}")
        if chunk is None:
            break
        out.update((u.text, u) for u in units(chunk.text) if u.text not in out)
    return list(out.values())


def whole_after(parts: Sequence[Unit], i: int) -> str:
    """The unit after `parts[i]` when it is a whole sentence (an item of a list needs its lead-in), else ""."""
    return parts[i + 1].text if i + 1 < len(parts) and len(parts[i + 1].quotes) == 1 else ""


def qualifier_after(parts: Sequence[Unit], i: int) -> list[str]:
    """The sentence after `parts[i]` when it is whole, qualifies it (`qualified_by`) and instructs no one: it is
    quoted with it. Empty otherwise."""
    nxt = whole_after(parts, i)
    return [nxt] if nxt and qualified_by(parts[i].text, nxt) and not has_instructions(nxt) else []


def _list_head(parts: list[Unit], i: int) -> int:
    """The unit an ordinal sentence counts from ("There are two exceptions." for "The second applies to ..."): the
    one before it, past the sentences that count the same way ("The first applies ..."); -1 when none."""
    b = parts[i].before
    while b >= 0 and ORDINAL_BACK.match(parts[b].text):
        b = parts[b].before
    return b


def continues(before: str, after: str) -> bool:
    """Whether `after` goes on about what `before` states (CONTINUES content words shared)."""
    return len(term_set(before) & term_set(after)) >= CONTINUES


def candidates(
    item: PlanItem,
    passages: Iterable[tuple[str, str, str, float]],
    plan: ResearchPlan,
    ctx: EngineContext,
    weights: Mapping[str, float] | None = None,
) -> list[Candidate]:
    """Scored sentences of passages `(doc_id, chunk_id, text, retrieval score)` that may answer the item, best first.

    Only documents usable at the as-of date, of the item's jurisdiction, relevant to the topic and showing the
    aspect's feature qualify. A sentence that opens with a pronoun or connective brings its predecessor along,
    or is left out when that one is not usable either."""
    topic = set(plan.topic_terms)
    entity_terms = [tuple(terms(e)) for e in plan.entity_types]
    focus = set(plan.focus_terms)
    floor = min_relevance(topic)
    passages = list(passages)
    asked = asked_figures(plan.question)
    own, ages = stated_counts(plan.question), stated_ages(plan.question)
    duty_asked = item.aspect == Aspect.deadline and bool(DUTY_ASKED.search(plan.question))
    bound_asked = item.aspect == Aspect.deadline and bool(DURATION_BOUND.search(plan.question))
    defined = defined_terms(plan.question) if item.aspect == Aspect.definition else []
    if weights is None:
        weights = rarity((t for _, _, t, _ in passages), topic)
    out: list[Candidate] = []
    shares = {d: topic_share(plan, ctx.doc_text(d)) for d in dict.fromkeys(p[0] for p in passages) if d in ctx.catalog}
    best_share = max(
        [
            *shares.values(),
            *([subject_best(plan, ctx, item.jurisdiction)] if item.jurisdiction != ANY_JURISDICTION else []),
        ],
        default=0,
    )
    for rank, (doc_id, chunk_id, text, _) in enumerate(passages):
        ok, history = usable(doc_id, plan, ctx)
        doc = ctx.catalog.get(doc_id)
        if not ok or doc is None:
            continue
        if not (item.jurisdiction == ANY_JURISDICTION or same_jurisdiction(item.jurisdiction, doc.jurisdiction)):
            continue
        hint = currency_hint(doc.jurisdiction)
        parts = units(text)
        sents = [u.text for u in parts]
        topical = [topical_sentence(plan, s, shares.get(doc_id, 0), best_share) for s in sents]
        anchored = ANCHOR if asked and any(f.key in asked for s in sents for f in figures(s, hint)) else 0.0
        feats = [feature(item, s, plan, hint) for s in sents]
        said = [len(said_terms(topic, s, plan.topic_terms)) for s in sents]
        on_topic = any(f >= 1.0 and n >= 1 for f, n in zip(feats, said)) or (
            best_share >= 2 and shares.get(doc_id, 0) >= TOPICAL_DOCUMENT * best_share
        )
        for i, sent in enumerate(sents):
            feat, shared = feats[i], said[i]
            ordinal = ORDINAL_BACK.match(sent) is not None
            head = _list_head(parts, i) if ordinal else -1
            if feat == 0.0 and head >= 0:  # an item of a list is of the kind the list names ("There are two
                feat = feature(item, f"{sents[head]} {sent}", plan, hint)  # exceptions. The second applies to ...")
            if feat == 0.0 or not topical[i] or not starts_whole(sent) or has_instructions(sent):
                continue
            b = parts[i].before
            if b >= 0 and (is_anaphoric(sent) or continues(sents[b], sent)):
                # "Breach of this duty ...", "the default notice must give ...": about what the one before states
                shared = len(said_terms(topic, f"{sents[b]} {sent}", plan.topic_terms))
            stressed = bool(focus and said_terms(focus, sent, plan.focus_terms))
            admits = bool(own or ages) and fits(own, sent, ages)  # the rule for the question's own count or age
            needed = (
                1 if feat >= 1.0 or stressed or doc_id in plan.named_doc_ids or admits else round(floor * len(topic))
            )
            if (feat >= 1.0 and (anchored or on_topic)) or (item.aspect == Aspect.verdict and feat == ASKED_FIGURE):
                needed = 0  # the passage is about the topic: its other figures, dates, exemptions belong too
            if topic and shared < needed:
                continue
            rel = relevance(topic, sent, weights, plan.topic_terms)
            shown, quote_texts = [sent], list(parts[i].quotes)
            if is_anaphoric(sent):
                chain = [head if ordinal else b]  # the sentences the claim quotes before this one
                if not ordinal and chain[0] >= 0 and is_anaphoric(sents[chain[0]]):
                    chain.insert(0, parts[chain[0]].before)  # "It covers ... It does not cover ...": one further back
                opener = chain[0]
                if opener < 0 or is_anaphoric(sents[opener]) or not starts_whole(sents[opener]):
                    continue  # no antecedent a claim can open with ("does not restrict ...", a list's last item)
                if any(has_instructions(sents[k]) for k in chain):
                    continue
                shown = [*(sents[k] for k in chain), sent]
                quote_texts = [*(q for k in chain for q in parts[k].quotes), *quote_texts]
            nxt, after = whole_after(parts, i), qualifier_after(parts, i)
            shown, quote_texts = shown + after, quote_texts + after
            named = 0.4 if doc_id in plan.named_doc_ids else 0.0
            named += ENTITY_SOURCE if set(plan.entity_types) & set(doc.applies_to) else 0.0
            named += ENTITY_SOURCE if any(set(t) <= said_terms(set(t), sent, t) for t in entity_terms) else 0.0
            score = (
                3.0 * rel
                + relevance(set(plan.focus_terms), sent, weights)
                + 0.5 * phrases(plan, sent)
                + feat
                + named
                + anchored
                + (DUTY_BY if duty_asked and DUTY.search(sent) else 0.0)
                + (OWN_COUNT_FITS if admits else 0.0)
                + (BOUND_FITS if bound_asked and any(side == "below" for *_, side in period_sides(sent)) else 0.0)
                + (DEFINES_ASKED if any(defines(sent, t) for t in defined) else 0.0)
                + 0.5 / (1 + rank)
            )
            follow = (
                nxt
                if (
                    nxt
                    and nxt not in quote_texts
                    and continues(sent, nxt)
                    and not has_instructions(nxt)
                    and feature(item, nxt, plan, hint) >= 1.0
                    and said_terms(topic, nxt, plan.topic_terms)
                )
                else ""
            )
            out.append(
                Candidate(
                    score=score,
                    text=" ".join(shown),
                    quotes=tuple(Quote(doc_id=doc_id, chunk_id=chunk_id, quote=q) for q in quote_texts),
                    doc_id=doc_id,
                    jurisdiction=doc.jurisdiction,
                    history=history,
                    follow=follow,
                    lead=parts[i].lead,
                    item_said=len(said_terms(topic, parts[i].quotes[-1], plan.topic_terms)) if parts[i].lead else 0,
                    item_at=parts[i].at,
                )
            )
    out.sort(key=lambda c: (-c.score, c.doc_id, c.quotes[0].chunk_id))  # ties in reading order, however hits came
    return out


Passage = tuple[str, str, str, float]
"""(doc_id, chunk_id, text, retrieval score)."""


def beside_own_law(
    plan: ResearchPlan, passages_of: Mapping[str, list[Passage]], ctx: EngineContext
) -> dict[str, list[Passage]]:
    """The passages per item, those of a wider jurisdiction the question does not name (the United States for "in
    California") kept only from documents nearly as topical as the best found (`WIDER_TOPICAL`) where the named place
    has law of its own in the corpus: the federal conflict-minerals rule says nothing of California's slavery
    disclosures, and the place's own answer leaves no gap in the wider one (`answered_for_the_place`)."""
    named = {j.code for j in plan.jurisdictions}
    wider = {c for j in plan.jurisdictions if j.in_corpus for c in j.answered_from() if c not in named}
    if not wider:
        return dict(passages_of)
    docs = {p[0] for ps in passages_of.values() for p in ps if p[0] in ctx.catalog}
    shares = {d: topic_share(plan, ctx.doc_text(d)) for d in docs}
    best = max(shares.values(), default=0)
    of_item = {i.id: i.jurisdiction for i in plan.items}
    return {
        item_id: [p for p in ps if of_item.get(item_id) not in wider or shares.get(p[0], 0) >= WIDER_TOPICAL * best]
        for item_id, ps in passages_of.items()
    }


def fits(own: set[float], sentence: str, ages: Collection[float] = ()) -> bool:
    """Whether a bounded count of the sentence admits a count the question gives of its own subject ("50 to 249
    employees" for "a firm with 80 staff"), or an age bound an age it gives ("by 20% for employees under 17" for
    "16-year-old helpers"): the rule that applies to the facts set out, not its neighbour."""
    return any(lo <= n <= hi for lo, hi in count_bounds(sentence) for n in own) or any(
        lo <= n <= hi for lo, hi in age_bounds(sentence) for n in ages
    )


def item_budget(plan: ResearchPlan) -> int:
    """Words one item's claims may take: the answer's word budget shared among its answerable items."""
    items = sum(1 for i in plan.items if i.answerable and i.aspect not in (Aspect.comparison, Aspect.verdict))
    return max(MIN_WORDS_PER_ITEM, min(WORDS_PER_ITEM, plan.word_budget() // max(1, items)))


def starts_whole(sentence: str) -> bool:
    """Whether a sentence opens as a sentence does (a capital, a digit, a quote or a bracket), not mid-way through
    one ("and must then ...")."""
    first = sentence.lstrip()[:1]
    return bool(first) and not first.islower()


def pick(
    cands: Sequence[Candidate],
    item: PlanItem,
    answer_texts: list[str],
    *,
    budget: int = WORDS_PER_ITEM,
    limit: int = SENTENCES_PER_ITEM,
    shared: list[str] | None = None,
    named: Iterable[str] = (),
    extend: list[tuple[str, Quote, str]] | None = None,
) -> list[Claim]:
    """Claims for the item from the best candidates: no sentence the answer already holds, within the word budget.
    `answer_texts` is updated with what was picked; a good candidate the answer already states is appended to
    `shared` (that claim answers this item too); a sentence whose antecedent the answer already states goes to
    `extend` as (antecedent, quote, text), to be appended to the claim that states it (see `extended`); so does
    another item of a list the answer already quotes, within the budget ("… the large-investment exemption: ...")."""
    claims: list[Claim] = []
    words = 0
    per_doc: dict[str, int] = {}
    lists: set[str] = set()  # the lead-ins of the lists this item's claims quote
    grown: set[str] = set()  # and of those it added an item to
    top: dict[str, float] = {}  # the score of each list's best item
    last: dict[str, tuple[str, int]] = {}  # (passage, place) of each list's last item quoted: the next goes on

    def quoting(c: Candidate) -> None:  # this item's claims now quote c, an item of a list or not
        if c.lead:
            lists.add(c.lead)
            last[c.lead] = (c.quotes[-1].chunk_id, c.item_at)

    asked = set(named) | ({cands[0].doc_id} if cands else set())  # the item's best source is not capped
    current = any(not x.history for x in cands)
    for c in _diverse(cands, asked):
        capped = c.doc_id not in asked and len({x.doc_id for x in cands}) > 1
        if capped and per_doc.get(c.doc_id, 0) >= SENTENCES_PER_DOCUMENT:
            continue
        if c.history and current and per_doc.get(c.doc_id, 0) >= HISTORY_SENTENCES and not ENDED.search(c.text):
            continue
        entry = _list_entry(c)
        if c.lead:  # the best item of each list, for this plan item, whether the answer quotes it already or not
            top.setdefault(c.lead, c.score)
        if c.lead and stated(c.lead, answer_texts) and not (entry and stated(entry.quote, answer_texts)):
            # the answer quotes this list: an item stating a topic word of its own, scoring near the list's best,
            # goes on in it, within the budget (one item for a plan item that did not quote the list itself)
            n = len(entry.quote.split()) if entry else 0
            near = c.score >= top[c.lead] - LIST_MARGIN
            grows = c.item_said > 0 and near and (c.lead in lists or c.lead not in grown)
            if extend is not None and entry is not None and grows and words + n <= budget:
                gap = "" if (entry.chunk_id, c.item_at - 1) == last.get(c.lead) else "… "  # without "…"
                extend.append((c.lead, entry, f"; {gap}{entry.quote}."))
                last[c.lead] = (c.quotes[-1].chunk_id, c.item_at)
                answer_texts.append(entry.quote)
                grown.add(c.lead)
                words += n
            continue
        if (
            len(c.quotes) > 1
            and stated(c.quotes[0].quote, answer_texts)
            and not stated(c.quotes[-1].quote, answer_texts)
        ):
            if extend is not None:  # its antecedent is already in the answer: it goes right after it (an item of a
                before = c.quotes[0].quote  # list after its lead-in)
                for q in c.quotes[1:]:
                    listed = q is not entry and not q.quote.rstrip().endswith(SENTENCE_END)  # another list item
                    extend.append(
                        (before, q, f"; … {q.quote}." if listed else f"{q.quote}." if q is entry else q.quote)
                    )
                    answer_texts.append(q.quote)
                    before = q.quote
                quoting(c)
            continue
        held = [t for t in answer_texts if any(stated(q.quote, [t]) for q in c.quotes)]
        if held:
            if shared is not None and not claims and not shared:
                shared.append(held[0])
            continue
        n = len(c.text.split())
        if claims and words + n > budget:
            continue
        text, quotes = c.text, c.quotes
        if c.follow and not stated(c.follow, answer_texts) and words + n + len(c.follow.split()) <= budget:
            text, quotes = (
                f"{text} {c.follow}",
                (*quotes, Quote(doc_id=c.doc_id, chunk_id=quotes[-1].chunk_id, quote=c.follow)),
            )
            n += len(c.follow.split())
        claims.append(Claim(text=text, plan_item_ids=(item.id,), citations=quotes, history=c.history))
        answer_texts.append(text)
        per_doc[c.doc_id] = per_doc.get(c.doc_id, 0) + 1
        words += n
        quoting(c)
        if len(claims) >= limit or words >= budget:
            break
    return claims


def also_answers(answer: Answer, texts: Sequence[str], item_id: str) -> Answer:
    """The answer with the claims stating these texts tagged with one more plan item, the verdict included (a
    verdict quoting "Since 1 January 2020, ... must have a policy" answers the item asking since when)."""
    wanted = set(texts)

    def tagged(c: Claim) -> Claim:
        if c.text not in wanted:
            return c
        return c.model_copy(update={"plan_item_ids": tuple(dict.fromkeys((*c.plan_item_ids, item_id)))})

    if answer.verdict is not None:
        answer = answer.model_copy(update={"verdict": tagged(answer.verdict)})
    for section in answer.sections:
        answer = answer.with_claims(section.jurisdiction, [tagged(c) for c in section.claims])
    return answer


SENTENCE_END = (".", "!", "?", ")", '"', "'", "”")
"""How a quoted sentence ends; a list item is quoted without its closing semicolon or full stop."""


LIST_MARGIN = 0.5
"""Another item of a list an item's claim quotes goes on in it when it scores within this of the best item quoted:
the exemptions a question asks about, not every exemption the list names."""


def _list_entry(c: Candidate) -> Quote | None:
    """The quote of the list item a candidate quotes after its lead-in, or None (a sentence, or a whole list)."""
    at = next((k for k, q in enumerate(c.quotes) if q.quote == c.lead), None) if c.lead else None
    return c.quotes[at + 1] if at is not None and at + 1 < len(c.quotes) else None


def stated(quote: str, texts: Iterable[str]) -> bool:
    """Whether one of the texts already holds the quoted sentence."""
    return any(same_sentence(quote, t) or quote.lower() in t.lower() for t in texts)


def _diverse(cands: Sequence[Candidate], named: set[str]) -> list[Candidate]:
    """Candidates with the best one of each document first (in score order), then the rest; the documents the
    question names keep their order."""
    firsts: dict[str, Candidate] = {}
    for c in cands:
        firsts.setdefault(c.doc_id, c)
    top = [c for c in cands if firsts.get(c.doc_id) is c or c.doc_id in named]
    best = cands[0].score if cands else 0.0
    lead = [c for c in top if c.score >= best - DIVERSITY_MARGIN]
    return lead + [c for c in cands if c not in lead]


DIVERSITY_MARGIN = 0.5
"""A document's best sentence goes ahead of a stronger document's second sentence when it scores within this of
the best candidate."""


def extended(answer: Answer, additions: Sequence[tuple[str, Quote, str]], item_id: str) -> Answer:
    """The answer with each added sentence (quote, and the text it is shown as) right after the claim stating its
    antecedent, in that claim; an item of a list goes on after a semicolon ("...; the next item.", "...; … a later
    one.")."""
    for antecedent, quote, shown in additions:

        def grow(c: Claim, antecedent: str = antecedent, quote: Quote = quote, shown: str = shown) -> Claim:
            if antecedent not in c.text or quote.quote in c.text:
                return c
            listed = shown.startswith("; ") and c.text.endswith(".")  # an item of a list: "...; next item."
            return c.model_copy(
                update={
                    "text": f"{c.text[:-1]}{shown}" if listed else f"{c.text} {shown.lstrip('; ')}",
                    "citations": (*c.citations, quote),
                    "plan_item_ids": tuple(dict.fromkeys((*c.plan_item_ids, item_id))),
                }
            )

        if answer.verdict is not None:
            answer = answer.model_copy(update={"verdict": grow(answer.verdict)})
        for section in answer.sections:
            answer = answer.with_claims(section.jurisdiction, [grow(c) for c in section.claims])
    return answer


def answer_texts(answer: Answer) -> list[str]:
    """Every claim text of an answer (for de-duplication)."""
    return [c.text for _, c in answer.claims()]


def section_code(item: PlanItem, cand_jurisdiction: str) -> str:
    """The section a claim for this item goes to: the item's jurisdiction, or the source's for an any-item."""
    return cand_jurisdiction if item.jurisdiction == ANY_JURISDICTION else item.jurisdiction
