"""The task's lifecycle: the one place a task row moves, its events are appended, its lease is
taken and renewed, its checkpoint saved and its report written.

Services (diagnosis.services) and approvals (diagnosis.approvals) build on this module; it
imports neither of them, nor the engine, the runner or any interface. Every state change goes
through `diagnosis_transition`, every event through `diagnosis_event_append`; both run inside
one short transaction and publish their wake-up after commit. `diagnosis_report_save` (as the
report grows) and the terminal move (its final report) are the only writes of
`DiagnosisTask.report`.
"""

import logging
import uuid
from collections.abc import Mapping
from datetime import timedelta
from typing import Any, Final

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from diagnosis.dispatch import diagnosis_run_on_commit
from diagnosis.events import EventKind
from diagnosis.exceptions import LeaseLost, StaleTransition
from diagnosis.models import DiagnosisTask, TaskEvent
from diagnosis.observability import otel
from diagnosis.payloads import EventAppend
from diagnosis.states import ACTIVE, LEASED, TaskState, check_transition, is_terminal
from diagnosis.wakeups import publish_wakeup
from diagnosis.webhooks.notices import deliveries_on_event

logger = logging.getLogger(__name__)

# The event each move appends when the caller names none.
TRANSITION_EVENTS: dict[TaskState, EventKind] = {
    TaskState.RUNNING: EventKind.TASK_STARTED,
    TaskState.QUEUED: EventKind.TASK_REQUEUED,
    TaskState.WAITING_APPROVAL: EventKind.APPROVAL_REQUESTED,
    TaskState.CANCELLING: EventKind.TASK_CANCELLING,
    TaskState.CANCELLED: EventKind.TASK_CANCELLED,
    TaskState.SUCCEEDED: EventKind.TASK_COMPLETED,
    TaskState.FAILED: EventKind.TASK_FAILED,
    TaskState.TIMED_OUT: EventKind.TASK_TIMED_OUT,
}


# A move to one of these states carries the task's error fields in its event too.
ERROR_EVENT_STATES = frozenset({TaskState.FAILED, TaskState.TIMED_OUT})
ERROR_FIELDS = ("error_layer", "error_code", "error_message")


def event_append_unchecked(
    *,
    task_id: uuid.UUID | str,
    kind: str,
    data: Mapping[str, Any] | None = None,
    lease_owner: str | None = None,
) -> TaskEvent:
    """Append one event to a task: lock the task row, take seq = last_seq + 1, insert, bump last_seq.

    Its keys unchecked: call `diagnosis_event_append` (the same function, its kinds and keys
    checked by mypy) unless the caller's own signature is the checked one (an `Emit`, or a
    move's event in diagnosis_transition).

    Runs in the caller's transaction when there is one. After commit, a wake-up is sent on the
    task's channel-layer group; a failed wake-up is logged, never fatal. With `lease_owner`
    (the engine's step events), the append is refused unless that owner holds the lease.

    Raises:
        LeaseLost: `lease_owner` was given and no longer holds the lease; nothing is written.
    """
    with transaction.atomic():
        task = (
            DiagnosisTask.objects.select_for_update()
            .only("id", "incident_id", "last_seq", "lease_owner", "state")
            .get(pk=task_id)
        )
        if lease_owner is not None and (
            task.lease_owner != lease_owner or TaskState(task.state) not in LEASED
        ):
            raise LeaseLost(task.id, lease_owner)
        seq = task.last_seq + 1
        now = timezone.now()
        payload = {
            "task_id": str(task.id),
            "incident_id": str(task.incident_id),
            **(data or {}),
        }
        event = TaskEvent.objects.create(
            task_id=task.id, seq=seq, type=kind, occurred_at=now, data=payload
        )
        DiagnosisTask.objects.filter(pk=task.id).update(last_seq=seq)
        transaction.on_commit(lambda: publish_wakeup(task.id, seq))
        # The outbox of notifications: rows written with the event, sent after commit.
        deliveries_on_event(event)
    return event


# Each kind appended outside a move, with its keys checked (diagnosis.payloads.EventAppend).
diagnosis_event_append: Final[EventAppend] = event_append_unchecked


