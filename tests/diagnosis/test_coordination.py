"""Incident coordination (issue 20 item 6): status, severity, owner and notes, through the
service (diagnosis.coordination) and POST /api/incidents/{id}/{status,severity,owner,notes}:
each change is an event on the incident's latest task with who and when; bad input is a 400
naming the field and changes nothing; roles without incidents:write are refused; a lost race
is a 409."""

import json
import threading

import pytest
from django.db import close_old_connections

from diagnosis import coordination
from diagnosis.exceptions import (
    CoordinationRefused,
    IncidentChanged,
    ValidationFailed,
)
from diagnosis.models import Incident, Role, TaskEvent
from diagnosis.principals import principal_from_user
from tests import factories


@pytest.fixture
def incident_task(tenant):
    return factories.make_incident(tenant)


def _principal(member):
    return principal_from_user(member.user)


def _post(client, token, incident_id, what, body):
    return client.post(
        f"/api/incidents/{incident_id}/{what}",
        data=json.dumps(body),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )


def _events(task, kind):
    return list(TaskEvent.objects.filter(task=task, type=kind).order_by("seq"))


def test_status_change_writes_the_row_and_an_event_with_who(member, incident_task):
    incident, task = incident_task

    coordination.incident_status_change(
        incident=incident, principal=_principal(member), status="acknowledged"
    )

    incident.refresh_from_db()
    assert incident.status == "acknowledged"
    assert incident.status_changed_at is not None
    (event,) = _events(task, "incident_status_changed")
    assert event.data == {
        "task_id": str(task.id),
        "incident_id": str(incident.id),
        "status": "acknowledged",
        "previous_status": "triggered",
        "by": "alice",
        "by_token": "",
    }


def test_an_illegal_status_move_changes_nothing(member, incident_task):
    incident, task = incident_task
    Incident.objects.filter(pk=incident.pk).update(status="resolved")
    incident.refresh_from_db()

    with pytest.raises(CoordinationRefused) as caught:
        coordination.incident_status_change(
            incident=incident, principal=_principal(member), status="mitigated"
        )

    assert caught.value.fields == {
        "status": "cannot move from resolved to mitigated; from resolved: triggered"
    }
    assert _events(task, "incident_status_changed") == []


def test_a_stale_status_read_loses_the_race_and_writes_nothing(member, incident_task):
    incident, task = incident_task
    stale = Incident.objects.get(pk=incident.pk)
    coordination.incident_status_change(
        incident=incident, principal=_principal(member), status="acknowledged"
    )

    with pytest.raises(IncidentChanged):
        coordination.incident_status_change(
            incident=stale, principal=_principal(member), status="resolved"
        )

    assert Incident.objects.get(pk=incident.pk).status == "acknowledged"
    assert len(_events(task, "incident_status_changed")) == 1


@pytest.mark.django_db(transaction=True)
def test_two_people_acknowledging_at_once_one_wins(tenant):
    incident, task = factories.make_incident(tenant)
    principals = [
        _principal(factories.make_member(tenant, username=name))
        for name in ("bob", "carol")
    ]
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def acknowledge(principal):
        stale = Incident.objects.get(pk=incident.pk)
        barrier.wait(timeout=5)
        try:
            coordination.incident_status_change(
                incident=stale, principal=principal, status="acknowledged"
            )
            outcomes.append("won")
        except IncidentChanged:
            outcomes.append("lost")
        finally:
            close_old_connections()

    threads = [threading.Thread(target=acknowledge, args=(p,)) for p in principals]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)

    assert sorted(outcomes) == ["lost", "won"]
    assert len(_events(task, "incident_status_changed")) == 1


def test_assign_to_me_then_unassign(member, incident_task):
    incident, task = incident_task
    principal = _principal(member)

    coordination.incident_owner_set(incident=incident, principal=principal, owner="me")
    coordination.incident_owner_set(incident=incident, principal=principal, owner=None)

    incident.refresh_from_db()
    assert incident.owner is None
    owners = [
        (e.data["owner"], e.data["previous_owner"])
        for e in _events(task, "incident_owner_changed")
    ]
    assert owners == [("alice", None), (None, "alice")]


def test_an_owner_must_be_a_member_who_may_run_incidents(
    tenant, other_tenant, member, incident_task
):
    incident, _task = incident_task
    factories.make_member(tenant, username="vic", role=Role.VIEWER)
    factories.make_member(other_tenant, username="olga")
    for name in ("vic", "olga", "nobody"):
        with pytest.raises(CoordinationRefused) as caught:
            coordination.incident_owner_set(
                incident=incident, principal=_principal(member), owner=name
            )
        assert set(caught.value.fields) == {"owner"}
    assert Incident.objects.get(pk=incident.pk).owner is None


def test_a_note_is_an_event_and_blank_or_long_ones_are_refused(member, incident_task):
    incident, task = incident_task
    principal = _principal(member)

    coordination.incident_note_add(
        incident=incident, principal=principal, text="  rolled back 1.4.2  "
    )
    for bad, reason in (
        ("   ", "must not be blank"),
        ("x" * 2001, "at most 2000 characters"),
        (7, "must be a string"),
    ):
        with pytest.raises(ValidationFailed) as caught:
            coordination.incident_note_add(
                incident=incident, principal=principal, text=bad
            )
        assert caught.value.fields == {"text": reason}

    assert [e.data["text"] for e in _events(task, "incident_note_added")] == [
        "rolled back 1.4.2"
    ]


