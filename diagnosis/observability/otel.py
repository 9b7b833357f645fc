"""OpenTelemetry export of a diagnosis: one trace per task, rebuilt from its rows once it ends.

The trace has the task as its root (`invoke_workflow diagnosis`), one `invoke_agent {agent}` per
agent run (agent_started … agent_completed events) and one `execute_tool {gen_ai.tool.name}` per
ToolCallSpan, with the GenAI and MCP attributes the row stores. The trace id is the task's (the
one the UI shows), a tool call's span id is its row's (the one sent in `traceparent` to HTTP
servers). Read back from PostgreSQL, so the calls of every attempt, on whatever worker, make one
trace. Off unless OTEL_EXPORTER_OTLP_ENDPOINT (or _TRACES_ENDPOINT) is set; needs the `otel` extra.
"""

import hashlib
import logging
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from diagnosis.events import EventKind
from diagnosis.models import DiagnosisTask, SpanState, TaskEvent, ToolCallSpan
from diagnosis.span_attributes import span_attributes
from diagnosis.states import TaskState, is_terminal
from diagnosis.tracing import task_trace_id

if TYPE_CHECKING:
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope

logger = logging.getLogger(__name__)

EXPORT_TASK = "diagnosis.tasks.diagnosis_export_trace"
SCOPE_NAME = "agentops.diagnosis"
WORKFLOW_NAME = "diagnosis"
# A failed task's root span and a failed call carry their message as the status description.
MAX_DESCRIPTION_CHARS = 500
# A call still `started` when its task ended (its worker died and no attempt came after).
UNFINISHED_MESSAGE = "the call had not ended when the task did"
# Events after which an agent that has not completed never will in this attempt: the attempt
# ended (parked on an approval, requeued, stopped) or a new one began.
_ATTEMPT_ENDS = frozenset(
    {
        EventKind.TASK_STARTED,
        EventKind.TASK_REQUEUED,
        EventKind.APPROVAL_REQUESTED,
        EventKind.TASK_CANCELLED,
        EventKind.TASK_COMPLETED,
        EventKind.TASK_FAILED,
        EventKind.TASK_TIMED_OUT,
    }
)
_FAILED_TASK_STATES = frozenset({TaskState.FAILED, TaskState.TIMED_OUT})
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class TraceExportFailed(Exception):
    """The OTLP receiver did not take the trace (the exporter's own retries included)."""


