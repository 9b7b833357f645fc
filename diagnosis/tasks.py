"""Celery interface of the diagnosis app: ids in, services and the runner do the work."""

from celery import Task, shared_task

from diagnosis import runner, services
from diagnosis.observability import otel
from diagnosis.webhooks import delivery


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


@shared_task(
    name="diagnosis.tasks.webhook_deliver",
    bind=True,
    ignore_result=True,
    acks_late=True,
    max_retries=delivery.MAX_ATTEMPTS,
)
def webhook_deliver(self: Task, delivery_id: str) -> str:  # type: ignore[type-arg]
    """Send one webhook delivery; a failed attempt is retried with backoff (diagnosis.webhooks)."""
    attempt = delivery.webhook_attempt(delivery_id=delivery_id)
    if attempt.retry_in is not None:
        raise self.retry(countdown=attempt.retry_in)
    return attempt.status
