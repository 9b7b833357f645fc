"""The payload of every persisted event kind (DESIGN §5): one TypedDict per kind, `type` a Literal.

What a client reads (SSE `data:` and the table's rows) is the envelope plus the kind's keys: the
row's `data` holds task_id, incident_id and the keys below, and the stream adds event_id (= seq,
also the SSE `id:`), type (= the SSE `event:`) and occurred_at from the row's columns
(diagnosis.streaming.db). docs/engine.md lists every key; tests/diagnosis/engine/
test_payloads_doc.py keeps the two in step. The report is not an event: it is on the task.
"""

from typing import Any, Final, Literal, NotRequired, TypedDict

SpanEndState = Literal["ok", "error", "refused", "cancelled", "unknown_outcome"]


class _Envelope(TypedDict):
    event_id: int
    occurred_at: str  # ISO 8601, UTC
    task_id: str
    incident_id: str


# A state change (services.diagnosis_transition) carries the move; `from` is a keyword, hence
# the functional form.
_Move = TypedDict("_Move", {"from": str, "to": str})


class TaskCreated(_Envelope):
    type: Literal["task_created"]
    plan: str


class TaskStarted(_Envelope, _Move):
    type: Literal["task_started"]
    attempt: int  # 1 for the first run, +1 per re-queue
    worker: str  # the lease owner (host:pid:thread)


class TaskRequeued(_Envelope, _Move):
    type: Literal["task_requeued"]
    # lease_expired (the reaper), database_unavailable (the runner: the database outlasted
    # its retries), or the approval decision that un-parks it
    reason: str
    attempt: NotRequired[int]  # the attempt that ended (reaper or runner re-queue)


class TaskCancelling(_Envelope, _Move):
    type: Literal["task_cancelling"]


class TaskCancelled(_Envelope, _Move):
    type: Literal["task_cancelled"]
    reason: NotRequired[str]  # lease_expired when the reaper ended it


class TaskCompleted(_Envelope, _Move):
    type: Literal["task_completed"]


class _TaskError(TypedDict):
    # The task's error fields (GET /api/tasks/{id} `error`), from the real cause: the
    # innermost exception behind any ExceptionGroup (diagnosis.failures).
    error_layer: NotRequired[str]  # engine, database, worker, deadline, or a span layer
    error_code: NotRequired[str]  # an exception name, a SQLSTATE, an mcpclient code
    error_message: NotRequired[str]  # at most 2000 characters


class TaskFailed(_Envelope, _Move, _TaskError):
    type: Literal["task_failed"]
    reason: NotRequired[str]  # lease_expired: the worker was lost max_attempts times
    attempt: NotRequired[int]


class TaskTimedOut(_Envelope, _Move, _TaskError):
    type: Literal["task_timed_out"]


class AgentStarted(_Envelope):
    type: Literal["agent_started"]
    agent: str  # metrics | logs | network | kubernetes | runbook | action
    # Absent from the test-only timed plan, which sends only a step name as `agent`.
    round: NotRequired[int]  # the planner's round, from 1
    calls: NotRequired[int]  # calls the agent runs this round


class AgentCompleted(_Envelope):
    type: Literal["agent_completed"]
    agent: str
    round: NotRequired[int]
    calls: NotRequired[int]
    failed: NotRequired[int]  # of those calls, the ones that did not return a result


class ToolQueued(_Envelope):
    type: Literal["tool_queued"]
    # A planned call of a round, before it waits for a slot; none for a call a replay answers.
    call_id: str  # the call's id in this attempt; its later tool_* events carry it too
    agent: str
    server: str
    tool: str
    arguments: dict[str, Any]  # redacted, as the span's
    attempt: int
    why: str  # the planner's reason for the call


class _ToolCall(TypedDict):
    span_id: str  # ToolCallSpan.span_id: the trace's and the report's reference
    call_id: str  # as in tool_queued (a call outside a round has no tool_queued)
    agent: str
    server: str  # the registry's server name
    tool: str


class ToolStarted(_Envelope, _ToolCall):
    type: Literal["tool_started"]
    arguments: dict[str, Any]  # redacted
    attempt: int  # the task's attempt (a re-queued diagnosis runs as attempt 2 …)
    why: str  # the planner's reason for the call


class ToolProgress(_Envelope, _ToolCall):
    type: Literal["tool_progress"]
    # MCP notifications/progress, at most 4 a second per span (coalesced; never terminal).
    progress: float
    total: float | None
    message: str  # "" when the server sent none; at most 200 characters


class _ToolEnded(_Envelope, _ToolCall):
    latency_ms: float | None
    error_layer: (
        str | None
    )  # diagnosis.engine.layers (policy for a refusal); None when ok
    error_code: str | None
    retry_count: int
    state: SpanEndState
    preview: str  # the redacted result preview, at most 300 characters ("" on failure)


class ToolCompleted(_ToolEnded):
    type: Literal["tool_completed"]


class ToolFailed(_ToolEnded):
    type: Literal["tool_failed"]


class ApprovalRequested(_Envelope, _Move):  # the move to waiting_approval
    type: Literal["approval_requested"]
    approval_id: str
    server: str
    tool: str
    arguments: dict[str, Any]  # redacted
    target: str  # what the action acts on (a service, a pod)
    why: str  # the confirmed hypothesis that calls for it
    expires_at: str  # ISO 8601; undecided by then, the approval expires


class ApprovalDecided(_Envelope):
    type: Literal["approval_decided"]
    approval_id: str
    decision: Literal["approve", "deny", "expired"]
    decided_by: str | None  # username; None for an expiry
    reason: str


class AlertBrief(TypedDict):
    fingerprint: str  # Alertmanager's fingerprint, or the PagerDuty dedup_key
    status: Literal["firing", "resolved"]
    name: str  # the alertname label (PagerDuty: the summary)
    summary: str  # the first symptom annotation it has, at most 300 characters


class AlertReceived(_Envelope):
    """Appended to the incident's active task (diagnosis.intake), never by the engine."""

    type: Literal["alert_received"]
    source: Literal["alertmanager", "pagerduty"]
    group_id: str  # the AlertGroup's UUID
    status: Literal[
        "firing", "acknowledged", "resolved"
    ]  # the group's, after this payload
    new_alerts: int  # alerts the group did not hold before
    resolved_alerts: int  # alerts that turned resolved with this payload
    alerts: list[AlertBrief]  # those new or changed, at most 20
    truncated: int  # new or changed alerts beyond the 20 listed


EVENT_PAYLOADS: Final[dict[str, type[Any]]] = {
    "task_created": TaskCreated,
    "task_started": TaskStarted,
    "agent_started": AgentStarted,
    "tool_queued": ToolQueued,
    "tool_started": ToolStarted,
    "tool_progress": ToolProgress,
    "tool_completed": ToolCompleted,
    "tool_failed": ToolFailed,
    "approval_requested": ApprovalRequested,
    "approval_decided": ApprovalDecided,
    "agent_completed": AgentCompleted,
    "task_cancelling": TaskCancelling,
    "task_cancelled": TaskCancelled,
    "task_requeued": TaskRequeued,
    "task_completed": TaskCompleted,
    "task_failed": TaskFailed,
    "task_timed_out": TaskTimedOut,
    "alert_received": AlertReceived,
}
