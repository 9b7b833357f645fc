"""The investigation page, its fragments, feedback, the trace view and the operations page,
through Django's test client (the live behaviour is in tests/browser)."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from diagnosis import lifecycle, services, tracing
from diagnosis.models import (
    DiagnosisTask,
    Role,
    SpanState,
    TaskFeedback,
    ToolCallSpan,
)
from diagnosis.pages import investigation, operations, trace_view
from diagnosis.states import TaskState
from tests import factories
from tests.diagnosis.test_streaming_support import finish

pytestmark = pytest.mark.django_db

HOSTILE = '<script>window.pwned=1</script><img src=x onerror="alert(1)">'


@pytest.fixture
def logged_in(client, member):
    client.force_login(member.user)
    return client


def _span(task, *, agent="metrics", server="metrics", tool="query_metric", **finish_as):
    span = tracing.span_start(
        task_id=task.id,
        span_id=f"{ToolCallSpan.objects.count() + 1:016x}",
        attempt=1,
        agent=agent,
        server_name=server,
        transport="stdio",
        tool_name=tool,
        arguments_redacted={"service": "checkout", "token": "[REDACTED]"},
        arguments_hash="0" * 64,
        replay_key=f"{agent}:{ToolCallSpan.objects.count()}",
        deadline=None,
        principal="user:alice",
        granted_scopes=["tasks:read"],
        attributes={
            "gen_ai.operation.name": "execute_tool",
            "mcp.method.name": "tools/call",
        },
    )
    lifecycle.diagnosis_event_append(
        task_id=task.id,
        kind="tool_started",
        data={
            "span_id": span.span_id,
            "agent": agent,
            "server": server,
            "tool": tool,
            "arguments": span.arguments_redacted,
            "attempt": 1,
            "why": "is the service healthy?",
        },
    )
    if finish_as:
        span = tracing.span_finish(span=span, **finish_as)
    return span


def _report(**overrides):
    report = {
        "version": 1,
        "summary": "payments-api's certificate expired.",
        "conclusive": True,
        "hypotheses": [
            {
                "id": "tls:payments-api",
                "layer": "tls",
                "component": "payments-api",
                "statement": "The certificate expired",
                "confidence": 0.9,
                "conclusive": True,
                "status": "confirmed",
                "reason_ruled_out": None,
                "stage": None,
                "reason": None,
                "evidence": [
                    {
                        "span_id": "00000000000000a1",
                        "server": "netcheck",
                        "tool": "probe_url",
                        "fact": "certificate_expired",
                    }
                ],
                "causal_chain": ["checkout 502", "gateway 502", "TLS expired"],
            },
            {
                "id": "http:payments-gw",
                "layer": "http",
                "component": "payments-gw",
                "statement": "The gateway answers 502",
                "confidence": 0.4,
                "conclusive": False,
                "status": "ruled_out",
                "reason_ruled_out": "explained by the TLS failure",
                "stage": None,
                "reason": None,
                "evidence": [],
                "causal_chain": [],
            },
        ],
        "open_questions": [],
        "next_steps": [
            {
                "text": "Renew the certificate",
                "runbook_uri": "runbook://tls",
                "runbook_title": "TLS",
            }
        ],
        "actions": [],
        "tool_calls": 3,
        "partial": False,
    }
    report.update(overrides)
    return report


# --- the snapshot ----------------------------------------------------------------------------


def test_snapshot_status_comes_from_the_events_it_resumes_after(tenant, monkeypatch):
    """The row may already be further on than the events read; the stream brings those moves,
    so the status line must show the state of the last event rendered, not the row's."""
    _incident, task = factories.make_incident(tenant)
    lifecycle.diagnosis_transition(task=task, to=TaskState.RUNNING)
    lifecycle.diagnosis_event_append(
        task_id=task.id, kind="agent_started", data={"agent": "metrics"}
    )
    _span(task)
    snapshot = investigation.investigation_snapshot(
        task=DiagnosisTask.objects.get(pk=task.pk)
    )
    assert (snapshot.status.state, snapshot.status.phase) == ("running", "metrics")
    # the running row's label, what the call asks (call_labels.call_label)
    assert snapshot.status.checking == ["query_metric checkout"]
    assert snapshot.last_seq == 4
    [group] = snapshot.groups
    assert group.agent == "metrics"
    assert group.rows[0].why == "is the service healthy?"
    assert '"token": "[REDACTED]"' in group.rows[0].arguments

    read_events = investigation.selectors.diagnosis_events_after

    def then_cancel(**kwargs):
        events = read_events(**kwargs)
        services.diagnosis_cancel(task=DiagnosisTask.objects.get(pk=task.pk))
        return events

    monkeypatch.setattr(investigation.selectors, "diagnosis_events_after", then_cancel)
    later = investigation.investigation_snapshot(
        task=DiagnosisTask.objects.get(pk=task.pk)
    )
    assert later.last_seq == 4
    assert later.status.state == "running"  # task_cancelling (seq 5) is still to stream
    assert later.task.state == TaskState.CANCELLING  # the report and controls are fresh


