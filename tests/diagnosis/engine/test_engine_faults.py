"""The engine facing broken MCP servers (issue 10 item 10): each fault is a span, never a crash.

The environment has two servers: "metrics", the faulty one (tests/diagnosis/engine/servers/
faulty.py, in the mode under test, over stdio or Streamable HTTP), and "runbooks", the bundled
server, healthy. The real runner runs the diagnosis in-process on the test database; each test
asserts that run_task returns a terminal state with a report, that the faulty server's spans end
error (or unknown_outcome) with the layer and code the fault calls for, that a server which
never connected is named in the report's open questions, and that runbooks was still called.
Memory is the worker's own: this process's peak RSS over the run (Linux resets the peak on a
write of "5" to /proc/self/clear_refs).
"""

import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from diagnosis import runner
from diagnosis.models import DiagnosisTask, SpanState, TaskEvent, ToolCallSpan
from reasoning import layers
from tests import factories
from tests.diagnosis.engine import support
from tests.livestack import free_port, stop

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SERVER = "tests.diagnosis.engine.servers.faulty"
HUGE_MIB = 50
RSS_BOUND_MIB = 40  # well under the 50 MiB payload: the result was never held whole
RUN_GUARD_S = (
    240  # a hang guard only (the pytest timeout is 300 s), not a bound on speed
)
TERMINAL = {"succeeded", "failed", "timed_out"}
FAILED = {SpanState.ERROR, SpanState.UNKNOWN_OUTCOME}
BOTH = pytest.mark.parametrize("transport", ["stdio", "http"])


@dataclass
class Run:
    """What one diagnosis against a faulty server left behind."""

    state: str | None
    task: DiagnosisTask
    spans: list[ToolCallSpan]
    kinds: list[str]
    calls_seen: (
        int  # tools/call requests that reached the faulty server (retries included)
    )
    rss_growth_mib: float
    seconds: float

    @property
    def metrics(self) -> list[ToolCallSpan]:
        return [s for s in self.spans if s.server_name == "metrics"]

    @property
    def runbooks(self) -> list[ToolCallSpan]:
        return [s for s in self.spans if s.server_name == "runbooks"]

    def figures(self) -> dict[str, Any]:
        first = self.metrics[0] if self.metrics else None
        out: dict[str, Any] = {"state": self.state}
        if first is not None:
            out["error_code"] = first.error_code
            out["to_failure_ms"] = round(first.latency_ms or 0.0)
            out["retries"] = first.retry_count
        out["calls_reaching_server"] = self.calls_seen
        out["rss_growth_mib"] = self.rss_growth_mib
        return out


# -- the stack of one test ----------------------------------------------------------------------


def _registry(tmp_path: Path, metrics_table: str, *, call_timeout: float) -> Path:
    path = tmp_path / "servers.toml"
    path.write_text(
        'default_environment = "faults"\n'
        "[environments.faults]\n"
        'description = "a faulty metrics server beside healthy runbooks"\n'
        "[environments.faults.servers.metrics]\n"
        f"{metrics_table}\n"
        'tools = ["service_health"]\n'
        "connect_timeout = 20\n"
        f"call_timeout = {call_timeout}\n"
        "[environments.faults.servers.runbooks]\n"
        'command = ["{python}", "-m", "mcpservers.runbooks"]\n'
        'tools = ["search_runbooks"]\n'
        "connect_timeout = 20\n"
    )
    return path


@contextmanager
def _metrics_server(mode: str, transport: str, log: Path) -> Iterator[str]:
    """The registry table of the faulty server (started here when it is an HTTP service)."""
    if transport == "stdio":
        yield f'command = ["{{python}}", "-m", "{SERVER}", "{mode}", "--log", "{log}"]'
        return
    if mode == "crash_at_start":
        # A service that died at start: nothing listens on its port.
        yield f'transport = "http"\nurl = "http://127.0.0.1:{free_port()}/mcp"'
        return
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            SERVER,
            mode,
            "--log",
            str(log),
            "--http",
            "127.0.0.1:0",
        ],
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert server.stderr is not None
        url = None
        for line in server.stderr:  # the server names its URL once it listens
            if (found := re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)) is not None:
                url = found[1]
                break
        assert url is not None, "the faulty server did not say where it listens"
        yield f'transport = "http"\nurl = "{url}"'
    finally:
        stop(server)
        if server.stderr is not None:
            server.stderr.close()


