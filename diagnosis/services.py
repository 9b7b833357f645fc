"""Writes of the diagnosis domain: incidents, starting and cancelling diagnoses, the reaper.

They build on diagnosis.lifecycle (the one place a task moves or an event is appended) and on
diagnosis.approvals (a cancel or the reaper expires a parked task's approvals).
"""

import logging
import uuid
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from diagnosis import (
    approvals,
    bounds,
    db_retry,
    environments,
    locks,
    plans,
    selectors,
)
from diagnosis.dispatch import diagnosis_run_on_commit
from diagnosis.events import EventKind
from diagnosis.exceptions import (
    ActiveTaskExists,
    RateLimited,
    StaleTransition,
    TaskFinished,
    ValidationFailed,
)
from diagnosis.lifecycle import (
    diagnosis_event_append,
    diagnosis_requeue,
    diagnosis_transition,
)
from diagnosis.models import DiagnosisTask, Incident, Tenant
from diagnosis.principals import Principal
from diagnosis.states import ACTIVE, LEASED, TaskState
from diagnosis.webhooks import delivery
from diagnosis.webhooks import targets as webhook_targets

logger = logging.getLogger(__name__)


def _plan_errors(plan: str, plan_args: Mapping[str, Any] | None) -> dict[str, str]:
    args = {} if plan_args is None else plan_args
    return plans.plan_errors(
        plan, dict(args) if isinstance(args, Mapping) else args, include_test_only=True
    )


def incident_create(
    *,
    tenant: Tenant,
    user: Any,
    title: str,
    service: str,
    severity: str,
    symptoms: str = "",
    description: str = "",
    labels: Mapping[str, str] | None = None,
    window_start: datetime | None = None,
    window_end: datetime | None = None,
    plan: str = "default",
    plan_args: Mapping[str, Any] | None = None,
    environment: str | None = None,
    principal: Principal | None = None,
) -> tuple[Incident, DiagnosisTask]:
    """Create an incident and start its first diagnosis, in one transaction.

    `description` and `labels` (the alert's, {name: value}) are stored as given: their callers
    bound them (diagnosis.fields.labels, the intake's parsers, a scenario's incident.json).
    Window datetimes are stored in UTC. `environment` (None or "": the tenant's default) is
    resolved by diagnosis.environments and stored by name; `principal` is who asks (see
    `diagnosis_start`).

    Raises:
        ValidationFailed: a window datetime out of bounds (diagnosis.bounds), an end before
            its start, a plan or plan_args `diagnosis.plans` refuses, or an environment the
            tenant may not use; nothing is written.
        RateLimited: the tenant opened INCIDENT_RATE_LIMIT incidents within the window.
    """
    window, window_start, window_end = bounds.window_errors(window_start, window_end)
    errors = {**_plan_errors(plan, plan_args), **window}
    try:
        env = environments.environment_resolve(tenant=tenant, name=environment)
    except ValidationFailed as exc:
        errors.update(exc.fields)
    if errors:
        raise ValidationFailed(errors)

    def create() -> tuple[Incident, DiagnosisTask]:
        # Counted in PostgreSQL, not Redis: creating incidents must work while Redis is down.
        # The tenant lock (diagnosis.locks) serialises a tenant's creates, so two racing
        # requests cannot both take the last slot; it is held only for this short transaction.
        locks.tenant_lock(tenant.pk)
        retry_after = selectors.incident_create_retry_after(
            tenant=tenant, now=timezone.now()
        )
        if retry_after is not None:
            raise RateLimited(retry_after)
        incident = Incident.objects.create(
            tenant=tenant,
            title=title,
            service=service,
            severity=severity,
            symptoms=symptoms,
            description=description,
            labels=dict(labels or {}),
            window_start=window_start,
            window_end=window_end,
            environment=env.name,
            created_by=user if getattr(user, "pk", None) else None,
        )
        task = diagnosis_start(
            incident=incident,
            user=user,
            plan=plan,
            plan_args=plan_args,
            principal=principal,
        )
        return incident, task

    return db_retry.atomic(create, what=f"incident create of tenant {tenant.pk}")


