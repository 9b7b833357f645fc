"""What the investigation page shows of one task: status, verdict and the tool-call log, read
from its rows as one consistent snapshot, plus the event → row rules the page's script repeats.

No HTTP here: views render these dataclasses; every string in them is untrusted and escaped by
the templates.
"""

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from django.utils import timezone

from diagnosis import call_labels, selectors
from diagnosis.events import TERMINAL_EVENTS, EventKind
from diagnosis.models import DiagnosisTask, SpanState, TaskEvent, ToolCallSpan, call_id
from diagnosis.states import TERMINAL

# A planned call that has no span yet (tool_queued without its tool_started).
QUEUED = "queued"
# How a row's state reads in the tool log (the vocabulary: queued, running, done …).
SPAN_STATE_LABELS: dict[str, str] = {
    QUEUED: "queued",
    SpanState.STARTED: "running",
    SpanState.OK: "done",
    SpanState.ERROR: "failed",
    SpanState.REFUSED: "refused",
    SpanState.CANCELLED: "cancelled",
    SpanState.UNKNOWN_OUTCOME: "unknown outcome",
}
HYPOTHESIS_STATUS_LABELS = {
    "confirmed": "confirmed",
    "likely": "likely",
    "ruled_out": "ruled out",
}
# Bounds of what a row carries into the page (the trace view shows everything).
PREVIEW_CHARS = 300
ARGUMENTS_CHARS = 4000


@dataclass(frozen=True)
class Progress:
    progress: float
    total: float | None
    message: str
    task_status: str = ""  # a task-backed call's task status (MCP Tasks extension)

    @property
    def text(self) -> str:
        """The row's progress line: `3/4 message`, or `task working: message` for a task."""
        if self.task_status:
            return f"task {self.task_status}" + (
                f": {self.message}" if self.message else ""
            )
        amount = f"{self.progress:g}" + (
            f"/{self.total:g}" if self.total is not None else ""
        )
        return f"{amount} {self.message}".rstrip()


@dataclass(frozen=True)
class ToolRow:
    span_id: str
    agent: str
    server: str
    tool: str
    state: str
    latency_ms: float | None
    error_layer: str
    error_code: str
    error_message: str
    preview: str
    arguments: str  # redacted arguments as indented JSON
    why: str
    retry_count: int
    attempt: int
    progress: Progress | None
    # The full result went to artifact storage (the row links its download).
    has_artifact: bool = False
    result_size: int | None = None
    # The engine's call id (tool_queued and every later event of the call); "" for older rows.
    call_id: str = ""
    # What the call asked (call_labels.call_label), the trace's label; "" falls back to the tool.
    call_label: str = ""
    # A task-backed call (MCP Tasks extension): its task and each status it went through.
    task_id: str = ""
    task_states: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return self.call_label or f"{self.server}.{self.tool}"

    @property
    def dom_id(self) -> str:
        """The row's element id: by span once the call started, by call while it is queued."""
        return f"tool-{self.span_id}" if self.span_id else f"call-{self.call_id}"

    @property
    def state_label(self) -> str:
        return SPAN_STATE_LABELS.get(self.state, self.state)

    @property
    def is_running(self) -> bool:
        return self.state == SpanState.STARTED


@dataclass(frozen=True)
class AgentGroup:
    agent: str
    rows: list[ToolRow]


@dataclass(frozen=True)
class Evidence:
    span_id: str
    server: str
    tool: str
    fact: str


@dataclass(frozen=True)
class HypothesisCard:
    id: str
    rank: int
    layer: str
    component: str
    statement: str
    confidence: float
    status: str
    causal_chain: list[str]
    evidence: list[Evidence]
    reason_ruled_out: str
    stage: str
    reason: str
    # The evidence the rule fired on (None in reports stored before it was named) and the fix
    # the rule names once the hypothesis is confirmed ("" when none).
    decisive: Evidence | None = None
    remediation: str = ""

    @property
    def ranked_evidence(self) -> list[Evidence]:
        """The evidence, decisive first (else the first cited), each observation once."""
        first = self.decisive or (self.evidence[0] if self.evidence else None)
        if first is None:
            return []
        return [first, *(e for e in self.evidence if e != first)]

    @property
    def confidence_percent(self) -> int:
        return round(self.confidence * 100)

    @property
    def status_label(self) -> str:
        return HYPOTHESIS_STATUS_LABELS.get(self.status, self.status)

    @property
    def component_kind(self) -> str:
        """ "deployment" of a Kubernetes component "deployment/checkout"; "" for a plain one."""
        kind, slash, name = self.component.partition("/")
        return kind if slash and kind and name else ""

    @property
    def component_name(self) -> str:
        return (
            self.component.partition("/")[2] if self.component_kind else self.component
        )

    @property
    def stage_label(self) -> str:
        return self.stage.replace("_", " ")


