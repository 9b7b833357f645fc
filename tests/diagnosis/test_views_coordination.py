"""The incident page's coordination forms (diagnosis.pages.incident_run): a change answers the
page's parts, a refusal the panel alone with its reason (400) at the seq shown, a viewer is
refused, and a post without htmx goes back to the page."""

import re

import pytest

from diagnosis.models import Incident, Role, TaskEvent
from tests import factories

HTMX = {"HX-Request": "true"}


@pytest.fixture
def incident_task(tenant):
    return factories.make_incident(tenant)


def test_acknowledge_answers_the_parts_with_the_new_status(
    client, member, incident_task
):
    incident, _task = incident_task
    client.force_login(member.user)

    response = client.post(
        f"/incidents/{incident.id}/status", {"status": "acknowledged"}, headers=HTMX
    )

    body = response.content.decode()
    assert response.status_code == 200
    assert 'id="verdict"' in body and 'id="timeline"' in body
    assert 'data-status="acknowledged"' in body
    assert "Status triggered → acknowledged" in body


def test_a_refusal_answers_the_panel_with_its_reason_and_changes_nothing(
    client, member, incident_task
):
    incident, task = incident_task
    client.force_login(member.user)

    response = client.post(
        f"/incidents/{incident.id}/severity", {"severity": "sev9"}, headers=HTMX
    )

    body = response.content.decode()
    assert response.status_code == 400
    assert 'id="coordination-error"' in body
    # The reason stays through the parts' refresh (investigation.js carryAnswers): it is marked
    # data-carry and put back before its next sibling, which needs an id to be found again.
    assert re.search(
        r'id="coordination-error"[^>]*data-carry>[^<]*</p>\s*<div[^>]* id="coordination-actions"',
        body,
    )
    assert "severity: must be one of sev1, sev2, sev3, sev4" in body
    task.refresh_from_db()
    assert f'data-seq="{task.last_seq}"' in body
    assert Incident.objects.get(pk=incident.pk).severity == "sev2"


def test_assign_to_me_and_a_note_without_htmx_go_back_to_the_page(
    client, member, incident_task
):
    incident, task = incident_task
    client.force_login(member.user)

    owner = client.post(f"/incidents/{incident.id}/owner", {"owner": "me"})
    note = client.post(f"/incidents/{incident.id}/notes", {"text": "on it"})

    assert owner.status_code == note.status_code == 302
    assert Incident.objects.get(pk=incident.pk).owner == member.user
    assert TaskEvent.objects.filter(task=task, type="incident_note_added").count() == 1


def test_a_viewer_sees_the_panel_without_forms_and_cannot_post(
    client, tenant, incident_task
):
    incident, _task = incident_task
    viewer = factories.make_member(tenant, role=Role.VIEWER)
    client.force_login(viewer.user)

    page = client.get(f"/incidents/{incident.id}/").content.decode()
    refused = client.post(
        f"/incidents/{incident.id}/status", {"status": "acknowledged"}, headers=HTMX
    )

    assert 'id="coordination"' in page and 'id="assign-me"' not in page
    assert refused.status_code == 404
    assert Incident.objects.get(pk=incident.pk).status == "triggered"
