"""The investigation page, the trace view and the operations page in real Chromium, against
Daphne and a Celery worker running the real engine on the bundled MCP servers (issue 11)."""

from pathlib import Path

import pytest

from diagnosis import services, tracing
from diagnosis.models import (
    Approval,
    ApprovalStatus,
    DiagnosisTask,
    Role,
    SpanState,
    TaskFeedback,
    ToolCallSpan,
)
from diagnosis.registry import demo_environment_name
from diagnosis.states import TERMINAL, TaskState
from tests import factories
from tests.browser.conftest import (
    PHONE,
    api_post,
    log_in,
    member,
    open_incident,
    screenshot,
    serious_accessibility_violations,
    shown_seqs,
    shown_spans,
)
from tests.livestack import wait_for

HOSTILE = '<script>window.pwned=1</script><b onmouseover="window.pwned=2">bold</b>'
SLOW_SERVER = "tests.diagnosis.engine.servers.slow_health"
# A whole demo diagnosis, start (or approval) to report: ~15 s on a quiet machine, over 60 s on
# a loaded one (CI under load timed out at the page's default 60 s).
RUN_MS = 180_000


def _task(task_id) -> DiagnosisTask:
    return DiagnosisTask.objects.get(pk=task_id)


def _assert_every_event_and_span_once(page, task_id) -> None:
    task = _task(task_id)
    assert shown_seqs(page) == list(range(1, task.last_seq + 1))
    spans = shown_spans(page)
    assert len(spans) == len(set(spans))
    assert set(spans) == set(
        ToolCallSpan.objects.filter(task_id=task_id).values_list("span_id", flat=True)
    )


def test_demo_incident_from_the_form_live_to_its_verdict_trace_and_feedback(
    pages, stack
):
    tenant = factories.make_tenant("browser-demo")
    member(tenant, "lead", Role.ADMIN)
    page = pages.new()
    log_in(page, "lead")
    page.select_option(
        "#demo-incident select[name=environment]", demo_environment_name("tls-expired")
    )
    page.click("#demo-incident button[type=submit]")
    page.wait_for_url("**/incidents/*/")
    task_id = page.get_attribute("#investigation", "data-task")
    rendered_up_to = int(page.get_attribute("#investigation", "data-last-seq"))

    # rows arrive over the stream while the worker runs
    page.wait_for_selector(".tool-row")
    page.wait_for_selector("#stream-status:has-text('finished')", timeout=RUN_MS)
    streamed_starts = page.eval_on_selector_all(
        "#events li",
        "items => items.filter(i => i.textContent.includes('tool_started'))"
        ".map(i => Number(i.dataset.seq))",
    )
    assert max(streamed_starts) > rendered_up_to  # not all in the first snapshot
    page.wait_for_selector("#cause:has-text('at the tls layer')")
    assert _task(task_id).state == TaskState.SUCCEEDED
    _assert_every_event_and_span_once(page, task_id)
    assert page.text_content("#task-state") == "succeeded"
    assert page.query_selector(".tool-row[data-state=started]") is None
    # Each round's calls were queued first; every queued row turned into its span's row.
    streamed_queued = page.eval_on_selector_all(
        "#events li",
        "items => items.filter(i => i.textContent.includes('tool_queued'))",
    )
    assert streamed_queued
    assert page.query_selector(".tool-row[data-state=queued]") is None
    calls = page.eval_on_selector_all(
        ".tool-row", "rows => rows.map(r => r.dataset.call)"
    )
    assert all(calls) and len(calls) == len(set(calls))
    assert "tls" in page.text_content("#hypotheses .hypothesis .layer-tag")

    # a row opens to its redacted arguments and result
    first = page.locator(".tool-row summary").first
    first.click()
    assert page.locator(".tool-row pre[data-field=arguments]").first.is_visible()

    screenshot(page, "investigation-desktop")
    assert serious_accessibility_violations(pages, page) == []
    phone = pages.new(viewport=PHONE)
    log_in(phone, "lead")
    phone.goto(page.url)
    phone.wait_for_selector("#stream-status:has-text('finished')", timeout=RUN_MS)
    screenshot(phone, "investigation-phone")
    assert phone.evaluate(
        "() => document.documentElement.scrollWidth <= window.innerWidth + 1"
    ), "the page scrolls sideways at phone width"

    # was this right?
    page.check("#feedback input[value=partly]")
    page.fill("#feedback textarea[name=comment]", "right layer, <i>wrong</i> host")
    page.click("#feedback button[type=submit]")
    page.wait_for_selector("#feedback-saved")
    # Send was swapped with its form: focus is on the new Send, not on <body> (item 10).
    page.wait_for_function(
        "() => document.activeElement === document.querySelector('#feedback button[type=submit]')"
    )
    feedback = TaskFeedback.objects.get(task_id=task_id)
    assert (feedback.verdict, feedback.comment) == (
        "partly",
        "right layer, <i>wrong</i> host",
    )

    # the evidence link opens the span it cites in the trace view
    page.click("#hypotheses .evidence a")
    page.wait_for_selector("#span-detail")
    cited = page.url.split("span=")[1].split("#")[0]
    assert f"span {cited}" in page.text_content("#span-detail-title")
    assert "gen_ai.tool.name" in page.text_content("#span-attributes")
    screenshot(page, "trace")
    assert serious_accessibility_violations(pages, page) == []

    page.goto("/operations/")
    page.wait_for_selector("#ops-tools")
    assert (
        int(page.text_content("#ops-calls"))
        == ToolCallSpan.objects.filter(task_id=task_id)
        .exclude(state=SpanState.STARTED)
        .count()
    )
    screenshot(page, "operations")
    assert serious_accessibility_violations(pages, page) == []


