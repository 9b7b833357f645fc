"""Log back ends: Loki's HTTP API (`/loki/api/v1/query_range`) and a JSON-lines file for the demo.

Both answer one question, "the newest `limit` lines of `service` in the window, optionally only the
ones containing `text`, optionally only errors", so the server applies limits and masking once.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from mcp.server.mcpserver.exceptions import ToolError

from mcpservers._common import mask_secrets, parse_time
from mcpservers._common.timewindow import TimeArgumentError

if TYPE_CHECKING:
    from pathlib import Path

    import httpx

    from mcpservers._common import Window

ERROR_LEVELS = frozenset(
    {
        "error",
        "err",
        "fatal",
        "critical",
        "crit",
        "panic",
        "alert",
        "emerg",
        "emergency",
    }
)
WARNING_LEVELS = frozenset({"warn", "warning"})
# Loki gives no level unless a label carries one; infer it from common line shapes.
_LEVEL_IN_LINE = re.compile(
    r"""(?:\blevel"?\s*[=:]\s*"?|\[|^|\s)(TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRITICAL|PANIC)\b""",
    re.IGNORECASE,
)
_MAX_LOKI_RESPONSE_BYTES = 64 * 1024 * 1024
LOKI_MAX_ENTRIES = 5000  # Loki's default limits_config.max_entries_limit_per_query


class ScenarioDataError(Exception):
    """A data file that does not follow the documented format; the message names file and line."""


@dataclass(frozen=True)
class LogRecord:
    ts: float  # Unix seconds
    service: str
    level: str
    message: str
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def is_error(self) -> bool:
        return self.level in ERROR_LEVELS

    @property
    def is_warning(self) -> bool:
        return self.level in WARNING_LEVELS


@dataclass(frozen=True)
class QueryResult:
    records: list[LogRecord]  # newest first
    has_more: bool  # the back end had more matching lines than the limit


class LogBackend(Protocol):
    description: str

    async def query(
        self,
        *,
        service: str,
        text: str,
        window: Window,
        limit: int,
        errors_only: bool,
        warnings: bool = False,
        regex: bool = False,
    ) -> QueryResult:
        """The newest `limit` matching lines; `service` "" is every service; `errors_only` with
        `warnings` keeps error and warning lines; `regex`: `text` is a case-insensitive RE2 pattern."""
        ...


# --- JSON-lines file back end ------------------------------------------------------------------


def load_jsonl(path: Path, *, now: float) -> list[LogRecord]:
    """Load a logs.jsonl file; `offset_s` (seconds relative to `now`) or `ts` gives each line's time.

    Raises:
        ScenarioDataError: unreadable file or a line that breaks the format.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioDataError(f"{path}: cannot read: {exc.strerror}") from exc
    records = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ScenarioDataError(f"{where}: not JSON: {exc.msg}") from exc
        records.append(_record_from(obj, where=where, now=now))
    records.sort(key=lambda r: r.ts)
    return records


def _record_from(obj: Any, *, where: str, now: float) -> LogRecord:
    if not isinstance(obj, dict):
        raise ScenarioDataError(f"{where}: expected a JSON object")
    for key in ("service", "message"):
        if not isinstance(obj.get(key), str) or (key == "service" and not obj[key]):
            raise ScenarioDataError(f"{where}: {key!r} must be a non-empty string")
    level = obj.get("level", "info")
    if not isinstance(level, str):
        raise ScenarioDataError(f"{where}: 'level' must be a string")
    if "offset_s" in obj:
        offset = obj["offset_s"]
        if (
            not isinstance(offset, int | float)
            or isinstance(offset, bool)
            or not math.isfinite(offset)
        ):
            raise ScenarioDataError(
                f"{where}: 'offset_s' must be a number of seconds relative to now"
            )
        ts = now + float(offset)
    elif "ts" in obj:
        try:
            ts = parse_time(obj["ts"], now=now, name="ts")
        except TimeArgumentError as exc:
            raise ScenarioDataError(f"{where}: {exc}") from exc
    else:
        raise ScenarioDataError(
            f"{where}: needs 'offset_s' (seconds relative to now) or 'ts'"
        )
    labels = obj.get("labels", {})
    if not isinstance(labels, dict) or not all(isinstance(k, str) for k in labels):
        raise ScenarioDataError(f"{where}: 'labels' must be an object of string keys")
    return LogRecord(
        ts=ts,
        service=obj["service"],
        level=level.lower(),
        message=obj["message"],
        labels={
            k: v if isinstance(v, str) else json.dumps(v) for k, v in labels.items()
        },
    )


class FileBackend:
    """Lines held in memory, loaded once at start (a demo data set is small)."""

    def __init__(self, records: list[LogRecord], *, source: str) -> None:
        self.records = sorted(records, key=lambda r: r.ts, reverse=True)
        self.services = sorted({r.service for r in records})
        self.source = source
        self.description = f"file {source} ({len(records)} lines)"

    async def query(
        self,
        *,
        service: str,
        text: str,
        window: Window,
        limit: int,
        errors_only: bool,
        warnings: bool = False,
        regex: bool = False,
    ) -> QueryResult:
        if service and service not in self.services:
            # An empty file knows no service: say so rather than end on "known services: ".
            known = ", ".join(self.services) or "none (the log file is empty)"
            raise ToolError(f"no logs for service {service!r}; known services: {known}")
        needle = text.lower()
        pattern = _compiled(text) if regex and text else None
        matched: list[LogRecord] = []
        for record in self.records:
            if (service and record.service != service) or not (
                window.start <= record.ts <= window.end
            ):
                continue
            if errors_only and not (
                record.is_error or (warnings and record.is_warning)
            ):
                continue
            if pattern is not None:
                if not pattern.search(record.message):
                    continue
            elif needle and needle not in record.message.lower():
                continue
            if len(matched) == limit:
                return QueryResult(matched, has_more=True)
            matched.append(record)
        return QueryResult(matched, has_more=False)


def _compiled(text: str) -> re.Pattern[str]:
    """`text` as a case-insensitive pattern; a tool error naming the problem when it is not one."""
    if re.search(r"\(\?<?[=!]|\\[1-9]", text):
        raise ToolError(
            "query: look-around and backreferences are not supported (RE2 syntax)"
        )
    try:
        return re.compile(text, re.IGNORECASE)
    except re.error as exc:
        raise ToolError(f"query is not a regular expression: {exc}") from exc


# --- Loki back end ------------------------------------------------------------------------------


def logql_string(value: str) -> str:
    """Quote `value` as a LogQL double-quoted string literal."""
    return (
        '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    )


def re2_escape(value: str) -> str:
    """Escape RE2 metacharacters (RE2 rejects some of the escapes Python's re.escape emits)."""
    return re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\1", value)


DEFAULT_LOKI_ERROR_FILTER = r'|~ "(?i)\\b(error|err|fatal|panic|critical|exception)\\b"'
# top_errors with warnings: the error words and the warning ones (a custom error filter is not combined).
LOKI_ERROR_OR_WARNING_FILTER = (
    r'|~ "(?i)\\b(error|err|fatal|panic|critical|exception|warn|warning)\\b"'
)


class LokiBackend:
    """Loki's `query_range` with a LogQL stream selector on one service label plus line filters."""

    def __init__(
        self,
        url: str,
        *,
        service_label: str = "service",
        tenant: str | None = None,
        token: str | None = None,
        timeout: float = 10.0,
        error_filter: str = DEFAULT_LOKI_ERROR_FILTER,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        headers = {"Accept": "application/json"}
        if tenant:
            headers["X-Scope-OrgID"] = tenant
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.url = url.rstrip("/")
        self.service_label = service_label
        self.error_filter = error_filter
        self.timeout = timeout
        self.description = f"Loki at {self.url}"
        # A client per tool call, not per server: the SDK runs a server's lifespan once per session
        # (per HTTP client), so a shared client closed there would be dead for the next session.
        self._client_options: dict[str, Any] = {
            "base_url": self.url,
            "headers": headers,
            "timeout": timeout,
            "transport": transport,
        }

    def build_logql(
        self,
        *,
        service: str,
        text: str,
        errors_only: bool,
        warnings: bool = False,
        regex: bool = False,
    ) -> str:
        selector = "=" + logql_string(service) if service else '=~".+"'
        query = "{" + self.service_label + selector + "}"
        if text:
            query += " |~ " + logql_string(
                "(?i)" + (text if regex else re2_escape(text))
            )
        if errors_only and warnings:
            query += " " + LOKI_ERROR_OR_WARNING_FILTER
        elif errors_only:
            query += " " + self.error_filter
        return query

    async def query(
        self,
        *,
        service: str,
        text: str,
        window: Window,
        limit: int,
        errors_only: bool,
        warnings: bool = False,
        regex: bool = False,
    ) -> QueryResult:
        logql = self.build_logql(
            service=service,
            text=text,
            errors_only=errors_only,
            warnings=warnings,
            regex=regex,
        )
        params = {
            "query": logql,
            "start": str(int(window.start * 1e9)),
            "end": str(int(window.end * 1e9)),
            # One more than asked tells "exactly limit" from "more exist", but never above Loki's
            # default max_entries_limit_per_query (5000), which Loki answers with a 400.
            "limit": str(min(limit + 1, LOKI_MAX_ENTRIES)),
            "direction": "backward",
        }
        payload = await self._get_json("/loki/api/v1/query_range", params)
        records = self._records_from(
            payload, service=service, errors_only=errors_only, warnings=warnings
        )
        records.sort(key=lambda r: r.ts, reverse=True)
        # At the cap, a full page means there may be more.
        has_more = len(records) > limit or (
            limit >= LOKI_MAX_ENTRIES and len(records) >= limit
        )
        return QueryResult(records[:limit], has_more=has_more)

    async def _get_json(self, path: str, params: dict[str, str]) -> Any:
        # httpx (and the CLI extras it imports when present) costs ~0.3 s of CPU: a stdio
        # start must not pay it for a back end that may never be asked.
        import httpx

        try:
            async with (
                httpx.AsyncClient(**self._client_options) as client,
                client.stream("GET", path, params=params) as response,
            ):
                body = bytearray()
                async for chunk in response.aiter_bytes():
                    body.extend(chunk)
                    if len(body) > _MAX_LOKI_RESPONSE_BYTES:
                        raise ToolError(
                            f"Loki's answer is larger than {_MAX_LOKI_RESPONSE_BYTES >> 20} MiB; narrow the window or query"
                        )
        except httpx.TimeoutException as exc:
            raise ToolError(
                f"log back end timeout: {self.description} did not answer within {self.timeout:g} s "
                f"({type(exc).__name__}); retry later or narrow the window"
            ) from exc
        except httpx.TransportError as exc:
            raise ToolError(
                f"cannot reach {self.description}: {type(exc).__name__}: {exc}"
            ) from exc
        text = body.decode("utf-8", errors="replace")
        if response.status_code != 200:
            # Loki answers query errors (bad LogQL, limits) with a plain-text reason.
            raise ToolError(
                f"{self.description} answered HTTP {response.status_code}: {mask_secrets(text.strip())[:500]}"
            )
        try:
            payload = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ToolError(
                f"{self.description} answered something that is not JSON: {text[:200]!r}"
            ) from exc
        if not isinstance(payload, dict) or payload.get("status") != "success":
            raise ToolError(
                f"{self.description} reported failure: {mask_secrets(text)[:500]}"
            )
        return payload

    def _records_from(
        self,
        payload: dict[str, Any],
        *,
        service: str,
        errors_only: bool,
        warnings: bool = False,
    ) -> list[LogRecord]:
        data = payload.get("data")
        if (
            not isinstance(data, dict)
            or data.get("resultType") != "streams"
            or not isinstance(data.get("result"), list)
        ):
            raise ToolError(
                f"{self.description} answered an unexpected shape (expected resultType 'streams')"
            )
        records = []
        for stream in data["result"]:
            labels = {str(k): str(v) for k, v in (stream.get("stream") or {}).items()}
            label_level = (
                labels.get("level")
                or labels.get("detected_level")
                or labels.get("severity")
            )
            for entry in stream.get("values") or []:
                ts_ns, line = entry[0], entry[1]
                level = (label_level or _infer_level(line)).lower()
                wanted = ERROR_LEVELS | WARNING_LEVELS if warnings else ERROR_LEVELS
                if errors_only and level not in wanted and level != "unknown":
                    continue  # the line filter matched a word such as "error" in an info line
                records.append(
                    LogRecord(
                        ts=int(ts_ns) / 1e9,
                        service=labels.get(self.service_label, service),
                        level=level,
                        message=line,
                        labels=labels,
                    )
                )
        return records


def _infer_level(line: str) -> str:
    match = _LEVEL_IN_LINE.search(line[:300])
    if not match:
        return "unknown"
    level = match.group(1).lower()
    return {"warn": "warning", "err": "error"}.get(level, level)
