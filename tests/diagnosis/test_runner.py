"""The durable runner, run in-process against the real database (committed rows: the lease
heartbeat uses its own connection)."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from diagnosis import runner, services
from diagnosis.endings import ENDINGS, RunEnd
from diagnosis.events import TERMINAL_EVENTS, EventKind
from diagnosis.models import DiagnosisTask, SpanState, TaskEvent, ToolCallSpan
from diagnosis.states import TaskState
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


def types(task):
    return list(
        TaskEvent.objects.filter(task=task)
        .order_by("seq")
        .values_list("type", flat=True)
    )


def run_in_thread(task, result):
    def target():
        try:
            result["state"] = runner.run_task(str(task.id), owner="w1")
        finally:
            connection.close()

    thread = threading.Thread(target=target)
    thread.start()
    return thread


def assert_gap_free_with_one_end(task):
    seqs = list(
        TaskEvent.objects.filter(task=task)
        .order_by("seq")
        .values_list("seq", flat=True)
    )
    assert seqs == list(range(1, len(seqs) + 1))
    assert sum(t in TERMINAL_EVENTS for t in types(task)) == 1


@pytest.fixture
def tenant_row(transactional_db):
    return factories.make_tenant("runner")


def test_timed_plan_runs_to_succeeded(tenant_row):
    _, task = factories.make_incident(tenant_row, plan_args={"steps": [0.01, 0.01]})
    assert runner.run_task(str(task.id), owner="w1") == TaskState.SUCCEEDED
    task.refresh_from_db()
    assert task.report["summary"].startswith("timed plan: 2 steps")
    assert types(task) == [
        EventKind.TASK_CREATED,
        EventKind.TASK_STARTED,
        EventKind.AGENT_STARTED,
        EventKind.AGENT_COMPLETED,
        EventKind.AGENT_STARTED,
        EventKind.AGENT_COMPLETED,
        EventKind.TASK_COMPLETED,
    ]
    assert task.checkpoint == 3
    assert_gap_free_with_one_end(task)


def test_second_delivery_of_a_claimed_task_does_nothing(tenant_row):
    _, task = factories.make_incident(tenant_row)
    runner.run_task(str(task.id), owner="w1")
    before = types(task)
    assert runner.run_task(str(task.id), owner="w2") is None
    assert types(task) == before


def test_cancel_during_a_step_ends_cancelled(tenant_row):
    _, task = factories.make_incident(tenant_row, plan_args={"steps": [5, 5]})
    result = {}
    thread = run_in_thread(task, result)
    try:
        for _ in range(200):
            if TaskEvent.objects.filter(
                task=task, type=EventKind.AGENT_STARTED
            ).exists():
                break
            threading.Event().wait(0.02)
        services.diagnosis_cancel(task=DiagnosisTask.objects.get(pk=task.pk))
    finally:
        thread.join(timeout=10)
    assert not thread.is_alive()
    assert result["state"] == TaskState.CANCELLED
    assert types(task)[-2:] == [EventKind.TASK_CANCELLING, EventKind.TASK_CANCELLED]
    assert_gap_free_with_one_end(task)


def test_passed_deadline_ends_timed_out(tenant_row):
    _, task = factories.make_incident(tenant_row)
    DiagnosisTask.objects.filter(pk=task.pk).update(
        deadline_at=timezone.now() - timedelta(seconds=1)
    )
    assert runner.run_task(str(task.id), owner="w1") == TaskState.TIMED_OUT
    task.refresh_from_db()
    assert (task.error_layer, task.error_code) == ("deadline", "deadline_exceeded")
    assert_gap_free_with_one_end(task)


def test_failing_step_ends_failed_with_its_error(tenant_row):
    _, task = factories.make_incident(
        tenant_row, plan_args={"steps": [0.01, 0.01], "fail_at": 1}
    )
    assert runner.run_task(str(task.id), owner="w1") == TaskState.FAILED
    task.refresh_from_db()
    assert (task.error_layer, task.error_code) == ("engine", "RuntimeError")
    assert "fail_at" in task.error_message
    assert_gap_free_with_one_end(task)


def test_timed_plan_with_spans_writes_one_finished_span_per_step(tenant_row):
    _, task = factories.make_incident(
        tenant_row, plan_args={"steps": [0.01, 0.01], "spans": True}
    )
    assert runner.run_task(str(task.id), owner="w1") == TaskState.SUCCEEDED
    spans = list(ToolCallSpan.objects.filter(task=task).order_by("started_at"))
    assert [(s.agent, s.state, s.attempt) for s in spans] == [
        ("step-0", SpanState.OK, 1),
        ("step-1", SpanState.OK, 1),
    ]
    assert all(s.tenant_id == tenant_row.pk and s.ended_at for s in spans)


def test_unknown_plan_fails_the_task(tenant_row):
    # A row naming a plan no longer registered: the service refuses to write one today.
    _, task = factories.make_incident(tenant_row)
    DiagnosisTask.objects.filter(pk=task.pk).update(plan="no-such-plan")
    assert runner.run_task(str(task.id), owner="w1") == TaskState.FAILED
    task.refresh_from_db()
    assert task.error_code == "unknown_plan"


@pytest.mark.parametrize(
    ("plan", "plan_args"),
    [
        ("timed", {"steps": "abc"}),
        ("timed", {"steps": [1e9]}),
        ("timed", {"steps": [0.01], "fail_at": "x"}),
        ("timed", {"steps": [0.01], "spans": "yes"}),
        ("timed", ["not", "an", "object"]),
        ("default", {"steps": [0.01]}),
    ],
)
def test_bad_plan_args_in_a_row_fail_the_task_once_blamed_on_its_input(
    tenant_row, plan, plan_args
):
    # Rows written before plan_args were checked: the worker must neither crash nor sleep.
    _, task = factories.make_incident(tenant_row)
    DiagnosisTask.objects.filter(pk=task.pk).update(plan=plan, plan_args=plan_args)

    assert runner.run_task(str(task.id), owner="w1") == TaskState.FAILED

    task.refresh_from_db()
    assert (task.attempt, task.error_layer, task.error_code) == (
        1,
        "engine",
        "invalid_plan_args",
    )
    assert types(task)[-1] == EventKind.TASK_FAILED


def test_requeued_task_resumes_at_its_checkpoint(tenant_row):
    _, task = factories.make_incident(
        tenant_row, plan_args={"steps": [0.01, 0.01, 0.01]}
    )
    DiagnosisTask.objects.filter(pk=task.pk).update(checkpoint=2)
    assert runner.run_task(str(task.id), owner="w1") == TaskState.SUCCEEDED
    agents = [
        e.data["agent"]
        for e in TaskEvent.objects.filter(task=task, type=EventKind.AGENT_STARTED)
    ]
    assert agents == ["step-2"]


def test_runner_that_lost_its_lease_stops_without_an_end(tenant_row, settings):
    settings.DIAGNOSIS_LEASE_SECONDS = 0.3
    _, task = factories.make_incident(tenant_row, plan_args={"steps": [5]})
    result = {}
    thread = run_in_thread(task, result)
    try:
        for _ in range(200):
            if TaskEvent.objects.filter(
                task=task, type=EventKind.AGENT_STARTED
            ).exists():
                break
            threading.Event().wait(0.02)
        # Another party (the reaper) took the task away: the lease owner no longer matches.
        DiagnosisTask.objects.filter(pk=task.pk).update(lease_owner="someone-else")
    finally:
        thread.join(timeout=10)
    assert not thread.is_alive()
    assert result["state"] is None
    assert not set(types(task)) & TERMINAL_EVENTS


def test_plan_that_fails_to_build_fails_the_task_not_the_worker(
    tenant_row, monkeypatch
):
    from dataclasses import replace

    from diagnosis import plans

    def broken(plan_args):
        raise KeyError("a plan with a bug")

    monkeypatch.setitem(
        plans._PLANS, "timed", replace(plans._PLANS["timed"], factory=broken)
    )
    _, task = factories.make_incident(tenant_row)

    assert runner.run_task(str(task.id), owner="w1") == TaskState.FAILED

    task.refresh_from_db()
    assert (task.attempt, task.error_layer, task.error_code) == (
        1,
        "engine",
        "KeyError",
    )


def test_an_attempt_ending_leaves_a_later_attempts_open_span_alone(tenant_row):
    """A run that lost its lease unawares ends its own open spans (and dead earlier
    attempts'), never those of the attempt another worker is running now."""
    _, task = factories.make_incident(tenant_row)
    earlier = factories.make_span(
        task, span_id="1" * 16, attempt=1, state=SpanState.STARTED
    )
    ours = factories.make_span(
        task, span_id="2" * 16, attempt=2, state=SpanState.STARTED
    )
    later = factories.make_span(
        task, span_id="3" * 16, attempt=3, state=SpanState.STARTED
    )
    context = runner._Context(task_id=str(task.id), plan_args={}, owner="w1", attempt=2)
    runner._end_open_spans(context, ENDINGS[RunEnd.FAILED].open_span)
    states = {s.span_id: s.state for s in ToolCallSpan.objects.filter(task=task)}
    assert states[earlier.span_id] == SpanState.CANCELLED
    assert states[ours.span_id] == SpanState.CANCELLED
    assert states[later.span_id] == SpanState.STARTED
