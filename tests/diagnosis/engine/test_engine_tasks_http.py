"""A task-backed, slow remote call through the engine (issue 22 items 2 and 4).

The metrics server is the hand-written Tasks server of the mcpclient tests
(tests/mcpclient/servers/tasks_http.py, real Streamable HTTP on 127.0.0.1) with `--delay`: its
service_health answers with a task after holding the tools/call answer before its first byte.
One diagnosis runs in-process; its span says which HTTP layer was slow (time to first byte, not
connect) and which states the task went through, tool_progress events carry the task's status,
the incident page shows the call as one row with its task, and the trace page's span detail
shows the layers with the slowest in bold.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from diagnosis import runner
from diagnosis.models import TaskEvent, ToolCallSpan
from tests import factories
from tests.diagnosis.engine import support
from tests.livestack import stop

pytestmark = pytest.mark.django_db(transaction=True)

SERVER = Path(__file__).parents[2] / "mcpclient" / "servers" / "tasks_http.py"
DELAY = 0.25


@pytest.fixture
def tasks_server():
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--delay", str(DELAY)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.startswith("PORT "), f"server did not start: {line!r}"
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        stop(proc)
        if proc.stdout:
            proc.stdout.close()


def _registry(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "servers.toml"
    path.write_text(
        "\n".join(
            [
                'default_environment = "tasks"',
                "[environments.tasks]",
                'description = "a Tasks-extension metrics server over HTTP"',
                "[environments.tasks.servers.metrics]",
                'transport = "http"',
                f'url = "{url}"',
                'tools = ["service_health"]',
                "call_timeout = 30",
            ]
        )
        + "\n"
    )
    return path


def test_a_task_backed_slow_call_is_one_row_with_its_task_and_layers(
    tasks_server, tmp_path, settings, client
):
    settings.AGENTOPS_SERVERS = str(_registry(tmp_path, tasks_server))
    tenant = factories.make_tenant("tasks-http")
    _, task = support.open_incident(tenant)
    runner.run_task(str(task.id))

    [span] = ToolCallSpan.objects.filter(task=task, tool_name="service_health")
    attrs = span.attributes
    assert span.state == "ok", (span.error_code, span.error_message)
    # The task: its id and each state it went through.
    assert attrs["agentops.task.id"]
    assert attrs["agentops.task.states"] == ["working", "completed"]
    # The slow layer is the server's time to first byte, not connecting.
    assert attrs["agentops.http.slowest"] == "ttfb"
    assert attrs["agentops.http.ttfb_ms"] >= DELAY * 1000 * 0.9
    assert attrs["agentops.http.connect_ms"] < DELAY * 1000 / 2
    assert attrs["agentops.http.requests"] >= 3  # tools/call, then tasks/get polls

    events = list(TaskEvent.objects.filter(task=task).order_by("seq"))
    mine = [e for e in events if e.data.get("span_id") == span.span_id]
    assert [e.type for e in mine].count("tool_started") == 1
    progress = [e.data for e in mine if e.type == "tool_progress"]
    assert progress and progress[0]["mcp_task_status"] == "working"
    assert {p["mcp_task_id"] for p in progress} == {attrs["agentops.task.id"]}
    assert any(p["message"] == "checking checkout" for p in progress)

    client.force_login(factories.make_member(tenant, username="reader").user)
    page = client.get(
        reverse("diagnosis:incident-detail", args=[task.incident_id])
    ).content.decode()
    rows = re.findall(r'<li class="tool-row"[^>]*data-span="([^"]+)"', page)
    assert rows.count(span.span_id) == 1
    assert f"Task <code>{attrs['agentops.task.id']}</code>: working → completed" in page
    trace = client.get(
        reverse("diagnosis:task-trace", args=[task.id]), {"span": span.span_id}
    ).content.decode()
    assert re.search(r'<strong title="the slowest layer">first byte \d+', trace)
    assert "connect " in trace and "TLS " in trace
    assert "working → completed" in trace
