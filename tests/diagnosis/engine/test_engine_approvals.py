"""Approvals in the engine (pool-exhaustion proposes a restart): park, approve, deny, expire, void."""

from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.utils import timezone

from diagnosis import approvals, runner
from diagnosis.models import ApprovalStatus, DiagnosisTask, SpanState, ToolCallSpan
from diagnosis.states import TaskState
from tests import factories
from tests.diagnosis.engine import support

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _parked_task(tenant):
    _, task = support.open_demo_incident(tenant, "pool-exhaustion")
    assert runner.run_task(str(task.id)) is None  # parked: not ours to end
    task = DiagnosisTask.objects.get(pk=task.pk)
    assert task.state == TaskState.WAITING_APPROVAL
    assert task.lease_owner == "" and task.lease_expires_at is None  # no worker slot
    # The resume after the decision is not a crash retry: the park gave the attempt back.
    assert task.max_attempts == settings.DIAGNOSIS_MAX_ATTEMPTS + 1
    return task


def _restarts(task):
    return list(ToolCallSpan.objects.filter(task=task, tool_name="restart_workload"))


def test_approved_restart_runs_once_and_a_second_delivery_finds_nothing_to_do():
    tenant = factories.make_tenant("appr-ok")
    task = _parked_task(tenant)
    approval = task.approvals.get()
    assert approval.status == ApprovalStatus.PENDING
    assert (approval.server_name, approval.tool_name) == ("actions", "restart_workload")
    approver = factories.make_member(tenant, username="approver", role="approver")
    approvals.approval_decide(approval=approval, user=approver.user, approve=True)

    assert runner.run_task(str(task.id)) == "succeeded"
    assert (
        runner.run_task(str(task.id)) is None
    )  # a duplicate delivery: already finished
    task = DiagnosisTask.objects.get(pk=task.pk)
    [restart] = _restarts(task)
    assert restart.state == SpanState.OK and restart.approval_id == approval.pk
    assert (
        restart.idempotency_key
        == f"{task.incident_id}:restart_workload:default/checkout:1"
    )
    assert restart.side_effect_id == restart.idempotency_key
    action = task.report["actions"][0]
    assert action["status"] == "done" and "verdict" in (action["effect"] or "")
    assert action["approval_id"] == str(approval.pk)


def test_the_attempt_resumed_after_an_approval_probes_the_ports_it_probed_before():
    # The demo listeners are shared and kept while the task waits, so the verification probe,
    # built from the first attempt's observations, reaches a listener netcheck allows.
    tenant = factories.make_tenant("appr-ports")
    task = _parked_task(tenant)
    approver = factories.make_member(tenant, username="approver", role="approver")
    approvals.approval_decide(
        approval=task.approvals.get(), user=approver.user, approve=True
    )
    assert runner.run_task(str(task.id)) == "succeeded"
    task = DiagnosisTask.objects.get(pk=task.pk)
    netcheck = list(ToolCallSpan.objects.filter(task=task, server_name="netcheck"))
    assert all(not s.error_code for s in netcheck), [s.error_message for s in netcheck]
    probes = [s for s in netcheck if s.tool_name == "probe_url"]
    ports = {
        attempt: {
            urlsplit(s.arguments_redacted["url"]).port
            for s in probes
            if s.attempt == attempt
        }
        for attempt in (1, 2)
    }
    assert ports[1] and ports[2] == ports[1]  # the resumed attempt's verification probe
    assert not [
        h for h in task.report["hypotheses"] if "netcheck" in (h["component"] or "")
    ]
    assert task.report["actions"][0]["effect"].endswith("probe_url: failed_layer=http")


def test_denied_restart_is_a_recorded_refusal_and_the_report_still_ends():
    tenant = factories.make_tenant("appr-deny")
    task = _parked_task(tenant)
    approver = factories.make_member(tenant, username="approver", role="approver")
    approvals.approval_decide(
        approval=task.approvals.get(),
        user=approver.user,
        approve=False,
        reason="not now",
    )
    assert runner.run_task(str(task.id)) == "succeeded"
    task = DiagnosisTask.objects.get(pk=task.pk)
    [restart] = _restarts(task)
    assert (restart.state, restart.error_layer, restart.error_code) == (
        "refused",
        "policy",
        "approval_denied",
    )
    assert "not now" in restart.error_message
    action = task.report["actions"][0]
    assert (action["status"], action["reason"], action["approval_id"]) == (
        "denied",
        "denied by a person: not now",
        str(task.approvals.get().pk),
    )
    assert task.report["hypotheses"][0]["layer"] == "application"


def test_expired_approval_is_recorded_and_the_diagnosis_goes_on():
    tenant = factories.make_tenant("appr-exp")
    task = _parked_task(tenant)
    approval = task.approvals.get()
    approval.expires_at = timezone.now() - timedelta(seconds=1)
    approval.save(update_fields=["expires_at"])
    assert approvals.approvals_expire() == 1
    assert runner.run_task(str(task.id)) == "succeeded"
    task = DiagnosisTask.objects.get(pk=task.pk)
    [restart] = _restarts(task)
    assert (restart.state, restart.error_code) == ("refused", "approval_expired")
    assert task.approvals.get().status == ApprovalStatus.EXPIRED


def test_an_approval_for_other_arguments_is_void_and_a_new_one_is_asked():
    tenant = factories.make_tenant("appr-void")
    task = _parked_task(tenant)
    approval = task.approvals.get()
    approver = factories.make_member(tenant, username="approver", role="approver")
    approvals.approval_decide(approval=approval, user=approver.user, approve=True)
    # As if the person had approved another call: the engine's arguments hash differently.
    type(approval).objects.filter(pk=approval.pk).update(arguments_hash="0" * 64)

    assert runner.run_task(str(task.id)) is None  # parked again, on a new approval
    task = DiagnosisTask.objects.get(pk=task.pk)
    assert task.state == TaskState.WAITING_APPROVAL
    assert task.approvals.filter(status=ApprovalStatus.PENDING).count() == 1
    assert _restarts(task) == []  # nothing acted on the void approval
