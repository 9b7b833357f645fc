"""OpenTelemetry export (issue 12 item 3): a task's trace, rebuilt from its rows, sent over OTLP/HTTP.

The receiver is a real HTTP server on 127.0.0.1 that decodes each body as the OTLP protobuf
(opentelemetry-proto's ExportTraceServiceRequest) and answers as a collector does; the tests
check span names, ids, parent links, times, statuses and attributes against the rows.
"""

import re
import secrets
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.test import override_settings
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from diagnosis import dispatch, lifecycle, runner, services, tasks, tracing
from diagnosis.events import EventKind
from diagnosis.models import DiagnosisTask, SpanState, TaskEvent, ToolCallSpan
from diagnosis.observability import otel
from diagnosis.states import TaskState
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


class Receiver:
    """An OTLP/HTTP traces endpoint: keeps every decoded request, answers with `status`."""

    def __init__(self) -> None:
        self.requests: list[ExportTraceServiceRequest] = []
        self.content_types: list[str] = []
        self.status = 200
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.path != "/v1/traces":
                    self.send_response(404)
                    self.end_headers()
                    return
                message = ExportTraceServiceRequest()
                message.ParseFromString(body)
                receiver.requests.append(message)
                receiver.content_types.append(self.headers["Content-Type"])
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(receiver.status)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def spans(self) -> list[Span]:
        return [
            span
            for request in self.requests
            for resource in request.resource_spans
            for scope in resource.scope_spans
            for span in scope.spans
        ]


@pytest.fixture
def receiver(monkeypatch):
    monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
    monkeypatch.delenv("OTEL_RESOURCE_ATTRIBUTES", raising=False)
    rx = Receiver()
    rx.thread.start()
    with override_settings(
        OTEL_EXPORTER_OTLP_ENDPOINT=rx.url, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=""
    ):
        yield rx
    rx.server.shutdown()
    rx.server.server_close()


@pytest.fixture(autouse=True)
def _no_broker_run(monkeypatch):
    # The tests run their tasks in-process; the queued run message is not needed.
    monkeypatch.setattr(dispatch, "diagnosis_run_enqueue", lambda task_id: None)


def attrs(span: Span) -> dict:
    out = {}
    for item in span.attributes:
        kind = item.value.WhichOneof("value")
        value = getattr(item.value, kind)
        if kind == "array_value":
            value = [getattr(v, v.WhichOneof("value")) for v in value.values]
        out[item.key] = value
    return out


def nanos(moment) -> int:
    return otel._nanos(moment)


def event_time(task, kind, nth=0):
    return list(
        TaskEvent.objects.filter(task=task, type=kind)
        .order_by("seq")
        .values_list("occurred_at", flat=True)
    )[nth]


def start_call(task, *, agent, tool, attempt, key, attributes=None):
    return tracing.span_start(
        task_id=task.id,
        span_id=secrets.token_hex(8),
        attempt=attempt,
        agent=agent,
        server_name="metrics",
        transport="streamable_http",
        tool_name=tool,
        arguments_redacted={"service": "checkout"},
        arguments_hash="h" * 64,
        replay_key=key,
        deadline=None,
        principal="user:ada",
        granted_scopes=["incidents:write"],
        attributes={
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "mcp.method.name": "tools/call",
            **(attributes or {}),
        },
    )


