"""Authentication, CSRF, scopes, roles and tenant isolation of every API endpoint."""

import json
import uuid

import pytest
from django.test import Client
from django.utils import timezone
from django.utils.crypto import get_random_string

from diagnosis.models import (
    ApiToken,
    Approval,
    DiagnosisTask,
    IdempotencyRecord,
    Incident,
    Role,
    TaskEvent,
)
from diagnosis.principals import token_hash
from tests import factories

CREATE = {"title": "disk full", "service": "db", "severity": "sev1"}


def _counts():
    return (
        Incident.objects.count(),
        DiagnosisTask.objects.count(),
        TaskEvent.objects.count(),
        IdempotencyRecord.objects.count(),
    )


@pytest.fixture
def foreign(other_tenant):
    """An incident, its task and a pending approval that belong to another tenant."""
    incident, task = factories.make_incident(other_tenant)
    approval = Approval.objects.create(task=task, action={"tool": "restart"})
    span = factories.make_span(task, result={"secret": "theirs"})
    return {
        "incident": incident.id,
        "task": task.id,
        "approval": approval.id,
        "span": span.id,
    }


# (method, path template, body); {incident}, {task}, {approval} are filled per test.
ENDPOINTS = [
    ("get", "/api/incidents/{incident}", None),
    ("post", "/api/incidents/{incident}/diagnoses", {}),
    ("post", "/api/incidents/{incident}/cancel", {}),
    ("get", "/api/tasks/{task}", None),
    ("post", "/api/tasks/{task}/cancel", {}),
    ("get", "/api/tasks/{task}/trace", None),
    ("get", "/api/tasks/{task}/spans/{span}", None),
    ("post", "/api/approvals/{approval}/decision", {"decision": "approve"}),
]


def _call(client, method, path, body, headers):
    if method == "get":
        return client.get(path, headers=headers)
    return client.post(
        path, data=json.dumps(body), content_type="application/json", headers=headers
    )


@pytest.mark.parametrize(("method", "template", "body"), ENDPOINTS)
def test_another_tenants_object_is_404_and_untouched(
    client, tenant, foreign, method, template, body
):
    # An admin holding every scope, so neither scope nor role hides the 404.
    admin = factories.make_member(tenant, role=Role.ADMIN)
    headers = {"Authorization": f"Bearer {factories.make_token(admin)}"}
    before = (_counts(), list(DiagnosisTask.objects.values_list("state", "version")))

    response = _call(client, method, template.format(**foreign), body, headers)

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert (
        _counts(),
        list(DiagnosisTask.objects.values_list("state", "version")),
    ) == before
    assert Approval.objects.get().status == "pending"


@pytest.mark.parametrize(("method", "template", "body"), ENDPOINTS)
def test_malformed_or_unknown_id_is_a_json_404(client, tenant, method, template, body):
    admin = factories.make_member(tenant, role=Role.ADMIN)
    headers = {"Authorization": f"Bearer {factories.make_token(admin)}"}

    for bad_id in ["not-a-uuid", "123", str(uuid.uuid4())]:
        path = template.format(
            incident=bad_id, task=bad_id, approval=bad_id, span=bad_id
        )
        response = _call(client, method, path, body, headers)

        assert response.status_code == 404, bad_id
        assert response.json()["code"] == "not_found"


def test_unknown_api_route_is_a_json_404(client, token):
    response = client.get(
        "/api/nothing/here", headers={"Authorization": f"Bearer {token}"}
    )

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


ALL_ROUTES = [
    ("get", "/api/incidents", None),
    ("post", "/api/incidents", CREATE),
    *ENDPOINTS,
]


@pytest.mark.parametrize(("method", "template", "body"), ALL_ROUTES)
def test_request_without_valid_credentials_is_401(client, db, method, template, body):
    ids = {
        "incident": uuid.uuid4(),
        "task": uuid.uuid4(),
        "approval": uuid.uuid4(),
        "span": uuid.uuid4(),
    }
    before = _counts()

    for authorization in [
        None,
        "Bearer aops_wrong",
        "Bearer ",
        "Basic dXNlcjpwdw==",
        "aops_x",
    ]:
        headers = {"Authorization": authorization} if authorization is not None else {}
        response = _call(client, method, template.format(**ids), body, headers)

        assert response.status_code == 401, authorization
        assert response.json()["code"] == "unauthenticated"
        assert response["WWW-Authenticate"].startswith("Bearer")
    assert _counts() == before


def test_revoked_token_is_401(client, token):
    ApiToken.objects.filter(token_hash=token_hash(token)).update(
        revoked_at=timezone.now()
    )

    response = client.get(
        "/api/incidents", headers={"Authorization": f"Bearer {token}"}
    )

    assert response.status_code == 401


def test_bearer_token_is_not_subject_to_csrf(tenant, token):
    csrf_client = Client(enforce_csrf_checks=True)

    response = csrf_client.post(
        "/api/incidents",
        data=json.dumps(CREATE),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )

    assert response.status_code == 201
    assert Incident.objects.get().tenant == tenant