def _incident(tenant):
    return support.open_incident(
        tenant, symptoms="p99 latency up\ncheckout requests time out"
    )


def _rss_kib(field: str) -> int:
    status = Path("/proc/self/status").read_text()
    found = re.search(rf"{field}:\s+(\d+)", status)
    assert found is not None, f"no {field} in /proc/self/status"
    return int(found[1])


def _reset_peak_rss() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _diagnose(
    tmp_path: Path, settings, *, mode: str, transport: str, call_timeout: float = 10
) -> Run:
    log = tmp_path / "calls.log"
    with _metrics_server(mode, transport, log) as table:
        settings.AGENTOPS_SERVERS = str(
            _registry(tmp_path, table, call_timeout=call_timeout)
        )
        _, task = _incident(factories.make_tenant(f"faults-{transport}"))
        outcome: list[str | None] = []
        worker = threading.Thread(
            target=lambda: outcome.append(runner.run_task(str(task.id))), daemon=True
        )
        assert _reset_peak_rss(), (
            "needs Linux /proc/self/clear_refs to measure the peak"
        )
        before = _rss_kib("VmRSS")
        started = time.monotonic()
        worker.start()
        worker.join(timeout=RUN_GUARD_S)
        seconds = time.monotonic() - started
        peak = _rss_kib("VmHWM")
        assert not worker.is_alive(), f"run_task hung against {mode} over {transport}"
    assert len(outcome) == 1, "run_task raised instead of ending the task"
    task = DiagnosisTask.objects.get(pk=task.pk)
    lines = log.read_text().splitlines() if log.exists() else []
    return Run(
        state=outcome[0],
        task=task,
        spans=list(ToolCallSpan.objects.filter(task=task).order_by("started_at")),
        kinds=list(
            TaskEvent.objects.filter(task=task)
            .order_by("seq")
            .values_list("type", flat=True)
        ),
        calls_seen=sum(1 for line in lines if line.startswith("call ")),
        rss_growth_mib=round(max(0, peak - before) / 1024, 1),
        seconds=round(seconds, 2),
    )


# -- what every fault must leave -------------------------------------------------------------------


def _assert_survived(run: Run, *, states: set[str] = TERMINAL) -> None:
    """A terminal state with a final report and its terminal event; no span left open."""
    assert run.state in states and run.task.state == run.state, (
        run.state,
        run.task.report,
    )
    report = run.task.report
    assert report and report.get("partial") is False and report.get("summary"), report
    assert run.kinds[-1] in ("task_completed", "task_failed", "task_timed_out"), (
        run.kinds
    )
    assert all(
        s.ended_at is not None and s.state != SpanState.STARTED for s in run.spans
    )
    assert run.rss_growth_mib < RSS_BOUND_MIB, run.figures()


def _assert_others_called(run: Run) -> None:
    """The healthy server's calls still happened, and ended ok."""
    assert run.runbooks, [(s.server_name, s.tool_name, s.state) for s in run.spans]
    assert all(s.state == SpanState.OK for s in run.runbooks), [
        (s.tool_name, s.state, s.error_code) for s in run.runbooks
    ]


def _assert_failed_spans(run: Run, *, layer: str, codes: set[str]) -> ToolCallSpan:
    """Every metrics span failed at `layer`; the first with one of `codes`. Returns it."""
    assert run.metrics, "the faulty server's tool was never called"
    for span in run.metrics:
        assert span.state in FAILED, (span.state, span.error_code, span.error_message)
        assert span.error_layer == layer, (span.error_layer, span.error_code)
        assert span.error_code, span.error_message
    first = run.metrics[0]
    assert first.error_code in codes, (first.error_code, first.error_message)
    _assert_inconclusive(run)
    # The report says the call failed: an open question or a hypothesis cites it.
    report = run.task.report
    cited = {e["span_id"] for h in report["hypotheses"] for e in h["evidence"]}
    assert first.span_id in cited or any(
        "service_health" in q and "failed" in q for q in report["open_questions"]
    ), report
    # The report does not claim the checkout service healthy or sick on the strength of a
    # call that failed: a hypothesis citing it is about the failing hop, not the service.
    failed_ids = {s.span_id for s in run.metrics}
    for hypothesis in run.task.report["hypotheses"]:
        cited = {e["span_id"] for e in hypothesis["evidence"]}
        if cited & failed_ids and hypothesis["status"] != "ruled_out":
            assert hypothesis["layer"] in (layers.MCP, layers.TOOL_BACKEND), hypothesis
    return first