def traces_endpoint() -> str:
    """The OTLP/HTTP traces URL from the settings, or "" when the export is off."""
    if settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT:
        return str(settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
    base = str(settings.OTEL_EXPORTER_OTLP_ENDPOINT)
    return f"{base.rstrip('/')}/v1/traces" if base else ""


def is_enabled() -> bool:
    return bool(traces_endpoint())


def traceparent_headers(*, trace_id: str, span_id: str) -> dict[str, str]:
    """The W3C `traceparent` naming a tool call's span as the parent of the server's work.

    Sampled (flags 01) only when the trace is exported: otherwise nobody records our side.
    """
    flags = "01" if is_enabled() else "00"
    return {"traceparent": f"00-{trace_id}-{span_id}-{flags}"}


def trace_export_on_commit(task_id: uuid.UUID | str) -> None:
    """Enqueue the export of the task's trace once the current transaction commits (if enabled).

    By the Celery task's name (as diagnosis.dispatch does), so services need not import the
    Celery layer. A failed send is logged, never raised: a trace is not worth failing a task for.
    """
    if not is_enabled():
        return

    def send() -> None:
        try:
            current_app.send_task(EXPORT_TASK, args=[str(task_id)])
        except Exception:
            logger.warning(
                "enqueue of the trace export of task %s failed", task_id, exc_info=True
            )

    transaction.on_commit(send)


def export_task_trace(task_id: uuid.UUID | str) -> int:
    """Export the trace of a finished task; returns how many spans were sent.

    Nothing is sent (0) when the export is off or the task has not ended yet (a parked or
    re-queued task's trace goes out once, at its end).

    Raises:
        DiagnosisTask.DoesNotExist: no such task.
        TraceExportFailed: the receiver refused the spans or could not be reached.
    """
    endpoint = traces_endpoint()
    if not endpoint:
        return 0
    task = DiagnosisTask.objects.select_related("tenant").get(pk=task_id)
    if not is_terminal(task.state):
        logger.info(
            "task %s is %s: its trace is exported at its end", task_id, task.state
        )
        return 0
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    spans = build_spans(
        task,
        events=TaskEvent.objects.filter(task=task).order_by("seq"),
        rows=ToolCallSpan.objects.filter(task=task).order_by("started_at", "span_id"),
    )
    exporter = OTLPSpanExporter(endpoint=endpoint)
    try:
        result = exporter.export(spans)
    finally:
        # Closes its requests session; the SDK leaves this one method unannotated.
        exporter.shutdown()  # type: ignore[no-untyped-call]
    if result is not SpanExportResult.SUCCESS:
        raise TraceExportFailed(f"{endpoint} did not take the trace of task {task_id}")
    return len(spans)


# -- building the spans from the rows ----------------------------------------------------------------


@dataclass
class _AgentRun:
    span_id: str
    agent: str
    attempt: int
    start: datetime
    data: dict[str, Any]
    end: datetime | None = None
    completed: dict[str, Any] = field(default_factory=dict)


def build_spans(
    task: DiagnosisTask,
    *,
    events: Iterable[TaskEvent],
    rows: Iterable[ToolCallSpan],
) -> list["ReadableSpan"]:
    """The task's spans, root first, then agents, then tool calls (in start order)."""
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope

    events = list(events)
    rows = list(rows)
    trace_id = task_trace_id(task)
    resource = _resource()
    scope = InstrumentationScope(SCOPE_NAME)
    root_id = _derived_span_id(task.pk, "task")
    finished = task.finished_at or (
        events[-1].occurred_at if events else timezone.now()
    )
    runs = _agent_runs(task, events, fallback_end=finished)

    def span(
        name: str,
        span_id: str,
        parent_id: str | None,
        start: datetime,
        end: datetime,
        attributes: Mapping[str, Any],
        error: str | None = None,
    ) -> ReadableSpan:
        return _readable(
            ReadableSpan,
            scope=scope,
            resource=resource,
            name=name,
            trace_id=trace_id,
            span_id=span_id,
            parent_id=parent_id,
            start=start,
            end=max(end, start),
            attributes=attributes,
            error=error,
        )

    out = [
        span(
            f"invoke_workflow {WORKFLOW_NAME}",
            root_id,
            None,
            task.created_at,
            finished,
            _task_attributes(task),
            _task_error(task),
        )
    ]
    for run in runs:
        out.append(
            span(
                f"invoke_agent {run.agent}",
                run.span_id,
                root_id,
                run.start,
                run.end or finished,
                _agent_attributes(run),
            )
        )
    known = {run.span_id for run in runs} | {row.span_id for row in rows}
    for row in rows:
        attributes = span_attributes(row)
        if row.parent_span_id and row.parent_span_id in known:
            parent = row.parent_span_id
        else:
            owner = _owner(runs, row)
            parent = owner.span_id if owner is not None else root_id
        out.append(
            span(
                f"execute_tool {attributes['gen_ai.tool.name']}",
                row.span_id,
                parent,
                row.started_at,
                _row_end(row, fallback=finished),
                attributes,
                _row_error(row),
            )
        )
    return out


def _agent_runs(
    task: DiagnosisTask, events: Sequence[TaskEvent], *, fallback_end: datetime
) -> list[_AgentRun]:
    """Pair agent_started with its agent_completed, per attempt (task_started carries it)."""
    runs: list[_AgentRun] = []
    open_runs: dict[tuple[str, Any], _AgentRun] = {}
    attempt = 1
    for event in events:
        data = event.data or {}
        if event.type in _ATTEMPT_ENDS:
            for run in open_runs.values():
                run.end = event.occurred_at
            open_runs.clear()
        if event.type == EventKind.TASK_STARTED:
            attempt = int(data.get("attempt") or attempt)
        elif event.type == EventKind.AGENT_STARTED:
            agent = str(data.get("agent") or "agent")
            run = _AgentRun(
                span_id=_derived_span_id(task.pk, f"agent:{event.seq}"),
                agent=agent,
                attempt=attempt,
                start=event.occurred_at,
                data=dict(data),
            )
            runs.append(run)
            open_runs[(agent, data.get("round"))] = run
        elif event.type == EventKind.AGENT_COMPLETED:
            key = (str(data.get("agent") or "agent"), data.get("round"))
            done = open_runs.pop(key, None)
            if done is not None:
                done.end = event.occurred_at
                done.completed = dict(data)
    for run in open_runs.values():
        run.end = fallback_end
    return runs


def _owner(runs: Sequence[_AgentRun], row: ToolCallSpan) -> _AgentRun | None:
    """The agent run a call belongs to: same agent (and attempt), latest to start before it."""
    same_agent = [r for r in runs if r.agent == row.agent and r.start <= row.started_at]
    same_attempt = [r for r in same_agent if r.attempt == row.attempt]
    candidates = same_attempt or same_agent
    return max(candidates, key=lambda r: r.start) if candidates else None


def _task_attributes(task: DiagnosisTask) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "invoke_workflow",
        "gen_ai.workflow.name": WORKFLOW_NAME,
        "agentops.task.id": str(task.pk),
        "agentops.incident.id": str(task.incident_id),
        "agentops.tenant": task.tenant.slug,
        "agentops.task.state": task.state,
        "agentops.task.attempts": task.attempt,
        "agentops.environment": task.environment,
        "agentops.plan": task.plan,
    }
    if task.state in _FAILED_TASK_STATES:
        attributes["error.type"] = task.error_code or task.state
    return attributes


