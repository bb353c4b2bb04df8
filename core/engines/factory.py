"""Engine choice: offline unless a model is configured; see README "Engines"."""

from __future__ import annotations

from core.config import Settings
from core.engines.base import Critic, Drafter
from core.engines.offline import OfflineCritic, OfflineDrafter


class EngineConfigError(ValueError):
    """The requested engine cannot run with the current settings."""


def make_engines(settings: Settings) -> tuple[Drafter, Critic, str]:
    """The drafter, critic and engine name the settings ask for."""
    name = settings.engine or "offline"
    if name == "offline":
        return OfflineDrafter(), OfflineCritic(), "offline"
    raise EngineConfigError(f"unknown engine {name!r}: use offline")
