"""diagnosis.dispatch: the diagnosis_run message goes to the real broker, by name, after commit."""

import base64
import json
import uuid

import pytest
import redis
from django.conf import settings

from diagnosis import dispatch

QUEUE = "celery"  # Celery's default queue: the Redis list the worker reads


def _runs_for(client: redis.Redis, task_id: str) -> list[bytes]:
    found = []
    for raw in client.lrange(QUEUE, 0, -1):
        message = json.loads(raw)
        args, _kwargs, _embed = json.loads(base64.b64decode(message["body"]))
        if message["headers"]["task"] == dispatch.DIAGNOSIS_RUN and args == [task_id]:
            found.append(raw)
    return found


@pytest.fixture
def broker():
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        yield client
    finally:
        client.close()


def test_enqueue_sends_one_diagnosis_run_message_with_the_task_id(broker):
    task_id = str(uuid.uuid4())

    dispatch.diagnosis_run_enqueue(task_id)

    sent = _runs_for(broker, task_id)
    try:
        assert len(sent) == 1
    finally:
        for raw in sent:
            broker.lrem(QUEUE, 0, raw)


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

    sent = _runs_for(broker, kept)
    try:
        assert len(sent) == 1
        assert _runs_for(broker, dropped) == []
    finally:
        for raw in sent:
            broker.lrem(QUEUE, 0, raw)
