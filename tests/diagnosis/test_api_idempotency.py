"""Idempotency-Key on POSTs: replay, 422 on another body, 409 while processing, no burnt keys."""

import json
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from diagnosis import services
from diagnosis.api import idempotency
from diagnosis.api.errors import ApiError
from diagnosis.models import (
    DiagnosisTask,
    IdempotencyRecord,
    IdempotencyStatus,
    Incident,
    TaskEvent,
)
from diagnosis.principals import principal_from_token
from tests import factories

BODY = {"title": "latency", "service": "search", "severity": "sev3"}


def _post(client, token, path, body, key):
    raw = body if isinstance(body, str) else json.dumps(body)
    return client.post(
        path,
        data=raw,
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key},
    )


def _counts():
    return (
        Incident.objects.count(),
        DiagnosisTask.objects.count(),
        TaskEvent.objects.count(),
    )


def test_same_key_and_body_replays_the_saved_answer_without_a_second_effect(
    client, token
):
    first = _post(client, token, "/api/incidents", BODY, "key-1")
    after_first = _counts()

    # Same body with other key order and spacing: the canonical JSON is the same.
    again = _post(
        client,
        token,
        "/api/incidents",
        '{"severity":"sev3",  "service":"search","title":"latency"}',
        "key-1",
    )

    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    assert _counts() == after_first == (1, 1, 1)
    record = IdempotencyRecord.objects.get()
    assert (record.status, record.response_status) == (IdempotencyStatus.SUCCEEDED, 201)
    assert record.expires_at > timezone.now() + timedelta(hours=23)


def test_same_key_with_a_different_body_is_422_and_creates_nothing(client, token):
    _post(client, token, "/api/incidents", BODY, "key-1")
    before = _counts()

    response = _post(
        client, token, "/api/incidents", {**BODY, "title": "other"}, "key-1"
    )

    assert response.status_code == 422
    assert response.json()["code"] == "idempotency_key_reused"
    assert _counts() == before


def test_same_key_on_another_path_is_422(client, token, tenant):
    created = _post(client, token, "/api/incidents", BODY, "key-1").json()

    response = _post(
        client, token, f"/api/tasks/{created['task']['id']}/cancel", {}, "key-1"
    )

    assert response.status_code == 422
    assert DiagnosisTask.objects.get().state == "queued"


def test_key_still_processing_is_409_and_creates_nothing(client, token, member):
    principal = principal_from_token(token)
    IdempotencyRecord.objects.create(
        scope=principal.scope_key,
        key="key-1",
        request_hash=idempotency.request_hash("POST", "/api/incidents", BODY),
        expires_at=timezone.now() + timedelta(hours=24),
    )

    response = _post(client, token, "/api/incidents", BODY, "key-1")

    assert response.status_code == 409
    assert response.json()["code"] == "idempotency_key_in_progress"
    assert _counts() == (0, 0, 0)


def test_stale_processing_record_is_taken_over(client, token):
    principal = principal_from_token(token)
    record = IdempotencyRecord.objects.create(
        scope=principal.scope_key,
        key="key-1",
        request_hash=idempotency.request_hash("POST", "/api/incidents", BODY),
        expires_at=timezone.now() + timedelta(hours=24),
    )
    IdempotencyRecord.objects.filter(pk=record.pk).update(
        created_at=timezone.now() - idempotency.PROCESSING_STALE - timedelta(seconds=1)
    )

    response = _post(client, token, "/api/incidents", BODY, "key-1")

    assert response.status_code == 201
    assert Incident.objects.count() == 1


def test_keys_of_different_callers_do_not_collide(client, token, tenant):
    other = factories.make_token(factories.make_member(tenant))

    a = _post(client, token, "/api/incidents", BODY, "shared-key")
    b = _post(client, other, "/api/incidents", BODY, "shared-key")

    assert a.status_code == b.status_code == 201
    assert a.json()["id"] != b.json()["id"]
    assert Incident.objects.count() == 2


def test_validation_failure_keeps_no_record_and_a_corrected_retry_succeeds(
    client, token
):
    bad = _post(client, token, "/api/incidents", {**BODY, "severity": "sev9"}, "key-1")

    assert bad.status_code == 400
    assert _counts() == (0, 0, 0)
    assert IdempotencyRecord.objects.count() == 0

    good = _post(client, token, "/api/incidents", BODY, "key-1")
    assert good.status_code == 201
    assert Incident.objects.count() == 1


def test_non_json_body_with_a_key_creates_nothing(client, token):
    response = _post(client, token, "/api/incidents", "{oops", "key-1")

    assert response.status_code == 400
    assert _counts() == (0, 0, 0)
    assert IdempotencyRecord.objects.count() == 0


