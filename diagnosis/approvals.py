"""Approvals park a task (DESIGN §10, issue 9 item 7): request, decision, expiry, and reads.

A planned write that needs a person parks its task in `waiting_approval` with the lease
released, so no worker slot is held; a decision or the expiry re-queues it, and the engine
runs again from the start and asks `approval_for` what was decided. Every path locks the
task row first, then changes the approval: one order, so two deciders cannot deadlock.
"""

import uuid
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from diagnosis import dispatch
from diagnosis.events import EventKind
from diagnosis.exceptions import LeaseLost, ValidationFailed
from diagnosis.lifecycle import diagnosis_event_append, diagnosis_transition
from diagnosis.models import Approval, ApprovalStatus, DiagnosisTask
from diagnosis.payloads import Decision
from diagnosis.states import TaskState

EXPIRED_REASON = "no decision before it expired"
CANCELLED_REASON = "task cancelled"


def _locked_task(task_id: uuid.UUID | str) -> DiagnosisTask:
    return DiagnosisTask.objects.select_for_update().get(pk=task_id)


def is_parked(task: DiagnosisTask) -> bool:
    """True for a task waiting for a person with no worker behind it (its lease released)."""
    return task.state == TaskState.WAITING_APPROVAL and not task.lease_owner


def approval_request(
    *,
    task_id: uuid.UUID | str,
    owner: str,
    server: str,
    tool: str,
    arguments_redacted: dict[str, Any],
    arguments_hash: str,
    replay_key: str,
    target: str,
    why: str,
    idempotency_key: str,
    ttl_seconds: int | None = None,
) -> Approval:
    """Ask a person to approve one tool call and park the task until they decide.

    In one transaction: a pending Approval bound to (server, tool, arguments_hash) that expires
    after `ttl_seconds` (default DIAGNOSIS_APPROVAL_TTL_SECONDS), and the move running →
    waiting_approval with the lease released (event approval_requested). A second request for
    the same call (task, replay_key, arguments_hash) while one is pending returns that one and
    writes nothing, so a retried request whose first COMMIT went through is harmless; the
    lease holder asking again for a call whose approval is still pending parks on that one.

    Raises:
        LeaseLost: `owner` no longer holds the task's lease (or it is not running); nothing
            was written.
        ValidationFailed: ttl_seconds is not positive.
    """
    ttl = (
        settings.DIAGNOSIS_APPROVAL_TTL_SECONDS if ttl_seconds is None else ttl_seconds
    )
    if ttl <= 0:
        raise ValidationFailed({"ttl_seconds": "must be a positive number of seconds"})
    with transaction.atomic():
        task = _locked_task(task_id)
        pending = (
            Approval.objects.filter(
                task=task,
                replay_key=replay_key,
                arguments_hash=arguments_hash,
                status=ApprovalStatus.PENDING,
            )
            .order_by("-requested_at")
            .first()
        )
        if pending is not None and is_parked(task):
            return pending
        if task.state != TaskState.RUNNING or task.lease_owner != owner:
            raise LeaseLost(task.pk, owner)
        if pending is not None:
            return _park(task, pending)
        approval = Approval.objects.create(
            task=task,
            server_name=server,
            tool_name=tool,
            arguments_hash=arguments_hash,
            replay_key=replay_key,
            action={
                "arguments": arguments_redacted,
                "target": target,
                "why": why,
                "idempotency_key": idempotency_key,
            },
            expires_at=timezone.now() + timedelta(seconds=ttl),
        )
        return _park(task, approval)


def _park(task: DiagnosisTask, approval: Approval) -> Approval:
    action = approval.action
    expires_at = approval.expires_at
    diagnosis_transition(
        task=task,
        to=TaskState.WAITING_APPROVAL,
        kind=EventKind.APPROVAL_REQUESTED,
        data={
            "approval_id": str(approval.pk),
            "server": approval.server_name,
            "tool": approval.tool_name,
            "arguments": action.get("arguments", {}),
            "target": action.get("target", ""),
            "why": action.get("why", ""),
            "expires_at": expires_at.isoformat() if expires_at else None,
        },
        # Released: a parked task holds no worker, and the reaper's lease sweep skips it.
        # The resume after the decision is a claim like any other: a park gives back the
        # attempt it will use, so waiting for a person does not eat into crash retries.
        fields={
            "lease_owner": "",
            "lease_expires_at": None,
            "max_attempts": F("max_attempts") + 1,
        },
    )
    return approval


def approval_for(*, task_id: uuid.UUID | str, replay_key: str) -> Approval | None:
    """The latest approval of one call of the task (by its replay key), or None.

    The engine compares its arguments_hash with the call it is about to make: other
    arguments void the approval.
    """
    pk = task_id if isinstance(task_id, uuid.UUID) else uuid.UUID(task_id)
    return (
        Approval.objects.filter(task_id=pk, replay_key=replay_key)
        .order_by("-requested_at", "-id")
        .first()
    )


def task_approvals(*, task: DiagnosisTask) -> QuerySet[Approval]:
    """The task's approvals in the order they were asked for."""
    return task.approvals.select_related("decided_by").order_by("requested_at", "id")


