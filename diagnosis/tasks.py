"""Celery interface of the diagnosis app: ids in, services and the runner do the work."""

from celery import shared_task

from diagnosis import runner, services
from diagnosis.observability import otel


@shared_task(
    name="diagnosis.tasks.diagnosis_run",
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
)
def diagnosis_run(task_id: str) -> str | None:
    """Run a queued diagnosis task to its end; a duplicate delivery finds it claimed and returns."""
    return runner.run_task(task_id)


@shared_task(name="diagnosis.tasks.diagnosis_reap", ignore_result=True)
def diagnosis_reap() -> dict[str, int]:
    """Re-queue tasks whose lease expired and re-dispatch queued tasks nobody picked up."""
    return services.diagnosis_reap()


@shared_task(
    name=otel.EXPORT_TASK,
    ignore_result=True,
    autoretry_for=(otel.TraceExportFailed,),
    retry_backoff=5,
    max_retries=3,
)
def diagnosis_export_trace(task_id: str) -> int:
    """Export a finished task's trace over OTLP (a refused export is retried 3 times, backing off)."""
    return otel.export_task_trace(task_id)
