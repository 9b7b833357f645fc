"""Reads of the diagnosis domain, scoped to a tenant (the runner's stop check: to its lease)."""

import math
import re
import uuid
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from diagnosis.endings import RunEnd, StopReason
from diagnosis.models import (
    AlertGroup,
    Approval,
    DiagnosisTask,
    Incident,
    TaskEvent,
    Tenant,
    ToolCallSpan,
)
from diagnosis.states import ACTIVE, TaskState

_OTEL_SPAN_ID = re.compile(r"[0-9a-f]{16}")


def _uuid_or_none(value: Any) -> uuid.UUID | None:
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        return None


def incident_get(*, tenant: Tenant, incident_id: Any) -> Incident | None:
    """The tenant's incident, or None (another tenant's id is not found)."""
    pk = _uuid_or_none(incident_id)
    return None if pk is None else Incident.objects.filter(tenant=tenant, pk=pk).first()


def incident_list(*, tenant: Tenant) -> QuerySet[Incident]:
    return Incident.objects.filter(tenant=tenant).order_by("-created_at", "-id")


def incident_create_retry_after(*, tenant: Tenant, now: datetime) -> int | None:
    """Seconds until the tenant may open another incident, or None while it is under its quota.

    A sliding window over the incidents table itself (INCIDENT_RATE_LIMIT incidents in the last
    INCIDENT_RATE_WINDOW_SECONDS): only incidents that exist count, so a refused request, an
    Idempotency-Key replay or a rolled-back create never uses up the quota. A limit of 0 is off.
    """
    limit = settings.INCIDENT_RATE_LIMIT
    if limit <= 0:
        return None
    window = timedelta(seconds=settings.INCIDENT_RATE_WINDOW_SECONDS)
    # The limit-th newest incident inside the window, read on the incident_tenant_recent
    # index (at most `limit` entries walked). A slot frees when it leaves the window.
    recent = incident_list(tenant=tenant).filter(created_at__gt=now - window)
    edge = next(
        iter(recent.values_list("created_at", flat=True)[limit - 1 : limit]), None
    )
    if edge is None:
        return None
    return max(1, math.ceil((edge + window - now).total_seconds()))


def task_get(*, tenant: Tenant, task_id: Any) -> DiagnosisTask | None:
    """The tenant's task, or None (another tenant's id is not found)."""
    pk = _uuid_or_none(task_id)
    return (
        None
        if pk is None
        else DiagnosisTask.objects.filter(tenant=tenant, pk=pk)
        .select_related("incident")
        .prefetch_related("approvals__decided_by")
        .first()
    )


def incident_tasks(*, incident: Incident) -> QuerySet[DiagnosisTask]:
    # The API's task snapshot and the page list each task's approvals.
    return incident.tasks.order_by("-created_at").prefetch_related(
        "approvals__decided_by"
    )


def incident_active_task(*, incident: Incident) -> DiagnosisTask | None:
    return incident.tasks.filter(state__in=ACTIVE).first()


def incident_alert_groups(*, incident: Incident) -> QuerySet[AlertGroup]:
    """The alert groups that opened the incident (one, unless it came from none), oldest first."""
    return incident.alert_groups.order_by("first_payload_at", "id")


def incident_alert_labels(*, incident: Incident) -> dict[str, str]:
    """The labels every alert that opened the incident shares (service, job, app, namespace …),
    by name; {} when no alert opened it. What the reasoning resolves the incident's service with."""
    shared: dict[str, str] | None = None
    for group in incident_alert_groups(incident=incident):
        alerts = group.alerts if isinstance(group.alerts, dict) else {}
        for alert in alerts.values():
            labels = alert.get("labels") if isinstance(alert, dict) else None
            if not isinstance(labels, dict):
                continue
            pairs = {str(k): str(v) for k, v in labels.items() if v}
            shared = (
                pairs
                if shared is None
                else {k: v for k, v in shared.items() if pairs.get(k) == v}
            )
    return shared or {}


def diagnosis_events_after(
    *, task_id: Any, after_seq: int, limit: int = 1000
) -> list[TaskEvent]:
    """Events of the task with seq > after_seq, in seq order (the replay query)."""
    return list(
        TaskEvent.objects.filter(task_id=task_id, seq__gt=after_seq).order_by("seq")[
            :limit
        ]
    )


def task_spans(*, task: DiagnosisTask) -> QuerySet[ToolCallSpan]:
    return task.spans.order_by("started_at")


def task_span_ids(*, task: DiagnosisTask) -> dict[str, str]:
    """{row id: span_id} of the task's spans: the engine's evidence cites a span by its row
    id, the trace page anchors its rows by span_id."""
    return {str(pk): sid for pk, sid in task.spans.values_list("id", "span_id")}


def task_span_get(*, task: DiagnosisTask, span_id: str) -> ToolCallSpan | None:
    """The task's span by its 16-hex OpenTelemetry span id (what the events and the report
    cite) or by row id (the trace's `id`); None for anything else.

    The row id stays accepted: reports stored before evidence cited the OpenTelemetry id
    named the span by its row id, and their links must still resolve."""
    if _OTEL_SPAN_ID.fullmatch(span_id):
        return task.spans.filter(span_id=span_id).first()
    pk = _uuid_or_none(span_id)
    return None if pk is None else task.spans.filter(pk=pk).first()


def approval_get(*, tenant: Tenant, approval_id: Any) -> Approval | None:
    """The tenant's approval (through its task), or None (another tenant's id is not found)."""
    pk = _uuid_or_none(approval_id)
    return (
        None
        if pk is None
        else Approval.objects.filter(task__tenant=tenant, pk=pk)
        .select_related("task")
        .first()
    )


def task_stop_reason(
    *, task_id: uuid.UUID | str, owner: str, now: datetime | None = None
) -> StopReason | None:
    """Why the run of `owner` must stop now, or None: the one stop check of a running task.

    In this order: the lease is no longer `owner`'s, or the task no longer runs (re-queued,
    parked, ended) → lease_lost; a cancel was asked for → cancelled; the task's deadline
    passed → timed_out. The runner asks it between steps, the engine's stop watcher every
    poll, a step through its context's should_stop.
    """
    row = (
        DiagnosisTask.objects.filter(pk=task_id)
        .values("state", "lease_owner", "cancel_requested_at", "deadline_at")
        .first()
    )
    if (
        row is None
        or row["lease_owner"] != owner
        or row["state"] not in (TaskState.RUNNING, TaskState.CANCELLING)
    ):
        return RunEnd.LEASE_LOST
    if row["cancel_requested_at"] is not None or row["state"] == TaskState.CANCELLING:
        return RunEnd.CANCELLED
    deadline = row["deadline_at"]
    if deadline is not None and (now or timezone.now()) >= deadline:
        return RunEnd.TIMED_OUT
    return None
