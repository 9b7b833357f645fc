"""One timeline per incident (issue 20 item 4): alerts, diagnosis state changes, tool calls,
approvals, coordination (status, severity, owner, notes) and feedback, each with who and
when, read from the event table of every diagnosis of the incident by one selector.

`incident_timeline` is that selector (the page and GET /api/incidents/{id}/timeline);
`timeline_blocks` folds runs of tool calls for the page. Progress, queued and started calls
and the agents' rounds are left out: a call shows once, when it ended.
"""

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from diagnosis.events import EventKind
from diagnosis.models import Incident, TaskEvent

MAX_ENTRIES = 2000  # events read for one timeline, the newest kept
PREVIEW_CHARS = 160

# Events a timeline leaves out (the call shows at its end; rounds are the trace's business).
_SKIPPED = (
    EventKind.TOOL_PROGRESS,
    EventKind.TOOL_QUEUED,
    EventKind.TOOL_STARTED,
    EventKind.AGENT_STARTED,
    EventKind.AGENT_COMPLETED,
)

# The category of each kind, for the page's marks and filters.
CATEGORY: dict[str, str] = {
    EventKind.ALERT_RECEIVED: "alert",
    EventKind.TOOL_COMPLETED: "tool",
    EventKind.TOOL_FAILED: "tool",
    EventKind.APPROVAL_REQUESTED: "approval",
    EventKind.APPROVAL_DECIDED: "approval",
    EventKind.INCIDENT_STATUS_CHANGED: "status",
    EventKind.INCIDENT_SEVERITY_CHANGED: "severity",
    EventKind.INCIDENT_OWNER_CHANGED: "owner",
    EventKind.INCIDENT_NOTE_ADDED: "note",
    EventKind.FEEDBACK_GIVEN: "feedback",
}

_DIAGNOSIS_TITLES = {
    EventKind.TASK_CREATED: "Diagnosis queued",
    EventKind.TASK_STARTED: "Diagnosis started",
    EventKind.TASK_REQUEUED: "Diagnosis re-queued",
    EventKind.TASK_CANCELLING: "Cancel requested",
    EventKind.TASK_CANCELLED: "Diagnosis cancelled",
    EventKind.TASK_COMPLETED: "Diagnosis succeeded",
    EventKind.TASK_FAILED: "Diagnosis failed",
    EventKind.TASK_TIMED_OUT: "Diagnosis timed out",
}


@dataclass(frozen=True)
class TimelineEntry:
    at: datetime
    category: str  # alert | diagnosis | tool | approval | status | severity | owner | note | feedback
    event: str  # the event kind
    title: str
    who: str  # a username, "token:…", "worker", "alertmanager" …; "" when nobody in particular
    detail: str = ""
    task_id: str = ""
    seq: int = 0
    span_id: str = ""  # tool calls: the trace page's anchor
    state: str = ""  # tool calls: the span's end state

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["at"] = self.at.isoformat()
        return data


@dataclass
class TimelineBlock:
    """One entry, or a run of tool calls folded together (`calls`)."""

    entry: TimelineEntry | None = None
    calls: list[TimelineEntry] = field(default_factory=list)


