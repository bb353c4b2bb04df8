"""LLM engine: planner, drafter and critic on any OpenAI-compatible chat model (langchain-openai `ChatOpenAI`).

The model answers in strict JSON (`with_structured_output(method="json_schema")`, validated with pydantic);
Python turns it into the same `ResearchPlan`, typed `Answer` and `Deficiency` records the offline engine makes,
checking every jurisdiction, plan item, citation and quote against the corpus and the plan. Every call goes
through `LlmClient`: a wall-clock deadline, bounded retries and a circuit breaker, then `LlmUnavailableError`,
which each engine turns into a fallback with a note.
"""

from core.engines.llm.client import LlmClient, LlmUnavailableError
from core.engines.llm.critic import LlmCritic
from core.engines.llm.drafter import LlmDrafter
from core.engines.llm.planner import LlmPlanner

__all__ = ["LlmClient", "LlmCritic", "LlmDrafter", "LlmPlanner", "LlmUnavailableError"]
