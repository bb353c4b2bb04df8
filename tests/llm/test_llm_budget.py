"""The prompt budget: passages ranked per plan item and fitted into WORKBENCH_LLM_CONTEXT_TOKENS, shortened to
whole sentences (the quoted ones kept) or left out, with the cut said in the prompt and counted in the record."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from core.config import Settings
from core.domain.answer import Answer, AnswerSection, Claim, Quote
from core.domain.documents import Catalog, Hit
from core.engines.base import EngineContext
from core.engines.llm import LlmClient, LlmCritic, LlmDrafter, LlmUnavailableError
from core.engines.llm.budget import Passage, fit, round_robin
from core.engines.llm.prompts import DRAFT_SYSTEM, draft_prompt
from core.engines.llm.schemas import AnswerOut, FindingsOut
from core.engines.llm.tokens import TokenCounter, server_count
from tests.llm.conftest import corpus, two_country_plan
from tests.llm.loopback import LoopbackLLM, claim, completion, structured, system_text, user_text
from tests.loop.corpora import AS_OF

FILLER = " ".join(
    f"Paragraph {n} of the act restates the general duties of every payment firm in detail." for n in range(40)
)
"""About 700 tokens of sentences that answer nothing."""
KEY = "Owner disclosure applies to each person holding more than 30% of a payment firm."


def long_ctx() -> tuple[EngineContext, dict[str, list[Hit]]]:
    """Ten long passages per plan item of the two-country plan, the key sentence in the middle of RU's first."""
    metas = {m.jurisdiction: m for m, _ in corpus()}
    passages: dict[str, str] = {}
    hits: dict[str, list[Hit]] = {}
    for item in two_country_plan().items:
        meta = metas[item.jurisdiction]
        for n in range(10):
            chunk_id = f"{meta.id}#{n}"
            half = len(FILLER) // 2
            body = FILLER[:half] + (f" {KEY} " if (meta.id, n) == ("ru-act", 0) else " ") + FILLER[half:]
            passages[chunk_id] = body
            hits.setdefault(item.id, []).append(
                Hit(
                    doc_id=meta.id,
                    chunk_id=chunk_id,
                    chunk_index=n,
                    score=1.0 - n / 100,
                    title=meta.title,
                    jurisdiction=meta.jurisdiction,
                    status="in_force",
                    text=body,
                )
            )
    ctx = EngineContext(
        catalog=Catalog([m for m, _ in corpus()]),
        as_of=AS_OF,
        doc_text=lambda d: "",
        passage=lambda c: passages.get(c, ""),
    )
    return ctx, hits


