"""The durable runner: executes one diagnosis task's plan under a lease.

1. Claim: a queued task moves to running with (owner, expiry) by compare-and-swap; a task
   that is not queued is someone else's and the call returns.
2. A heartbeat thread renews the lease every lease/3 seconds; a failed renewal means the
   lease is lost (the reaper re-queued the task), and the runner stops without a final state.
3. Between steps, the one stop check (selectors.task_stop_reason): a cancel request ends the
   task `cancelled`; a passed deadline `timed_out`; a lost lease ends the run, not the task.
   After each step the checkpoint is saved, so a re-queued task resumes where it was.
4. The end is exactly one terminal state, from how the run ended (diagnosis.endings: the one
   table of state and error fields); the state table has no move out of one.
5. Every database call goes through `db_retry.call`: a session PostgreSQL ended is replaced
   and the call retried within the same attempt; writes that might have committed before the
   error (the claim, an event) are checked for before they are tried again. An outage that
   outlasts the retries (db_retry.is_transient, also inside the engine's ExceptionGroup) ends
   the attempt re-queued, never the task failed.
6. A failed step ends the task with its real cause (diagnosis.failures: layer, code, message
   on the row and in task_failed); every span still `started` ends with the task.
"""

import functools
import logging
import os
import socket
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import connection

from diagnosis import db_retry, failures, lifecycle, selectors, tracing
from diagnosis.endings import ENDINGS, RunEnd, StopReason
from diagnosis.exceptions import LeaseLost, StaleTransition
from diagnosis.failures import ENGINE, Failure
from diagnosis.models import DiagnosisTask, TaskEvent
from diagnosis.plans import InvalidPlanArgs, UnknownPlan, build_plan
from diagnosis.states import LEASED, TERMINAL, TaskState, is_terminal

logger = logging.getLogger(__name__)


def worker_identity() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass
class _Context:
    task_id: str
    plan_args: Mapping[str, Any]
    owner: str
    attempt: int = 1
    # The seq of the last event this run saw committed: events it appends come after it.
    last_seq: int = 0
    lease_lost: threading.Event = field(default_factory=threading.Event)
    report: dict[str, Any] | None = None

    def emit(self, kind: str, data: Mapping[str, Any] | None = None) -> None:
        # Checked where it is called: StepContext.emit is a payloads.Emit.
        event = db_retry.call(
            lambda: lifecycle.event_append_unchecked(
                task_id=self.task_id, kind=kind, data=data, lease_owner=self.owner
            ),
            what=f"append of {kind} to task {self.task_id}",
            committed=lambda: self._appended(kind, data),
        )
        self.last_seq = event.seq

    def _appended(self, kind: str, data: Mapping[str, Any] | None) -> TaskEvent | None:
        # The lease holder alone appends step events, so one of this kind and data after the
        # run's last seq is the append whose COMMIT went through before the error.
        return (
            TaskEvent.objects.filter(
                task_id=uuid.UUID(self.task_id),
                seq__gt=self.last_seq,
                type=kind,
                data__contains=dict(data or {}),
            )
            .order_by("seq")
            .first()
        )

    def stop_reason(self) -> StopReason | None:
        """Why this run must stop now (selectors.task_stop_reason), or None."""
        if self.lease_lost.is_set():
            return RunEnd.LEASE_LOST  # the heartbeat's renewal was refused
        return db_retry.call(
            lambda: selectors.task_stop_reason(task_id=self.task_id, owner=self.owner),
            what=f"read of task {self.task_id}",
        )

    def should_stop(self) -> bool:
        return self.stop_reason() is not None

    def set_report(self, report: Mapping[str, Any]) -> None:
        self.report = dict(report)


