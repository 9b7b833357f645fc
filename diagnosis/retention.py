"""Retention of the event table: progress events of long-finished tasks are compacted away.

Milestones (every kind but tool_progress) are kept, so a finished task's story survives. A stream
whose cursor falls into a compacted hole gets `resync_required` with the snapshot URL and an `id:`
where it continues (diagnosis.streaming.consumer); the hole itself is the marker, so no column
records it.
"""

from datetime import datetime, timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from diagnosis.events import MILESTONE_EVENTS
from diagnosis.models import DiagnosisTask, TaskEvent
from diagnosis.states import TERMINAL


def events_compact(
    *, older_than: timedelta, now: datetime | None = None, batch: int = 5000
) -> int:
    """Delete non-milestone events of tasks finished more than `older_than` ago; returns the count.

    Deletes in batches of primary keys so no statement holds locks on a large range for long.
    Active tasks are never touched: their streams rely on a gap-free table.
    """
    cutoff = (now or timezone.now()) - older_than
    finished = DiagnosisTask.objects.filter(
        state__in=list(TERMINAL), finished_at__lt=cutoff
    ).values("id")
    doomed = TaskEvent.objects.filter(task_id__in=finished).exclude(
        type__in=list(MILESTONE_EVENTS)
    )
    deleted = 0
    while True:
        ids = list(doomed.values_list("id", flat=True)[:batch])
        if not ids:
            return deleted
        deleted += TaskEvent.objects.filter(id__in=ids).delete()[0]


@shared_task(name="diagnosis.retention.events_compact", ignore_result=True)
def events_compact_task() -> int:
    """Beat entry point: compact with SSE_RETENTION_SECONDS (default 7 days)."""
    seconds = getattr(settings, "SSE_RETENTION_SECONDS", 7 * 86400)
    return events_compact(older_than=timedelta(seconds=seconds))