def _assert_inconclusive(run: Run) -> None:
    """With its only source of service data broken, the report concludes nothing."""
    report = run.task.report
    assert report["conclusive"] is False, report["summary"]
    assert all(h["status"] != "confirmed" for h in report["hypotheses"]), report


def _assert_never_connected(run: Run) -> None:
    """No call went to the server; the report says which server could not be reached."""
    assert run.metrics == [], [(s.tool_name, s.state) for s in run.metrics]
    questions = run.task.report["open_questions"]
    assert any("server metrics could not be reached" in q for q in questions), questions
    _assert_inconclusive(run)


# -- the faults ------------------------------------------------------------------------------------


@pytest.mark.fault(
    "MCP server exits 1 at start (stdio) or is not listening (HTTP)", kind="fault"
)
@BOTH
def test_server_crashing_at_start(transport, tmp_path, settings, reliability_record):
    run = _diagnose(tmp_path, settings, mode="crash_at_start", transport=transport)
    _assert_survived(run, states={"succeeded"})
    _assert_never_connected(run)
    _assert_others_called(run)
    reliability_record(
        observed=f"{transport}: the server was marked unavailable at connect, its tools never "
        "offered to the planner; the report's open questions name it; runbooks still called; "
        f"task {run.state}",
        figures={**run.figures(), "run_s": run.seconds},
    )


@pytest.mark.fault("MCP server process exits during a tools/call", kind="fault")
@BOTH
def test_server_crashing_mid_call(transport, tmp_path, settings, reliability_record):
    run = _diagnose(tmp_path, settings, mode="crash_mid_call", transport=transport)
    _assert_survived(run, states={"succeeded"})
    first = _assert_failed_spans(
        run,
        layer=layers.MCP,
        codes={"connection_lost", "connect_error", "circuit_open"},
    )
    _assert_others_called(run)
    reliability_record(
        observed=f"{transport}: span {first.state}, layer mcp ({first.error_code}); later calls "
        "to the dead server failed fast; runbooks still called; task "
        f"{run.state} with an honest report",
        figures=run.figures(),
    )


@pytest.mark.fault(
    "MCP server never answers a tools/call (call_timeout 2 s)", kind="fault"
)
@BOTH
def test_server_hanging_past_the_call_deadline(
    transport, tmp_path, settings, reliability_record
):
    run = _diagnose(
        tmp_path, settings, mode="hang", transport=transport, call_timeout=2
    )
    _assert_survived(run, states={"succeeded"})
    first = _assert_failed_spans(run, layer=layers.MCP, codes={"timeout"})
    assert (
        first.latency_ms is not None and first.latency_ms >= 2000
    )  # not before its deadline
    _assert_others_called(run)
    reliability_record(
        observed=f"{transport}: span {first.state} at the call's deadline, layer mcp (timeout); "
        f"runbooks still called; task {run.state}",
        figures=run.figures(),
    )


@pytest.mark.fault("MCP server writes non-JSON where its answer belongs", kind="fault")
@BOTH
def test_server_writing_garbage(transport, tmp_path, settings, reliability_record):
    run = _diagnose(tmp_path, settings, mode="garbage", transport=transport)
    _assert_survived(run, states={"succeeded"})
    first = _assert_failed_spans(
        run,
        layer=layers.MCP,
        codes={"malformed_message", "connection_lost", "circuit_open"},
    )
    _assert_others_called(run)
    reliability_record(
        observed=f"{transport}: span {first.state}, layer mcp ({first.error_code}); "
        f"runbooks still called; task {run.state}",
        figures=run.figures(),
    )


@pytest.mark.fault(
    "MCP server answers a 50 MiB result (limit: mcpclient's 4 MiB max message size)",
    kind="limit",
)
@BOTH
def test_server_answering_a_50_mib_result(
    transport, tmp_path, settings, reliability_record
):
    run = _diagnose(tmp_path, settings, mode="huge", transport=transport)
    _assert_survived(run, states={"succeeded"})
    first = _assert_failed_spans(run, layer=layers.MCP, codes={"too_large"})
    assert first.result_size is None and not first.result_preview  # nothing of it kept
    _assert_others_called(run)
    reliability_record(
        observed=f"{transport}: refused by the size limit before it was read whole: span "
        f"{first.state}, layer mcp (too_large); worker peak RSS grew under "
        f"{RSS_BOUND_MIB} MiB for a {HUGE_MIB} MiB answer; task {run.state}",
        figures={**run.figures(), "payload_mib": HUGE_MIB},
    )