def _task_error(task: DiagnosisTask) -> str | None:
    """The root span's error description: a failed or timed-out task only (a cancel is no error)."""
    if task.state not in _FAILED_TASK_STATES:
        return None
    return task.error_message or task.state


def _agent_attributes(run: _AgentRun) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": run.agent,
        "agentops.attempt": run.attempt,
        "agentops.agent.completed": bool(run.completed),
    }
    for key in ("round", "calls"):
        if isinstance(run.data.get(key), int):
            attributes[f"agentops.agent.{key}"] = run.data[key]
    if isinstance(run.completed.get("failed"), int):
        attributes["agentops.agent.failed_calls"] = run.completed["failed"]
    return attributes


def _row_error(row: ToolCallSpan) -> str | None:
    """A call's error description: every end but ok (refused, cancelled, unknown outcome too)."""
    if row.state == SpanState.OK:
        return None
    if row.state == SpanState.STARTED:
        return UNFINISHED_MESSAGE
    return row.error_message or row.error_code or row.state


def _row_end(row: ToolCallSpan, *, fallback: datetime) -> datetime:
    if row.ended_at is not None:
        return row.ended_at
    if row.latency_ms is not None:
        return row.started_at + timedelta(milliseconds=row.latency_ms)
    return fallback


def _derived_span_id(task_id: uuid.UUID | str, what: str) -> str:
    """A span id that is the same on every export of the task (16 hex, never all zeros)."""
    candidate = hashlib.sha256(f"{task_id}:{what}".encode()).hexdigest()[:16]
    return candidate if int(candidate, 16) else "0000000000000001"


def _nanos(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(microseconds=1) * 1000


def _resource() -> "Resource":
    """OTEL_RESOURCE_ATTRIBUTES / OTEL_SERVICE_NAME as the SDK reads them; service agentops else."""
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource

    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: "agentops"}))
    return resource


def _readable(
    cls: type["ReadableSpan"],
    *,
    scope: "InstrumentationScope",
    resource: "Resource",
    name: str,
    trace_id: str,
    span_id: str,
    parent_id: str | None,
    start: datetime,
    end: datetime,
    attributes: Mapping[str, Any],
    error: str | None,
) -> "ReadableSpan":
    from opentelemetry.trace import SpanContext, SpanKind, TraceFlags
    from opentelemetry.trace.status import Status, StatusCode

    def context(of: str) -> SpanContext:
        return SpanContext(
            trace_id=int(trace_id, 16),
            span_id=int(of, 16),
            is_remote=False,
            trace_flags=TraceFlags(TraceFlags.SAMPLED),
        )

    # Success stays UNSET, as instrumentations leave it; an error carries its description.
    otel_status = (
        Status(StatusCode.UNSET)
        if error is None
        else Status(StatusCode.ERROR, error[:MAX_DESCRIPTION_CHARS])
    )
    return cls(
        name=name,
        context=context(span_id),
        parent=context(parent_id) if parent_id else None,
        resource=resource,
        attributes=dict(attributes),
        # GenAI: invoke_workflow, in-process invoke_agent and execute_tool are all INTERNAL (an
        # MCP call traced by the execute_tool span takes no CLIENT span of its own).
        kind=SpanKind.INTERNAL,
        instrumentation_scope=scope,
        status=otel_status,
        start_time=_nanos(start),
        end_time=_nanos(end),
    )
