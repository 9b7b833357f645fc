"""Metric back ends: Prometheus' HTTP API (`/api/v1/query_range`) and demo scenario series.

Both return a range query's result as `Series` (labels, timestamps, float values), so the server's
bounds and `service_health` work the same on either.
"""

from __future__ import annotations

import json
import math
import re
from typing import TYPE_CHECKING, Any, Protocol

from mcp.server.mcpserver.exceptions import ToolError

from mcpservers.metrics.promql import Evaluator, PromQLError, Series

if TYPE_CHECKING:
    from pathlib import Path

    import httpx

_METRIC_NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
_LABEL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
_TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}
_MAX_PROMETHEUS_RESPONSE_BYTES = 64 * 1024 * 1024


class ScenarioDataError(Exception):
    """A metrics.json that does not follow the documented format; the message says where."""


class MetricsBackend(Protocol):
    description: str

    async def query_range(
        self, promql: str, *, start: float, end: float, step: float
    ) -> list[Series]: ...


# --- demo scenario series -----------------------------------------------------------------------


def load_metrics_json(path: Path, *, now: float) -> list[Series]:
    """Load a scenario's metrics.json; point offsets (seconds relative to `now`) become Unix seconds.

    Raises:
        ScenarioDataError: unreadable file or a value that breaks the format.
    """
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ScenarioDataError(f"{path}: cannot read: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise ScenarioDataError(
            f"{path}: not JSON: {exc.msg} at line {exc.lineno}"
        ) from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("series"), list):
        raise ScenarioDataError(f'{path}: expected {{"step_s": 15, "series": [...]}}')
    step = doc.get("step_s", 15)
    if not isinstance(step, int | float) or isinstance(step, bool) or step <= 0:
        raise ScenarioDataError(f"{path}: step_s must be a positive number of seconds")
    out = []
    for i, item in enumerate(doc["series"]):
        where = f"{path}: series[{i}]"
        if not isinstance(item, dict):
            raise ScenarioDataError(f"{where}: expected an object")
        name = item.get("name")
        if not isinstance(name, str) or not _METRIC_NAME.match(name):
            raise ScenarioDataError(
                f"{where}: 'name' must be a metric name such as http_requests_total"
            )
        labels = item.get("labels", {})
        if not isinstance(labels, dict) or not all(
            isinstance(k, str) and _LABEL_NAME.match(k) and isinstance(v, str)
            for k, v in labels.items()
        ):
            raise ScenarioDataError(
                f"{where} ({name}): 'labels' must map label names to strings"
            )
        if item.get("type", "untyped") not in _TYPES:
            raise ScenarioDataError(
                f"{where} ({name}): 'type' must be one of {', '.join(sorted(_TYPES))}"
            )
        points = item.get("points")
        if not isinstance(points, list) or not points:
            raise ScenarioDataError(
                f"{where} ({name}): 'points' must be a non-empty list of [offset_s, value]"
            )
        series = Series({"__name__": name, **labels})
        for point in sorted(
            points, key=lambda p: p[0] if isinstance(p, list) and p else 0
        ):
            if (
                not isinstance(point, list)
                or len(point) != 2
                or not all(
                    isinstance(x, int | float) and not isinstance(x, bool)
                    for x in point
                )
                or not math.isfinite(point[0])
            ):
                raise ScenarioDataError(
                    f"{where} ({name}): each point must be [offset_s, value], got {point!r}"
                )
            if series.ts and now + point[0] == series.ts[-1]:
                raise ScenarioDataError(
                    f"{where} ({name}): two points at offset {point[0]}"
                )
            series.ts.append(now + float(point[0]))
            series.values.append(float(point[1]))
        out.append(series)
    return out


class DemoBackend:
    """Evaluates the PromQL subset in `promql.py` over series loaded from a scenario."""

    def __init__(self, series: list[Series], *, source: str) -> None:
        self.evaluator = Evaluator(series)
        self.description = f"demo series from {source} ({len(series)} series)"

    async def query_range(
        self, promql: str, *, start: float, end: float, step: float
    ) -> list[Series]:
        try:
            return self.evaluator.range_query(promql, start=start, end=end, step=step)
        except PromQLError as exc:
            raise ToolError(f"demo back end: {exc}") from exc


# --- Prometheus ---------------------------------------------------------------------------------


class PrometheusBackend:
    """Prometheus' range query API; its own errors (bad PromQL, too many points) are passed on."""

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        timeout: float = 15.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.description = f"Prometheus at {self.url}"
        # A client per tool call, not per server: the SDK runs a server's lifespan once per session
        # (per HTTP client), so a shared client closed there would be dead for the next session.
        self._client_options: dict[str, Any] = {
            "base_url": self.url,
            "headers": headers,
            "timeout": timeout,
            "transport": transport,
        }

    async def query_range(
        self, promql: str, *, start: float, end: float, step: float
    ) -> list[Series]:
        form = {
            "query": promql,
            "start": f"{start:.3f}",
            "end": f"{end:.3f}",
            "step": f"{step:g}",
            "timeout": f"{self.timeout:g}s",
        }
        # httpx (and the CLI extras it imports when present) costs ~0.3 s of CPU: a stdio
        # start must not pay it for a back end that may never be asked.
        import httpx

        try:
            async with (
                httpx.AsyncClient(**self._client_options) as client,
                client.stream("POST", "/api/v1/query_range", data=form) as response,
            ):
                body = bytearray()
                async for chunk in response.aiter_bytes():
                    body.extend(chunk)
                    if len(body) > _MAX_PROMETHEUS_RESPONSE_BYTES:
                        raise ToolError(
                            "Prometheus' answer is larger than 64 MiB; aggregate (sum by) or raise step"
                        )
        except httpx.TimeoutException as exc:
            raise ToolError(
                f"{self.description} did not answer within {self.timeout:g} s; simplify the query"
            ) from exc
        except httpx.TransportError as exc:
            raise ToolError(
                f"cannot reach {self.description}: {type(exc).__name__}: {exc}"
            ) from exc
        try:
            payload: Any = json.loads(body)
        except json.JSONDecodeError as exc:
            raise ToolError(
                f"{self.description} answered HTTP {response.status_code} with something that is not JSON: "
                f"{bytes(body[:200])!r}"
            ) from exc
        if not isinstance(payload, dict):
            raise ToolError(f"{self.description} answered an unexpected shape")
        if payload.get("status") != "success":
            # e.g. errorType bad_data: "parse error at char 5: ..."
            raise ToolError(
                f"Prometheus rejected the query ({payload.get('errorType', response.status_code)}): {payload.get('error', '')}"
            )
        data = payload.get("data") or {}
        if data.get("resultType") != "matrix":
            raise ToolError(
                f"{self.description} answered resultType {data.get('resultType')!r}, expected 'matrix'"
            )
        out = []
        for item in data.get("result", []):
            series = Series(dict(item.get("metric", {})))
            for ts, value in item.get("values", []):
                series.ts.append(float(ts))
                series.values.append(float(value))
            out.append(series)
        return out
