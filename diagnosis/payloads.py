"""The payload of every persisted event kind (DESIGN §5): one TypedDict per kind, `type` a Literal.

What a client reads (SSE `data:` and the table's rows) is the envelope plus the kind's keys: the
row's `data` holds task_id, incident_id and the keys below, and the stream adds event_id (= seq,
also the SSE `id:`), type (= the SSE `event:`) and occurred_at from the row's columns
(diagnosis.streaming.db). docs/engine.md lists every key; tests/diagnosis/engine/
test_payloads_doc.py keeps the two in step. The report is not an event: it is on the task.

The keys an emit site passes are the kind's `…Data` TypedDict (the payload less the envelope
and `type`); `EventAppend` (diagnosis.lifecycle.diagnosis_event_append) and `Emit` (the
runner's and the engine's emit) check them per kind, so mypy refuses a key a kind lacks. The
moves (task_*, approval_requested) are appended by lifecycle.diagnosis_transition itself.
"""

import uuid
from typing import (
    TYPE_CHECKING,
    Any,
    Final,
    Literal,
    NotRequired,
    Protocol,
    TypedDict,
    TypeVar,
    overload,
)

from diagnosis.events import EventKind

if TYPE_CHECKING:
    from diagnosis.models import TaskEvent

SpanEndState = Literal["ok", "error", "refused", "cancelled", "unknown_outcome"]


class _Envelope(TypedDict):
    event_id: int
    occurred_at: str  # ISO 8601, UTC
    task_id: str
    incident_id: str


# A state change (lifecycle.diagnosis_transition) carries the move; `from` is a keyword, hence
# the functional form.
_Move = TypedDict("_Move", {"from": str, "to": str})


class TaskCreatedData(TypedDict):
    plan: str


class TaskCreated(_Envelope, TaskCreatedData):
    type: Literal["task_created"]


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


class AgentStartedData(TypedDict):
    agent: str  # metrics | logs | network | kubernetes | runbook | action
    # Absent from the test-only timed plan, which sends only a step name as `agent`.
    round: NotRequired[int]  # the planner's round, from 1
    calls: NotRequired[int]  # calls the agent runs this round


class AgentStarted(_Envelope, AgentStartedData):
    type: Literal["agent_started"]


class AgentCompletedData(TypedDict):
    agent: str
    round: NotRequired[int]
    calls: NotRequired[int]
    failed: NotRequired[int]  # of those calls, the ones that did not return a result


class AgentCompleted(_Envelope, AgentCompletedData):
    type: Literal["agent_completed"]


class ToolQueuedData(TypedDict):
    # A planned call of a round, before it waits for a slot; none for a call a replay answers.
    call_id: str  # the call's id in this attempt; its later tool_* events carry it too
    agent: str
    server: str
    tool: str
    label: NotRequired[
        str
    ]  # what the call asks (call_labels.call_label); older events lack it
    arguments: dict[str, Any]  # redacted, as the span's
    attempt: int
    why: str  # the planner's reason for the call


class ToolQueued(_Envelope, ToolQueuedData):
    type: Literal["tool_queued"]


class _ToolCall(TypedDict):
    span_id: str  # ToolCallSpan.span_id: the trace's and the report's reference
    call_id: str  # as in tool_queued (a call outside a round has no tool_queued)
    agent: str
    server: str  # the registry's server name
    tool: str
    label: NotRequired[
        str
    ]  # what the call asks (call_labels.call_label); older events lack it


class ToolStartedData(_ToolCall):
    arguments: dict[str, Any]  # redacted
    attempt: int  # the task's attempt (a re-queued diagnosis runs as attempt 2 …)
    why: str  # the planner's reason for the call


class ToolStarted(_Envelope, ToolStartedData):
    type: Literal["tool_started"]