def test_changes_go_to_the_latest_task_even_when_it_has_finished(member, tenant):
    from diagnosis import lifecycle
    from diagnosis.states import TaskState

    incident, task = factories.make_incident(tenant)
    lifecycle.diagnosis_claim(task_id=task.id, owner="w")
    task.refresh_from_db()
    lifecycle.diagnosis_transition(task=task, to=TaskState.SUCCEEDED)

    coordination.incident_severity_change(
        incident=incident, principal=_principal(member), severity="sev1"
    )

    last = TaskEvent.objects.filter(task=task).order_by("-seq").first()
    assert (last.type, last.data["severity"], last.data["previous_severity"]) == (
        "incident_severity_changed",
        "sev1",
        "sev2",
    )


# --- the API ------------------------------------------------------------------------------


def test_api_acknowledge_assign_note_and_read_the_timeline(
    client, member, token, incident_task
):
    incident, task = incident_task

    status = _post(client, token, incident.id, "status", {"status": "acknowledged"})
    owner = _post(client, token, incident.id, "owner", {"owner": "me"})
    severity = _post(client, token, incident.id, "severity", {"severity": "sev1"})
    note = _post(client, token, incident.id, "notes", {"text": "paging the DBA"})

    assert status.status_code == 200
    assert status.json()["status"] == "acknowledged"
    assert owner.json() == {**status.json(), "owner": "alice"}
    assert severity.json()["severity"] == "sev1"
    assert note.status_code == 201
    assert note.json()["text"] == "paging the DBA"
    assert note.json()["by"] == "alice"
    # A token's changes say which token.
    event = _events(task, "incident_note_added")[0]
    assert event.data["by_token"] == token[:12]

    timeline = client.get(
        f"/api/incidents/{incident.id}/timeline",
        headers={"Authorization": f"Bearer {token}"},
    )
    titles = [(e["title"], e["who"]) for e in timeline.json()["entries"]]
    assert titles[-4:] == [
        ("Status triggered → acknowledged", f"alice (token {token[:12]})"),
        ("Owner: alice", f"alice (token {token[:12]})"),
        ("Severity sev2 → sev1", f"alice (token {token[:12]})"),
        ("Note", f"alice (token {token[:12]})"),
    ]
    detail = client.get(
        f"/api/incidents/{incident.id}", headers={"Authorization": f"Bearer {token}"}
    )
    assert detail.json()["status"] == "acknowledged"


@pytest.mark.parametrize(
    ("what", "body", "status", "fields"),
    [
        ("status", {"status": "closed"}, 400, {"status"}),
        ("status", {}, 400, {"status"}),
        ("status", {"status": "acknowledged", "by": "x"}, 400, {"by"}),
        ("severity", {"severity": "sev9"}, 400, {"severity"}),
        ("owner", {"owner": 5}, 400, {"owner"}),
        ("owner", {"owner": ""}, 400, {"owner"}),
        ("notes", {"text": ""}, 400, {"text"}),
        ("notes", {"note": "hi"}, 400, {"note", "text"}),
        # Well-formed, refused by the incident's state: a 409, which names the field too.
        ("status", {"status": "triggered"}, 409, {"status"}),
        ("severity", {"severity": "sev2"}, 409, {"severity"}),
        ("owner", {"owner": "mallory"}, 409, {"owner"}),
        ("owner", {"owner": None}, 409, {"owner"}),
    ],
)
def test_api_bad_input_is_a_4xx_naming_the_field_and_changes_nothing(
    client, token, incident_task, what, body, status, fields
):
    incident, task = incident_task
    before = task.last_seq if (task := type(task).objects.get(pk=task.pk)) else 0

    response = _post(client, token, incident.id, what, body)

    assert response.status_code == status
    assert response.json()["code"] == ("invalid" if status == 400 else "conflict")
    assert set(response.json()["fields"]) == fields
    task.refresh_from_db()
    assert task.last_seq == before
    fresh = Incident.objects.get(pk=incident.pk)
    assert (fresh.status, fresh.severity, fresh.owner_id) == ("triggered", "sev2", None)


def test_api_a_viewer_is_refused_and_another_tenant_gets_404(
    client, tenant, other_tenant, incident_task
):
    incident, _task = incident_task
    viewer = factories.make_token(factories.make_member(tenant, role=Role.VIEWER))
    stranger = factories.make_token(factories.make_member(other_tenant))

    refused = _post(client, viewer, incident.id, "status", {"status": "acknowledged"})
    hidden = _post(client, stranger, incident.id, "status", {"status": "acknowledged"})
    read = client.get(
        f"/api/incidents/{incident.id}/timeline",
        headers={"Authorization": f"Bearer {viewer}"},
    )

    assert refused.status_code == 403
    assert hidden.status_code == 404
    assert read.status_code == 200
    assert Incident.objects.get(pk=incident.pk).status == "triggered"


def test_api_a_lost_race_is_a_409(client, member, token, incident_task, monkeypatch):
    incident, _task = incident_task
    real = coordination._swap

    def racing(incident_row, field, expected, values):
        # Someone else acknowledges between this request's read and its write.
        Incident.objects.filter(pk=incident_row.pk).update(status="acknowledged")
        real(incident_row, field, expected, values)

    monkeypatch.setattr(coordination, "_swap", racing)
    response = _post(client, token, incident.id, "status", {"status": "resolved"})

    assert response.status_code == 409
    assert response.json()["code"] == "conflict"
