"""The metrics MCP server: `query_metric` (PromQL range query) and `service_health` (a verdict per service).

Bounds: window ≤ 7 d, ≤ 11,000 points per series (as Prometheus), ≤ 50,000 points per result
(more series are cut, and the result says so).
"""

from __future__ import annotations

import math
import re
import time
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from mcpservers._common import (
    TimeArgumentError,
    format_duration,
    iso,
    parse_duration,
    parse_window,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from mcpservers._common import Window
    from mcpservers.metrics.backends import MetricsBackend
    from mcpservers.metrics.promql import Series

MAX_WINDOW_S = 7 * 86400
MAX_POINTS_PER_SERIES = 11_000
MAX_POINTS_PER_RESULT = 50_000
MAX_QUERY_CHARS = 4000
_SERVICE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$")
_READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)

# Verdict thresholds: (warning, critical).
ERROR_RATIO = (0.01, 0.05)
P99_SECONDS = (1.0, 5.0)
POOL_UTILIZATION = (0.75, 0.95)
CLOSE_WAIT_GROWTH = 20  # CLOSE_WAIT sockets gained over the window that count as a leak


def health_queries(service: str) -> dict[str, str]:
    """The PromQL behind `service_health`, also returned so a caller can drill in with `query_metric`."""
    s = f'service="{service}"'
    return {
        "errors_per_s": f'sum(rate(http_requests_total{{{s},code=~"5.."}}[5m]))',
        "requests_per_s": f"sum(rate(http_requests_total{{{s}}}[5m]))",
        "p99_latency_s": f"histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket{{{s}}}[5m])))",
        "db_pool_in_use": f"max(db_pool_in_use{{{s}}})",
        "db_pool_max": f"max(db_pool_max{{{s}}})",
        "open_connections": f"max(process_open_connections{{{s}}})",
        "tcp_close_wait": f"max(tcp_close_wait{{{s}}})",
    }


def build_server(
    backend: MetricsBackend, *, clock: Callable[[], float] = time.time
) -> MCPServer[Any]:
    """The metrics server bound to one back end; `clock` gives "now" for relative times."""

    server: MCPServer[Any] = MCPServer(
        "mcpservers-metrics",
        version="0.1.0",
        instructions=(
            f"Read-only metrics ({backend.description}). Times are RFC 3339, Unix seconds or relative "
            f'("now-1h"); step is a duration ("30s"). At most {MAX_POINTS_PER_SERIES} points per series.'
        ),
        log_level="WARNING",
    )

    @server.tool(annotations=_READ_ONLY)
    async def query_metric(
        promql: Annotated[
            str,
            Field(
                description="PromQL expression, e.g. sum by (code) (rate(http_requests_total[5m]))."
            ),
        ],
        start: Annotated[
            str, Field(description='Range start: RFC 3339, Unix seconds, or "now-1h".')
        ] = "now-1h",
        end: Annotated[
            str, Field(description='Range end, same formats; default "now".')
        ] = "now",
        step: Annotated[
            str, Field(description='Resolution, e.g. "15s", "1m"; default "60s".')
        ] = "60s",
    ) -> dict[str, Any]:
        """Run a PromQL range query; values come back as [unix_seconds, "value"] pairs like Prometheus' API."""
        if not promql.strip():
            raise ToolError(
                "promql is empty; give an expression such as rate(http_requests_total[5m])"
            )
        if len(promql) > MAX_QUERY_CHARS:
            raise ToolError(
                f"promql is {len(promql)} characters; the limit is {MAX_QUERY_CHARS}"
            )
        window, step_s = _window_and_step(start, end, step, clock())
        series = await backend.query_range(
            promql, start=window.start, end=window.end, step=step_s
        )
        total = 0
        kept = []
        for s in series:
            if total + len(s.ts) > MAX_POINTS_PER_RESULT:
                break
            total += len(s.ts)
            kept.append(
                {
                    "metric": s.labels,
                    "values": [
                        [round(t, 3), _format(v)]
                        for t, v in zip(s.ts, s.values, strict=True)
                    ],
                }
            )
        notes = []
        if len(kept) < len(series):
            notes.append(
                f"cut to {len(kept)} of {len(series)} series ({MAX_POINTS_PER_RESULT} points); "
                "aggregate with sum by (...) or raise step"
            )
        return {
            "promql": promql,
            "window": window.as_dict(),
            "step_s": step_s,
            "result_type": "matrix",
            "series": kept,
            "points": total,
            "truncated": len(kept) < len(series),
            "notes": notes,
        }

    @server.tool(annotations=_READ_ONLY)
    async def service_health(
        service: Annotated[
            str,
            Field(description="Service name as in the service label, e.g. 'checkout'."),
        ],
        start: Annotated[
            str, Field(description='Window start; default "now-1h".')
        ] = "now-1h",
        end: Annotated[str, Field(description='Window end; default "now".')] = "now",
    ) -> dict[str, Any]:
        """Error ratio, p99 latency and saturation (DB pool, connections, CLOSE_WAIT) of one service, with a verdict."""
        if not _SERVICE.match(service):
            raise ToolError(
                f"service {service!r} is not a valid service name (letters, digits and _ . : / -, at most 128 characters)"
            )
        window, _ = _window_and_step(start, end, "60s", clock())
        # About 60 points whatever the window, never finer than 15 s.
        step_s = max(15.0, math.ceil(window.seconds / 60))
        queries = health_queries(service)
        data = {}
        for key, promql in queries.items():
            data[key] = _single(
                await backend.query_range(
                    promql, start=window.start, end=window.end, step=step_s
                )
            )
        return assess(service, window, data, queries)

    return server


