"""Writes and reads of the trace: one ToolCallSpan per tool call (DESIGN §3, issue 9 item 8).

The engine calls these from its database thread. A span is created `started` before the call
is sent and finished once with its outcome; a re-queued attempt looks a call up by its replay
key and reuses the finished span instead of calling again.
"""

import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.utils import timezone

from diagnosis import db_retry
from diagnosis.models import (
    FINISHED_SPAN_STATES,
    DiagnosisTask,
    SpanState,
    ToolCallSpan,
)


def task_trace_id(task: DiagnosisTask) -> str:
    """The trace id of a task's spans: its own (set at creation), else its UUID's hex (older rows)."""
    return task.trace_id or uuid.UUID(str(task.id)).hex


def span_start(
    *,
    task_id: uuid.UUID | str,
    span_id: str,
    attempt: int,
    agent: str,
    server_name: str,
    transport: str,
    tool_name: str,
    arguments_redacted: Mapping[str, Any],
    arguments_hash: str,
    replay_key: str,
    deadline: datetime | None,
    principal: str,
    granted_scopes: list[str],
    protocol_version: str = "",
    tool_schema_hash: str = "",
    idempotency_key: str = "",
    attributes: Mapping[str, Any] | None = None,
    state: SpanState = SpanState.STARTED,
) -> ToolCallSpan:
    """Record a call about to be sent (or, with state=refused, one the engine will not send)."""

    # The insert takes FOR KEY SHARE on the task and tenant rows (its foreign keys):
    # diagnosis.locks keeps it out of a lock cycle, db_retry runs it again if PostgreSQL
    # aborts it anyway.
    def insert() -> ToolCallSpan:
        task = DiagnosisTask.objects.only("id", "tenant_id", "trace_id").get(pk=task_id)
        now = timezone.now()
        return ToolCallSpan.objects.create(
            task_id=task.id,
            tenant_id=task.tenant_id,
            trace_id=task_trace_id(task),
            span_id=span_id,
            agent=agent,
            server_name=server_name,
            transport=transport,
            protocol_version=protocol_version or "",
            tool_name=tool_name,
            tool_schema_hash=tool_schema_hash or "",
            idempotency_key=idempotency_key,
            arguments_redacted=dict(arguments_redacted),
            arguments_hash=arguments_hash,
            principal=principal,
            granted_scopes=list(granted_scopes),
            state=state,
            started_at=now,
            ended_at=now if state != SpanState.STARTED else None,
            deadline=deadline,
            replay_key=replay_key,
            attempt=attempt,
            attributes=dict(attributes or {}),
        )

    return db_retry.atomic(insert, what=f"start of span {span_id} of task {task_id}")


def span_finish(
    *,
    span: ToolCallSpan,
    state: SpanState,
    latency_ms: float | None,
    retry_count: int = 0,
    request_id: str = "",
    error_layer: str = "",
    error_code: str = "",
    error_message: str = "",
    result: Any = None,
    result_hash: str = "",
    result_size: int | None = None,
    result_preview: str = "",
    result_uri: str = "",
    side_effect_id: str = "",
    attributes: Mapping[str, Any] | None = None,
    protocol_version: str = "",
    approval_id: str | None = None,
) -> ToolCallSpan:
    """Write the outcome of a started span (once: a finished span is never changed)."""
    values: dict[str, Any] = {
        "state": state,
        "ended_at": timezone.now(),
        "latency_ms": latency_ms,
        "retry_count": retry_count,
        "request_id": request_id,
        "error_layer": error_layer,
        "error_code": error_code[:64],
        "error_message": error_message[:4000],
        "result": result,
        "result_hash": result_hash,
        "result_size": result_size,
        "result_preview": result_preview,
        "result_uri": result_uri,
        "side_effect_id": side_effect_id[:200],
        "attributes": {**span.attributes, **(attributes or {})},
    }
    if protocol_version:
        values["protocol_version"] = protocol_version
    if approval_id is not None:
        values["approval_id"] = approval_id
    finished = ToolCallSpan.objects.filter(pk=span.pk, state=SpanState.STARTED)
    db_retry.atomic(
        lambda: finished.update(**values), what=f"finish of span {span.span_id}"
    )
    span.refresh_from_db()
    return span


def span_replay(*, task_id: uuid.UUID | str, replay_key: str) -> ToolCallSpan | None:
    """The finished span of this call from an earlier attempt, newest first, or None."""
    return (
        ToolCallSpan.objects.filter(
            task_id=uuid.UUID(str(task_id)),
            replay_key=replay_key,
            state__in=[s.value for s in FINISHED_SPAN_STATES],
        )
        .order_by("-started_at")
        .first()
    )


def span_get(*, task_id: uuid.UUID | str, span_id: str) -> ToolCallSpan | None:
    """The task's span with this span id, or None (a retried span_start asks this first)."""
    return ToolCallSpan.objects.filter(
        task_id=uuid.UUID(str(task_id)), span_id=span_id
    ).first()


def spans_end_open(
    *,
    task_id: uuid.UUID | str,
    layer: str,
    code: str,
    message: str,
    before_attempt: int | None = None,
) -> list[ToolCallSpan]:
    """End the task's spans still `started` (of attempts before `before_attempt`, or all).

    The one place an open span is ended for its attempt's sake: a dead worker's (at the next
    attempt's start) or a failed, timed-out or cancelled attempt's (at its end). A read is
    marked cancelled, so a new attempt calls it again; a write is marked unknown_outcome, so
    the engine asks its status before anything else. Safe to run again: returns every write
    ended this way (now or by an earlier run) for those attempts.
    """
    pk = uuid.UUID(str(task_id))
    scope = ToolCallSpan.objects.filter(task_id=pk)
    if before_attempt is not None:
        scope = scope.filter(attempt__lt=before_attempt)
    left = scope.filter(state=SpanState.STARTED)
    ended = {
        "ended_at": timezone.now(),
        "error_layer": layer,
        "error_code": code[:64],
        "error_message": message[:4000],
    }

    def end() -> None:
        left.filter(idempotency_key="").update(state=SpanState.CANCELLED, **ended)
        left.filter(~Q(idempotency_key="")).update(
            state=SpanState.UNKNOWN_OUTCOME,
            **{
                **ended,
                "error_message": f"{message}; the write's outcome is unknown"[:4000],
            },
        )

    db_retry.atomic(end, what=f"end of task {task_id}'s open spans")
    return list(
        scope.filter(
            ~Q(idempotency_key=""),
            state=SpanState.UNKNOWN_OUTCOME,
            error_layer=layer,
            error_code=code[:64],
        )
    )


def spans_abandon(
    *, task_id: uuid.UUID | str, before_attempt: int
) -> list[ToolCallSpan]:
    """End the spans an earlier attempt left `started` (its worker died mid-call).

    A read is marked cancelled, so the new attempt calls it again; a write is marked
    unknown_outcome, so the engine asks its status before anything else. Returns the writes.
    """
    return spans_end_open(
        task_id=task_id,
        before_attempt=before_attempt,
        layer="worker",
        code="worker_lost",
        message="the worker running this call died before it ended",
    )
