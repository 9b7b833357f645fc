"""Cancel during a slow tool: the task ends cancelled, and the MCP server saw the cancellation.

The server (tests/diagnosis/engine/servers/slow_health.py) logs "started" when the call arrives
and "cancelled" when the SDK cancels its handler, which is the server's side of the cancel:
notifications/cancelled on stdio and on HTTP up to 2025-11-25, the closed stream at 2026-07-28.
"""

import itertools
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from diagnosis import runner, services
from diagnosis.models import DiagnosisTask, SpanState, TaskEvent, ToolCallSpan
from tests import factories
from tests.diagnosis.engine import support
from tests.livestack import stop, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SERVER = "tests.diagnosis.engine.servers.slow_health"


def _registry(tmp_path: Path, server_table: str) -> Path:
    path = tmp_path / "servers.toml"
    path.write_text(
        'default_environment = "slow"\n'
        "[environments.slow]\n"
        'description = "a metrics server that never answers"\n'
        "[environments.slow.servers.metrics]\n"
        f"{server_table}\n"
        'tools = ["service_health"]\n'
        "call_timeout = 120\n"
    )
    return path


def _lines(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def _cancel_mid_call(log: Path, tenant) -> tuple[DiagnosisTask, float]:
    _, task = support.open_incident(tenant)
    outcome: list[str | None] = []
    worker = threading.Thread(
        target=lambda: outcome.append(runner.run_task(str(task.id)))
    )
    worker.start()
    try:
        wait_for(lambda: "started checkout" in _lines(log), timeout=60, what="the call")
        wait_for(
            lambda: (
                TaskEvent.objects.filter(task=task, type="tool_progress").count() >= 3
            ),
            timeout=30,
            what="progress events",
        )
        asked = time.monotonic()
        services.diagnosis_cancel(task=task)
        worker.join(timeout=30)
        elapsed = time.monotonic() - asked
    finally:
        worker.join(timeout=60)
    assert outcome == ["cancelled"]
    # The handler's cancellation is logged by the server process itself.
    wait_for(
        lambda: "cancelled checkout" in _lines(log),
        timeout=10,
        what="the server to see it",
    )
    return DiagnosisTask.objects.get(pk=task.pk), elapsed


def _assert_cancelled(task: DiagnosisTask) -> None:
    assert task.state == "cancelled"
    span = ToolCallSpan.objects.get(task=task, tool_name="service_health")
    assert span.state == SpanState.CANCELLED and span.ended_at is not None
    kinds = list(TaskEvent.objects.filter(task=task).values_list("type", flat=True))
    assert kinds[-2:] == ["tool_failed", "task_cancelled"]
    # The server sends progress every 20 ms; the engine passes on at most 4 a second.
    progress = list(
        TaskEvent.objects.filter(task=task, type="tool_progress").order_by("seq")
    )
    assert progress and all(e.data["span_id"] == span.span_id for e in progress)
    assert progress[0].data["message"] == "still checking checkout"
    gaps = [
        (b.occurred_at - a.occurred_at).total_seconds()
        for a, b in itertools.pairwise(progress)
    ]
    assert all(gap >= 0.2 for gap in gaps), gaps


def test_cancel_reaches_a_stdio_server_mid_call(tmp_path, settings):
    log = tmp_path / "calls.log"
    settings.AGENTOPS_SERVERS = str(
        _registry(
            tmp_path, f'command = ["{{python}}", "-m", "{SERVER}", "--log", "{log}"]'
        )
    )
    task, elapsed = _cancel_mid_call(log, factories.make_tenant("cancel-stdio"))
    _assert_cancelled(task)
    print(
        f"cancel to cancelled: {elapsed:.3f} s"
    )  # a figure for the notes, not a bound


def test_cancel_reaches_an_http_server_mid_call(tmp_path, settings):
    log = tmp_path / "calls.log"
    server = subprocess.Popen(
        [sys.executable, "-m", SERVER, "--log", str(log), "--http", "127.0.0.1:0"],
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
        assert url is not None, "the server did not say where it listens"
        settings.AGENTOPS_SERVERS = str(
            _registry(tmp_path, f'transport = "http"\nurl = "{url}"')
        )
        task, elapsed = _cancel_mid_call(log, factories.make_tenant("cancel-http"))
    finally:
        stop(server)
    _assert_cancelled(task)
    print(
        f"cancel to cancelled: {elapsed:.3f} s"
    )  # a figure for the notes, not a bound
