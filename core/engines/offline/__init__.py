"""Offline engine (no network, deterministic): a planner, an extractive drafter with one reviser per deficiency
type, and the rule critic (coverage, claim and metadata verifiers). Nothing in it is keyed to particular
questions or documents: every rule reads the question's words and what the corpus declares."""

from core.engines.offline.drafter import OfflineDrafter
from core.engines.offline.planner import OfflinePlanner
from core.engines.offline.sources import citations_for, short_name
from core.engines.offline.verifiers import OfflineCritic

__all__ = ["OfflineCritic", "OfflineDrafter", "OfflinePlanner", "citations_for", "short_name"]
