"""Engine choice: `offline | llm | hybrid` from settings.engine; hybrid when a model is configured, else offline.
See docs/engines.md."""

from __future__ import annotations

from core.config import ENGINE_NAMES, EngineName, Settings
from core.engines.base import Critic, Drafter, Planner
from core.engines.offline import OfflineCritic, OfflineDrafter, OfflinePlanner


class EngineConfigError(ValueError):
    """The requested engine cannot run with the current settings."""


def model_configured(settings: Settings) -> bool:
    """Whether an OpenAI-compatible model is configured (an API key or a base URL)."""
    return bool(settings.openai_api_key or settings.openai_base_url)


def engine_name(settings: Settings) -> EngineName:
    """The engine the settings ask for: WORKBENCH_ENGINE, else hybrid with a model, offline without."""
    return settings.engine or ("hybrid" if model_configured(settings) else "offline")


def make_engines(settings: Settings) -> tuple[Planner, Drafter, Critic, str]:
    """The planner, drafter, critic and engine name the settings ask for.

    llm and hybrid share one model client (one deadline policy and one circuit breaker): the LLM planner on top
    of the offline planner, the LLM drafter falling back to the offline drafter per call, and the composite
    critic. llm: the LLM critic over the rule floor (coverage and claim verifiers). hybrid: the LLM critic and
    every rule verifier merged by deficiency ID.
    """
    name = engine_name(settings)
    if name not in ENGINE_NAMES:  # settings built without validation (model_copy, model_construct)
        raise EngineConfigError(f"unknown engine {name!r}: use one of {', '.join(ENGINE_NAMES)}")
    if name == "offline":
        return OfflinePlanner(), OfflineDrafter(), OfflineCritic(), "offline"
    if not model_configured(settings):
        raise EngineConfigError(f"engine {name!r} needs a model: set OPENAI_API_KEY and/or OPENAI_BASE_URL")
    from core.engines.composite import CompositeCritic, RuleFloor
    from core.engines.llm import LlmClient, LlmCritic, LlmDrafter, LlmPlanner

    client = LlmClient(settings)
    rules = OfflineCritic()
    floor: Critic = rules if name == "hybrid" else RuleFloor()
    critic = CompositeCritic(
        LlmCritic(client, max_findings=settings.llm_max_findings),
        floor,
        rules,
        name="llm+rules" if name == "hybrid" else "llm",
    )
    drafter = LlmDrafter(
        client, fallback=OfflineDrafter(), max_claims=settings.llm_max_claims, fill_gaps=name == "hybrid"
    )
    return LlmPlanner(client, fallback=OfflinePlanner()), drafter, critic, name