class ToolProgressData(_ToolCall):
    # MCP notifications/progress, at most 4 a second per span (coalesced; never terminal).
    progress: float
    total: float | None
    message: str  # "" when the server sent none; at most 200 characters
    # A task-backed call (MCP Tasks extension): its task and the status it is in now; the
    # message is then the task's statusMessage.
    # (Not task_id: the envelope's, the diagnosis task's.)
    mcp_task_id: NotRequired[str]
    mcp_task_status: NotRequired[str]


class ToolProgress(_Envelope, ToolProgressData):
    type: Literal["tool_progress"]


class ToolEndedData(_ToolCall):
    latency_ms: float | None
    error_layer: (
        str | None
    )  # reasoning.layers (policy for a refusal); None when ok or cancelled
    error_code: str | None
    retry_count: int
    state: SpanEndState
    preview: str  # the redacted result preview, at most 300 characters ("" on failure)


class ToolCompleted(_Envelope, ToolEndedData):
    type: Literal["tool_completed"]


class ToolFailed(_Envelope, ToolEndedData):
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


Decision = Literal["approve", "deny", "expired"]


class ApprovalDecidedData(TypedDict):
    approval_id: str
    decision: Decision
    decided_by: str | None  # username; None for an expiry
    reason: str


class ApprovalDecided(_Envelope, ApprovalDecidedData):
    type: Literal["approval_decided"]


AlertSourceValue = Literal["alertmanager", "pagerduty"]
AlertGroupStatusValue = Literal["firing", "acknowledged", "resolved"]
AlertStatusValue = Literal["firing", "resolved"]


class AlertBrief(TypedDict):
    fingerprint: str  # Alertmanager's fingerprint, or the PagerDuty dedup_key
    status: AlertStatusValue
    name: str  # the alertname label (PagerDuty: the summary)
    summary: str  # the first symptom annotation it has, at most 300 characters


class AlertReceivedData(TypedDict):
    source: AlertSourceValue
    group_id: str  # the AlertGroup's UUID
    status: AlertGroupStatusValue  # the group's, after this payload
    new_alerts: int  # alerts the group did not hold before
    resolved_alerts: int  # alerts that turned resolved with this payload
    alerts: list[AlertBrief]  # those new or changed, at most 20
    truncated: int  # new or changed alerts beyond the 20 listed


class AlertReceived(_Envelope, AlertReceivedData):
    """Appended to the incident's active task (diagnosis.intake), never by the engine."""

    type: Literal["alert_received"]


class SteeringAddedData(TypedDict):
    # One of note, exclude, service (a re-run carries the earlier diagnosis's forward).
    note: NotRequired[str]  # context for the planner, at most 2000 characters
    exclude: NotRequired[
        str
    ]  # a hypothesis id ("layer:component") a person marked wrong
    statement: NotRequired[str]  # that hypothesis's statement, as the page showed it
    service: NotRequired[str]  # the corrected service the diagnosis investigates
    by: str | None  # username
    from_task: NotRequired[str]  # carried over from this earlier diagnosis on a re-run


class SteeringAdded(_Envelope, SteeringAddedData):
    """Appended by diagnosis.steering (a page or API user), never by the engine."""

    type: Literal["steering_added"]


class SteeringReadData(TypedDict):
    round: int  # the round about to be planned (as agent_started's)
    seq: int  # the last steering_added event read
    notes: int  # notes the planner now has
    excluded: list[str]  # hypothesis ids it rules out
    service: str  # the service it investigates


class SteeringRead(_Envelope, SteeringReadData):
    type: Literal["steering_read"]


ServerStateValue = Literal["connecting", "ready", "failed"]


class ServerStateData(TypedDict):
    server: str  # the registry's server name
    transport: str  # stdio | http (the registry entry's)
    state: ServerStateValue
    elapsed_ms: NotRequired[float]  # since connecting (ready, failed)
    tools: NotRequired[int]  # allowed tools it lists (ready)
    error: NotRequired[str]  # why it failed, at most 300 characters


class ServerState(_Envelope, ServerStateData):
    type: Literal["server_state"]


