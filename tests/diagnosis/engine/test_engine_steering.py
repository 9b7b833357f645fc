"""Steering reaches the planner at its next round, and the connecting phase is announced: the real
runner and engine on the default environment's stdio servers (issue 20 item 9, issue 19 item 5)."""

import asyncio

import pytest

from diagnosis import runner, steering
from diagnosis.engine import planners
from diagnosis.models import DiagnosisTask, TaskEvent, ToolCallSpan
from reasoning.layered import LayeredPlanner
from tests import factories
from tests.diagnosis.engine import support

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

NOTE = "payment-ledger was deployed at 10:02, just before the failures"


class NotingPlanner(LayeredPlanner):
    """The layered planner; while round 0's calls are planned a person adds a note."""

    def __init__(self, task, user):
        super().__init__()
        self.task, self.user, self.seen = task, user, []

    async def next_round(self, investigation):
        self.seen.append((investigation.round, investigation.incident.notes))
        calls = await super().next_round(investigation)
        if investigation.round == 0:
            await asyncio.to_thread(
                steering.steering_note_add, task=self.task, user=self.user, note=NOTE
            )
        return calls


def test_a_note_added_mid_run_reaches_the_next_round_and_changes_what_is_read(
    monkeypatch,
):
    tenant = factories.make_tenant("steer-engine")
    principal = support.responder(tenant)
    _, task = support.open_incident(
        tenant,
        principal=principal,
        title="payment errors",
        service="payment",
        symptoms="customers report failed payments",
    )
    planner = NotingPlanner(DiagnosisTask.objects.get(pk=task.pk), principal.user)
    monkeypatch.setattr(planners, "planner_from_settings", lambda: planner)

    assert runner.run_task(str(task.id)) == "succeeded"

    assert planner.seen[0] == (0, ())
    assert planner.seen[1] == (1, (NOTE,))
    events = list(TaskEvent.objects.filter(task=task).order_by("seq"))
    added = next(e for e in events if e.type == "steering_added")
    read = next(e for e in events if e.type == "steering_read")
    assert added.data["note"] == NOTE and added.data["by"] == principal.user.username
    assert read.seq > added.seq
    assert (read.data["round"], read.data["seq"], read.data["notes"]) == (
        1,
        added.seq,
        1,
    )
    # The note named a service the incident did not: round 1 read it.
    asked = ToolCallSpan.objects.filter(task=task, tool_name="service_health")
    assert "payment-ledger" in {s.arguments_redacted.get("service") for s in asked}

    # The connecting phase: every server announced connecting, then ready (in the background
    # of the run: a call waits only for its own server, issue 19 item 2).
    states = [
        (e.data["server"], e.data["state"]) for e in events if e.type == "server_state"
    ]
    servers = {server for server, _ in states}
    assert servers and all(
        states.index((s, "connecting")) < states.index((s, "ready")) for s in servers
    )