def test_a_timed_run_with_its_calls_is_one_trace_under_the_task(receiver):
    tenant = factories.make_tenant()
    _, task = factories.make_incident(tenant, plan_args={"steps": [0.01, 0.01]})
    # Set at creation, so the UI, the spans and the exported trace show one id.
    assert re.fullmatch(r"[0-9a-f]{32}", task.trace_id)
    assert runner.run_task(str(task.id), owner="w1") == TaskState.SUCCEEDED
    task.refresh_from_db()
    step0 = event_time(task, EventKind.AGENT_STARTED, 0)
    step1 = event_time(task, EventKind.AGENT_STARTED, 1)
    # Calls the steps made (the timed plan calls none; these are written as the executor does).
    ok = ToolCallSpan.objects.create(
        task=task,
        tenant=tenant,
        trace_id=task.trace_id,
        span_id="00f067aa0ba902b7",
        agent="step-0",
        server_name="metrics",
        transport="streamable_http",
        protocol_version="2025-11-25",
        tool_name="query_range",
        state=SpanState.OK,
        started_at=step0 + timedelta(microseconds=100),
        ended_at=step0 + timedelta(microseconds=900),
        latency_ms=0.8,
        attempt=1,
        attributes={
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "query_range",
            "gen_ai.tool.call.id": "00f067aa0ba902b7",
            "mcp.method.name": "tools/call",
            "mcp.protocol.version": "2025-11-25",
            "mcp.session.id": "191c4850af6c49e08843a3f6c80e5046",
            "jsonrpc.request.id": 7,
            "network.transport": "tcp",
            "server.address": "127.0.0.1",
            "server.port": 9100,
            "mcp.tool.schema_hash": "ab" * 32,
        },
    )
    failed = ToolCallSpan.objects.create(
        task=task,
        tenant=tenant,
        trace_id=task.trace_id,
        span_id="b7ad6b7169203331",
        agent="step-1",
        server_name="logs",
        transport="stdio",
        tool_name="search",
        state=SpanState.ERROR,
        started_at=step1 + timedelta(microseconds=50),
        ended_at=step1 + timedelta(microseconds=70),
        attempt=1,
        error_layer="mcp",
        error_code="json_rpc_-32602",
        error_message="invalid params: window too wide",
        attributes={
            "gen_ai.tool.name": "search",
            "network.transport": "pipe",
            "rpc.response.status_code": -32602,
            "error.type": "JsonRpcError",
        },
    )

    assert tasks.diagnosis_export_trace(str(task.id)) == 5

    (request,) = receiver.requests
    assert receiver.content_types == ["application/x-protobuf"]
    (resource_spans,) = request.resource_spans
    resource = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
    assert resource["service.name"] == "agentops"
    (scope_spans,) = resource_spans.scope_spans
    assert scope_spans.scope.name == "agentops.diagnosis"
    spans = {s.name: s for s in receiver.spans()}
    assert set(spans) == {
        "invoke_workflow diagnosis",
        "invoke_agent step-0",
        "invoke_agent step-1",
        "execute_tool query_range",
        "execute_tool search",
    }
    assert {s.trace_id.hex() for s in spans.values()} == {task.trace_id}
    assert all(s.kind == Span.SPAN_KIND_INTERNAL for s in spans.values())

    root = spans["invoke_workflow diagnosis"]
    assert root.parent_span_id == b""
    assert root.start_time_unix_nano == nanos(task.created_at)
    assert root.end_time_unix_nano == nanos(task.finished_at)
    assert root.status.code == Status.STATUS_CODE_UNSET
    assert attrs(root) == {
        "gen_ai.operation.name": "invoke_workflow",
        "gen_ai.workflow.name": "diagnosis",
        "agentops.task.id": str(task.id),
        "agentops.incident.id": str(task.incident_id),
        "agentops.tenant": tenant.slug,
        "agentops.task.state": "succeeded",
        "agentops.task.attempts": 1,
        "agentops.environment": task.environment,
        "agentops.plan": "timed",
    }

    agent0, agent1 = spans["invoke_agent step-0"], spans["invoke_agent step-1"]
    for agent, nth in ((agent0, 0), (agent1, 1)):
        assert agent.parent_span_id == root.span_id
        assert agent.start_time_unix_nano == nanos(
            event_time(task, EventKind.AGENT_STARTED, nth)
        )
        assert agent.end_time_unix_nano == nanos(
            event_time(task, EventKind.AGENT_COMPLETED, nth)
        )
    assert attrs(agent0) == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "step-0",
        "agentops.attempt": 1,
        "agentops.agent.completed": True,
    }

    call = spans["execute_tool query_range"]
    assert call.span_id.hex() == ok.span_id
    assert call.parent_span_id == agent0.span_id
    assert call.start_time_unix_nano == nanos(ok.started_at)
    assert call.end_time_unix_nano == nanos(ok.ended_at)
    assert call.status.code == Status.STATUS_CODE_UNSET
    got = attrs(call)
    # Every attribute as the row stores it, and what the execute_tool span asks for besides.
    for key, value in ok.attributes.items():
        assert got[key] == value, key
    assert got["gen_ai.agent.name"] == "step-0"
    assert got["gen_ai.tool.type"] == "extension"
    assert got["agentops.server.name"] == "metrics"
    assert "error.type" not in got

    bad = spans["execute_tool search"]
    assert bad.span_id.hex() == failed.span_id
    assert bad.parent_span_id == agent1.span_id
    assert bad.status.code == Status.STATUS_CODE_ERROR
    assert bad.status.message == "invalid params: window too wide"
    got = attrs(bad)
    assert got["error.type"] == "JsonRpcError"
    assert (
        got["rpc.response.status_code"] == "-32602"
    )  # a string, as the conventions type it
    assert got["agentops.error.layer"] == "mcp"
    assert got["agentops.error.code"] == "json_rpc_-32602"
    assert got["gen_ai.operation.name"] == "execute_tool"
    assert got["gen_ai.tool.call.id"] == failed.span_id


