"""Approvals park a task (diagnosis.approvals): request, decision, expiry, cancel, the page."""

import threading
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from diagnosis import approvals, dispatch, lifecycle, services
from diagnosis.exceptions import LeaseLost, ValidationFailed
from diagnosis.models import Approval, DiagnosisTask, Role, TaskEvent
from diagnosis.states import TaskState
from tests import factories

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
ARGS = {"workload": "payments-gw", "token": "[REDACTED]"}


@pytest.fixture
def sent(monkeypatch):
    """The diagnosis_run messages sent (by task id), instead of the broker."""
    messages: list[str] = []
    monkeypatch.setattr(dispatch, "diagnosis_run_enqueue", messages.append)
    return messages


def _request(task, *, owner="worker-1", **overrides):
    values = {
        "server": "actions",
        "tool": "restart_workload",
        "arguments_redacted": ARGS,
        "arguments_hash": "a" * 64,
        "replay_key": "actions:1:aaaa",
        "target": "payments-gw",
        "why": "connection leak confirmed",
        "idempotency_key": "inc:restart_workload:payments-gw:1",
    }
    values.update(overrides)
    return approvals.approval_request(task_id=task.id, owner=owner, **values)


def _running(tenant, owner="worker-1"):
    _, task = factories.make_incident(tenant)
    return lifecycle.diagnosis_claim(task_id=task.id, owner=owner)


def _events(task, after=0):
    return list(
        TaskEvent.objects.filter(task=task, seq__gt=after)
        .order_by("seq")
        .values_list("type", "data")
    )


# --- request ------------------------------------------------------------------------------


def test_request_parks_the_task_with_its_lease_released(tenant, settings):
    settings.DIAGNOSIS_APPROVAL_TTL_SECONDS = 60
    with time_machine.travel(T0, tick=False):
        task = _running(tenant)
        seq = task.last_seq

        approval = _request(task)

    task.refresh_from_db()
    assert (task.state, task.lease_owner, task.lease_expires_at) == (
        TaskState.WAITING_APPROVAL,
        "",
        None,
    )
    assert (approval.status, approval.server_name, approval.tool_name) == (
        "pending",
        "actions",
        "restart_workload",
    )
    assert (approval.arguments_hash, approval.replay_key) == (
        "a" * 64,
        "actions:1:aaaa",
    )
    assert approval.action == {
        "arguments": ARGS,
        "target": "payments-gw",
        "why": "connection leak confirmed",
        "idempotency_key": "inc:restart_workload:payments-gw:1",
    }
    assert approval.expires_at == T0 + timedelta(seconds=60)
    [(kind, data)] = _events(task, after=seq)
    assert kind == "approval_requested"
    assert data == {
        "task_id": str(task.id),
        "incident_id": str(task.incident_id),
        "from": "running",
        "to": "waiting_approval",
        "approval_id": str(approval.id),
        "server": "actions",
        "tool": "restart_workload",
        "arguments": ARGS,
        "target": "payments-gw",
        "why": "connection leak confirmed",
        "expires_at": (T0 + timedelta(seconds=60)).isoformat(),
    }


def test_request_takes_its_own_ttl(tenant):
    with time_machine.travel(T0, tick=False):
        approval = _request(_running(tenant), ttl_seconds=5)
    assert approval.expires_at == T0 + timedelta(seconds=5)


def test_request_with_a_ttl_of_zero_is_refused_and_writes_nothing(tenant):
    task = _running(tenant)
    with pytest.raises(ValidationFailed) as caught:
        _request(task, ttl_seconds=0)
    assert "ttl_seconds" in caught.value.fields
    assert not Approval.objects.exists()
    assert DiagnosisTask.objects.get(pk=task.pk).state == TaskState.RUNNING


