"""Task snapshot, trace, and cancel through both cancel endpoints."""

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from diagnosis import lifecycle, services
from diagnosis.models import DiagnosisTask, TaskEvent, ToolCallSpan
from diagnosis.states import TaskState
from tests import factories


def _auth(token):
    return {"Authorization": f"Bearer {token}"}


def _post(client, token, path):
    return client.post(
        path, data="{}", content_type="application/json", headers=_auth(token)
    )


def _events(task):
    return list(TaskEvent.objects.filter(task=task).values_list("seq", "type"))


def test_task_snapshot_has_state_last_seq_and_links(client, token, tenant):
    _, task = factories.make_incident(tenant)
    lifecycle.diagnosis_claim(task_id=task.id, owner="worker-1")

    response = client.get(f"/api/tasks/{task.id}", headers=_auth(token))

    assert response.status_code == 200
    body = response.json()
    task.refresh_from_db()
    assert body["id"] == str(task.id)
    assert body["incident_id"] == str(task.incident_id)
    assert (body["state"], body["version"], body["attempt"], body["last_seq"]) == (
        "running",
        1,
        1,
        2,
    )
    assert body["error"] is None
    assert body["report"] is None
    assert body["started_at"] == task.started_at.isoformat()
    assert body["events_url"] == f"/api/tasks/{task.id}/events"
    assert body["trace_url"] == f"/api/tasks/{task.id}/trace"


def test_task_snapshot_shows_a_failure_by_layer(client, token, tenant):
    _, task = factories.make_incident(tenant)
    task = lifecycle.diagnosis_claim(task_id=task.id, owner="w")
    lifecycle.diagnosis_transition(
        task=task,
        to=TaskState.FAILED,
        fields={
            "error_layer": "transport",
            "error_code": "connect_error",
            "error_message": "connection refused",
            "report": {"summary": "partial"},
        },
    )

    body = client.get(f"/api/tasks/{task.id}", headers=_auth(token)).json()

    assert body["state"] == "failed"
    assert body["error"] == {
        "layer": "transport",
        "code": "connect_error",
        "message": "connection refused",
    }
    assert body["report"] == {"summary": "partial"}
    assert body["finished_at"] is not None


def test_cancel_of_a_queued_task_ends_it_at_once(client, token, tenant):
    incident, task = factories.make_incident(tenant)

    response = _post(client, token, f"/api/tasks/{task.id}/cancel")

    assert response.status_code == 202
    assert response.json() == {
        "incident_id": str(incident.id),
        "task_id": str(task.id),
        "status": "cancelled",
    }
    task.refresh_from_db()
    assert task.state == TaskState.CANCELLED
    assert task.cancel_requested_at is not None
    assert _events(task) == [(1, "task_created"), (2, "task_cancelled")]


def test_cancel_of_a_running_task_moves_it_to_cancelling(client, token, tenant):
    incident, task = factories.make_incident(tenant)
    lifecycle.diagnosis_claim(task_id=task.id, owner="worker-1")

    response = _post(client, token, f"/api/tasks/{task.id}/cancel")

    assert response.status_code == 202
    assert response.json() == {
        "incident_id": str(incident.id),
        "task_id": str(task.id),
        "status": "cancelling",
    }
    task.refresh_from_db()
    assert task.state == TaskState.CANCELLING
    assert _events(task)[-1] == (3, "task_cancelling")


def test_cancel_again_while_cancelling_is_202_and_appends_nothing(
    client, token, tenant
):
    _, task = factories.make_incident(tenant)
    lifecycle.diagnosis_claim(task_id=task.id, owner="worker-1")
    _post(client, token, f"/api/tasks/{task.id}/cancel")
    before = _events(task)

    response = _post(client, token, f"/api/tasks/{task.id}/cancel")

    assert response.status_code == 202
    assert response.json()["status"] == "cancelling"
    assert _events(task) == before


@pytest.mark.parametrize(
    "final", [TaskState.SUCCEEDED, TaskState.FAILED, TaskState.TIMED_OUT]
)
def test_cancel_of_a_finished_task_is_409_with_its_state(client, token, tenant, final):
    _, task = factories.make_incident(tenant)
    task = lifecycle.diagnosis_claim(task_id=task.id, owner="w")
    lifecycle.diagnosis_transition(task=task, to=final)
    before = (_events(task), DiagnosisTask.objects.get(pk=task.pk).version)

    response = _post(client, token, f"/api/tasks/{task.id}/cancel")

    assert response.status_code == 409
    assert response.json()["state"] == final
    assert response.json()["code"] == "task_finished"
    assert (_events(task), DiagnosisTask.objects.get(pk=task.pk).version) == before


def test_cancel_rejects_a_body_with_fields(client, token, tenant):
    _, task = factories.make_incident(tenant)

    response = client.post(
        f"/api/tasks/{task.id}/cancel",
        data=json.dumps({"force": True}),
        content_type="application/json",
        headers=_auth(token),
    )

    assert response.status_code == 400
    assert response.json()["fields"] == {"force": "unknown field"}
    assert DiagnosisTask.objects.get().state == TaskState.QUEUED


def test_cancel_with_no_body_at_all_is_accepted(client, token, tenant):
    _, task = factories.make_incident(tenant)

    response = client.post(
        f"/api/tasks/{task.id}/cancel",
        data=b"",
        content_type="application/octet-stream",
        headers=_auth(token),
    )

    assert response.status_code == 202