@pytest.fixture
def cutting_stack_env(stack_env):
    """Streams the server ends every 1-1.5 s (their lifetime): the browser must resume."""
    stack_env.update(
        SSE_MAX_LIFETIME_SECONDS="1.5", SSE_HEARTBEAT_SECONDS="0.5", SSE_RETRY_MS="100"
    )
    return stack_env


def test_reload_mid_run_and_server_side_cuts_show_every_event_once(
    cutting_stack_env, page, stack
):
    tenant = factories.make_tenant("browser-resume")
    token = factories.make_token(member(tenant, "oncall3"))
    incident_id, task_id = open_incident(
        stack, token, {"environment": demo_environment_name("log-backend-timeout")}
    )
    log_in(page, "oncall3")
    page.goto(f"/incidents/{incident_id}/")
    page.wait_for_selector(".tool-row")
    page.reload()  # the snapshot renders what happened so far; the stream goes on after it
    page.wait_for_selector(".tool-row")
    page.wait_for_selector("#stream-status:has-text('resumed from #')")
    page.wait_for_selector("#stream-status:has-text('finished')", timeout=RUN_MS)
    assert _task(task_id).state in TERMINAL
    _assert_every_event_and_span_once(page, task_id)


@pytest.fixture
def slow_stack_env(stack_env, tmp_path):
    """Every tenant's default environment: a metrics server whose call reports progress every
    20 ms and never answers."""
    registry = tmp_path / "servers.toml"
    registry.write_text(
        'default_environment = "slow"\n'
        "[environments.slow]\n"
        'description = "a metrics server that never answers"\n'
        "[environments.slow.servers.metrics]\n"
        f'command = ["{{python}}", "-m", "{SLOW_SERVER}", "--log", "{tmp_path / "calls.log"}"]\n'
        'tools = ["service_health"]\n'
        "call_timeout = 120\n"
    )
    stack_env["AGENTOPS_SERVERS"] = str(registry)
    # The worker imports the test server from the repository root.
    stack_env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return stack_env


def test_a_call_in_flight_shows_progress_and_cancel_ends_it(
    slow_stack_env, page, stack
):
    tenant = factories.make_tenant("browser-cancel")
    token = factories.make_token(member(tenant, "oncall2"))
    incident_id, task_id = open_incident(
        stack,
        token,
        {"title": "checkout slow", "service": "checkout", "severity": "sev2"},
    )
    log_in(page, "oncall2")
    page.goto(f"/incidents/{incident_id}/")
    row = page.wait_for_selector(".tool-row[data-state=started]")
    page.wait_for_selector(
        ".tool-row [data-field=progress-text]:has-text('still checking checkout')"
    )
    assert row.query_selector("progress").is_visible()
    # The call reads as the trace labels it (issue 20 item 3), not server.tool.
    assert "still checking service_health checkout" in page.text_content("#checking")
    assert page.text_content("#phase") == "metrics"

    page.click("#cancel")  # the confirm dialog is accepted (conftest)
    page.wait_for_selector("#task-state:has-text('cancelled')")
    page.wait_for_selector(".tool-row[data-state=cancelled]")
    page.wait_for_selector("#rerun")
    assert page.text_content("#checking") == ""
    assert _task(task_id).state == TaskState.CANCELLED
    _assert_every_event_and_span_once(page, task_id)


