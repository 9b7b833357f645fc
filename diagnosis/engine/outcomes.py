"""What became of a write: the one owner of an action's status in the report. Pure: no I/O, no ORM.

1. Refused (policy or a person): denied, expired, or refused with the policy's code; never sent.
2. Answered: done when the tool said so, failed when it answered an error.
3. Sent, answer lost (unknown_outcome): only the server can say, by its idempotency key
   (`get_action_status`, asked by the executor in the same attempt). Its record → done; "no
   action with this key" → failed; no answer to the question either → unknown, never failed.
"""

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from reasoning.observations import Observation
from reasoning.report import ActionRecord, ActionStatus

StatusAnswer = Literal["done", "not_done", "unknown"]
_REFUSALS: Mapping[str, ActionStatus] = {
    "approval_denied": "denied",
    "approval_expired": "expired",
}


@dataclass(frozen=True)
class ActionOutcome:
    status: ActionStatus
    reason: str | None = None
    status_span_id: str | None = None  # the get_action_status span it rests on
    approval_id: str | None = None  # the Approval that allowed or refused the write

    @property
    def is_done(self) -> bool:
        return self.status == "done"

    def apply(self, record: ActionRecord, *, span_id: str) -> None:
        """Write this outcome onto the report's record of the action."""
        record.span_id = span_id
        record.status = self.status
        record.reason = self.reason
        record.status_span_id = self.status_span_id
        record.approval_id = self.approval_id


def status_answer(check: Observation | None) -> StatusAnswer:
    """What a get_action_status call says of the write: done, not done, or nothing known."""
    if check is None or not check.is_ok:
        return "unknown"
    result: Any = check.result
    if not isinstance(result, Mapping) or not isinstance(result.get("found"), bool):
        return "unknown"
    if not result["found"]:
        return "not_done"
    return "done" if result.get("status") == "done" else "unknown"


def action_outcome(acted: Observation) -> ActionOutcome:
    """The status the report gives the write `acted` (its span, and the status call after it)."""
    return replace(_outcome(acted), approval_id=acted.approval_id)


def _outcome(acted: Observation) -> ActionOutcome:
    if acted.refused:
        code = acted.error_code or "refused"
        status = _REFUSALS.get(code, "refused")
        # A person's refusal reads in their words (the span's message), not as a code.
        if status != "refused" and acted.error_message:
            return ActionOutcome(status, reason=acted.error_message)
        return ActionOutcome(status, reason=code)
    if acted.is_ok:
        return ActionOutcome("done")
    if not acted.outcome_unknown:
        return ActionOutcome(
            "failed", reason=acted.error_message or acted.error_code or None
        )
    check = acted.status_check
    check_span = check.span_id if check is not None else None
    answer = status_answer(check)
    if answer == "done":
        return ActionOutcome(
            "done",
            reason="the answer was lost; the server's status by its idempotency key "
            "says it was performed",
            status_span_id=check_span,
        )
    if answer == "not_done":
        return ActionOutcome(
            "failed",
            reason="the answer was lost; the server's status by its idempotency key "
            "says it was not performed",
            status_span_id=check_span,
        )
    if check is None:
        why = "the server offers no status tool"
    else:
        why = (
            f"the status call failed: {check.error_code or 'error'}"
            f"{': ' + check.error_message if check.error_message else ''}"
        )
    return ActionOutcome("unknown", reason=why[:500], status_span_id=check_span)
