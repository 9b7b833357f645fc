"""A webhook delivery whose enqueue failed (Redis, the broker, was down at commit) is sent by
the reaper's sweep once the broker is back, exactly once, against the machine's Redis and
PostgreSQL and a real Celery worker; one in flight is never sent twice (issue 20 item 7)."""

from datetime import timedelta

import pytest
from celery import current_app
from celery.contrib.testing.worker import start_worker
from celery.signals import task_postrun
from django.utils import timezone
from kombu.exceptions import OperationalError

from diagnosis import coordination, services
from diagnosis.models import WebhookDelivery
from diagnosis.principals import principal_from_user
from diagnosis.webhooks import delivery, notices, targets
from tests import factories
from tests.diagnosis.test_webhooks import SECRET, receiver  # noqa: F401  (a fixture)
from tests.livestack import wait_for


def _acknowledge(incident, member) -> WebhookDelivery:
    coordination.incident_status_change(
        incident=incident,
        principal=principal_from_user(member.user),
        status="acknowledged",
    )
    (row,) = WebhookDelivery.objects.all()
    return row


def _overdue(row, settings) -> None:
    WebhookDelivery.objects.filter(pk=row.pk).update(
        next_attempt_at=timezone.now()
        - timedelta(seconds=settings.DIAGNOSIS_QUEUED_REDISPATCH_SECONDS + 1)
    )


@pytest.mark.django_db(transaction=True)
def test_a_delivery_whose_enqueue_failed_is_sent_once_by_the_sweep(
    receiver,  # noqa: F811
    settings,
    monkeypatch,
    caplog,
):
    monkeypatch.setattr("diagnosis.dispatch.diagnosis_run_enqueue", lambda *a: None)
    tenant = factories.make_tenant("recovery")
    member = factories.make_member(tenant)
    targets.webhook_target_create(
        tenant=tenant, name="pager", url=receiver.url, secret=SECRET
    )
    incident, _task = factories.make_incident(tenant)
    real_send = current_app.send_task

    def broker_down(*args, **kwargs):
        raise OperationalError(
            "Error 111 connecting to 127.0.0.1:6379. Connection refused."
        )

    monkeypatch.setattr(current_app, "send_task", broker_down)
    row = _acknowledge(incident, member)  # commits; the enqueue after it fails
    assert "enqueue of webhook delivery" in caplog.text
    monkeypatch.setattr(current_app, "send_task", real_send)

    ran: list[str] = []

    def record(sender=None, task_id=None, args=None, retval=None, **_kwargs):
        # Only this delivery's: the queue may hold another test's message.
        if (
            sender is not None
            and sender.name == notices.DELIVER_TASK
            and args == [str(row.pk)]
        ):
            ran.append(str(retval))

    task_postrun.connect(record, weak=False)
    with start_worker(
        current_app, pool="solo", perform_ping_check=False, shutdown_timeout=10
    ):
        # Not yet overdue: the sweep leaves it (its first message may still be on the way).
        assert services.diagnosis_reap()["webhooks_redispatched"] == 0
        _overdue(row, settings)
        assert services.diagnosis_reap()["webhooks_redispatched"] == 1
        # Its due time moved to now: the next sweep leaves it.
        assert services.diagnosis_reap()["webhooks_redispatched"] == 0
        # A duplicate message (a redelivery) finds it sent, or in flight, and sends nothing.
        notices.deliveries_enqueue([str(row.pk)])
        # Both messages (the sweep's and the duplicate) were run by the worker.
        wait_for(lambda: len(ran) >= 2, timeout=15, what="two webhook_deliver runs")
        _overdue(row, settings)
        assert services.diagnosis_reap()["webhooks_redispatched"] == 0  # delivered
    task_postrun.disconnect(record)

    assert ran == ["delivered", "delivered"]
    assert [(hit["signed"], hit["json"]["notice"]) for hit in receiver.received] == [
        (True, "status_changed")
    ]
    row.refresh_from_db()
    assert (row.status, row.attempts, row.in_flight_until) == ("delivered", 1, None)


@pytest.mark.django_db
def test_an_attempt_in_flight_is_neither_swept_nor_sent_again(
    tenant,
    member,
    receiver,  # noqa: F811
    settings,
    django_capture_on_commit_callbacks,
):
    targets.webhook_target_create(
        tenant=tenant, name="pager", url=receiver.url, secret=SECRET
    )
    incident, _task = factories.make_incident(tenant)
    with django_capture_on_commit_callbacks(execute=False):
        row = _acknowledge(incident, member)
    _overdue(row, settings)
    WebhookDelivery.objects.filter(pk=row.pk).update(
        in_flight_until=timezone.now() + timedelta(seconds=30)
    )

    assert delivery.deliveries_redispatch() == 0
    assert delivery.webhook_attempt(delivery_id=str(row.pk)).status == "pending"
    assert receiver.received == []

    # A worker lost mid-attempt: once its claim lapses the sweep sends it again.
    WebhookDelivery.objects.filter(pk=row.pk).update(
        in_flight_until=timezone.now() - timedelta(seconds=1)
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert delivery.deliveries_redispatch() == 1
    assert len(callbacks) == 1
    assert delivery.webhook_attempt(delivery_id=str(row.pk)).status == "delivered"
    assert delivery.webhook_attempt(delivery_id=str(row.pk)).status == "delivered"
    assert len(receiver.received) == 1


@pytest.mark.django_db
def test_a_retrying_delivery_is_swept_only_after_its_backoff(
    tenant, member, settings, django_capture_on_commit_callbacks
):
    targets.webhook_target_create(
        tenant=tenant, name="gone", url="http://127.0.0.1:9/hook", secret=SECRET
    )
    incident, _task = factories.make_incident(tenant)
    with django_capture_on_commit_callbacks(execute=False):
        row = _acknowledge(incident, member)
    attempt = delivery.webhook_attempt(delivery_id=str(row.pk))
    assert attempt.status == "retrying"
    row.refresh_from_db()
    assert row.next_attempt_at > row.last_attempt_at  # due after the backoff

    later = row.next_attempt_at + timedelta(
        seconds=settings.DIAGNOSIS_QUEUED_REDISPATCH_SECONDS - 1
    )
    assert delivery.deliveries_redispatch(now=later) == 0
    assert delivery.deliveries_redispatch(now=later + timedelta(seconds=2)) == 1