def test_bearer_token_marks_its_last_use(client, token):
    client.get("/api/incidents", headers={"Authorization": f"Bearer {token}"})

    assert ApiToken.objects.get().last_used_at is not None


def test_session_get_needs_no_csrf_token(member):
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(member.user)

    response = csrf_client.get("/api/incidents")

    assert response.status_code == 200


def test_session_post_without_csrf_token_is_403_and_creates_nothing(member):
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(member.user)
    before = _counts()

    response = csrf_client.post(
        "/api/incidents", data=json.dumps(CREATE), content_type="application/json"
    )

    assert response.status_code == 403
    assert response.json()["code"] == "csrf_failed"
    assert _counts() == before


def test_session_post_with_wrong_csrf_token_is_403(member):
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(member.user)
    csrf_client.cookies["csrftoken"] = get_random_string(32)

    response = csrf_client.post(
        "/api/incidents",
        data=json.dumps(CREATE),
        content_type="application/json",
        headers={"X-CSRFToken": get_random_string(32)},
    )

    assert response.status_code == 403
    assert response.json()["code"] == "csrf_failed"
    assert Incident.objects.count() == 0


def test_session_post_with_csrf_token_creates_in_the_users_tenant(member, tenant):
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(member.user)
    secret = get_random_string(32)
    csrf_client.cookies["csrftoken"] = secret

    response = csrf_client.post(
        "/api/incidents",
        data=json.dumps(CREATE),
        content_type="application/json",
        headers={"X-CSRFToken": secret},
    )

    assert response.status_code == 201
    incident = Incident.objects.get()
    assert (incident.tenant, incident.created_by) == (tenant, member.user)


def test_bad_bearer_token_does_not_fall_back_to_the_session(client, member):
    client.force_login(member.user)

    response = client.get(
        "/api/incidents", headers={"Authorization": "Bearer aops_nope"}
    )

    assert response.status_code == 401


def test_logged_in_user_without_a_tenant_is_403(client, db):
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(
        username="drifter", password="pw-123456"
    )
    client.force_login(user)

    response = client.get("/api/incidents")

    assert response.status_code == 403
    assert response.json()["code"] == "no_membership"


@pytest.mark.parametrize(
    ("scopes", "method", "template", "body"),
    [
        (("incidents:write",), "get", "/api/incidents", None),
        (("incidents:write",), "get", "/api/incidents/{incident}", None),
        (("incidents:read",), "post", "/api/incidents", CREATE),
        (("incidents:read",), "post", "/api/incidents/{incident}/diagnoses", {}),
        (("incidents:write",), "post", "/api/incidents/{incident}/cancel", {}),
        (("incidents:read",), "get", "/api/tasks/{task}", None),
        (("tasks:read",), "post", "/api/tasks/{task}/cancel", {}),
        (("incidents:read",), "get", "/api/tasks/{task}/trace", None),
        (
            ("tasks:cancel",),
            "post",
            "/api/approvals/{approval}/decision",
            {"decision": "deny"},
        ),
    ],
)
def test_token_without_the_needed_scope_is_403_and_changes_nothing(
    client, tenant, scopes, method, template, body
):
    admin = factories.make_member(tenant, role=Role.ADMIN)
    headers = {"Authorization": f"Bearer {factories.make_token(admin, scopes=scopes)}"}
    incident, task = factories.make_incident(tenant)
    approval = Approval.objects.create(task=task)
    before = (_counts(), list(DiagnosisTask.objects.values_list("state", "version")))

    path = template.format(incident=incident.id, task=task.id, approval=approval.id)
    response = _call(client, method, path, body, headers)

    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"
    assert (
        _counts(),
        list(DiagnosisTask.objects.values_list("state", "version")),
    ) == before
    assert Approval.objects.get().status == "pending"


def test_viewer_session_may_read_but_not_write(client, tenant):
    viewer = factories.make_member(tenant, role=Role.VIEWER)
    client.force_login(viewer.user)

    assert client.get("/api/incidents").status_code == 200
    response = client.post(
        "/api/incidents", data=json.dumps(CREATE), content_type="application/json"
    )
    assert response.status_code == 403
    assert response.json()["required_scope"] == "incidents:write"
    assert Incident.objects.count() == 0


def test_wrong_method_is_a_json_405_naming_the_allowed_ones(client, token):
    task = uuid.uuid4()
    for method, path, allowed in [
        ("put", "/api/incidents", "GET, POST"),
        ("delete", "/api/incidents", "GET, POST"),
        ("patch", f"/api/tasks/{task}", "GET"),
        ("get", f"/api/tasks/{task}/cancel", "POST"),
        ("get", f"/api/approvals/{task}/decision", "POST"),
        ("post", f"/api/tasks/{task}/trace", "GET"),
        ("post", "/api/openapi.json", "GET"),
        ("post", "/healthz", "GET"),
        ("delete", "/readyz", "GET"),
    ]:
        response = getattr(client, method)(
            path, headers={"Authorization": f"Bearer {token}"}
        )

        assert response.status_code == 405, (method, path)
        assert response.json()["code"] == "method_not_allowed"
        assert response["Allow"] == allowed
