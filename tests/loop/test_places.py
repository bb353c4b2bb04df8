"""Jurisdictions from world knowledge (unions, member states, subdivisions, GB and UK) and the plan's recall check,
on a corpus of minimal front matter the tests build themselves (tests/loop/places.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from core.config import Settings
from core.domain.answer import gap_for
from core.domain.documents import Catalog, Chunk, DocumentMeta, SearchFilter
from core.domain.gazetteer import iso_code, occurrences, read_places, same_jurisdiction
from core.domain.plan import ANY_JURISDICTION, Aspect, PlannedJurisdiction, ResearchPlan
from core.domain.world import PATTERNS_FILE, city_place, country_named, load_patterns, load_unions, unions_file
from core.engines.base import EngineContext
from core.engines.offline.planner import OfflinePlanner
from core.persistence.checkpoints import memory_persistence
from core.retrieval.embeddings import Embedder
from core.retrieval.registry import open_store
from core.service import Workbench
from tests.fakes import KeywordStore
from tests.loop.corpora import AS_OF
from tests.loop.places import label_corpus

CATALOG = Catalog(m for m, _ in label_corpus())


def plan_of(question: str, catalog: Catalog = CATALOG) -> ResearchPlan:
    ctx = EngineContext(catalog=catalog, as_of=AS_OF, doc_text=lambda _: "")
    return OfflinePlanner().plan(question, ctx).plan


def places(question: str, catalog: Catalog = CATALOG) -> list[tuple[str, bool, tuple[str, ...]]]:
    return [(p.code, p.in_corpus, p.wider) for p in read_places(question, catalog).places]


@pytest.fixture
def wb(tmp_path: Path) -> Workbench:
    return Workbench(Settings(data_dir=tmp_path), store=KeywordStore(label_corpus()), persistence=memory_persistence())


def test_the_unions_file_names_its_source_and_date_and_refuses_unknown_members(tmp_path: Path) -> None:
    data = unions_file()
    assert data.source and data.checked.year >= 2026
    assert {u.code for u in data.unions} >= {"EU", "EEA"}
    bad = tmp_path / "unions.yaml"
    bad.write_text("source: s\nchecked: 2026-01-01\nunions:\n  - {code: XU, name: X, members: [DE, QQ]}\n")
    with pytest.raises(ValueError, match="XU lists QQ, not ISO 3166-1 alpha-2"):
        load_unions(bad)


@pytest.mark.parametrize("question", ["What does the European Union require?", "What must I do in the EU?"])
def test_a_union_is_known_by_name_and_code_without_front_matter(question: str) -> None:
    assert places(question) == [("EU", True, ())]
    plan = plan_of(question)
    assert plan.answer_codes() == ["EU"] and [i.jurisdiction for i in plan.items if i.answerable] == ["EU"]


def test_a_member_state_is_answered_from_its_union_and_its_own_documents() -> None:
    assert places("What must a producer with customers in Germany do?") == [("DE", True, ("EU",))]
    assert plan_of("What must a producer with customers in Germany do?").answer_codes() == ["DE", "EU"]
    only_union = Catalog(m for m, _ in label_corpus() if m.jurisdiction == "EU")
    assert places("And in France?", only_union) == [("FR", False, ("EU",))]
    assert places("And in Norway?", only_union) == [("NO", False, ())]  # EEA, not EU: the corpus holds no EEA law


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What does New York's regulator require?", [("US-NY", True, ("US",))]),
        ("Is it different in Quebec?", [("CA-QC", True, ())]),
        ("Is it different in Québec?", [("CA-QC", True, ())]),
        ("What applies in Ontario?", [("CA-ON", False, ())]),
        ("Does Ontario require a recall report?", [("CA-ON", False, ())]),
        ("Has Bavaria changed the rule?", [("DE-BY", False, ("DE", "EU"))]),
        ("Must an Ontario company label its goods?", [("CA", False, ())]),
        ("What applies in Bavaria?", [("DE-BY", False, ("DE", "EU"))]),
        ("What applies in Paris?", [("FR", False, ("EU",))] * 0),
        ("Does the rule apply in Georgia?", [("GE", False, ())]),
        ("Does the rule apply in the US state of Georgia?", [("US", True, ()), ("US-GA", False, ("US",))]),
        ("Must a Delaware company label its goods?", [("US", True, ())]),
        ("Must labels be written in French in Quebec?", [("CA-QC", True, ())]),
        ("What applies in French law?", [("FR", False, ("EU",))]),
    ],
)
def test_subdivisions_by_name_with_care_for_false_positives(
    question: str, expected: list[tuple[str, bool, tuple[str, ...]]]
) -> None:
    assert places(question) == expected


def test_a_subdivision_is_answered_from_its_own_documents_and_its_countrys() -> None:
    plan = plan_of("What must a seller in New York mark on its containers?")
    assert plan.answer_codes() == ["US-NY", "US"]
    assert {i.jurisdiction for i in plan.items if i.answerable} == {"US-NY", "US"}
    by_authority = plan_of("What does the New York State Department of Environmental Conservation require?")
    assert by_authority.answer_codes() == ["US-NY", "US"] and by_authority.not_understood == ()


def test_a_name_two_countries_share_is_reported_not_guessed() -> None:
    plan = plan_of("Is it different in Punjab?")
    assert plan.jurisdictions == () and plan.not_understood == ("Punjab (a subdivision of India, Pakistan)",)
    assert [i.answerable for i in plan.items if i.id.startswith("named:")] == [False]


def test_codes_match_in_capitals_and_names_in_any_case() -> None:
    assert occurrences("US", "Tell us what applies") == []
    assert occurrences("US", "in the US's rules") == [(7, 11)]
    assert occurrences("European Union", "the european union") == [(4, 18)]
    assert occurrences("EU", "the eu rules") == []
    assert places("Tell us what applies to packaged goods.") == []


def test_a_state_the_corpus_holds_is_named_by_its_adjective() -> None:
    # "a Californian employer with 20 employees" had no place: the headcount verdict found no source to apply
    ca = Catalog([DocumentMeta(id="ca-pay", title="California pay scale law", jurisdiction="US-CA")])
    assert [p[0] for p in places("Must a Californian employer with 20 employees publish pay scales?", ca)] == ["US-CA"]
    assert [p[0] for p in places("Must a Texan employer publish pay scales?", ca)] == []


def test_a_place_in_a_compound_adjective_is_named_and_a_joined_code_is_not() -> None:
    # "our EU-listed company" got an empty plan: a hyphen after the name hid it
    assert occurrences("EU", "A director of our EU-listed company") == [(18, 20)]
    assert occurrences("Germany", "a Germany-based bank") == [(2, 9)]
    assert occurrences("US", "filed under US-NY") == []
    assert occurrences("EU", "non-EU firms") == []


def test_a_country_name_the_libraries_lack_is_read_from_its_name_pattern_in_a_place_position() -> None:
    # "Has Britain raised its threshold ...?" was planned with no place: pycountry and countryinfo know "Great
    # Britain" but not "Britain"; the plan said it "could not place" it and answered the EU alone
    assert (country_named("Britain"), country_named("Holland"), country_named("Burma")) == ("GB", "NL", "MM")
    assert country_named("Federation") is None and country_named("Union") is None
    plan = plan_of("Has Britain raised its packaging threshold, like the EU did?")
    assert plan.answer_codes() == ["GB", "EU"] and not plan.not_understood
    # only a name in a place's position is read so: a capitalised word elsewhere is not a country
    assert plan_of("What must producers of packaged goods do in the EU? Britain aside.").answer_codes() == ["EU"]
    # a second name of a place already read is read too: "the UK ... the courts in Britain" had disclosed that the
    # plan "could not place" Britain
    twice = plan_of("Has the UK capped non-compete clauses? What test do the courts in Britain apply?")
    assert twice.answer_codes() == ["GB"] and twice.not_understood == ()


def test_a_city_in_a_place_position_is_read_as_its_country_or_us_state() -> None:
    # "A customer in Munich took out a loan ..." and "a company listed in Frankfurt" got no answer at all: the plan
    # "could not place" the city, so neither Germany's nor the EU's law was looked up
    assert (city_place("Munich"), city_place("Frankfurt"), city_place("Houston")) == ("DE", "DE", "US-TX")
    assert city_place("Cambridge") is None  # England's and Massachusetts' cities are of a size: neither
    assert city_place("Victoria") is None  # an Australian state's name: the subdivision reading decides
    assert city_place("Police") is None  # a town too small to be told from the word
    plan = plan_of("A customer in Munich took out a loan for packaged goods. What applies?")
    assert plan.answer_codes() == ["DE", "EU"] and not plan.not_understood  # Germany, from its own and its union's law
    assert plan.jurisdictions[0].code == "DE" and plan.jurisdictions[0].named_as == ("Munich",)
    # GeoNames holds a district of Quezon City called "Commonwealth": after an article a name is no city
    assert city_place("Commonwealth") == "PH"
    assert plan_of("What applies to packaged goods in the Commonwealth?").answer_codes() == []


def test_a_city_read_as_its_country_discloses_the_parts_of_it_the_corpus_holds_law_of() -> None:
    # GeoNames gives no province outside the US: "Toronto" is answered from Canada's law, and whether Ontario's
    # own law applies there is disclosed, not silently dropped
    catalog = Catalog(
        [
            DocumentMeta(id="ca-pay", title="Federal pay equity act", jurisdiction="CA"),
            DocumentMeta(id="on-pay", title="Provincial pay transparency act", jurisdiction="CA-ON"),
        ]
    )
    plan = plan_of("Must an employer in Toronto publish salary ranges?", catalog)
    assert plan.answer_codes() == ["CA"] and plan.not_understood == ("Toronto",)
    disclosed = [i for i in plan.items if not i.answerable]
    assert [i.ask for i in disclosed] == ['"Toronto" in a part of Canada (the corpus holds law of Ontario)']


def test_a_city_beside_a_named_part_of_its_country_is_not_read_as_the_whole_country() -> None:
    # "We operate a courier app in Ottawa. Since when do Ontario's rules apply?" had planned Canada (no source,
    # disclosed as a missing jurisdiction) beside Ontario; the analyst asked of Ontario
    catalog = Catalog([DocumentMeta(id="on-pay", title="Provincial pay transparency act", jurisdiction="CA-ON")])
    plan = plan_of("We employ staff in Toronto. Must we publish salary ranges under Ontario's act?", catalog)
    assert plan.answer_codes() == ["CA-ON"] and [j.code for j in plan.jurisdictions] == ["CA-ON"]
    disclosed = [i for i in plan.items if not i.answerable]
    assert [i.ask for i in disclosed] == ['"Toronto" in a part of Canada (the corpus holds law of Ontario)']


def test_initials_in_the_plural_are_no_place_the_question_asks_about() -> None:
    # "Are NFTs excluded from MiCA?" had no plan item but the disclosure of "NFTs": read as a place, it kept the
    # plan from asking of any jurisdiction
    catalog = Catalog(
        [DocumentMeta(id="xy-miwa", title="Regulation on markets in widget-assets (MiWA)", jurisdiction="XY")]
    )
    plan = plan_of("Are NFTs excluded from MiWA?", catalog)
    assert plan.not_understood == ("NFTs",)
    assert any(i.answerable and i.aspect != "verdict" for i in plan.items), plan.items


def test_the_country_patterns_file_names_its_source_and_date_and_refuses_bad_entries(tmp_path: Path) -> None:
    data = load_patterns(PATTERNS_FILE)
    assert "OCHA" in data.source and data.checked.year >= 2026 and len(data.patterns) > 200
    bad = tmp_path / "country_patterns.yaml"
    bad.write_text("source: s\nchecked: 2026-01-01\npatterns:\n  QQ: 'nowhere'\n")
    with pytest.raises(ValueError, match="QQ are not ISO 3166-1 alpha-2"):
        load_patterns(bad)
    bad.write_text("source: s\nchecked: 2026-01-01\npatterns:\n  GB: 'brit(ain'\n")
    with pytest.raises(ValueError, match="the pattern of GB does not compile"):
        load_patterns(bad)


def test_an_authority_name_documents_of_two_places_give_names_neither() -> None:
    # "Does the UK now have an Office of the Whistleblower ...?" was planned for Ontario (whose commission's office
    # bears that name, as the SEC's does) and got "no source ... for CA-ON" beside the UK's answer
    catalog = Catalog(
        [
            DocumentMeta(
                id="on-osc",
                title="OSC whistleblower program",
                jurisdiction="CA-ON",
                authority="Ontario Securities Commission (OSC), Office of the Whistleblower",
            ),
            DocumentMeta(
                id="us-sec",
                title="SEC whistleblower program",
                jurisdiction="US",
                authority="Securities and Exchange Commission (SEC), Office of the Whistleblower",
            ),
            DocumentMeta(id="gb-pida", title="Public interest disclosures", jurisdiction="GB"),
        ]
    )
    assert [p[0] for p in places("Does the UK have an Office of the Whistleblower?", catalog)] == ["GB"]
    assert [p[0] for p in places("What does the Ontario Securities Commission pay?", catalog)] == ["CA-ON"]
    # asked what holds now, the yes/no is about the rules, the date only grounds it
    plan = plan_of("Does the UK now have an Office of the Whistleblower paying rewards?", catalog)
    assert {(i.aspect.value, i.supporting) for i in plan.items if i.jurisdiction == "GB"} == {
        ("date", True),
        ("obligation", False),
    }


def test_uk_and_gb_name_one_jurisdiction_and_both_are_retrieved(wb: Workbench) -> None:
    assert same_jurisdiction("UK", "GB") and not same_jurisdiction("UK", "US")
    for question in ("What applies in the UK?", "What applies in the United Kingdom?", "And for British firms?"):
        assert places(question) == [("GB", True, ())]
    assert set(SearchFilter(jurisdictions=("UK",)).jurisdictions) >= {"UK", "GB"}
    r = wb.start("What must producers of packaged goods do in the United Kingdom?", as_of=AS_OF, approve="all")
    cited = {d for _, c in r.answer.claims() for d in c.doc_ids}
    assert {"uk-pack-regs", "gb-pack-guide"} <= cited
    assert not [d for d in r.residual_deficiencies if d.deficiency_type.value == "missing_jurisdiction"]


STATES_ONLY = Catalog(
    [
        DocumentMeta(id="ca-epr", title="State packaging producer act", jurisdiction="US-CA"),
        DocumentMeta(id="or-epr", title="State recycling modernization act", jurisdiction="US-OR"),
        DocumentMeta(id="ca-fed", title="Federal packaging act", jurisdiction="CA"),
        DocumentMeta(id="on-epr", title="Provincial blue box regulation", jurisdiction="CA-ON"),
    ]
)


@pytest.mark.parametrize(
    ("question", "codes"),
    [
        # found in use: "Which US states require packaging EPR?" was told the corpus holds no source on the US
        ("Which US states require packaging EPR, and from when?", ["US", "US-CA", "US-OR"]),
        ("Is there a packaging EPR law in force in the United States?", ["US", "US-CA", "US-OR"]),
        ("Which Canadian provinces require packaging EPR?", ["CA", "CA-ON"]),  # asked of provinces by their kind
        ("What does Canada require of packaging producers?", ["CA"]),  # the country's own law answers it
        ("What do the United States and Oregon require?", ["US", "US-OR"]),  # a state named: not every state
        ("Can Canadian firms pay the federal rate in provinces that allow it?", ["CA"]),  # qualifies, asks not which
        ("What do the United States' member states require?", ["US", "US-CA", "US-OR"]),  # no US-wide law either way
    ],
)
def test_a_country_is_answered_from_the_states_or_provinces_the_corpus_holds_where_they_answer_for_it(
    question: str, codes: list[str]
) -> None:
    plan = plan_of(question, STATES_ONLY)
    assert [j.code for j in plan.jurisdictions] == codes
    assert all(j.in_corpus for j in plan.jurisdictions[1:])


def test_a_country_answered_only_from_its_states_says_so() -> None:
    plan = plan_of("Is there a packaging EPR law in the United States?", STATES_ONLY)
    us = plan.jurisdictions[0]
    assert (us.in_corpus, us.parts) == (False, ("US-CA", "US-OR"))
    (item,) = [i for i in plan.items if i.jurisdiction == "US"]
    assert gap_for(item, plan).text == (
        "The corpus holds no source for United States as a whole, only law of California and Oregon, answered above."
    )


def test_places_named_before_the_place_they_lie_in_are_not_unplaced() -> None:
    # "locations in Fresno, California, and in Manhattan and Buffalo, New York" disclosed "The plan could not place
    # 'Manhattan and Buffalo'" as a gap of an otherwise complete answer
    plan = plan_of("We sell packaged goods in Manhattan and Buffalo, New York. What must sellers mark?")
    assert [j.code for j in plan.jurisdictions][:1] == ["US-NY"] and plan.not_understood == ()
    plan = plan_of("What must sellers mark in Atlantis?")  # a name standing alone is still disclosed
    assert plan.not_understood == ("Atlantis",)


def test_a_member_state_and_a_subdivision_are_answered_in_the_loop(wb: Workbench) -> None:
    r = wb.start("What must producers of packaged goods do in Germany?", as_of=AS_OF, approve="all")
    assert {"de-pack-act", "eu-pack-reg"} <= {d for _, c in r.answer.claims() for d in c.doc_ids}
    assert "## DE (Germany)" in r.final_answer and "## EU (European Union)" in r.final_answer
    r = wb.start("What must sellers of packaged goods do in New York?", as_of=AS_OF, approve="all")
    assert {"us-ny-pack-law", "us-pack-rule"} <= {d for _, c in r.answer.claims() for d in c.doc_ids}
    assert "## US-NY (New York)" in r.final_answer and "## US (United States)" in r.final_answer


@pytest.mark.parametrize(
    "question",
    [
        "What does the European Union require of producers?",
        "What applies in Atlantis?",
        "What does the Atlantis Gaming Commission require of producers?",
        "What applies in Ontario?",
        "Under the Zeta Accord, what must producers in the EU print?",
    ],
)
def test_every_named_place_authority_or_instrument_is_planned_or_disclosed(question: str) -> None:
    plan = plan_of(question)
    assert plan.items
    named = {n for j in plan.jurisdictions for n in j.named_as} | set(plan.not_understood)
    assert named, "the question names something and the plan records it"
    for text in plan.not_understood:
        assert any(not i.answerable and text in i.ask for i in plan.items)


def test_what_the_plan_did_not_understand_is_disclosed_in_the_answer(wb: Workbench) -> None:
    r = wb.start("What does the Atlantis Gaming Commission require of producers?", as_of=AS_OF, approve="all")
    assert r.plan.not_understood == ("Atlantis Gaming Commission",)
    assert any("Atlantis Gaming Commission" in g.text for g in r.answer.gaps)
    assert "Atlantis Gaming Commission" in r.final_answer
    nowhere = plan_of("What applies in Atlantis?")
    assert nowhere.not_understood == ("Atlantis",) and not any(
        i.jurisdiction == ANY_JURISDICTION and i.answerable for i in nowhere.items
    )
    known = plan_of("What does the Label Regulation say in the EU?")
    assert known.not_understood == ()
    # a place named twice is read once: its second mention in "US Section 16" names no unknown body
    twice = plan_of("A producer sells in the US and the EU. When must it report under US Section 16?")
    assert twice.not_understood == ()
    # a currency code beside a place names an amount ("in Germany and EUR 300 million turnover")
    amount = plan_of("We have 1,200 staff in Germany and EUR 300 million turnover. What must producers print?")
    assert amount.not_understood == ()


@pytest.mark.parametrize(
    ("question", "unknown"),
    [
        ("Has Atlantis set up a register of producers?", ("Atlantis",)),
        ("Does Xylandia require labels, like the EU?", ("Xylandia",)),
        ("Labels are required in the EU. Must Atlantis producers print them?", ("Atlantis",)),
        ("Does the EU require labels?", ()),
        ("Does Label Regulation apply to producers?", ()),
    ],
)
def test_the_subject_of_a_yes_no_question_is_placed_or_disclosed(question: str, unknown: tuple[str, ...]) -> None:
    """A name the question asks about ("Has Britain set up ...?") is a place or a body like one after "in": an
    unknown one is disclosed, not dropped while the plan answers for the other places named."""
    plan = plan_of(question)
    assert plan.not_understood == unknown
    for text in unknown:
        assert any(not i.answerable and text in i.ask for i in plan.items)


def test_a_plan_checkpointed_before_wider_places_still_loads() -> None:
    old = {
        "question": "q",
        "as_of": "2026-11-30",
        "jurisdictions": [{"code": "DE", "name": "Germany", "in_corpus": False, "via": "EU"}],
    }
    plan = ResearchPlan.model_validate(old)
    assert plan.not_understood == () and plan.answer_codes() == ["EU"]
    assert PlannedJurisdiction(code="US-NY", name="New York", wider=("US",)).answered_from() == ["US-NY", "US"]


@pytest.mark.parametrize(
    ("typed", "code"),
    [
        ("UK", "GB"),
        ("uk", "GB"),
        ("Germany", "DE"),
        ("European Union", "EU"),
        ("Quebec", "CA-QC"),
        ("GB", None),
        ("INT", None),
    ],
)
def test_iso_codes_for_what_an_analyst_types(typed: str, code: str | None) -> None:
    assert iso_code(typed) == code


def test_a_filter_on_one_code_finds_documents_filed_under_the_other_on_the_real_store(
    tmp_path: Path, backend_settings: Callable[..., Settings], embedder: Embedder
) -> None:
    store = open_store(backend_settings("edge", tmp_path / "data"))
    texts = {
        "UK": "Producers report packaging weight yearly.",
        "GB": "Producers print a recycling label.",
        "US": "Producers state the net quantity.",
    }
    store.upsert_documents(
        [
            (
                DocumentMeta(id=f"{code.lower()}-doc", title=f"{code} doc", jurisdiction=code),
                [Chunk(doc_id=f"{code.lower()}-doc", chunk_index=0, text=text)],
            )
            for code, text in texts.items()
        ]
    )
    for code in ("UK", "GB"):
        hits = store.search("producers packaging", k=5, flt=SearchFilter(jurisdictions=(code,)))
        assert {h.doc_id for h in hits} == {"uk-doc", "gb-doc"}
    store.close()


def test_covers_stays_an_override_for_a_bloc_world_knowledge_does_not_know() -> None:
    bloc = DocumentMeta(id="bl-reg", title="Bloc rule", jurisdiction="BL", extra={"covers": ["DE"]})
    catalog = Catalog([*(m for m, _ in label_corpus()), bloc])
    assert places("What applies in Germany?", catalog) == [("DE", True, ("EU", "BL"))]
    assert plan_of("What applies in Germany?", catalog).answer_codes() == ["DE", "EU", "BL"]


def test_an_aspect_asked_in_a_part_naming_one_place_is_asked_of_that_place_only() -> None:
    """ "How does Canada's federal criminal interest rate compare with New York's criminal usury threshold, and from
    when has the current Canadian rate applied?" planned the date for New York too, and disclosed a false gap when
    its sources said nothing of when. An apostrophe in "Canada's ... New York's" quoted nothing either (it had made
    the words between them a stressed concept to define)."""
    plan = plan_of(
        "How does Germany's label rule compare with New York's label law, and since when has the German rule applied?"
    )
    dated = {i.jurisdiction for i in plan.items if i.aspect == Aspect.date}
    assert dated == {"DE", "EU"}
    assert {"US-NY", "US"} <= {i.jurisdiction for i in plan.items if i.answerable}
    assert plan.focus_terms == () and Aspect.definition not in {i.aspect for i in plan.items}
    both = plan_of("Since when have the label rules applied in Germany and in New York?")
    assert {"DE", "US-NY"} <= {i.jurisdiction for i in both.items if i.aspect == Aspect.date}
    # a comparison asks what was asked before it of every place it names; "And in New York?" asks it all there
    compared = plan_of("Did Germany change its label rule in 2024? How does it compare with New York's label law?")
    assert {"DE", "US-NY"} <= {i.jurisdiction for i in compared.items if i.aspect == Aspect.date}
    again = plan_of("Within how many days must producers in Germany report a label recall? And in New York?")
    assert {"DE", "US-NY"} <= {i.jurisdiction for i in again.items if i.aspect == Aspect.deadline}


@pytest.mark.parametrize(
    "question",
    [
        "A customer in Ontario was hurt by one of our heaters. We import the heaters from a manufacturer in China. "
        "Do we have to report the incident?",
        "Our toys are made in Vietnam and sold in Canada. Must they carry a label?",
    ],
)
def test_where_goods_come_from_is_not_a_place_asked_about(question: str) -> None:
    # "the question asks about China; the corpus holds no source for China" had been left as a residual
    codes = [p.code for p in read_places(question, CATALOG).places]
    assert "CN" not in codes and "VN" not in codes
    assert codes


def test_where_imported_goods_are_sold_is_a_place_asked_about() -> None:
    # "imports bicycle helmets from Taiwan and sells them in Australia" had read Australia as an origin too: the
    # question then named no place at all
    question = "Our company imports bicycle helmets from Taiwan and sells them in Australia. Must we report?"
    assert [p.code for p in read_places(question, CATALOG).places] == ["AU"]


@pytest.mark.parametrize(
    ("question", "codes"),
    [
        (
            "We are a Japanese snack maker starting to sell in Germany next month. Must we register our packaging?",
            ["DE"],
        ),
        # the corpus holds no Canada-wide law, only Quebec's: Quebec is answered beside the disclosed gap
        ("A US company sells toys in Canada. Must it carry a bilingual label?", ["CA", "CA-QC"]),
        ("Must a Japanese snack maker register its packaging?", ["JP"]),
        ("A director of a German listed company bought shares. Has the EU changed the threshold?", ["DE", "EU"]),
    ],
)
def test_where_the_askers_business_is_from_is_not_a_place_asked_where_another_is_named(
    question: str, codes: list[str]
) -> None:
    # "We are a Japanese snack maker starting to sell in Germany" got a section on Japan's recycling law (found in
    # the browser): the adjective says where the business is from; the law asked is where it sells
    assert [p.code for p in read_places(question, CATALOG).places] == codes
