"""The htmx pages, through Django's test client."""

import pytest
from django.urls import reverse

from diagnosis.fields import REASON_MAX
from diagnosis.models import DiagnosisTask, Incident, Role
from diagnosis.states import TaskState
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def logged_in(client, member):
    client.force_login(member.user)
    return client


def test_pages_need_a_login(client):
    response = client.get(reverse("diagnosis:incident-list"))
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_login_page_renders(client):
    assert client.get("/accounts/login/").status_code == 200


def test_incident_list_shows_only_the_tenants_incidents(
    logged_in, tenant, other_tenant
):
    factories.make_incident(tenant, title="ours is broken")
    factories.make_incident(other_tenant, title="theirs is broken")
    body = logged_in.get(reverse("diagnosis:incident-list")).content.decode()
    assert "ours is broken" in body
    assert "theirs is broken" not in body


def test_htmx_create_redirects_to_the_new_incident(logged_in, tenant):
    response = logged_in.post(
        reverse("diagnosis:incident-list"),
        {
            "title": "db slow",
            "service": "orders",
            "severity": "sev2",
            "symptoms": "p99 up",
            "plan": "timed",
        },
        headers={"HX-Request": "true"},
    )
    incident = Incident.objects.get(title="db slow")
    assert response.status_code == 200
    assert response["HX-Redirect"] == reverse(
        "diagnosis:incident-detail", args=[incident.id]
    )
    assert incident.tasks.get().state == TaskState.QUEUED


def test_htmx_create_with_bad_input_returns_the_form_with_errors_and_creates_nothing(
    logged_in,
):
    response = logged_in.post(
        reverse("diagnosis:incident-list"),
        {"title": "", "service": "orders", "severity": "sev9", "plan": "timed"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 400
    assert 'id="new-incident"' in response.content.decode()
    assert "<html" not in response.content.decode()
    assert Incident.objects.count() == 0


def test_detail_shows_events_and_stream_url(logged_in, tenant):
    incident, task = factories.make_incident(tenant)
    body = logged_in.get(
        reverse("diagnosis:incident-detail", args=[incident.id])
    ).content.decode()
    assert f'data-events-url="/api/tasks/{task.id}/events"' in body
    assert 'data-last-seq="1"' in body
    assert "task_created" in body


def test_detail_resumes_after_the_last_rendered_event_not_the_task_read_before_it(
    logged_in, tenant, monkeypatch
):
    """An event appended between reading the task and reading its events is rendered, so the
    stream must start after it; starting from the task's older last_seq showed it twice."""
    from diagnosis import lifecycle, selectors

    incident, _ = factories.make_incident(tenant)
    read_events = selectors.diagnosis_events_after

    def append_then_read(*, task_id, after_seq):
        lifecycle.diagnosis_event_append(task_id=task_id, kind="tool_progress")
        return read_events(task_id=task_id, after_seq=after_seq)

    monkeypatch.setattr(selectors, "diagnosis_events_after", append_then_read)
    body = logged_in.get(
        reverse("diagnosis:incident-detail", args=[incident.id])
    ).content.decode()
    assert body.count("<li data-seq=") == 2
    assert 'data-last-seq="2"' in body


def test_detail_of_another_tenants_incident_is_404(logged_in, other_tenant):
    incident, _ = factories.make_incident(other_tenant)
    assert (
        logged_in.get(
            reverse("diagnosis:incident-detail", args=[incident.id])
        ).status_code
        == 404
    )


def test_cancel_button_cancels_the_active_task_and_returns_the_parts(logged_in, tenant):
    incident, task = factories.make_incident(tenant)
    response = logged_in.post(
        reverse("diagnosis:incident-cancel", args=[incident.id]),
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    assert 'id="controls"' in response.content.decode()
    assert DiagnosisTask.objects.get(pk=task.pk).state == TaskState.CANCELLED


def test_viewer_cannot_cancel(client, tenant):
    viewer = factories.make_member(tenant, role=Role.VIEWER)
    client.force_login(viewer.user)
    incident, task = factories.make_incident(tenant)
    assert (
        client.post(
            reverse("diagnosis:incident-cancel", args=[incident.id])
        ).status_code
        == 404
    )
    assert DiagnosisTask.objects.get(pk=task.pk).state == TaskState.QUEUED


def test_approver_decides_a_pending_approval(client, tenant):
    approver = factories.make_member(tenant, role=Role.APPROVER)
    client.force_login(approver.user)
    task, approval = factories.make_approval(tenant)
    response = client.post(
        reverse("diagnosis:approval-decide", args=[approval.id]),
        {"decision": "approve"},
    )
    assert response.status_code == 200
    approval.refresh_from_db()
    assert (approval.status, approval.decided_by) == ("approved", approver.user)
    assert DiagnosisTask.objects.get(pk=task.pk).state == TaskState.QUEUED


def test_the_page_takes_a_decision_reason_as_long_as_the_api_does(client, tenant):
    approver = factories.make_member(tenant, role=Role.APPROVER)
    client.force_login(approver.user)
    task, approval = factories.make_approval(tenant)
    page = client.get(reverse("diagnosis:incident-detail", args=[task.incident_id]))
    assert f'name="reason" maxlength="{REASON_MAX}"' in page.content.decode()
    decide = reverse("diagnosis:approval-decide", args=[approval.id])
    client.post(decide, {"decision": "deny", "reason": "r" * (REASON_MAX + 1)})
    approval.refresh_from_db()
    assert approval.status == "pending"
    client.post(decide, {"decision": "deny", "reason": "r" * REASON_MAX})
    approval.refresh_from_db()
    assert (approval.status, len(approval.reason)) == ("denied", REASON_MAX)


def test_rerun_after_finish_starts_a_new_task(logged_in, tenant):
    incident, _task = factories.make_incident(tenant)
    logged_in.post(reverse("diagnosis:incident-cancel", args=[incident.id]))
    response = logged_in.post(
        reverse("diagnosis:incident-rerun", args=[incident.id]),
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    assert incident.tasks.count() == 2


def test_pages_load_htmx_once_and_no_debug_error_handler_under_debug(
    logged_in, settings
):
    # django-htmx.js (added by its template tags under DEBUG) replaced the whole page with any
    # 4xx fragment, a form's errors among them; the page's own htmx config swaps a 400.
    settings.DEBUG = True
    body = logged_in.get(reverse("diagnosis:incident-list")).content.decode()
    assert "django-htmx.js" not in body
    assert body.count("django_htmx/htmx-2.min.js") == 1
    assert '{"code": "400", "swap": true, "error": false}' in body
