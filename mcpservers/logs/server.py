"""The logs MCP server: `search_logs` and `top_errors` over one back end, with hard limits and masking.

`search_logs` with no service searches every service; `top_errors` can group warnings apart from
errors and count each pattern in a baseline before the window (is it new since then?).

Limits (enforced here, whatever the back end): window ≤ 6 h, limit ≤ 5000 lines, result text ≤ 1 MiB
(cut, and the result says so), each line ≤ 16 KiB, secrets masked in lines and labels.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from typing import TYPE_CHECKING, Annotated, Any

import pydantic_core
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from mcpservers._common import (
    TimeArgumentError,
    Window,
    iso,
    mask_secrets,
    parse_window,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from mcpservers.logs.backends import LogBackend, LogRecord

MAX_WINDOW_S = 6 * 3600
MAX_LIMIT = 5000
MAX_RESULT_BYTES = 1024 * 1024
MAX_LINE_CHARS = 16 * 1024
TOP_ERRORS = 10
# Groups when every service is read at once: room for a quiet service beside the loud ones.
TOP_ERRORS_EVERY = 30
_SERVICE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$")

_READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)

# Parts of a message that vary between occurrences of the same error, replaced to group them.
_SIGNATURE_RULES = (
    (
        re.compile(
            r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
            re.IGNORECASE,
        ),
        "<uuid>",
    ),
    (re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"), "<ip>"),
    (re.compile(r"\b\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:?\d\d)?"), "<time>"),
    (re.compile(r"\b(?=[0-9a-f]*\d)[0-9a-f]{8,}\b", re.IGNORECASE), "<hex>"),
    (
        re.compile(r"\b\d+(?:\.\d+)?(?:ms|s|us|ns|m|h|b|kb|mb|gb|%)?\b", re.IGNORECASE),
        "<n>",
    ),
)


def build_server(
    backend: LogBackend, *, clock: Callable[[], float] = time.time
) -> MCPServer[Any]:
    """The logs server bound to one back end; `clock` gives "now" for relative times."""

    server: MCPServer[Any] = MCPServer(
        "mcpservers-logs",
        version="0.1.0",
        instructions=(
            f"Read-only log search ({backend.description}). Times are RFC 3339, Unix seconds or relative "
            f'("now-15m"). Limits: window ≤ 6h, limit ≤ {MAX_LIMIT} lines, result ≤ 1 MiB; secrets are masked.'
        ),
        log_level="WARNING",
    )

    @server.tool(annotations=_READ_ONLY)
    async def search_logs(
        service: Annotated[
            str,
            Field(
                description="Service name, e.g. 'checkout'; empty for every service."
            ),
        ] = "",
        query: Annotated[
            str,
            Field(
                description="Case-insensitive text the line must contain; empty for all lines.",
                max_length=500,
            ),
        ] = "",
        start: Annotated[
            str, Field(description='Window start: RFC 3339, Unix seconds, or "now-1h".')
        ] = "now-1h",
        end: Annotated[
            str, Field(description='Window end, same formats; default "now".')
        ] = "now",
        limit: Annotated[
            int,
            Field(
                description=f"Most lines to return, newest first (1..{MAX_LIMIT}).",
                ge=1,
                le=MAX_LIMIT,
            ),
        ] = 200,
        regex: Annotated[  # noqa: FBT002 (an MCP tool's arguments come by name)
            bool,
            Field(
                description="The query is a case-insensitive regular expression (RE2 syntax: "
                "no look-around, no backreferences)."
            ),
        ] = False,
    ) -> dict[str, Any]:
        """Search one service's (or every service's) log lines in a time window (at most 6 h), newest first, secrets masked."""
        window = _window(start, end, clock())
        if service:
            _check_service(service)
        result = await backend.query(
            service=service,
            text=query,
            window=window,
            limit=limit,
            errors_only=False,
            regex=regex,
        )
        notes = []
        if result.has_more:
            notes.append(
                f"more than {limit} lines match; narrow the window or the query, or raise limit (max {MAX_LIMIT})"
            )
        response: dict[str, Any] = {
            "service": service,
            "query": query,
            "window": window.as_dict(),
            "lines": [_line(r, with_service=not service) for r in result.records],
            "truncated": result.has_more,
            "notes": notes,
        }
        return _fit(response)

    @server.tool(annotations=_READ_ONLY)
    async def top_errors(
        service: Annotated[
            str,
            Field(
                description="Service name, e.g. 'checkout'; empty for every service (each "
                "group then names its service)."
            ),
        ] = "",
        start: Annotated[
            str, Field(description='Window start: RFC 3339, Unix seconds, or "now-1h".')
        ] = "now-1h",
        end: Annotated[
            str, Field(description='Window end, same formats; default "now".')
        ] = "now",
        warnings: Annotated[  # noqa: FBT002 (an MCP tool's arguments come by name)
            bool,
            Field(
                description="Also group the warning lines, apart from the errors (in 'warnings')."
            ),
        ] = False,
        baseline_s: Annotated[
            int,
            Field(
                description="Count each pattern in the baseline of this many seconds before start "
                "('before'; 0: no baseline): 0 before means it is new in the window.",
                ge=0,
                le=MAX_WINDOW_S,
            ),
        ] = 0,
    ) -> dict[str, Any]:
        """Group one service's (or every service's) error lines (and, asked, its warnings) in a window (at most 6 h) by message pattern, most frequent first."""
        window = _window(start, end, clock())
        if service:
            _check_service(service)
        result = await backend.query(
            service=service,
            text="",
            window=window,
            limit=MAX_LIMIT,
            errors_only=True,
            warnings=warnings,
        )
        before: Counter[str] | None = None
        if baseline_s:
            earlier = await backend.query(
                service=service,
                text="",
                window=Window(window.start - baseline_s, window.start),
                limit=MAX_LIMIT,
                errors_only=True,
                warnings=warnings,
            )
            before = Counter(_key(r, every=not service) for r in earlier.records)
        errors = [r for r in result.records if not r.is_warning]
        notes = []
        if result.has_more:
            notes.append(
                f"more than {MAX_LIMIT} error lines; only the newest {MAX_LIMIT} were grouped"
            )
        response: dict[str, Any] = {
            "service": service,
            "window": window.as_dict(),
            "error_lines": len(errors),
            "patterns": len({_key(r, every=not service) for r in errors}),
            "top": _grouped(errors, before, every=not service),
            "truncated": result.has_more,
            "notes": notes,
        }
        if warnings:
            warned = [r for r in result.records if r.is_warning]
            response["warning_lines"] = len(warned)
            response["warnings"] = _grouped(warned, before, every=not service)
        if before is not None:
            response["baseline"] = Window(
                window.start - baseline_s, window.start
            ).as_dict()
        return response

    return server


def _key(record: LogRecord, *, every: bool) -> str:
    """The group a record falls in: its signature, prefixed by its service when every service is grouped."""
    signature = error_signature(record.message)
    return f"{record.service}\0{signature}" if every else signature


def _grouped(
    records: list[LogRecord], before: Counter[str] | None, *, every: bool = False
) -> list[dict[str, Any]]:
    """The records grouped by signature (by service and signature when `every` service was read),
    most frequent first; with a baseline, each group's count there."""
    groups: dict[str, list[LogRecord]] = {}
    for record in records:
        groups.setdefault(_key(record, every=every), []).append(record)
    ranked = sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))
    top = []
    for key, group in ranked[: TOP_ERRORS_EVERY if every else TOP_ERRORS]:
        signature = key.rpartition("\0")[2]
        service = {"service": group[0].service} if every else {}
        entry: dict[str, Any] = {
            **service,
            "signature": signature[:1000],
            "count": len(group),
            "first_seen": iso(min(r.ts for r in group)),
            "last_seen": iso(max(r.ts for r in group)),
            "levels": dict(Counter(r.level for r in group)),
            "sample": _masked(group[0].message, 2000),
        }
        if before is not None:
            entry["before"] = before[key]
        top.append(entry)
    return top


