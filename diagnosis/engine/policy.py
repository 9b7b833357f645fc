"""The executor's checks before every call (issue 9 item 6). Pure: no I/O, no ORM.

A refusal is returned, never raised: the executor records it as a span in state `refused`
with layer `policy`, so the trace shows what the engine would not do and why.
"""

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from diagnosis.registry import ServerEntry
from reasoning.observations import PlannedCall, ToolInfo

# The creator's scopes a call needs: reading tools is part of running a diagnosis; a write
# also needs someone who may decide approvals to say yes (the approval flow), and the creator
# must have been able to open the incident.
READ_SCOPE = "incidents:write"

# Argument limits the engine holds every server to, whatever its schema allows.
MAX_WINDOW = timedelta(hours=24)
MAX_ROWS = 1000
MAX_ARGUMENT_CHARS = 4000
_ROW_KEYS = ("limit", "tail", "rows", "max_results")
_TIME_KEYS = ("start", "end")
_RELATIVE = re.compile(r"^(?:now)?\s*-\s*(\d+)\s*([smhdw])$|^now$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


@dataclass(frozen=True)
class Refusal:
    code: str  # not_allowed | tenant_forbidden | scope_missing | argument_limit | budget_exhausted | deadline
    message: str


@dataclass
class Budget:
    """Calls and seconds a diagnosis may spend; `reserve` is kept back to write the report."""

    max_calls: int
    deadline: float  # loop-clock time after which nothing more is called
    reserve: float = 3.0
    calls: int = 0
    task_deadline: float = math.inf  # loop-clock time of the task's deadline

    def remaining(self, now: float) -> float:
        return self.deadline - self.reserve - now

    def restart(self, now: float, seconds: float) -> None:
        """Count the seconds from `now` (once the servers are up), within the task's deadline."""
        self.deadline = min(now + seconds, self.task_deadline)


def check_call(
    call: PlannedCall,
    *,
    tool: ToolInfo | None,
    entry: ServerEntry | None,
    tenant: str,
    granted_scopes: frozenset[str],
    budget: Budget,
    now: float,
    wall_now: datetime | None = None,
) -> Refusal | None:
    """Why the engine will not make `call`, or None when it may."""
    if entry is None or tool is None or not entry.is_tool_allowed(call.tool):
        return Refusal(
            "not_allowed",
            f"{call.server}.{call.tool} is not an allowed tool of this environment",
        )
    if not entry.is_usable_by(tenant):
        return Refusal(
            "tenant_forbidden", f"server {call.server} is closed to {tenant}"
        )
    if READ_SCOPE not in granted_scopes:
        return Refusal(
            "scope_missing",
            f"the incident's creator lacks {READ_SCOPE}, which running tools needs",
        )
    if (
        reason := argument_problem(call.arguments, wall_now or datetime.now(UTC))
    ) is not None:
        return Refusal("argument_limit", reason)
    if budget.calls >= budget.max_calls:
        return Refusal(
            "budget_exhausted", f"the diagnosis used its {budget.max_calls} tool calls"
        )
    if budget.remaining(now) <= 0:
        return Refusal("deadline", "no time left before the task's deadline")
    return None


def argument_problem(arguments: Mapping[str, Any], now: datetime) -> str | None:
    """Why the arguments exceed the engine's limits (rows, window, size), or None."""
    for key in _ROW_KEYS:
        value = arguments.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        if not math.isfinite(value) or value > MAX_ROWS:
            return f"{key}={value} is over the engine's limit of {MAX_ROWS} rows"
    for key, value in arguments.items():
        if isinstance(value, str) and len(value) > MAX_ARGUMENT_CHARS:
            return (
                f"{key} is {len(value)} characters; the limit is {MAX_ARGUMENT_CHARS}"
            )
    start, end = (_instant(arguments.get(k), now) for k in _TIME_KEYS)
    if start is not None and (end or now) - start > MAX_WINDOW:
        hours = MAX_WINDOW.total_seconds() / 3600
        return f"the window start..end is longer than the engine's {hours:g} h limit"
    return None


def _instant(value: Any, now: datetime) -> datetime | None:
    """A time argument as the servers accept it (RFC 3339, now-15m); None when not readable."""
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    if (match := _RELATIVE.match(text)) is not None:
        if text == "now":
            return now
        return now - timedelta(seconds=int(match[1]) * _UNIT_SECONDS[match[2]])
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
