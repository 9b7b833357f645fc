"""A Kubernetes-only scenario folder (kubernetes.json and logs.jsonl, nothing else) diagnosed by the
real runner: its demo environment has only the servers it has data for, over stdio."""

import json
from pathlib import Path

import pytest

from diagnosis import environments, evaluation, runner
from diagnosis.models import DiagnosisTask, SpanState, ToolCallSpan
from diagnosis.registry import demo_environment_name
from reasoning import layers
from tests import factories
from tests.diagnosis.engine import support

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

FOLDERS = Path(__file__).resolve().parent / "kubernetes_scenarios"


@pytest.fixture
def kubernetes_registry(settings, tmp_path):
    path = tmp_path / "servers.toml"
    path.write_text(evaluation.registry_text(FOLDERS))
    settings.AGENTOPS_SERVERS = str(path)
    environments.reset()
    yield
    environments.reset()


def test_a_kubernetes_only_folder_is_diagnosed_with_the_servers_it_has(
    kubernetes_registry,
):
    slug = "cart-store-unschedulable"
    expected = json.loads((FOLDERS / slug / "expected.json").read_text())
    tenant = factories.make_tenant("engine-kubernetes")
    _, task = support.open_demo_incident(tenant, slug)

    assert runner.run_task(str(task.id)) == "succeeded"
    task = DiagnosisTask.objects.get(pk=task.pk)
    assert task.environment == demo_environment_name(slug)
    servers = set(
        ToolCallSpan.objects.filter(task=task).values_list("server_name", flat=True)
    )
    assert servers <= {"kubernetes", "logs", "actions"} and "kubernetes" in servers
    top = task.report["hypotheses"][0]
    assert (
        top["layer"]
        == layers.normalize(expected["root_cause_layer"])
        == layers.PLATFORM
    )
    assert top["component"] in expected["root_cause_component"]
    assert (top["stage"], top["reason"]) == (
        expected["root_cause_stage"],
        expected["root_cause_reason"],
    )
    cited = task.spans.filter(
        span_id__in=[e["span_id"] for e in top["evidence"]], state=SpanState.OK
    )
    assert any(expected["root_cause_signal"] in json.dumps(s.result) for s in cited)
    agents = set(ToolCallSpan.objects.filter(task=task).values_list("agent", flat=True))
    assert "kubernetes" in agents
