"""Enqueueing a diagnosis run, by the Celery task's name, once the queued row is committed.

Services call this instead of importing diagnosis.tasks, which imports the runner, which
imports services: the dependency runs one way. Tests replace `diagnosis_run_enqueue`.
"""

import logging
import uuid

from celery import current_app
from django.db import transaction

logger = logging.getLogger(__name__)

DIAGNOSIS_RUN = "diagnosis.tasks.diagnosis_run"


def diagnosis_run_enqueue(task_id: str) -> None:
    """Send one diagnosis_run message for the task now."""
    current_app.send_task(DIAGNOSIS_RUN, args=[task_id])


def diagnosis_run_on_commit(task_id: uuid.UUID | str) -> None:
    """Enqueue the task's run after the current transaction commits (the queued row is the outbox).

    A failed send is logged, never raised: the reaper re-dispatches queued tasks nobody picked up.
    """

    def send() -> None:
        try:
            # Looked up at call time, so a test's replacement of the function is honoured.
            diagnosis_run_enqueue(str(task_id))
        except Exception:
            logger.warning(
                "enqueue of task %s failed; the reaper will retry",
                task_id,
                exc_info=True,
            )

    transaction.on_commit(send)
