"""POST/GET /api/incidents, detail and re-run: shapes, validation (nothing created), pagination."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from diagnosis import services
from diagnosis.api.validation import MAX_BODY_BYTES
from diagnosis.models import DiagnosisTask, IdempotencyRecord, Incident, TaskEvent
from diagnosis.states import TaskState
from tests import factories

VALID = {
    "title": "checkout 502s",
    "service": "checkout",
    "severity": "sev2",
    "symptoms": "502 from the gateway since 10:02",
    "window_start": "2026-11-30T10:00:00Z",
    "window_end": "2026-11-30T10:30:00+00:00",
}


def _auth(token):
    return {"Authorization": f"Bearer {token}"}


def _post(client, token, path, body, **headers):
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return client.post(
        path,
        data=data,
        content_type=headers.pop("content_type", "application/json"),
        headers={**_auth(token), **headers},
    )


def _counts():
    return (
        Incident.objects.count(),
        DiagnosisTask.objects.count(),
        TaskEvent.objects.count(),
        IdempotencyRecord.objects.count(),
    )


def test_create_incident_answers_201_with_its_queued_task(client, token, tenant):
    response = _post(client, token, "/api/incidents", VALID)

    assert response.status_code == 201
    body = response.json()
    incident = Incident.objects.get(pk=body["id"])
    task = DiagnosisTask.objects.get(incident=incident)
    assert incident.tenant == tenant
    assert incident.created_by.username == "alice"
    assert body == {
        "id": str(incident.id),
        "title": "checkout 502s",
        "service": "checkout",
        "severity": "sev2",
        "symptoms": "502 from the gateway since 10:02",
        "description": "",
        "labels": {},
        "window_start": "2026-11-30T10:00:00+00:00",
        "window_end": "2026-11-30T10:30:00+00:00",
        "environment": "default",
        "created_at": incident.created_at.isoformat(),
        "status": "triggered",
        "task": {
            "id": str(task.id),
            "state": "queued",
            "events_url": f"/api/tasks/{task.id}/events",
        },
    }
    assert task.plan == "default"
    assert list(task.events.values_list("seq", "type")) == [(1, "task_created")]


def test_create_incident_enqueues_the_task_after_commit(
    client, token, django_capture_on_commit_callbacks, monkeypatch
):
    sent = []
    from diagnosis import dispatch

    monkeypatch.setattr(dispatch, "diagnosis_run_enqueue", sent.append)
    with django_capture_on_commit_callbacks(execute=True):
        response = _post(client, token, "/api/incidents", VALID)

    assert response.status_code == 201
    assert sent == [response.json()["task"]["id"]]


def test_create_incident_takes_a_registered_plan_and_its_args(client, token):
    body = {**VALID, "plan": "timed", "plan_args": {"steps": [0.01]}}
    response = _post(client, token, "/api/incidents", body)

    assert response.status_code == 201
    task = DiagnosisTask.objects.get(pk=response.json()["task"]["id"])
    assert (task.plan, task.plan_args) == ("timed", {"steps": [0.01]})


@pytest.mark.parametrize(
    ("change", "field", "reason_part"),
    [
        ({"title": None}, "title", "required"),
        ({"title": "   "}, "title", "blank"),
        ({"title": "t" * 201}, "title", "at most 200"),
        ({"service": None}, "service", "required"),
        ({"service": "s" * 101}, "service", "at most 100"),
        ({"service": 42}, "service", "string"),
        ({"symptoms": "x" * 4001}, "symptoms", "at most 4000"),
        ({"severity": "sev5"}, "severity", "unknown severity"),
        ({"severity": None}, "severity", "required"),
        ({"window_end": "2026-11-30T09:00:00Z"}, "window_end", "before window_start"),
        ({"window_start": "yesterday"}, "window_start", "ISO 8601"),
        ({"window_start": "2026-13-40T10:00:00Z"}, "window_start", "ISO 8601"),
        ({"window_start": "2026-11-30T10:00:00"}, "window_start", "UTC offset"),
        ({"window_end": 1700000000}, "window_end", "string"),
        ({"plan": "no-such-plan"}, "plan", "unknown plan"),
        ({"plan_args": [1, 2]}, "plan_args", "object"),
        ({"priority": "high"}, "priority", "unknown field"),
        ({"title": "nul\x00byte"}, "title", "NUL"),
        ({"plan_args": {"k": ["a\x00"]}}, "plan_args", "NUL"),
    ],
)
def test_create_incident_rejects_bad_field_and_creates_nothing(
    client, token, change, field, reason_part
):
    body = {k: v for k, v in {**VALID, **change}.items() if v is not None}
    before = _counts()

    response = _post(client, token, "/api/incidents", body, HTTP_IDEMPOTENCY_KEY="k1")

    assert response.status_code == 400
    payload = response.json()
    assert payload["code"] == "invalid"
    assert reason_part in payload["fields"][field]
    assert _counts() == before


def test_create_incident_reports_every_bad_field_at_once(client, token):
    response = _post(client, token, "/api/incidents", {"severity": "p1"})

    assert response.status_code == 400
    assert set(response.json()["fields"]) == {"title", "service", "severity"}


@pytest.mark.parametrize(
    ("raw", "content_type", "field"),
    [
        ("{not json", "application/json", "body"),
        (b"\xff\xfe{}", "application/json", "body"),
        ("[1, 2, 3]", "application/json", "body"),
        ('"a string"', "application/json", "body"),
        ("null", "application/json", "body"),
        (json.dumps(VALID), "text/plain", "Content-Type"),
        ("title=x&service=y", "application/x-www-form-urlencoded", "Content-Type"),
        ("", "application/json", "body"),
        ('{"title": NaN}', "application/json", "body"),
        ('{"plan_args": {"x": Infinity}}', "application/json", "body"),
        ("[" * 20000 + "]" * 20000, "application/json", "body"),
    ],
)
def test_create_incident_rejects_a_body_that_is_not_a_json_object(
    client, token, raw, content_type, field
):
    before = _counts()

    response = _post(
        client,
        token,
        "/api/incidents",
        raw,
        content_type=content_type,
        HTTP_IDEMPOTENCY_KEY="k2",
    )

    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert field in response.json()["fields"]
    assert _counts() == before


def test_create_incident_rejects_a_body_over_64_kib_with_413(client, token):
    body = {**VALID, "plan_args": {"pad": "x" * MAX_BODY_BYTES}}
    before = _counts()

    response = _post(client, token, "/api/incidents", body, HTTP_IDEMPOTENCY_KEY="k3")

    assert response.status_code == 413
    assert response.json()["code"] == "too_large"
    assert _counts() == before


def test_body_of_exactly_64_kib_is_accepted(client, token):
    # Padded with JSON whitespace: no field of a valid body takes 64 KiB of text.
    text = json.dumps(VALID)
    body = text + " " * (MAX_BODY_BYTES - len(text))
    assert len(body) == MAX_BODY_BYTES

    assert _post(client, token, "/api/incidents", body).status_code == 201


def test_list_incidents_pages_newest_first_with_a_keyset_cursor(client, token, tenant):
    made = [factories.make_incident(tenant, title=f"incident {i}")[0] for i in range(5)]
    # Two share a created_at: the id breaks the tie, and no row is skipped or repeated.
    same = timezone.now() - timedelta(minutes=1)
    Incident.objects.filter(pk__in=[made[1].pk, made[2].pk]).update(created_at=same)
    expected = [
        str(pk)
        for pk in Incident.objects.filter(tenant=tenant)
        .order_by("-created_at", "-id")
        .values_list("id", flat=True)
    ]

    seen, cursor, pages = [], None, 0
    while True:
        url = "/api/incidents?limit=2" + (f"&cursor={cursor}" if cursor else "")
        response = client.get(url, headers=_auth(token))
        assert response.status_code == 200
        body = response.json()
        assert len(body["results"]) <= 2
        seen += [row["id"] for row in body["results"]]
        pages += 1
        cursor = body["next"]
        if cursor is None:
            break

    assert seen == expected
    assert pages == 3


def test_list_incidents_shows_only_the_callers_tenant(
    client, token, tenant, other_tenant
):
    mine, _ = factories.make_incident(tenant)
    factories.make_incident(other_tenant)

    body = client.get("/api/incidents", headers=_auth(token)).json()

    assert [row["id"] for row in body["results"]] == [str(mine.id)]
    assert body["next"] is None


@pytest.mark.parametrize(
    "query",
    [
        "limit=0",
        "limit=101",
        "limit=ten",
        "cursor=bm90LWEtY3Vyc29y",
        "cursor=%25%25",
        "page=2",
    ],
)
def test_list_incidents_rejects_bad_parameters(client, token, query):
    response = client.get(f"/api/incidents?{query}", headers=_auth(token))

    assert response.status_code == 400
    assert response.json()["fields"]


def test_incident_detail_lists_its_tasks_newest_first(client, token, tenant):
    incident, first = factories.make_incident(tenant)
    services.diagnosis_cancel(task=first)
    second = services.diagnosis_start(incident=incident, plan="timed")

    response = client.get(f"/api/incidents/{incident.id}", headers=_auth(token))

    assert response.status_code == 200
    body = response.json()
    assert body["id"] == str(incident.id)
    assert [(t["id"], t["state"]) for t in body["tasks"]] == [
        (str(second.id), "queued"),
        (str(first.id), "cancelled"),
    ]


def test_rerun_answers_201_with_a_new_queued_task(client, token, tenant):
    incident, first = factories.make_incident(tenant)
    services.diagnosis_cancel(task=first)

    response = _post(
        client, token, f"/api/incidents/{incident.id}/diagnoses", {"plan": "timed"}
    )

    assert response.status_code == 201
    body = response.json()
    assert body["state"] == "queued"
    assert body["incident_id"] == str(incident.id)
    assert body["id"] != str(first.id)
    assert DiagnosisTask.objects.get(pk=body["id"]).plan == "timed"


def test_rerun_with_an_empty_body_uses_the_default_plan(client, token, tenant):
    incident, first = factories.make_incident(tenant)
    services.diagnosis_cancel(task=first)

    response = client.post(
        f"/api/incidents/{incident.id}/diagnoses",
        data=b"",
        content_type="application/octet-stream",
        headers=_auth(token),
    )

    assert response.status_code == 201
    assert DiagnosisTask.objects.get(pk=response.json()["id"]).plan == "default"


def test_rerun_while_a_task_is_active_is_409_and_creates_nothing(client, token, tenant):
    incident, active = factories.make_incident(tenant)
    before = _counts()

    response = _post(client, token, f"/api/incidents/{incident.id}/diagnoses", {})

    assert response.status_code == 409
    assert response.json()["code"] == "active_task_exists"
    assert response.json()["task_id"] == str(active.id)
    assert _counts() == before


def test_rerun_rejects_an_unknown_plan_and_creates_nothing(client, token, tenant):
    incident, first = factories.make_incident(tenant)
    services.diagnosis_cancel(task=first)
    before = _counts()

    response = _post(
        client, token, f"/api/incidents/{incident.id}/diagnoses", {"plan": "nope"}
    )

    assert response.status_code == 400
    assert "plan" in response.json()["fields"]
    assert _counts() == before
    assert DiagnosisTask.objects.filter(state=TaskState.QUEUED).count() == 0