def test_second_request_for_the_same_call_returns_the_pending_one(tenant):
    task = _running(tenant)
    first = _request(task)
    last_seq = DiagnosisTask.objects.get(pk=task.pk).last_seq

    again = _request(task)

    assert again.pk == first.pk
    assert Approval.objects.count() == 1
    assert DiagnosisTask.objects.get(pk=task.pk).last_seq == last_seq


@pytest.mark.parametrize("owner", ["worker-2", ""])
def test_request_from_a_worker_without_the_lease_writes_nothing(tenant, owner):
    task = _running(tenant, owner="worker-1")
    seq = task.last_seq

    with pytest.raises(LeaseLost):
        _request(task, owner=owner)

    task.refresh_from_db()
    assert (task.state, task.lease_owner, task.last_seq) == (
        TaskState.RUNNING,
        "worker-1",
        seq,
    )
    assert not Approval.objects.exists()


def test_request_for_a_task_that_is_no_longer_running_is_lease_lost(tenant):
    task = _running(tenant)
    # The reaper re-queued it: the lease holder's run is over.
    DiagnosisTask.objects.filter(pk=task.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    services.diagnosis_reap()

    with pytest.raises(LeaseLost):
        _request(task)
    assert not Approval.objects.exists()


def test_approval_for_is_the_latest_approval_of_that_call(tenant, sent):
    task = _running(tenant)
    first = _request(task, arguments_hash="1" * 64)
    approvals.approval_decide(approval=first, user=None, approve=False)
    task = lifecycle.diagnosis_claim(task_id=task.id, owner="worker-2")
    # The run came back with other arguments for the same call: a new approval.
    second = _request(task, owner="worker-2", arguments_hash="2" * 64)

    assert (
        approvals.approval_for(task_id=task.id, replay_key="actions:1:aaaa") == second
    )
    assert approvals.approval_for(task_id=str(task.id), replay_key="other") is None


# --- decision -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("approve", "status", "decision"),
    [(True, "approved", "approve"), (False, "denied", "deny")],
)
def test_decision_requeues_the_parked_task_and_enqueues_it_once(
    tenant, sent, django_capture_on_commit_callbacks, approve, status, decision
):
    task, approval = factories.make_approval(tenant)
    decider = factories.make_member(tenant, role=Role.APPROVER).user
    seq = task.last_seq

    with django_capture_on_commit_callbacks(execute=True):
        decided = approvals.approval_decide(
            approval=approval, user=decider, approve=approve, reason="looked at it"
        )

    assert (decided.status, decided.decided_by, decided.reason) == (
        status,
        decider,
        "looked at it",
    )
    assert decided.decided_at is not None
    task.refresh_from_db()
    assert task.state == TaskState.QUEUED
    assert sent == [str(task.id)]
    [(decided_kind, decided_data), (requeued_kind, requeued_data)] = _events(
        task, after=seq
    )
    assert decided_kind == "approval_decided"
    assert {k: decided_data[k] for k in ("approval_id", "decision", "decided_by")} == {
        "approval_id": str(approval.id),
        "decision": decision,
        "decided_by": decider.username,
    }
    assert decided_data["reason"] == "looked at it"
    assert requeued_kind == "task_requeued"
    assert (requeued_data["from"], requeued_data["reason"]) == (
        "waiting_approval",
        "approval_decided",
    )


def test_second_decision_writes_nothing(tenant, sent):
    task, approval = factories.make_approval(tenant)
    approvals.approval_decide(approval=approval, user=None, approve=True)
    seq = DiagnosisTask.objects.get(pk=task.pk).last_seq

    assert (
        approvals.approval_decide(approval=approval, user=None, approve=False) is None
    )
    assert Approval.objects.get().status == "approved"
    assert DiagnosisTask.objects.get(pk=task.pk).last_seq == seq