def error_signature(message: str) -> str:
    """The message with ids, addresses, times and numbers replaced, so repeats of one error group together."""
    signature = mask_secrets(message.strip()[:3000])[:2000]
    for pattern, placeholder in _SIGNATURE_RULES:
        signature = pattern.sub(placeholder, signature)
    return signature


def _window(start: str, end: str, now: float) -> Any:
    try:
        return parse_window(start, end, now=now, max_seconds=MAX_WINDOW_S)
    except TimeArgumentError as exc:
        raise ToolError(str(exc)) from exc


def _check_service(service: str) -> None:
    if not _SERVICE.match(service):
        raise ToolError(
            f"service {service!r} is not a valid service name (letters, digits and _ . : / -, at most 128 characters)"
        )


def _masked(text: str, limit: int) -> str:
    """`text` masked and cut to `limit` characters, saying how much was cut.

    Cut before masking (with a margin, so a secret straddling the limit is still recognised): masking
    a multi-megabyte line would cost far more than the line is worth.
    """
    masked = mask_secrets(text[: limit + 1024])
    if len(text) <= limit and len(masked) <= limit:
        return masked
    return masked[:limit] + f"…[cut {max(len(text), len(masked)) - limit} characters]"


def _line(record: LogRecord, *, with_service: bool = False) -> dict[str, Any]:
    service = {"service": record.service} if with_service else {}
    return {
        **service,
        "time": iso(record.ts),
        "level": record.level,
        "message": _masked(record.message, MAX_LINE_CHARS),
        "labels": {k: _masked(v, 1024) for k, v in record.labels.items()},
    }


def _size(value: Any) -> int:
    # The same encoding the SDK uses for the text content a model reads.
    return len(pydantic_core.to_json(value, indent=2))


def _fit(response: dict[str, Any]) -> dict[str, Any]:
    """Drop the oldest lines until the result's JSON text is at most MAX_RESULT_BYTES."""
    lines = response["lines"]
    if _size(response) <= MAX_RESULT_BYTES:
        return response
    # Reserve room for the note first, then keep whole lines, newest first, while they fit.
    total = len(lines)
    response["lines"] = []
    response["truncated"] = True
    response["notes"].append(
        f"result cut at 1 MiB: kept the newest N of {total} lines; narrow the window or the query"
    )
    budget = MAX_RESULT_BYTES - _size(response) - 64
    kept = []
    for line in lines:
        text = pydantic_core.to_json(line, indent=2)
        # Nested two levels deep, each of its lines gains 4 spaces; plus the ",\n" separator.
        cost = len(text) + 4 * (text.count(b"\n") + 1) + 2
        if cost > budget:
            break
        budget -= cost
        kept.append(line)
    while kept and _size({**response, "lines": kept}) > MAX_RESULT_BYTES:
        kept.pop()  # only if the estimate above was short; a safety net
    response["lines"] = kept
    response["notes"][-1] = response["notes"][-1].replace(
        "newest N", f"newest {len(kept)}"
    )
    return response
