"""The JSON export: the session as the service returns it (codes kept), with its outcome and the audit verdict."""

from __future__ import annotations

import json

from core.domain.audit import chain_head
from core.export.content import SETTINGS_MISSING, Export


def render_json(e: Export) -> bytes:
    r = e.result
    payload = r.model_dump(mode="json")
    payload["provisional"] = not e.finished
    payload["outcome"] = e.outcome.model_dump(mode="json")
    payload["audit"] = {
        "verified": e.audit_ok,
        "message": e.audit_message,
        "covers": {"cycle_records": len(r.evaluation_history), "human_acts": len(r.human_acts)},
        "chain_head": chain_head(r.audit_records),
    }
    if r.settings is None:
        payload["settings_note"] = SETTINGS_MISSING
    payload["exported_by"] = e.exported_by
    payload["exported_at"] = e.exported_at
    return json.dumps(payload, indent=2, ensure_ascii=False).encode("utf-8")
