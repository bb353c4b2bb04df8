"""A review card's values as a decision: the Research page's cards hold no decision until the analyst picks one,
and a rejection needs a reason. Pure: no Streamlit."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def card_decision(
    proposal: Mapping[str, Any], action: str | None, query: str, note: str
) -> tuple[dict[str, Any] | None, str | None]:
    """One review card's values as a decision, or an error saying what the card still needs (a card has no
    decision until the analyst picks one)."""
    if action is None:
        return None, f"{proposal['id']}: choose approve, edit query or reject"
    query, note = query.strip(), note.strip()
    if action == "reject":
        if not note:
            return None, f"{proposal['id']}: say why you reject this correction (note)"
        return {"action": "reject", "note": note}, None
    if action == "edit" or query != proposal["query"]:
        if not query:
            return None, f"{proposal['id']}: the edited correction query is empty"
        return {"action": "edit", "query": query, "note": note}, None
    return {"action": "approve", "note": note}, None