def test_calls_of_two_attempts_hang_under_their_own_attempts_agents(receiver):
    tenant = factories.make_tenant()
    _, task = factories.make_incident(tenant)
    task = lifecycle.diagnosis_claim(task_id=task.id, owner="w1")
    lifecycle.diagnosis_event_append(
        task_id=task.id,
        kind=EventKind.AGENT_STARTED,
        data={"agent": "metrics", "round": 1, "calls": 2},
    )
    first = start_call(task, agent="metrics", tool="health", attempt=1, key="r1.0")
    first = tracing.span_finish(span=first, state=SpanState.OK, latency_ms=3.0)
    # The worker dies mid-call: the reaper re-queues, a second worker claims attempt 2.
    lost = start_call(task, agent="metrics", tool="errors", attempt=1, key="r1.1")
    task = lifecycle.diagnosis_transition(
        task=task, to=TaskState.QUEUED, data={"reason": "lease_expired", "attempt": 1}
    )
    task = lifecycle.diagnosis_claim(task_id=task.id, owner="w2")
    assert task.attempt == 2
    tracing.spans_abandon(task_id=task.id, before_attempt=2)
    lifecycle.diagnosis_event_append(
        task_id=task.id,
        kind=EventKind.AGENT_STARTED,
        data={"agent": "metrics", "round": 1, "calls": 2},
    )
    again = start_call(task, agent="metrics", tool="errors", attempt=2, key="r1.1b")
    again = tracing.span_finish(
        span=again,
        state=SpanState.ERROR,
        latency_ms=1.0,
        error_layer="tool_backend",
        error_code="tool_error",
        error_message="prometheus: 503",
        attributes={"error.type": "tool_error"},
    )
    refused = start_call(
        task,
        agent="metrics",
        tool="restart",
        attempt=2,
        key="r1.2",
    )
    # As the executor writes a policy refusal: started, then finished refused at once.
    tracing.span_finish(
        span=refused,
        state=SpanState.REFUSED,
        latency_ms=0.0,
        error_layer="policy",
        error_code="scope_missing",
        error_message="actions:write is not granted",
        attributes={"error.type": "scope_missing"},
    )
    lifecycle.diagnosis_event_append(
        task_id=task.id,
        kind=EventKind.AGENT_COMPLETED,
        data={"agent": "metrics", "round": 1, "calls": 2, "failed": 2},
    )
    task = lifecycle.diagnosis_transition(
        task=task,
        to=TaskState.FAILED,
        fields={
            "error_layer": "tool_backend",
            "error_code": "all_calls_failed",
            "error_message": "every metrics call failed",
        },
    )

    assert otel.export_task_trace(task.id) == 7

    spans = receiver.spans()
    assert {s.trace_id.hex() for s in spans} == {task.trace_id}
    by_id = {s.span_id.hex(): s for s in spans}
    (root,) = [s for s in spans if s.name == "invoke_workflow diagnosis"]
    assert root.status.code == Status.STATUS_CODE_ERROR
    assert root.status.message == "every metrics call failed"
    assert attrs(root)["error.type"] == "all_calls_failed"
    agents = sorted(
        (s for s in spans if s.name == "invoke_agent metrics"),
        key=lambda s: s.start_time_unix_nano,
    )
    assert [attrs(a)["agentops.attempt"] for a in agents] == [1, 2]
    assert all(a.parent_span_id == root.span_id for a in agents)
    # The first attempt's agent never completed: it ends where its attempt did.
    assert attrs(agents[0])["agentops.agent.completed"] is False
    assert agents[0].end_time_unix_nano == nanos(
        event_time(task, EventKind.TASK_REQUEUED)
    )
    assert attrs(agents[1])["agentops.agent.failed_calls"] == 2

    def tool(row):
        row.refresh_from_db()
        span = by_id[row.span_id]
        assert span.name == f"execute_tool {row.tool_name}"
        assert span.start_time_unix_nano == nanos(row.started_at)
        assert span.end_time_unix_nano == nanos(row.ended_at)
        return span

    assert tool(first).parent_span_id == agents[0].span_id
    assert tool(first).status.code == Status.STATUS_CODE_UNSET
    lost_span = tool(lost)
    assert lost_span.parent_span_id == agents[0].span_id
    assert lost_span.status.code == Status.STATUS_CODE_ERROR
    assert attrs(lost_span)["error.type"] == "worker_lost"
    again_span = tool(again)
    assert again_span.parent_span_id == agents[1].span_id
    assert attrs(again_span)["error.type"] == "tool_error"
    assert again_span.status.message == "prometheus: 503"
    refused_span = tool(refused)
    assert refused_span.parent_span_id == agents[1].span_id
    assert refused_span.status.code == Status.STATUS_CODE_ERROR
    assert attrs(refused_span)["error.type"] == "scope_missing"
    assert attrs(refused_span)["agentops.span.state"] == "refused"

    # Exported again (a retried Celery delivery), the trace is the same trace, id for id.
    otel.export_task_trace(task.id)
    assert len(receiver.requests) == 2
    second = {s.span_id.hex() for s in receiver.spans()[len(spans) :]}
    assert second == set(by_id)


