"""tool_queued: every planned call of a round is announced before any of them starts, and one
call_id follows the call through its events (real scenario servers over stdio, the runner)."""

import pytest

from diagnosis import approvals, runner
from diagnosis.engine import agents
from diagnosis.models import TaskEvent, ToolCallSpan, call_id
from tests import factories
from tests.diagnosis.engine import support

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

ENDED = {"tool_completed", "tool_failed"}


def _events(task):
    return list(TaskEvent.objects.filter(task=task).order_by("seq"))


def _rounds(events):
    """The runs of consecutive tool_queued events: one per round."""
    blocks: list[list[TaskEvent]] = []
    previous = ""
    for event in events:
        if event.type == "tool_queued":
            if previous != "tool_queued":
                blocks.append([])
            blocks[-1].append(event)
        previous = event.type
    return blocks


def test_a_rounds_calls_are_all_queued_before_any_starts_and_keep_one_call_id(
    monkeypatch,
):
    # One call at a time per agent: the others of the round wait for the slot, queued.
    monkeypatch.setattr(agents, "AGENT_CONCURRENCY", 1)
    tenant = factories.make_tenant("queued")
    _, task = support.open_demo_incident(tenant, "tls-expired")
    assert runner.run_task(str(task.id)) == "succeeded"
    events = _events(task)
    position = {event.seq: i for i, event in enumerate(events)}
    rounds = _rounds(events)
    assert rounds and max(len(r) for r in rounds) >= 2  # a round of several calls

    for number, block in enumerate(rounds):
        ids = [e.data["call_id"] for e in block]
        assert len(set(ids)) == len(ids)
        after = events[position[block[-1].seq] + 1 :]
        if number + 1 < len(rounds):
            after = events[
                position[block[-1].seq] + 1 : position[rounds[number + 1][0].seq]
            ]
        # Nothing of the round ran before its last call was queued; all of it ends before
        # the next round is queued.
        before = events[: position[block[0].seq]]
        assert not any(e.data.get("call_id") in ids for e in before)
        for queued in block:
            own = [e for e in after if e.data.get("call_id") == queued.data["call_id"]]
            kinds = [e.type for e in own]
            assert kinds[-1] in ENDED and kinds.count(kinds[-1]) == 1, kinds
            assert set(kinds) <= {"tool_started", "tool_progress", *ENDED}, kinds
            assert kinds[0] == "tool_started" or (
                kinds == ["tool_failed"] and own[0].data["state"] == "refused"
            )
            assert len({e.data["span_id"] for e in own}) == 1
            span = ToolCallSpan.objects.get(task=task, span_id=own[0].data["span_id"])
            # The id is the span's attempt and replay key: a page can match span and row.
            assert queued.data["call_id"] == call_id(
                attempt=span.attempt, replay_key=span.replay_key
            )
            assert (queued.data["server"], queued.data["tool"]) == (
                span.server_name,
                span.tool_name,
            )
            assert queued.data["agent"] == span.agent
            assert queued.data["arguments"] == span.arguments_redacted
            assert queued.data["attempt"] == span.attempt == 1
            assert queued.data["why"] == own[0].data.get("why", queued.data["why"])


def test_calls_a_resumed_attempt_replays_are_not_queued_again():
    tenant = factories.make_tenant("queued-replay")
    _, task = support.open_demo_incident(tenant, "pool-exhaustion")
    assert runner.run_task(str(task.id)) is None  # parked on the restart's approval
    first = _events(task)
    queued_first = [e for e in first if e.type == "tool_queued"]
    assert queued_first
    approvals.approval_decide(
        approval=task.approvals.get(), user=None, approve=False, reason="test"
    )
    assert runner.run_task(str(task.id)) == "succeeded"
    resumed = _events(task)[len(first) :]

    # The rounds the first attempt finished are replayed: no tool_queued, no tool_started.
    started = {e.data["call_id"] for e in resumed if e.type == "tool_started"}
    for event in resumed:
        if event.type == "tool_queued":
            assert event.data["attempt"] == 2
            assert event.data["call_id"] in started or any(
                e.data.get("call_id") == event.data["call_id"] and e.type in ENDED
                for e in resumed
            )
    replayed = {
        span.replay_key for span in ToolCallSpan.objects.filter(task=task, attempt=1)
    }
    assert not any(
        e.data.get("call_id") in {call_id(attempt=2, replay_key=k) for k in replayed}
        for e in resumed
    )
    assert not any(
        e.type == "tool_started"
        and ToolCallSpan.objects.get(task=task, span_id=e.data["span_id"]).replay_key
        in replayed
        for e in resumed
    )
