"""Human words for the codes the loop keeps (deficiency types, resolution and session statuses, stop reasons,
document statuses, the acts of the audit trail). The codes stay in the state and the JSON export; pages, the CLI's
text output and the Markdown and Word exports say these words."""

from __future__ import annotations

from core.domain.stop_reasons import DEGRADED_PREFIX, REASON_CODES, reason_label

ACTION_WORDS: dict[str, str] = {
    "approve": "approved",
    "edit": "approved with an edited query",
    "reject": "dismissed",
    "stop": "stopped the loop",
    "add": "added",
    "confirm": "confirmed resolved",
    "reopen": "found not resolved",
    "proposed": "proposed",
    "strike": "struck",
}
"""What a review decision (or a human act's `new` value of a decision) did, as a verb phrase."""

ACT_WORDS: dict[str, str] = {
    "decision": "decision",
    "review_edit": "edit during review",
    "added": "added deficiency",
    "annotation": "annotation",
    "confirmation": "confirmation",
    "strike": "struck claim",
}
"""The kinds of human act."""


def words(code: str) -> str:
    """The on-screen and in-document wording of a code: a stop reason in its few words, any other code (type,
    status, document status, field name) with spaces for underscores (`missing_jurisdiction` -> `missing
    jurisdiction`, `in_force` -> `in force`)."""
    if code in REASON_CODES or code.startswith(DEGRADED_PREFIX):
        return reason_label(code)
    return code.replace("_", " ")


def action_words(action: str) -> str:
    """A review decision as words (`approve` -> `approved`)."""
    return ACTION_WORDS.get(action, words(action))


def act_words(kind: str) -> str:
    """A kind of human act as words (`review_edit` -> `edit during review`)."""
    return ACT_WORDS.get(kind, words(kind))


def plural(n: int, one: str, many: str | None = None) -> str:
    """`1 deficiency`, `3 deficiencies`."""
    return f"{n} {one if n == 1 else many or one + 's'}"
