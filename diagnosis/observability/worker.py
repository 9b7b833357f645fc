"""The worker's side of observability, on Celery's signals (agentops/celery.py installs them):
Django's LOGGING instead of Celery's own, the metrics exporter on METRICS_WORKER_PORT (once the worker is ready), and
around each diagnosis_run delivery the log context and the task timings.

Timings come from the rows, read once before and once after a delivery: queue delay when this
process's run claimed the task (its task_started event), duration and time to the first tool
call when the run ended it (run_task returned a terminal state). Each is observed once per
claim or end and process, so a duplicate delivery counts nothing twice.
"""

import collections
import logging
import os
import socket
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from celery import signals

from diagnosis.observability.metrics import MULTIPROC_ENV

if TYPE_CHECKING:
    from collections.abc import Mapping

logger = logging.getLogger(__name__)

RUN_TASK = "diagnosis.tasks.diagnosis_run"
_SEEN_LIMIT = 10_000


@dataclass
class _Delivery:
    task_id: str
    last_seq: int
    tokens: Any


_lock = threading.Lock()
_deliveries: dict[
    str, _Delivery
] = {}  # by Celery request id: threads pools run several
_seen: collections.OrderedDict[tuple[str, str], None] = collections.OrderedDict()
_exporter: Any = None


def install() -> None:
    """Connect the handlers (idempotent: Celery keys them by dispatch_uid)."""
    signals.setup_logging.connect(_setup_logging, dispatch_uid="agentops.logging")
    signals.worker_init.connect(_worker_init, dispatch_uid="agentops.metrics")
    signals.worker_ready.connect(_worker_ready, dispatch_uid="agentops.metrics")
    signals.worker_process_shutdown.connect(
        _process_shutdown, dispatch_uid="agentops.metrics"
    )
    signals.task_prerun.connect(_task_prerun, dispatch_uid="agentops.observability")
    signals.task_postrun.connect(_task_postrun, dispatch_uid="agentops.observability")


def _first_time(kind: str, key: str) -> bool:
    with _lock:
        if (kind, key) in _seen:
            return False
        _seen[(kind, key)] = None
        while len(_seen) > _SEEN_LIMIT:
            _seen.popitem(last=False)
        return True


# --- logging and the exporter ----------------------------------------------------------------


def _setup_logging(loglevel: Any = None, **_: Any) -> None:
    # Connected at all, this handler stops Celery from configuring logging itself: the
    # worker logs through Django's LOGGING (JSON lines), at --loglevel when one is given.
    import logging.config

    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)
    if loglevel:
        logging.getLogger().setLevel(loglevel)


def _worker_init(**_: Any) -> None:
    # Before a prefork pool forks: what a previous run left in the multiprocess folder (the
    # worker's own, README) is stale and would be summed with this run's series.
    path = os.environ.get(MULTIPROC_ENV)
    if path:
        for stale in Path(path).glob("*.db"):
            stale.unlink(missing_ok=True)


def _worker_ready(**_: Any) -> None:
    # worker_ready: Django is set up by now (Celery's Django fixup), and it fires in the main
    # process only, so one exporter serves every pool process.
    from django.conf import settings

    global _exporter
    port = int(getattr(settings, "METRICS_WORKER_PORT", 0) or 0)
    if not port or _exporter is not None:
        return
    from diagnosis.observability import exposition

    try:
        _exporter = exposition.start_worker_exporter(
            address=getattr(settings, "METRICS_WORKER_ADDRESS", "127.0.0.1"), port=port
        )
    except OSError:
        # Diagnoses matter more than their metrics: the worker runs on without them.
        logger.exception("worker metrics exporter could not bind port %s", port)


def _process_shutdown(pid: int | None = None, **_: Any) -> None:
    if os.environ.get(MULTIPROC_ENV) and pid:
        from prometheus_client import multiprocess

        # Unannotated in prometheus-client.
        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]


# --- one diagnosis_run delivery ----------------------------------------------------------------


def _diagnosis_id(args: Any, kwargs: Any) -> str | None:
    if args:
        return str(args[0])
    if kwargs and "task_id" in kwargs:
        return str(kwargs["task_id"])
    return None