def test_the_draft_prompt_fits_the_budget_best_passages_of_each_item_first(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """At a 3,072-token context twenty 700-token passages cannot all go in: each item's best passage goes in
    before any item's second; the rest is shortened or left out and the prompt says so."""
    ctx, hits = long_ctx()
    client = LlmClient(llm_settings(llm_context_tokens=3072, llm_max_tokens=512))
    room = client.room(DRAFT_SYSTEM, AnswerOut)
    text, fitted = draft_prompt(two_country_plan(), hits, ctx, room)
    assert room.counter.count(text) <= room.tokens
    shown = [p.chunk_id for p, _ in fitted.shown]
    assert shown[:2] == ["ru-act#0", "xy-guidance#0"] and fitted.left_out
    assert "To fit the prompt budget, passages were" in text and fitted.left_out[0] in text and " more." in text
    assert text.count("Ruritania Payments Act") == 1  # the document's metadata once, not per passage


def test_a_shortened_passage_keeps_whole_sentences_and_its_quoted_sentence() -> None:
    counter = TokenCounter()
    p = Passage("ru-act#0", FILLER[:1500] + " " + KEY + " " + FILLER[1500:], keep=(KEY,), about="owner disclosure")
    fitted = fit([p], lambda q, body: f"<document>{body}</document>", counter, 200)
    ((_, text),) = fitted.shown
    assert fitted.shortened == ["ru-act#0"] and KEY in text and counter.count(text) <= 200
    body = text.removeprefix("<document>").removesuffix("</document>")
    assert all(s.strip().endswith(".") for s in body.split(" … "))


def test_round_robin_takes_each_groups_best_first_and_never_twice() -> None:
    a, b, c = (Passage(x, x) for x in "abc")
    assert [p.chunk_id for p in round_robin([[a, b], [b, c], [a]])] == ["a", "b", "c"]


def test_the_critic_and_drafter_calls_stay_within_the_context_and_record_the_cut(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """Every request's messages fit the context less the reply's max tokens; the drafter's call records the
    passages the budget cut; the critic's prompt keeps the quoted sentence of a cited passage."""
    ctx, hits = long_ctx()
    settings = llm_settings(llm_context_tokens=2048, llm_max_tokens=512)
    client = LlmClient(settings)
    plan = two_country_plan()
    llm_server.push(structured({"verdict": None, "sections": []}))
    draft = LlmDrafter(client, fallback=None).draft(plan, hits, ctx)
    assert draft.usage.calls[0].left_out > 0 and any("To fit the prompt budget" in n for n in draft.notes)
    cited = Claim(
        text="Disclosure above 30%.",
        plan_item_ids=("RU:threshold",),
        citations=tuple(Quote(doc_id="ru-act", chunk_id=f"ru-act#{n}", quote=KEY if n == 0 else "") for n in range(6)),
    )
    answer = Answer(sections=(AnswerSection(jurisdiction="RU", claims=(cited,)),))
    llm_server.push(structured({"deficiencies": []}))
    LlmCritic(client).critique(plan, answer, [], ctx)
    for req in llm_server.requests:
        used = client.tokens.messages(system_text(req), user_text(req))
        assert used + req["max_completion_tokens"] <= 2048
    assert KEY in user_text(llm_server.requests[1])


def test_the_drafter_may_not_cite_a_passage_the_budget_left_out(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    ctx, hits = long_ctx()
    client = LlmClient(llm_settings(llm_context_tokens=2048, llm_max_tokens=512))
    out = {
        "verdict": None,
        "sections": [{"jurisdiction": "RU", "claims": [claim("Filler.", [], "ru-act#9", FILLER[:80])]}],
    }
    llm_server.push(structured(out))
    result = LlmDrafter(client, fallback=None).draft(two_country_plan(), hits, ctx)
    assert result.answer.claims() == []
    assert "dropped a citation of 'ru-act#9': not among the passages given" in " | ".join(result.notes)


def test_a_prompt_the_server_counts_longer_is_fitted_again_not_resent(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """The server's tokenizer counts the draft prompt at twice the estimate, so the reply stops short of its limit
    with the context full: the counter learns the server's count and the prompt goes out once more, smaller,
    instead of the same prompt being retried to the same cut."""
    ctx, hits = long_ctx()
    client = LlmClient(llm_settings(llm_context_tokens=3072, llm_max_tokens=512))
    first = client.tokens.messages(
        DRAFT_SYSTEM, draft_prompt(two_country_plan(), hits, ctx, client.room(DRAFT_SYSTEM, AnswerOut))[0]
    )
    llm_server.push(
        completion('{"verdict": null, "sect', finish_reason="length", prompt_tokens=2 * first, completion_tokens=30),
        structured({"verdict": None, "sections": []}),
    )
    draft = LlmDrafter(client, fallback=None).draft(two_country_plan(), hits, ctx)
    sent = [user_text(r) for r in llm_server.requests]
    assert len(sent) == 2 and len(sent[1]) < len(sent[0]) and client.tokens.scale > 1.5
    (call,) = draft.usage.calls
    assert call.outcome == "answered" and call.attempts == 2 and call.prompt_tokens >= 2 * first
    assert any("fitted again to the server's count" in n for n in draft.notes)


def test_a_reply_cut_by_a_full_context_is_not_retried_with_the_same_prompt(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    client = LlmClient(llm_settings(llm_context_tokens=2048, llm_max_tokens=512))
    llm_server.push(completion('{"deficien', finish_reason="length", prompt_tokens=2000, completion_tokens=48))
    with pytest.raises(LlmUnavailableError) as raised:
        client.call("llm critic", FindingsOut, "s", "u")
    assert raised.value.reason == "context full" and len(llm_server.requests) == 1


def test_a_server_that_counts_tokens_gets_a_prompt_fitted_to_its_count_before_it_is_sent(
    llm_settings: Callable[..., Settings],
) -> None:
    """A server with llama-cpp-python's count route, whose tokenizer counts three tokens a word: the draft prompt
    is counted there, found too long for the context, and fitted again before any chat request: one request, and
    it fits by the server's own count."""
    server = LoopbackLLM(token_count=lambda text: 3 * len(text.split()))
    try:
        ctx, hits = long_ctx()
        settings = llm_settings(openai_base_url=server.base_url, llm_context_tokens=3072, llm_max_tokens=512)
        client = LlmClient(settings)
        server.push(structured({"verdict": None, "sections": []}))
        draft = LlmDrafter(client, fallback=None).draft(two_country_plan(), hits, ctx)
        (request,) = server.requests
        served = 3 * len(f"{system_text(request)}\n{user_text(request)}".split())
        assert len(server.counted) == 2 and served <= client.prompt_budget
        assert any("the server counts the prompt at" in n for n in draft.notes)
        (call,) = draft.usage.calls
        assert call.outcome == "answered" and call.attempts == 1 and call.prompt_estimate <= client.prompt_budget
    finally:
        server.close()


def test_an_answer_too_long_for_the_room_goes_to_the_critic_without_its_quotes(
    llm_server: LoopbackLLM, llm_settings: Callable[..., Settings]
) -> None:
    """Thirty claims, each quoting a long sentence, would take the critic's whole room with their quotes: the quotes
    are left out (the prompt says so) and the prompt stays within its budget with room for passages."""
    ctx, _ = long_ctx()
    client = LlmClient(llm_settings(llm_context_tokens=3072, llm_max_tokens=512))
    sentence = FILLER[:400]
    claims = tuple(
        Claim(
            text=f"Duty {n} applies.",
            plan_item_ids=("RU:threshold",),
            citations=(Quote(doc_id="ru-act", chunk_id=f"ru-act#{n % 10}", quote=sentence),),
        )
        for n in range(30)
    )
    answer = Answer(sections=(AnswerSection(jurisdiction="RU", claims=claims),))
    llm_server.push(structured({"deficiencies": []}))
    LlmCritic(client).critique(two_country_plan(), answer, [], ctx)
    (request,) = llm_server.requests
    text = user_text(request)
    assert client.tokens.messages(system_text(request), text) <= client.prompt_budget
    assert "the claims' quoted sentences are left out" in text and "cites ru-act#0" in text
    assert text.count(sentence) < 30


def test_each_server_is_probed_for_a_token_count_once(llm_server: LoopbackLLM) -> None:
    """A server that counts is asked on the route that answered, one without a count route is probed once."""
    counting = LoopbackLLM(token_count=lambda text: len(text.split()))
    try:
        for _ in range(2):
            assert server_count(counting.base_url, "m", "three little words") == 3
            assert server_count(llm_server.base_url, "m", "three little words") is None
        assert counting.paths == ["/extras/tokenize/count"] * 2
        assert llm_server.paths == ["/extras/tokenize/count", "/tokenize"]
    finally:
        counting.close()
