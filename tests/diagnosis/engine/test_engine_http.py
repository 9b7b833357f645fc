"""The five demo scenarios with every bundled server over Streamable HTTP (not stdio).

The test starts the scenario's live listeners and the servers itself (`--http 127.0.0.1:0`)
and names them in a registry file of its own: the engine then reaches them by URL only.
"""

import json
from pathlib import Path

import pytest

from diagnosis import approvals, runner
from diagnosis.models import DiagnosisTask, SpanState, ToolCallSpan
from diagnosis.registry import DEMO_SERVERS, bundled_scenarios_dir
from mcpservers import scenarios
from reasoning import layers
from tests import factories
from tests.diagnosis.engine import support
from tests.livestack import stop

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

# The network-layer scenarios and one Kubernetes one, every server over Streamable HTTP.
SCENARIOS = (
    "dns-nxdomain",
    "k8s-oomkilled",
    "log-backend-timeout",
    "pool-exhaustion",
    "proxy-idle-timeout",
    "tls-expired",
)


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
    procs = []
    try:
        with scenarios.run_in_thread(scenario) as live:
            args = live.server_args()
            urls = {}
            # The servers the scenario has data for (server_args), and actions.
            for name in (n for n in DEMO_SERVERS if n in args or n == "actions"):
                proc, urls[name] = support.serve_http(
                    f"mcpservers.{name}", args.get(name, []), tmp_path / f"{name}.log"
                )
                procs.append(proc)
            settings.AGENTOPS_SERVERS = str(_registry(tmp_path, urls))
            _, task = support.open_incident(
                tenant,
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