@dataclass(frozen=True)
class NextStep:
    text: str
    runbook_uri: str
    runbook_title: str


@dataclass(frozen=True)
class Verdict:
    """The report as the page reads it; `cause` is None when the evidence is inconclusive."""

    summary: str
    is_partial: bool
    is_conclusive: bool
    cause: HypothesisCard | None
    hypotheses: list[HypothesisCard]  # ranked, ruled-out ones excluded
    ruled_out: list[HypothesisCard]
    next_steps: list[NextStep]
    open_questions: list[str]
    actions: list[dict[str, str]]
    tool_calls: int

    @property
    def is_empty(self) -> bool:
        return not (self.summary or self.hypotheses or self.ruled_out)


@dataclass(frozen=True)
class Status:
    state: str
    phase: str  # the agent running now, "connecting" while servers start, "" between
    checking: list[str]  # server.tool of the calls in flight
    started_at: datetime | None
    finished_at: datetime | None
    attempt: int
    max_attempts: int

    @property
    def is_finished(self) -> bool:
        return self.state in TERMINAL

    @property
    def state_label(self) -> str:
        return state_label(self.state)

    @property
    def elapsed_text(self) -> str:
        seconds = self.elapsed_seconds()
        return "—" if seconds is None else duration_text(seconds)

    def elapsed_seconds(self, now: datetime | None = None) -> int | None:
        if self.started_at is None:
            return None
        end = self.finished_at or now or timezone.now()
        return max(0, int((end - self.started_at).total_seconds()))


def state_label(state: str) -> str:
    """A task state for people ("waiting_approval" reads "waiting approval"); the script too."""
    return state.replace("_", " ")


def duration_text(seconds: int) -> str:
    """42 s, 3 min 07 s, 1 h 02 min: the page's script formats its ticking clock the same way."""
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


@dataclass(frozen=True)
class Snapshot:
    task: DiagnosisTask
    events: list[TaskEvent]
    last_seq: int  # the stream resumes after this: everything up to it is rendered
    status: Status
    groups: list[AgentGroup]
    verdict: Verdict
    rows_by_span: dict[str, ToolRow] = field(default_factory=dict)


def investigation_snapshot(*, task: DiagnosisTask) -> Snapshot:
    """The task as the page renders it, with the seq its stream resumes after.

    Read order matters: the engine writes a span before the event that announces it (start and
    finish alike), so events are read first and spans after. Spans may then be ahead of the
    events (a row already done whose tool_completed will still stream), never behind; the page
    applies streamed events to rows only forward (started never undoes done).
    """
    events = list(selectors.diagnosis_events_after(task_id=task.id, after_seq=0))
    last_seq = events[-1].seq if events else 0
    task.refresh_from_db()
    spans = list(selectors.task_spans(task=task))
    rows = tool_rows(spans=spans, events=events)
    return Snapshot(
        task=task,
        events=events,
        last_seq=last_seq,
        status=task_status(task=task, events=events, rows=rows),
        groups=group_by_agent(rows),
        # Evidence cites the span_id the trace's anchors use; a report stored before that
        # cited the row id (span_pk), mapped here so its links still reach the row.
        verdict=verdict_from_report(
            task.report, span_ids={str(span.pk): span.span_id for span in spans}
        ),
        rows_by_span={row.span_id: row for row in rows if row.span_id},
    )


def task_status(
    *, task: DiagnosisTask, events: Iterable[TaskEvent], rows: Iterable[ToolRow]
) -> Status:
    """State, the running agent and the calls in flight; nothing runs once the task ended.

    The state is the last move among `events` (what the stream continues from), not the task
    row's, which may already be further on: the stream will bring those moves.
    """
    phase = ""
    state = ""
    connecting: set[str] = (
        set()
    )  # servers announced connecting and not yet ready or failed
    for event in events:
        agent = str(event.data.get("agent") or "")
        if isinstance(event.data.get("to"), str):
            state = event.data["to"]
        if event.type == EventKind.SERVER_STATE:
            server = str(event.data.get("server") or "")
            if event.data.get("state") == "connecting":
                connecting.add(server)
            else:
                connecting.discard(server)
            phase = "connecting" if connecting else ""
        elif event.type == EventKind.AGENT_STARTED:
            phase = agent
        elif (
            event.type == EventKind.AGENT_COMPLETED and agent == phase
        ) or event.type in TERMINAL_EVENTS:
            phase = ""
    state = state or task.state
    is_finished = state in TERMINAL
    return Status(
        state=state,
        phase="" if is_finished else phase,
        checking=[] if is_finished else [row.label for row in rows if row.is_running],
        started_at=task.started_at,
        finished_at=task.finished_at if is_finished else None,
        attempt=task.attempt,
        max_attempts=task.max_attempts,
    )


