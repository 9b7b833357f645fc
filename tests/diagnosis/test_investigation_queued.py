"""Queued rows of the tool log: a tool_queued shows its call before it starts; the call's span
takes the row over (queued → running → done), once, however the snapshot and the events race."""

import pytest
from django.urls import reverse

from diagnosis import lifecycle, tracing
from diagnosis.models import SpanState, ToolCallSpan, call_id
from diagnosis.pages import investigation
from tests import factories

pytestmark = pytest.mark.django_db

HOSTILE = '<script>window.pwned=1</script><img src=x onerror="alert(1)">'


def _queue(task, key, *, tool="query_metric", why="is the service healthy?"):
    """tool_queued of the call whose replay key is `key` (attempt 1), as the engine sends it."""
    lifecycle.diagnosis_event_append(
        task_id=task.id,
        kind="tool_queued",
        data={
            "call_id": call_id(attempt=1, replay_key=key),
            "agent": "metrics",
            "server": "metrics",
            "tool": tool,
            "arguments": {"service": "checkout", "token": "[REDACTED]"},
            "attempt": 1,
            "why": why,
        },
    )


def _start(task, key, *, tool="query_metric", announce=True):
    span = tracing.span_start(
        task_id=task.id,
        span_id=f"{ToolCallSpan.objects.count() + 1:016x}",
        attempt=1,
        agent="metrics",
        server_name="metrics",
        transport="stdio",
        tool_name=tool,
        arguments_redacted={"service": "checkout", "token": "[REDACTED]"},
        arguments_hash="0" * 64,
        replay_key=key,
        deadline=None,
        principal="user:alice",
        granted_scopes=["tasks:read"],
        attributes={},
    )
    if announce:
        lifecycle.diagnosis_event_append(
            task_id=task.id,
            kind="tool_started",
            data={
                "span_id": span.span_id,
                "call_id": call_id(attempt=1, replay_key=key),
                "agent": "metrics",
                "server": "metrics",
                "tool": tool,
                "arguments": span.arguments_redacted,
                "attempt": 1,
                "why": "is the service healthy?",
            },
        )
    return span


def _rows(task):
    return [
        row
        for group in investigation.investigation_snapshot(task=task).groups
        for row in group.rows
    ]


def test_a_queued_call_turns_running_then_done_in_one_row(tenant):
    _incident, task = factories.make_incident(tenant)
    _queue(task, "metrics:r0.0")
    [queued] = _rows(task)
    assert (queued.state, queued.state_label, queued.span_id) == (
        "queued",
        "queued",
        "",
    )
    assert queued.dom_id == f"call-{call_id(attempt=1, replay_key='metrics:r0.0')}"
    assert queued.why == "is the service healthy?"
    assert '"token": "[REDACTED]"' in queued.arguments
    assert not queued.is_running

    span = _start(task, "metrics:r0.0")
    [running] = _rows(task)
    assert (running.state_label, running.span_id) == ("running", span.span_id)
    assert running.call_id == queued.call_id
    assert running.dom_id == f"tool-{span.span_id}"

    tracing.span_finish(span=span, state=SpanState.OK, latency_ms=3.0)
    [done] = _rows(task)
    assert (done.state_label, done.span_id) == ("done", span.span_id)


def test_a_span_written_after_the_events_were_read_replaces_its_queued_row(
    tenant, monkeypatch
):
    _incident, task = factories.make_incident(tenant)
    _queue(task, "metrics:r0.0")
    read_events = investigation.selectors.diagnosis_events_after
    started = []

    def then_start(**kwargs):
        events = read_events(**kwargs)
        started.append(_start(task, "metrics:r0.0"))  # its tool_started still to stream
        return events

    monkeypatch.setattr(investigation.selectors, "diagnosis_events_after", then_start)
    [row] = _rows(task)
    assert (row.state, row.span_id) == (SpanState.STARTED, started[0].span_id)


def test_rows_keep_the_queued_order_whatever_order_the_calls_start_in(tenant):
    _incident, task = factories.make_incident(tenant)
    _queue(task, "metrics:r0.0", tool="first")
    _queue(task, "metrics:r0.1", tool="second")
    _queue(task, "metrics:r0.2", tool="third")
    _start(task, "metrics:r0.2", tool="third")
    _start(task, "metrics:r0.0", tool="first")
    assert [(r.tool, r.state_label) for r in _rows(task)] == [
        ("first", "running"),
        ("second", "queued"),
        ("third", "running"),
    ]


def test_a_refused_call_goes_from_queued_to_refused_with_the_queued_reason(tenant):
    _incident, task = factories.make_incident(tenant)
    _queue(task, "metrics:r0.0", why="budget check")
    span = _start(
        task, "metrics:r0.0", announce=False
    )  # a refusal sends no tool_started
    tracing.span_finish(
        span=span, state=SpanState.REFUSED, latency_ms=0.0, error_layer="policy"
    )
    [row] = _rows(task)
    assert (row.state_label, row.why, row.span_id) == (
        "refused",
        "budget check",
        span.span_id,
    )


def test_a_call_still_queued_when_the_attempt_ends_reads_cancelled(tenant):
    _incident, task = factories.make_incident(tenant)
    _queue(task, "metrics:r0.0", tool="ran")
    _queue(task, "metrics:r0.1", tool="never")
    _start(task, "metrics:r0.0", tool="ran")
    lifecycle.diagnosis_event_append(
        task_id=task.id, kind="task_requeued", data={"reason": "lease_expired"}
    )
    assert [(r.tool, r.state_label) for r in _rows(task)] == [
        ("ran", "running"),
        ("never", "cancelled"),
    ]


def test_page_renders_a_queued_row_once_with_its_state_in_text_and_escaped(
    client, member, tenant
):
    client.force_login(member.user)
    incident, task = factories.make_incident(tenant)
    _queue(task, "metrics:r0.0", why=HOSTILE)
    _queue(task, "metrics:r0.1")
    _start(task, "metrics:r0.1")
    body = client.get(
        reverse("diagnosis:incident-detail", args=[incident.id])
    ).content.decode()
    queued = call_id(attempt=1, replay_key="metrics:r0.0")
    started = call_id(attempt=1, replay_key="metrics:r0.1")
    assert body.count(f'id="call-{queued}"') == 1
    assert f'id="call-{started}"' not in body  # its span's row took over
    assert body.count(f'data-call="{started}"') == 1
    assert 'data-state="queued"' in body
    assert (
        '<span class="span-state span-queued" data-field="state">queued</span>' in body
    )
    assert "<script>window.pwned" not in body
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in body
