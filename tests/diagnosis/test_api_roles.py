"""Roles bound tokens: a token's effective scopes are its scopes that its role allows, whatever
scopes it was minted with and whatever its role became since."""

import json

import pytest
from django.urls import reverse

from diagnosis.models import (
    ApiToken,
    Approval,
    DiagnosisTask,
    IdempotencyRecord,
    Incident,
    Membership,
    Role,
    TaskEvent,
)
from diagnosis.principals import (
    ALL_SCOPES,
    ROLE_SCOPES,
    principal_from_token,
    principal_from_user,
)
from tests import factories

CREATE = {"title": "disk full", "service": "db", "severity": "sev1"}


def _state():
    return (
        Incident.objects.count(),
        list(DiagnosisTask.objects.values_list("state", "version")),
        TaskEvent.objects.count(),
        IdempotencyRecord.objects.count(),
        list(Approval.objects.values_list("status", flat=True)),
    )


def _call(client, method, path, body, token):
    headers = {"Authorization": f"Bearer {token}"}
    if method == "get":
        return client.get(path, headers=headers)
    return client.post(
        path, data=json.dumps(body), content_type="application/json", headers=headers
    )


WRITES = [
    ("post", "/api/incidents", CREATE),
    ("post", "/api/incidents/{incident}/diagnoses", {}),
    ("post", "/api/incidents/{incident}/cancel", {}),
    ("post", "/api/tasks/{task}/cancel", {}),
    ("post", "/api/approvals/{approval}/decision", {"decision": "approve"}),
]
READS = [
    ("get", "/api/incidents", None),
    ("get", "/api/incidents/{incident}", None),
    ("get", "/api/tasks/{task}", None),
    ("get", "/api/tasks/{task}/trace", None),
]


@pytest.fixture
def objects(tenant):
    incident, task = factories.make_incident(tenant)
    approval = Approval.objects.create(task=task, action={"tool": "restart"})
    return {"incident": incident.id, "task": task.id, "approval": approval.id}


@pytest.mark.parametrize(("method", "template", "body"), WRITES)
def test_viewer_token_minted_with_every_scope_may_not_write(
    client, tenant, objects, method, template, body
):
    viewer = factories.make_member(tenant, role=Role.VIEWER)
    token = factories.make_token(viewer, scopes=ALL_SCOPES)
    before = _state()

    response = _call(client, method, template.format(**objects), body, token)

    assert response.status_code == 403, response.content
    assert response.json()["code"] == "forbidden"
    assert "role viewer does not allow" in response.json()["error"]
    assert _state() == before


@pytest.mark.parametrize(("method", "template", "body"), READS)
def test_viewer_token_may_read(client, tenant, objects, method, template, body):
    viewer = factories.make_member(tenant, role=Role.VIEWER)
    token = factories.make_token(viewer, scopes=ALL_SCOPES)

    response = _call(client, method, template.format(**objects), body, token)

    assert response.status_code == 200


def test_responder_token_with_every_scope_may_not_decide_approvals(
    client, tenant, objects
):
    responder = factories.make_member(tenant, role=Role.RESPONDER)
    token = factories.make_token(responder, scopes=ALL_SCOPES)
    before = _state()

    response = _call(
        client,
        "post",
        f"/api/approvals/{objects['approval']}/decision",
        {"decision": "approve"},
        token,
    )

    assert response.status_code == 403
    assert response.json()["required_scope"] == "approvals:decide"
    assert _state() == before


def test_token_loses_what_its_role_no_longer_allows(client, tenant, objects):
    admin = factories.make_member(tenant, role=Role.ADMIN)
    token = factories.make_token(admin)
    Membership.objects.filter(pk=admin.pk).update(role=Role.VIEWER)
    before = _state()

    response = _call(client, "post", f"/api/tasks/{objects['task']}/cancel", {}, token)

    assert response.status_code == 403
    assert _state() == before


@pytest.mark.parametrize("role", Role.values)
@pytest.mark.parametrize(
    "scopes",
    [ALL_SCOPES, ("incidents:read",), ("tasks:cancel", "approvals:decide"), ()],
)
def test_effective_scopes_are_the_tokens_scopes_the_role_allows(tenant, role, scopes):
    member = factories.make_member(tenant, role=role)
    principal = principal_from_token(factories.make_token(member, scopes=scopes))

    assert principal is not None
    assert principal.scopes == frozenset(scopes) & ROLE_SCOPES[role]


@pytest.mark.parametrize("role", Role.values)
def test_a_session_holds_exactly_its_roles_scopes(tenant, role):
    member = factories.make_member(tenant, role=role)

    principal = principal_from_user(member.user)

    assert principal is not None
    assert principal.scopes == ROLE_SCOPES[role]


@pytest.mark.parametrize(
    "stored", [{"incidents:write": True}, "incidents:write", [["incidents:write"]], 42]
)
def test_scopes_column_that_is_not_a_list_of_names_grants_nothing(tenant, stored):
    admin = factories.make_member(tenant, role=Role.ADMIN)
    secret = factories.make_token(admin)
    ApiToken.objects.update(scopes=stored)

    principal = principal_from_token(secret)

    assert principal is not None
    assert principal.scopes == frozenset()


def test_viewer_session_does_not_see_the_cancel_button(client, tenant):
    incident, _task = factories.make_incident(tenant)
    viewer = factories.make_member(tenant, role=Role.VIEWER)
    client.force_login(viewer.user)

    url = reverse("diagnosis:incident-detail", args=[incident.id])
    page = client.get(url).content.decode()

    assert 'id="cancel"' not in page
