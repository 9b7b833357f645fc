"""The five demo scenarios with every bundled server over Streamable HTTP (not stdio).

The test starts the scenario's live listeners and the servers itself (`--http 127.0.0.1:0`)
and names them in a registry file of its own: the engine then reaches them by URL only.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from diagnosis import approvals, runner, services
from diagnosis.engine import layers
from diagnosis.models import DiagnosisTask, SpanState, ToolCallSpan
from diagnosis.principals import Principal, role_scopes
from diagnosis.registry import DEMO_SERVERS, bundled_scenarios_dir
from mcpservers import scenarios
from tests import factories
from tests.livestack import stop, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SCENARIOS = sorted(
    p.parent.name for p in bundled_scenarios_dir().glob("*/expected.json")
)
_URL = re.compile(r"serving Streamable HTTP on (http://127\.0\.0\.1:\d+/mcp)")


def _serve(name: str, args: list[str], log: Path) -> tuple[subprocess.Popen, str]:
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                f"mcpservers.{name}",
                *args,
                "--http",
                "127.0.0.1:0",
            ],
            stdout=subprocess.DEVNULL,
            stderr=out,
            start_new_session=True,
        )
    found = wait_for(
        lambda: _URL.search(log.read_text(errors="replace")) or proc.poll() is not None,
        timeout=60,
        what=f"{name} to listen",
    )
    assert proc.poll() is None, log.read_text()
    return proc, found[1]


def _registry(tmp_path: Path, urls: dict[str, str]) -> Path:
    lines = [
        'default_environment = "http-demo"',
        "[environments.http-demo]",
        'description = "HTTP"',
    ]
    for name, url in urls.items():
        lines += [
            f"[environments.http-demo.servers.{name}]",
            'transport = "http"',
            f'url = "{url}"',
        ]
        if name == "actions":
            lines.append('approval_required = ["restart_workload", "scale_workload"]')
    path = tmp_path / "servers.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_demo_scenario_over_streamable_http(scenario, tmp_path, settings):
    expected = json.loads(
        (bundled_scenarios_dir() / scenario / "expected.json").read_text()
    )
    incident = json.loads(
        (bundled_scenarios_dir() / scenario / "incident.json").read_text()
    )
    tenant = factories.make_tenant("engine-http")
    member = factories.make_member(tenant, username="responder")
    principal = Principal(
        user=member.user,
        tenant=tenant,
        role=member.role,
        scopes=role_scopes(member.role),
    )
    procs = []
    try:
        with scenarios.run_in_thread(scenario) as live:
            args = live.server_args()
            urls = {}
            for name in DEMO_SERVERS:
                proc, urls[name] = _serve(
                    name, args.get(name, []), tmp_path / f"{name}.log"
                )
                procs.append(proc)
            settings.AGENTOPS_SERVERS = str(_registry(tmp_path, urls))
            _, task = services.incident_create(
                tenant=tenant,
                user=member.user,
                principal=principal,
                title=incident["title"],
                service=incident["service"],
                severity=incident["severity"],
                symptoms="\n".join(incident["symptoms"]),
            )
            state = runner.run_task(str(task.id))
            if (
                state is None
            ):  # parked on a proposed restart: deny it, the run then ends
                approval = DiagnosisTask.objects.get(pk=task.pk).approvals.get()
                approvals.approval_decide(approval=approval, user=None, approve=False)
                state = runner.run_task(str(task.id))
    finally:
        for proc in procs:
            stop(proc)
    task = DiagnosisTask.objects.get(pk=task.pk)
    assert state == "succeeded", task.report
    top = task.report["hypotheses"][0]
    assert top["layer"] == layers.normalize(expected["root_cause_layer"]), task.report
    assert top["component"] in expected["root_cause_component"], task.report
    spans = ToolCallSpan.objects.filter(task=task, state=SpanState.OK)
    assert spans.exists() and all(s.transport == "http" for s in spans)
    attrs = spans.first().attributes
    assert (
        attrs["network.transport"] == "tcp" and attrs["server.address"] == "127.0.0.1"
    )
    assert attrs["gen_ai.operation.name"] == "execute_tool"