def test_a_call_left_started_by_a_lost_worker_ends_with_its_task(receiver):
    tenant = factories.make_tenant()
    _, task = factories.make_incident(tenant)
    task = lifecycle.diagnosis_claim(task_id=task.id, owner="w1")
    hung = start_call(task, agent="logs", tool="search", attempt=1, key="r1.0")
    task = lifecycle.diagnosis_transition(
        task=task, to=TaskState.FAILED, data={"reason": "lease_expired"}
    )
    assert otel.export_task_trace(task.id) == 2
    (call,) = [s for s in receiver.spans() if s.name == "execute_tool search"]
    assert call.span_id.hex() == hung.span_id
    assert call.end_time_unix_nano == nanos(task.finished_at)
    assert call.status.code == Status.STATUS_CODE_ERROR
    assert attrs(call)["error.type"] == "unfinished"
    # No agent span was reported, so the call hangs under the task.
    (root,) = [s for s in receiver.spans() if s.name == "invoke_workflow diagnosis"]
    assert call.parent_span_id == root.span_id


def test_a_task_that_has_not_ended_exports_nothing_yet(receiver):
    tenant = factories.make_tenant()
    _, task = factories.make_incident(tenant)
    lifecycle.diagnosis_claim(task_id=task.id, owner="w1")
    assert otel.export_task_trace(task.id) == 0
    assert receiver.requests == []


