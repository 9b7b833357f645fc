"""Time arguments shared by the servers: RFC 3339, Unix seconds, or relative to now ("now-15m", "-2h").

Every tool that reads a time range goes through `parse_window`, so limits and error messages match.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime

_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d|w)")
_RELATIVE = re.compile(r"^(?:now)?\s*([+-])\s*((?:\d+(?:\.\d+)?(?:ms|s|m|h|d|w))+)$")
_FORMATS_HINT = 'use RFC 3339 ("2026-11-30T14:00:00Z"), Unix seconds ("1764511200"), or relative ("now-15m", "-2h")'


class TimeArgumentError(ValueError):
    """A time or duration argument a person must fix; the message says how."""


def parse_duration(value: str | float, *, name: str = "duration") -> float:
    """Parse "90s", "5m", "1h30m" or a plain number of seconds into seconds."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value)
    else:
        text = str(value).strip().lower()
        try:
            seconds = float(text)
        except ValueError:
            parts = _DURATION.findall(text)
            if not parts or "".join(n + u for n, u in parts) != text:
                raise TimeArgumentError(
                    f'{name} {value!r} is not a duration; use e.g. "30s", "5m", "1h30m" or a number of seconds'
                ) from None
            seconds = sum(float(n) * _UNITS[u] for n, u in parts)
    if not math.isfinite(seconds) or seconds <= 0:
        raise TimeArgumentError(f"{name} must be a positive duration, got {value!r}")
    return seconds


def parse_time(value: str | float, *, now: float, name: str = "time") -> float:
    """Parse one time argument into Unix seconds."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _check_finite(float(value), value, name)
    text = str(value).strip()
    if text.lower() == "now":
        return now
    relative = _RELATIVE.match(text.lower())
    if relative:
        sign, duration = relative.groups()
        seconds = parse_duration(duration, name=name)
        return now - seconds if sign == "-" else now + seconds
    try:
        return _check_finite(float(text), value, name)
    except ValueError:
        pass
    try:
        parsed = datetime.fromisoformat(
            text.replace("Z", "+00:00").replace("z", "+00:00")
        )
    except ValueError:
        raise TimeArgumentError(
            f"{name} {value!r} is not a time; {_FORMATS_HINT}"
        ) from None
    if parsed.tzinfo is None:
        # Naive times are read as UTC: a server's local zone is not something a caller can see.
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def _check_finite(seconds: float, raw: object, name: str) -> float:
    if not math.isfinite(seconds) or seconds < 0:
        raise TimeArgumentError(f"{name} {raw!r} is not a time; {_FORMATS_HINT}")
    return seconds


@dataclass(frozen=True)
class Window:
    """A validated [start, end] range in Unix seconds."""

    start: float
    end: float

    @property
    def seconds(self) -> float:
        return self.end - self.start

    def as_dict(self) -> dict[str, str]:
        return {"start": iso(self.start), "end": iso(self.end)}


def parse_window(
    start: str | float, end: str | float, *, now: float, max_seconds: float
) -> Window:
    """Parse and bound a time range.

    Raises:
        TimeArgumentError: unparsable times, start not before end, or a range longer than `max_seconds`.
    """
    start_s = parse_time(start, now=now, name="start")
    end_s = parse_time(end, now=now, name="end")
    if start_s >= end_s:
        raise TimeArgumentError(
            f"start ({iso(start_s)}) must be before end ({iso(end_s)}); swap them or widen the range"
        )
    if end_s - start_s > max_seconds:
        raise TimeArgumentError(
            f"the range {format_duration(end_s - start_s)} is longer than the {format_duration(max_seconds)} limit; "
            f"narrow start/end (e.g. start=now-{format_duration(max_seconds)})"
        )
    return Window(start_s, end_s)


def iso(seconds: float) -> str:
    """Unix seconds as RFC 3339 UTC with millisecond precision."""
    return (
        datetime.fromtimestamp(seconds, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


def format_duration(seconds: float) -> str:
    """Seconds as a compact duration: 21600 → "6h", 5400 → "1h30m", 90 → "1m30s"."""
    remaining = round(seconds)
    if remaining <= 0:
        return f"{seconds:g}s"
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        count, remaining = divmod(remaining, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)
