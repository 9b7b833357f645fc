"""A read-only tool the registry says needs a person (`approval_required`), asked in an
investigation round: the diagnosis parks on the approval, as an action does, and goes on once a
person decides; it never fails with the round's ExceptionGroup."""

import sys
from pathlib import Path

import pytest

from diagnosis import approvals, runner
from diagnosis.models import DiagnosisTask, SpanState, ToolCallSpan
from tests import factories
from tests.diagnosis.engine import support

pytestmark = pytest.mark.django_db(transaction=True)


def _registry(tmp_path: Path) -> Path:
    path = tmp_path / "servers.toml"
    path.write_text(
        "\n".join(
            [
                'default_environment = "guarded"',
                "[environments.guarded]",
                'description = "runbooks behind a person"',
                "[environments.guarded.servers.runbooks]",
                f'command = ["{sys.executable}", "-m", "mcpservers.runbooks"]',
                'approval_required = ["search_runbooks"]',
            ]
        )
        + "\n"
    )
    return path


@pytest.mark.parametrize("approve", [True, False])
def test_a_round_call_that_needs_a_person_parks_the_diagnosis(
    approve, tmp_path, settings
):
    settings.AGENTOPS_SERVERS = str(_registry(tmp_path))
    tenant = factories.make_tenant(f"round-approval-{approve}")
    _, task = support.open_incident(tenant)

    state = runner.run_task(str(task.id))
    assert state is None  # parked on the approval, not failed
    decided = 0
    # Each round's search (the symptoms', then the findings') waits for its own decision.
    while state is None and decided < 5:
        task = DiagnosisTask.objects.get(pk=task.pk)
        (pending,) = task.approvals.filter(status="pending")
        assert pending.tool_name == "search_runbooks"
        approvals.approval_decide(approval=pending, user=None, approve=approve)
        decided += 1
        state = runner.run_task(str(task.id))
    assert state == "succeeded"
    task = DiagnosisTask.objects.get(pk=task.pk)
    assert task.report["tool_calls"] == (decided if approve else 0), task.report
    # A read tool is sent what the planner asked: no idempotency key added to its arguments.
    spans = ToolCallSpan.objects.filter(task=task, tool_name="search_runbooks")
    sent = spans.filter(state=SpanState.OK)
    assert sent.count() == (decided if approve else 0)
    assert all("idempotency_key" not in s.arguments_redacted for s in spans)
