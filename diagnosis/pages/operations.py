"""Figures of the operations page, read from the database for one tenant and one window: tool
success and latency per server and tool, error layers, tasks by state, time to the first tool
call, approvals waiting and the 'was this right?' verdicts; and, now, the MCP sessions the
workers' pools hold for the tenant's environments (diagnosis.observability.pool_status)."""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db.models import (
    Aggregate,
    Count,
    DurationField,
    ExpressionWrapper,
    F,
    FloatField,
    Min,
    OuterRef,
    Q,
    Subquery,
)
from django.utils import timezone

from diagnosis import environments, feedback
from diagnosis.models import (
    FAILED_SPAN_STATES,
    Approval,
    ApprovalStatus,
    DiagnosisTask,
    SpanState,
    Tenant,
    ToolCallSpan,
)
from diagnosis.observability import pool_status
from diagnosis.states import TaskState

WINDOWS = {"hour": timedelta(hours=1), "day": timedelta(days=1)}


class Percentile(Aggregate):
    """PostgreSQL's percentile_cont(p) WITHIN GROUP (ORDER BY expression)."""

    function = "percentile_cont"
    template = "%(function)s(%(fraction)s) WITHIN GROUP (ORDER BY %(expressions)s)"

    def __init__(
        self, expression: Any, *, fraction: float, output_field: Any = None
    ) -> None:
        # A literal in the SQL, not a parameter: it is one of our constants, never input.
        super().__init__(
            expression,
            fraction=f"{float(fraction):.4f}",
            output_field=output_field or FloatField(),
        )


@dataclass(frozen=True)
class ToolFigures:
    server: str
    tool: str
    calls: int
    ok: int
    p50_ms: float | None
    p95_ms: float | None

    @property
    def success_percent(self) -> float:
        return round(100 * self.ok / self.calls, 1) if self.calls else 0.0


@dataclass(frozen=True)
class Figures:
    window: str
    since: datetime
    tools: list[ToolFigures]
    error_layers: list[tuple[str, int]]
    tasks_by_state: list[tuple[str, int]]
    first_call_p50_s: float | None
    first_call_p95_s: float | None
    approvals_waiting: int
    feedback: dict[str, int]

    @property
    def calls(self) -> int:
        return sum(t.calls for t in self.tools)

    @property
    def success_percent(self) -> float:
        ok = sum(t.ok for t in self.tools)
        return round(100 * ok / self.calls, 1) if self.calls else 0.0


def operations_figures(
    *, tenant: Tenant, window: str, now: datetime | None = None
) -> Figures:
    """The tenant's figures of the last hour or day (`window` in WINDOWS).

    Raises:
        KeyError: an unknown window.
    """
    now = now or timezone.now()
    since = now - WINDOWS[window]
    spans = ToolCallSpan.objects.filter(tenant=tenant, started_at__gte=since)
    finished = spans.exclude(state=SpanState.STARTED)
    tools = [
        ToolFigures(
            server=row["server_name"],
            tool=row["tool_name"],
            calls=row["calls"],
            ok=row["ok"],
            p50_ms=row["p50"],
            p95_ms=row["p95"],
        )
        for row in finished.values("server_name", "tool_name")
        .annotate(
            calls=Count("id"),
            ok=Count("id", filter=Q(state=SpanState.OK)),
            p50=Percentile("latency_ms", fraction=0.5),
            p95=Percentile("latency_ms", fraction=0.95),
        )
        .order_by("server_name", "tool_name")
    ]
    layers = [
        (row["error_layer"], row["n"])
        for row in finished.filter(state__in=FAILED_SPAN_STATES)
        .exclude(error_layer="")
        .values("error_layer")
        .annotate(n=Count("id"))
        .order_by("-n", "error_layer")
    ]
    tasks = DiagnosisTask.objects.filter(tenant=tenant, created_at__gte=since)
    by_state = dict(
        tasks.values_list("state").annotate(n=Count("id")).values_list("state", "n")
    )
    first_call = (
        ToolCallSpan.objects.filter(task=OuterRef("pk"))
        .order_by()
        .values("task")
        .annotate(first=Min("started_at"))
        .values("first")
    )
    waits = (
        tasks.filter(started_at__isnull=False)
        .annotate(first=Subquery(first_call))
        .filter(first__isnull=False)
        .annotate(
            wait=ExpressionWrapper(
                F("first") - F("started_at"), output_field=DurationField()
            )
        )
        .aggregate(
            p50=Percentile("wait", fraction=0.5, output_field=DurationField()),
            p95=Percentile("wait", fraction=0.95, output_field=DurationField()),
        )
    )
    return Figures(
        window=window,
        since=since,
        tools=tools,
        error_layers=layers,
        tasks_by_state=[(s.value, by_state.get(s.value, 0)) for s in TaskState],
        first_call_p50_s=_seconds(waits["p50"]),
        first_call_p95_s=_seconds(waits["p95"]),
        approvals_waiting=Approval.objects.filter(
            task__tenant=tenant, status=ApprovalStatus.PENDING
        ).count(),
        feedback=feedback.feedback_counts(tenant=tenant, since=since),
    )


@dataclass(frozen=True)
class PooledServer:
    """One MCP session a worker's pool holds (or is starting) for one of the tenant's servers."""

    worker: str
    environment: str
    server: str
    state: str  # starting, in_use, idle, dead
    borrowers: int
    in_flight: int
    pid: int | None
    started_at: datetime | None
    start_ms: float | None
    hits: int
    misses: int
    breaker: str


def pooled_servers(*, tenant: Tenant) -> list[PooledServer]:
    """The workers' pooled sessions of the environments `tenant` may use; a session keyed to
    another tenant (one that carries credentials) is not shown."""
    names = {e.name for e in environments.environments_for(tenant)}
    out = []
    for row in pool_status.pool_status(environments=names):
        if row.get("tenant") not in ("", tenant.slug):
            continue
        started = row.get("started_at")
        out.append(
            PooledServer(
                worker=str(row.get("worker", "")),
                environment=str(row.get("environment", "")),
                server=str(row.get("server", "")),
                state=str(row.get("state", "")),
                borrowers=int(row.get("borrowers") or 0),
                in_flight=int(row.get("in_flight") or 0),
                pid=row.get("pid") if isinstance(row.get("pid"), int) else None,
                started_at=datetime.fromtimestamp(started, tz=UTC)
                if isinstance(started, int | float)
                else None,
                start_ms=row.get("start_ms")
                if isinstance(row.get("start_ms"), int | float)
                else None,
                hits=int(row.get("hits") or 0),
                misses=int(row.get("misses") or 0),
                breaker=str(row.get("breaker", "")),
            )
        )
    return sorted(out, key=lambda p: (p.environment, p.server, p.worker))


def _seconds(value: Any) -> float | None:
    # percentile_cont over an interval answers an interval (a timedelta through psycopg).
    if value is None:
        return None
    if isinstance(value, timedelta):
        return round(value.total_seconds(), 3)
    return round(float(value), 3)


@dataclass(frozen=True)
class BarRow:
    label: str
    value: float
    text: str
    percent: float  # of the chart's width


@dataclass(frozen=True)
class Chart:
    rows: list[BarRow]


def bar_chart(items: list[tuple[str, float, str]]) -> Chart:
    """A horizontal bar chart of (label, value, text) items, scaled to the largest value."""
    top = max((value for _label, value, _text in items), default=0.0)
    return Chart(
        rows=[
            BarRow(
                label=label,
                value=value,
                text=text,
                percent=round(100 * value / top, 2) if top else 0.0,
            )
            for label, value, text in items
        ]
    )