class ByWhom(TypedDict):
    by: str  # the username of who did it (a token acts as its user)
    by_token: str  # the token's prefix when a bearer token did it, else ""


class IncidentStatusChangedData(ByWhom):
    status: str  # triggered | acknowledged | mitigated | resolved, after the change
    previous_status: str


class IncidentStatusChanged(_Envelope, IncidentStatusChangedData):
    """Appended to the incident's latest task by diagnosis.coordination, never by the engine."""

    type: Literal["incident_status_changed"]


class IncidentSeverityChangedData(ByWhom):
    severity: str  # sev1 … sev4, after the change
    previous_severity: str


class IncidentSeverityChanged(_Envelope, IncidentSeverityChangedData):
    type: Literal["incident_severity_changed"]


class IncidentOwnerChangedData(ByWhom):
    owner: str | None  # the new owner's username; None when unassigned
    previous_owner: str | None


class IncidentOwnerChanged(_Envelope, IncidentOwnerChangedData):
    type: Literal["incident_owner_changed"]


class IncidentNoteAddedData(ByWhom):
    text: str  # at most 2000 characters


class IncidentNoteAdded(_Envelope, IncidentNoteAddedData):
    type: Literal["incident_note_added"]


class FeedbackGivenData(ByWhom):
    verdict: str  # right | partly | wrong
    comment: str  # at most 2000 characters


class FeedbackGiven(_Envelope, FeedbackGivenData):
    """Appended to the task judged by diagnosis.feedback, never by the engine."""

    type: Literal["feedback_given"]


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
    "steering_added": SteeringAdded,
    "steering_read": SteeringRead,
    "server_state": ServerState,
    "incident_status_changed": IncidentStatusChanged,
    "incident_severity_changed": IncidentSeverityChanged,
    "incident_owner_changed": IncidentOwnerChanged,
    "incident_note_added": IncidentNoteAdded,
    "feedback_given": FeedbackGiven,
}


R_co = TypeVar("R_co", covariant=True)
_TOOL_END = Literal[EventKind.TOOL_COMPLETED, EventKind.TOOL_FAILED]


class Emit(Protocol[R_co]):
    """What a step (the runner's context) and the engine emit: a kind and its keys, checked.

    Emit[None] is the runner's (diagnosis.runner._Context.emit); Emit[Awaitable[None]] the
    engine's, which runs it on its database thread.
    """

    @overload
    def __call__(
        self, kind: Literal[EventKind.AGENT_STARTED], data: AgentStartedData, /
    ) -> R_co: ...
    @overload
    def __call__(
        self, kind: Literal[EventKind.AGENT_COMPLETED], data: AgentCompletedData, /
    ) -> R_co: ...
    @overload
    def __call__(
        self, kind: Literal[EventKind.TOOL_QUEUED], data: ToolQueuedData, /
    ) -> R_co: ...
    @overload
    def __call__(
        self, kind: Literal[EventKind.TOOL_STARTED], data: ToolStartedData, /
    ) -> R_co: ...
    @overload
    def __call__(
        self, kind: Literal[EventKind.TOOL_PROGRESS], data: ToolProgressData, /
    ) -> R_co: ...
    @overload
    def __call__(self, kind: _TOOL_END, data: ToolEndedData, /) -> R_co: ...
    @overload
    def __call__(
        self, kind: Literal[EventKind.STEERING_READ], data: SteeringReadData, /
    ) -> R_co: ...
    @overload
    def __call__(
        self, kind: Literal[EventKind.SERVER_STATE], data: ServerStateData, /
    ) -> R_co: ...


