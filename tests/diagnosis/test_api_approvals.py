"""POST /api/approvals/{id}/decision: roles, validation, one decision, the approval_decided event,
the parked task re-queued; GET /api/tasks/{id} lists the task's approvals."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from diagnosis import services
from diagnosis.models import Approval, IdempotencyRecord, Role, TaskEvent
from diagnosis.states import TaskState
from tests import factories


@pytest.fixture
def approval(tenant):
    _task, approval = factories.make_approval(tenant)
    return approval


def _decide(client, token, approval_id, body, **headers):
    return client.post(
        f"/api/approvals/{approval_id}/decision",
        data=json.dumps(body),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}", **headers},
    )


def _token(tenant, role):
    member = factories.make_member(tenant, role=role)
    return member, factories.make_token(member)


@pytest.mark.parametrize(
    ("decision", "status"), [("approve", "approved"), ("deny", "denied")]
)
def test_approver_decision_is_recorded_and_reported_as_an_event(
    client, tenant, approval, decision, status
):
    member, token = _token(tenant, Role.APPROVER)

    response = _decide(
        client, token, approval.id, {"decision": decision, "reason": "checked"}
    )

    assert response.status_code == 200
    approval.refresh_from_db()
    assert (approval.status, approval.decided_by, approval.reason) == (
        status,
        member.user,
        "checked",
    )
    assert response.json() == {
        "id": str(approval.id),
        "task_id": str(approval.task_id),
        "status": status,
        "server": "actions",
        "tool": "restart_workload",
        "arguments": {"workload": "payments-gw", "token": "[REDACTED]"},
        "target": "payments-gw",
        "why": "connection leak confirmed",
        "requested_at": approval.requested_at.isoformat(),
        "expires_at": approval.expires_at.isoformat(),
        "decided_at": approval.decided_at.isoformat(),
        "decided_by": member.user.username,
        "reason": "checked",
    }
    events = list(
        TaskEvent.objects.filter(task=approval.task, seq__gt=3)
        .order_by("seq")
        .values_list("seq", "type", "data")
    )
    assert [(seq, kind) for seq, kind, _ in events] == [
        (4, "approval_decided"),
        (5, "task_requeued"),
    ]
    assert events[0][2]["approval_id"] == str(approval.id)
    assert events[0][2]["decision"] == decision
    assert events[1][2]["reason"] == "approval_decided"
    approval.task.refresh_from_db()
    assert approval.task.state == TaskState.QUEUED


def test_admin_may_decide(client, tenant, approval):
    _, token = _token(tenant, Role.ADMIN)

    assert _decide(client, token, approval.id, {"decision": "deny"}).status_code == 200


@pytest.mark.parametrize("role", [Role.RESPONDER, Role.VIEWER])
def test_other_roles_may_not_decide(client, tenant, approval, role):
    _, token = _token(tenant, role)

    response = _decide(client, token, approval.id, {"decision": "approve"})

    assert response.status_code == 403
    assert Approval.objects.get().status == "pending"
    assert TaskEvent.objects.filter(type="approval_decided").count() == 0
    approval.task.refresh_from_db()
    assert approval.task.state == TaskState.WAITING_APPROVAL


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "decision"),
        ({"decision": "maybe"}, "decision"),
        ({"decision": True}, "decision"),
        ({"decision": "approve", "reason": "r" * 2001}, "reason"),
        ({"decision": "approve", "reason": 5}, "reason"),
        ({"decision": "approve", "extra": 1}, "extra"),
    ],
)
def test_bad_decision_is_400_and_changes_nothing(client, tenant, approval, body, field):
    _, token = _token(tenant, Role.APPROVER)

    response = _decide(client, token, approval.id, body, HTTP_IDEMPOTENCY_KEY="d1")

    assert response.status_code == 400
    assert field in response.json()["fields"]
    assert Approval.objects.get().status == "pending"
    assert TaskEvent.objects.filter(type="approval_decided").count() == 0
    assert IdempotencyRecord.objects.count() == 0


def test_second_decision_is_409_with_the_current_status(client, tenant, approval):
    _, token = _token(tenant, Role.APPROVER)
    _decide(client, token, approval.id, {"decision": "approve"})

    response = _decide(client, token, approval.id, {"decision": "deny"})

    assert response.status_code == 409
    assert response.json()["status"] == "approved"
    assert Approval.objects.get().status == "approved"
    assert TaskEvent.objects.filter(type="approval_decided").count() == 1


def test_decision_after_expiry_is_409_expired(client, tenant, approval):
    Approval.objects.filter(pk=approval.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    _, token = _token(tenant, Role.APPROVER)

    response = _decide(client, token, approval.id, {"decision": "approve"})

    assert response.status_code == 409
    assert response.json()["status"] == "expired"
    assert Approval.objects.get().decided_at is None


def test_decision_on_a_cancelled_task_is_409_and_requeues_nothing(
    client, tenant, approval
):
    services.diagnosis_cancel(task=approval.task)
    _, token = _token(tenant, Role.APPROVER)

    response = _decide(client, token, approval.id, {"decision": "approve"})

    assert response.status_code == 409
    assert response.json()["status"] == "expired"
    approval.task.refresh_from_db()
    assert approval.task.state == TaskState.CANCELLED
    assert not TaskEvent.objects.filter(task=approval.task, type="task_requeued")


def test_pending_approval_of_a_task_that_no_longer_waits_is_409_expired(client, tenant):
    # A row the engine would never leave (pending, its task queued): it cannot be decided.
    _, task = factories.make_incident(tenant)
    approval = Approval.objects.create(task=task, action={"tool": "restart"})
    _, token = _token(tenant, Role.APPROVER)

    response = _decide(client, token, approval.id, {"decision": "approve"})

    assert response.status_code == 409
    assert response.json()["status"] == "expired"
    assert Approval.objects.get().status == "pending"
    assert not TaskEvent.objects.filter(type="approval_decided")


def test_task_snapshot_lists_its_approvals(client, tenant, approval):
    _, token = _token(tenant, Role.RESPONDER)

    response = client.get(
        f"/api/tasks/{approval.task_id}", headers={"Authorization": f"Bearer {token}"}
    )

    assert response.status_code == 200
    body = response.json()
    assert body["state"] == "waiting_approval"
    [listed] = body["approvals"]
    assert (listed["id"], listed["status"], listed["tool"], listed["target"]) == (
        str(approval.id),
        "pending",
        "restart_workload",
        "payments-gw",
    )
    assert listed["arguments"] == {"workload": "payments-gw", "token": "[REDACTED]"}