def tool_rows(
    *, spans: Iterable[ToolCallSpan], events: Iterable[TaskEvent]
) -> list[ToolRow]:
    """One row per call, in the order the events first named it (tool_queued, else its start).

    A span's row replaces its call's queued row (the span's attempt and replay key give its
    call_id), so a span written after the events were read is not shown twice; the script does
    the same when the call's tool_started arrives. A call still queued when its attempt ends
    (task_requeued or a terminal event) never starts: its row reads cancelled, here and in the
    script alike. A span no event has named yet goes last, in start order.
    """
    progress: dict[str, Progress] = {}
    why: dict[str, str] = {}
    first_seen: dict[
        str, int
    ] = {}  # call_id or span_id → seq of the first event naming it
    queued: dict[str, ToolRow] = {}  # by call_id, in tool_queued order
    named: set[str] = set()  # call_ids some later event of the call named
    for event in events:
        data = event.data
        span_id = str(data.get("span_id") or "")
        call = str(data.get("call_id") or "")
        if event.type == EventKind.TOOL_QUEUED and call:
            first_seen.setdefault(call, event.seq)
            queued[call] = _queued_row(data, call)
        elif event.type in (EventKind.TASK_REQUEUED, *TERMINAL_EVENTS):
            for key, row in queued.items():
                if row.state == QUEUED and key not in named:
                    queued[key] = replace(row, state=SpanState.CANCELLED)
        elif span_id:
            first_seen.setdefault(span_id, event.seq)
            named.add(call)
        if event.type == EventKind.TOOL_PROGRESS and span_id:
            progress[span_id] = progress_of(data)
        elif event.type == EventKind.TOOL_STARTED and span_id:
            why[span_id] = str(data.get("why") or "")
    order: list[tuple[int, ToolRow]] = []
    started: set[str] = set()
    for span in spans:
        call = call_id(attempt=span.attempt, replay_key=span.replay_key)
        started.add(call)
        asked = queued.get(call)
        order.append(
            (
                first_seen.get(call, first_seen.get(span.span_id, _UNSEEN)),
                ToolRow(
                    span_id=span.span_id,
                    agent=span.agent,
                    server=span.server_name,
                    tool=span.tool_name,
                    state=span.state,
                    latency_ms=span.latency_ms,
                    error_layer=span.failure_layer,
                    error_code=span.error_code,
                    error_message=span.error_message,
                    preview=call_labels.result_preview(
                        span.result, span.result_preview
                    )[:PREVIEW_CHARS],
                    arguments=arguments_text(span.arguments_redacted),
                    call_label=call_labels.call_label(
                        span.tool_name, span.arguments_redacted
                    ),
                    # A refusal has no tool_started: the reason is the queued one.
                    why=why.get(span.span_id) or (asked.why if asked else ""),
                    retry_count=span.retry_count,
                    attempt=span.attempt,
                    progress=progress.get(span.span_id),
                    has_artifact=bool(span.result_uri),
                    result_size=span.result_size,
                    call_id=call,
                    **_task_of(span.attributes),
                ),
            )
        )
    order.extend(
        (first_seen[call], row) for call, row in queued.items() if call not in started
    )
    # sorted() is stable: unseen spans keep their start order after everything named.
    return [row for _, row in sorted(order, key=lambda item: item[0])]


_UNSEEN = 1 << 62  # after every seq


def _queued_row(data: Mapping[str, Any], call: str) -> ToolRow:
    attempt = data.get("attempt")
    return ToolRow(
        span_id="",
        agent=str(data.get("agent") or ""),
        server=str(data.get("server") or ""),
        tool=str(data.get("tool") or ""),
        state=QUEUED,
        latency_ms=None,
        error_layer="",
        error_code="",
        error_message="",
        preview="",
        arguments=arguments_text(data.get("arguments") or {}),
        why=str(data.get("why") or ""),
        retry_count=0,
        attempt=attempt if isinstance(attempt, int) else 0,
        progress=None,
        call_id=call,
        call_label=str(
            data.get("label")
            or call_labels.call_label(
                str(data.get("tool") or ""), data.get("arguments") or {}
            )
        ),
    )