def demo_incident_create(
    *,
    tenant: Tenant,
    user: Any,
    environment: str,
    principal: Principal | None = None,
) -> tuple[Incident, DiagnosisTask]:
    """Open the incident of a demo environment's scenario (its incident.json) and diagnose it
    against that environment.

    Raises:
        ValidationFailed: {"environment": …}: not a demo environment this tenant may use.
        RateLimited: as incident_create.
    """
    fields = environments.demo_incident_fields(tenant=tenant, name=environment)
    return incident_create(tenant=tenant, user=user, principal=principal, **fields)


def diagnosis_start(
    *,
    incident: Incident,
    user: Any = None,
    plan: str = "default",
    plan_args: Mapping[str, Any] | None = None,
    environment: str | None = None,
    principal: Principal | None = None,
) -> DiagnosisTask:
    """Queue a new diagnosis of the incident and enqueue it after commit.

    Any registered plan is taken here, test-only ones included; callers facing users decide
    which plans they offer (diagnosis.plans.plan_errors). The task runs against `environment`,
    else the incident's (else, for an incident from before environments, the tenant default),
    checked again now: the tenant may have lost it. It acts for `principal` (its label and
    effective scopes are stored for the engine's policy; None: nobody, no scopes) and records
    its generation: 1 + the incident's earlier tasks.

    Raises:
        ActiveTaskExists: the incident already has an unfinished task.
        ValidationFailed: `diagnosis.plans` refuses the plan or its arguments, or the
            environment is not one the tenant may use.
    """
    errors = _plan_errors(plan, plan_args)
    try:
        env = environments.environment_resolve(
            tenant=incident.tenant, name=environment or incident.environment
        )
    except ValidationFailed as exc:
        errors.update(exc.fields)
    if errors:
        raise ValidationFailed(errors)
    if principal is not None and user is None:
        user = principal.user
    now = timezone.now()
    try:
        with transaction.atomic():
            task = DiagnosisTask.objects.create(
                incident=incident,
                tenant_id=incident.tenant_id,
                state=TaskState.QUEUED,
                plan=plan,
                plan_args=dict(plan_args or {}),
                max_attempts=settings.DIAGNOSIS_MAX_ATTEMPTS,
                deadline_at=now
                + timedelta(seconds=settings.DIAGNOSIS_DEADLINE_SECONDS),
                created_by=user if getattr(user, "pk", None) else None,
                environment=env.name,
                principal=principal.label if principal is not None else "",
                granted_scopes=sorted(principal.scopes) if principal else [],
                # A concurrent re-run counting the same tasks loses on the one-active rule.
                generation=1 + incident.tasks.count(),
                # W3C trace id (32 hex): the spans', the exported trace's and the UI's.
                trace_id=uuid.uuid4().hex,
            )
            diagnosis_event_append(
                task_id=task.id, kind=EventKind.TASK_CREATED, data={"plan": plan}
            )
    except IntegrityError as exc:
        active = incident.tasks.filter(state__in=ACTIVE).first()
        if active is None:
            raise
        raise ActiveTaskExists(incident.id, active.id) from exc
    diagnosis_run_on_commit(task.id)
    task.refresh_from_db()
    return task


def diagnosis_cancel(*, task: DiagnosisTask) -> DiagnosisTask:
    """Cancel a task: a queued one ends at once, a running one moves to cancelling.

    A parked one (waiting for an approval, no worker behind it) has nobody to stop it, so it
    moves cancelling → cancelled at once and its pending approvals expire. Asking again while
    cancelling changes nothing. Tries up to three times if the task moved meanwhile.

    Raises:
        TaskFinished: the task is already in a terminal state.
    """
    for _ in range(3):
        task.refresh_from_db()
        state = TaskState(task.state)
        if state in (ACTIVE - LEASED):
            move_to = TaskState.CANCELLED
        elif state == TaskState.CANCELLING:
            return task
        elif approvals.is_parked(task):
            try:
                return _cancel_parked(task)
            except StaleTransition:
                continue
        elif state in LEASED:
            move_to = TaskState.CANCELLING
        else:
            raise TaskFinished(task.id, task.state)
        try:
            return diagnosis_transition(
                task=task, to=move_to, fields={"cancel_requested_at": timezone.now()}
            )
        except StaleTransition:
            continue
    raise StaleTransition(task.id, task.state, task.version)