def test_error_answer_marks_the_key_failed_and_a_later_retry_runs(
    client, token, tenant
):
    incident, task = factories.make_incident(tenant)
    path = f"/api/incidents/{incident.id}/diagnoses"

    conflict = _post(client, token, path, {}, "rerun-1")
    assert conflict.status_code == 409
    record = IdempotencyRecord.objects.get()
    assert (record.status, record.response_status) == (IdempotencyStatus.FAILED, 409)

    services.diagnosis_cancel(task=task)
    retry = _post(client, token, path, {}, "rerun-1")

    assert retry.status_code == 201
    assert "Idempotent-Replayed" not in retry
    assert DiagnosisTask.objects.filter(incident=incident).count() == 2
    assert IdempotencyRecord.objects.get().status == IdempotencyStatus.SUCCEEDED


def test_failed_key_may_be_reused_with_a_corrected_body(client, token, tenant):
    incident, _ = factories.make_incident(tenant)
    assert (
        _post(
            client, token, f"/api/incidents/{incident.id}/cancel", {}, "k"
        ).status_code
        == 202
    )
    # The task is cancelled: a second cancel under a new key is a 409 and marks "k2" failed.
    assert (
        _post(
            client, token, f"/api/incidents/{incident.id}/cancel", {}, "k2"
        ).status_code
        == 409
    )

    response = _post(client, token, "/api/incidents", BODY, "k2")

    assert response.status_code == 201


def test_cancel_replay_returns_the_first_answer_not_a_409(client, token, tenant):
    _, task = factories.make_incident(tenant)
    path = f"/api/tasks/{task.id}/cancel"

    first = _post(client, token, path, {}, "cancel-1")
    events = list(TaskEvent.objects.values_list("seq", flat=True))
    again = _post(client, token, path, {}, "cancel-1")

    assert first.status_code == again.status_code == 202
    assert (
        again.json()
        == first.json()
        == {
            "incident_id": str(task.incident_id),
            "task_id": str(task.id),
            "status": "cancelled",
        }
    )
    assert list(TaskEvent.objects.values_list("seq", flat=True)) == events


def test_expired_record_is_ignored(client, token):
    _post(client, token, "/api/incidents", BODY, "key-1")
    IdempotencyRecord.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    response = _post(client, token, "/api/incidents", BODY, "key-1")

    assert response.status_code == 201
    assert "Idempotent-Replayed" not in response
    assert Incident.objects.count() == 2


@pytest.mark.parametrize("key", ["", "   ", "k" * 201])
def test_blank_or_over_long_key_is_400(client, token, key):
    response = _post(client, token, "/api/incidents", BODY, key)

    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["fields"]
    assert _counts() == (0, 0, 0)


def test_claim_taken_over_during_the_effect_rolls_the_effect_back(tenant, token):
    principal = principal_from_token(token)

    def effect():
        services.incident_create(
            tenant=tenant, user=None, title="t", service="s", severity="sev3"
        )
        # Another request takes the record over while this effect runs.
        IdempotencyRecord.objects.update(
            created_at=timezone.now() + timedelta(seconds=1)
        )
        return 201, {}

    with pytest.raises(ApiError) as caught:
        idempotency.run(principal=principal, key="k", digest="d" * 64, effect=effect)

    assert caught.value.status == 409
    assert _counts() == (0, 0, 0)


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_with_one_key_have_one_effect(tenant, member, monkeypatch):
    from diagnosis import dispatch

    # Rows commit here, so on_commit enqueues run: record them instead of using the broker.
    enqueued = []
    monkeypatch.setattr(dispatch, "diagnosis_run_enqueue", enqueued.append)
    token = factories.make_token(member)
    barrier = threading.Barrier(4)
    answers = []

    def send():
        try:
            barrier.wait(timeout=5)
            response = _post(Client(), token, "/api/incidents", BODY, "race")
            answers.append(
                (response.status_code, response.has_header("Idempotent-Replayed"))
            )
        finally:
            connection.close()

    threads = [threading.Thread(target=send) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)

    assert len(answers) == 4
    # Exactly one request ran the effect; the others were told to wait or got its answer.
    assert answers.count((201, False)) == 1
    assert set(answers) <= {(201, False), (201, True), (409, False)}
    assert Incident.objects.count() == 1
    assert DiagnosisTask.objects.count() == 1
    assert enqueued == [str(DiagnosisTask.objects.get().id)]


def test_crash_in_the_effect_is_a_json_500_and_frees_the_key(token, monkeypatch):
    def explode(**kwargs):
        raise RuntimeError("database on fire")

    monkeypatch.setattr(services, "incident_create", explode)
    client = Client(raise_request_exception=False)

    crashed = _post(client, token, "/api/incidents", BODY, "key-1")

    assert crashed.status_code == 500
    assert crashed.json()["code"] == "internal"
    record = IdempotencyRecord.objects.get()
    assert (record.status, record.response_status) == (IdempotencyStatus.FAILED, 500)
    assert _counts() == (0, 0, 0)

    monkeypatch.undo()
    retried = _post(client, token, "/api/incidents", BODY, "key-1")
    assert retried.status_code == 201
    assert Incident.objects.count() == 1