class EventAppend(Protocol):
    """The signature of lifecycle.diagnosis_event_append: each kind appended outside a move,
    with its keys. (A move's event is appended by lifecycle.diagnosis_transition.)"""

    @overload
    def __call__(
        self,
        *,
        task_id: uuid.UUID | str,
        kind: Literal[EventKind.TASK_CREATED],
        data: TaskCreatedData,
        lease_owner: str | None = None,
    ) -> "TaskEvent": ...
    @overload
    def __call__(
        self,
        *,
        task_id: uuid.UUID | str,
        kind: Literal[EventKind.APPROVAL_DECIDED],
        data: ApprovalDecidedData,
        lease_owner: str | None = None,
    ) -> "TaskEvent": ...
    @overload
    def __call__(
        self,
        *,
        task_id: uuid.UUID | str,
        kind: Literal[EventKind.ALERT_RECEIVED],
        data: AlertReceivedData,
        lease_owner: str | None = None,
    ) -> "TaskEvent": ...
    @overload
    def __call__(
        self,
        *,
        task_id: uuid.UUID | str,
        kind: Literal[EventKind.STEERING_ADDED],
        data: SteeringAddedData,
        lease_owner: str | None = None,
    ) -> "TaskEvent": ...
    @overload
    def __call__(
        self,
        *,
        task_id: uuid.UUID | str,
        kind: Literal[EventKind.INCIDENT_STATUS_CHANGED],
        data: IncidentStatusChangedData,
        lease_owner: str | None = None,
    ) -> "TaskEvent": ...
    @overload
    def __call__(
        self,
        *,
        task_id: uuid.UUID | str,
        kind: Literal[EventKind.INCIDENT_SEVERITY_CHANGED],
        data: IncidentSeverityChangedData,
        lease_owner: str | None = None,
    ) -> "TaskEvent": ...
    @overload
    def __call__(
        self,
        *,
        task_id: uuid.UUID | str,
        kind: Literal[EventKind.INCIDENT_OWNER_CHANGED],
        data: IncidentOwnerChangedData,
        lease_owner: str | None = None,
    ) -> "TaskEvent": ...
    @overload
    def __call__(
        self,
        *,
        task_id: uuid.UUID | str,
        kind: Literal[EventKind.FEEDBACK_GIVEN],
        data: FeedbackGivenData,
        lease_owner: str | None = None,
    ) -> "TaskEvent": ...
    @overload
    def __call__(
        self,
        *,
        task_id: uuid.UUID | str,
        kind: Literal[EventKind.INCIDENT_NOTE_ADDED],
        data: IncidentNoteAddedData,
        lease_owner: str | None = None,
    ) -> "TaskEvent": ...
    @overload
    def __call__(
        self,
        *,
        task_id: uuid.UUID | str,
        kind: Literal[EventKind.AGENT_STARTED],
        data: AgentStartedData,
        lease_owner: str | None = None,
    ) -> "TaskEvent": ...
    @overload
    def __call__(
        self,
        *,
        task_id: uuid.UUID | str,
        kind: Literal[EventKind.AGENT_COMPLETED],
        data: AgentCompletedData,
        lease_owner: str | None = None,
    ) -> "TaskEvent": ...
    @overload
    def __call__(
        self,
        *,
        task_id: uuid.UUID | str,
        kind: Literal[EventKind.TOOL_QUEUED],
        data: ToolQueuedData,
        lease_owner: str | None = None,
    ) -> "TaskEvent": ...
    @overload
    def __call__(
        self,
        *,
        task_id: uuid.UUID | str,
        kind: Literal[EventKind.TOOL_STARTED],
        data: ToolStartedData,
        lease_owner: str | None = None,
    ) -> "TaskEvent": ...
    @overload
    def __call__(
        self,
        *,
        task_id: uuid.UUID | str,
        kind: Literal[EventKind.TOOL_PROGRESS],
        data: ToolProgressData,
        lease_owner: str | None = None,
    ) -> "TaskEvent": ...
    @overload
    def __call__(
        self,
        *,
        task_id: uuid.UUID | str,
        kind: _TOOL_END,
        data: ToolEndedData,
        lease_owner: str | None = None,
    ) -> "TaskEvent": ...
