"""The engine run in-process by the real runner: real MCP servers over stdio, the test database."""

import json
import re

import pytest

from diagnosis import approvals, environments, runner, services
from diagnosis.models import DiagnosisTask, SpanState, TaskEvent, ToolCallSpan
from diagnosis.registry import bundled_scenarios_dir, demo_environment_name
from reasoning import layers
from tests import factories
from tests.diagnosis.engine import support

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


# One scenario per kind of evidence, in process; every bundled scenario runs end to end through
# `manage.py evaluate` in tests/diagnosis/test_evaluate.py.
SCENARIOS = (
    "dns-nxdomain",
    "k8s-oomkilled",
    "k8s-service-no-endpoints",
    "log-backend-timeout",
    "mcp-jsonrpc-error",
    "pool-exhaustion",
    "proxy-idle-timeout",
    "tls-expired",
)

# What the decisive evidence quotes and what the fix names, per scenario (issue 20 item 1).
_DECISIVE_AND_FIX = {
    "k8s-oomkilled": (
        "Reason: OOMKilled",
        "Raise the memory limit of deployment/cartservice",
    ),
    "k8s-service-no-endpoints": ("", "Restore the selector"),
    "pool-exhaustion": ("CLOSE_WAIT", "Fix the connection leak in checkout"),
    "tls-expired": ("certificate_expired", "Renew the certificate"),
}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_demo_scenario_top_hypothesis_is_the_root_cause(scenario):
    expected = json.loads(
        (bundled_scenarios_dir() / scenario / "expected.json").read_text()
    )
    tenant = factories.make_tenant("engine")
    _, task = support.open_demo_incident(tenant, scenario)
    state = runner.run_task(str(task.id))
    task = DiagnosisTask.objects.get(pk=task.pk)
    if state is None and task.state == "waiting_approval":
        # The diagnosis proposed a write: deny it, and the resumed run finishes the report.
        approval = task.approvals.get(status="pending")
        approvals.approval_decide(
            approval=approval, user=None, approve=False, reason="test"
        )
        state = runner.run_task(str(task.id))
        task = DiagnosisTask.objects.get(pk=task.pk)
    assert state == "succeeded", task.report
    top = task.report["hypotheses"][0]
    assert top["layer"] == layers.normalize(expected["root_cause_layer"]), task.report
    assert top["component"] in expected["root_cause_component"], task.report
    # Evidence cites each span by its OpenTelemetry span_id (16 hex), never by its row id.
    ids = [e["span_id"] for h in task.report["hypotheses"] for e in h["evidence"]]
    assert ids and all(re.fullmatch(r"[0-9a-f]{16}", i) for i in ids), ids
    own = set(task.spans.values_list("span_id", flat=True))
    assert set(ids) <= own, (ids, own)
    cited = task.spans.filter(
        span_id__in=[e["span_id"] for e in top["evidence"]], state=SpanState.OK
    )
    assert any(
        expected["root_cause_signal"] in json.dumps(span.result) for span in cited
    ), top["evidence"]
    kinds = list(TaskEvent.objects.filter(task=task).values_list("type", flat=True))
    assert "tool_started" in kinds and kinds[-1] == "task_completed"
    # Issue 20 item 1: the confirming rule names the fix (the first next step) and the one
    # observation it fired on; a runbook stays only when it is about that cause.
    assert top["conclusive"] and top["decisive"] in top["evidence"], top
    steps = [s["text"] for s in task.report["next_steps"]]
    assert top["remediation"] and steps[0] == top["remediation"], steps
    decisive_word, fix_word = _DECISIVE_AND_FIX.get(scenario, ("", ""))
    assert decisive_word in top["decisive"]["fact"], top["decisive"]
    assert fix_word in top["remediation"], top["remediation"]


def _plain_payment_incident(tenant):
    return support.open_incident(
        tenant,
        title="payment errors",
        service="payment",
        severity="sev3",
        symptoms="customers report failed payments",
    )


def _tool_calls_counted(**labels) -> float:
    from prometheus_client import REGISTRY

    return REGISTRY.get_sample_value("agentops_mcp_tool_calls_total", labels) or 0.0


def test_incident_without_demo_data_ends_with_an_honest_inconclusive_report():
    tenant = factories.make_tenant("engine-plain")
    _, task = _plain_payment_incident(tenant)
    counted = _tool_calls_counted(
        server="runbooks", tool="search_runbooks", outcome="ok", error_layer="none"
    )
    assert runner.run_task(str(task.id)) == "succeeded"
    # Every call is in the worker's Prometheus series too.
    assert (
        _tool_calls_counted(
            server="runbooks", tool="search_runbooks", outcome="ok", error_layer="none"
        )
        > counted
    )
    task = DiagnosisTask.objects.get(pk=task.pk)
    assert task.environment == "default"
    report = task.report
    assert report["conclusive"] is False and report["partial"] is False
    assert "no decisive evidence" in report["summary"]
    assert report["tool_calls"] >= 1
    assert ToolCallSpan.objects.filter(task=task).exists()
    kinds = list(TaskEvent.objects.filter(task=task).values_list("type", flat=True))
    assert kinds.count("tool_started") >= 1 and kinds[-1] == "task_completed"
    seqs = list(TaskEvent.objects.filter(task=task).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))


def test_cancel_of_a_plain_incident_ends_cancelled():
    import threading
    import time

    from tests.livestack import wait_for

    tenant = factories.make_tenant("engine-plain-cancel")
    _, task = _plain_payment_incident(tenant)
    outcome = []
    worker = threading.Thread(
        target=lambda: outcome.append(runner.run_task(str(task.id)))
    )
    worker.start()
    wait_for(
        lambda: TaskEvent.objects.filter(task=task, type="tool_started").exists(),
        timeout=60,
        what="the first tool call",
    )
    asked = time.monotonic()
    services.diagnosis_cancel(task=task)
    worker.join(timeout=60)
    print(
        f"cancel to cancelled: {time.monotonic() - asked:.3f} s"
    )  # a figure, not a bound
    assert outcome == ["cancelled"]
    task = DiagnosisTask.objects.get(pk=task.pk)
    assert task.state == "cancelled"
    assert not ToolCallSpan.objects.filter(task=task, state=SpanState.STARTED).exists()


def test_two_demo_diagnoses_at_once_share_the_listeners_and_do_not_clash():
    # Each in its own thread and event loop, as the threads-pool worker runs them; they
    # share the process's one set of the scenario's listeners (diagnosis.engine.shared_listeners).
    import threading

    tenant = factories.make_tenant("engine-two")
    principal = support.responder(tenant)
    fields = environments.demo_incident_fields(
        tenant=tenant, name=demo_environment_name("tls-expired")
    )
    tasks = [
        support.open_incident(tenant, principal=principal, **fields)[1]
        for _ in range(2)
    ]
    outcomes: dict[str, str | None] = {}
    threads = [
        threading.Thread(
            target=lambda t=t: outcomes.update({str(t.id): runner.run_task(str(t.id))})
        )
        for t in tasks
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert sorted(outcomes.values()) == ["succeeded", "succeeded"]
    for task in DiagnosisTask.objects.filter(pk__in=[t.pk for t in tasks]):
        top = task.report["hypotheses"][0]
        assert (top["layer"], top["component"]) == ("tls", "api.payments.internal")
    urls = {
        task_id: {
            span.arguments_redacted.get("url")
            for span in ToolCallSpan.objects.filter(
                task_id=task_id, tool_name="probe_url"
            )
        }
        for task_id in (t.pk for t in tasks)
    }
    first, second = urls.values()
    assert len(first) >= 2 and second == first  # one set of listeners, the same ports