def _task_prerun(
    task_id: str | None = None,
    task: Any = None,
    args: Any = None,
    kwargs: Any = None,
    **_: Any,
) -> None:
    if getattr(task, "name", None) != RUN_TASK or task_id is None:
        return
    diagnosis_id = _diagnosis_id(args, kwargs)
    if diagnosis_id is None:
        return
    from diagnosis.models import DiagnosisTask
    from diagnosis.observability.logs import bind_task_context
    from diagnosis.tracing import task_trace_id

    row = None
    try:
        row = (
            DiagnosisTask.objects.filter(pk=diagnosis_id)
            .select_related("tenant")
            .only("id", "last_seq", "trace_id", "tenant__slug")
            .first()
        )
    except Exception:
        logger.warning("metrics: read of task %s failed", diagnosis_id, exc_info=True)
    tokens = bind_task_context(
        task_id=diagnosis_id,
        tenant=row.tenant.slug if row else None,
        trace_id=task_trace_id(row) if row else None,
    )
    with _lock:
        _deliveries[task_id] = _Delivery(
            diagnosis_id, row.last_seq if row else -1, tokens
        )


def _task_postrun(
    task_id: str | None = None, task: Any = None, retval: Any = None, **_: Any
) -> None:
    if getattr(task, "name", None) != RUN_TASK or task_id is None:
        return
    with _lock:
        delivery = _deliveries.pop(task_id, None)
    if delivery is None:
        return
    from diagnosis.observability.logs import unbind

    try:
        if delivery.last_seq >= 0:
            observe_delivery(
                task_id=delivery.task_id, after_seq=delivery.last_seq, result=retval
            )
    except Exception:
        logger.warning(
            "metrics: timings of task %s not recorded", delivery.task_id, exc_info=True
        )
    finally:
        unbind(delivery.tokens)


def _identity_prefix() -> str:
    # runner.worker_identity(): host:pid:random; the claim event names it as the worker.
    return f"{socket.gethostname()}:{os.getpid()}:"


def _seconds(later: datetime | None, earlier: datetime | None) -> float | None:
    if later is None or earlier is None:
        return None
    return (later - earlier).total_seconds()


def observe_delivery(
    *, task_id: str, after_seq: int, result: Any, worker_prefix: str | None = None
) -> None:
    """Record what one diagnosis_run delivery did to the task, read from its rows.

    `after_seq` is the task's last_seq before the delivery, `result` what run_task returned,
    `worker_prefix` what this process's claims name as their worker (default: this process).
    """
    from diagnosis.events import EventKind
    from diagnosis.models import DiagnosisTask, TaskEvent, ToolCallSpan
    from diagnosis.observability import metrics
    from diagnosis.states import TERMINAL

    prefix = worker_prefix if worker_prefix is not None else _identity_prefix()
    pk = uuid.UUID(task_id)
    events = list(
        TaskEvent.objects.filter(task_id=pk, seq__gt=after_seq - 1)
        .order_by("seq")
        .values("seq", "type", "occurred_at", "data")[:200]
    )
    previous: Mapping[str, Any] | None = None
    for event in events:
        worker = str((event["data"] or {}).get("worker", ""))
        if (
            event["type"] == EventKind.TASK_STARTED
            and worker.startswith(prefix)
            and previous is not None
            and _first_time("claim", f"{task_id}:{event['seq']}")
        ):
            # The event before the claim is the one that queued the task (created,
            # re-queued, approved): the claim's wait is the time between them.
            waited = _seconds(event["occurred_at"], previous["occurred_at"])
            if waited is not None:
                metrics.task_claimed(queued_seconds=waited)
        previous = event
    if result not in {str(state) for state in TERMINAL}:
        return
    if not _first_time("end", task_id):
        return
    row = (
        DiagnosisTask.objects.filter(pk=pk)
        .values("state", "started_at", "finished_at")
        .first()
    )
    if row is None:
        return
    first_span = (
        ToolCallSpan.objects.filter(task_id=pk)
        .order_by("started_at")
        .values_list("started_at", flat=True)
        .first()
    )
    metrics.task_ended(
        state=str(row["state"]),
        duration_seconds=_seconds(row["finished_at"], row["started_at"]),
        first_tool_call_seconds=_seconds(first_span, row["started_at"]),
    )