def approval_status(*, approval: Approval, now: datetime | None = None) -> str:
    """The approval's status as a decider sees it: a pending one past its expiry, or whose task
    no longer waits for it, can no longer be decided and reads as expired."""
    if approval.status != ApprovalStatus.PENDING:
        return approval.status
    now = now or timezone.now()
    if approval.expires_at is not None and approval.expires_at <= now:
        return ApprovalStatus.EXPIRED
    state = (
        DiagnosisTask.objects.filter(pk=approval.task_id)
        .values_list("state", flat=True)
        .first()
    )
    if state != TaskState.WAITING_APPROVAL:
        return ApprovalStatus.EXPIRED
    return ApprovalStatus.PENDING


def _requeue(task: DiagnosisTask, reason: str) -> None:
    # A task asks for one approval at a time, so once it is settled the task may run again.
    diagnosis_transition(
        task=task,
        to=TaskState.QUEUED,
        kind=EventKind.TASK_REQUEUED,
        data={"reason": reason},
    )
    dispatch.diagnosis_run_on_commit(task.pk)


def _decided_event(
    approval_id: uuid.UUID | str,
    task_id: uuid.UUID | str,
    *,
    decision: Decision,
    decided_by: Any,
    reason: str,
) -> None:
    diagnosis_event_append(
        task_id=task_id,
        kind=EventKind.APPROVAL_DECIDED,
        data={
            "approval_id": str(approval_id),
            "decision": decision,
            "decided_by": decided_by.get_username() if decided_by else None,
            "reason": reason,
        },
    )


def approval_decide(
    *, approval: Approval, user: Any, approve: bool, reason: str = ""
) -> Approval | None:
    """Record a person's decision and re-queue the parked task, in one transaction.

    The task row is locked first, then a conditional UPDATE on status=pending (and not past
    expires_at) decides a race between two deciders: exactly one wins. The winner appends
    approval_decided {approval_id, decision approve|deny, decided_by, reason}, moves the task
    waiting_approval → queued (task_requeued, reason approval_decided) and enqueues it on
    commit. Returns the decided approval, or None when it could not be decided (already
    decided, expired, or its task no longer waits, e.g. cancelled); then nothing is written.
    """
    now = timezone.now()
    status = ApprovalStatus.APPROVED if approve else ApprovalStatus.DENIED
    decided_by = user if getattr(user, "pk", None) else None
    with transaction.atomic():
        task = _locked_task(approval.task_id)
        if task.state != TaskState.WAITING_APPROVAL:
            return None
        changed = (
            Approval.objects.filter(pk=approval.pk, status=ApprovalStatus.PENDING)
            .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))
            .update(status=status, decided_by=decided_by, decided_at=now, reason=reason)
        )
        if changed != 1:
            return None
        _decided_event(
            approval.pk,
            task.pk,
            decision="approve" if approve else "deny",
            decided_by=decided_by,
            reason=reason,
        )
        _requeue(task, "approval_decided")
    approval.refresh_from_db()
    return approval


def _expire(
    task: DiagnosisTask, *, now: datetime, reason: str, only_past_expiry: bool
) -> int:
    # The caller holds the task row lock.
    pending = Approval.objects.filter(task=task, status=ApprovalStatus.PENDING)
    if only_past_expiry:
        pending = pending.filter(expires_at__lt=now)
    expired = 0
    for approval_id in pending.order_by("requested_at", "id").values_list(
        "id", flat=True
    ):
        changed = Approval.objects.filter(
            pk=approval_id, status=ApprovalStatus.PENDING
        ).update(status=ApprovalStatus.EXPIRED, decided_at=now, reason=reason)
        if changed:
            _decided_event(
                approval_id, task.pk, decision="expired", decided_by=None, reason=reason
            )
            expired += 1
    return expired


def approvals_expire(*, now: datetime | None = None) -> int:
    """Expire pending approvals past their expires_at and re-queue their parked tasks.

    Each task is handled in its own transaction: its row is locked, its overdue approvals
    become expired (approval_decided {decision: "expired"}), and a task still parked moves
    to queued (task_requeued, reason approval_expired) and is enqueued on commit. A decision
    that won the race meanwhile is left as it is. Returns the number of approvals expired.
    """
    now = now or timezone.now()
    task_ids = (
        Approval.objects.filter(status=ApprovalStatus.PENDING, expires_at__lt=now)
        .values_list("task_id", flat=True)
        .distinct()
    )
    count = 0
    for task_id in list(task_ids):
        with transaction.atomic():
            task = _locked_task(task_id)
            expired = _expire(
                task, now=now, reason=EXPIRED_REASON, only_past_expiry=True
            )
            if expired and is_parked(task):
                _requeue(task, "approval_expired")
            count += expired
    return count


def approvals_expire_for_task(*, task: DiagnosisTask, reason: str) -> int:
    """Expire every pending approval of the task now (its cancel calls this); the number expired.

    Runs in the caller's transaction, under the task row lock it takes.
    """
    with transaction.atomic():
        locked = _locked_task(task.pk)
        return _expire(
            locked, now=timezone.now(), reason=reason, only_past_expiry=False
        )