def test_incident_cancel_cancels_its_active_task(client, token, tenant):
    incident, task = factories.make_incident(tenant)
    lifecycle.diagnosis_claim(task_id=task.id, owner="worker-1")

    response = _post(client, token, f"/api/incidents/{incident.id}/cancel")

    assert response.status_code == 202
    assert response.json() == {
        "incident_id": str(incident.id),
        "task_id": str(task.id),
        "status": "cancelling",
    }
    assert DiagnosisTask.objects.get().state == TaskState.CANCELLING


def test_incident_cancel_of_a_queued_task_answers_cancelled(client, token, tenant):
    incident, _ = factories.make_incident(tenant)

    response = _post(client, token, f"/api/incidents/{incident.id}/cancel")

    assert response.status_code == 202
    assert response.json()["status"] == "cancelled"
    assert DiagnosisTask.objects.get().state == TaskState.CANCELLED


def test_incident_cancel_without_an_active_task_is_409(client, token, tenant):
    incident, task = factories.make_incident(tenant)
    services.diagnosis_cancel(task=task)
    before = _events(task)

    response = _post(client, token, f"/api/incidents/{incident.id}/cancel")

    assert response.status_code == 409
    assert response.json()["code"] == "no_active_task"
    assert _events(task) == before


def test_trace_lists_the_tasks_spans_in_start_order(client, token, tenant):
    _, task = factories.make_incident(tenant)
    now = timezone.now()

    def span(name, started_at, **extra):
        return ToolCallSpan.objects.create(
            task=task,
            tenant=tenant,
            trace_id="a" * 32,
            span_id=name[:16],
            agent="metrics",
            server_name="prom",
            transport="stdio",
            tool_name=name,
            started_at=started_at,
            **extra,
        )

    later = span("query_range", now, latency_ms=12.5, arguments_redacted={"q": "up"})
    earlier = span(
        "list_alerts",
        now - timedelta(seconds=5),
        error_layer="tool-execution",
        error_code="backend_error",
        error_message="503",
    )

    response = client.get(f"/api/tasks/{task.id}/trace", headers=_auth(token))

    assert response.status_code == 200
    body = response.json()
    assert body["task_id"] == str(task.id)
    assert [s["id"] for s in body["spans"]] == [str(earlier.id), str(later.id)]
    assert body["spans"][0]["error"] == {
        "layer": "tool-execution",
        "code": "backend_error",
        "message": "503",
    }
    assert body["spans"][1]["arguments"] == {"q": "up"}
    assert body["spans"][1]["latency_ms"] == 12.5


def test_span_detail_has_the_stored_result_and_is_the_tasks_own(client, token, tenant):
    _, task = factories.make_incident(tenant)
    _, other = factories.make_incident(tenant)
    span = factories.make_span(
        task,
        agent="kubernetes",
        server_name="kubernetes",
        tool_name="events",
        result_preview="LAST SEEN   TYPE",
        result={"text": "LAST SEEN   TYPE ... Warning FailedScheduling"},
    )

    response = client.get(f"/api/tasks/{task.id}/spans/{span.id}", headers=_auth(token))

    assert response.status_code == 200
    body = response.json()
    assert body["id"] == str(span.id) and body["tool_name"] == "events"
    assert body["result"] == {"text": "LAST SEEN   TYPE ... Warning FailedScheduling"}
    by_otel_id = client.get(
        f"/api/tasks/{task.id}/spans/{span.span_id}", headers=_auth(token)
    )
    assert by_otel_id.json() == body
    for path in (
        f"/api/tasks/{other.id}/spans/{span.id}",  # not that task's span
        f"/api/tasks/{other.id}/spans/{span.span_id}",
        f"/api/tasks/{task.id}/spans/not-a-uuid",
    ):
        missing = client.get(path, headers=_auth(token))
        assert missing.status_code == 404, path
        assert missing.json()["code"] == "not_found"


def test_trace_of_a_task_without_spans_is_empty(client, token, tenant):
    _, task = factories.make_incident(tenant)

    response = client.get(f"/api/tasks/{task.id}/trace", headers=_auth(token))

    assert response.json() == {"task_id": str(task.id), "spans": []}


def test_trace_and_span_detail_carry_the_spans_opentelemetry_attributes(
    client, token, tenant, member
):
    _, task = factories.make_incident(tenant)
    span = factories.make_span(
        task,
        state="ok",
        attributes={"jsonrpc.request.id": "7", "network.transport": "pipe"},
    )
    trace = client.get(f"/api/tasks/{task.id}/trace", headers=_auth(token)).json()
    detail = client.get(
        f"/api/tasks/{task.id}/spans/{span.id}", headers=_auth(token)
    ).json()
    [listed] = trace["spans"]
    for attributes in (listed["attributes"], detail["attributes"]):
        assert {
            "gen_ai.tool.name": "search_logs",
            "mcp.method.name": "tools/call",
            "jsonrpc.request.id": "7",
            "network.transport": "pipe",
        }.items() <= attributes.items()
    # The trace page lists the same set.
    client.force_login(member.user)
    page = client.get(
        reverse("diagnosis:task-trace", args=[task.id]), {"span": span.span_id}
    ).content.decode()
    for name in detail["attributes"]:
        assert f"<dt><code>{name}</code></dt>" in page, name