def test_an_approver_approves_a_pending_action_a_responder_cannot(pages, stack):
    tenant = factories.make_tenant("browser-approve")
    approver = member(tenant, "approver", Role.APPROVER)
    responder = member(tenant, "responder", Role.RESPONDER)
    incident_id, task_id = open_incident(
        stack,
        factories.make_token(approver),
        {"environment": demo_environment_name("pool-exhaustion")},
    )
    approval = wait_for(
        lambda: Approval.objects.filter(
            task_id=task_id, status=ApprovalStatus.PENDING
        ).first(),
        timeout=90,
        what="the restart to ask for an approval",
    )

    watcher = pages.new()
    log_in(watcher, "responder")
    watcher.goto(f"/incidents/{incident_id}/")
    card = watcher.wait_for_selector(f"#approval-{approval.id}")
    assert "your role cannot decide" in card.text_content()
    assert card.query_selector("button") is None
    refused = api_post(
        stack,
        factories.make_token(responder),
        f"/api/approvals/{approval.id}/decision",
        {"decision": "approve"},
    )
    assert refused.status_code == 403

    page = pages.new()
    log_in(page, "approver")
    page.goto(f"/incidents/{incident_id}/")
    page.wait_for_selector("#task-state:has-text('waiting approval')")
    assert page.text_content(f"#approval-{approval.id} [data-expires]").startswith(
        "in "
    )
    page.fill(f"#approval-{approval.id} input[name=reason]", "leak confirmed")
    page.click(f"#approval-{approval.id} button[value=approve]")
    page.wait_for_selector(
        f"#approval-{approval.id}[data-status=approved]", state="attached"
    )
    # The button went with the swap: focus is on its card, not dropped to <body> (item 10).
    page.wait_for_function(
        f"() => document.activeElement === document.getElementById('approval-{approval.id}')"
    )
    # the decision re-queues the diagnosis: the worker restarts the pool and the report ends
    page.wait_for_selector("#stream-status:has-text('finished')", timeout=RUN_MS)
    assert _task(task_id).state == TaskState.SUCCEEDED
    # the responder's page followed along live
    watcher.wait_for_selector("#task-state:has-text('succeeded')")
    watcher.wait_for_selector(
        f"#approval-{approval.id}[data-status=approved]", state="attached"
    )
    _assert_every_event_and_span_once(page, task_id)


def test_a_hostile_tool_result_renders_as_text_and_the_trace_filters_to_it(page, stack):
    tenant = factories.make_tenant("browser-hostile")
    member(tenant, "reader", Role.ADMIN)
    incident, task = factories.make_incident(tenant, title=HOSTILE)
    services.diagnosis_cancel(
        task=task
    )  # nothing will run it: its spans are the test's
    for number, (state, preview, layer) in enumerate(
        [(SpanState.OK, HOSTILE, ""), (SpanState.ERROR, "", "tool_backend")], start=1
    ):
        span = tracing.span_start(
            task_id=task.id,
            span_id=f"{number:016x}",
            attempt=1,
            agent="logs",
            server_name="logs",
            transport="stdio",
            tool_name="search_logs",
            arguments_redacted={"query": HOSTILE},
            arguments_hash="0" * 64,
            replay_key=f"logs:{number}",
            deadline=None,
            principal="user:reader",
            granted_scopes=[],
            attributes={"gen_ai.operation.name": "execute_tool"},
        )
        tracing.span_finish(
            span=span,
            state=state,
            latency_ms=10.0 * number,
            result_preview=preview,
            error_layer=layer,
            error_code="tool_error" if layer else "",
            error_message=HOSTILE if layer else "",
        )

    log_in(page, "reader")
    page.goto(f"/incidents/{incident.id}/")
    row = page.wait_for_selector(f"#tool-{1:016x}")
    assert row.query_selector("[data-field=preview]").text_content() == HOSTILE
    row.query_selector("summary").click()
    assert row.query_selector("[data-field=result]").text_content() == HOSTILE
    assert (
        "<script>window.pwned=1</script>"
        in row.query_selector("[data-field=arguments]").text_content()
    )
    assert page.text_content("h1") == HOSTILE
    assert page.query_selector("main script, main b[onmouseover]") is None
    assert page.evaluate("() => window.pwned") is None

    page.click("#open-trace")
    page.wait_for_selector("#waterfall")
    page.check("#filter-errors")
    page.click("#trace-filters button[type=submit]")
    page.wait_for_url("**errors=1**")
    rows = page.query_selector_all("#waterfall tbody tr")
    assert [r.get_attribute("id") for r in rows] == [f"span-{2:016x}"]
    rows[0].query_selector("a").click()
    page.wait_for_selector("#span-detail")
    assert HOSTILE in page.text_content("#span-detail .error")
    assert "gen_ai.operation.name" in page.text_content("#span-attributes")
    assert page.query_selector("main script") is None
    assert page.evaluate("() => window.pwned") is None


