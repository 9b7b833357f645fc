"""Steering a diagnosis through the page (issue 20 item 9): notes on a running diagnosis, a
hypothesis marked wrong, a re-run with a corrected service or environment."""

import pytest
from django.urls import reverse

from diagnosis import steering
from diagnosis.models import TaskEvent
from diagnosis.states import TaskState
from tests import factories

pytestmark = pytest.mark.django_db

HX = {"HX-Request": "true"}
REPORT = {
    "summary": "pool exhausted",
    "hypotheses": [
        {
            "id": "application:checkout",
            "layer": "application",
            "component": "checkout",
            "statement": "checkout leaks connections",
            "confidence": 0.9,
            "status": "confirmed",
            "evidence": [],
            "causal_chain": [],
        }
    ],
}


@pytest.fixture
def logged_in(client, member):
    client.force_login(member.user)
    return client


def _steering(task):
    return list(
        TaskEvent.objects.filter(task=task, type="steering_added").values_list(
            "data", flat=True
        )
    )


def test_a_note_on_a_running_diagnosis_is_an_event_and_shows_on_the_page(
    logged_in, tenant
):
    incident, task = factories.make_incident(tenant)
    url = reverse("diagnosis:task-steer", args=[task.id])

    blank = logged_in.post(url, {"note": "  "}, headers=HX)
    assert blank.status_code == 400
    assert "must not be blank" in blank.content.decode()
    assert _steering(task) == []

    response = logged_in.post(
        url, {"note": "payments-gw deployed at 10:02"}, headers=HX
    )
    assert response.status_code == 200
    assert "payments-gw deployed at 10:02" in response.content.decode()
    assert "reads it before its next round" in response.content.decode()
    [data] = _steering(task)
    assert data["note"] == "payments-gw deployed at 10:02"
    assert steering.task_steering(task_id=task.id).notes == (
        "payments-gw deployed at 10:02",
    )
    page = logged_in.get(reverse("diagnosis:incident-detail", args=[incident.id]))
    assert 'id="steering-note"' in page.content.decode()


def test_a_note_on_an_ended_diagnosis_is_refused_and_adds_nothing(logged_in, tenant):
    incident, task = factories.make_incident(tenant)
    logged_in.post(reverse("diagnosis:incident-cancel", args=[incident.id]))
    response = logged_in.post(
        reverse("diagnosis:task-steer", args=[task.id]), {"note": "late"}, headers=HX
    )
    assert response.status_code == 400
    assert "has ended" in response.content.decode()
    assert _steering(task) == []


def test_this_is_wrong_reruns_with_the_hypothesis_excluded_and_steering_carried(
    logged_in, tenant
):
    incident, task = factories.make_incident(tenant)
    logged_in.post(
        reverse("diagnosis:task-steer", args=[task.id]), {"note": "first note"}
    )
    logged_in.post(reverse("diagnosis:incident-cancel", args=[incident.id]))
    task.refresh_from_db()
    task.report = REPORT
    task.save(update_fields=["report"])
    page = logged_in.get(reverse("diagnosis:incident-detail", args=[incident.id]))
    assert "This is wrong: run again without it" in page.content.decode()

    response = logged_in.post(
        reverse("diagnosis:incident-steer", args=[incident.id]),
        {"exclude": "application:checkout", "service": "checkout-api"},
        headers=HX,
    )

    assert response.status_code == 200
    assert response["HX-Redirect"] == reverse(
        "diagnosis:incident-detail", args=[incident.id]
    )
    new = incident.tasks.exclude(pk=task.pk).get()
    assert new.state == TaskState.QUEUED
    context = steering.task_steering(task_id=new.id)
    assert context.notes == ("first note",)
    assert context.excluded == {"application:checkout"}
    assert context.service == "checkout-api"
    excluded = next(d for d in _steering(new) if "exclude" in d)
    assert excluded["statement"] == "checkout leaks connections"
    carried = next(d for d in _steering(new) if "note" in d)
    assert carried["from_task"] == str(task.id)


def test_a_rerun_with_an_unknown_environment_is_refused_and_starts_nothing(
    logged_in, tenant
):
    incident, _task = factories.make_incident(tenant)
    logged_in.post(reverse("diagnosis:incident-cancel", args=[incident.id]))
    response = logged_in.post(
        reverse("diagnosis:incident-steer", args=[incident.id]),
        {"environment": "no-such-env"},
        headers=HX,
    )
    assert response.status_code == 400
    assert "environment" in response.content.decode()
    assert incident.tasks.count() == 1


def test_a_rerun_while_one_runs_is_refused(logged_in, tenant):
    incident, _task = factories.make_incident(tenant)
    response = logged_in.post(
        reverse("diagnosis:incident-steer", args=[incident.id]),
        {"exclude": "application:checkout"},
        headers=HX,
    )
    assert response.status_code == 400
    assert "still runs" in response.content.decode()
    assert incident.tasks.count() == 1