def test_the_requeued_run_finds_the_decision(tenant, sent):
    task, approval = factories.make_approval(tenant)
    approvals.approval_decide(approval=approval, user=None, approve=True)

    rerun = lifecycle.diagnosis_claim(task_id=task.id, owner="worker-2")

    assert rerun.state == TaskState.RUNNING
    found = approvals.approval_for(task_id=task.id, replay_key=approval.replay_key)
    assert (found.pk, found.status) == (approval.pk, "approved")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("rounds", range(3))
def test_two_deciders_at_once_exactly_one_wins(tenant, sent, rounds):
    task, approval = factories.make_approval(tenant)
    sent.clear()  # the rows committed: their first enqueue ran
    barrier = threading.Barrier(2)
    results: dict[bool, object] = {}

    def decide(approve):
        try:
            barrier.wait(timeout=10)
            # Each thread its own copy, as two web requests would read it.
            mine = Approval.objects.get(pk=approval.pk)
            results[approve] = approvals.approval_decide(
                approval=mine, user=None, approve=approve
            )
        finally:
            connection.close()

    threads = [threading.Thread(target=decide, args=(a,)) for a in (True, False)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert len(results) == 2
    winners = [approve for approve, result in results.items() if result is not None]
    assert len(winners) == 1
    approval.refresh_from_db()
    assert approval.status == ("approved" if winners[0] else "denied")
    kinds = [kind for kind, _ in _events(task)]
    assert kinds.count("approval_decided") == 1
    assert kinds.count("task_requeued") == 1
    assert DiagnosisTask.objects.get(pk=task.pk).state == TaskState.QUEUED
    assert sent == [str(task.id)]


@pytest.mark.django_db(transaction=True)
def test_decision_racing_a_cancel_ends_cancelled_with_one_decision(tenant, sent):
    task, approval = factories.make_approval(tenant)
    sent.clear()  # the rows committed: their first enqueue ran
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def run(action):
        try:
            barrier.wait(timeout=10)
            action()
        except BaseException as exc:  # reported below, not lost in the thread
            errors.append(exc)
        finally:
            connection.close()

    def decide():
        approvals.approval_decide(
            approval=Approval.objects.get(pk=approval.pk), user=None, approve=True
        )

    def cancel():
        services.diagnosis_cancel(task=DiagnosisTask.objects.get(pk=task.pk))

    threads = [threading.Thread(target=run, args=(a,)) for a in (decide, cancel)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert errors == []
    assert DiagnosisTask.objects.get(pk=task.pk).state == TaskState.CANCELLED
    approval.refresh_from_db()
    assert approval.status in {"approved", "expired"}
    kinds = [kind for kind, _ in _events(task)]
    assert kinds.count("approval_decided") == 1
    assert kinds[-1] == "task_cancelled"


# --- expiry -------------------------------------------------------------------------------


def test_reaper_expires_an_overdue_approval_and_requeues_its_task(
    tenant, settings, sent, django_capture_on_commit_callbacks
):
    settings.DIAGNOSIS_APPROVAL_TTL_SECONDS = 60
    with time_machine.travel(T0, tick=False) as clock:
        task, approval = factories.make_approval(tenant)
        seq = task.last_seq
        clock.shift(61)
        with django_capture_on_commit_callbacks(execute=True):
            counts = services.diagnosis_reap()
        again = services.diagnosis_reap()

    assert counts["approvals_expired"] == 1
    assert counts["requeued"] == 0  # the lease sweep did not touch it
    approval.refresh_from_db()
    assert (approval.status, approval.decided_by) == ("expired", None)
    assert approval.reason == approvals.EXPIRED_REASON
    task.refresh_from_db()
    assert task.state == TaskState.QUEUED
    assert sent == [str(task.id)]
    [(expired_kind, expired_data), (requeued_kind, requeued_data)] = _events(
        task, after=seq
    )
    assert (expired_kind, expired_data["decision"], expired_data["decided_by"]) == (
        "approval_decided",
        "expired",
        None,
    )
    assert (requeued_kind, requeued_data["reason"]) == (
        "task_requeued",
        "approval_expired",
    )
    assert again["approvals_expired"] == 0


def test_approval_before_its_expiry_is_left_pending(tenant, sent):
    task, approval = factories.make_approval(tenant)

    counts = services.diagnosis_reap(now=approval.expires_at - timedelta(seconds=1))

    assert counts["approvals_expired"] == 0
    assert Approval.objects.get().status == "pending"
    assert DiagnosisTask.objects.get(pk=task.pk).state == TaskState.WAITING_APPROVAL


def test_decision_after_the_expiry_writes_nothing(tenant, sent):
    task, approval = factories.make_approval(tenant)
    Approval.objects.filter(pk=approval.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )

    assert approvals.approval_decide(approval=approval, user=None, approve=True) is None
    approval.refresh_from_db()
    assert approval.status == "pending"  # until the reaper marks it
    assert approvals.approval_status(approval=approval) == "expired"
    assert DiagnosisTask.objects.get(pk=task.pk).state == TaskState.WAITING_APPROVAL


def test_lease_sweep_leaves_a_parked_task_alone(tenant, settings, sent):
    settings.DIAGNOSIS_APPROVAL_TTL_SECONDS = 3600
    task, _approval = factories.make_approval(tenant)
    # Even with a stale lease expiry left on the row, a parked task has no worker to lose.
    DiagnosisTask.objects.filter(pk=task.pk).update(
        lease_expires_at=timezone.now() - timedelta(minutes=5)
    )

    counts = services.diagnosis_reap(now=timezone.now() + timedelta(minutes=10))

    assert counts == {
        "requeued": 0,
        "failed": 0,
        "cancelled": 0,
        "redispatched": 0,
        "approvals_expired": 0,
        "webhooks_redispatched": 0,
    }
    assert DiagnosisTask.objects.get(pk=task.pk).state == TaskState.WAITING_APPROVAL
    assert sent == []


# --- cancel -------------------------------------------------------------------------------


def test_cancel_of_a_parked_task_ends_it_at_once_and_expires_its_approval(
    tenant, sent, django_capture_on_commit_callbacks
):
    task, approval = factories.make_approval(tenant)
    seq = task.last_seq

    with django_capture_on_commit_callbacks(execute=True):
        cancelled = services.diagnosis_cancel(task=task)

    assert cancelled.state == TaskState.CANCELLED
    assert cancelled.cancel_requested_at is not None
    assert cancelled.finished_at is not None
    approval.refresh_from_db()
    assert (approval.status, approval.reason) == ("expired", "task cancelled")
    kinds = [(kind, data.get("decision")) for kind, data in _events(task, after=seq)]
    assert kinds == [
        ("task_cancelling", None),
        ("approval_decided", "expired"),
        ("task_cancelled", None),
    ]
    assert sent == []
    assert approvals.approval_decide(approval=approval, user=None, approve=True) is None


def test_cancel_of_a_running_task_still_waits_for_its_worker(tenant):
    task = _running(tenant)
    assert services.diagnosis_cancel(task=task).state == TaskState.CANCELLING


# --- the page -----------------------------------------------------------------------------


def _page(client, task):
    return client.get(
        reverse("diagnosis:incident-detail", args=[task.incident_id])
    ).content.decode()


def test_responder_sees_the_pending_approval_without_buttons(client, tenant):
    task, approval = factories.make_approval(tenant)
    client.force_login(factories.make_member(tenant, role=Role.RESPONDER).user)

    body = _page(client, task)

    assert f'id="approval-{approval.id}"' in body
    assert "actions.restart_workload" in body
    assert "payments-gw" in body
    assert "connection leak confirmed" in body
    assert "[REDACTED]" in body
    assert reverse("diagnosis:approval-decide", args=[approval.id]) not in body
    assert 'value="approve"' not in body


@pytest.mark.parametrize("role", [Role.APPROVER, Role.ADMIN])
def test_approver_sees_approve_and_deny(client, tenant, role):
    task, approval = factories.make_approval(tenant)
    client.force_login(factories.make_member(tenant, role=role).user)

    body = _page(client, task)

    assert reverse("diagnosis:approval-decide", args=[approval.id]) in body
    assert 'value="approve"' in body
    assert 'value="deny"' in body


@pytest.mark.parametrize("role", [Role.RESPONDER, Role.VIEWER])
def test_page_decision_by_a_role_without_the_scope_is_403(client, tenant, role):
    task, approval = factories.make_approval(tenant)
    client.force_login(factories.make_member(tenant, role=role).user)

    response = client.post(
        reverse("diagnosis:approval-decide", args=[approval.id]),
        {"decision": "approve"},
    )

    assert response.status_code == 403
    assert Approval.objects.get().status == "pending"
    assert DiagnosisTask.objects.get(pk=task.pk).state == TaskState.WAITING_APPROVAL


def test_page_deny_with_a_reason_requeues_and_shows_the_decision(client, tenant, sent):
    task, approval = factories.make_approval(tenant)
    approver = factories.make_member(tenant, role=Role.APPROVER)
    client.force_login(approver.user)

    response = client.post(
        reverse("diagnosis:approval-decide", args=[approval.id]),
        {"decision": "deny", "reason": "not during the freeze"},
        headers={"HX-Request": "true"},
    )

    assert response.status_code == 200
    approval.refresh_from_db()
    assert (approval.status, approval.decided_by, approval.reason) == (
        "denied",
        approver.user,
        "not during the freeze",
    )
    assert DiagnosisTask.objects.get(pk=task.pk).state == TaskState.QUEUED
    body = response.content.decode()
    assert "not during the freeze" in body
    assert 'value="approve"' not in body


def test_page_decision_needs_the_csrf_token(tenant):
    from django.test import Client

    _task, approval = factories.make_approval(tenant)
    client = Client(enforce_csrf_checks=True)
    client.force_login(factories.make_member(tenant, role=Role.APPROVER).user)

    response = client.post(
        reverse("diagnosis:approval-decide", args=[approval.id]),
        {"decision": "approve"},
    )

    assert response.status_code == 403
    assert Approval.objects.get().status == "pending"


def test_lease_holder_asking_again_while_one_is_pending_parks_on_it(tenant):
    task, approval = factories.make_approval(tenant)
    # Back to running under its owner with the approval still pending (no path of the app
    # leaves it so; the request must still not create a second one).
    lifecycle.diagnosis_transition(
        task=task,
        to=TaskState.RUNNING,
        fields={
            "lease_owner": "worker-1",
            "lease_expires_at": timezone.now() + timedelta(seconds=30),
        },
    )

    same = _request(
        DiagnosisTask.objects.get(pk=task.pk), replay_key=approval.replay_key
    )

    assert same.pk == approval.pk
    assert Approval.objects.count() == 1
    task.refresh_from_db()
    assert (task.state, task.lease_owner) == (TaskState.WAITING_APPROVAL, "")
    assert _events(task)[-1][0] == "approval_requested"


def test_expiry_of_an_approval_whose_task_is_not_parked_requeues_nothing(tenant, sent):
    _, task = factories.make_incident(tenant)
    Approval.objects.create(task=task, expires_at=timezone.now() - timedelta(seconds=1))

    assert approvals.approvals_expire() == 1

    assert Approval.objects.get().status == "expired"
    assert DiagnosisTask.objects.get(pk=task.pk).state == TaskState.QUEUED
    assert [kind for kind, _ in _events(task)] == ["task_created", "approval_decided"]


def test_status_of_an_approval_its_parked_task_waits_for_is_pending(tenant):
    _task, approval = factories.make_approval(tenant)
    assert approvals.approval_status(approval=approval) == "pending"