CITED = "c" * 16


def _finished_task_citing_a_span(tenant):
    """A cancelled diagnosis (nothing runs it) whose report cites one span as evidence."""
    incident, task = factories.make_incident(tenant, title="checkout 502s")
    services.diagnosis_cancel(task=task)
    factories.make_span(
        task,
        span_id=CITED,
        server_name="netcheck",
        tool_name="probe",
        state=SpanState.OK,
        attributes={"gen_ai.tool.name": "probe"},
    )
    report = {
        "summary": "payments-gw refuses connections",
        "conclusive": True,
        "partial": False,
        "hypotheses": [
            {
                "layer": "connect",
                "component": "payments-gw",
                "statement": "payments-gw refuses TCP connections",
                "confidence": 0.9,
                "status": "confirmed",
                "evidence": [
                    {
                        "span_id": CITED,
                        "server": "netcheck",
                        "tool": "probe",
                        "fact": "connect refused in 3 ms",
                    }
                ],
            }
        ],
    }
    DiagnosisTask.objects.filter(pk=task.pk).update(report=report)
    return incident


def _send_feedback_while_pressed(page, verdict: str) -> None:
    """Send feedback (its feedback_given event makes every watching page refresh its parts)
    with the mouse button held down, and wait until the page has the refresh in hand: swapped
    in, or held until the button is released."""
    page.evaluate("document.getElementById('verdict').dataset.shown = 'before'")
    events = page.locator("#events li").count()
    page.evaluate(
        """verdict => {
            document.querySelector(`#feedback input[value=${verdict}]`).checked = true;
            document.querySelector('#feedback form').requestSubmit();
        }""",
        verdict,
    )
    page.wait_for_function(
        """count => Array.from(document.querySelectorAll('#events li')).slice(count)
            .some(item => item.textContent.includes('feedback_given'))""",
        arg=events,
    )
    page.wait_for_function(
        """() => document.getElementById('verdict').dataset.shown !== 'before'
            || document.getElementById('investigation').dataset.partsHeld === 'true'"""
    )


def test_a_click_pressed_while_the_parts_refresh_still_opens_the_span_it_cites(
    pages, stack
):
    tenant = factories.make_tenant("browser-press")
    member(tenant, "presser", Role.ADMIN)
    incident = _finished_task_citing_a_span(tenant)
    page = pages.new()
    log_in(page, "presser")
    page.goto(f"/incidents/{incident.id}/")
    page.wait_for_selector("#stream-status:has-text('following the incident')")

    # A press that is no click (on the statement) lets the refresh land once released.
    statement = page.locator("#hypotheses .hypothesis p").first
    statement.hover()
    page.mouse.down()
    _send_feedback_while_pressed(page, "right")
    page.mouse.up()
    given = TaskFeedback.objects.get(task__incident=incident)
    last_seq = _task(given.task_id).last_seq
    page.wait_for_selector(f"#verdict[data-seq='{last_seq}']", state="attached")
    assert page.get_attribute("#investigation", "data-parts-held") is None

    # The evidence link pressed as the next refresh arrives: the release still follows it.
    page.locator("#hypotheses .evidence a").first.hover()
    page.mouse.down()
    _send_feedback_while_pressed(page, "partly")
    page.mouse.up()
    page.wait_for_selector("#span-detail")
    assert f"span {CITED}" in page.text_content("#span-detail-title")
    assert "gen_ai.tool.name" in page.text_content("#span-attributes")