def test_snapshot_reads_spans_after_events_so_a_row_is_never_missing(
    tenant, monkeypatch
):
    _incident, task = factories.make_incident(tenant)
    read_events = investigation.selectors.diagnosis_events_after
    started = []

    def then_start_a_call(**kwargs):
        events = read_events(**kwargs)
        started.append(_span(task))  # span and tool_started after the events were read
        return events

    monkeypatch.setattr(
        investigation.selectors, "diagnosis_events_after", then_start_a_call
    )
    snapshot = investigation.investigation_snapshot(task=task)
    assert snapshot.last_seq == 1
    assert list(snapshot.rows_by_span) == [started[0].span_id]


def test_progress_rows_take_the_last_progress_event(tenant):
    _incident, task = factories.make_incident(tenant)
    span = _span(task)
    for value in (1, 3):
        lifecycle.diagnosis_event_append(
            task_id=task.id,
            kind="tool_progress",
            data={
                "span_id": span.span_id,
                "progress": value,
                "total": 4,
                "message": "m",
            },
        )
    snapshot = investigation.investigation_snapshot(task=task)
    assert snapshot.rows_by_span[span.span_id].progress == investigation.Progress(
        3.0, 4.0, "m"
    )


def test_verdict_reads_a_full_report_and_anything_else_stored():
    verdict = investigation.verdict_from_report(_report())
    assert verdict.cause is not None and verdict.cause.component == "payments-api"
    assert [c.id for c in verdict.hypotheses] == ["tls:payments-api"]
    assert [c.reason_ruled_out for c in verdict.ruled_out] == [
        "explained by the TLS failure"
    ]
    assert verdict.cause.confidence_percent == 90
    inconclusive = investigation.verdict_from_report(_report(conclusive=False))
    assert inconclusive.cause is None and inconclusive.hypotheses
    for junk in (
        None,
        [],
        "text",
        {"hypotheses": "x", "next_steps": [1], "summary": 3},
    ):
        empty = investigation.verdict_from_report(junk)
        assert empty.is_empty and empty.cause is None and empty.next_steps == []
    timed = investigation.verdict_from_report(
        {"summary": "ran 2 steps", "hypotheses": []}
    )
    assert (timed.summary, timed.is_partial) == ("ran 2 steps", True)


def test_duration_text_matches_the_scripts_format():
    assert [investigation.duration_text(s) for s in (0, 59, 61, 3600 + 120)] == [
        "0 s",
        "59 s",
        "1 min 01 s",
        "1 h 02 min",
    ]


# --- the page and its fragments --------------------------------------------------------------


def test_page_renders_untrusted_text_escaped(logged_in, tenant):
    incident, task = factories.make_incident(tenant, title=HOSTILE)
    _span(
        task,
        state=SpanState.OK,
        latency_ms=12.0,
        result_preview=HOSTILE,
    )
    DiagnosisTask.objects.filter(pk=task.pk).update(
        report=_report(summary=HOSTILE, next_steps=[{"text": HOSTILE}])
    )
    body = logged_in.get(
        reverse("diagnosis:incident-detail", args=[incident.id])
    ).content.decode()
    assert "<script>window.pwned" not in body
    assert "<img src=x" not in body
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in body
    assert 'data-last-seq="2"' in body  # task_created, tool_started


def test_page_shows_cards_ruled_out_folded_and_evidence_links(logged_in, tenant):
    incident, task = factories.make_incident(tenant)
    finish(task)
    DiagnosisTask.objects.filter(pk=task.pk).update(report=_report())
    body = logged_in.get(
        reverse("diagnosis:incident-detail", args=[incident.id])
    ).content.decode()
    trace = reverse("diagnosis:task-trace", args=[task.id])
    assert f'href="{trace}?span=00000000000000a1#span-00000000000000a1"' in body
    assert (
        '<details class="ruled-out" id="ruled-out"><summary>Ruled out (1)</summary>'
        in body
    )
    assert (
        "payments-api at the tls layer · confirmed · "
        '<span class="confidence">90 % confidence</span>' in body
    )
    assert 'data-finished="true"' in body
    assert reverse("api:task-report", args=[task.id]) in body


