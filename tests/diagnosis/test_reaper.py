"""The reaper: expired leases and queued tasks nobody picked up."""

from datetime import timedelta

import pytest
from django.utils import timezone

from diagnosis import lifecycle, services
from diagnosis.events import EventKind
from diagnosis.models import DiagnosisTask, TaskEvent
from diagnosis.states import TaskState
from tests import factories

pytestmark = pytest.mark.django_db


def expire_lease(task):
    DiagnosisTask.objects.filter(pk=task.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )


def test_expired_lease_is_requeued_and_enqueued_again(
    tenant, django_capture_on_commit_callbacks
):
    _, task = factories.make_incident(tenant)
    lifecycle.diagnosis_claim(task_id=task.id, owner="w1")
    expire_lease(task)
    with django_capture_on_commit_callbacks() as callbacks:
        counts = services.diagnosis_reap()
    task.refresh_from_db()
    assert counts["requeued"] == 1
    assert task.state == TaskState.QUEUED
    assert task.lease_owner == ""
    assert TaskEvent.objects.filter(task=task).last().type == EventKind.TASK_REQUEUED
    assert len(callbacks) == 2  # the wake-up and the enqueue


def test_expired_lease_on_last_attempt_fails_the_task(tenant):
    _, task = factories.make_incident(tenant)
    DiagnosisTask.objects.filter(pk=task.pk).update(max_attempts=1)
    lifecycle.diagnosis_claim(task_id=task.id, owner="w1")
    expire_lease(task)
    assert services.diagnosis_reap()["failed"] == 1
    task.refresh_from_db()
    assert (task.state, task.error_layer, task.error_code) == (
        TaskState.FAILED,
        "worker",
        "lease_expired",
    )


def test_expired_lease_while_cancelling_ends_cancelled(tenant):
    _, task = factories.make_incident(tenant)
    lifecycle.diagnosis_claim(task_id=task.id, owner="w1")
    services.diagnosis_cancel(task=task)
    expire_lease(task)
    assert services.diagnosis_reap()["cancelled"] == 1
    task.refresh_from_db()
    assert task.state == TaskState.CANCELLED


def test_live_lease_is_left_alone(tenant):
    _, task = factories.make_incident(tenant)
    lifecycle.diagnosis_claim(task_id=task.id, owner="w1")
    assert services.diagnosis_reap() == {
        "requeued": 0,
        "failed": 0,
        "cancelled": 0,
        "redispatched": 0,
        "approvals_expired": 0,
        "webhooks_redispatched": 0,
    }
    task.refresh_from_db()
    assert task.state == TaskState.RUNNING


def test_stale_queued_task_is_redispatched_once(
    tenant, settings, django_capture_on_commit_callbacks
):
    settings.DIAGNOSIS_QUEUED_REDISPATCH_SECONDS = 10
    _, task = factories.make_incident(tenant)
    DiagnosisTask.objects.filter(pk=task.pk).update(
        updated_at=timezone.now() - timedelta(seconds=60)
    )
    with django_capture_on_commit_callbacks() as callbacks:
        assert services.diagnosis_reap()["redispatched"] == 1
        assert services.diagnosis_reap()["redispatched"] == 0
    assert len(callbacks) == 1
    task.refresh_from_db()
    assert task.state == TaskState.QUEUED