def _s(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    return "" if value is None else str(value)


def _principal_name(label: str) -> str:
    # A task's principal is "user:<name>" or "token:<prefix>" (principals.Principal.label).
    return label.removeprefix("user:")


def _cut(text: str, limit: int = PREVIEW_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _entry(event: TaskEvent, task_principal: str) -> TimelineEntry:
    kind, data = event.type, event.data if isinstance(event.data, dict) else {}
    base: dict[str, Any] = {
        "at": event.occurred_at,
        "event": kind,
        "task_id": str(event.task_id),
        "seq": event.seq,
        "category": CATEGORY.get(kind, "diagnosis"),
    }
    by = _s(data, "by")
    if _s(data, "by_token"):
        by = f"{by} (token {_s(data, 'by_token')})"
    if kind in _DIAGNOSIS_TITLES:
        title = _DIAGNOSIS_TITLES[EventKind(kind)]
        detail = _s(data, "reason")
        if kind == EventKind.TASK_STARTED and data.get("attempt"):
            title += f" (attempt {data['attempt']})"
        if kind in (EventKind.TASK_FAILED, EventKind.TASK_TIMED_OUT):
            detail = " ".join(
                p for p in (_s(data, "error_layer"), _s(data, "error_code")) if p
            )
        who = _principal_name(task_principal) if kind == EventKind.TASK_CREATED else ""
        if kind == EventKind.TASK_STARTED:
            who = "worker"
        return TimelineEntry(**base, title=title, who=who, detail=detail)
    if kind in (EventKind.TOOL_COMPLETED, EventKind.TOOL_FAILED):
        latency = data.get("latency_ms")
        parts = [_s(data, "state")]
        if isinstance(latency, int | float):
            parts.append(f"{latency:.0f} ms")
        if data.get("error_code"):
            parts.append(_s(data, "error_code"))
        if data.get("preview"):
            parts.append(_cut(_s(data, "preview")))
        return TimelineEntry(
            **base,
            title=f"{_s(data, 'server')}.{_s(data, 'tool')}",
            who=_s(data, "agent"),
            detail=" · ".join(p for p in parts if p),
            span_id=_s(data, "span_id"),
            state=_s(data, "state"),
        )
    if kind == EventKind.APPROVAL_REQUESTED:
        return TimelineEntry(
            **base,
            title=f"Approval asked: {_s(data, 'server')}.{_s(data, 'tool')} on "
            f"{_s(data, 'target')}",
            who="diagnosis",
            detail=_s(data, "why"),
        )
    if kind == EventKind.APPROVAL_DECIDED:
        decision = {"approve": "approved", "deny": "denied"}.get(
            _s(data, "decision"), _s(data, "decision")
        )
        return TimelineEntry(
            **base,
            title=f"Approval {decision}",
            who=_s(data, "decided_by") or "reaper",
            detail=_s(data, "reason"),
        )
    if kind == EventKind.ALERT_RECEIVED:
        names = ", ".join(_s(a, "name") for a in data.get("alerts") or [] if a)
        return TimelineEntry(
            **base,
            title=f"Alerts {_s(data, 'status')}: {data.get('new_alerts', 0)} new, "
            f"{data.get('resolved_alerts', 0)} resolved",
            who=_s(data, "source"),
            detail=_cut(names),
        )
    if kind == EventKind.INCIDENT_STATUS_CHANGED:
        title = f"Status {_s(data, 'previous_status')} → {_s(data, 'status')}"
        return TimelineEntry(**base, title=title, who=by)
    if kind == EventKind.INCIDENT_SEVERITY_CHANGED:
        title = f"Severity {_s(data, 'previous_severity')} → {_s(data, 'severity')}"
        return TimelineEntry(**base, title=title, who=by)
    if kind == EventKind.INCIDENT_OWNER_CHANGED:
        owner = _s(data, "owner")
        title = f"Owner: {owner}" if owner else "Owner removed"
        return TimelineEntry(**base, title=title, who=by)
    if kind == EventKind.INCIDENT_NOTE_ADDED:
        return TimelineEntry(**base, title="Note", who=by, detail=_s(data, "text"))
    if kind == EventKind.FEEDBACK_GIVEN:
        return TimelineEntry(
            **base,
            title=f"Feedback: the diagnosis was {_s(data, 'verdict')}",
            who=by,
            detail=_s(data, "comment"),
        )
    return TimelineEntry(**base, title=kind.replace("_", " "), who="")


def incident_timeline(*, incident: Incident) -> list[TimelineEntry]:
    """The incident's timeline, oldest first: every diagnosis's events but progress, queued
    and started calls and rounds; the newest MAX_ENTRIES of them."""
    rows = list(
        TaskEvent.objects.filter(task__incident=incident)
        .exclude(type__in=_SKIPPED)
        .select_related("task")
        .only("task_id", "seq", "type", "occurred_at", "data", "task__principal")
        .order_by("-occurred_at", "-seq")[:MAX_ENTRIES]
    )
    rows.reverse()
    return [_entry(row, row.task.principal) for row in rows]


def timeline_blocks(entries: Iterable[TimelineEntry]) -> list[TimelineBlock]:
    """The entries with each run of consecutive tool calls folded into one block."""
    blocks: list[TimelineBlock] = []
    for entry in entries:
        if entry.category == "tool":
            if not blocks or not blocks[-1].calls:
                blocks.append(TimelineBlock())
            blocks[-1].calls.append(entry)
        else:
            blocks.append(TimelineBlock(entry=entry))
    return blocks
