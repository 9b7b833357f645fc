"""The engine run in-process by the real runner: real MCP servers over stdio, the test database."""

import json

import pytest

from diagnosis import approvals, environments, runner, services
from diagnosis.engine import layers
from diagnosis.models import DiagnosisTask, SpanState, TaskEvent, ToolCallSpan
from diagnosis.principals import Principal, role_scopes
from diagnosis.registry import bundled_scenarios_dir, demo_environment_name
from tests import factories

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _responder(tenant):
    member = factories.make_member(tenant, username="responder")
    return Principal(
        user=member.user,
        tenant=tenant,
        role=member.role,
        scopes=role_scopes(member.role),
    )


def _demo_incident(tenant, scenario):
    principal = _responder(tenant)
    fields = environments.demo_incident_fields(
        tenant=tenant, name=demo_environment_name(scenario)
    )
    return services.incident_create(
        tenant=tenant, user=principal.user, principal=principal, **fields
    )


SCENARIOS = sorted(
    p.parent.name for p in bundled_scenarios_dir().glob("*/expected.json")
)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_demo_scenario_top_hypothesis_is_the_root_cause(scenario):
    expected = json.loads(
        (bundled_scenarios_dir() / scenario / "expected.json").read_text()
    )
    tenant = factories.make_tenant("engine")
    _, task = _demo_incident(tenant, scenario)
    state = runner.run_task(str(task.id))
    task = DiagnosisTask.objects.get(pk=task.pk)
    if state is None and task.state == "waiting_approval":
        # The diagnosis proposed a write: deny it, and the resumed run finishes the report.
        approval = task.approvals.get(status="pending")
        approvals.approval_decide(
            approval=approval, user=None, approve=False, reason="test"
        )
        state = runner.run_task(str(task.id))
        task = DiagnosisTask.objects.get(pk=task.pk)
    assert state == "succeeded", task.report
    top = task.report["hypotheses"][0]
    assert top["layer"] == layers.normalize(expected["root_cause_layer"]), task.report
    assert top["component"] in expected["root_cause_component"], task.report
    cited = ToolCallSpan.objects.filter(
        pk__in=[e["span_id"] for e in top["evidence"]], state=SpanState.OK
    )
    assert any(
        expected["root_cause_signal"] in json.dumps(span.result) for span in cited
    ), top["evidence"]
    kinds = list(TaskEvent.objects.filter(task=task).values_list("type", flat=True))
    assert "tool_started" in kinds and kinds[-1] == "task_completed"


def _debug(task):
    import json

    for s in ToolCallSpan.objects.filter(task=task).order_by("started_at"):
        print(
            s.agent,
            s.server_name,
            s.tool_name,
            s.state,
            s.error_layer,
            s.error_code,
            s.error_message[:200],
            s.result_preview[:200],
        )
    print(json.dumps(task.report, indent=1)[:3000])
