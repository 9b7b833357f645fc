"""The trace view of one task: its spans on a time axis (a waterfall), the critical path, the
filters of the page and the detail of one span, as plain data for the template."""

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from diagnosis import call_labels
from diagnosis.models import SpanState, ToolCallSpan
from diagnosis.span_attributes import http_layers, span_attributes

FILTERS = ("agent", "server", "tool", "outcome", "layer")
# Icon (beside its text, never alone) of a span's outcome in the waterfall.
OUTCOME_ICONS: dict[str, str] = {
    SpanState.OK: "✓",
    SpanState.STARTED: "…",
    SpanState.ERROR: "⚠",
    SpanState.REFUSED: "⊘",
    SpanState.CANCELLED: "✕",
    SpanState.UNKNOWN_OUTCOME: "?",
}
MIN_BAR_PERCENT = 0.4  # a 1 ms call stays visible on a 30 s axis
DETAIL_JSON_CHARS = 20_000


@dataclass(frozen=True)
class Filters:
    agent: str = ""
    server: str = ""
    tool: str = ""
    outcome: str = ""
    layer: str = ""
    errors_only: bool = False

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> "Filters":
        values = {name: str(query.get(name, ""))[:200] for name in FILTERS}
        return cls(**values, errors_only=query.get("errors") in ("1", "on", "true"))

    def keep(self, span: ToolCallSpan) -> bool:
        return (
            (not self.agent or span.agent == self.agent)
            and (not self.server or span.server_name == self.server)
            and (not self.tool or span.tool_name == self.tool)
            and (not self.outcome or span.state == self.outcome)
            and (not self.layer or span.failure_layer == self.layer)
            and (not self.errors_only or span.state != SpanState.OK)
        )

    @property
    def is_active(self) -> bool:
        return any(getattr(self, name) for name in FILTERS) or self.errors_only


@dataclass(frozen=True)
class Bar:
    span: ToolCallSpan
    offset_percent: float
    width_percent: float
    start_ms: float  # since the first span started
    duration_ms: float | None
    is_critical: bool

    @property
    def icon(self) -> str:
        return OUTCOME_ICONS.get(self.span.state, "•")

    @property
    def label(self) -> str:
        """What the call asked (`get pods -n shop`, `probe https://…`)."""
        return call_labels.call_label(self.span.tool_name, self.span.arguments_redacted)

    @property
    def preview(self) -> str:
        """The result's own summary when it has one, else the stored preview."""
        return call_labels.result_preview(self.span.result, self.span.result_preview)


@dataclass(frozen=True)
class Waterfall:
    bars: list[Bar]
    total_ms: float
    ticks: list[tuple[float, str]]  # (percent, label)
    critical_count: int


def _end(span: ToolCallSpan, now: datetime) -> datetime:
    if span.ended_at is not None:
        return span.ended_at
    if span.latency_ms is not None:
        return span.started_at + timedelta(milliseconds=span.latency_ms)
    return now


def critical_path(spans: Sequence[ToolCallSpan], *, now: datetime) -> set[str]:
    """Span ids of the chain that set the trace's length.

    From the span that ended last, step back to the span that ended last before it started
    (what it waited for: the planner starts a round when the previous one returns), until none.
    """
    if not spans:
        return set()
    ends = {span.span_id: _end(span, now) for span in spans}
    current = max(spans, key=lambda s: (ends[s.span_id], s.started_at))
    path = {current.span_id}
    while True:
        before = [
            s
            for s in spans
            if ends[s.span_id] <= current.started_at and s.span_id not in path
        ]
        if not before:
            return path
        current = max(before, key=lambda s: (ends[s.span_id], s.started_at))
        path.add(current.span_id)