def _cancel_parked(task: DiagnosisTask) -> DiagnosisTask:
    with transaction.atomic():
        task = diagnosis_transition(
            task=task,
            to=TaskState.CANCELLING,
            fields={"cancel_requested_at": timezone.now()},
        )
        # Before task_cancelled: a stream closes after the terminal event.
        approvals.approvals_expire_for_task(
            task=task, reason=approvals.CANCELLED_REASON
        )
        return diagnosis_transition(
            task=task, to=TaskState.CANCELLED, data={"reason": "parked"}
        )


def diagnosis_reap(*, now: datetime | None = None) -> dict[str, int]:
    """Recover tasks whose worker vanished, and re-dispatch queued tasks nobody picked up.

    1. A leased task whose lease expired: cancelling → cancelled; else re-queued while
       attempt < max_attempts, otherwise failed (error layer "worker").
    2. Pending approvals past their expiry: expired, their parked tasks re-queued
       (diagnosis.approvals.approvals_expire).
    3. A queued task untouched for DIAGNOSIS_QUEUED_REDISPATCH_SECONDS: enqueued again
       (the queued row is the outbox; a duplicate message finds the task claimed and returns).
    4. A webhook delivery still unsent that long after it was due (its enqueue failed: the
       broker was down) and not in flight: enqueued again
       (diagnosis.webhooks.delivery.deliveries_redispatch).
    5. The registry file's webhook targets synced into their rows, once per loaded registry
       (diagnosis.webhooks.targets.registry_targets_ensure; never raises).
    """
    now = now or timezone.now()
    counts = {"requeued": 0, "failed": 0, "cancelled": 0, "redispatched": 0}
    # A parked task (waiting_approval, lease released) has no worker to lose: it waits for
    # its approval's decision or expiry, never for the lease sweep.
    expired = DiagnosisTask.objects.filter(
        state__in=LEASED, lease_expires_at__lt=now
    ).exclude(state=TaskState.WAITING_APPROVAL, lease_owner="")
    for task in expired:
        try:
            if task.state == TaskState.CANCELLING:
                diagnosis_transition(
                    task=task, to=TaskState.CANCELLED, data={"reason": "lease_expired"}
                )
                counts["cancelled"] += 1
            elif task.attempt < task.max_attempts:
                diagnosis_requeue(task=task, reason="lease_expired")
                counts["requeued"] += 1
            else:
                diagnosis_transition(
                    task=task,
                    to=TaskState.FAILED,
                    data={"reason": "lease_expired", "attempt": task.attempt},
                    fields={
                        "error_layer": "worker",
                        "error_code": "lease_expired",
                        "error_message": f"worker lost {task.attempt} times",
                    },
                )
                counts["failed"] += 1
        except StaleTransition:
            continue  # the worker renewed or finished meanwhile
    # Before the queued sweep: a task re-queued here was just enqueued.
    counts["approvals_expired"] = approvals.approvals_expire(now=now)
    stale_before = now - timedelta(seconds=settings.DIAGNOSIS_QUEUED_REDISPATCH_SECONDS)
    for task_id in DiagnosisTask.objects.filter(
        state=TaskState.QUEUED, updated_at__lt=stale_before
    ).values_list("id", flat=True):
        with transaction.atomic():
            touched = DiagnosisTask.objects.filter(
                pk=task_id, state=TaskState.QUEUED, updated_at__lt=stale_before
            ).update(updated_at=now)
            if touched:
                diagnosis_run_on_commit(task_id)
                counts["redispatched"] += 1
    counts["webhooks_redispatched"] = delivery.deliveries_redispatch(now=now)
    webhook_targets.registry_targets_ensure()
    return counts
