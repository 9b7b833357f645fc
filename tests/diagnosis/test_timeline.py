"""One timeline per incident (diagnosis.timeline, issue 20 item 4): every diagnosis's events
in time order with who and when; progress, queued and started calls and rounds left out;
runs of tool calls folded for the page; the page renders it and a viewer reads it."""

import pytest

from diagnosis import approvals, coordination, feedback, lifecycle, timeline
from diagnosis.events import EventKind
from diagnosis.models import Role
from diagnosis.principals import principal_from_user
from diagnosis.states import TaskState
from tests import factories


def _tool(task, n, state="ok", *, owner="worker-1"):
    data = {
        "span_id": f"{n:016x}",
        "call_id": f"c{n}",
        "agent": "kubernetes",
        "server": "kubernetes",
        "tool": "get_resources",
    }
    lifecycle.diagnosis_event_append(
        task_id=task.id,
        kind=EventKind.TOOL_STARTED,
        data={**data, "arguments": {}, "attempt": 1, "why": "survey"},
    )
    lifecycle.diagnosis_event_append(
        task_id=task.id,
        kind=EventKind.TOOL_COMPLETED if state == "ok" else EventKind.TOOL_FAILED,
        data={
            **data,
            "latency_ms": 12.4,
            "error_layer": None,
            "error_code": None if state == "ok" else "refused",
            "retry_count": 0,
            "state": state,
            "preview": "3 pods",
        },
    )


@pytest.fixture
def story(tenant, member):
    """An incident run end to end: calls, an approval denied, status, owner, note, feedback."""
    approver = factories.make_member(tenant, role=Role.APPROVER, username="bea")
    task, approval = factories.make_approval(tenant)  # claimed (started), then parked
    approvals.approval_decide(
        approval=approval, user=approver.user, approve=False, reason="not now"
    )
    task.refresh_from_db()
    lifecycle.diagnosis_claim(task_id=task.id, owner="worker-2")
    _tool(task, 1)
    _tool(task, 2, "error")
    task.refresh_from_db()
    lifecycle.diagnosis_transition(task=task, to=TaskState.SUCCEEDED)
    principal = principal_from_user(member.user)
    incident = task.incident
    coordination.incident_status_change(
        incident=incident, principal=principal, status="acknowledged"
    )
    coordination.incident_owner_set(incident=incident, principal=principal, owner="me")
    coordination.incident_note_add(incident=incident, principal=principal, text="ok")
    task.refresh_from_db()
    feedback.feedback_give(task=task, user=member.user, verdict="right")
    return incident, task


def test_the_timeline_tells_the_incident_in_order_with_who(story):
    incident, _task = story

    entries = timeline.incident_timeline(incident=incident)

    assert [(e.title, e.who) for e in entries] == [
        ("Diagnosis queued", ""),
        ("Diagnosis started (attempt 1)", "worker"),
        (
            "Approval asked: actions.restart_workload on payments-gw",
            "diagnosis",
        ),
        ("Approval denied", "bea"),
        ("Diagnosis re-queued", ""),
        ("Diagnosis started (attempt 2)", "worker"),
        ("kubernetes.get_resources", "kubernetes"),
        ("kubernetes.get_resources", "kubernetes"),
        ("Diagnosis succeeded", ""),
        ("Status triggered → acknowledged", "alice"),
        ("Owner: alice", "alice"),
        ("Note", "alice"),
        ("Feedback: the diagnosis was right", "alice"),
    ]
    assert [e.at for e in entries] == sorted(e.at for e in entries)
    calls = [e for e in entries if e.category == "tool"]
    assert [(c.state, c.span_id) for c in calls] == [
        ("ok", f"{1:016x}"),
        ("error", f"{2:016x}"),
    ]
    assert calls[1].detail == "error · 12 ms · refused · 3 pods"
    assert entries[3].detail == "not now"


def test_runs_of_tool_calls_are_folded_into_one_block(story):
    incident, _task = story

    blocks = timeline.timeline_blocks(timeline.incident_timeline(incident=incident))

    folded = [len(b.calls) for b in blocks if b.entry is None]
    assert folded == [2]
    assert len(blocks) == 13 - 1


def test_the_timeline_spans_every_diagnosis_of_the_incident(tenant, member):
    incident, first = factories.make_incident(tenant)
    first.refresh_from_db()
    lifecycle.diagnosis_transition(task=first, to=TaskState.CANCELLED)
    from diagnosis import services

    second = services.diagnosis_start(incident=incident, user=None, plan="timed")

    entries = timeline.incident_timeline(incident=incident)

    assert [(e.task_id, e.title) for e in entries] == [
        (str(first.id), "Diagnosis queued"),
        (str(first.id), "Diagnosis cancelled"),
        (str(second.id), "Diagnosis queued"),
    ]


def test_the_incident_page_shows_the_timeline_and_the_panel(client, story, member):
    incident, _task = story
    client.force_login(member.user)

    page = client.get(f"/incidents/{incident.id}/").content.decode()

    assert 'id="timeline"' in page and "2 tool calls" in page
    assert "Feedback: the diagnosis was right" in page
    assert 'id="incident-status"' in page and ">acknowledged<" in page
    assert 'id="unassign"' in page  # alice owns it
    assert 'id="status-mitigated"' in page and 'id="status-acknowledged"' not in page