@pytest.mark.fault("MCP tool answers isError (its back end is down)", kind="fault")
@BOTH
def test_tool_answering_is_error(transport, tmp_path, settings, reliability_record):
    run = _diagnose(tmp_path, settings, mode="is_error", transport=transport)
    _assert_survived(run, states={"succeeded"})
    first = _assert_failed_spans(run, layer=layers.TOOL_BACKEND, codes={"tool_error"})
    assert "prometheus" in first.error_message
    _assert_others_called(run)
    reliability_record(
        observed=f"{transport}: span error, layer tool_backend (tool_error) with the tool's "
        f"message; runbooks still called; task {run.state}",
        figures=run.figures(),
    )


@pytest.mark.fault(
    "HTTP MCP server answers 401 (at connect, or to tools/call only)", kind="fault"
)
@pytest.mark.parametrize("when", ["connect", "call"])
def test_http_401(when, tmp_path, settings, reliability_record):
    mode = "status_401" if when == "connect" else "status_401_call"
    run = _diagnose(tmp_path, settings, mode=mode, transport="http")
    _assert_survived(run, states={"succeeded"})
    if when == "connect":
        _assert_never_connected(run)
        observed = (
            "at connect: the server was marked unavailable, named in the open questions"
        )
    else:
        first = _assert_failed_spans(run, layer=layers.MCP, codes={"401"})
        assert first.retry_count == 0  # a blind retry cannot fix a credential
        observed = f"on tools/call: span {first.state}, layer mcp (401), not retried"
    _assert_others_called(run)
    reliability_record(
        observed=f"{observed}; runbooks still called; task {run.state}",
        figures=run.figures(),
    )


@pytest.mark.fault("HTTP MCP server answers 429 with Retry-After: 1", kind="fault")
def test_http_429_with_retry_after(tmp_path, settings, reliability_record):
    run = _diagnose(tmp_path, settings, mode="status_429", transport="http")
    _assert_survived(run, states={"succeeded"})
    first = _assert_failed_spans(run, layer=layers.MCP, codes={"429", "circuit_open"})
    # A read-only tool is retried, each wait at least the server's Retry-After.
    assert first.retry_count >= 1 and run.calls_seen >= 2
    assert first.latency_ms is not None and first.latency_ms >= 1000 * first.retry_count
    _assert_others_called(run)
    reliability_record(
        observed=f"span {first.state}, layer mcp (429) after {first.retry_count} retries that "
        f"waited out Retry-After; runbooks still called; task {run.state}",
        figures=run.figures(),
    )


@pytest.mark.fault("HTTP MCP server answers 502 Bad Gateway", kind="fault")
def test_http_502(tmp_path, settings, reliability_record):
    run = _diagnose(tmp_path, settings, mode="status_502", transport="http")
    _assert_survived(run, states={"succeeded"})
    first = _assert_failed_spans(run, layer=layers.MCP, codes={"502", "circuit_open"})
    assert first.retry_count >= 1 and run.calls_seen >= 2  # 502 is retryable for a read
    _assert_others_called(run)
    reliability_record(
        observed=f"span {first.state}, layer mcp (502) after {first.retry_count} retries with "
        f"backoff; runbooks still called; task {run.state}",
        figures=run.figures(),
    )


@pytest.mark.fault(
    "HTTP MCP server closes its SSE answer before the result", kind="fault"
)
def test_http_stream_closed_mid_answer(tmp_path, settings, reliability_record):
    run = _diagnose(tmp_path, settings, mode="drop_mid_answer", transport="http")
    _assert_survived(run, states={"succeeded"})
    first = _assert_failed_spans(
        run, layer=layers.MCP, codes={"connection_lost", "circuit_open"}
    )
    _assert_others_called(run)
    reliability_record(
        observed=f"span {first.state}, layer mcp ({first.error_code}) after "
        f"{first.retry_count} retries; runbooks still called; task {run.state}",
        figures=run.figures(),
    )