class _Heartbeat(threading.Thread):
    def __init__(self, context: _Context, interval: float) -> None:
        super().__init__(name=f"lease-{context.task_id}", daemon=True)
        self.context, self.interval = context, interval
        self.stopped = threading.Event()

    def run(self) -> None:
        task_id, owner = self.context.task_id, self.context.owner
        try:
            while not self.stopped.wait(self.interval):
                try:
                    renewed = db_retry.call(
                        lambda: lifecycle.diagnosis_lease_renew(
                            task_id=task_id, owner=owner
                        ),
                        what=f"lease renewal of task {task_id}",
                    )
                except db_retry.RETRYABLE:
                    # Not lost: unrenewed. Try again next tick; once the lease expires
                    # the reaper re-queues the task and the renewal answers False.
                    logger.warning(
                        "lease of task %s not renewed", task_id, exc_info=True
                    )
                    continue
                if not renewed:
                    self.context.lease_lost.set()
                    return
        finally:
            connection.close()  # this thread's own connection


def run_task(task_id: str, *, owner: str | None = None) -> str | None:
    """Run the task's plan to a terminal state; return that state, or None if not ours to run."""
    claimer = owner or worker_identity()
    # This thread ran other tasks before: a connection they left broken must not be the
    # claim's (it would refuse every query, or read inside a stale transaction, forever).
    db_retry.connection_reset(what=f"claim of task {task_id}")
    try:
        task = _claim(task_id, claimer)
    except db_retry.RETRYABLE as exc:
        logger.error(
            "claim of task %s failed (%s); the task stays queued and the reaper "
            "dispatches it again",
            task_id,
            str(exc).strip() or type(exc).__name__,
            exc_info=True,
        )
        raise
    if task is None:
        return None
    context = _Context(
        task_id=str(task.id),
        plan_args=task.plan_args,
        owner=claimer,
        attempt=task.attempt,
        last_seq=task.last_seq,
    )
    heartbeat = _Heartbeat(
        context, interval=max(settings.DIAGNOSIS_LEASE_SECONDS / 3, 0.1)
    )
    heartbeat.start()
    try:
        return _run_steps(task, context)
    finally:
        heartbeat.stopped.set()
        heartbeat.join()


def _claim(task_id: str, claimer: str) -> DiagnosisTask | None:
    return db_retry.call(
        lambda: lifecycle.diagnosis_claim(task_id=task_id, owner=claimer),
        what=f"claim of task {task_id}",
        # A claim whose COMMIT went through before the error shows as our lease.
        committed=lambda: DiagnosisTask.objects.filter(
            pk=task_id, lease_owner=claimer, state__in=LEASED
        ).first(),
    )


def _load(task_id: str) -> DiagnosisTask:
    return db_retry.call(
        lambda: DiagnosisTask.objects.get(pk=task_id), what=f"read of task {task_id}"
    )


def _end_open_spans(context: _Context, why: Failure) -> None:
    """No span outlives its task: the ones still `started` end with the task's cause.

    Only this attempt's and earlier (dead) attempts': a later attempt is another worker's,
    whose calls may still be running if this one lost its lease unawares.
    """
    task_id = context.task_id
    db_retry.call(
        functools.partial(
            tracing.spans_end_open,
            task_id=task_id,
            layer=why.layer,
            code=why.code,
            message=why.message[:2000],
            before_attempt=context.attempt + 1,
        ),
        what=f"end of task {task_id}'s open spans",
    )


def _finish(context: _Context, end: RunEnd, cause: Failure | None = None) -> str | None:
    """End the task as `end` says (diagnosis.endings.ENDINGS); `cause`: a failure's own error.

    Returns the terminal state, or None when the task is not this run's to end (lease lost,
    parked). A task that moved to cancelling meanwhile ends cancelled.
    """
    ending = ENDINGS[end]
    to = ending.state
    if to is None:
        return None
    task_id = context.task_id
    error = cause or ending.error
    _end_open_spans(context, error or ending.open_span)
    task = _load(task_id)
    for _ in range(3):
        if is_terminal(task.state):
            return task.state  # ended meanwhile, by the reaper
        target = TaskState.CANCELLED if task.state == TaskState.CANCELLING else to
        as_ended = target == to
        try:
            moved = db_retry.call(
                functools.partial(
                    lifecycle.diagnosis_transition,
                    task=task,
                    to=target,
                    fields=error.fields() if error is not None and as_ended else None,
                    # The report written with the move: the run's, when it succeeded.
                    report=(
                        (context.report or {})
                        if as_ended and end is RunEnd.DONE
                        else None
                    ),
                ),
                what=f"move of task {task_id} to {target}",
                # A move whose COMMIT went through before the error shows as the row ended.
                committed=lambda: DiagnosisTask.objects.filter(
                    pk=task_id, state__in=TERMINAL
                ).first(),
            )
            return moved.state
        except StaleTransition:
            task = _load(task_id)
    logger.warning("task %s kept moving; leaving it to the reaper", task_id)
    return None


