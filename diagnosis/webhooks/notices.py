"""Which events notify, and the outbox: a delivery row per target, written in the transaction
that appends the event, and sent by Celery after commit.

lifecycle.event_append_unchecked calls `deliveries_on_event` for every event; only the kinds
in NOTICE_OF make rows, and only for the tenant's enabled targets that want the notice. The
diagnosis never waits on a receiver: the rows are inserted with the event, the HTTP request
is the Celery task's (diagnosis.tasks.webhook_deliver). A failed enqueue is logged; the row
stays `pending`, and the reaper enqueues it again (diagnosis.webhooks.delivery).
"""

import logging
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.urls import reverse

from diagnosis.events import EventKind
from diagnosis.models import (
    DiagnosisTask,
    Incident,
    TaskEvent,
    WebhookDelivery,
    WebhookTarget,
)
from diagnosis.webhooks.rules import (
    APPROVAL_WAITING,
    DIAGNOSIS_FINISHED,
    STATUS_CHANGED,
)

logger = logging.getLogger(__name__)

DELIVER_TASK = "diagnosis.tasks.webhook_deliver"


NOTICE_OF: dict[str, str] = {
    EventKind.TASK_COMPLETED: DIAGNOSIS_FINISHED,
    EventKind.TASK_FAILED: DIAGNOSIS_FINISHED,
    EventKind.TASK_TIMED_OUT: DIAGNOSIS_FINISHED,
    EventKind.TASK_CANCELLED: DIAGNOSIS_FINISHED,
    EventKind.APPROVAL_REQUESTED: APPROVAL_WAITING,
    EventKind.INCIDENT_STATUS_CHANGED: STATUS_CHANGED,
}

# Keys of an event's data a notification repeats (never arguments: they may hold what
# redaction kept but a chat channel should not see).
_DETAIL_KEYS = (
    "to",
    "error_layer",
    "error_code",
    "server",
    "tool",
    "target",
    "why",
    "expires_at",
    "approval_id",
    "status",
    "previous_status",
    "by",
)


def wants(target: WebhookTarget, notice: str) -> bool:
    """Whether `target` asked for `notice` (an empty list asks for every notice)."""
    chosen = target.notices if isinstance(target.notices, list) else []
    return not chosen or notice in chosen


def _payload(
    notice: str, event: TaskEvent, task: DiagnosisTask, incident: Incident
) -> dict[str, Any]:
    path = reverse("diagnosis:incident-detail", args=[incident.pk])
    summary = ""
    if notice == DIAGNOSIS_FINISHED and isinstance(task.report, dict):
        summary = str(task.report.get("summary") or "")[:500]
    return {
        "notice": notice,
        "event": event.type,
        "event_id": event.seq,
        "occurred_at": event.occurred_at.isoformat(),
        "incident": {
            "id": str(incident.pk),
            "title": incident.title,
            "service": incident.service,
            "severity": incident.severity,
            "status": incident.status,
            "environment": incident.environment,
            "url": settings.SITE_URL + path,
        },
        "task_id": str(task.pk),
        "summary": summary,
        "detail": {k: event.data[k] for k in _DETAIL_KEYS if k in event.data},
    }


def deliveries_on_event(event: TaskEvent) -> list[WebhookDelivery]:
    """Write the deliveries `event` calls for, and enqueue each after commit (module docstring).

    Runs inside the event's transaction; a kind that does not notify costs nothing.
    """
    notice = NOTICE_OF.get(event.type)
    if notice is None:
        return []
    task = DiagnosisTask.objects.select_related("incident").get(pk=event.task_id)
    targets = [
        t
        for t in WebhookTarget.objects.filter(tenant_id=task.tenant_id, is_enabled=True)
        if wants(t, notice)
    ]
    if not targets:
        return []
    # The incident's status as this transaction sees it: the change that is being recorded.
    incident = Incident.objects.get(pk=task.incident_id)
    payload = _payload(notice, event, task, incident)
    rows = WebhookDelivery.objects.bulk_create(
        WebhookDelivery(
            tenant_id=task.tenant_id,
            target=target,
            incident_id=incident.pk,
            task_id=task.pk,
            notice=notice,
            event_seq=event.seq,
            payload=payload,
        )
        for target in targets
    )
    ids = [str(row.pk) for row in rows]
    transaction.on_commit(lambda: deliveries_enqueue(ids))
    return rows


def deliveries_enqueue(ids: list[str]) -> None:
    """Send a Celery message per delivery; a failure is logged (the reaper sends it later)."""
    for delivery_id in ids:
        try:
            current_app.send_task(DELIVER_TASK, args=[delivery_id])
        except Exception:
            logger.warning(
                "enqueue of webhook delivery %s failed", delivery_id, exc_info=True
            )
