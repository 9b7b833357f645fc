"""The steering panel and the connecting phase of the investigation page, read from the task's events.

Steering (issue 20 item 9): each note, excluded hypothesis and corrected service people added,
and the round whose planning read it (`steering_read`). Connecting (issue 19 item 5): the
servers the current attempt waits for, each one's state and time (`server_state`).
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from diagnosis import environments
from diagnosis.events import EventKind
from diagnosis.models import DiagnosisTask, TaskEvent
from diagnosis.principals import Principal
from diagnosis.steering import NOTE_MAX


@dataclass(frozen=True)
class SteeringItem:
    seq: int
    kind: str  # note | exclude | service
    text: str
    statement: str
    by: str
    at: datetime
    carried: bool  # brought forward from an earlier diagnosis of the incident
    read_round: int | None  # the round whose planning read it; None: not read yet


@dataclass(frozen=True)
class ServerRow:
    server: str
    transport: str
    state: str  # connecting | ready | failed
    since: datetime
    elapsed_ms: float | None
    tools: int | None
    error: str

    @property
    def time_text(self) -> str:
        if self.elapsed_ms is None:
            return ""
        if self.elapsed_ms < 1000:
            return f"{self.elapsed_ms:.0f} ms"
        return f"{self.elapsed_ms / 1000:.1f} s"


def steering_items(events: Iterable[TaskEvent]) -> list[SteeringItem]:
    """Each steering_added event, with the round that read it (the first steering_read at or after it)."""
    added: list[TaskEvent] = []
    reads: list[tuple[int, int]] = []  # (seq read up to, round)
    for event in events:
        if event.type == EventKind.STEERING_ADDED:
            added.append(event)
        elif event.type == EventKind.STEERING_READ:
            reads.append(
                (int(event.data.get("seq") or 0), int(event.data.get("round") or 0))
            )
    items = []
    for event in added:
        data = event.data
        read = next((r for upto, r in reads if upto >= event.seq), None)
        if isinstance(data.get("note"), str):
            kind, text = "note", data["note"]
        elif isinstance(data.get("exclude"), str):
            kind, text = "exclude", data["exclude"]
        else:
            kind, text = "service", str(data.get("service") or "")
        items.append(
            SteeringItem(
                seq=event.seq,
                kind=kind,
                text=text,
                statement=str(data.get("statement") or ""),
                by=str(data.get("by") or "someone"),
                at=event.occurred_at,
                carried=bool(data.get("from_task")),
                read_round=read,
            )
        )
    return items


def server_rows(events: Sequence[TaskEvent]) -> list[ServerRow]:
    """The servers of the current attempt (server_state after its last task_started), latest state each."""
    start = max(
        (i for i, e in enumerate(events) if e.type == EventKind.TASK_STARTED),
        default=-1,
    )
    rows: dict[str, ServerRow] = {}
    for event in events[start + 1 :]:
        if event.type != EventKind.SERVER_STATE:
            continue
        data: dict[str, Any] = event.data
        name = str(data.get("server") or "")
        elapsed = data.get("elapsed_ms")
        tools = data.get("tools")
        rows[name] = ServerRow(
            server=name,
            transport=str(data.get("transport") or ""),
            state=str(data.get("state") or ""),
            since=rows[name].since if name in rows else event.occurred_at,
            elapsed_ms=float(elapsed) if isinstance(elapsed, int | float) else None,
            tools=tools if isinstance(tools, int) else None,
            error=str(data.get("error") or ""),
        )
    return list(rows.values())


def panel_context(
    *,
    task: DiagnosisTask,
    events: Sequence[TaskEvent],
    principal: Principal,
    is_finished: bool,
) -> dict[str, Any]:
    """What _steering.html and _connecting.html render."""
    servers = server_rows(events)
    return {
        "steering": steering_items(events),
        "servers": servers,
        "servers_waiting": [s.server for s in servers if s.state == "connecting"],
        "servers_failed": [s.server for s in servers if s.state == "failed"],
        "can_steer": principal.has_scope("incidents:write"),
        "note_max": NOTE_MAX,
        "steer_environments": (
            [env.name for env in environments.environments_for(principal.tenant)]
            if is_finished
            else []
        ),
    }