def _requeue(context: _Context, exc: BaseException) -> str | None:
    """End an attempt the database outlasted: back to the queue (or failed, if it was the last).

    Returns the terminal state, or None when the task was re-queued or is left to the reaper
    (the database is still away: the lease expires and the reaper re-queues it).
    """
    task_id = context.task_id
    cause = failures.describe(exc)
    logger.error(
        "task %s: the database stayed away through every retry (%s: %s); ending the attempt",
        task_id,
        cause.code,
        cause.message,
    )
    try:
        task = _load(task_id)
        if context.lease_lost.is_set() or task.lease_owner != context.owner:
            return None
        if task.state == TaskState.CANCELLING:
            return _finish(context, RunEnd.CANCELLED)
        if task.attempt >= task.max_attempts:
            return _finish(context, RunEnd.FAILED, cause)
        _end_open_spans(context, cause)
        db_retry.call(
            functools.partial(
                lifecycle.diagnosis_requeue, task=task, reason="database_unavailable"
            ),
            what=f"re-queue of task {task_id}",
            committed=lambda: DiagnosisTask.objects.filter(
                pk=task_id, state=TaskState.QUEUED, attempt=task.attempt
            ).first(),
        )
    except StaleTransition:
        return None  # moved meanwhile (a cancel, the reaper): not ours to move
    except db_retry.RETRYABLE:
        logger.error(
            "task %s: the database is still away; the reaper re-queues it once its lease "
            "expires",
            task_id,
        )
    return None


def _run_steps(task: DiagnosisTask, context: _Context) -> str | None:
    try:
        steps = build_plan(task.plan, task.plan_args)
    except UnknownPlan:
        return _finish(
            context,
            RunEnd.FAILED,
            Failure(ENGINE, "unknown_plan", f"no plan named {task.plan!r}"),
        )
    except InvalidPlanArgs as exc:
        # A row written before its arguments were checked: it fails once, blamed on its input.
        return _finish(
            context,
            RunEnd.FAILED,
            Failure(ENGINE, "invalid_plan_args", f"plan {task.plan!r}: {exc}"),
        )
    except Exception as exc:
        # A plan that cannot be built never takes the worker down, nor waits out its lease.
        logger.exception("plan %r of task %s failed to build", task.plan, task.pk)
        return _finish(
            context, RunEnd.FAILED, Failure(ENGINE, type(exc).__name__, str(exc))
        )
    for index in range(task.checkpoint, len(steps)):
        stop = context.stop_reason()
        if stop is not None:
            return _finish(context, stop)
        try:
            end = steps[index].run(context)
        except LeaseLost:
            return None  # the reaper took the task back; it is no longer ours to end
        except Exception as exc:
            if db_retry.is_transient(exc):
                # The database stayed away through every retry: not the step's fault, and
                # not the task's end. This attempt ends; the next resumes (replaying spans).
                return _requeue(context, exc)
            logger.exception(
                "step %s of task %s failed", steps[index].name, context.task_id
            )
            # The real cause, not "unhandled errors in a TaskGroup (1 sub-exception)".
            return _finish(context, RunEnd.FAILED, failures.describe(exc))
        if end is not None and end is not RunEnd.DONE:
            return _finish(context, end)  # the step itself says the run is over
        if context.lease_lost.is_set():
            return None
        db_retry.call(
            functools.partial(
                lifecycle.diagnosis_checkpoint,
                task_id=context.task_id,
                owner=context.owner,
                checkpoint=index + 1,
            ),
            what=f"checkpoint of task {context.task_id}",
        )
    if context.stop_reason() is RunEnd.CANCELLED:
        return _finish(context, RunEnd.CANCELLED)
    return _finish(context, RunEnd.DONE)