def test_a_refused_export_raises_for_the_celery_retry(receiver):
    tenant = factories.make_tenant()
    _, task = factories.make_incident(tenant)
    services.diagnosis_cancel(task=task)  # queued → cancelled at once
    receiver.status = 400
    with pytest.raises(otel.TraceExportFailed):
        otel.export_task_trace(task.id)
    # It did reach the receiver: one root span, no agents.
    assert len(receiver.requests) == 1
    (root,) = receiver.spans()
    assert root.name == "invoke_workflow diagnosis"
    assert root.status.code == Status.STATUS_CODE_UNSET  # a cancel is no error
    assert attrs(root)["agentops.task.state"] == "cancelled"
    assert tasks.diagnosis_export_trace.autoretry_for == (otel.TraceExportFailed,)


def test_the_traces_endpoint_is_taken_as_it_is(receiver):
    tenant = factories.make_tenant()
    _, task = factories.make_incident(tenant)
    services.diagnosis_cancel(task=task)
    with override_settings(
        OTEL_EXPORTER_OTLP_ENDPOINT="",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=f"{receiver.url}/v1/traces",
    ):
        assert otel.export_task_trace(task.id) == 1
    assert len(receiver.requests) == 1


@override_settings(
    OTEL_EXPORTER_OTLP_ENDPOINT="", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=""
)
def test_off_without_an_endpoint(django_capture_on_commit_callbacks):
    tenant = factories.make_tenant()
    _, task = factories.make_incident(tenant)
    services.diagnosis_cancel(task=task)
    assert not otel.is_enabled()
    assert otel.export_task_trace(task.id) == 0
    with django_capture_on_commit_callbacks() as callbacks:
        otel.trace_export_on_commit(task.id)
    assert callbacks == []
    assert otel.traceparent_headers(trace_id="a" * 32, span_id="b" * 16) == {
        "traceparent": f"00-{'a' * 32}-{'b' * 16}-00"
    }


def test_on_the_export_is_enqueued_by_name_after_commit(
    receiver, django_capture_on_commit_callbacks, monkeypatch
):
    sent = []
    monkeypatch.setattr(
        otel.current_app, "send_task", lambda name, args: sent.append((name, args))
    )
    tenant = factories.make_tenant()
    _, task = factories.make_incident(tenant)
    with django_capture_on_commit_callbacks(execute=True):
        otel.trace_export_on_commit(task.id)
    assert sent == [("diagnosis.tasks.diagnosis_export_trace", [str(task.id)])]
    assert tasks.diagnosis_export_trace.name == otel.EXPORT_TASK
    # Sampled: the trace of this call is recorded, so the server may record its side too.
    assert otel.traceparent_headers(trace_id=task.trace_id, span_id="b" * 16) == {
        "traceparent": f"00-{task.trace_id}-{'b' * 16}-01"
    }


def test_an_older_task_without_a_trace_id_exports_its_spans_trace_id(receiver):
    tenant = factories.make_tenant()
    _, task = factories.make_incident(tenant)
    DiagnosisTask.objects.filter(pk=task.pk).update(trace_id="")
    task = lifecycle.diagnosis_claim(task_id=task.id, owner="w1")
    row = start_call(task, agent="logs", tool="search", attempt=1, key="r1.0")
    tracing.span_finish(span=row, state=SpanState.OK, latency_ms=1.0)
    lifecycle.diagnosis_transition(task=task, to=TaskState.SUCCEEDED)
    assert otel.export_task_trace(task.id) == 2
    row.refresh_from_db()
    assert row.trace_id == task.id.hex
    assert {s.trace_id.hex() for s in receiver.spans()} == {task.id.hex}