def _task_of(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """The task fields of a span's row from its attributes (none for a plain call)."""
    task_id = attributes.get("agentops.task.id")
    if not isinstance(task_id, str) or not task_id:
        return {}
    states = attributes.get("agentops.task.states")
    return {
        "task_id": task_id,
        "task_states": tuple(str(state) for state in states)
        if isinstance(states, list)
        else (),
    }


def progress_of(data: Mapping[str, Any]) -> Progress:
    def number(value: Any) -> float | None:
        return (
            float(value)
            if isinstance(value, int | float) and not isinstance(value, bool)
            else None
        )

    return Progress(
        progress=number(data.get("progress")) or 0.0,
        total=number(data.get("total")),
        message=str(data.get("message") or "")[:200],
        task_status=str(data.get("mcp_task_status") or "")[:40],
    )


def arguments_text(arguments: Any) -> str:
    text = json.dumps(arguments, indent=2, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= ARGUMENTS_CHARS else text[:ARGUMENTS_CHARS] + "\n…"


def group_by_agent(rows: Iterable[ToolRow]) -> list[AgentGroup]:
    """Rows grouped by agent, groups in the order their first call started."""
    groups: dict[str, list[ToolRow]] = {}
    for row in rows:
        groups.setdefault(row.agent, []).append(row)
    return [AgentGroup(agent=agent, rows=items) for agent, items in groups.items()]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _card(
    rank: int, raw: Mapping[str, Any], span_ids: Mapping[str, str]
) -> HypothesisCard:
    confidence = raw.get("confidence")
    evidence = raw.get("evidence")
    chain = raw.get("causal_chain")
    return HypothesisCard(
        id=_text(raw.get("id"))
        or f"{_text(raw.get('layer'))}:{_text(raw.get('component'))}",
        rank=rank,
        layer=_text(raw.get("layer")),
        component=_text(raw.get("component")),
        # The test-only timed plan and older reports call it summary.
        statement=_text(raw.get("statement")) or _text(raw.get("summary")),
        confidence=min(1.0, max(0.0, float(confidence)))
        if isinstance(confidence, int | float)
        else 0.0,
        status=_text(raw.get("status")) or "likely",
        causal_chain=[_text(c) for c in chain if _text(c)]
        if isinstance(chain, list)
        else [],
        evidence=[
            found
            for item in evidence
            if (found := _evidence(item, span_ids)) is not None
        ]
        if isinstance(evidence, list)
        else [],
        reason_ruled_out=_text(raw.get("reason_ruled_out")),
        stage=_text(raw.get("stage")),
        reason=_text(raw.get("reason")),
        decisive=_evidence(raw.get("decisive"), span_ids),
        remediation=_text(raw.get("remediation")),
    )


def _evidence(raw: Any, span_ids: Mapping[str, str]) -> Evidence | None:
    if not isinstance(raw, dict):
        return None
    return Evidence(
        span_id=span_ids.get(_text(raw.get("span_id")), _text(raw.get("span_id"))),
        server=_text(raw.get("server")),
        tool=_text(raw.get("tool")),
        fact=_text(raw.get("fact")),
    )


def verdict_from_report(
    report: Any, *, span_ids: Mapping[str, str] | None = None
) -> Verdict:
    """The report's parts the page shows, read defensively (any JSON may be stored).

    `span_ids` maps a span's row id (span_pk) to its span_id, for evidence in a report stored
    before evidence cited the span_id; a span_id passes through unchanged.
    """
    data: Mapping[str, Any] = report if isinstance(report, dict) else {}
    raw = data.get("hypotheses")
    cards = [
        _card(rank, h, span_ids or {})
        for rank, h in enumerate(raw if isinstance(raw, list) else [], start=1)
        if isinstance(h, dict)
    ]
    standing = [c for c in cards if c.status != "ruled_out"]
    is_conclusive = data.get("conclusive") is True
    steps = data.get("next_steps")
    questions = data.get("open_questions")
    actions = data.get("actions")
    calls = data.get("tool_calls")
    return Verdict(
        summary=_text(data.get("summary")),
        is_partial=data.get("partial") is not False,
        is_conclusive=is_conclusive,
        cause=standing[0] if is_conclusive and standing else None,
        hypotheses=standing,
        ruled_out=[c for c in cards if c.status == "ruled_out"],
        next_steps=[
            NextStep(
                text=_text(s.get("text")),
                runbook_uri=_text(s.get("runbook_uri")),
                runbook_title=_text(s.get("runbook_title")),
            )
            for s in (steps if isinstance(steps, list) else [])
            if isinstance(s, dict)
        ],
        open_questions=[
            _text(q) for q in (questions if isinstance(questions, list) else [])
        ],
        actions=[
            {
                key: _text(a.get(key))
                for key in ("server", "tool", "target", "status", "reason", "effect")
            }
            for a in (actions if isinstance(actions, list) else [])
            if isinstance(a, dict)
        ],
        tool_calls=calls if isinstance(calls, int) else 0,
    )