def _evidence_link_followed(client, incident, task, cited: str) -> tuple[str, str]:
    """The incident page's evidence link for the report citing `cited`, and the trace page it
    opens: (the link's anchor, the trace page's body)."""
    report = _report()
    report["hypotheses"][0]["evidence"][0]["span_id"] = cited
    DiagnosisTask.objects.filter(pk=task.pk).update(report=report)
    body = client.get(
        reverse("diagnosis:incident-detail", args=[incident.id])
    ).content.decode()
    trace = reverse("diagnosis:task-trace", args=[task.id])
    [(query, anchor)] = re.findall(
        rf'<span class="decisive-tag">decisive</span> <a href="{re.escape(trace)}'
        r'\?span=([^"#]+)#([^"]+)">netcheck\.probe_url',
        body,
    )
    return anchor, client.get(trace, {"span": query}).content.decode()


def test_evidence_link_lands_on_the_trace_pages_row_of_the_cited_span(
    logged_in, tenant
):
    incident, task = factories.make_incident(tenant)
    _span(task, state=SpanState.OK, latency_ms=3.0)
    cited = _span(
        task, server="netcheck", tool="probe_url", state=SpanState.OK, latency_ms=4.0
    )
    _span(task, state=SpanState.OK, latency_ms=5.0)
    finish(task)

    anchor, trace_page = _evidence_link_followed(
        logged_in, incident, task, cited.span_id
    )

    # The report cites the OpenTelemetry span_id; the trace page's rows are anchored by it.
    assert anchor == f"span-{cited.span_id}"
    assert re.search(rf'<tr id="{anchor}" class="span-row[^"]* selected"', trace_page)
    assert f"netcheck.probe_url · span {cited.span_id}</span>" in trace_page