def _label_ms(ms: float) -> str:
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def waterfall(
    spans: Sequence[ToolCallSpan],
    *,
    shown: Iterable[ToolCallSpan] | None = None,
    now: datetime | None = None,
    origin: datetime | None = None,
) -> Waterfall:
    """Bars of `shown` (all spans by default) on the time axis of all `spans`.

    The axis starts at `origin` (the task's start: the time before the first call is the
    planner's), or at the first span when there is none or a span started earlier.
    """
    now = now or timezone.now()
    if not spans:
        return Waterfall(bars=[], total_ms=0.0, ticks=[], critical_count=0)
    start = min(span.started_at for span in spans)
    if origin is not None:
        start = min(start, origin)
    end = max(_end(span, now) for span in spans)
    total_ms = max((end - start).total_seconds() * 1000, 1.0)
    critical = critical_path(spans, now=now)
    bars = []
    for span in spans if shown is None else shown:
        offset = (span.started_at - start).total_seconds() * 1000
        length = (_end(span, now) - span.started_at).total_seconds() * 1000
        offset_percent = min(100.0, 100 * offset / total_ms)
        bars.append(
            Bar(
                span=span,
                offset_percent=round(offset_percent, 3),
                width_percent=round(
                    min(
                        max(100 * length / total_ms, MIN_BAR_PERCENT),
                        100 - offset_percent,
                    ),
                    3,
                ),
                start_ms=round(offset, 1),
                duration_ms=span.latency_ms,
                is_critical=span.span_id in critical,
            )
        )
    ticks = [(p, _label_ms(total_ms * p / 100)) for p in (0.0, 25.0, 50.0, 75.0, 100.0)]
    return Waterfall(
        bars=bars, total_ms=total_ms, ticks=ticks, critical_count=len(critical)
    )


def filter_choices(spans: Iterable[ToolCallSpan]) -> dict[str, list[str]]:
    """The values each filter can take in this trace, sorted."""
    values: dict[str, set[str]] = {name: set() for name in FILTERS}
    for span in spans:
        values["agent"].add(span.agent)
        values["server"].add(span.server_name)
        values["tool"].add(span.tool_name)
        values["outcome"].add(span.state)
        if span.failure_layer:
            values["layer"].add(span.failure_layer)
    return {name: sorted(v for v in found if v) for name, found in values.items()}


def _json(value: Any) -> str:
    text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)
    return text if len(text) <= DETAIL_JSON_CHARS else text[:DETAIL_JSON_CHARS] + "\n…"


# The span's own columns, in the order the detail lists them (arguments, result and the
# OpenTelemetry attributes get sections of their own).
_DETAIL_FIELDS = (
    "span_id",
    "trace_id",
    "parent_span_id",
    "agent",
    "server_name",
    "transport",
    "protocol_version",
    "tool_name",
    "tool_schema_hash",
    "request_id",
    "idempotency_key",
    "arguments_hash",
    "principal",
    "granted_scopes",
    "state",
    "started_at",
    "ended_at",
    "deadline",
    "latency_ms",
    "attempt",
    "retry_count",
    "replay_key",
    "error_layer",
    "error_code",
    "error_message",
    "result_hash",
    "result_size",
    "result_uri",
    "side_effect_id",
)


@dataclass(frozen=True)
class SpanDetail:
    span: ToolCallSpan
    fields: list[tuple[str, str]]
    attributes: list[tuple[str, str]]  # OpenTelemetry names → values
    arguments: str
    result: str  # the redacted result the engine reasoned on, as JSON ("" when none)
    # Where an HTTP call's time went: (layer, ms, slowest) in request order; [] over stdio.
    http_layers: list[tuple[str, float, bool]] = field(default_factory=list)
    http_requests: int = 0
    task_id: str = (
        ""  # a task-backed call's task (Tasks extension) and the states it went through
    )
    task_states: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return call_labels.call_label(self.span.tool_name, self.span.arguments_redacted)

    @property
    def summary(self) -> str:
        """The result's own `summary`, "" when it has none."""
        result = self.span.result
        return (
            call_labels.result_preview(result, "") if isinstance(result, dict) else ""
        )


def span_detail(span: ToolCallSpan) -> SpanDetail:
    def text(value: Any) -> str:
        if value is None or value == "":
            return "—"
        if isinstance(value, datetime):
            return value.isoformat()
        if isinstance(value, list):
            return ", ".join(str(v) for v in value) or "—"
        return str(value)

    attributes = span_attributes(span)
    requests = attributes.get("agentops.http.requests")
    states = attributes.get("agentops.task.states")
    return SpanDetail(
        span=span,
        fields=[(name, text(getattr(span, name))) for name in _DETAIL_FIELDS],
        attributes=sorted((str(k), text(v)) for k, v in attributes.items()),
        arguments=_json(span.arguments_redacted),
        result="" if span.result is None else _json(span.result),
        http_layers=http_layers(attributes),
        http_requests=requests if isinstance(requests, int) else 0,
        task_id=str(attributes.get("agentops.task.id") or ""),
        task_states=[str(state) for state in states]
        if isinstance(states, list)
        else [],
    )