def _window_and_step(
    start: str, end: str, step: str, now: float
) -> tuple[Window, float]:
    try:
        window = parse_window(start, end, now=now, max_seconds=MAX_WINDOW_S)
        step_s = parse_duration(step, name="step")
    except TimeArgumentError as exc:
        raise ToolError(str(exc)) from exc
    points = math.floor(window.seconds / step_s) + 1
    if points > MAX_POINTS_PER_SERIES:
        smallest = math.ceil(window.seconds / (MAX_POINTS_PER_SERIES - 1))
        raise ToolError(
            f"{points} points per series is more than {MAX_POINTS_PER_SERIES}; "
            f"raise step to at least {format_duration(smallest)} or narrow the window"
        )
    return window, step_s


def _format(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return f"{value:.6g}"


def _single(series: list[Series]) -> dict[float, float]:
    """timestamp → value of a query that aggregates to one series (empty when there is no data)."""
    if not series:
        return {}
    return {
        t: v
        for t, v in zip(series[0].ts, series[0].values, strict=True)
        if not math.isnan(v)
    }


def _ratio(num: dict[float, float], den: dict[float, float]) -> dict[float, float]:
    # No 5xx series at all means no errors, not no data, as long as there is traffic.
    return {t: (num.get(t, 0.0) / d) for t, d in den.items() if d > 0}


def _summary(points: dict[float, float]) -> dict[str, Any] | None:
    if not points:
        return None
    times = sorted(points)
    peak_t = max(times, key=lambda t: points[t])
    return {
        "current": round(points[times[-1]], 6),
        "start": round(points[times[0]], 6),
        "peak": round(points[peak_t], 6),
        "peak_at": iso(peak_t),
    }


def _since(points: dict[float, float], threshold: float) -> str | None:
    """Start of the latest run of points at or above threshold that lasts to the end of the window."""
    since = None
    for t in sorted(points):
        since = (since or t) if points[t] >= threshold else None
    return iso(since) if since is not None else None


def _grade(value: float, thresholds: tuple[float, float]) -> str:
    if value >= thresholds[1]:
        return "critical"
    return "warning" if value >= thresholds[0] else "ok"


def assess(
    service: str,
    window: Window,
    data: dict[str, dict[float, float]],
    queries: dict[str, str],
) -> dict[str, Any]:
    """Turn the health series into signals, findings and a one-line verdict."""
    error_ratio = _ratio(data["errors_per_s"], data["requests_per_s"])
    pool = _ratio(data["db_pool_in_use"], data["db_pool_max"])
    findings: list[dict[str, str]] = []

    def judge(
        name: str,
        points: dict[float, float],
        thresholds: tuple[float, float],
        describe: Callable[[float], str],
    ) -> None:
        if not points:
            return
        current = points[max(points)]
        grade = _grade(current, thresholds)
        peak = max(points.values())
        if grade == "ok" and _grade(peak, thresholds) != "ok":
            findings.append(
                {
                    "signal": name,
                    "severity": "info",
                    "detail": f"{describe(peak)} at peak, {describe(current)} now",
                }
            )
        elif grade != "ok":
            since = _since(points, thresholds[0])
            findings.append(
                {
                    "signal": name,
                    "severity": grade,
                    "detail": f"{describe(current)}"
                    + (f" since {since}" if since else ""),
                }
            )

    judge("error_ratio", error_ratio, ERROR_RATIO, lambda v: f"error ratio {v:.1%}")
    judge(
        "p99_latency_s",
        data["p99_latency_s"],
        P99_SECONDS,
        lambda v: f"p99 latency {v:.2f} s",
    )
    judge(
        "db_pool_utilization",
        pool,
        POOL_UTILIZATION,
        lambda v: f"DB pool {v:.0%} in use",
    )
    close_wait = data["tcp_close_wait"]
    if close_wait:
        times = sorted(close_wait)
        growth = close_wait[times[-1]] - close_wait[times[0]]
        if growth >= CLOSE_WAIT_GROWTH:
            findings.append(
                {
                    "signal": "tcp_close_wait",
                    "severity": "warning",
                    "detail": f"CLOSE_WAIT sockets grew from {close_wait[times[0]]:.0f} to {close_wait[times[-1]]:.0f} "
                    "(peer closed, the process did not: a connection leak)",
                }
            )
    has_data = any(data.values())
    severities = {f["severity"] for f in findings}
    if not has_data:
        verdict = "unknown"
        summary = f"no data for service {service!r} in this window; check the service label value and the window"
    elif "critical" in severities:
        verdict = "unhealthy"
    elif "warning" in severities:
        verdict = "degraded"
    else:
        verdict = "healthy"
    if has_data:
        order = {"critical": 0, "warning": 1, "info": 2}
        worst = sorted(findings, key=lambda f: order[f["severity"]])
        summary = f"{verdict}: " + (
            "; ".join(f["detail"] for f in worst if f["severity"] != "info")
            or "all signals within thresholds"
        )
    return {
        "service": service,
        "window": window.as_dict(),
        "verdict": verdict,
        "summary": summary,
        "findings": findings,
        "signals": {
            "error_ratio": _summary(error_ratio),
            "requests_per_s": _summary(data["requests_per_s"]),
            "p99_latency_s": _summary(data["p99_latency_s"]),
            "db_pool_utilization": _summary(pool),
            "open_connections": _summary(data["open_connections"]),
            "tcp_close_wait": _summary(close_wait),
        },
        "thresholds": {
            "error_ratio": {"warning": ERROR_RATIO[0], "critical": ERROR_RATIO[1]},
            "p99_latency_s": {"warning": P99_SECONDS[0], "critical": P99_SECONDS[1]},
            "db_pool_utilization": {
                "warning": POOL_UTILIZATION[0],
                "critical": POOL_UTILIZATION[1],
            },
            "tcp_close_wait_growth": CLOSE_WAIT_GROWTH,
        },
        "queries": queries,
    }