def test_a_report_stored_citing_a_span_row_id_still_links_and_resolves(
    logged_in, tenant, token
):
    """Reports written before evidence cited the OpenTelemetry span_id named a span by its
    row id (span_pk): the page maps it to the row's anchor, and the lookups still accept it."""
    incident, task = factories.make_incident(tenant)
    _span(task, state=SpanState.OK, latency_ms=3.0)
    cited = _span(
        task, server="netcheck", tool="probe_url", state=SpanState.OK, latency_ms=4.0
    )
    finish(task)

    anchor, trace_page = _evidence_link_followed(
        logged_in, incident, task, str(cited.pk)
    )

    assert anchor == f"span-{cited.span_id}"
    assert re.search(rf'<tr id="{anchor}" class="span-row[^"]* selected"', trace_page)
    old_link = logged_in.get(
        reverse("diagnosis:task-trace", args=[task.id]), {"span": str(cited.pk)}
    ).content.decode()
    assert f"netcheck.probe_url · span {cited.span_id}</span>" in old_link
    detail = logged_in.get(
        f"/api/tasks/{task.id}/spans/{cited.pk}",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert detail.status_code == 200 and detail.json()["span_id"] == cited.span_id


def test_an_earlier_diagnosis_is_shown_by_its_id_and_another_incidents_is_404(
    logged_in, tenant
):
    incident, first = factories.make_incident(tenant)
    finish(first)
    services.diagnosis_start(
        incident=incident, user=None, plan="timed", plan_args={"steps": [0.01]}
    )
    other, _ = factories.make_incident(tenant)
    url = reverse("diagnosis:incident-detail", args=[incident.id])
    body = logged_in.get(f"{url}?task={first.id}").content.decode()
    assert f'data-task="{first.id}"' in body
    assert (
        'id="cancel"' not in body
    )  # only the latest diagnosis is cancelled from its page
    other_url = reverse("diagnosis:incident-detail", args=[other.id])
    assert logged_in.get(f"{other_url}?task={first.id}").status_code == 404


def test_parts_carry_the_seq_they_reflect_and_are_tenant_scoped(
    logged_in, tenant, other_tenant
):
    _incident, task = factories.make_incident(tenant)
    response = logged_in.get(reverse("diagnosis:task-parts", args=[task.id]))
    body = response.content.decode()
    # No alerts panel: this incident was opened by hand (tests/diagnosis/test_alert_panel.py).
    parts = (
        "status",
        "controls",
        "share",
        "answer",
        "approvals",
        "decided-approvals",
        "verdict",
        "feedback",
        "artifact-links",
        "connecting",
        "steering",
        "coordination",
        "timeline",
    )
    for part in parts:
        assert f'id="{part}"' in body
    assert body.count('data-seq="1"') == len(parts)
    assert "<html" not in body
    _, theirs = factories.make_incident(other_tenant)
    assert (
        logged_in.get(reverse("diagnosis:task-parts", args=[theirs.id])).status_code
        == 404
    )


def test_cancel_answers_the_parts_showing_cancelled(logged_in, tenant):
    incident, _task = factories.make_incident(tenant)
    response = logged_in.post(
        reverse("diagnosis:incident-cancel", args=[incident.id]),
        headers={"HX-Request": "true"},
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert 'id="cancel"' not in body and 'id="rerun"' in body
    assert 'data-state="cancelled"' in body


def test_approval_panel_is_read_only_without_the_decide_scope(client, tenant):
    task, approval = factories.make_approval(tenant)
    url = reverse("diagnosis:incident-detail", args=[task.incident_id])
    for role, has_buttons in ((Role.RESPONDER, False), (Role.APPROVER, True)):
        client.force_login(factories.make_member(tenant, role=role).user)
        body = client.get(url).content.decode()
        assert ('value="approve"' in body) is has_buttons, role
        assert f'id="approval-{approval.id}"' in body
        assert ("your role cannot decide" in body) is not has_buttons


# --- feedback --------------------------------------------------------------------------------


def test_feedback_is_stored_per_person_and_changed_by_a_second_answer(
    logged_in, member, tenant
):
    _incident, task = factories.make_incident(tenant)
    finish(task)
    url = reverse("diagnosis:task-feedback", args=[task.id])
    hx = {"HX-Request": "true"}
    assert (
        logged_in.post(
            url, {"verdict": "partly", "comment": HOSTILE}, headers=hx
        ).status_code
        == 200
    )
    response = logged_in.post(
        url, {"verdict": "wrong", "comment": "not TLS"}, headers=hx
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert "you said <b>wrong</b>" in body
    # The form shows the saved answer, on the fragment and on the page.
    page = logged_in.get(reverse("diagnosis:incident-detail", args=[task.incident_id]))
    for html in (body, page.content.decode()):
        assert re.search(r'<input[^>]*value="wrong"[^>]*checked', html)
        assert not re.search(r'<input[^>]*value="partly"[^>]*checked', html)
        assert ">\nnot TLS</textarea>" in html
    [feedback] = TaskFeedback.objects.all()
    assert (feedback.user, feedback.verdict, feedback.comment) == (
        member.user,
        "wrong",
        "not TLS",
    )


def test_feedback_on_a_running_diagnosis_or_bad_verdict_is_refused(
    logged_in, tenant, client
):
    _incident, task = factories.make_incident(tenant)
    url = reverse("diagnosis:task-feedback", args=[task.id])
    hx = {"HX-Request": "true"}
    assert logged_in.post(url, {"verdict": "right"}, headers=hx).status_code == 400
    finish(task)
    assert logged_in.post(url, {"verdict": "maybe"}, headers=hx).status_code == 400
    client.force_login(factories.make_member(tenant, role=Role.VIEWER).user)
    assert client.post(url, {"verdict": "right"}, headers=hx).status_code == 404
    assert TaskFeedback.objects.count() == 0


# --- the trace view --------------------------------------------------------------------------


def test_trace_filters_to_errors_and_shows_every_field_of_a_span(logged_in, tenant):
    _incident, task = factories.make_incident(tenant)
    ok = _span(task, state=SpanState.OK, latency_ms=5.0, result_preview="fine")
    bad = _span(
        task,
        agent="logs",
        server="logs",
        tool="search_logs",
        state=SpanState.ERROR,
        latency_ms=30.0,
        error_layer="tool_backend",
        error_code="tool_error",
        error_message=HOSTILE,
        retry_count=2,
        attributes={"error.type": "tool_error"},
    )
    url = reverse("diagnosis:task-trace", args=[task.id])
    body = logged_in.get(f"{url}?errors=1&span={bad.span_id}").content.decode()
    assert f'id="span-{bad.span_id}"' in body and f'id="span-{ok.span_id}"' not in body
    for name in ("idempotency_key", "arguments_hash", "retry_count", "replay_key"):
        assert f"<dt>{name}</dt>" in body
    for attribute in ("gen_ai.operation.name", "mcp.method.name", "error.type"):
        assert f"<dt><code>{attribute}</code></dt>" in body
    assert "Retried 2 times" in body
    assert "<script>window.pwned" not in body and "&lt;script&gt;" in body
    by_agent = logged_in.get(f"{url}?agent=metrics").content.decode()
    assert (
        f'id="span-{ok.span_id}"' in by_agent
        and f'id="span-{bad.span_id}"' not in by_agent
    )


def test_a_cancelled_call_is_a_state_not_a_layer(logged_in, tenant):
    _incident, task = factories.make_incident(tenant)
    # "cancelled" as the layer: what the executor wrote before; "engine": a closed open span.
    for layer in ("cancelled", "engine"):
        _span(
            task,
            state=SpanState.CANCELLED,
            latency_ms=1.0,
            error_layer=layer,
            error_code="cancelled",
            error_message="the diagnosis was stopped during the call",
        )
    _span(
        task,
        state=SpanState.ERROR,
        latency_ms=1.0,
        error_layer="dns",
        error_code="nxdomain",
    )
    body = logged_in.get(reverse("diagnosis:task-trace", args=[task.id])).content
    assert b"cancelled layer" not in body and b"engine layer" not in body
    assert b"dns layer" in body
    rows = [
        r
        for g in investigation.investigation_snapshot(task=task).groups
        for r in g.rows
    ]
    assert sorted(r.error_layer for r in rows) == ["", "", "dns"]
    figures = operations.operations_figures(tenant=tenant, window="hour")
    assert figures.error_layers == [("dns", 1)]


def test_critical_path_follows_what_each_round_waited_for(tenant):
    _incident, task = factories.make_incident(tenant)
    t0 = timezone.now()

    def span(span_id, start, end):
        return ToolCallSpan(
            task=task,
            span_id=span_id,
            started_at=t0 + timedelta(seconds=start),
            ended_at=t0 + timedelta(seconds=end),
            state=SpanState.OK,
        )

    # round 1: a (0-1) and b (0-3) in parallel; round 2 starts after b: c (3-4); d (3.5-5).
    spans = [span("a", 0, 1), span("b", 0, 3), span("c", 3, 4), span("d", 3.5, 5)]
    assert trace_view.critical_path(spans, now=t0) == {"b", "d"}
    chart = trace_view.waterfall(spans, now=t0)
    assert [(bar.offset_percent, bar.width_percent) for bar in chart.bars][:2] == [
        (0.0, 20.0),
        (0.0, 60.0),
    ]


# --- the operations page -----------------------------------------------------------------------


def test_operations_page_is_the_admin_roles(client, tenant):
    url = reverse("diagnosis:operations")
    client.force_login(factories.make_member(tenant, role=Role.RESPONDER).user)
    assert client.get(url).status_code == 403
    client.force_login(factories.make_member(tenant, role=Role.ADMIN).user)
    assert client.get(url).status_code == 200
    assert client.get(f"{url}?window=day").status_code == 200


def test_operations_figures_from_the_rows(tenant, other_tenant):
    _incident, task = factories.make_incident(tenant)
    lifecycle.diagnosis_claim(task_id=task.id, owner="worker-1")
    for latency in (10.0, 20.0, 30.0):
        _span(task, state=SpanState.OK, latency_ms=latency)
    _span(
        task, state=SpanState.ERROR, latency_ms=40.0, error_layer="mcp", error_code="x"
    )
    factories.park_on_approval(factories.make_incident(tenant)[1])
    _, theirs = factories.make_incident(other_tenant)
    _span(theirs, state=SpanState.ERROR, latency_ms=1.0, error_layer="dns")
    figures = operations.operations_figures(tenant=tenant, window="hour")
    [tool] = figures.tools
    assert (tool.calls, tool.ok, tool.success_percent) == (4, 3, 75.0)
    assert (tool.p50_ms, tool.p95_ms) == (25.0, pytest.approx(38.5))
    assert figures.error_layers == [("mcp", 1)]
    assert dict(figures.tasks_by_state)["running"] == 1
    assert dict(figures.tasks_by_state)["waiting_approval"] == 1
    assert figures.approvals_waiting == 1
    assert figures.first_call_p50_s is not None and figures.first_call_p50_s >= 0
    assert (
        operations.operations_figures(
            tenant=tenant, window="hour", now=timezone.now() + timedelta(hours=2)
        ).calls
        == 0
    )
