"""diagnosis.dispatch: the diagnosis_run message goes to the real broker, by name, after commit."""

import uuid

import pytest
from celery.signals import after_task_publish

from diagnosis import dispatch


def _runs_for(
    published: list[tuple[str, list]], task_id: str
) -> list[tuple[str, list]]:
    return [p for p in published if p == (dispatch.DIAGNOSIS_RUN, [task_id])]


@pytest.fixture
def broker():
    """What the real broker accepted, seen from Celery's after_task_publish signal.

    The signal fires once the message was published to Redis. Reading the queue itself raced
    any worker consuming the run's default queue (another test's stack, a local ./run).
    """
    published: list[tuple[str, list]] = []

    def record(sender=None, headers=None, body=None, **_kwargs):
        args = body[0] if isinstance(body, tuple | list) and body else None
        published.append((str(sender or (headers or {}).get("task")), list(args or [])))

    after_task_publish.connect(record, weak=False)
    try:
        yield published
    finally:
        after_task_publish.disconnect(record)


def test_enqueue_sends_one_diagnosis_run_message_with_the_task_id(broker):
    task_id = str(uuid.uuid4())

    dispatch.diagnosis_run_enqueue(task_id)

    assert len(_runs_for(broker, task_id)) == 1


@pytest.mark.django_db(transaction=True)
def test_on_commit_sends_after_the_commit_and_not_on_rollback(broker):
    from django.db import transaction

    kept, dropped = str(uuid.uuid4()), str(uuid.uuid4())
    with transaction.atomic():
        dispatch.diagnosis_run_on_commit(uuid.UUID(kept))
        assert _runs_for(broker, kept) == []  # not before the commit
    try:
        with transaction.atomic():
            dispatch.diagnosis_run_on_commit(dropped)
            raise RuntimeError("roll back")
    except RuntimeError:
        pass

    assert len(_runs_for(broker, kept)) == 1
    assert _runs_for(broker, dropped) == []