def diagnosis_transition(
    *,
    task: DiagnosisTask,
    to: TaskState,
    kind: str | None = None,
    data: Mapping[str, Any] | None = None,
    fields: Mapping[str, Any] | None = None,
    report: Mapping[str, Any] | None = None,
) -> DiagnosisTask:
    """Move a task to `to` and append the event that reports it, in one transaction.

    The move is a compare-and-swap on (state, version) as read into `task`; `fields` are
    written in the same UPDATE, and `report` (the run's final report) with them. The passed
    instance is refreshed on success.

    Raises:
        InvalidTransition: the state table does not allow task.state → to.
        StaleTransition: the row changed since `task` was read; nothing was written.
    """
    check_transition(task.state, to)
    now = timezone.now()
    values: dict[str, Any] = {
        "state": to,
        "version": F("version") + 1,
        "updated_at": now,
        **(fields or {}),
        **(_report_values(report) if report is not None else {}),
    }
    if TaskState(to) in (ACTIVE - LEASED):
        values.setdefault("lease_owner", "")
        values.setdefault("lease_expires_at", None)
    if is_terminal(to):
        values.setdefault("finished_at", now)
        values.setdefault("lease_owner", "")
        values.setdefault("lease_expires_at", None)
    with transaction.atomic():
        changed = DiagnosisTask.objects.filter(
            pk=task.pk, state=task.state, version=task.version
        ).update(**values)
        if changed != 1:
            raise StaleTransition(task.pk, task.state, task.version)
        event_data = {"from": task.state, "to": str(to), **(data or {})}
        if TaskState(to) in ERROR_EVENT_STATES:
            # The failure itself goes with the event that reports it, not only on the row.
            event_data.update(
                {k: v for k, v in (fields or {}).items() if k in ERROR_FIELDS}
            )
        event_append_unchecked(
            task_id=task.pk,
            kind=kind or TRANSITION_EVENTS[TaskState(to)],
            data=event_data,
        )
        if is_terminal(to):
            otel.trace_export_on_commit(
                task.pk
            )  # a no-op unless an OTLP endpoint is set
    task.refresh_from_db()
    return task


# --- leases, checkpoints and the report: the durable runner (diagnosis.runner) -------------


def diagnosis_claim(*, task_id: uuid.UUID | str, owner: str) -> DiagnosisTask | None:
    """Take the lease of a queued task and move it to running; None if it is not queued.

    A task that is not queued is someone else's (a duplicate delivery) or done: that is
    logged at info. A task id with no row is logged at warning: a delivery for a row this
    worker cannot see (another database, or a connection that does not see commits).
    """
    task = DiagnosisTask.objects.filter(pk=task_id).first()
    if task is None:
        logger.warning("claim of task %s: no such task in the database", task_id)
        return None
    if task.state != TaskState.QUEUED:
        logger.info(
            "claim of task %s: not queued (%s, lease %r); not ours to run",
            task_id,
            task.state,
            task.lease_owner,
        )
        return None
    now = timezone.now()
    lease = timedelta(seconds=settings.DIAGNOSIS_LEASE_SECONDS)
    try:
        return diagnosis_transition(
            task=task,
            to=TaskState.RUNNING,
            data={"attempt": task.attempt + 1, "worker": owner},
            fields={
                "lease_owner": owner,
                "lease_expires_at": now + lease,
                "attempt": F("attempt") + 1,
                "started_at": task.started_at or now,
            },
        )
    except StaleTransition:
        logger.info("claim of task %s: another worker took it first", task_id)
        return None


def diagnosis_requeue(
    *, task: DiagnosisTask, reason: str, data: Mapping[str, Any] | None = None
) -> DiagnosisTask:
    """Put a leased task back in the queue for its next attempt, and enqueue it after commit.

    Raises:
        InvalidTransition, StaleTransition: as diagnosis_transition.
    """
    with transaction.atomic():
        task = diagnosis_transition(
            task=task,
            to=TaskState.QUEUED,
            data={"reason": reason, "attempt": task.attempt, **(data or {})},
        )
        diagnosis_run_on_commit(task.id)
    return task


def diagnosis_lease_renew(*, task_id: uuid.UUID | str, owner: str) -> bool:
    """Extend the lease if `owner` still holds it; False means the lease was lost."""
    expires = timezone.now() + timedelta(seconds=settings.DIAGNOSIS_LEASE_SECONDS)
    renewed = DiagnosisTask.objects.filter(
        pk=task_id, lease_owner=owner, state__in=LEASED
    ).update(lease_expires_at=expires)
    return renewed == 1


def diagnosis_checkpoint(
    *, task_id: uuid.UUID | str, owner: str, checkpoint: int
) -> bool:
    """Record that steps before `checkpoint` are done, if `owner` still holds the lease."""
    saved = DiagnosisTask.objects.filter(
        pk=task_id, lease_owner=owner, state__in=LEASED
    ).update(checkpoint=checkpoint)
    return saved == 1


def diagnosis_report_save(
    *, task_id: uuid.UUID | str, owner: str, report: Mapping[str, Any]
) -> bool:
    """Save the report as it grows, if `owner` still holds the lease; False when it does not."""
    saved = DiagnosisTask.objects.filter(pk=task_id, lease_owner=owner).update(
        **_report_values(report), updated_at=timezone.now()
    )
    return saved == 1


def _report_values(report: Mapping[str, Any]) -> dict[str, Any]:
    # The one write of DiagnosisTask.report: as it grows, and with the terminal move.
    return {"report": dict(report)}
